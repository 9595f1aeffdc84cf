// SPDX-License-Identifier: GPL-2.0
/* register_ftrace_direct_multi(ops, addr): 5.19 to 6.4. */
#include <linux/ftrace.h>
#include <linux/module.h>

static struct ftrace_ops probe_ops;

static __maybe_unused int probe(void)
{
	return register_ftrace_direct_multi(&probe_ops, 0) +
	       unregister_ftrace_direct_multi(&probe_ops, 0);
}

MODULE_LICENSE("GPL");
