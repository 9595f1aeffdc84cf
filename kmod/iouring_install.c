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
 * Every fd_install() on the system passes that hook (open(), socket(),
 * pipe(), dup(), accept() ...): an ftrace_ops callback and three
 * compares, measured +113 instructions per openat() + close() on 6.1
 * (docs/overhead.md, "io_uring"). A direct call costs +24 but was not
 * kept: it reads the caller's return address from the stack, where
 * another user's return hook on fd_install() (function_graph, a
 * kretprobe) has put its own trampoline by then, and every record would
 * go missing while one is on. ftrace hands an ftrace_ops callback the
 * return address as it was before any of them ran.
 *
 * So the hook is attached only once io_uring is in use: a host that
 * never uses it pays nothing on its descriptors. No request can reach
 * io_openat2 or io_accept but through a ring, and no ring is set up or
 * entered but through io_uring_setup() or io_uring_enter() (an SQPOLL
 * thread is born in io_uring_setup()). Until the hook is on, those two
 * calls are watched (the "wake" ops, an IPMODIFY ops on the 64-bit and
 * 32-bit entries): the first of them runs ftagent_install_restart()
 * instead, which attaches the hook (it runs as the system call would,
 * and may sleep) and returns -ERESTARTNOINTR, and the kernel restarts
 * the call, which then runs with the hook on. The wake ops is then taken
 * off. The hook is attached at load instead if a task already has an
 * io_uring context then (task->io_uring: it set up or entered a ring, or
 * is a ring's SQPOLL thread), or is inside one of the two calls (it may
 * have entered before the wake ops was on).
 *
 * The handlers' ranges come from the symbol table: a compiler clone
 * (.part, .cold) of one would not match, and its descriptors would get
 * no record. Records only: counting and budgets do not depend on this,
 * so a hook that cannot attach is said in the log, not marked degraded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/file.h>
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "account.h"
#include "callsites.h"
#include "compat/ftrace.h"
#include "compat/syscall_names.h"
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

/*
 * ftagent_install_lock orders attaching and detaching: the hook, and the
 * wake ops, are registered and unregistered only under it.
 * ftagent_install_settled turns true once nothing more is to be done
 * about io_uring's use (the hook is on, or could not be put on): the
 * wake ops then lets every call through, and a work takes it off.
 */
static DEFINE_MUTEX(ftagent_install_lock);
static bool ftagent_install_on, ftagent_install_filtered;
static bool ftagent_install_settled, ftagent_install_stopping;
static bool ftagent_wake_on, ftagent_wake_filtered;
/* Defined below, with its hook, which leads back here. */
static struct ftrace_ops ftagent_install_wake_ops;

/*
 * Take @ops off if it is @on. Only a dead ftrace refuses: then its
 * filter is not freed under it, and ftagent_stuck() pins the module if
 * the unload has not begun.
 */
static void ftagent_install_ops_off(struct ftrace_ops *ops, const char *what,
				    bool *on, bool *filtered)
{
	int err;

	lockdep_assert_held(&ftagent_install_lock);
	if (!*on)
		return;
	err = unregister_ftrace_function(ops);
	if (err) {
		ftagent_stuck(what, err);
		*filtered = false;
	}
	*on = false;
}

static void ftagent_wake_off(void)
{
	ftagent_install_ops_off(&ftagent_install_wake_ops, "io_uring_setup",
				&ftagent_wake_on, &ftagent_wake_filtered);
}

/*
 * Taking the wake ops off waits for RCU-tasks grace periods (seconds on
 * a loaded host): not in the way of the call that attached the hook.
 */
static void ftagent_wake_off_fn(struct work_struct *work)
{
	mutex_lock(&ftagent_install_lock);
	ftagent_wake_off();
	mutex_unlock(&ftagent_install_lock);
}

static DECLARE_WORK(ftagent_wake_off_work, ftagent_wake_off_fn);

/*
 * Attach the hook, once (process context; sleeps). Under the lock. 0, or
 * why the hook did not go on (said in the log).
 */
static int ftagent_install_attach_locked(void)
{
	int err;

	lockdep_assert_held(&ftagent_install_lock);
	if (ftagent_install_on || ftagent_install_stopping)
		return 0;
	err = ftagent_ftrace_on(&ftagent_install_ops);
	if (err)
		pr_warn("io_uring: cannot attach fd_install (%d): io_uring opens and accepts write no records\n",
			err);
	else
		ftagent_install_on = true;
	WRITE_ONCE(ftagent_install_settled, true);
	if (ftagent_wake_on)
		schedule_work(&ftagent_wake_off_work);
	return err;
}

/*
 * Tasks in ftagent_install_restart(), counted by themselves on the way
 * in: the module's exit (or a failed load) waits for them. Not a module
 * reference taken in the hook: another tool's return override on the
 * same entry (a kprobe's, fail_function, a BPF fmod_ret program) can
 * keep the stub from running, and that reference would never be put.
 */
static atomic_t ftagent_install_restarting = ATOMIC_INIT(0);
static bool ftagent_install_restarted;

/*
 * Runs in io_uring_setup()'s or io_uring_enter()'s place, as the system
 * call (process context, preemptible): attaches the hook, then has the
 * call restarted. -ERESTARTNOINTR is restarted by the signal code, which
 * a return to user space runs only with work pending: TIF_NOTIFY_SIGNAL
 * (set_notify_signal() for current, which runs and needs no waking; the
 * helper itself is not exported). The restarted call finds the ops
 * settled, or gone.
 */
static noinline notrace long
ftagent_install_restart(const struct pt_regs *regs)
{
	atomic_inc(&ftagent_install_restarting);
	/* A fatal signal ends the task: nothing to attach for it. */
	if (!READ_ONCE(ftagent_install_stopping) &&
	    !mutex_lock_killable(&ftagent_install_lock)) {
		ftagent_install_attach_locked();
		mutex_unlock(&ftagent_install_lock);
	}
	set_thread_flag(TIF_NOTIFY_SIGNAL);
	/* This code stays loaded until here: ftagent_iouring_install_stop(). */
	atomic_dec(&ftagent_install_restarting);
	return -ERESTARTNOINTR;
}

/*
 * On io_uring_setup() and io_uring_enter() until the hook is on: the
 * call is sent to ftagent_install_restart().
 */
static void notrace ftagent_install_wake_hook(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	if (READ_ONCE(ftagent_install_settled))
		return;
	WRITE_ONCE(ftagent_install_restarted, true);
	ftagent_fregs_set_ip(fregs, (unsigned long)ftagent_install_restart);
}

static struct ftrace_ops ftagent_install_wake_ops = {
	.func = ftagent_install_wake_hook,
	.flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * The entries that reach a ring (x32's is the 64-bit one); the 32-bit
 * ones only with IA32 support. Their numbers are the same in all three
 * tables.
 */
static const char *const ftagent_wake_calls[] = {
	FTAGENT_SYSCALL_SYM(io_uring_setup),
	FTAGENT_SYSCALL_SYM(io_uring_enter),
#ifdef CONFIG_IA32_EMULATION
	FTAGENT_IA32_SYM(io_uring_setup),
	FTAGENT_IA32_SYM(io_uring_enter),
#endif
};

/*
 * Whether @t sleeps in one of the two calls now (its orig_ax; the x32
 * bit masked). An exiting task makes no more io_uring calls.
 */
static bool ftagent_in_iouring_call(struct task_struct *t)
{
	unsigned long orig_ax;
	int nr;

	/* Another task's flags, read racily: a hint, checked below. */
	if (data_race(t->flags) & (PF_KTHREAD | PF_EXITING))
		return false;
	/*
	 * Its stack may be going even so (freed, and t->stack set to NULL,
	 * as it exits): read without faulting, an address near NULL is
	 * refused.
	 */
	if (copy_from_kernel_nofault(&orig_ax, &task_pt_regs(t)->orig_ax,
				     sizeof(orig_ax)))
		return false;
	nr = (int)orig_ax;
#ifdef __X32_SYSCALL_BIT
	nr &= ~__X32_SYSCALL_BIT;
#endif
	return nr == __NR_io_uring_setup || nr == __NR_io_uring_enter;
}

/*
 * Whether any task has an io_uring context (it may hold a ring), or is
 * in io_uring_setup() or io_uring_enter() now: one that entered before
 * the wake ops was on may get its context only after this look (a first
 * io_uring_enter() of a ring it was handed, an SQPOLL thread being
 * born).
 */
static bool ftagent_iouring_in_use(void)
{
	struct task_struct *p, *t;
	bool used = false;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (READ_ONCE(t->io_uring) || ftagent_in_iouring_call(t)) {
			used = true;
			break;
		}
	}
	rcu_read_unlock();
	return used;
}

/*
 * The wake ops on: 0, or why not (the hook is then put on at once,
 * unless memory ran out: the load fails).
 */
static int ftagent_wake_start(void)
{
	unsigned int i;
	int err = 0;

	ftagent_wake_filtered = true;
	for (i = 0; i < ARRAY_SIZE(ftagent_wake_calls) && !err; i++)
		err = ftagent_symbol_filter(&ftagent_install_wake_ops,
					    ftagent_wake_calls[i]);
	/*
	 * Under the lock: a task the ops wakes at once attaches the hook
	 * only once the ops is known to be on, and so takes it off again.
	 */
	mutex_lock(&ftagent_install_lock);
	if (!err)
		err = ftagent_ftrace_on(&ftagent_install_wake_ops);
	ftagent_wake_on = !err;
	mutex_unlock(&ftagent_install_lock);
	if (err && err != -ENOMEM)
		pr_info("io_uring: cannot watch io_uring_setup (%d): fd_install is hooked from the load\n",
			err);
	return err;
}

int ftagent_iouring_install_start(void)
{
	unsigned int i, found = 0;
	int err = 0;

	if (WARN_ON_ONCE(ftagent_install_on || ftagent_install_filtered))
		return 0;
	ftagent_install_settled = false;
	ftagent_install_stopping = false;
	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_installers); i++) {
		struct ftagent_iouring_installer *in =
			&ftagent_iouring_installers[i];

		err = ftagent_function_find(in->name, &in->start, &in->size);
		if (err == -ENOMEM)
			return err;
		found += in->size != 0;
	}
	if (!found) {
		pr_warn("io_uring: io_openat2, io_openat and io_accept not found: io_uring opens and accepts write no records\n");
		return 0;
	}
	err = ftagent_symbol_filter(&ftagent_install_ops, "fd_install");
	ftagent_install_filtered = true;
	if (err == -ENOMEM)
		return err;
	if (err) {
		pr_warn("io_uring: cannot attach fd_install (%d): io_uring opens and accepts write no records\n",
			err);
		return 0;
	}
	/*
	 * The wake ops first, then the look at the tasks: a ring set up
	 * in between is seen by one or the other.
	 */
	err = ftagent_wake_start();
	if (err == -ENOMEM)
		return err;
	if (err || ftagent_iouring_in_use()) {
		mutex_lock(&ftagent_install_lock);
		err = ftagent_install_attach_locked();
		mutex_unlock(&ftagent_install_lock);
	}
	/* Short of memory at load: the load fails (ftagent_setup_fails()). */
	return err == -ENOMEM ? err : 0;
}

/* Returns once no task runs in the hooks (module exit, or a failed load). */
void ftagent_iouring_install_stop(void)
{
	mutex_lock(&ftagent_install_lock);
	/* Settled too: the watch lets calls through until it is off. */
	WRITE_ONCE(ftagent_install_stopping, true);
	WRITE_ONCE(ftagent_install_settled, true);
	ftagent_wake_off();
	ftagent_install_ops_off(&ftagent_install_ops, "fd_install",
				&ftagent_install_on, &ftagent_install_filtered);
	mutex_unlock(&ftagent_install_lock);
	cancel_work_sync(&ftagent_wake_off_work);
	/*
	 * The watch is off. A task it sent to ftagent_install_restart()
	 * counts itself there before it can sleep: once each has passed a
	 * voluntary switch or user space (an RCU-tasks grace period), the
	 * count holds them all. They come out soon (stopping: no attach),
	 * and the last may still be returning through this module's text
	 * past its count: a second grace period waits for that.
	 */
	if (READ_ONCE(ftagent_install_restarted)) {
		synchronize_rcu_tasks();
		while (atomic_read(&ftagent_install_restarting))
			msleep(20);
		synchronize_rcu_tasks();
	}
	/* Once: the ops are never attached again (the load is over). */
	if (ftagent_install_filtered)
		ftrace_free_filter(&ftagent_install_ops);
	ftagent_install_filtered = false;
	if (ftagent_wake_filtered)
		ftrace_free_filter(&ftagent_install_wake_ops);
	ftagent_wake_filtered = false;
}

#else /* !CONFIG_IO_URING */

int ftagent_iouring_install_start(void)
{
	return 0;
}

void ftagent_iouring_install_stop(void)
{
}

#endif
