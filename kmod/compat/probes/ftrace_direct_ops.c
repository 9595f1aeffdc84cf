// SPDX-License-Identifier: GPL-2.0
/* register_ftrace_direct(ops, addr) and its three-argument undo: 6.5 on. */
#include <linux/ftrace.h>
#include <linux/module.h>

static struct ftrace_ops probe_ops;

static __maybe_unused int probe(void)
{
	return register_ftrace_direct(&probe_ops, 0) +
	       unregister_ftrace_direct(&probe_ops, 0, true);
}

MODULE_LICENSE("GPL");
