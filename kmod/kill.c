// SPDX-License-Identifier: GPL-2.0
/*
 * A budget's kill: the gate's (a refused call whose budget kills) and
 * the exec-time kill of a `repeats` budget (ftagent_budget_exec()). Both
 * are decided in hook context, with preemption off, and sending a
 * signal takes the target's siglock: a spinlock that sleeps on PREEMPT_RT,
 * where taking it there schedules while atomic once contended.
 *
 * Off RT the signal is sent at once, and lands before the task returns
 * to user space.
 *
 * On RT the task is handed a task_work (TWA_SIGNAL): it runs the work
 * itself on its way back to user space, preemptible, before it gets
 * there, and the work sends the signal. So the refused call never
 * returns to user space there either, nor does a program killed at
 * exec run its first instruction. The works come from a pool of
 * FTAGENT_KILL_WORKS; each pending one holds a module reference (a
 * module with works pending is "in use"). Should the pool run dry, the
 * process (its thread group) is queued for the module's kill thread, a
 * kthread_worker at SCHED_FIFO 50 that races the task, which may return
 * to user space and run before the kill lands (docs/policy.md); that
 * queue holds FTAGENT_KILL_SLOTS processes, each by a pid reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/pid.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "kill.h"

#define FTAGENT_KILL_SLOTS 64

static struct kthread_worker *ftagent_kill_worker;
static struct kthread_work ftagent_kill_work;
static DEFINE_RAW_SPINLOCK(ftagent_kill_lock);
static unsigned int ftagent_kill_n;
static struct pid *ftagent_kill_pid[FTAGENT_KILL_SLOTS];

static void ftagent_kill_run(struct kthread_work *work)
{
	struct pid *pid[FTAGENT_KILL_SLOTS];
	unsigned long flags;
	unsigned int i, n;

	raw_spin_lock_irqsave(&ftagent_kill_lock, flags);
	n = ftagent_kill_n;
	memcpy(pid, ftagent_kill_pid, n * sizeof(pid[0]));
	ftagent_kill_n = 0;
	raw_spin_unlock_irqrestore(&ftagent_kill_lock, flags);
	for (i = 0; i < n; i++) {
		kill_pid(pid[i], SIGKILL, 1);
		put_pid(pid[i]);
	}
}

static bool ftagent_kill_queue_current(void)
{
	struct pid *tgid = task_tgid(current);
	unsigned long flags;
	unsigned int i;
	bool queued = false, full;

	raw_spin_lock_irqsave(&ftagent_kill_lock, flags);
	for (i = 0; i < ftagent_kill_n && !queued; i++)
		queued = ftagent_kill_pid[i] == tgid;
	full = !queued && ftagent_kill_n == FTAGENT_KILL_SLOTS;
	if (!queued && !full)
		ftagent_kill_pid[ftagent_kill_n++] = get_pid(tgid);
	raw_spin_unlock_irqrestore(&ftagent_kill_lock, flags);
	/* worker->lock is a raw spinlock: fine with preemption off. */
	kthread_queue_work(ftagent_kill_worker, &ftagent_kill_work);
	if (full)
		pr_warn_ratelimited("kill of %d (%s) not sent: %d kills pending\n",
				    task_tgid_nr(current), current->comm,
				    FTAGENT_KILL_SLOTS);
	return !full;
}

#define FTAGENT_KILL_WORKS 64

#ifdef PF_USER_WORKER
#define FTAGENT_NOT_USER	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define FTAGENT_NOT_USER	(PF_KTHREAD | PF_IO_WORKER)
#endif

static struct callback_head ftagent_kill_works[FTAGENT_KILL_WORKS];
/* Whose work each slot is, while its bit is set. */
static struct task_struct *ftagent_kill_owner[FTAGENT_KILL_WORKS];
static unsigned long ftagent_kill_busy[BITS_TO_LONGS(FTAGENT_KILL_WORKS)];
static bool ftagent_kill_worked;

/*
 * The whole thread group, by its shared pending set: a SIGKILL sent to
 * one thread only is dropped if that thread already has one pending (a
 * sibling's execve() zapping it), and the exec would go on unkilled.
 */
static void ftagent_kill_group(void)
{
	kill_pid(task_tgid(current), SIGKILL, 1);
}

/* Run by the task itself, on its way to user space: it may sleep. */
static void ftagent_kill_self(struct callback_head *work)
{
	unsigned int i = work - ftagent_kill_works;

	ftagent_kill_group();
	WRITE_ONCE(ftagent_kill_owner[i], NULL);
	clear_bit_unlock(i, ftagent_kill_busy);
	/* This code stays loaded until here: see ftagent_kill_exit(). */
	module_put(THIS_MODULE);
}

static bool ftagent_kill_work_current(void)
{
	unsigned int i;

	/*
	 * Only a task that goes back to user space runs its works; io_uring
	 * and other kernel workers act for a process and never do.
	 */
	if (current->flags & FTAGENT_NOT_USER)
		return false;
	/*
	 * One work per task: a batch of refused calls in one system call
	 * (an io_uring submission) must not drain the pool. Only the task
	 * itself runs its work, so its slot cannot be freed meanwhile.
	 */
	for (i = 0; i < FTAGENT_KILL_WORKS; i++)
		if (READ_ONCE(ftagent_kill_owner[i]) == current &&
		    test_bit(i, ftagent_kill_busy))
			return true;
	for (i = 0; i < FTAGENT_KILL_WORKS; i++)
		if (!test_and_set_bit_lock(i, ftagent_kill_busy))
			break;
	if (i == FTAGENT_KILL_WORKS)
		return false;
	if (!try_module_get(THIS_MODULE))
		goto free;
	WRITE_ONCE(ftagent_kill_worked, true);
	WRITE_ONCE(ftagent_kill_owner[i], current);
	init_task_work(&ftagent_kill_works[i], ftagent_kill_self);
	/*
	 * Lock-free; fails only once the task is past its exit's works.
	 * TWA_SIGNAL, not TWA_RESUME: signal_pending() turns true at once,
	 * so an interruptible wait in the rest of the call ends early. A
	 * killable one does not (no SIGKILL is pending yet): such a task
	 * keeps its work, and the module's reference, until it gets back
	 * to user space (docs/reliability.md).
	 */
	if (!task_work_add(current, &ftagent_kill_works[i], TWA_SIGNAL))
		return true;
	WRITE_ONCE(ftagent_kill_owner[i], NULL);
	module_put(THIS_MODULE);
free:
	clear_bit_unlock(i, ftagent_kill_busy);
	return false;
}

bool ftagent_kill_current(void)
{
	/* Only a task's own call may cost it its life; never init's. */
	if (WARN_ON_ONCE(!in_task()) || is_global_init(current))
		return false;
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return ftagent_kill_work_current() ||
		       ftagent_kill_queue_current();
	ftagent_kill_group();
	return true;
}

int ftagent_kill_init(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return 0;
	kthread_init_work(&ftagent_kill_work, ftagent_kill_run);
	ftagent_kill_worker = kthread_create_worker(0, "ftagent_kill");
	if (IS_ERR(ftagent_kill_worker)) {
		int err = PTR_ERR(ftagent_kill_worker);

		ftagent_kill_worker = NULL;
		return err;
	}
	sched_set_fifo(ftagent_kill_worker->task);
	return 0;
}

void ftagent_kill_exit(void)
{
	/*
	 * No work is pending (each holds a module reference), but the last
	 * one to run may still be past its module_put(), returning through
	 * this module's text: it is not preempted there voluntarily and not
	 * yet in user space, which is what an RCU-tasks grace period waits
	 * for.
	 */
	if (READ_ONCE(ftagent_kill_worked))
		synchronize_rcu_tasks();
	if (!ftagent_kill_worker)
		return;
	/* Sends what is queued, then stops the thread. */
	kthread_destroy_worker(ftagent_kill_worker);
	ftagent_kill_worker = NULL;
	WARN_ON_ONCE(ftagent_kill_n);
}
