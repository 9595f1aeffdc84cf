#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages (docs/man/*.scd): each renders with scdoc, and groff
# formats it with every warning on and says nothing; and each says what
# the code has, so a page cannot fall behind it:
#   ftctl(8)         every command, subcommand and option ftctl takes
#                    (from `ftctl __complete`, its own tables)
#   ftagentd(8)      every option in ftagentd's getopt table
#   ftagent.conf(5)  every section and key the config parsers take
#                    (tools/lib/config.c, tools/lib/policy_config.c)
#   ftagent(4)       every module parameter (kmod/*.c), the netlink
#                    families and the event filesystem (uapi)
# Prints TAP.
#
# usage: man_pages.sh BUILD_DIR [MAN_SRC_DIR]
#   MAN_SRC_DIR: the .scd files (default docs/man), so a test of this
#   test can point it at a copy with something removed.
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
src=${2:-$top/docs/man}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pages="ftctl.8 ftagentd.8 ftagent.conf.5 ftagent.4"
echo "1..$((2 * 4 + 4))"

# render PAGE: scdoc, then groff with all warnings; any output fails.
for page in $pages; do
	ok=0
	if ! scdoc <"$src/$page.scd" >"$tmp/$page" 2>"$tmp/$page.err"; then
		sed 's/^/#   /' "$tmp/$page.err"
		ok=1
	fi
	result "$page renders with scdoc" $ok
	ok=0
	warn=$(groff -man -Tutf8 -ww -z "$tmp/$page" 2>&1)
	if [ -n "$warn" ] || [ ! -s "$tmp/$page" ]; then
		echo "# groff on $page: ${warn:-empty page}" | head -20
		ok=1
	fi
	result "$page formats without a groff warning" $ok
done

# terms PAGE: the lines of PAGE's source that a definition follows (a
# line indented one tab more comes next) and the headings, without the
# markup: where a page says what each thing is, not where it names it
# in passing.
terms() {
	awk '
		function tabs(s) { match(s, /^\t*/); return RLENGTH }
		NR > 1 && prev != "" && $0 != "" && tabs($0) > tabs(prev) { print prev }
		/^# / { print }
		{ prev = $0 }' "$src/$1.scd" |
		sed -E 's/\*//g; s/(^|[^[:alnum:]])_/\1/g; s/_($|[^[:alnum:]])/\1/g'
}

# defines PAGE NAME...: each NAME is a word of one of PAGE's terms.
defines() {
	local page=$1 missing="" text
	shift
	text=$(terms "$page")
	for name in "$@"; do
		grep -qwF -- "$name" <<<"$text" || missing+=" $name"
	done
	[ -z "$missing" ] && return 0
	echo "# $page has no entry for:$missing"
	return 1
}

# mentions PAGE NAME...: each NAME appears in PAGE's text as itself.
mentions() {
	local page=$1 missing="" text
	shift
	# Plain text, no hyphenation, lines long enough that no name breaks.
	text=$(groff -man -Tascii -P-cbou -rHY=0 -rLL=2000n "$tmp/$page" 2>/dev/null)
	[ -n "$text" ] || { echo "# $page: no text"; return 1; }
	for name in "$@"; do
		grep -qF -- "$name" <<<"$text" || missing+=" $name"
	done
	[ -z "$missing" ] && return 0
	echo "# $page does not mention:$missing"
	return 1
}

ftctl=$build/ftctl

# ftctl(8): commands, their words and options, the global ones.
ftctl_names() {
	local cmd
	for cmd in $("$ftctl" __complete ""); do
		echo "$cmd"
		"$ftctl" __complete "$cmd" ""
		"$ftctl" __complete "$cmd" -
	done
	"$ftctl" __complete -
}
mapfile -t names < <(ftctl_names | sort -u)
if [ ${#names[@]} -lt 20 ]; then
	echo "# only ${#names[@]} names from ftctl __complete: is $ftctl built?"
	result "ftctl(8) names every command and option" 1
else
	defines ftctl.8 "${names[@]}"
	result "ftctl(8) names every command and option (${#names[@]})" $?
fi

# ftagentd(8): the long options of its getopt_long table.
mapfile -t names < <(sed -n '/longopts\[\] = {/,/};/s/.*{"\([a-z-]*\)",.*/--\1/p' \
	"$top/daemon/main.c")
if [ ${#names[@]} -lt 4 ]; then
	echo "# no options found in daemon/main.c"
	result "ftagentd(8) names every option" 1
else
	defines ftagentd.8 "${names[@]}"
	result "ftagentd(8) names every option (${#names[@]})" $?
fi

# ftagent.conf(5): the key table of config.c, and the keys
# policy_config.c compares names with.
mapfile -t names < <({
	sed -n 's/^\t{"\([a-z]*\)", "\([a-z_]*\)", [A-Z]*,.*/[\1]\n\2/p' \
		"$top/tools/lib/config.c"
	grep -o 'strcmp(name, "[a-z_]*")' "$top/tools/lib/policy_config.c" |
		sed 's/.*"\(.*\)")/\1/'
	echo "[policy]"
	echo "[policy.NAME]"
	echo "[budget.NAME]"
} | sort -u)
if [ ${#names[@]} -lt 30 ]; then
	echo "# only ${#names[@]} keys found in tools/lib/config.c and policy_config.c"
	result "ftagent.conf(5) names every section and key" 1
else
	defines ftagent.conf.5 "${names[@]}"
	result "ftagent.conf(5) names every section and key (${#names[@]})" $?
fi

# ftagent(4): module parameters, each with an entry of its own; the
# families and files from uapi, named.
mapfile -t params < <({
	grep -ho 'module_param(\([a-z_]*\),' "$top"/kmod/*.c |
		sed 's/module_param(\(.*\),/\1/'
	grep -ho 'module_param_named(\([a-z_]*\),' "$top"/kmod/*.c |
		sed 's/module_param_named(\(.*\),/\1/'
} | sort -u)
mapfile -t names < <({
	sed -n 's/^#define FTAGENT_\(GENL_[A-Z_]*NAME\|GENL_ALERTS_GROUP\|FS_TYPE\|FS_MOUNTPOINT\|EVENTS_FILE\)[[:space:]]*"\([^"]*\)".*/\2/p' \
		"$top/uapi/linux/ftagent.h"
	echo /sys/module/ftagent/parameters/
} | sort -u)
if [ ${#params[@]} -lt 8 ] || [ ${#names[@]} -lt 6 ]; then
	echo "# only ${#params[@]} parameters in kmod/, ${#names[@]} names in uapi/"
	result "ftagent(4) has every parameter, family and file" 1
else
	defines ftagent.4 "${params[@]}" && mentions ftagent.4 "${names[@]}"
	result "ftagent(4) has every parameter (${#params[@]}), family and file (${#names[@]})" $?
fi
[ "$failed" -eq 0 ]
