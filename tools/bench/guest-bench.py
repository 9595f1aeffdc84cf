#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark's guest side (started by tools/bench/bench inside an
instruction-count guest): per-call costs under every condition, the event
storm, the daemon's own costs and the module's memory. Writes one JSON
object per measurement to $FTG_OUT/raw.jsonl; the host aggregates them.

Method:
- every condition runs in a fresh process with fresh module state (the
  module is loaded for the run and unloaded after it), and the conditions
  alternate their order from round to round;
- "none" and "none_aa" are both the bare kernel: their difference is the
  rig's noise floor;
- after every run with an agent, the agent's own counts are compared with
  the calls the benchmark made: a hook that did not fire must not look
  free.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PEERS = os.path.join(TOP, "tools", "bench", "peers")
WORK = "/tmp/ftbench-work"

# The kernel memory lines read before and after loading the module.
MEMINFO_KEYS = ("MemFree", "Slab", "SUnreclaim", "VmallocUsed", "Percpu")
WORKLOADS = ["getppid", "send_1k", "pread_4k", "pread_4k_shared",
             "pread_send_16k",
             "sendfile_64k", "openat_close", "connect_close",
             "fork_exec_exit", "close_untraced", "getppid_int80",
             "pread_4k_int80", "iouring_nop", "iouring_read_4k",
             "sendmmsg_8x1k", "recv_1k"]

out = None


def emit(obj):
    out.write(json.dumps(obj, sort_keys=True) + "\n")
    out.flush()


def log(msg):
    print("guest-bench: " + msg, file=sys.stderr, flush=True)


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, text=True,
                          stdout=subprocess.PIPE, **kw)


def guest_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Agent:
    """A condition: what is loaded or started around a run."""

    kind = "none"

    def __init__(self, name):
        self.name = name

    def start(self):
        pass

    def stop(self):
        pass

    def check(self, expected):
        """Compare the agent's counts with the calls made: a list of
        {"call", "made", "seen", "ok"}, plus the agent's drops."""
        return [], {}


def exit_work_on():
    """Whether ftagent's ftrace set returns through the syscall exit work:
    its hook on tracepoint_probe_unregister is in enabled_functions."""
    path = "/sys/kernel/tracing/enabled_functions"
    if not os.path.exists(path):
        subprocess.run(["mount", "-t", "tracefs", "tracefs",
                        "/sys/kernel/tracing"], check=False)
    with open(path) as f:
        return any(line.startswith("tracepoint_probe_unregister ") and
                   "[ftagent]" in line for line in f)


class Ftagent(Agent):
    kind = "ftagent"

    def __init__(self, name, params=(), daemon=False, rules=0,
                 rules_kind=None):
        super().__init__(name)
        self.params = list(params)
        self.daemon = daemon
        self.rules = rules
        self.rules_file = rules_kind or rules_file
        self.proc = None
        self.exec_events = None

    def start(self):
        run(["insmod", ARGS.module] + self.params)
        if "hooks=ftrace" in self.params:
            # The figure must be of the return path the condition names.
            want = "exit_work=0" not in self.params
            if exit_work_on() != want:
                raise SystemExit("%s: the ftrace set %s the exit work" %
                                 (self.name, "is not on" if want else
                                  "is on"))
        if self.rules:
            run([FTCTL, "policy", "load", self.rules_file(self.rules)])
        if self.daemon:
            self.proc = start_daemon()
        # Losses are counted from here: a channel the daemon replaces at
        # its start discards what nobody was reading yet, by design.
        self.stats0 = module_stats()

    def stop(self):
        self.stats = module_stats()
        if self.proc:
            stop_daemon(self.proc)
            self.proc = None
        run(["rmmod", "ftagent"])

    def check(self, expected):
        k = self.stats
        hits = {h["function"]: h for h in k["hooks"]}
        rows = []
        for call, made in expected.items():
            if call == "execve":
                # Exec is seen by the lifecycle probe, as an event: the
                # events emitted while fork_exec_exit ran alone.
                if k["mode"] != "standard" or self.exec_events is None:
                    continue
                seen = self.exec_events
            else:
                h = hits.get("__x64_sys_" + call)
                if not h or h["state"] not in ("attached", "verified"):
                    continue    # not traced in this mode
                seen = h["hits"]
            rows.append({"call": call, "made": made, "seen": seen,
                         "ok": seen >= made})
        return rows, self.losses()

    def losses(self):
        """Losses of every kind since start()."""
        a, b = self.stats0, self.stats
        d = {"lost_" + n: v - a["lost"][n] for n, v in b["lost"].items()}
        d.update(("events_lost_" + n, v - a["events"]["lost"][n])
                 for n, v in b["events"]["lost"].items())
        d["events_discarded"] = (b["events"]["discarded"] -
                                 a["events"]["discarded"])
        return d


class Peer(Agent):
    kind = "peer"

    def __init__(self, name):
        super().__init__(name)
        self.dir = os.path.join(WORK, "peer-" + name)

    def start(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        run([os.path.join(PEERS, self.name), "start", self.dir])

    def stop(self):
        run([os.path.join(PEERS, self.name), "stop", self.dir])
        rep = run([os.path.join(PEERS, self.name), "report",
                   self.dir]).stdout
        self.report = {}
        for line in rep.splitlines():
            k, _, v = line.partition("=")
            try:
                self.report[k.strip()] = int(v)
            except ValueError:
                self.report[k.strip()] = v.strip()

    def check(self, expected):
        rows = []
        for call, made in expected.items():
            # The peers name the x86-64 sendfile by its syscall name.
            name = "sendfile" if call == "sendfile64" else call
            seen = self.report.get("calls_" + name)
            if not isinstance(seen, int):
                continue
            rows.append({"call": call, "made": made, "seen": seen,
                         "ok": seen >= made})
        drops = {k: v for k, v in self.report.items()
                 if k.startswith(("drops", "lost", "backlog_wait_time_actual"))}
        return rows, drops


def module_stats():
    return json.loads(run([FTCTL, "--json", "stats"]).stdout)["kernel"]


def rules_file(n):
    """N rules denying sends to ports the benchmark never uses: every
    send is gated and no rule matches."""
    path = os.path.join(WORK, "rules-%d.conf" % n)
    if not os.path.exists(path):
        with open(path, "w") as f:
            for i in range(n):
                f.write("[policy.r%d]\nops = send\naction = deny\n"
                        "port = %d\n\n" % (i, 1 + i % 1000))
    return path


def port_rules_file(n):
    """N rules denying sends, each to a port of its own that the
    benchmark never uses (1 to N): the port index finds none."""
    path = os.path.join(WORK, "port-rules-%d.conf" % n)
    if not os.path.exists(path):
        with open(path, "w") as f:
            for i in range(n):
                f.write("[policy.p%d]\nops = send\naction = deny\n"
                        "port = %d\n\n" % (i, 1 + i))
    return path


def cidr_rules_file(n):
    """N rules denying sends to /24 prefixes in 10.0.0.0/8 (the
    benchmark sends to 127.0.0.1): the address index finds none."""
    path = os.path.join(WORK, "cidr-rules-%d.conf" % n)
    if not os.path.exists(path):
        with open(path, "w") as f:
            for i in range(n):
                f.write("[policy.c%d]\nops = send\naction = deny\n"
                        "cidr = 10.%d.%d.0/24\n\n" % (i, i // 256, i % 256))
    return path


def start_daemon():
    conf = os.path.join(WORK, "ftagent.conf")
    with open(conf, "w") as f:
        f.write("[agent]\nmode = standard\n")
    for p in ("/run/ftagent",):
        shutil.rmtree(p, ignore_errors=True)
    proc = subprocess.Popen([FTAGENTD, "-c", conf],
                            stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(WORK, "ftagentd.log"),
                                        "a"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("ftagentd exited with %d" % proc.returncode)
        r = run([FTCTL, "--json", "stats"], check=False,
                stderr=subprocess.DEVNULL)
        if r.returncode == 0 and json.loads(r.stdout).get("daemon"):
            return proc
        time.sleep(0.2)
    raise SystemExit("ftagentd did not answer within 60 s")


def stop_daemon(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)


def parse_ftbench(text):
    res = []
    for line in text.splitlines():
        f = line.split()
        if not f or f[0] == "storm":
            continue
        if f[1:2] == ["unavailable"]:
            log(line)       # this kernel cannot run it: no figures
            continue
        kv = dict(x.split("=", 1) for x in f[1:])
        calls = {}
        if kv["calls"] != "-":
            for c in kv["calls"].split(","):
                name, n = c.split(":")
                calls[name] = int(n)
        res.append({"workload": f[0], "samples": int(kv["samples"]),
                    "p50": float(kv["p50"]), "p95": float(kv["p95"]),
                    "p99": float(kv["p99"]), "mean": float(kv["mean"]),
                    "calls": calls})
    return res


def ftbench(workloads):
    if ARGS.workloads:
        workloads = [w for w in workloads if w in ARGS.workloads.split(",")]
    if not workloads:
        return ""
    return run([BENCH, "-n", str(ARGS.scale), "-w",
                ",".join(workloads)]).stdout


def percall_run(agent, rnd):
    try:
        measure(agent, rnd)
    except subprocess.CalledProcessError as e:
        # A peer that fails once (bpftrace not exiting in time, say) is
        # reported and the run goes on; the report lists the failure.
        log("%s round %d failed: %s" % (agent.name, rnd, e))
        emit({"phase": "failure", "round": rnd, "condition": agent.name,
              "error": str(e), "output": e.stdout})
        if isinstance(agent, Ftagent):
            subprocess.run(["rmmod", "ftagent"], stderr=subprocess.DEVNULL)


def measure(agent, rnd):
    agent.start()
    try:
        text = ftbench([w for w in WORKLOADS if w != "fork_exec_exit"])
        # fork+exec alone, so the exec events it caused can be counted.
        before = module_stats() if isinstance(agent, Ftagent) else None
        text += ftbench(["fork_exec_exit"])
        if before:
            agent.exec_events = (module_stats()["events"]["emitted"] -
                                 before["events"]["emitted"])
    finally:
        agent.stop()
    expected = {}
    for w in parse_ftbench(text):
        w.update(phase="percall", round=rnd, condition=agent.name,
                 kind=agent.kind)
        emit(w)
        for c, n in w["calls"].items():
            expected[c] = expected.get(c, 0) + n
    rows, drops = agent.check(expected)
    emit({"phase": "check", "round": rnd, "condition": agent.name,
          "kind": agent.kind, "calls": rows, "drops": drops})
    bad = [r for r in rows if not r["ok"]]
    if bad:
        log("%s round %d: the agent missed calls: %s" %
            (agent.name, rnd, bad))


def daemon_collector():
    return json.loads(run([FTCTL, "--json", "stats"]).stdout)[
        "daemon"]["collector"]


def storm(agent):
    agent.start()
    daemon0 = daemon = None
    if isinstance(agent, Ftagent) and agent.daemon:
        daemon0 = daemon_collector()
    t0 = guest_ns()
    try:
        r = run([BENCH, "storm", str(ARGS.storm_seconds)])
        elapsed = (guest_ns() - t0) / 1e9
        if daemon0:
            time.sleep(2)    # let the daemon drain what is left
            daemon = daemon_collector()
    finally:
        agent.stop()
    ops = {}
    for line in r.stdout.splitlines():
        if line.startswith("storm "):
            k, v = line.split()[1].split("=")
            ops[k] = int(v)
    rec = {"phase": "storm", "condition": agent.name, "kind": agent.kind,
           "seconds": elapsed, "ops": ops}
    if isinstance(agent, Ftagent):
        rec["events"] = {k: agent.stats["events"][k] -
                         agent.stats0["events"][k]
                         for k in ("emitted", "delivered")}
        rec["lost"] = agent.losses()
        if daemon:
            # What the daemon received and dropped during the storm.
            rec["daemon_received"] = {
                k: v - daemon0["events_received"].get(k, 0)
                for k, v in daemon["events_received"].items()}
            rec["daemon_dropped"] = {
                k: v - daemon0["events_dropped"].get(k, 0)
                for k, v in daemon["events_dropped"].items()}
            rec["daemon_event_log"] = daemon["event_log"]
            rec["daemon_event_queue"] = daemon["event_queue"]
    elif isinstance(agent, Peer):
        rec["peer"] = agent.report
    emit(rec)


def read_meminfo():
    vals = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            if k in MEMINFO_KEYS:
                vals[k] = int(v.split()[0]) * 1024
    return vals


def module_size():
    with open("/proc/modules") as f:
        for line in f:
            f2 = line.split()
            if f2[0] == "ftagent":
                return int(f2[1])
    return 0


def memory():
    """Kernel memory of a default load, from the kernel's own books."""
    subprocess.run(["sync"])
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    before = read_meminfo()
    run(["insmod", ARGS.module])
    time.sleep(1)
    after = read_meminfo()
    stats = module_stats()
    text = module_size()
    run(["rmmod", "ftagent"])
    emit({"phase": "memory", "meminfo_before": before,
          "meminfo_after": after, "module_reports": stats["memory_bytes"],
          "module_text": text, "cpus": stats["cpus"],
          "table_capacity": stats["table_capacity"],
          "ring_buffer_size": stats["events"]["ring_buffer_size"]})


def proc_cpu(pid):
    on_cpu_ns = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            on_cpu_ns += int(f.read().split()[0])
    with open("/proc/%d/status" % pid) as f:
        status = dict(line.split(":", 1) for line in f)
    return (on_cpu_ns,
            int(status["voluntary_ctxt_switches"]) +
            int(status["nonvoluntary_ctxt_switches"]),
            int(status["VmRSS"].split()[0]) * 1024)


def api_request(req):
    """One request on the daemon's socket, as ftctl sends it."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect("/run/ftagent/ftagentd.sock")
        s.sendall(json.dumps(req).encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                raise SystemExit("ftagentd closed the API connection")
            buf += chunk
    return json.loads(buf)


def daemon_costs():
    run(["insmod", ARGS.module])
    proc = start_daemon()
    try:
        time.sleep(5)
        cpu0, sw0, _ = proc_cpu(proc.pid)
        t0 = guest_ns()
        time.sleep(ARGS.idle_seconds)
        cpu1, sw1, rss = proc_cpu(proc.pid)
        window = (guest_ns() - t0) / 1e9
        # ftctl's binary and libraries come from 9p: a first run pulls
        # them into the page cache, so the timed runs do not wait on the
        # host (under icount a guest that waits jumps its clock ahead).
        subprocess.run([FTCTL, "stats"], check=True,
                       stdout=subprocess.DEVNULL)
        lat, api_lat = [], []
        for _ in range(ARGS.stats_runs):
            s = guest_ns()
            subprocess.run([FTCTL, "stats"], check=True,
                           stdout=subprocess.DEVNULL)
            lat.append((guest_ns() - s) / 1e6)
            s = guest_ns()
            api_request({"cmd": "stats"})
            api_lat.append((guest_ns() - s) / 1e6)
        emit({"phase": "daemon", "idle_window_s": window,
              "idle_cpu_s": (cpu1 - cpu0) / 1e9,
              "idle_cpu_share": (cpu1 - cpu0) / 1e9 / window,
              "idle_wakeups_per_s": (sw1 - sw0) / window,
              "rss_bytes": rss, "stats_latency_ms": sorted(lat),
              "api_stats_latency_ms": sorted(api_lat)})
    finally:
        stop_daemon(proc)
        run(["rmmod", "ftagent"])


def conditions():
    cs = [Agent("none"), Agent("none_aa"),
          Ftagent("minimal", ["mode=minimal", "hooks=ftrace"]),
          Ftagent("standard", ["hooks=ftrace"]),
          Ftagent("standard_ftrace_ops", ["hooks=ftrace", "direct_calls=0"]),
          # The return seen through TIF_NOTIFY_RESUME, the fallback of
          # the default exit work (docs/hooks.md).
          Ftagent("standard_notify_resume", ["hooks=ftrace", "exit_work=0"]),
          Ftagent("standard_kprobe", ["hooks=kprobe"]),
          Ftagent("standard_daemon", ["hooks=ftrace"], daemon=True),
          # io_uring counting and records off (one of its tracepoints
          # pretended missing): what its hooks, fd_install()'s among
          # them, add to calls that are not io_uring's.
          Ftagent("standard_no_iouring",
                  ["hooks=ftrace", "pretend_missing=io_uring_complete"])]
    cs += [Ftagent("rules_%d" % n, ["hooks=ftrace"], rules=n)
           for n in (1, 100, 10000)]
    # A gated call on the other return paths (the kprobe set, the
    # TIF_NOTIFY_RESUME settle), against the same path ungated.
    cs += [Ftagent("rules_1_kprobe", ["hooks=kprobe"], rules=1),
           Ftagent("rules_1_notify_resume", ["hooks=ftrace", "exit_work=0"],
                   rules=1)]
    cs += [Ftagent("rules_ports_10000", ["hooks=ftrace"], rules=10000,
                   rules_kind=port_rules_file)]
    cs += [Ftagent("rules_cidr_%d" % n, ["hooks=ftrace"], rules=n,
                   rules_kind=cidr_rules_file) for n in (1, 10000)]
    cs += [Peer(p) for p in ARGS.peers]
    if ARGS.conditions:
        keep = ARGS.conditions.split(",")
        cs = [c for c in cs if c.name in keep]
    return cs


def main():
    global ARGS, BENCH, FTCTL, FTAGENTD, out
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--workloads", default="")
    ap.add_argument("--conditions", default="")
    ap.add_argument("--peers", default="audit,bpftrace,sysdig")
    ap.add_argument("--storm-seconds", type=float, default=5)
    ap.add_argument("--idle-seconds", type=float, default=60)
    ap.add_argument("--stats-runs", type=int, default=30)
    ap.add_argument("--phases", default="memory,percall,storm,daemon")
    ARGS = ap.parse_args()
    ARGS.peers = [p for p in ARGS.peers.split(",") if p]
    # Under icount a guest that waits (bpftrace detaching 27 programs, one
    # RCU tasks grace period each) takes long in guest time.
    os.environ.setdefault("PEER_START_TIMEOUT", "600")
    os.environ.setdefault("PEER_STOP_TIMEOUT", "600")
    os.makedirs(WORK, exist_ok=True)
    # Binaries run from tmpfs: no 9p access inside a timed region.
    BENCH = os.path.join(WORK, "ftbench")
    shutil.copy(os.path.join(ARGS.build, "ftbench"), BENCH)
    FTCTL = os.path.join(WORK, "ftctl")
    shutil.copy(os.path.join(ARGS.build, "ftctl"), FTCTL)
    FTAGENTD = os.path.join(ARGS.build, "ftagentd")
    out = open(os.path.join(os.environ["FTG_OUT"], "raw.jsonl"), "w")
    with open("/proc/cmdline") as f:
        cmdline = f.read().strip()
    emit({"phase": "guest", "kernel": os.uname().release,
          "cmdline": cmdline, "cpus": os.cpu_count()})
    phases = ARGS.phases.split(",")
    if "memory" in phases:
        log("kernel memory")
        memory()
    cs = conditions()
    if "percall" in phases:
        for rnd in range(ARGS.rounds):
            order = cs if rnd % 2 == 0 else cs[::-1]
            for c in order:
                log("round %d/%d: %s" % (rnd + 1, ARGS.rounds, c.name))
                percall_run(c, rnd)
    if "storm" in phases:
        storms = [Agent("none"),
                  Ftagent("standard_daemon", ["hooks=ftrace"], daemon=True),
          # io_uring counting and records off (one of its tracepoints
          # pretended missing): what its hooks, fd_install()'s among
          # them, add to calls that are not io_uring's.
          Ftagent("standard_no_iouring",
                  ["hooks=ftrace", "pretend_missing=io_uring_complete"])]
        storms += [Peer(p) for p in ARGS.peers]
        for c in storms:
            log("storm: " + c.name)
            try:
                storm(c)
            except subprocess.CalledProcessError as e:
                log("storm %s failed: %s" % (c.name, e))
                emit({"phase": "failure", "round": -1,
                      "condition": "storm " + c.name, "error": str(e),
                      "output": e.stdout})
    if "daemon" in phases:
        log("daemon idle and ftctl stats")
        daemon_costs()
    out.close()


if __name__ == "__main__":
    main()
