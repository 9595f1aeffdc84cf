#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's own tools, on the host (no guest, no module): ftbench
# runs every workload and reports it in the format the guest side parses,
# and the aggregation turns per-round figures into the right verdicts
# (a figure, or "below the noise floor"; targets met or missed; a missed
# call is flagged). Prints TAP.
#
# usage: bench_tools.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 "$top/tests/host/bench_tools_test.py" "$build" "$top"
