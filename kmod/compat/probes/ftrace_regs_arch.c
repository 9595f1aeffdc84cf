// SPDX-License-Identifier: GPL-2.0
/* An opaque struct ftrace_regs behind arch_ftrace_regs() (6.12 on). */
#include <linux/ftrace.h>
#include <linux/module.h>

static __maybe_unused struct pt_regs *probe(struct ftrace_regs *fregs)
{
	ftrace_regs_set_instruction_pointer(fregs, 0);
	return &arch_ftrace_regs(fregs)->regs;
}

MODULE_LICENSE("GPL");
