# SPDX-License-Identifier: GPL-2.0
"""Aggregation and Markdown report of the overhead benchmark
(tools/bench/bench). Figures are guest nanoseconds in an instruction-count
guest, which read as instructions."""
import statistics

WORKLOADS = ["getppid", "send_1k", "pread_4k", "pread_4k_shared",
             "pread_send_16k",
             "sendfile_64k", "openat_close", "connect_close",
             "fork_exec_exit", "close_untraced", "getppid_int80",
             "pread_4k_int80", "iouring_nop", "iouring_read_4k",
             "sendmmsg_8x1k", "recv_1k"]
CONDITIONS = ["none_aa", "minimal", "standard", "standard_notify_resume",
              "standard_ftrace_ops",
              "standard_kprobe",
              "standard_daemon", "standard_no_iouring", "rules_1", "rules_100", "rules_10000",
              "rules_1_kprobe", "rules_1_notify_resume",
              "rules_ports_10000", "rules_cidr_1", "rules_cidr_10000",
              "audit", "bpftrace", "sysdig"]
LABELS = {
    "none": "no agent", "none_aa": "no agent (A/A)",
    "minimal": "ftagent minimal", "standard": "ftagent standard",
    "standard_notify_resume": "standard, exit_work=0",
    "standard_ftrace_ops": "standard, direct_calls=0",
    "standard_kprobe": "standard, kprobe set",
    "standard_daemon": "standard + ftagentd",
    "standard_no_iouring": "standard, io_uring hooks off",
    "rules_1": "+ 1 rule", "rules_100": "+ 100 rules",
    "rules_10000": "+ 10,000 rules",
    "rules_1_kprobe": "kprobe set + 1 rule",
    "rules_1_notify_resume": "exit_work=0 + 1 rule",
    "rules_ports_10000": "+ 10,000 one-port rules",
    "rules_cidr_1": "+ 1 CIDR rule",
    "rules_cidr_10000": "+ 10,000 CIDR rules",
    "audit": "auditd", "bpftrace": "bpftrace (eBPF)",
    "sysdig": "sysdig (scap.ko)",
}
PEERS = ("audit", "bpftrace", "sysdig")

# Targets for standard mode with the ftrace set (issue 7).
MAX_ADDED = 150
MAX_GETPPID_RATIO = 1.005
MAX_IDLE_SHARE = 0.0001
MAX_RSS = 4 * 1024 * 1024
# The policy gate's targets (issue 16), on send 1 KB: what a gated call
# adds over the same call ungated (standard), with one rule and with
# 10,000; 10,000 one-port rules cost what one does (within the A/A
# noise of a few instructions), 10,000 CIDR rules at most twice one.
MAX_GATED = 100
MAX_PORTS_GROWTH = 5
MAX_CIDR_GROWTH = 2.0
GATE_CONDITIONS = (("rules_1", "1 one-port rule"),
                   ("rules_10000", "10,000 rules on 1,000 ports"),
                   ("rules_ports_10000", "10,000 one-port rules"),
                   ("rules_cidr_1", "1 CIDR rule"),
                   ("rules_cidr_10000", "10,000 CIDR rules"))


def median(v):
    return statistics.median(v) if v else None


def aggregate(records):
    res = {"guest": {}, "percall": {}, "noise_floor": {}, "checks": [],
           "drops_percall": {}, "storm": [], "daemon": None,
           "memory": None}
    rows = {}
    for r in records:
        ph = r["phase"]
        if ph == "guest":
            res["guest"] = r
        elif ph == "percall":
            rows.setdefault((r["workload"], r["condition"]), {})[
                r["round"]] = r
        elif ph == "check":
            for c in r["calls"]:
                res["checks"].append(dict(c, condition=r["condition"],
                                          round=r["round"]))
            d = res["drops_percall"].setdefault(r["condition"], {})
            for k, v in r["drops"].items():
                if isinstance(v, int):
                    d[k] = max(d.get(k, 0), v)
        elif ph == "failure":
            res.setdefault("failures", []).append(r)
        elif ph == "storm":
            res["storm"].append(r)
        elif ph == "daemon":
            r = dict(r)
            r["stats_latency_ms_median"] = median(r["stats_latency_ms"])
            r["api_stats_latency_ms_median"] = median(
                r.get("api_stats_latency_ms", []))
            res["daemon"] = r
        elif ph == "memory":
            res["memory"] = memory(r)

    workloads = sorted({w for w, _ in rows},
                       key=lambda w: WORKLOADS.index(w)
                       if w in WORKLOADS else 99)
    for w in workloads:
        base = rows.get((w, "none"), {})
        aa = rows.get((w, "none_aa"), {})
        floor = max([abs(aa[k]["p50"] - base[k]["p50"])
                     for k in aa if k in base] or [0])
        res["noise_floor"][w] = floor
        floor99 = max([abs(aa[k]["p99"] - base[k]["p99"])
                       for k in aa if k in base] or [0])
        res.setdefault("noise_floor_p99", {})[w] = floor99
        res["percall"][w] = {}
        for (w2, cond), byround in rows.items():
            if w2 != w:
                continue
            rr = [byround[k] for k in sorted(byround)]
            cell = {q: median([x[q] for x in rr])
                    for q in ("p50", "p95", "p99", "mean")}
            cell["rounds"] = [{q: x[q] for q in ("p50", "p95", "p99")}
                              for x in rr]
            cell["samples"] = sum(x["samples"] for x in rr)
            if cond != "none" and base:
                added = [byround[k]["p50"] - base[k]["p50"]
                         for k in sorted(byround) if k in base]
                cell["added_rounds"] = added
                cell["added"] = median(added)
                cell["added_p99"] = cell["p99"] - res_p(base, "p99")
                cell["p99_below_noise"] = abs(cell["added_p99"]) <= floor99
                cell["ratio"] = cell["p50"] / res_p(base, "p50")
                signs = {a > 0 for a in added if a != 0}
                cell["below_noise"] = (len(signs) > 1 or
                                       abs(cell["added"]) <= floor)
            res["percall"][w][cond] = cell
    res["targets"] = targets(res)
    return res


def kernel_series(k):
    """6.12.117+deb12-amd64 -> 6.12"""
    return ".".join(k.split("-")[0].split("+")[0].split(".")[:2])


def aggregate_kernels(records, run=None):
    """Records of one guest run per kernel (each tagged "kernel"; an
    untagged record, as in a single-kernel result, belongs to the kernel
    of the "guest" record before it): one aggregate() per kernel, in the
    order the kernels were run."""
    groups, kernel = {}, None
    for r in records:
        if r["phase"] == "guest":
            kernel = r.get("kernel", kernel)
        groups.setdefault(r.get("kernel", kernel), []).append(r)
    kernels = [k for k in groups if k is not None]
    by = {k: aggregate(groups[k]) for k in kernels}
    return {"kernels": kernels, "by_kernel": by, "run": run or {}}


def res_p(byround, q):
    return median([x[q] for x in byround.values()])


def pages(n):
    return (n + 4095) // 4096 * 4096


def computed_memory(cpus, kernel_counters, ring_default):
    """The documented sizes (docs/memory.md) for @cpus possible CPUs."""
    cap = min(kernel_counters, max(256, 4 * kernel_counters // cpus))
    slots = 1
    while slots < 2 * cap:
        slots *= 2
    counters = 2 * slots * 64 * cpus
    ring = max(ring_default, 64 * 1024 * cpus)
    ring = pages(ring // cpus) * cpus
    return {"cpus": cpus, "table_capacity": cap, "counters": counters,
            "event_channel": ring, "total": counters + ring}


def memory(r):
    before, after = r["meminfo_before"], r["meminfo_after"]
    delta = {k: after[k] - before[k] for k in after if k in before}
    m = dict(r)
    m["meminfo_delta"] = delta
    m["computed"] = [computed_memory(n, 16384, 4 << 20)
                     for n in (r["cpus"], 8, 64, 256)]
    return m


def cell(res, w, c):
    return res["percall"].get(w, {}).get(c)


# A gated call on the other return paths, over the same path ungated.
GATE_OTHER_PATHS = (("rules_1_kprobe", "standard_kprobe", "kprobe set"),
                    ("rules_1_notify_resume", "standard_notify_resume",
                     "exit_work=0"))


def gate_targets(res, add):
    for cond, base, label in GATE_OTHER_PATHS:
        c, b = cell(res, "send_1k", cond), cell(res, "send_1k", base)
        if c and b:
            d = c["added"] - b["added"]
            add("send_1k gated, 1 one-port rule, %s (over the same "
                "ungated)" % label, "<= +%d" % MAX_GATED, "%+.0f" % d,
                d <= MAX_GATED)
    std = cell(res, "send_1k", "standard")
    if not std:
        return
    gated = {}
    for cond, label in GATE_CONDITIONS:
        c = cell(res, "send_1k", cond)
        if not c:
            continue
        gated[cond] = c["added"] - std["added"]
        add("send_1k gated, %s (over standard)" % label,
            "<= +%d" % MAX_GATED, "%+.0f" % gated[cond],
            gated[cond] <= MAX_GATED)
    if "rules_1" in gated and "rules_ports_10000" in gated:
        grow = gated["rules_ports_10000"] - gated["rules_1"]
        add("send_1k gated, 10,000 one-port rules against 1",
            "within +%d" % MAX_PORTS_GROWTH, "%+.0f" % grow,
            grow <= MAX_PORTS_GROWTH)
    one, many = gated.get("rules_cidr_1"), gated.get("rules_cidr_10000")
    if one and many and one > 0:
        add("send_1k gated, 10,000 CIDR rules against 1",
            "<= x%.0f" % MAX_CIDR_GROWTH, "x%.2f" % (many / one),
            many / one <= MAX_CIDR_GROWTH)


def targets(res):
    t = []

    def add(name, want, got, ok):
        t.append({"target": name, "want": want, "measured": got,
                  "met": ok})
    c = cell(res, "getppid", "standard")
    if c:
        add("getppid unchanged (standard, ftrace)",
            "ratio <= %.3f" % MAX_GETPPID_RATIO, "%.4f" % c["ratio"],
            c["ratio"] <= MAX_GETPPID_RATIO)
    for w in ("pread_4k", "send_1k"):
        c = cell(res, w, "standard")
        if c:
            add("%s added instructions (standard, ftrace)" % w,
                "<= +%d" % MAX_ADDED, "%+.0f" % c["added"],
                c["added"] <= MAX_ADDED)
            ahead = [p for p in PEERS if cell(res, w, p)]
            if ahead:
                worse = [p for p in ahead
                         if cell(res, w, p)["added"] <= c["added"]]
                add("%s ahead of every peer" % w,
                    "less added than %s" % ", ".join(ahead),
                    ", ".join("%s %+.0f" % (p, cell(res, w, p)["added"])
                              for p in ahead),
                    not worse)
    gate_targets(res, add)
    for s in res["storm"]:
        if s["condition"] == "standard_daemon":
            lost = sum(s["lost"].values()) + \
                sum(s.get("daemon_dropped", {}).values())
            add("zero loss under the storm (default sizes)", "0 lost",
                str(lost), lost == 0)
    d = res["daemon"]
    if d:
        add("ftagentd idle CPU", "<= 0.01% of a core",
            "%.4f%%" % (100 * d["idle_cpu_share"]),
            d["idle_cpu_share"] <= MAX_IDLE_SHARE)
        add("ftagentd RSS", "<= 4 MiB", "%.1f MiB" %
            (d["rss_bytes"] / 1048576), d["rss_bytes"] <= MAX_RSS)
    return t


def fmt_cell(c):
    if c is None:
        return "—"
    if c.get("below_noise"):
        return "≈0 (noise: %s)" % "/".join("%+.0f" % a
                                            for a in c["added_rounds"])
    return "%+.0f (×%.3f)" % (c["added"], c["ratio"])


def peer_note(run, k, c):
    """Why condition @c did not run on kernel @k, if it is known."""
    why = run.get("peers_unavailable", {}).get(k, {}).get(c)
    return "not run: " + why.split("\n")[0] if why else None


def markdown(res):
    """The report: one column per kernel for every figure."""
    ks, by, run = res["kernels"], res["by_kernel"], res.get("run", {})
    ser = {k: kernel_series(k) for k in ks}
    o = []
    o.append("# ftagent overhead — benchmark report\n")
    mv = run.get("module_version", {})
    if not isinstance(mv, dict):
        mv = {k: mv for k in ks}
    o.append("Run %s, commit `%s`, guest kernels %s. Instruction-count "
             "guest, one boot per kernel: figures are instructions per "
             "operation and ratios to the bare kernel of the same boot; "
             "absolute times under TCG mean nothing. Kernels are not "
             "compared with each other through the baselines alone: each "
             "column is against its own bare kernel.%s\n" %
             (run.get("date", "?"), run.get("commit", "?"),
              ", ".join("%s (module %s)" % (k, mv.get(k, "?"))
                        for k in ks),
              " **Quick run** (%d rounds at %d%% of the samples)." %
              (run.get("rounds", 0), run.get("scale_percent", 0))
              if run.get("quick") else ""))
    for k, why in run.get("guest_failures", {}).items():
        o.append("- **%s: the guest run failed**: %s\n" % (k, why))
    hdr = " | ".join(ks)

    o.append("## Targets\n")
    o.append("| target | wanted | %s |" % hdr)
    o.append("|---" * (len(ks) + 2) + "|")
    names = []
    for k in ks:
        for t in by[k]["targets"]:
            if t["target"] not in names:
                names.append(t["target"])
    for n in names:
        cells, want = [], ""
        for k in ks:
            t = next((x for x in by[k]["targets"] if x["target"] == n),
                     None)
            if t is None:
                cells.append("—")
                continue
            want = want or t["want"]
            cells.append("%s %s" % (t["measured"], "met" if t["met"]
                                    else "**missed**"))
        o.append("| %s | %s | %s |" % (n, want, " | ".join(cells)))

    conds = [c for c in CONDITIONS
             if any(c in v for k in ks for v in by[k]["percall"].values())
             or any(peer_note(run, k, c) for k in ks)]
    workloads = []
    for k in ks:
        for w in by[k]["percall"]:
            if w not in workloads:
                workloads.append(w)
    workloads.sort(key=lambda w: WORKLOADS.index(w)
                   if w in WORKLOADS else 99)
    o.append("\n## Added instructions per operation (median p50, "
             "×ratio to no agent), one column per kernel\n")
    o.append("| workload | condition | %s |" % hdr)
    o.append("|---" * (len(ks) + 2) + "|")
    for w in workloads:
        cells = []
        for k in ks:
            b = by[k]["percall"].get(w, {}).get("none")
            cells.append("%.0f" % b["p50"] if b else "—")
        o.append("| %s | no agent (p50) | %s |" % (w, " | ".join(cells)))
        for c in conds:
            cells = []
            for k in ks:
                x = by[k]["percall"].get(w, {}).get(c)
                cells.append(fmt_cell(x) if x else
                             (peer_note(run, k, c) and "not run" or "—"))
            o.append("| %s | %s | %s |" % (w, LABELS[c], " | ".join(cells)))
    o.append("\n\"≈0 (noise: …)\": the rounds disagree on the sign or the "
             "difference is within the A/A noise floor; the per-round "
             "differences are shown instead of a figure. \"not run\": "
             "see Peers.\n")

    o.append("## Tails: p50 / p95 / p99 per operation (added p99)\n")
    o.append("| workload | condition | %s |" % hdr)
    o.append("|---" * (len(ks) + 2) + "|")
    for w in workloads:
        for c in ["none"] + conds:
            cells, any_ = [], False
            for k in ks:
                x = by[k]["percall"].get(w, {}).get(c)
                if not x:
                    cells.append("—")
                    continue
                any_ = True
                if "added_p99" not in x:
                    added = ""
                elif x["p99_below_noise"]:
                    added = " (≈0, A/A floor ±%.0f)" % \
                        by[k]["noise_floor_p99"][w]
                else:
                    added = " (%+.0f)" % x["added_p99"]
                cells.append("%.0f / %.0f / %.0f%s" % (
                    x["p50"], x["p95"], x["p99"], added))
            if any_:
                o.append("| %s | %s | %s |" % (w, LABELS[c],
                                               " | ".join(cells)))

    o.append("\n## Noise floor (A/A: the largest per-round difference "
             "between two bare-kernel runs), p50 / p99\n")
    o.append("| workload | %s |" % hdr)
    o.append("|---" * (len(ks) + 1) + "|")
    for w in workloads:
        o.append("| %s | %s |" % (w, " | ".join(
            "%.1f / %.1f" % (by[k]["noise_floor"][w],
                             by[k].get("noise_floor_p99", {}).get(w, 0))
            if w in by[k]["noise_floor"] else "—" for k in ks)))

    o.append("\n## Did every hook fire?\n")
    for k in ks:
        r = by[k]
        bad = [c for c in r["checks"] if not c["ok"]]
        o.append("%s: %d checks of calls made against calls the agent "
                 "counted; %d failed." % (k, len(r["checks"]), len(bad)))
        for c in bad:
            o.append("- %s: %s round %d: %s made %d, seen %d" % (
                ser[k], c["condition"], c["round"], c["call"], c["made"],
                c["seen"]))
        for f in r.get("failures", []):
            o.append("- **run failed** on %s: %s%s: %s" % (
                ser[k], f["condition"], " round %d" % f["round"]
                if f["round"] >= 0 else "", f["error"]))
        drops = {c: {n: v for n, v in d.items() if v}
                 for c, d in r["drops_percall"].items()}
        o.append("Losses reported during the per-call runs on %s: %s.\n" % (
            ser[k], ", ".join("%s %s" % (c, d) for c, d in drops.items()
                              if d) or "none"))

    if any(by[k]["storm"] for k in ks):
        o.append("## Event storm (exec, connect and open at full speed)\n")
        o.append("Operations completed in the same guest time (×: "
                 "relative to no agent on the same kernel), events and "
                 "losses.\n")
        o.append("| agent | | %s |" % hdr)
        o.append("|---" * (len(ks) + 2) + "|")
        agents = []
        for k in ks:
            for s in by[k]["storm"]:
                if s["condition"] not in agents:
                    agents.append(s["condition"])
        for a in agents:
            rows = {m: [] for m in ("seconds", "exec", "connect", "open",
                                    "events", "lost or dropped")}
            for k in ks:
                s = next((x for x in by[k]["storm"]
                          if x["condition"] == a), None)
                if s is None:
                    note = peer_note(run, k, a)
                    for m in rows:
                        rows[m].append("not run" if note else "—")
                    continue
                base = next((x["ops"] for x in by[k]["storm"]
                             if x["condition"] == "none"), {})
                ops = s["ops"]
                rows["seconds"].append("%.1f" % s["seconds"])
                for m in ("exec", "connect", "open"):
                    if m not in ops:
                        rows[m].append("?")
                    elif base.get(m) and ops is not base:
                        rows[m].append("%d (×%.2f)" % (ops[m],
                                                       ops[m] / base[m]))
                    else:
                        rows[m].append(str(ops[m]))
                ev, lost = storm_events(s)
                rows["events"].append(ev)
                rows["lost or dropped"].append(lost)
            for m, cells in rows.items():
                o.append("| %s | %s | %s |" % (
                    LABELS.get(a, a) if m == "seconds" else "", m,
                    " | ".join(cells)))
        o.append("")

    if any(by[k]["daemon"] for k in ks):
        o.append("## ftagentd's own cost\n")
        o.append("| figure | %s |" % hdr)
        o.append("|---" * (len(ks) + 1) + "|")
        ds = [by[k]["daemon"] for k in ks]

        def row(name, f):
            o.append("| %s | %s |" % (name, " | ".join(
                f(d) if d else "—" for d in ds)))
        row("idle CPU, share of one core (on-CPU time from "
            "/proc/PID/task/*/schedstat)", lambda d: "%.4f%% (%.4f s in "
            "%.0f s)" % (100 * d["idle_cpu_share"], d["idle_cpu_s"],
                         d["idle_window_s"]))
        row("wakeups at idle", lambda d: "%.2f/s" % d["idle_wakeups_per_s"])
        row("RSS", lambda d: "%.1f MiB" % (d["rss_bytes"] / 1048576))
        row("`ftctl stats`, exec included (median, guest ms)",
            lambda d: "%.1f ms over %d runs" % (
                d["stats_latency_ms_median"], len(d["stats_latency_ms"])))
        row("one API `stats` request (median, guest ms)",
            lambda d: "%.2f ms" % d["api_stats_latency_ms_median"]
            if d.get("api_stats_latency_ms_median") is not None else "—")
        o.append("")

    ms = [by[k]["memory"] for k in ks]
    if any(ms):
        o.append("## Kernel memory at default sizes\n")
        o.append("Measured in each 1-CPU guest, loaded with defaults "
                 "(/proc/meminfo, page cache dropped first):\n")
        o.append("| figure | %s |" % hdr)
        o.append("|---" * (len(ks) + 1) + "|")

        def mrow(name, f):
            o.append("| %s | %s |" % (name, " | ".join(
                f(m) if m else "—" for m in ms)))
        mrow("free memory fell by", lambda m: "%.1f MiB" % (
            -m["meminfo_delta"]["MemFree"] / 1048576))
        for key in ("Slab", "SUnreclaim", "VmallocUsed", "Percpu"):
            mrow(key, lambda m, key=key: "%+d kB" % (
                m["meminfo_delta"].get(key, 0) // 1024))
        mrow("the module's own figure", lambda m: "%.1f MiB" % (
            m["module_reports"] / 1048576))
        mrow("module text and data", lambda m: "%d KiB" % (
            m["module_text"] // 1024))
        m = next(x for x in ms if x)
        o.append("\nComputed from the documented sizes (docs/memory.md), "
                 "the same on every kernel:\n")
        o.append("| CPUs | keys per CPU table | counter tables | event "
                 "channel | total |\n|---|---|---|---|---|")
        for c in m["computed"]:
            o.append("| %d | %d | %.1f MiB | %.1f MiB | %.1f MiB |" % (
                c["cpus"], c["table_capacity"], c["counters"] / 1048576,
                c["event_channel"] / 1048576, c["total"] / 1048576))
        o.append("")

    o.append("## Peers\n")
    o.append("auditd (one `always,exit` rule on the 28 calls, auditd "
             "logging them), bpftrace (an fexit program per call summing "
             "bytes per process in maps) and sysdig on Falco's `scap.ko` "
             "(a Lua chisel counting the same calls in user space, as "
             "Falco's rules would): see tools/bench/peers/README.md. "
             "LTTng is not compared: Debian 12's lttng-modules-dkms "
             "2.13.9 does not build on 6.1 (`conflicting types "
             "for 'trace_hrtimer_start'`).\n")
    for k in ks:
        for p, why in run.get("peers_unavailable", {}).get(k, {}).items():
            o.append("- **%s not run on %s**: %s" % (
                LABELS.get(p, p), k, why.replace("\n", "; ")))
    o.append("")
    o.append("## Settings\n")
    for key in ("qemu", "qemu_settings", "host_cpu", "host_kernel",
                "rounds", "scale_percent", "storm_seconds", "idle_seconds",
                "peers"):
        if key in run:
            o.append("- %s: %s" % (key, run[key]))
    for k in ks:
        o.append("- guest kernel command line (%s): `%s`" % (
            k, by[k]["guest"].get("cmdline", "?")))
    return "\n".join(o) + "\n"


def storm_events(s):
    """(events, losses) cells of a storm record."""
    if s["kind"] == "ftagent":
        ev = s["events"]["delivered"]
        lost = sum(s["lost"].values())
        if "daemon_received" in s:
            got = sum(s["daemon_received"].values())
            lost += sum(s["daemon_dropped"].values())
            return ("%d delivered, %d drained by ftagentd (%.0f/s)" %
                    (ev, got, got / s["seconds"]), str(lost))
        return "%d (%.0f/s)" % (ev, ev / s["seconds"]), str(lost)
    if s["kind"] == "peer":
        p = s["peer"]
        lost = ", ".join("%s=%s" % (k, v) for k, v in p.items()
                         if k.startswith("drops") or
                         k.startswith("lost")) or "?"
        return str(p.get("events", "?")), lost
    return "—", "—"
