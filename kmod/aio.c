// SPDX-License-Identifier: GPL-2.0
/*
 * Linux AIO reads and writes (io_submit), counted and charged when they
 * complete.
 *
 * io_submit() runs no traced read or write: aio_read() and aio_write()
 * call the file's read_iter or write_iter themselves, and every such
 * request ends in aio_complete_rw(kiocb, res), res being the bytes it
 * moved or -errno. Most complete at once, in the submitting thread
 * (buffered files, pipes, sockets); direct I/O completes later, from the
 * block layer's completion: a hard or soft interrupt, or a kernel
 * worker, where current is whoever happens to run.
 *
 * So the request is noted when it is prepared (aio_prep_rw(), in the
 * submitting thread, for every read and write), in a table by its
 * address: its process and thread by number, and the byte budgets it
 * counts against, matched there and then, in the submitter's own
 * context, where its principal (name, credentials, cgroup, executable)
 * can be read safely. aio_complete_rw() takes the note, counts the
 * result on the request's file (still held by the request) for the
 * noted process, as a read, or as a write when the request is one
 * (IOCB_WRITE), and adds it to the noted budgets. Neither needs the
 * submitter to be alive, nor anything but raw locks: a completion in a
 * hard interrupt is charged where it runs.
 *
 * A request that fails after aio_prep_rw() (a bad iovec, a file not open
 * for it, rw_verify_area() refusing it, the gate among others) is freed
 * without completing: its note stays until its address is noted again,
 * or until its set is full, which gives up its notes in turn. Notes hold
 * no reference: a stale one costs only its slot. A completion that finds
 * no note (submitted before the load, or its note given up) is counted as
 * lost (FTAGENT_LOSS_IOURING, the cause shared by the asynchronous
 * requests), and so is the charge of one whose budget set was replaced
 * meanwhile, or that more budgets match than a note holds (the first
 * FTAGENT_AIO_BUDGETS are charged).
 *
 * IOCB_CMD_FSYNC, FDSYNC and POLL move no bytes and are not counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "account.h"
#include "aio.h"
#include "budget.h"
#include "compat/ftrace.h"
#include "counters.h"
#include "hooks.h"
#include "memory.h"
#include "symbols.h"

#ifdef CONFIG_AIO

/* The byte budgets a note holds; more are counted as lost. */
#define FTAGENT_AIO_BUDGETS	5

/* One request in flight: 40 bytes. */
struct ftagent_aio_note {
	const void *kiocb;	/* NULL: a free slot */
	pid_t tgid, pid;	/* the submitter, in the initial namespace */
	u64 leader_start;	/* its process's, to tell a reused tgid */
	u32 budget_gen;		/* the budget set's generation, low half */
	u8 n_budgets;		/* FTAGENT_AIO_BUDGETS + 1: more matched */
	u16 budget[FTAGENT_AIO_BUDGETS];
};

/*
 * 1,024 sets of 8: 8,192 requests in flight before notes are given up,
 * in 320 KiB, and a lock and a turn per set beside them. Completions run
 * in interrupts: the lock is a raw one, taken with interrupts off.
 */
#define FTAGENT_AIO_SET_BITS	10
#define FTAGENT_AIO_WAYS	8

struct ftagent_aio_set {
	struct ftagent_aio_note note[FTAGENT_AIO_WAYS];
};

struct ftagent_aio_lock {
	raw_spinlock_t lock;
	u8 turn;		/* the note a full set gives up next */
};

static struct ftagent_aio_set *ftagent_aio_table;
static struct ftagent_aio_lock *ftagent_aio_locks;
static_assert(sizeof(struct ftagent_aio_note) == 40);

/*
 * A count from a completion in an interrupt. The counter tables take
 * one writer at a time per CPU, in task context with preemption off (an
 * interrupt could cut into a read-modify-write or a slot being claimed),
 * so such counts are queued, from a fixed pool, and a kernel worker adds
 * them. Budgets are charged where the completion runs: their locks are
 * raw and taken with interrupts off.
 */
struct ftagent_aio_count {
	struct llist_node node;
	struct ftagent_key key;
	int res;		/* at most MAX_RW_COUNT bytes, or -errno */
	u8 dir;
	u64 leader_start;	/* checked again by the worker */
};

/* 1,024 of 56 bytes: 56 KiB (64 KiB from kmalloc). */
#define FTAGENT_AIO_POOL	1024
static_assert(sizeof(struct ftagent_aio_count) == 56);

static struct ftagent_aio_count *ftagent_aio_pool;
/* Taken from in interrupts, one taker at a time (llist_del_first()). */
static LLIST_HEAD(ftagent_aio_free);
static DEFINE_RAW_SPINLOCK(ftagent_aio_free_lock);
static LLIST_HEAD(ftagent_aio_queued);

static void ftagent_aio_work_fn(struct work_struct *work);
static DECLARE_WORK(ftagent_aio_work, ftagent_aio_work_fn);

static u32 notrace ftagent_aio_hash(const void *kiocb)
{
	return hash_ptr(kiocb, FTAGENT_AIO_SET_BITS);
}

/* File @note in its set: in a free slot, or in turn over another. */
static void notrace ftagent_aio_file(const struct ftagent_aio_note *note)
{
	u32 h = ftagent_aio_hash(note->kiocb);
	struct ftagent_aio_set *set = &ftagent_aio_table[h];
	struct ftagent_aio_lock *l = &ftagent_aio_locks[h];
	struct ftagent_aio_note *slot = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&l->lock, flags);
	/* A note left at this address by a request that never completed. */
	for (i = 0; i < FTAGENT_AIO_WAYS && !slot; i++)
		if (set->note[i].kiocb == note->kiocb)
			slot = &set->note[i];
	for (i = 0; i < FTAGENT_AIO_WAYS && !slot; i++)
		if (!set->note[i].kiocb)
			slot = &set->note[i];
	if (!slot) {
		/* Full: a note is given up, each in turn. */
		slot = &set->note[l->turn];
		l->turn = (l->turn + 1) % FTAGENT_AIO_WAYS;
	}
	*slot = *note;
	raw_spin_unlock_irqrestore(&l->lock, flags);
}

/*
 * aio_prep_rw(req, iocb), in the submitting thread: @iocb is the
 * kernel's copy of the caller's, and the request already holds its file.
 */
static void notrace ftagent_aio_prep_hook(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	struct kiocb *req = (struct kiocb *)args->di;
	const struct iocb *iocb = (const struct iocb *)args->si;
	struct ftagent_aio_note note = {
		.kiocb = req,
		.tgid = current->tgid,
		.pid = current->pid,
		.leader_start = READ_ONCE(current->group_leader)->start_time,
	};
	struct ftagent_key key __uninitialized;
	struct file *file;
	unsigned int dir;

	switch (READ_ONCE(iocb->aio_lio_opcode)) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		dir = FTAGENT_DIR_IN;
		break;
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PWRITEV:
		dir = FTAGENT_DIR_OUT;
		break;
	default:
		return;
	}
	preempt_disable_notrace();
	file = READ_ONCE(req->ki_filp);
	if (static_branch_unlikely(&ftagent_budgets_on) && file &&
	    ftagent_account_key(file, note.tgid, &key))
		note.n_budgets = ftagent_budget_match_bytes(key.kind,
							    key.family, dir,
							    &note.budget_gen,
							    note.budget,
							    FTAGENT_AIO_BUDGETS);
	ftagent_aio_file(&note);
	preempt_enable_notrace();
}

/* Take the note of @kiocb into @who; false if there is none. */
static bool notrace ftagent_aio_take(const void *kiocb,
				     struct ftagent_aio_note *who)
{
	u32 h = ftagent_aio_hash(kiocb);
	struct ftagent_aio_set *set = &ftagent_aio_table[h];
	struct ftagent_aio_lock *l = &ftagent_aio_locks[h];
	unsigned long flags;
	bool found = false;
	int i;

	raw_spin_lock_irqsave(&l->lock, flags);
	for (i = 0; i < FTAGENT_AIO_WAYS; i++) {
		struct ftagent_aio_note *n = &set->note[i];

		if (n->kiocb == kiocb) {
			*who = *n;
			n->kiocb = NULL;
			found = true;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return found;
}

/*
 * Whether the noted process's number now names another process: its
 * leader started at another time. (A leader that exec'd from another
 * thread took the old leader's start time.) Any context.
 */
static bool notrace ftagent_aio_tgid_reused(pid_t tgid, u64 leader_start)
{
	struct task_struct *leader;
	bool reused;

	rcu_read_lock();
	leader = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID);
	reused = leader && leader->start_time != leader_start;
	rcu_read_unlock();
	return reused;
}

/*
 * Queue a count for the worker: false if the pool is empty. The worker
 * checks the number again when it adds the count: the process may be
 * reaped and its number given to another in between.
 */
static bool notrace ftagent_aio_defer(const struct ftagent_key *key, u8 dir,
				      long res,
				      const struct ftagent_aio_note *who)
{
	struct ftagent_aio_count *q;
	struct llist_node *node;
	unsigned long flags;

	raw_spin_lock_irqsave(&ftagent_aio_free_lock, flags);
	node = llist_del_first(&ftagent_aio_free);
	raw_spin_unlock_irqrestore(&ftagent_aio_free_lock, flags);
	if (!node)
		return false;
	q = llist_entry(node, struct ftagent_aio_count, node);
	q->key = *key;
	q->res = res;
	q->dir = dir;
	q->leader_start = who->leader_start;
	llist_add(&q->node, &ftagent_aio_queued);
	/*
	 * High priority: a worker starved by busy tasks would let the pool
	 * run dry, and each count past it is lost (counted).
	 */
	queue_work(system_highpri_wq, &ftagent_aio_work);
	return true;
}

/* The counts queued in interrupts, added in task context. */
static void ftagent_aio_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&ftagent_aio_queued);
	struct ftagent_aio_count *q, *next;
	unsigned long flags;

	list = llist_reverse_order(list);
	llist_for_each_entry_safe(q, next, list, node) {
		if (ftagent_aio_tgid_reused(q->key.tgid, q->leader_start)) {
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
		} else {
			preempt_disable();
			ftagent_account_key_count(&q->key, q->dir, q->res,
						  false);
			preempt_enable();
		}
		raw_spin_lock_irqsave(&ftagent_aio_free_lock, flags);
		llist_add(&q->node, &ftagent_aio_free);
		raw_spin_unlock_irqrestore(&ftagent_aio_free_lock, flags);
		cond_resched();
	}
}

/*
 * aio_complete_rw(kiocb, res): any context. The request still holds its
 * file; its IOCB_WRITE says which way the bytes went.
 */
static void notrace ftagent_aio_complete_hook(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	struct kiocb *kiocb = (struct kiocb *)args->di;
	long res = (long)args->si;
	struct ftagent_key key __uninitialized;
	struct ftagent_aio_note who;
	struct file *file;
	unsigned int n;
	int wanted;
	u8 dir;

	preempt_disable_notrace();
	if (!ftagent_aio_take(kiocb, &who)) {
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
		goto out;
	}
	file = READ_ONCE(kiocb->ki_filp);
	if (!file || !ftagent_account_key(file, who.tgid, &key))
		goto out;
	dir = READ_ONCE(kiocb->ki_flags) & IOCB_WRITE ? FTAGENT_DIR_OUT :
							 FTAGENT_DIR_IN;
	/* Left out by the filters: neither counted nor charged, nor lost. */
	wanted = ftagent_account_key_wanted(&key, dir);
	if (!wanted)
		goto out;
	if (wanted > 0) {
		if (ftagent_aio_tgid_reused(who.tgid, who.leader_start))
			/* Not another process's to count; its budgets pay. */
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
		else if (in_task())
			ftagent_counter_count(&key, dir, res);
		else if (!ftagent_aio_defer(&key, dir, res, &who))
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
	}
	if (res <= 0 || !static_branch_unlikely(&ftagent_budgets_on))
		goto out;
	n = min_t(unsigned int, who.n_budgets, FTAGENT_AIO_BUDGETS);
	if (!ftagent_budget_charge_matched(who.budget_gen, who.budget, n,
					   key.kind, key.family, dir, res,
					   who.tgid, who.pid) ||
	    who.n_budgets > FTAGENT_AIO_BUDGETS)
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
out:
	preempt_enable_notrace();
}

/*
 * Both functions on one ftrace_ops, whose callback tells them apart by
 * the address it is called from: taking an ops off waits for two
 * RCU-tasks grace periods, a tenth of a second of every unload here.
 * They go on and off together, in one ftrace update: a completion whose
 * request was prepared before they went on finds no note and is not
 * counted, as for a request submitted before the load.
 */
enum { FTAGENT_AIO_PREP, FTAGENT_AIO_COMPLETE, FTAGENT_AIO_FNS };

static const char *const ftagent_aio_symbols[FTAGENT_AIO_FNS] = {
	[FTAGENT_AIO_PREP] = "aio_prep_rw",
	[FTAGENT_AIO_COMPLETE] = "aio_complete_rw",
};

/* Where each function's code is: set before the ops goes on. */
static struct ftagent_code ftagent_aio_code[FTAGENT_AIO_FNS];

static void notrace ftagent_aio_hook(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	if (ftagent_code_has(&ftagent_aio_code[FTAGENT_AIO_PREP], ip))
		ftagent_aio_prep_hook(ip, parent_ip, op, fregs);
	else if (ftagent_code_has(&ftagent_aio_code[FTAGENT_AIO_COMPLETE], ip))
		ftagent_aio_complete_hook(ip, parent_ip, op, fregs);
}

static struct ftrace_ops ftagent_aio_ops = {
	.func = ftagent_aio_hook,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool ftagent_aio_filtered;	/* a filter was set: freed at exit */
static bool ftagent_aio_registered;

/*
 * Take the hooks off. unregister_ftrace_function() waits for running
 * callbacks, so no count is queued after it. False if they stay on for
 * good (ftagent_stuck()).
 */
static bool ftagent_aio_unhook(void)
{
	bool off = true;

	if (ftagent_aio_registered) {
		int err = unregister_ftrace_function(&ftagent_aio_ops);

		if (err) {
			/* Still called: its filter and code places stay. */
			ftagent_stuck("Linux AIO", err);
			ftagent_aio_filtered = false;
			off = false;
		} else {
			ftagent_aio_registered = false;
		}
	}
	/* Nothing queues any more: the last counts are added. */
	if (off)
		flush_work(&ftagent_aio_work);
	return off;
}

/* The tables, once no hook can use them any more. */
static void ftagent_aio_free_tables(bool off)
{
	if (!off || ftagent_ftrace_is_stuck())
		return;
	kvfree(ftagent_aio_table);
	ftagent_aio_table = NULL;
	kvfree(ftagent_aio_locks);
	ftagent_aio_locks = NULL;
	kvfree(ftagent_aio_pool);
	ftagent_aio_pool = NULL;
	init_llist_head(&ftagent_aio_free);
	init_llist_head(&ftagent_aio_queued);
}

void ftagent_aio_exit(void)
{
	bool off = ftagent_aio_unhook();

	/* An ops ftrace would not take off still reads its filter. */
	if (ftagent_aio_filtered && off)
		ftrace_free_filter(&ftagent_aio_ops);
	ftagent_aio_filtered = false;
	ftagent_aio_free_tables(off);
}

/* As io_uring's (iouring.c): DEGRADED, unless strict or out of memory. */
static int ftagent_aio_off(const char *what, const char *name, int err,
			   bool strict)
{
	ftagent_aio_free_tables(ftagent_aio_unhook());
	if (ftagent_setup_fails(err, strict)) {
		pr_err("aio: cannot attach %s %s (%d): %s\n", what, name, err,
		       ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("aio: cannot attach %s %s (%d): running without Linux AIO counting\n",
		what, name, err);
	set_bit(FTAGENT_FEATURE_AIO, &ftagent_degraded);
	return 0;
}

size_t ftagent_aio_memory(void)
{
	return ftagent_kv_bytes(READ_ONCE(ftagent_aio_table),
				sizeof(*ftagent_aio_table)
					<< FTAGENT_AIO_SET_BITS) +
	       ftagent_kv_bytes(READ_ONCE(ftagent_aio_locks),
				sizeof(*ftagent_aio_locks)
					<< FTAGENT_AIO_SET_BITS) +
	       ftagent_kv_bytes(READ_ONCE(ftagent_aio_pool),
				FTAGENT_AIO_POOL * sizeof(*ftagent_aio_pool));
}

int ftagent_aio_init(bool strict)
{
	unsigned int i;
	int err;

	if (ftagent_feature_off(FTAGENT_FEATURE_AIO))
		return 0;	/* a function is missing: said at load */
	/* 320 KiB: kmalloc would round it up to 512. */
	ftagent_aio_table = vzalloc(array_size(1 << FTAGENT_AIO_SET_BITS,
					       sizeof(*ftagent_aio_table)));
	ftagent_aio_locks = kvcalloc(1 << FTAGENT_AIO_SET_BITS,
				     sizeof(*ftagent_aio_locks), GFP_KERNEL);
	ftagent_aio_pool = kvcalloc(FTAGENT_AIO_POOL,
				    sizeof(*ftagent_aio_pool), GFP_KERNEL);
	if (!ftagent_aio_table || !ftagent_aio_locks || !ftagent_aio_pool)
		return ftagent_aio_off("its tables", "of requests", -ENOMEM,
				       strict);
	for (i = 0; i < 1 << FTAGENT_AIO_SET_BITS; i++)
		raw_spin_lock_init(&ftagent_aio_locks[i].lock);
	for (i = 0; i < FTAGENT_AIO_POOL; i++)
		llist_add(&ftagent_aio_pool[i].node, &ftagent_aio_free);
	for (i = 0; i < FTAGENT_AIO_FNS; i++) {
		err = ftagent_symbol_filter_at(&ftagent_aio_ops,
					       ftagent_aio_symbols[i],
					       &ftagent_aio_code[i].start,
					       &ftagent_aio_code[i].size);
		ftagent_aio_filtered = true;
		if (err == -ENOENT) {
			/* Said once (symbols.c); the feature is off. */
			ftagent_aio_free_tables(ftagent_aio_unhook());
			return 0;
		}
		if (err)
			return ftagent_aio_off("function",
					       ftagent_aio_symbols[i], err,
					       strict);
	}
	err = ftagent_ftrace_on(&ftagent_aio_ops);
	if (err)
		return ftagent_aio_off("functions", "of Linux AIO", err,
				       strict);
	ftagent_aio_registered = true;
	return 0;
}

#else /* !CONFIG_AIO: no io_submit() */

int ftagent_aio_init(bool strict)
{
	return 0;
}

void ftagent_aio_exit(void)
{
}

size_t ftagent_aio_memory(void)
{
	return 0;
}

#endif
