#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layout's one-way rule (design.md, "Shape of the code"): nothing
# under tools/ reaches up into daemon/, and ftctl links the shared library
# (tools/lib), not the daemon's. Prints TAP.
#
# usage: layout.sh BUILD_DIR
set -u
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0
failed=0

check() { # NAME COMMAND...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
	fi
}

no_daemon_includes() {
	local hits
	hits=$(grep -rnE '#include *"[^"]*daemon/' "$top/tools" \
		--include='*.c' --include='*.h')
	[ -z "$hits" ] || { echo "# $hits"; return 1; }
}

# The link line make would run for ftctl, without running it.
ftctl_links_no_daemon_lib() {
	local line
	line=$(make -s -C "$top" -n -W tools/ftctl/main.c BUILD="$build" \
		"$build/ftctl" 2>&1 | grep -F -- "-o $build/ftctl ")
	[ -n "$line" ] || { echo "# no link line for ftctl"; return 1; }
	[[ $line != *libftagentd* ]] || { echo "# $line"; return 1; }
}

echo "1..2"
check "nothing under tools/ includes a daemon/ header" no_daemon_includes
check "ftctl is linked without libftagentd.a" ftctl_links_no_daemon_lib
[ "$failed" -eq 0 ]
