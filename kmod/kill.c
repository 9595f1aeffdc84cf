// SPDX-License-Identifier: GPL-2.0
/*
 * A budget's kill action. The hooks that decide it run with preemption
 * off, and send_sig() takes the target's siglock: a spinlock that sleeps
 * on PREEMPT_RT, where taking it there is a bug ("scheduling while
 * atomic" once it is contended). On RT the kill is handed to an irq_work
 * instead. RT runs irq_work (unless marked hard) in a per-CPU thread of
 * real-time priority, which runs as soon as the hook's CPU leaves its
 * preempt-off section: an ordinary task is killed before it returns to
 * user mode; a real-time task of higher priority than that thread runs
 * on until it yields (docs/policy.md). Everywhere else send_sig() runs
 * at once, as before.
 *
 * Per CPU, a few slots of tasks to kill, each holding a reference; a
 * task already queued is not queued twice (a task refused again before
 * its kill lands). The slots are touched with interrupts off, on their
 * own CPU only: by the hook, and by the irq_work, which runs on the CPU
 * that queued it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "kill.h"

#define FTAGENT_KILL_SLOTS 8

struct ftagent_kill_queue {
	struct irq_work work;
	unsigned int n;
	struct task_struct *task[FTAGENT_KILL_SLOTS];
};

static DEFINE_PER_CPU(struct ftagent_kill_queue, ftagent_kill_queue);

static void ftagent_kill_run(struct irq_work *work)
{
	struct ftagent_kill_queue *q =
		container_of(work, struct ftagent_kill_queue, work);
	struct task_struct *task[FTAGENT_KILL_SLOTS];
	unsigned long flags;
	unsigned int i, n;

	local_irq_save(flags);
	n = q->n;
	memcpy(task, q->task, n * sizeof(task[0]));
	q->n = 0;
	local_irq_restore(flags);
	for (i = 0; i < n; i++) {
		send_sig(SIGKILL, task[i], 1);
		put_task_struct(task[i]);
	}
}

static void ftagent_kill_queue_current(void)
{
	struct ftagent_kill_queue *q;
	unsigned long flags;
	unsigned int i;
	bool queued = false, full;

	local_irq_save(flags);
	q = this_cpu_ptr(&ftagent_kill_queue);
	for (i = 0; i < q->n; i++)
		queued |= q->task[i] == current;
	full = !queued && q->n == FTAGENT_KILL_SLOTS;
	if (!queued && !full) {
		get_task_struct(current);
		q->task[q->n++] = current;
	}
	irq_work_queue(&q->work);
	local_irq_restore(flags);
	/*
	 * Every slot holds a task not yet killed, all on this CPU: only
	 * tasks of higher priority than the irq_work thread keep it from
	 * running. The call is refused all the same; the next one tries
	 * again.
	 */
	if (full)
		pr_warn_ratelimited("budget kill of %d (%s) deferred: %d kills pending on CPU %d\n",
				    task_pid_nr(current), current->comm,
				    FTAGENT_KILL_SLOTS, raw_smp_processor_id());
}

void ftagent_kill_current(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		ftagent_kill_queue_current();
	else
		send_sig(SIGKILL, current, 1);
}

void ftagent_kill_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&ftagent_kill_queue, cpu)->work,
			      ftagent_kill_run);
}

void ftagent_kill_exit(void)
{
	int cpu;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	for_each_possible_cpu(cpu) {
		struct ftagent_kill_queue *q = per_cpu_ptr(&ftagent_kill_queue,
							   cpu);

		/* Queued work runs on its CPU; wait for it to finish. */
		irq_work_sync(&q->work);
		WARN_ON_ONCE(q->n);
	}
}
