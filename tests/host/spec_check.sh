#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/check-spec can fail: on copies of the specs and the header, each
# broken in one way, it must exit non-zero and say why; on the untouched
# copies it must pass. Prints TAP.
#
# usage: spec_check.sh BUILD_DIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
failed=0

# fresh: copies of the real files in $work.
fresh() {
	rm -rf "$work/u" && mkdir -p "$work/u"
	cp "$top"/uapi/ftagent_ctl.yaml "$top"/uapi/ftagent_stats.yaml \
		"$top"/uapi/linux/ftagent.h "$work/u/"
}

run_check() {
	"$top/tools/check-spec" --header "$work/u/ftagent.h" \
		"$work/u/ftagent_ctl.yaml" "$work/u/ftagent_stats.yaml" \
		>"$work/out" 2>&1
}

result() { # OK NAME
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		sed 's/^/# /' "$work/out"
		failed=$((failed + 1))
	fi
}

# refused NAME MESSAGE FILE SED-SCRIPT: break FILE with SED-SCRIPT; the
# check must fail and print MESSAGE (a fixed string).
refused() {
	local ok=0
	fresh
	sed -i -e "$4" "$work/u/$3"
	if cmp -s "$work/u/$3" "$top/uapi/$3" ||
		cmp -s "$work/u/$3" "$top/uapi/linux/$3"; then
		echo "# the mutation left $3 as it was" >"$work/out"
	elif run_check; then
		echo "# check-spec passed a broken $3" >>"$work/out"
	elif grep -qF -- "$2" "$work/out"; then
		ok=1
	else
		echo "# expected: $2" >>"$work/out"
	fi
	result "$ok" "$1"
}

echo "1..16"
fresh
ok=0
run_check && ok=1
result "$ok" "the specs as they are pass"

# shellcheck disable=SC2016 # $ is sed's last line
refused "two families in one file" "not one YAML document" \
	ftagent_ctl.yaml '$a ---
$r '"$top/uapi/ftagent_stats.yaml"
refused "a comma in a flow mapping makes a junk key" "'two' was unexpected" \
	ftagent_ctl.yaml 's/^        doc: 1 when the ftrace set runs on direct calls.$/&\n      - { name: extra, type: u8, doc: one, two }/'
refused "a duplicate key" "duplicate key 'type'" \
	ftagent_stats.yaml '0,/^        type: u32$/s//        type: u32\n        type: u64/'
refused "a protocol other than genetlink-legacy" "not genetlink-legacy" \
	ftagent_ctl.yaml 's/^protocol: genetlink-legacy/protocol: genetlink/'
refused "a renamed attribute" "FTAGENT_CTL_A_GEN_SEQUENCE (= 8) is not in the header" \
	ftagent_ctl.yaml 's/name: gen-seq$/name: gen-sequence/; s/\[ gen-seq \]/[ gen-sequence ]/'
refused "an attribute the header has and the spec lacks" \
	"the header's FTAGENT_STATS_A_EXCLUDE_MISSED (= 21) is not in the spec" \
	ftagent_stats.yaml '/^      -$/{N;/exclude-missed/{N;d}}'
refused "an attribute the spec lacks, added to the header" \
	"the header's FTAGENT_HOOK_A_NEW (= 8) is not in the spec" \
	ftagent.h 's/^\tFTAGENT_HOOK_A_PAD,$/&\n\tFTAGENT_HOOK_A_NEW,/'
refused "two attributes swapped" "FTAGENT_RULE_A_PORT_MIN is 11 in the spec, 10 in the header" \
	ftagent_ctl.yaml 's/name: port-min$/name: PORT/; s/name: port-max$/name: port-min/; s/name: PORT$/name: port-max/'
refused "a wrong name-prefix" "FTAGENT_HOOK_SET_FTRACE (= 1) is not in the header" \
	ftagent_stats.yaml 's/name-prefix: ftagent-hooks-/name-prefix: ftagent-hook-set-/'
refused "a wrong enum-name" "the header has no enum ftagent_hooks" \
	ftagent_ctl.yaml 's/enum-name: ftagent-hook-set$/enum-name: ftagent-hooks/'
refused "an enum entry missing" "FTAGENT_VERDICT_KILLED" \
	ftagent_ctl.yaml 's/budget-alert,$/budget-alert ]/; /^               killed ]$/d'
refused "a struct member of another type" "the header's struct ftagent_counter has" \
	ftagent_stats.yaml '/name: kind$/{n;s/u16/u32/}'
refused "a command out of place" "FTAGENT_STATS_CMD_GET_VERSION is 2 in the spec, 1 in the header" \
	ftagent_stats.yaml '/^    -$/{N;/name: get-version/s/$/\n      value: 2/}'
refused "a family version the header does not have" \
	"#define FTAGENT_GENL_STATS_VERSION 2 is not in the header" \
	ftagent_stats.yaml 's/^version: 1$/version: 2/'
refused "a nest pointing at no attribute set" "no attribute set rules" \
	ftagent_ctl.yaml 's/nested-attributes: rule$/nested-attributes: rules/'
[ "$failed" -eq 0 ]
