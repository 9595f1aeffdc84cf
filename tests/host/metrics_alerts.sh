#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The example alerts: docs/metrics/alerts.yml passes `promtool check
# rules`, and docs/metrics.md shows that file verbatim (between its
# "BEGIN alerts.yml" and "END alerts.yml" markers), so the doc and the
# rules tests/e2e/daemon_e2e.py runs through `promtool test rules` are
# the same text. Each check is also shown failing on a broken copy.
# Prints TAP.
#
# usage: metrics_alerts.sh [BUILD_DIR]   (unused: as tests/run-check calls
#        every host test; the files checked are the tree's own)
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
rules=$top/docs/metrics/alerts.yml
doc=$top/docs/metrics.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..4"

# doc_block DOC: the lines between the markers, without the fence.
doc_block() {
	sed -n '/^<!-- BEGIN alerts.yml -->$/,/^<!-- END alerts.yml -->$/p' "$1" |
		sed '1,2d;$d' | sed '$d'
}

# same RULES DOC: 0 when DOC shows RULES verbatim.
same() {
	doc_block "$2" >"$tmp/block"
	[ -s "$tmp/block" ] && cmp -s "$1" "$tmp/block"
}

ok=0
promtool check rules "$rules" >"$tmp/out" 2>&1 || {
	sed 's/^/#   /' "$tmp/out"
	ok=1
}
result "promtool check rules docs/metrics/alerts.yml" $ok

# A rule with a bad expression must be refused.
sed 's/increase(ftagent_events_dropped_total\[10m\])/increase(ftagent_events_dropped_total[10m]/' \
	"$rules" >"$tmp/broken.yml"
ok=0
promtool check rules "$tmp/broken.yml" >/dev/null 2>&1 && ok=1
result "promtool check rules refuses a broken copy" $ok

ok=0
same "$rules" "$doc" || {
	diff "$rules" "$tmp/block" | sed 's/^/#   /' | head -20
	ok=1
}
result "docs/metrics.md shows alerts.yml verbatim" $ok

# A doc whose copy drifted by one character must be caught.
sed '/^<!-- BEGIN alerts.yml -->$/,/^<!-- END alerts.yml -->$/s/for: 15m/for: 16m/' \
	"$doc" >"$tmp/drifted.md"
ok=0
same "$rules" "$tmp/drifted.md" && ok=1
result "a drifted copy in the doc is caught" $ok

[ "$failed" -eq 0 ]
