// SPDX-License-Identifier: GPL-2.0
/*
 * What every hook of the module needs: ftrace_ops callbacks that get
 * struct ftrace_regs, the recursion guard, and tracepoints found by name
 * (5.11 on).
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>

static void probe_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
}

static void probe_tp(struct tracepoint *tp, void *priv)
{
}

struct ftrace_ops probe_ops = { .func = probe_func };

static __maybe_unused void probe(void)
{
	for_each_kernel_tracepoint(probe_tp, NULL);
}

MODULE_LICENSE("GPL");
