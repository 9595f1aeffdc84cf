#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ftctl's command-line habits, on the host (no module, a stand-in
# daemon: fake_ftagentd.py): --version and help; -h/--help on every
# command (usage on stdout, exit 0); a bad option (usage on stderr, exit
# 2); global options after the command and --opt=value; --no-header;
# and events --follow, which must print each new event once, say what
# aged out unread, and outlive a daemon restart. Prints TAP.
#
# usage: ftctl_cli.sh BUILD_DIR
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
ftctl=$build/ftctl
tmp=$(mktemp -d)
fake_pid="" follow_pid=""
cleanup() {
	[ -n "$follow_pid" ] && kill "$follow_pid" 2>/dev/null
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# run WANT_STATUS COMMAND...: status, stdout in $tmp/out, stderr in $tmp/err
run() {
	local want=$1 status
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq "$want" ] && return 0
	echo "# '$*' exited $status, want $want: $(head -c 300 "$tmp/err")"
	return 1
}

version_prints() {
	run 0 "$ftctl" --version && grep -q "^ftctl [0-9]" "$tmp/out"
}
help_lists_commands() {
	local c
	run 0 "$ftctl" help || return 1
	for c in $commands; do
		grep -q "^  $c " "$tmp/out" || { echo "# help lacks $c"; return 1; }
	done
}
help_of() { # COMMAND: -h and --help print its usage on stdout, exit 0
	local opt
	for opt in --help -h; do
		run 0 "$ftctl" "$1" "$opt" &&
			grep -q "^usage: ftctl \[OPTIONS\] $1" "$tmp/out" &&
			[ ! -s "$tmp/err" ] || return 1
	done
}
bad_option_of() { # COMMAND: usage on stderr, nothing on stdout, exit 2
	run 2 "$ftctl" "$1" --bogus &&
		grep -q "^usage: ftctl \[OPTIONS\] $1" "$tmp/err" &&
		[ ! -s "$tmp/out" ]
}

commands=$("$ftctl" __complete "")
echo "1..$((7 + 2 * $(wc -w <<<"$commands")))"

check "--version prints the version" version_prints
check "help lists every command on stdout" help_lists_commands
for c in $commands; do
	check "$c --help: its usage on stdout, exit 0" help_of "$c"
	check "$c --bogus: usage on stderr, exit 2" bad_option_of "$c"
done

sock=$tmp/api.sock
python3 "$top/tests/host/fake_ftagentd.py" "$sock" 9 &
fake_pid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done

global_options_after_the_command() {
	run 0 "$ftctl" --json --socket "$sock" events --since 1d --limit 2 &&
		cp "$tmp/out" "$tmp/before" &&
		run 0 "$ftctl" events --since=1d --limit=2 --socket="$sock" --json &&
		cmp -s "$tmp/before" "$tmp/out" &&
		grep -q '"comm":"job2"' "$tmp/out"
}
no_header() {
	run 0 "$ftctl" --socket "$sock" events --since 1d &&
		head -1 "$tmp/out" | grep -q "^TIME " &&
		[ "$(wc -l <"$tmp/out")" -eq 3 ] &&
		run 0 "$ftctl" --socket "$sock" events --since 1d --no-header &&
		[ "$(wc -l <"$tmp/out")" -eq 2 ] && ! grep -q "^TIME " "$tmp/out"
}
check "--json and --socket=PATH after the command, as before it" \
	global_options_after_the_command
check "--no-header leaves the rows alone" no_header

# events --follow: events 1 and 2 at once, then 3, 5..9 as the stand-in
# logs them (4 ages out unread), across its 2 s restart.
"$ftctl" --socket "$sock" events --follow --interval 0.2 --json \
	>"$tmp/follow" 2>"$tmp/follow.err" &
follow_pid=$!
for _ in $(seq 100); do
	[ "$(wc -l <"$tmp/follow")" -ge 8 ] && break
	sleep 0.1
done
sleep 0.5
kill "$follow_pid" 2>/dev/null
wait "$follow_pid" 2>/dev/null
follow_pid=""
pids=$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["pid"]) for l in sys.stdin))' <"$tmp/follow")
each_event_once() {
	[ "$pids" = "101 102 103 105 106 107 108 109" ] ||
		{ echo "# got pids: $pids"; return 1; }
}
waited_through_restart() {
	grep -q "ftagentd went away" "$tmp/follow.err" &&
		grep -q "ftagentd is back" "$tmp/follow.err"
}
check "--follow prints every new event once, in order" each_event_once
check "--follow says what aged out unread" \
	grep -q "1 log entries aged out before they were read" "$tmp/follow.err"
check "--follow waits through a daemon restart" waited_through_restart
[ "$failed" -eq 0 ]
