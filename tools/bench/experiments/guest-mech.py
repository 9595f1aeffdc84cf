#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the mechanism experiment (tools/bench/experiments/run):
the same ftbench loops and method as tools/bench/guest-bench.py (fresh
process and fresh module per run, order reversed every other round, two
bare runs for the noise floor), under mech.ko's mechanisms and under
ftagent's own ftrace set on the same kernel. Writes raw.jsonl records in
guest-bench's format, so tools/bench/bench_report.aggregate() reads them.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "guest_bench", os.path.join(HERE, "..", "guest-bench.py"))
gb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gb)


class Mech(gb.Agent):
    kind = "mech"

    def __init__(self, name, mech):
        super().__init__(name)
        self.mech = mech

    def start(self):
        gb.run(["insmod", ARGS.mech_module, "mech=" + self.mech])

    def stop(self):
        p = "/sys/module/mech/parameters/"
        with open(p + "hits") as f:
            self.hits = int(f.read())
        with open(p + "bytes") as f:
            self.bytes = int(f.read())
        gb.run(["rmmod", "mech"])

    def check(self, expected):
        # floor, fprobe, ew and ct hook pread64 and sendto; tp sees every socket
        # send and receive (the sender's and the drained receiver's).
        want = sum(n for c, n in expected.items()
                   if c in (("sendto",) if self.mech == "tp"
                            else ("pread64", "sendto")))
        return ([{"call": "hooked calls", "made": want, "seen": self.hits,
                  "ok": self.hits >= want}], {"bytes": self.bytes})


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--mech-module", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--workloads", default="getppid,send_1k,pread_4k")
    ap.add_argument("--mechs", default="floor,fprobe,tp")
    ARGS = ap.parse_args()
    gb.ARGS = argparse.Namespace(module=ARGS.module, scale=ARGS.scale,
                                 workloads=ARGS.workloads)
    os.makedirs(gb.WORK, exist_ok=True)
    gb.BENCH = os.path.join(gb.WORK, "ftbench")
    shutil.copy(os.path.join(ARGS.build, "ftbench"), gb.BENCH)
    gb.FTCTL = os.path.join(gb.WORK, "ftctl")
    shutil.copy(os.path.join(ARGS.build, "ftctl"), gb.FTCTL)
    gb.out = open(os.path.join(os.environ["FTG_OUT"], "raw.jsonl"), "w")
    with open("/proc/cmdline") as f:
        gb.emit({"phase": "guest", "kernel": os.uname().release,
                 "cmdline": f.read().strip(), "cpus": os.cpu_count()})
    cs = [gb.Agent("none"), gb.Agent("none_aa"),
          gb.Ftagent("standard", ["hooks=ftrace"]),
          gb.Ftagent("minimal", ["mode=minimal", "hooks=ftrace"])]
    cs += [Mech(m, m) for m in ARGS.mechs.split(",") if m]
    for rnd in range(ARGS.rounds):
        for c in (cs if rnd % 2 == 0 else cs[::-1]):
            gb.log("round %d/%d: %s" % (rnd + 1, ARGS.rounds, c.name))
            gb.percall_run(c, rnd)
    gb.out.close()
    subprocess.run(["dmesg"], stdout=open(
        os.path.join(os.environ["FTG_OUT"], "dmesg.txt"), "w"))


if __name__ == "__main__":
    sys.exit(main())
