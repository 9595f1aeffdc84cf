# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared by the peer scripts (audit, bpftrace, sysdig): sourced, not run.
# Each peer script defines PEER before sourcing this file.

# The calls ftagent's standard mode hooks (kmod/calls.c), as
# "name:x86-64 number:kind". kind "bytes": the return value is a byte
# count; "other": only calls are counted (opens, socket setup, and the
# mmsg calls, whose return value is a message count).
PEER_CALLS=(
	read:0:bytes readv:19:bytes pread64:17:bytes preadv:295:bytes
	preadv2:327:bytes write:1:bytes writev:20:bytes pwrite64:18:bytes
	pwritev:296:bytes pwritev2:328:bytes recvfrom:45:bytes recvmsg:47:bytes
	recvmmsg:299:other sendto:44:bytes sendmsg:46:bytes sendmmsg:307:other
	sendfile:40:bytes splice:275:bytes copy_file_range:326:bytes
	connect:42:other accept:43:other accept4:288:other bind:49:other
	listen:50:other open:2:other openat:257:other openat2:437:other
	creat:85:other
)

# Seconds start waits for the peer to be attached, stop for it to exit.
PEER_START_TIMEOUT=${PEER_START_TIMEOUT:-120}
PEER_STOP_TIMEOUT=${PEER_STOP_TIMEOUT:-60}

# shellcheck disable=SC2034 # used by the peer scripts
PEER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	printf '%s: %s\n' "$PEER" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "$PEER" "$*" >&2
}

usage() {
	printf 'usage: %s start|stop|report WORKDIR\n' "$0" >&2
	exit 2
}

# now_ms: wall clock in milliseconds (no fork: polling loops should not
# add processes of their own to what the peers count).
now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	printf '%s\n' $((t / 1000))
}

# wait_for SECS DESCRIPTION COMMAND...: poll COMMAND every 0.1 s until it
# succeeds; fail with DESCRIPTION after SECS seconds.
wait_for() {
	local secs=$1 what=$2 deadline
	shift 2
	deadline=$(($(now_ms) + secs * 1000))
	until "$@"; do
		if (($(now_ms) >= deadline)); then
			note "timed out after ${secs}s waiting for $what"
			return 1
		fi
		sleep 0.1
	done
}

# pid_alive PID: the process exists and is not a zombie.
pid_alive() {
	local stat
	[[ -r /proc/$1/stat ]] || return 1
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[[ -n $stat && ${stat:0:1} != Z ]]
}

pid_gone() {
	! pid_alive "$1"
}

# stop_pid PID SIGNAL: send SIGNAL, wait PEER_STOP_TIMEOUT seconds, then
# SIGKILL. Returns 1 if SIGKILL was needed.
stop_pid() {
	local pid=$1 sig=$2
	pid_alive "$pid" || return 0
	kill "-$sig" "$pid" 2>/dev/null || true
	if ! wait_for "$PEER_STOP_TIMEOUT" "pid $pid to exit on SIG$sig" pid_gone "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait_for 10 "pid $pid to die" pid_gone "$pid" || true
		return 1
	fi
}

# check_workdir DIR: for start, create it; for stop and report, it must
# hold a started peer of this kind.
init_workdir() {
	WORKDIR=$1
	mkdir -p "$WORKDIR" || die "cannot create $WORKDIR"
	WORKDIR=$(cd "$WORKDIR" && pwd)
	if [[ -e $WORKDIR/peer ]]; then
		die "$WORKDIR already holds a $(cat "$WORKDIR/peer") run; use an empty WORKDIR"
	fi
	printf '%s\n' "$PEER" >"$WORKDIR/peer"
}

open_workdir() {
	WORKDIR=$1
	[[ -f $WORKDIR/peer ]] || die "$WORKDIR: no peer was started there"
	[[ $(cat "$WORKDIR/peer") == "$PEER" ]] ||
		die "$WORKDIR holds a $(cat "$WORKDIR/peer") run, not $PEER"
	WORKDIR=$(cd "$WORKDIR" && pwd)
}

# record KEY VALUE: append to WORKDIR/state (key=value lines).
record() {
	printf '%s=%s\n' "$1" "$2" >>"$WORKDIR/state"
}

# state KEY: the last value recorded for KEY, or empty.
state() {
	[[ -f $WORKDIR/state ]] || return 0
	awk -F= -v k="$1" '$1 == k { v = substr($0, length(k) + 2) } END { print v }' "$WORKDIR/state"
}

# report_counts FILE: FILE has lines "name calls bytes pid" (one per call
# name and pid; bytes "-" when not measured). Prints calls_NAME and
# bytes_NAME for every call in PEER_CALLS, the pid with the most pread64
# calls, and sets REPORT_EVENTS to the total number of calls.
report_counts() {
	local spec name kind
	local -A calls=() bytes=()
	local top_pid=0 top_calls=0 n b pid
	REPORT_EVENTS=0
	while read -r name n b pid; do
		[[ -n $name ]] || continue
		calls[$name]=$((${calls[$name]:-0} + n))
		[[ $b == - ]] || bytes[$name]=$((${bytes[$name]:-0} + b))
		REPORT_EVENTS=$((REPORT_EVENTS + n))
		if [[ $name == pread64 ]] && ((n > top_calls)); then
			top_calls=$n top_pid=$pid
		fi
	done <"$1"
	for spec in "${PEER_CALLS[@]}"; do
		name=${spec%%:*} kind=${spec##*:}
		printf 'calls_%s=%s\n' "$name" "${calls[$name]:-0}"
		if [[ $kind == bytes && $BYTES_MEASURED == 1 ]]; then
			printf 'bytes_%s=%s\n' "$name" "${bytes[$name]:-0}"
		fi
	done
	printf 'pread64_top_pid=%s\npread64_top_pid_calls=%s\n' "$top_pid" "$top_calls"
}
