# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# What counts as a kernel report in a guest's kernel log: sourced by
# tools/guest/run-guest (every guest run) and tests/faults/check-faults
# (which rescans a log after taking out what injected faults cause).
#
# splat_re: the kernel's own headers for BUG(), WARN(), oopses, lockdep,
# KASAN/UBSAN/kmemleak reports, hung tasks, soft/hard lockups and RCU
# stalls. User-space faults ("traps: foo[1] general protection fault
# ip:...") and the unsigned-module taint notice do not match.
# shellcheck disable=SC2034 # used by the scripts that source this file
splat_re='BUG:|WARNING:|Oops|Call Trace|KASAN|UBSAN|kmemleak|unreferenced object|general protection fault[:,]|invalid opcode: [0-9]|kernel BUG|Kernel panic|Unable to handle kernel|double fault|stack-protector|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|INFO: task .* blocked|RCU stall|self-detected stall|detected stalls|soft lockup|hard LOCKUP|list_(add|del) corruption'

# benign_re: lines that match splat_re on a clean boot: kmemleak's
# start-up notice and RCU's "RCU lockdep checking is enabled." (kernels
# with CONFIG_DEBUG_KMEMLEAK and CONFIG_PROVE_RCU, the debug kernel of
# tools/debug-kernel). Their reports ("kmemleak: N new suspected memory
# leaks", lockdep's WARNINGs) still match.
# shellcheck disable=SC2034
benign_re='kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread (started|ended)|rcu:[[:space:]]+RCU lockdep checking is enabled\.$'
