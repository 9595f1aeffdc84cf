# SPDX-License-Identifier: GPL-2.0
"""The benchmark's per-call costs as a chart: one SVG per result, drawn
from the same aggregation as the Markdown report (bench_report), so the
picture and the table cannot disagree.

One panel per workload (rows) and kernel (columns); in each, one bar per
condition: the instructions it adds per call over the bare kernel of the
same boot (the median; "≈0" bars are within the noise of that boot).
ftagent's conditions and the peers (auditd, bpftrace, sysdig) have their
own colours; the scale is logarithmic, as auditd adds a hundred times
what the others do; the floor (an ftrace_ops entry callback bumping a per-CPU
counter, when the run measured it) and the +150 target are drawn as
lines where they apply.

Needs matplotlib (Debian: python3-matplotlib), imported only when a chart
is drawn, so the rest of the bench runs without it.
"""

PEERS = ("audit", "bpftrace", "sysdig")
# The condition that measures the floor (an ftrace_ops entry callback
# bumping a per-CPU counter), if the run has it.
FLOOR = ("floor",)
TARGET_ADDED = 150
TARGET_WORKLOADS = ("pread_4k", "send_1k")


def _conditions(res):
    """Every condition measured on any kernel, in first-seen order,
    without the baselines."""
    seen = []
    for k in res["kernels"]:
        for cs in res["by_kernel"][k]["percall"].values():
            for c, v in cs.items():
                if "added" in v and c not in seen:
                    seen.append(c)
    return seen


def _workloads(res):
    seen = []
    for k in res["kernels"]:
        for w in res["by_kernel"][k]["percall"]:
            if w not in seen:
                seen.append(w)
    return seen


def _colour(c):
    if c in PEERS:
        return "#c44e52"
    if c in FLOOR:
        return "#8c8c8c"
    return "#4c72b0"


def has_rows(res):
    """Whether @res has per-call figures to draw."""
    return bool(_workloads(res))


def svg(res, path):
    """Draw @res (bench_report.aggregate_kernels) into the SVG file @path."""
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    ks, ws, cs = res["kernels"], _workloads(res), _conditions(res)
    height = max(1.0, 0.22 * len(cs) + 0.8)
    fig, axes = plt.subplots(len(ws), len(ks), squeeze=False,
                             figsize=(6.5 * len(ks), height * len(ws)))
    for col, k in enumerate(ks):
        percall = res["by_kernel"][k]["percall"]
        for row, w in enumerate(ws):
            ax = axes[row][col]
            cells = percall.get(w, {})
            names = [c for c in cs if "added" in cells.get(c, {})]
            vals = [max(cells[c]["added"], 0) for c in names]
            ys = range(len(names))
            ax.barh(list(ys), vals, color=[_colour(c) for c in names])
            ax.set_yticks(list(ys))
            ax.set_yticklabels(names, fontsize=7)
            ax.invert_yaxis()
            ax.tick_params(axis="x", labelsize=7)
            ax.set_title("%s — %s" % (w, k), fontsize=8)
            top = max(vals) if vals else 1
            for y, c, v in zip(ys, names, vals):
                label = ("≈0" if cells[c].get("below_noise")
                         else "%+.0f" % cells[c]["added"])
                ax.text(v * 1.08 + 1, y, label, va="center", fontsize=6)
            floor = next((cells[f]["added"] for f in FLOOR
                          if "added" in cells.get(f, {})), None)
            if floor is not None and floor > 0:
                ax.axvline(floor, color="#8c8c8c", linestyle=":",
                           linewidth=1)
            if w in TARGET_WORKLOADS:
                ax.axvline(TARGET_ADDED, color="#55a868", linestyle="--",
                           linewidth=1)
            # Linear up to 10, logarithmic above: ≈0 bars stay visible.
            ax.set_xscale("symlog", linthresh=10)
            ax.set_xlim(0, max(top, 10) * 3)
    fig.supxlabel("instructions added per call (median, against the bare "
                  "kernel of the same boot; logarithmic above 10; green "
                  "dashes: the +%d target; grey dots: the floor)"
                  % TARGET_ADDED, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
