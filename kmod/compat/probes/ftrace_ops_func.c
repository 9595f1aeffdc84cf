// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_ops.ops_func (6.0 on): a direct-call ops says whether it can
 * share a function with an IPMODIFY ops such as a livepatch.
 */
#include <linux/ftrace.h>
#include <linux/module.h>

static int probe_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
{
	return cmd == FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER ? 0 : 1;
}

struct ftrace_ops probe_ops = { .ops_func = probe_func };

MODULE_LICENSE("GPL");
