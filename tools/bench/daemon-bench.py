#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftagentd's own costs, measured in the test guest (a benchmark, not a
test: it asserts nothing and prints figures for docs/overhead.md).

- idle: CPU seconds and RSS of the daemon over IDLE_S seconds of an idle
  guest (the flush timer still ticks every 250 ms);
- ftctl stats latency: median wall time of N runs of `ftctl stats` (exec
  included) and of N bare API "stats" requests (no exec);
- events drained: a burst of file opens (one open record each) at full
  speed, several rounds of growing size; per round the records the daemon
  received, the kernel's losses, and the rate.

Under TCG absolute times are far slower than hardware: compare figures
from the same run only.

usage: daemon-bench.py BUILD_DIR   (the module must be loaded)
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="ftagent-bench-")
SOCK = os.path.join(WORK, "s.sock")
IDLE_S = 20
N = 30


def api(req):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(SOCK)
        s.sendall(json.dumps(req).encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            buf += s.recv(1 << 20)
    return json.loads(buf)


def proc_cpu_rss(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / tick
    with open("/proc/%d/statm" % pid) as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGESIZE")
    return cpu, rss


def main():
    conf = os.path.join(WORK, "c.conf")
    with open(conf, "w") as f:
        f.write("[agent]\nmode = standard\n")
    d = subprocess.Popen([os.path.join(BUILD, "ftagentd"), "-c", conf,
                          "--socket", SOCK, "--state-dir", WORK])
    while not os.path.exists(SOCK):
        time.sleep(0.1)
    time.sleep(2)
    cpu0, rss0 = proc_cpu_rss(d.pid)
    t0 = time.monotonic()
    time.sleep(IDLE_S)
    cpu1, rss1 = proc_cpu_rss(d.pid)
    wall = time.monotonic() - t0
    print("idle: %.2f%% CPU over %.0f s (%.3f s CPU), RSS %.1f MiB" % (
        100 * (cpu1 - cpu0) / wall, wall, cpu1 - cpu0, rss1 / 2**20))

    env = dict(os.environ, FTAGENT_SOCKET=SOCK)
    runs = []
    for _ in range(N):
        t = time.monotonic()
        subprocess.run([os.path.join(BUILD, "ftctl"), "stats"], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        runs.append(time.monotonic() - t)
    reqs = []
    for _ in range(N):
        t = time.monotonic()
        api({"cmd": "stats"})
        reqs.append(time.monotonic() - t)
    print("ftctl stats: median %.1f ms (min %.1f, max %.1f) over %d runs;"
          " API stats request alone: median %.2f ms" % (
              1000 * statistics.median(runs), 1000 * min(runs),
              1000 * max(runs), N, 1000 * statistics.median(reqs)))

    target = os.path.join(WORK, "opened")
    open(target, "w").close()
    for n in (2000, 8000, 32000):
        before = api({"cmd": "stats"})["collector"]
        t = time.monotonic()
        for _ in range(n):
            os.close(os.open(target, os.O_RDONLY))
        gen = time.monotonic() - t
        time.sleep(1.5)  # a few flush intervals: let the drain catch up
        after = api({"cmd": "stats"})["collector"]
        got = after["events_received"]["open"] - \
            before["events_received"]["open"]
        lost = sum(after["events_dropped"].values()) - \
            sum(before["events_dropped"].values())
        print("burst of %d opens in %.2f s (%.0f/s): daemon received %d "
              "open records, %d dropped or lost, queue peak %d of %d "
              "bytes" % (n, gen, n / gen, got, lost,
                         after["event_queue"]["peak_bytes"],
                         after["event_queue"]["size_bytes"]))
    d.terminate()
    d.wait()


if __name__ == "__main__":
    main()
