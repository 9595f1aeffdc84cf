#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the return-path experiment (docs/design/return-path.md).

--measure: the ftbench loops under ftagent's ftrace set as it is (the
TIF_NOTIFY_RESUME settle) and with exit_work=1 (the sys_exit tracepoint
prototype), the same method as guest-bench.py (fresh process and module
per run, order reversed every other round, two bare runs), in an
instruction-count guest; records in guest-bench's raw.jsonl format.

--coexist: whether another user of raw_syscalls:sys_exit (bpftrace,
perf) still sees every call of a process while exit_work=1 is loaded,
started before and after the module, and whether ftagent still sees
every traced call meanwhile. Prints one line per check, exits 1 if any
failed.
"""
import argparse
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "guest_bench", os.path.join(HERE, "..", "guest-bench.py"))
gb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gb)

NR_GETPPID = 110
HELPER = r'''
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.getpid(), flush=True)
for line in sys.stdin:
    n = int(line)
    for i in range(n):
        os.pread(fd, 4096, 0)
        os.getppid()
    print("done", flush=True)
'''


class Helper:
    """A long-lived process making N (pread, getppid) pairs on demand."""

    def __init__(self):
        path = "/tmp/retpath-data"
        with open(path, "wb") as f:
            f.write(b"x" * 8192)
        self.p = subprocess.Popen([sys.executable, "-c", HELPER, path],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.pid = int(self.p.stdout.readline())

    def go(self, n):
        self.p.stdin.write("%d\n" % n)
        self.p.stdin.flush()
        assert self.p.stdout.readline().strip() == "done"

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class Bpftrace:
    def __init__(self, pid):
        prog = ("tracepoint:raw_syscalls:sys_exit /pid == %d && "
                "args->id == %d/ { @n = count(); }" % (pid, NR_GETPPID))
        self.p = subprocess.Popen(["bpftrace", "-e", prog],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("Attaching"):
            raise RuntimeError("bpftrace: " + line)
        time.sleep(1)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        out = self.p.communicate(timeout=120)[0]
        m = re.search(r"@n: (\d+)", out)
        return int(m.group(1)) if m else 0


class Perf:
    """perf stat on raw_syscalls:sys_exit only (no sys_enter probe)."""

    def __init__(self, pid):
        self.p = subprocess.Popen(
            ["perf", "stat", "-x,", "-e", "raw_syscalls:sys_exit",
             "--filter", "id == %d" % NR_GETPPID, "-p", str(pid)],
            stderr=subprocess.PIPE, text=True)
        time.sleep(3)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        err = self.p.communicate(timeout=120)[1]
        for line in err.splitlines():
            f = line.split(",")
            if len(f) > 2 and "sys_exit" in line and f[0].isdigit():
                return int(f[0])
        raise RuntimeError("perf: " + err)


def pread_hits():
    k = gb.module_stats()
    return {h["function"]: h["hits"] for h in k["hooks"]}.get(
        "__x64_sys_pread64", 0)


def coexist(module):
    fails = 0
    n = 2000

    def check(what, want, got, at_least=False):
        nonlocal fails
        ok = got >= want if at_least else got == want
        fails += not ok
        print("%s %s: want %s%d, seen %d" % (
            "ok  " if ok else "FAIL", what, ">= " if at_least else "",
            want, got), flush=True)

    def load():
        gb.run(["insmod", module, "hooks=ftrace", "exit_work=1"])

    def unload():
        gb.run(["rmmod", "ftagent"])

    for peer_cls in (Bpftrace, Perf):
        name = peer_cls.__name__.lower()
        # 1. the peer first, then the module, then the peer's count.
        h = Helper()
        peer = peer_cls(h.pid)
        load()
        h.go(n)
        check("%s started before the module: ftagent's preads" % name,
              n, pread_hits(), True)
        got = peer.stop()
        check("%s started before the module: its getppid exits" % name,
              n, got)
        # 2. the module first (the helper's bit set and cleared by then),
        # then the peer.
        h.go(n)
        peer = peer_cls(h.pid)
        h.go(n)
        check("%s started after the module: its getppid exits" % name,
              n, peer.stop())
        check("%s started after the module: ftagent's preads" % name,
              3 * n, pread_hits(), True)
        # 3. the peer gone, the module still there: counts go on.
        h.go(n)
        check("%s gone, the module stays: ftagent's preads" % name,
              4 * n, pread_hits(), True)
        # 4. a peer that outlives the module.
        peer = peer_cls(h.pid)
        h.go(n)
        unload()
        h.go(n)
        check("%s outliving the module: its getppid exits" % name,
              2 * n, peer.stop())
        h.close()
    return 1 if fails else 0


class EwFtagent(gb.Ftagent):
    """exit_work=1, after a perf session on sys_exit came and went."""

    def start(self):
        super().start()
        # A probe on sys_exit alone comes and goes (perf's own process,
        # to the end of `true`): the others' count goes 0, 1, 0.
        gb.run(["perf", "stat", "-e", "raw_syscalls:sys_exit", "--",
                "true"], stderr=subprocess.DEVNULL)


def measure(a):
    gb.ARGS = argparse.Namespace(module=a.module, scale=a.scale,
                                 workloads=a.workloads)
    gb.WORKLOADS = a.workloads.split(",") + ["fork_exec_exit"]
    os.makedirs(gb.WORK, exist_ok=True)
    gb.BENCH = os.path.join(gb.WORK, "ftbench")
    shutil.copy(os.path.join(a.build, "ftbench"), gb.BENCH)
    gb.FTCTL = os.path.join(gb.WORK, "ftctl")
    shutil.copy(os.path.join(a.build, "ftctl"), gb.FTCTL)
    gb.out = open(os.path.join(os.environ["FTG_OUT"], "raw.jsonl"), "w")
    with open("/proc/cmdline") as f:
        gb.emit({"phase": "guest", "kernel": os.uname().release,
                 "cmdline": f.read().strip(), "cpus": os.cpu_count()})
    cs = [gb.Agent("none"), gb.Agent("none_aa"),
          gb.Ftagent("standard", ["hooks=ftrace"]),
          gb.Ftagent("exit_work", ["hooks=ftrace", "exit_work=1"])]
    if a.peer_cycle:
        cs.append(EwFtagent("exit_work_after_perf",
                            ["hooks=ftrace", "exit_work=1"]))
    for rnd in range(a.rounds):
        for c in (cs if rnd % 2 == 0 else cs[::-1]):
            gb.log("round %d/%d: %s" % (rnd + 1, a.rounds, c.name))
            gb.percall_run(c, rnd)
    gb.out.close()
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--coexist", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--peer-cycle", action="store_true")
    ap.add_argument("--workloads",
                    default="getppid,pread_4k,send_1k,close_untraced")
    a = ap.parse_args()
    gb.FTCTL = os.path.join(a.build, "ftctl")
    if a.coexist:
        return coexist(a.module)
    return measure(a)


if __name__ == "__main__":
    sys.exit(main())
