#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's chart (tools/bench/bench_chart.py), on the host: drawn
# from a committed result, the SVG must hold one panel per workload and
# kernel and one bar per measured condition, each labelled with the
# figure the Markdown report prints. Prints TAP.
#
# usage: bench_chart.sh BUILD_DIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's python3, which python3-matplotlib is installed for.
exec /usr/bin/python3 "$top/tests/host/bench_chart_test.py" "$top"
