// SPDX-License-Identifier: GPL-2.0
/* struct ftrace_regs with a public pt_regs member (up to 6.6). */
#include <linux/ftrace.h>
#include <linux/module.h>

static __maybe_unused struct pt_regs *probe(struct ftrace_regs *fregs)
{
	return &fregs->regs;
}

MODULE_LICENSE("GPL");
