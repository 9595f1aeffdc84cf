# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP bookkeeping shared by the host runner (tests/run-check) and the guest
# runner (tests/selftests/guest-run). Each test program's TAP stream is
# counted on its own: a plan that is not met, a crash or a non-zero exit
# with no failing test line counts as a failure, never as a pass. One line
# per program, "NAME PASSED FAILED SKIPPED", is appended to $TAP_TALLY.

# tap_count EXIT_STATUS < TAP: prints "passed failed skipped".
tap_count() {
	awk -v status="$1" '
		/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; have_plan = 1; next }
		/^ok / && /# [Ss][Kk][Ii][Pp]/ { skip++; next }
		/^ok / { pass++; next }
		/^not ok / { fail++; next }
		END {
			seen = pass + fail + skip
			if (have_plan && seen < plan) fail += plan - seen
			if (!have_plan && seen == 0) fail++
			if (status != 0 && fail == 0) fail++
			printf "%d %d %d\n", pass, fail, skip
		}'
}

# tap_running WHAT / tap_running_done: which program (or load, or
# unload) is running, for a run killed in the middle (a guest that hangs
# until its timeout): tests/run-check names it.
tap_running() { echo "$1" >"$TAP_TALLY.running"; }
tap_running_done() { rm -f "$TAP_TALLY.running"; }

# tap_run NAME COMMAND...: run, show the output, append the tally line.
tap_run() {
	local name=$1 out status t0=$SECONDS
	shift
	out=$(mktemp)
	tap_running "$name"
	"$@" >"$out" 2>&1
	status=$?
	tap_running_done
	cat "$out"
	# Where make check's time goes (docs/testing.md).
	echo "# $name: $((SECONDS - t0)) s"
	echo "$name $(tap_count "$status" <"$out")" >>"$TAP_TALLY"
	[ "$status" -eq 0 ] || echo "# $name exited with status $status"
	tap_failures "$name" <"$out"
	rm -f "$out"
}

# tap_failures NAME < TAP: which tests failed and the harness's lines
# saying why (file:line: Expected ...), to $TAP_TALLY.failures: a CI page
# shows only the end of the log, and "budget_gate (1)" there does not say
# which of its tests failed or how.
tap_failures() {
	awk -v name="$1" '
		/^#[[:space:]]+RUN[[:space:]]/ { n = 0; next }
		/^#[[:space:]]+[[:alnum:]_.\/-]+\.c:[0-9]+:/ { why[n++] = $0; next }
		/^not ok / {
			for (i = 0; i < n && i < 6; i++)
				print name ": " why[i]
			print name ": " $0
			n = 0
		}' | head -n 30 >>"$TAP_TALLY.failures"
}

# tap_record NAME PASSED FAILED SKIPPED: a result that is not a TAP stream.
tap_record() {
	echo "$*" >>"$TAP_TALLY"
}

# tap_summary: every result in $TAP_TALLY, then the one line the CI log
# ends with ("N passed, N failed", ", N skipped" when any); true only if
# something passed and nothing failed or was skipped.
tap_summary() {
	local passed failed skipped
	echo "== results"
	awk '{ printf "%-50s %3d passed, %d failed, %d skipped\n", $1, $2, $3, $4 }' "$TAP_TALLY"
	[ ! -s "$TAP_TALLY.failures" ] || head -n 60 "$TAP_TALLY.failures" | sed 's|^|#   |'
	read -r passed failed skipped < <(awk '{ p += $2; f += $3; s += $4 } END { print p + 0, f + 0, s + 0 }' "$TAP_TALLY")
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ] && [ "$passed" -gt 0 ]
}
