# SPDX-License-Identifier: GPL-2.0
"""Aggregation and Markdown report of the overhead benchmark
(tools/bench/bench). Figures are guest nanoseconds in an instruction-count
guest, which read as instructions."""
import statistics

WORKLOADS = ["getppid", "send_1k", "pread_4k", "pread_send_16k",
             "sendfile_64k", "openat_close", "connect_close",
             "fork_exec_exit"]
CONDITIONS = ["none_aa", "minimal", "standard", "standard_ftrace_ops",
              "standard_kprobe",
              "standard_daemon", "rules_1", "rules_100", "rules_10000",
              "audit", "bpftrace", "sysdig"]
LABELS = {
    "none": "no agent", "none_aa": "no agent (A/A)",
    "minimal": "ftagent minimal", "standard": "ftagent standard",
    "standard_ftrace_ops": "standard, direct_calls=0",
    "standard_kprobe": "standard, kprobe set",
    "standard_daemon": "standard + ftagentd",
    "rules_1": "+ 1 rule", "rules_100": "+ 100 rules",
    "rules_10000": "+ 10,000 rules",
    "audit": "auditd", "bpftrace": "bpftrace (eBPF)",
    "sysdig": "sysdig (scap.ko)",
}
PEERS = ("audit", "bpftrace", "sysdig")

# Targets for standard mode with the ftrace set (issue 7).
MAX_ADDED = 150
MAX_GETPPID_RATIO = 1.005
MAX_IDLE_SHARE = 0.0001
MAX_RSS = 4 * 1024 * 1024


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


def markdown(res):
    o = []
    g, run = res["guest"], res.get("run", {})
    conds = [c for c in CONDITIONS
             if any(c in v for v in res["percall"].values())]
    o.append("# ftagent overhead — benchmark report\n")
    o.append("Run %s, commit `%s`, module %s, guest kernel %s. "
             "Instruction-count guest: figures are instructions per "
             "operation and ratios to the bare kernel of the same boot; "
             "absolute times under TCG mean nothing.\n" %
             (run.get("date", "?"), run.get("commit", "?"),
              run.get("module_version", "?"), g.get("kernel", "?")))
    o.append("## Targets\n")
    o.append("| target | wanted | measured | |\n|---|---|---|---|")
    for t in res["targets"]:
        o.append("| %s | %s | %s | %s |" % (t["target"], t["want"],
                                            t["measured"],
                                            "met" if t["met"] else
                                            "**missed**"))
    o.append("\n## Added instructions per operation (median p50, "
             "×ratio to no agent)\n")
    o.append("| workload | no agent | " +
             " | ".join(LABELS[c] for c in conds) + " |")
    o.append("|---" * (len(conds) + 2) + "|")
    for w, cs in res["percall"].items():
        base = cs.get("none")
        o.append("| %s | %s | %s |" % (
            w, "%.0f" % base["p50"] if base else "—",
            " | ".join(fmt_cell(cs.get(c)) for c in conds)))
    o.append("\n\"≈0 (noise: …)\": the rounds disagree on the sign or the "
             "difference is within the A/A noise floor; the per-round "
             "differences are shown instead of a figure.\n")
    o.append("## Tails: p95 and p99 per operation\n")
    o.append("| workload | condition | p50 | p95 | p99 | added p99 |")
    o.append("|---|---|---|---|---|---|")
    for w, cs in res["percall"].items():
        for c in ["none"] + conds:
            x = cs.get(c)
            if x:
                if "added_p99" not in x:
                    added = ""
                elif x["p99_below_noise"]:
                    added = "≈0 (A/A floor ±%.0f)" % \
                        res["noise_floor_p99"][w]
                else:
                    added = "%+.0f" % x["added_p99"]
                o.append("| %s | %s | %.0f | %.0f | %.0f | %s |" % (
                    w, LABELS[c], x["p50"], x["p95"], x["p99"], added))
    o.append("\n## Noise floor (A/A: the largest per-round difference "
             "between two bare-kernel runs)\n")
    o.append("| workload | p50 floor | p99 floor |\n|---|---|---|")
    for w, f in res["noise_floor"].items():
        o.append("| %s | %.1f | %.1f |" % (
            w, f, res.get("noise_floor_p99", {}).get(w, 0)))
    o.append("\n## Did every hook fire?\n")
    bad = [c for c in res["checks"] if not c["ok"]]
    o.append("%d checks of calls made against calls the agent counted; "
             "%d failed.\n" % (len(res["checks"]), len(bad)))
    for c in bad:
        o.append("- %s round %d: %s made %d, seen %d" % (
            c["condition"], c["round"], c["call"], c["made"], c["seen"]))
    for f in res.get("failures", []):
        o.append("- **run failed**: %s%s: %s" % (
            f["condition"], " round %d" % f["round"] if f["round"] >= 0
            else "", f["error"]))
    drops = {c: {k: v for k, v in d.items() if v}
             for c, d in res["drops_percall"].items()}
    o.append("Losses reported during the per-call runs: " +
             (", ".join("%s %s" % (c, d) for c, d in drops.items() if d)
              or "none") + ".\n")
    if res["storm"]:
        o.append("## Event storm (exec, connect and open at full speed)\n")
        o.append("| agent | seconds | exec | connect | open | events "
                 "| lost or dropped |")
        o.append("|---|---|---|---|---|---|---|")
        base = next((s["ops"] for s in res["storm"]
                     if s["condition"] == "none"), {})

        def rel(ops, k):
            if k not in ops:
                return "?"
            if base.get(k) and ops is not base:
                return "%d (×%.2f)" % (ops[k], ops[k] / base[k])
            return str(ops[k])
        for s in res["storm"]:
            ops = s["ops"]
            if s["kind"] == "ftagent":
                ev = s["events"]["delivered"]
                lost = sum(s["lost"].values())
                if "daemon_received" in s:
                    got = sum(s["daemon_received"].values())
                    lost += sum(s["daemon_dropped"].values())
                    rate = "%d delivered, %d drained by ftagentd " \
                        "(%.0f/s)" % (ev, got, got / s["seconds"])
                else:
                    rate = "%d (%.0f/s)" % (ev, ev / s["seconds"])
            elif s["kind"] == "peer":
                p = s["peer"]
                ev = p.get("events", "?")
                lost = ", ".join("%s=%s" % (k, v) for k, v in p.items()
                                 if k.startswith("drops") or
                                 k.startswith("lost")) or "?"
                rate = str(ev)
            else:
                rate, lost = "—", "—"
            o.append("| %s | %.1f | %s | %s | %s | %s | %s |" % (
                LABELS.get(s["condition"], s["condition"]), s["seconds"],
                rel(ops, "exec"), rel(ops, "connect"), rel(ops, "open"),
                rate, lost))
        o.append("\nOperations completed in the same guest time; ×: "
                 "relative to no agent.\n")
        o.append("")
    d = res["daemon"]
    if d:
        o.append("## ftagentd's own cost\n")
        o.append("- idle CPU: %.4f%% of one core (%.4f s on CPU over a "
                 "%.0f s window, from /proc/PID/schedstat), %.2f "
                 "wakeups/s" % (100 * d["idle_cpu_share"], d["idle_cpu_s"],
                                d["idle_window_s"],
                                d["idle_wakeups_per_s"]))
        o.append("- RSS: %.1f MiB" % (d["rss_bytes"] / 1048576))
        o.append("- `ftctl stats`, exec included: median %.1f ms over %d "
                 "runs (guest time: read as millions of instructions)" %
                 (d["stats_latency_ms_median"], len(d["stats_latency_ms"])))
        if d.get("api_stats_latency_ms_median") is not None:
            o.append("- one API `stats` request (no exec): median %.2f ms" %
                     d["api_stats_latency_ms_median"])
        o.append("")
    m = res["memory"]
    if m:
        o.append("## Kernel memory at default sizes\n")
        o.append("Measured on this %d-CPU guest, loaded with defaults: "
                 "free memory fell by %.1f MiB (/proc/meminfo, page cache "
                 "dropped first; %s); the module's own figure is %.1f "
                 "MiB; its text and data %d KiB. Computed from the "
                 "documented sizes (docs/memory.md) for larger machines:\n"
                 % (m["cpus"], -m["meminfo_delta"]["MemFree"] / 1048576,
                    ", ".join("%s %+d kB" % (k, v // 1024)
                              for k, v in m["meminfo_delta"].items()
                              if k != "MemFree"),
                    m["module_reports"] / 1048576, m["module_text"] // 1024))
        o.append("| CPUs | keys per CPU table | counter tables | event "
                 "channel | total |\n|---|---|---|---|---|")
        for c in m["computed"]:
            o.append("| %d | %d | %.1f MiB | %.1f MiB | %.1f MiB |" % (
                c["cpus"], c["table_capacity"], c["counters"] / 1048576,
                c["event_channel"] / 1048576, c["total"] / 1048576))
        o.append("")
    o.append("## Peers\n")
    o.append("auditd (one `always,exit` rule on the 27 calls, auditd "
             "logging them), bpftrace (an fexit program per call summing "
             "bytes per process in maps) and sysdig on Falco's `scap.ko` "
             "(a Lua chisel counting the same calls in user space, as "
             "Falco's rules would): see tools/bench/peers/README.md. "
             "LTTng is not compared: Debian 12's lttng-modules-dkms "
             "2.13.9 does not build on this kernel (`conflicting types "
             "for 'trace_hrtimer_start'`).\n")
    o.append("## Settings\n")
    for k in ("qemu", "qemu_settings", "host_cpu", "host_kernel", "rounds",
              "scale_percent", "storm_seconds", "idle_seconds", "peers"):
        if k in run:
            o.append("- %s: %s" % (k, run[k]))
    o.append("- guest kernel command line: `%s`" % g.get("cmdline", "?"))
    return "\n".join(o) + "\n"
