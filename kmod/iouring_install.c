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
 * pipe(), dup(), accept() ...): an ftrace_ops callback and three
 * compares, measured +113 instructions per openat() + close() on 6.1
 * (docs/overhead.md, "io_uring"). A direct call costs +24 but was not
 * kept: it reads the caller's return address from the stack, where
 * another user's return hook on fd_install() (function_graph, a
 * kretprobe) has put its own trampoline by then, and every record would
 * go missing while one is on. ftrace hands an ftrace_ops callback the
 * return address as it was before any of them ran.
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

#include "account.h"
#include "callsites.h"
#include "compat/ftrace.h"
#include "iouring.h"
#include "lifecycle.h"
#include "symbols.h"

#ifdef CONFIG_IO_URING

struct ftagent_iouring_installer {
	const char *name;
	unsigned int rec;	/* enum ftagent_rec_type */
	unsigned long start, size;
};

/*
 * io_openat tail-jumps to io_openat2 on the Debian builds; its range is
 * kept in case another build calls fd_install() from it.
 */
static struct ftagent_iouring_installer ftagent_iouring_installers[] = {
	{ .name = "io_openat2", .rec = FTAGENT_REC_OPEN },
	{ .name = "io_openat", .rec = FTAGENT_REC_OPEN },
	{ .name = "io_accept", .rec = FTAGENT_REC_ACCEPT },
};

/*
 * fd_install(fd, file) is about to return to parent_ip: if that is in
 * one of the handlers, the record. fd_install() runs in process context
 * and does not sleep.
 */
static void notrace ftagent_iouring_install_hook(unsigned long ip,
						 unsigned long parent_ip,
						 struct ftrace_ops *op,
						 struct ftrace_regs *fregs)
{
	const struct ftagent_iouring_installer *in;
	struct pt_regs *args;
	struct file *file;
	unsigned int fd, i;

	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_installers); i++) {
		in = &ftagent_iouring_installers[i];
		if (parent_ip - in->start < in->size)
			break;
	}
	if (i == ARRAY_SIZE(ftagent_iouring_installers))
		return;
	args = ftagent_fregs_args(fregs);
	fd = args->di;
	file = (struct file *)args->si;
	preempt_disable_notrace();
	if (in->rec == FTAGENT_REC_ACCEPT)
		ftagent_event_sock_file_as(current, FTAGENT_REC_ACCEPT, file,
					   fd, 0);
	else if (ftagent_account_opens_recorded())
		ftagent_event_open_file(fd, file, FTAGENT_OPEN_FLAGS_FILE);
	preempt_enable_notrace();
}

static struct ftrace_ops ftagent_install_ops = {
	.func = ftagent_iouring_install_hook,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool ftagent_install_on, ftagent_install_filtered;

void ftagent_iouring_install_start(void)
{
	unsigned int i, found = 0;
	int err;

	if (WARN_ON_ONCE(ftagent_install_on || ftagent_install_filtered))
		return;
	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_installers); i++) {
		struct ftagent_iouring_installer *in =
			&ftagent_iouring_installers[i];

		in->start = ftagent_function_range(in->name, &in->size);
		found += in->size != 0;
	}
	if (!found) {
		pr_warn("io_uring: io_openat2, io_openat and io_accept not found: io_uring opens and accepts write no records\n");
		return;
	}
	err = ftagent_symbol_filter(&ftagent_install_ops, "fd_install");
	ftagent_install_filtered = true;
	if (!err)
		err = register_ftrace_function(&ftagent_install_ops);
	if (err) {
		pr_warn("io_uring: cannot attach fd_install (%d): io_uring opens and accepts write no records\n",
			err);
		return;
	}
	ftagent_install_on = true;
}

/* Returns once no task runs in the hook (module exit, or a failed load). */
void ftagent_iouring_install_stop(void)
{
	int err;

	if (ftagent_install_on) {
		err = unregister_ftrace_function(&ftagent_install_ops);
		/*
		 * Only a dead ftrace refuses, and the unload cannot be undone
		 * by now: its filter at least is not freed under it.
		 */
		if (WARN(err, KBUILD_MODNAME ": ftrace cannot detach fd_install (%d)\n",
			 err))
			ftagent_install_filtered = false;
		ftagent_install_on = false;
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
