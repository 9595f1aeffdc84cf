# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A test script's own TAP results, numbered as they come; $n counts them
# and $failed the failures (the script prints the plan and exits on
# $failed itself).
n=0
failed=0

# result NAME STATUS: one result, ok when STATUS is 0.
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		failed=$((failed + 1))
	fi
}

# check NAME COMMAND...: one result, ok when the command succeeds.
check() {
	local name=$1 status=0
	shift
	"$@" || status=$?
	result "$name" "$status"
}
