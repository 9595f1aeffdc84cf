#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ftctl's bash completion (tools/ftctl/completion/ftctl.bash), sourced
# with bash-completion as an interactive shell would: COMPREPLY for a
# few command lines, built from `ftctl __complete`. Prints TAP.
#
# usage: ftctl_completion.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0
failed=0

echo "1..11"
if [ ! -r /usr/share/bash-completion/bash_completion ] || [ ! -x "$build/ftctl" ]; then
	# Missing pieces are failures: a skip would read as a pass.
	echo "# needs bash-completion and $build/ftctl"
	for i in $(seq 1 9); do echo "not ok $i - prerequisites"; done
	exit 1
fi
# shellcheck source=/dev/null
. /usr/share/bash-completion/bash_completion
# shellcheck source=tools/ftctl/completion/ftctl.bash
. "$top/tools/ftctl/completion/ftctl.bash"
PATH=$build:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# complete LINE: COMPREPLY for LINE with the cursor at its end, sorted,
# on one line.
complete_line() {
	local line=$1
	COMP_LINE=$line
	COMP_POINT=${#line}
	# Split as readline does: words, and '=' as a word of its own.
	read -r -a COMP_WORDS <<<"${line//=/ = }"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ftctl ftctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect NAME LINE WANT: the candidates, exactly.
expect() {
	local got
	n=$((n + 1))
	got=$(complete_line "$2")
	if [ "$got" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "#   '$2': got '$got', want '$3'"
		failed=$((failed + 1))
	fi
}

expect "commands" "ftctl " \
	"audit budget doctor events help policy selfcheck stats top version"
expect "a command's prefix" "ftctl st" "stats"
expect "policy's subcommands" "ftctl policy " "check load show"
expect "audit's subcommands" "ftctl audit " "show verify"
expect "an option of audit show" "ftctl audit show --si" "--since"
expect "an option of events" "ftctl events --fo" "--follow"
expect "global options after the command" "ftctl top --j" "--json"
expect "event types after --type" "ftctl events --type e" "exec exit"
expect "event types after --type=" "ftctl events --type=co" "connect"
expect "sort keys" "ftctl top --sort " "bytes calls file net"
touch "$tmp/rules.conf"
expect "a file after policy check" "ftctl policy check $tmp/ru" \
	"$tmp/rules.conf"
[ "$failed" -eq 0 ]
