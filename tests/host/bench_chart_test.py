#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TAP tests of tools/bench/bench_chart.py (see bench_chart.sh)."""
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "tools", "bench"))
import bench_chart  # noqa: E402
import bench_report  # noqa: E402

# A full run on two kernels, with the peers: what make bench writes.
RESULT = os.path.join(top, "tools", "bench", "results",
                      "20261201-1630-6.1+6.12.json")

n = failed = 0


def check(name, ok, detail=""):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok:
        failed += 1
        if detail:
            print("# " + str(detail).replace("\n", "\n# "))


with open(RESULT) as f:
    saved = json.load(f)
res = bench_report.aggregate_kernels(saved["raw"], saved["run"])
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "chart.svg")
    bench_chart.svg(res, path)
    with open(path) as f:
        text = f.read()
try:
    root = ET.fromstring(text)
    parsed = root.tag.endswith("svg")
except ET.ParseError as e:
    parsed, root = False, None
    check("the chart is well-formed SVG", False, e)
if root is not None:
    check("the chart is well-formed SVG", parsed, root.tag)

# matplotlib keeps text as text (svg.fonttype "none") only when asked; by
# default glyphs are paths and the label is in an XML comment per text.
labels = re.findall(r"<!-- (.*?) -->", text)
want_titles = ["%s — %s" % (w, k) for k in res["kernels"]
               for w in res["by_kernel"][k]["percall"]]
missing = [t for t in want_titles if t not in labels]
check("one panel per workload and kernel (%d)" % len(want_titles),
      not missing, "missing: %r" % missing[:5])

want_values, bars = [], 0
for k in res["kernels"]:
    for w, cells in res["by_kernel"][k]["percall"].items():
        for c, v in cells.items():
            if "added" not in v:
                continue
            bars += 1
            want_values.append("≈0" if v.get("below_noise")
                               else "%+.0f" % v["added"])
absent = [v for v in set(want_values) if v not in labels]
check("every bar is labelled with the report's figure (%d bars)" % bars,
      not absent, "not in the chart: %r" % absent[:10])
check("as many value labels as measured cells",
      sum(1 for t in labels if re.fullmatch(r"≈0|[+-]\d+", t)) == bars,
      "%d labels" % sum(1 for t in labels
                        if re.fullmatch(r"≈0|[+-]\d+", t)))
peers = [c for c in bench_chart.PEERS
         if any(c in cells for k in res["kernels"]
                for cells in res["by_kernel"][k]["percall"].values())]
check("the peers are on the chart (%s)" % ", ".join(peers),
      peers and all(p in labels for p in peers), peers)

print("1..%d" % n)
sys.exit(1 if failed else 0)
