#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rsyslog recipe of docs/shipping.md, run as written: Debian's
# rsyslogd in the foreground with docs/shipping/rsyslog-ftagent.conf (its
# paths filled in) reads an events file written by the daemon's own
# output code (build/tests/host/sample_events) and writes every line to
# a file standing in for the remote. Each line must arrive, once, byte
# for byte: those written before rsyslogd starts, those appended while it
# runs, and after the file is rotated away (moved, a new one made, as
# logrotate and SIGUSR1 do). Prints TAP. Needs no module.
#
# usage: shipping_rsyslog.sh BUILD_DIR
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
sample=$build/tests/host/sample_events

echo "1..5"
if ! command -v rsyslogd >/dev/null || [ ! -x "$sample" ]; then
	for i in 1 2 3 4 5; do
		echo "not ok $i - rsyslogd or $sample missing"
	done
	exit 1
fi

work=$(mktemp -d)
pid=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

events=$work/log/events.jsonl
out=$work/shipped.jsonl
mkdir -p "$work/log" "$work/state"
sed -e "s|@EVENTS@|$events|" -e "s|@OUT@|$out|" \
	"$top/docs/shipping/rsyslog-ftagent.conf" >"$work/rsyslog.conf"
# Its own work directory (imfile's read positions) and nothing else of
# the host's: no imuxsock, no imklog, the system rsyslog untouched.
sed -i "1i global(workDirectory=\"$work/state\")" "$work/rsyslog.conf"

"$sample" "$events" 300 0 || exit 1
check "rsyslogd accepts the recipe" rsyslogd -N1 -f "$work/rsyslog.conf"
rsyslogd -n -f "$work/rsyslog.conf" -i "$work/rsyslogd.pid" \
	>"$work/rsyslogd.log" 2>&1 &
pid=$!

# Wait until OUT has N lines (or 30 s).
wait_lines() {
	local i
	for i in $(seq 300); do
		[ -f "$out" ] && [ "$(wc -l <"$out")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# shellcheck disable=SC2317 # called by check
same() { # the shipped file is the concatenation of the written ones
	cat "$@" | cmp - "$out"
}

wait_lines 300
check "the lines written before it started arrive intact" same "$events"

"$sample" "$work/more.jsonl" 200 300 || exit 1
cat "$work/more.jsonl" >>"$events"
wait_lines 500
check "lines appended while it runs arrive intact" same "$events"

# Rotation as logrotate does it: move, then the daemon reopens anew.
mv "$events" "$work/rotated.jsonl"
"$sample" "$events" 100 500 || exit 1
wait_lines 600
check "after rotation, the new file's lines arrive intact" \
	same "$work/rotated.jsonl" "$events"
check "every line is a JSON object, none twice" python3 -c '
import json, sys
seqs = [json.loads(l)["seq"] for l in open(sys.argv[1])]
sys.exit(0 if seqs == list(range(600)) else 1)' "$out"
if [ "$failed" -ne 0 ]; then
	echo "# rsyslogd log:"
	sed 's/^/# /' "$work/rsyslogd.log"
fi
exit $((failed > 0))
