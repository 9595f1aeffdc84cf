// SPDX-License-Identifier: GPL-2.0
/*
 * The records of the descriptors io_uring requests give their callers.
 *
 * An io_uring OPENAT/OPENAT2 or ACCEPT runs no traced system call: its
 * handler (io_openat2, io_accept) calls fd_install(fd, file) itself. A
 * hook on fd_install() sees which handler called it by its return
 * address, and writes the OPEN or ACCEPT record the system call's return
 * would write, from the file being installed, before the descriptor is in
 * the table: no other thread can have closed or replaced it yet. A file
 * put in a registered-file slot instead (file_index) passes no
 * fd_install() and names no descriptor.
 *
 * Every fd_install() on the system passes the hook (open(), socket(),
 * pipe(), dup(), accept() ...), so it is a direct call, as the syscall
 * entry hooks are (hooks_ftrace.c): fd_install()'s fentry calls a small
 * trampoline here, which hands the caller's return address to a compare
 * against the two handlers' ranges, a few tens of instructions; the
 * generic ftrace_ops path costs about a hundred more. A function has one
 * direct caller at most (BPF fentry, another module), so when the slot
 * is taken the hook attaches as a plain ftrace_ops with the same check.
 *
 * The handlers' ranges come from the symbol table: a compiler clone
 * (.part, .cold) of one would not match, and its descriptors would get
 * no record. Records only: counting and budgets do not depend on this,
 * so a hook that cannot attach is said in the log, not marked degraded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/ftrace.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>

#include "account.h"
#include "callsites.h"
#include "compat/ftrace.h"
#include "hooks.h"
#include "iouring.h"
#include "lifecycle.h"
#include "symbols.h"

#ifdef CONFIG_IO_URING

struct ftagent_iouring_installer {
	const char *name;
	unsigned int rec;	/* enum ftagent_rec_type */
	unsigned long start, size;
};

/* io_openat (6.1) only tail-jumps to io_openat2: its range is not needed. */
static struct ftagent_iouring_installer ftagent_iouring_installers[] = {
	{ .name = "io_openat2", .rec = FTAGENT_REC_OPEN },
	{ .name = "io_accept", .rec = FTAGENT_REC_ACCEPT },
};

/*
 * fd_install(@fd, @file) returns to @parent: if that is in one of the
 * handlers, the record. Any context fd_install() runs in (process
 * context; it does not sleep); preemption may be on.
 */
void notrace ftagent_iouring_installed(unsigned int fd, struct file *file,
				       unsigned long parent)
{
	const struct ftagent_iouring_installer *in;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_installers); i++) {
		in = &ftagent_iouring_installers[i];
		if (parent - in->start < in->size)
			break;
	}
	if (i == ARRAY_SIZE(ftagent_iouring_installers))
		return;
	preempt_disable_notrace();
	if (in->rec == FTAGENT_REC_ACCEPT)
		ftagent_event_sock_file_as(current, FTAGENT_REC_ACCEPT, file,
					   fd, 0);
	else if (ftagent_account_opens_recorded())
		ftagent_event_open_file(fd, file, FTAGENT_OPEN_FLAGS_FILE);
	preempt_enable_notrace();
}

/*
 * The direct caller of fd_install(): called from its first instruction,
 * so its arguments are live in %rdi and %rsi and are kept; the caller's
 * return address is above fd_install()'s own, at 16(%rbp) once this
 * frame is made. %rdx is free: fd_install() takes two arguments.
 */
static_assert(__same_type(&fd_install, void (*)(unsigned int, struct file *)));
asm("	.pushsection	.text, \"ax\", @progbits\n"
	"	.type	ftagent_iouring_install_tramp, @function\n"
	"ftagent_iouring_install_tramp:\n"
	ASM_ENDBR
	"	pushq	%rbp\n"
	"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
	"	pushq	%rdi\n"
	"	pushq	%rsi\n"
	"	movq	16(%rbp), %rdx\n"
	"	call	ftagent_iouring_installed\n"
	"	popq	%rsi\n"
	"	popq	%rdi\n"
	"	leave\n"
	ASM_RET
	"	.size	ftagent_iouring_install_tramp, .-ftagent_iouring_install_tramp\n"
	"	.popsection\n");

/* The fallback: the same check from a plain ftrace_ops. */
static void notrace ftagent_iouring_install_hook(unsigned long ip,
						 unsigned long parent_ip,
						 struct ftrace_ops *op,
						 struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);

	ftagent_iouring_installed((unsigned int)args->di,
				  (struct file *)args->si, parent_ip);
}

static struct ftrace_ops ftagent_install_ops = {
	.func = ftagent_iouring_install_hook,
	.flags = FTRACE_OPS_FL_RECURSION,
};

/* Made afresh for each attempt, as hooks_ftrace.c's direct sets are. */
static struct ftrace_ops ftagent_install_direct_ops;
static bool ftagent_install_direct_on, ftagent_install_ops_on;
static bool ftagent_install_filtered;

static int ftagent_install_direct(void)
{
	unsigned long tramp = (unsigned long)ftagent_iouring_install_tramp;
	int err;

	memset(&ftagent_install_direct_ops, 0,
	       sizeof(ftagent_install_direct_ops));
#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
	/* A livepatch of fd_install() shares it, as the entry points do. */
	ftagent_install_direct_ops.ops_func = ftagent_direct_ops_func;
#endif
	err = ftagent_ftrace_filter(&ftagent_install_direct_ops, "fd_install");
	if (!err)
		err = ftagent_direct_register(&ftagent_install_direct_ops,
					      tramp);
	if (err) {
		/* A failed registration was in ftrace's list for a moment. */
		synchronize_rcu();
		ftrace_free_filter(&ftagent_install_direct_ops);
		memset(&ftagent_install_direct_ops, 0,
		       sizeof(ftagent_install_direct_ops));
	}
	return err;
}

void ftagent_iouring_install_start(void)
{
	unsigned int i, found = 0;
	int err;

	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_installers); i++) {
		struct ftagent_iouring_installer *in =
			&ftagent_iouring_installers[i];

		in->start = ftagent_function_range(in->name, &in->size);
		found += in->size != 0;
	}
	if (!found) {
		pr_warn("io_uring: io_openat2 and io_accept not found: io_uring opens and accepts write no records\n");
		return;
	}
	err = ftagent_install_direct();
	if (!err) {
		ftagent_install_direct_on = true;
		return;
	}
	pr_info("io_uring: no direct call on fd_install (%d), using ftrace_ops\n",
		err);
	err = ftagent_symbol_filter(&ftagent_install_ops, "fd_install");
	ftagent_install_filtered = true;
	if (!err)
		err = register_ftrace_function(&ftagent_install_ops);
	if (err) {
		pr_warn("io_uring: cannot attach fd_install (%d): io_uring opens and accepts write no records\n",
			err);
		return;
	}
	ftagent_install_ops_on = true;
}

/*
 * ftrace refused to let the hook go (only a dead ftrace does): the
 * trampoline or callback may still be called, so the module stays.
 */
static bool ftagent_install_stuck(int err)
{
	if (!err)
		return false;
	WARN(1, KBUILD_MODNAME ": ftrace cannot detach fd_install (%d): reboot before unloading\n",
	     err);
	__module_get(THIS_MODULE);
	return true;
}

/* Both return once no task runs in the hook or its trampoline. */
void ftagent_iouring_install_stop(void)
{
	unsigned long tramp = (unsigned long)ftagent_iouring_install_tramp;

	if (ftagent_install_direct_on) {
		if (!ftagent_install_stuck(ftagent_direct_unregister(&ftagent_install_direct_ops,
								     tramp)))
			ftrace_free_filter(&ftagent_install_direct_ops);
		ftagent_install_direct_on = false;
	}
	if (ftagent_install_ops_on) {
		/* Its filter stays with it: ftrace may still read it. */
		if (ftagent_install_stuck(unregister_ftrace_function(&ftagent_install_ops)))
			ftagent_install_filtered = false;
		ftagent_install_ops_on = false;
	}
	/* Once: the ops is never attached again (the load is over). */
	if (ftagent_install_filtered)
		ftrace_free_filter(&ftagent_install_ops);
	ftagent_install_filtered = false;
}

#else /* !CONFIG_IO_URING */

void ftagent_iouring_install_start(void)
{
}

void ftagent_iouring_install_stop(void)
{
}

#endif
