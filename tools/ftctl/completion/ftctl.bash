# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Bash completion for ftctl. The candidates come from ftctl itself
# (`ftctl __complete WORD... CURRENT`, tools/ftctl/cmd_complete.c), from
# the same tables its options are parsed with, so this file never lists
# a command or an option and cannot fall behind. Installed as
# /usr/share/bash-completion/completions/ftctl.

_ftctl() {
	local cur prev words cword split
	_init_completion -s || return

	local -a args=("${words[@]:1:cword-1}")
	# "--type=ex": bash-completion split it; ftctl sees "--type" "ex".
	if [[ $split == true ]]; then
		args+=("$prev")
	fi
	local out
	out=$("${words[0]}" __complete "${args[@]}" "$cur" 2>/dev/null) || return
	if [[ $out == "@files" ]]; then
		_filedir
		return
	fi
	local IFS=$'\n'
	# shellcheck disable=SC2207 # one candidate a line, no globbing in them
	COMPREPLY=($(compgen -W "$out" -- "$cur"))
}
complete -F _ftctl ftctl
