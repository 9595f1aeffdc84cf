// SPDX-License-Identifier: GPL-2.0
/*
 * A test module that holds a kernel function the way other users of ftrace
 * do, so that the selftests can drive ftagent against them. Never shipped:
 * built beside ftagent.ko by tools/build-module.
 *
 *   insmod ftagent_test_holder.ko symbol=__x64_sys_pread64
 *	takes the one direct-call slot, as a BPF trampoline (bpftrace
 *	kfunc:) does; its trampoline only returns
 *   insmod ftagent_test_holder.ko symbol=... share=1
 *	the same, but it shares the function with an IPMODIFY user (ops_func),
 *	as a BPF trampoline does since 6.0
 *   insmod ftagent_test_holder.ko symbol=... ipmodify=1
 *	attaches an IPMODIFY ftrace_ops, as a livepatch does; its callback
 *	leaves the ip alone
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>
#include <asm/ibt.h>
#include <asm/linkage.h>

#include "compat/ftrace.h"

static char *symbol = "__x64_sys_pread64";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to hold");

static bool ipmodify;
module_param(ipmodify, bool, 0444);
MODULE_PARM_DESC(ipmodify, "hold it as a livepatch would (IPMODIFY), not as a direct call");

static bool share;
module_param(share, bool, 0444);
MODULE_PARM_DESC(share, "as a direct call, share the function with an IPMODIFY user");

#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
/* The trampoline only returns, to wherever ftrace says: it can share. */
static int holder_ops_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
{
	return 0;
}
#endif

static void notrace holder_ipmodify_func(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
}

void ftagent_holder_tramp(void);
asm("	.pushsection	.text, \"ax\", @progbits\n"
	"	.type	ftagent_holder_tramp, @function\n"
	"ftagent_holder_tramp:\n"
	ASM_ENDBR
	"	pushq	%rbp\n"
	"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
	"	leave\n"
	ASM_RET
	"	.size	ftagent_holder_tramp, .-ftagent_holder_tramp\n"
	"	.popsection\n");

static struct ftrace_ops holder_ops;

static int __init holder_init(void)
{
	int err;

	if (ipmodify) {
		holder_ops.func = holder_ipmodify_func;
		holder_ops.flags = FTRACE_OPS_FL_IPMODIFY |
				   FTRACE_OPS_FL_RECURSION;
	}
#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
	if (share && !ipmodify)
		holder_ops.ops_func = holder_ops_func;
#endif
	err = ftrace_set_filter(&holder_ops, (unsigned char *)symbol,
				strlen(symbol), 0);
	if (!err && ipmodify)
		err = register_ftrace_function(&holder_ops);
	else if (!err)
		err = ftagent_direct_register(&holder_ops,
					      (unsigned long)ftagent_holder_tramp);
	if (err) {
		ftrace_free_filter(&holder_ops);
		pr_err("cannot hold %s: %d\n", symbol, err);
	}
	return err;
}

static void __exit holder_exit(void)
{
	if (ipmodify)
		unregister_ftrace_function(&holder_ops);
	else
		ftagent_direct_unregister(&holder_ops,
					  (unsigned long)ftagent_holder_tramp);
	ftrace_free_filter(&holder_ops);
}

module_init(holder_init);
module_exit(holder_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ftagent selftests: hold a function's direct-call slot");
