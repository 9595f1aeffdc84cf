#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TAP tests of tools/bench (see bench_tools.sh)."""
import importlib.util
import os
import subprocess
import sys
import tempfile

build, top = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(top, "tools", "bench"))
import bench_report  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "guest_bench", os.path.join(top, "tools", "bench", "guest-bench.py"))
guest_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guest_bench)

n = failed = 0


def check(name, ok, detail=""):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok:
        failed += 1
        if detail:
            print("# " + str(detail).replace("\n", "\n# "))


# ftbench: every workload, in the format guest-bench.py parses.
with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([os.path.join(build, "ftbench"), "-n", "1"],
                       cwd=d, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
check("ftbench -n 1 exits 0", r.returncode == 0, r.stderr)
rows = guest_bench.parse_ftbench(r.stdout)
# A host without ia32 emulation (or with io_uring off) cannot run those:
# ftbench says so on their lines, and only for them.
unavailable = [l.split()[0] for l in r.stdout.splitlines()
               if l.split()[1:2] == ["unavailable"]]
check("only the int $0x80 and io_uring workloads may be unavailable",
      set(unavailable) <= {"getppid_int80", "pread_4k_int80", "iouring_nop",
                           "iouring_read_4k"}, unavailable)
check("ftbench reports every other workload in order",
      [w["workload"] for w in rows] ==
      [w for w in guest_bench.WORKLOADS if w not in unavailable], r.stdout)
check("percentiles are ordered and positive",
      all(0 < w["p50"] <= w["p95"] <= w["p99"] for w in rows), r.stdout)
want = {"pread_4k": {"pread64": 50}, "pread_4k_shared": {"pread64": 50},
        "send_1k": {"sendto": 50},
        "pread_send_16k": {"pread64": 30, "sendto": 30},
        "sendfile_64k": {"sendfile64": 20}, "openat_close": {"openat": 50},
        "connect_close": {"connect": 10}, "fork_exec_exit": {"execve": 10},
        "getppid": {}, "close_untraced": {}, "getppid_int80": {},
        "pread_4k_int80": {"ia32_pread64": 50}, "iouring_nop": {},
        "iouring_read_4k": {}, "sendmmsg_8x1k": {"sendmmsg": 30},
        "recv_1k": {"recvfrom": 50, "sendto": 50}}
got = {w["workload"]: w["calls"] for w in rows}
for w in unavailable:
    del want[w]
check("each workload names the calls it made", got == want, got)
r = subprocess.run([os.path.join(build, "ftbench"), "-n", "0"],
                   text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check("ftbench refuses a bad scale", r.returncode == 2 and "-n" in r.stderr,
      r.stderr)


def rec(workload, cond, rnd, p50, kind="none"):
    return {"phase": "percall", "workload": workload, "condition": cond,
            "round": rnd, "p50": p50, "p95": p50 + 10, "p99": p50 + 20,
            "mean": p50, "samples": 100, "calls": {}, "kind": kind}


# Aggregation: figures, noise floor, verdicts.
records = [{"phase": "guest", "kernel": "k", "cmdline": "c", "cpus": 1}]
for rnd, (base, aa, std, flip) in enumerate([(1000, 1002, 1100, 1001),
                                             (1000, 999, 1102, 999),
                                             (1001, 1001, 1101, 1003)]):
    records += [rec("pread_4k", "none", rnd, base),
                rec("pread_4k", "none_aa", rnd, aa),
                rec("pread_4k", "standard", rnd, std, "ftagent"),
                rec("pread_4k", "sysdig", rnd, flip, "peer")]
records.append({"phase": "check", "round": 0, "condition": "standard",
                "kind": "ftagent", "drops": {"lost_recursion": 0},
                "calls": [{"call": "pread64", "made": 10, "seen": 9,
                           "ok": False}]})
res = bench_report.aggregate(records)
c = res["percall"]["pread_4k"]
check("noise floor is the largest A/A difference",
      res["noise_floor"]["pread_4k"] == 2, res["noise_floor"])
check("added cost is the median of per-round differences",
      c["standard"]["added"] == 100 and not c["standard"]["below_noise"],
      c["standard"])
check("ratio is to the baseline of the same run",
      abs(c["standard"]["ratio"] - 1101 / 1000) < 1e-9, c["standard"])
check("a difference whose sign flips between rounds is below the noise",
      c["sysdig"]["below_noise"], c["sysdig"])
check("the A/A condition itself is within its own floor",
      c["none_aa"]["below_noise"], c["none_aa"])
md = bench_report.markdown(bench_report.aggregate_kernels(records))
check("the report shows the noise verdict with per-round differences",
      "≈0 (noise: +1/-1/+2)" in md, md)
check("the report flags a missed call",
      "standard round 0: pread64 made 10, seen 9" in md, md)
t = {x["target"]: x for x in res["targets"]}
tgt = t.get("pread_4k added instructions (standard, ftrace)")
check("+100 meets the +150 target", tgt and tgt["met"], res["targets"])
peer = t.get("pread_4k ahead of every peer")
check("a peer that costs less than ftagent fails 'ahead of every peer'",
      peer and not peer["met"], res["targets"])
records.append(rec("getppid", "none", 0, 337))
records.append(rec("getppid", "standard", 0, 340, "ftagent"))
t = {x["target"]: x for x in bench_report.aggregate(records)["targets"]}
tgt = t.get("getppid unchanged (standard, ftrace)")
check("getppid at x1.009 misses the x1.005 target", tgt and not tgt["met"],
      tgt)

# Two kernels: one guest each, records tagged with the kernel; the
# report has a column per kernel, each against its own bare kernel.
K1, K2 = "6.1.0-57-amd64", "6.12.117+deb12-amd64"
two = []
for k, base, std in ((K1, 5000, 5355), (K2, 5480, 5850)):
    rs = [{"phase": "guest", "cmdline": "c", "cpus": 1}]
    for rnd in range(2):
        rs += [rec("pread_4k", "none", rnd, base),
               rec("pread_4k", "none_aa", rnd, base),
               rec("pread_4k", "standard", rnd, std, "ftagent")]
        if k == K1:
            rs.append(rec("pread_4k", "sysdig", rnd, base + 1700, "peer"))
    two += [dict(r, kernel=k) for r in rs]
run = {"peers_unavailable": {K2: {"sysdig": "falcosecurity-scap-dkms X "
                                  "does not build scap.ko for " + K2 +
                                  ":\n`main.c: error: boom`"}}}
mk = bench_report.aggregate_kernels(two, run)
check("one aggregate per kernel, in the order the kernels ran",
      mk["kernels"] == [K1, K2], mk["kernels"])
check("each kernel's cost is against its own bare kernel",
      mk["by_kernel"][K1]["percall"]["pread_4k"]["standard"]["added"] == 355
      and mk["by_kernel"][K2]["percall"]["pread_4k"]["standard"]["added"]
      == 370, mk["by_kernel"])
md = bench_report.markdown(mk)
check("the report has a column per kernel",
      "| workload | condition | %s | %s |" % (K1, K2) in md, md)
check("a workload row carries both kernels' figures",
      "| pread_4k | ftagent standard | +355 (×1.071) | +370 (×1.068) |"
      in md, md)
check("a peer that cannot run on one kernel is 'not run' there",
      "| pread_4k | sysdig (scap.ko) | +1700 (×1.340) | not run |" in md, md)
check("the report says why the peer did not run",
      "sysdig (scap.ko) not run on %s**: falcosecurity-scap-dkms X" % K2
      in md and "boom" in md, md)
check("targets have a column per kernel",
      "| pread_4k added instructions (standard, ftrace) | <= +150 | "
      "+355 **missed** | +370 **missed** |" in md, md)
# A result saved before the per-kernel runs: no record is tagged.
untagged = [{q: v for q, v in r.items() if q != "kernel"}
            for r in two if r["kernel"] == K1]
untagged[0]["kernel"] = K1
one = bench_report.aggregate_kernels(untagged)
check("an untagged single-kernel result groups under its guest's kernel",
      one["kernels"] == [K1], one["kernels"])
check("kernel series names the result files",
      [bench_report.kernel_series(k) for k in (K1, K2)] == ["6.1", "6.12"])

mem = bench_report.computed_memory(2, 16384, 4 << 20)
check("computed memory at 2 CPUs matches docs/memory.md (8 MiB tables)",
      mem["counters"] == 8 << 20 and mem["event_channel"] == 4 << 20, mem)
mem = bench_report.computed_memory(256, 16384, 4 << 20)
check("computed memory at 256 CPUs: 16 MiB tables, 16 MiB channel floor",
      mem["counters"] == 16 << 20 and mem["event_channel"] == 16 << 20, mem)

print("1..%d" % n)
sys.exit(1 if failed else 0)
