// SPDX-License-Identifier: GPL-2.0
/*
 * CALL_DEPTH_ACCOUNT for hand-written trampolines (6.2 on): a direct
 * trampoline must account its call when call depth tracking is on.
 */
#include <linux/module.h>
#include <asm/nospec-branch.h>

static const char probe_insn[] __used = CALL_DEPTH_ACCOUNT;

MODULE_LICENSE("GPL");
