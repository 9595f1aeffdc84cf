// SPDX-License-Identifier: GPL-2.0
/*
 * A test module that takes the one direct-call slot of a kernel function,
 * as a BPF trampoline (bpftrace kfunc:) does, so that the selftests can
 * drive ftagent's fallback from direct calls to plain ftrace_ops, and its
 * return to direct calls once the slot is free. The trampoline only
 * returns. Never shipped: built beside ftagent.ko by tools/build-module.
 *
 *   insmod ftagent_test_holder.ko symbol=__x64_sys_pread64
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
MODULE_PARM_DESC(symbol, "the function whose direct-call slot to hold");

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

	err = ftrace_set_filter(&holder_ops, (unsigned char *)symbol,
				strlen(symbol), 0);
	if (!err)
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
	ftagent_direct_unregister(&holder_ops,
				  (unsigned long)ftagent_holder_tramp);
	ftrace_free_filter(&holder_ops);
}

module_init(holder_init);
module_exit(holder_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ftagent selftests: hold a function's direct-call slot");
