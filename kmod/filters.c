// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side filters.
 *
 * The toggles are one word the hooks read. The filter set (names and
 * prefixes) is replaced whole under RCU. Excluded processes are kept as
 * a set of thread-group ids, because the hot path can afford a hash
 * probe but not a walk of names and ancestors: a process joins the set
 * when one of its threads takes an excluded name (exec and prctl both
 * go through the task_rename tracepoint) or when an excluded process
 * forks it, and leaves it when it exits. Membership is sticky until
 * exit, so a child that execs something else stays excluded.
 *
 * The set is an open-addressing table of tgids with tombstones, written
 * under a spinlock and read locklessly. The lock is taken only in process
 * context (the fork, rename and exit points, SET_FILTERS), never from an
 * interrupt, so it never disables interrupts: a compaction (bounded, 4096
 * slots) or a rebuild (over every task) keeps preemption off only. When tombstones pile up, the live
 * entries are copied into the spare table, which is published with RCU;
 * the old one becomes the spare after a grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/in.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "filters.h"

#define FTAGENT_EXCL_BITS	12
#define FTAGENT_EXCL_SLOTS	BIT(FTAGENT_EXCL_BITS)
#define FTAGENT_EXCL_LIVE_MAX	(FTAGENT_EXCL_SLOTS / 4)
#define FTAGENT_EXCL_USED_MAX	(FTAGENT_EXCL_SLOTS * 3 / 4)
#define FTAGENT_EXCL_TOMB	U32_MAX		/* 0 is an empty slot */
#define FTAGENT_EXCL_BYTES	struct_size((struct ftagent_excl_table *)NULL, \
					    slot, FTAGENT_EXCL_SLOTS)

u32 ftagent_filter_flags = FTAGENT_TRACK_ALL;
DEFINE_STATIC_KEY_FALSE(ftagent_exclusions_on);

static struct ftagent_filters __rcu *ftagent_filters_cur;
struct ftagent_excl_table __rcu *ftagent_excl;
static struct ftagent_excl_table *ftagent_excl_spare;
static bool ftagent_excl_spare_ready;	/* no reader can still see it */
static struct rcu_head ftagent_excl_rcu;
static DEFINE_SPINLOCK(ftagent_excl_lock);
static u64 ftagent_excl_missed;

/*
 * Debug figures, read-only module parameters: the longest time the lock
 * was held, and the longest it was held with interrupts off, in ns since
 * load (from just after taking it to just before dropping it). Written
 * under the lock.
 */
static unsigned long ftagent_excl_held_max_ns, ftagent_excl_irqsoff_max_ns;
module_param_named(debug_excl_held_max_ns, ftagent_excl_held_max_ns, ulong,
		   0444);
MODULE_PARM_DESC(debug_excl_held_max_ns,
		 "longest hold of the exclusion lock, ns (debug)");
module_param_named(debug_excl_irqsoff_max_ns, ftagent_excl_irqsoff_max_ns,
		   ulong, 0444);
MODULE_PARM_DESC(debug_excl_irqsoff_max_ns,
		 "longest hold of the exclusion lock with interrupts off, ns (debug)");

/* Caller holds the lock, since @t0 (local_clock()). */
static void ftagent_excl_note(u64 t0)
{
	unsigned long d = local_clock() - t0;

	if (d > ftagent_excl_held_max_ns)
		ftagent_excl_held_max_ns = d;
	if (irqs_disabled() && d > ftagent_excl_irqsoff_max_ns)
		ftagent_excl_irqsoff_max_ns = d;
}

static u32 ftagent_excl_hash(u32 tgid)
{
	return hash_32(tgid, FTAGENT_EXCL_BITS);
}

static bool ftagent_excl_find(const struct ftagent_excl_table *t, u32 tgid)
{
	u32 i = ftagent_excl_hash(tgid), n, v;

	/* 0 (the idle task, init's parent) marks empty slots: never in. */
	if (!tgid)
		return false;
	for (n = 0; n < FTAGENT_EXCL_SLOTS; n++) {
		v = READ_ONCE(t->slot[i]);
		if (!v)
			return false;
		if (v == tgid)
			return true;
		i = (i + 1) & (FTAGENT_EXCL_SLOTS - 1);
	}
	return false;
}

bool ftagent_tgid_excluded_slow(u32 tgid)
{
	return ftagent_excl_find(rcu_dereference_sched(ftagent_excl), tgid);
}

/* Caller holds the lock; @t has a free slot (checked by the caller). */
static void ftagent_excl_place(struct ftagent_excl_table *t, u32 tgid)
{
	u32 i = ftagent_excl_hash(tgid), v;

	for (;;) {
		v = t->slot[i];
		if (!v || v == FTAGENT_EXCL_TOMB)
			break;
		i = (i + 1) & (FTAGENT_EXCL_SLOTS - 1);
	}
	if (!v)
		t->used++;
	t->live++;
	WRITE_ONCE(t->slot[i], tgid);
}

static void ftagent_excl_spare_done(struct rcu_head *head)
{
	WRITE_ONCE(ftagent_excl_spare_ready, true);
}

/* Caller holds the lock: publish @next, retire the current table. */
static void ftagent_excl_publish(struct ftagent_excl_table *next)
{
	struct ftagent_excl_table *old;

	old = rcu_replace_pointer(ftagent_excl, next,
				  lockdep_is_held(&ftagent_excl_lock));
	ftagent_excl_spare = old;
	ftagent_excl_spare_ready = false;
	call_rcu(&ftagent_excl_rcu, ftagent_excl_spare_done);
}

/* Caller holds the lock: copy the live entries into the spare. */
static struct ftagent_excl_table *ftagent_excl_compact(void)
{
	struct ftagent_excl_table *t, *s = ftagent_excl_spare;
	unsigned int i;

	if (!READ_ONCE(ftagent_excl_spare_ready))
		return NULL;	/* the last compaction is not a grace period old */
	t = rcu_dereference_protected(ftagent_excl,
				      lockdep_is_held(&ftagent_excl_lock));
	memset(s, 0, FTAGENT_EXCL_BYTES);
	for (i = 0; i < FTAGENT_EXCL_SLOTS; i++)
		if (t->slot[i] && t->slot[i] != FTAGENT_EXCL_TOMB)
			ftagent_excl_place(s, t->slot[i]);
	ftagent_excl_publish(s);
	return s;
}

/* Caller holds the lock. */
static void ftagent_excl_add_locked(u32 tgid)
{
	struct ftagent_excl_table *t;

	t = rcu_dereference_protected(ftagent_excl,
				      lockdep_is_held(&ftagent_excl_lock));
	if (ftagent_excl_find(t, tgid))
		return;
	if (t->live >= FTAGENT_EXCL_LIVE_MAX)
		goto missed;
	if (t->used >= FTAGENT_EXCL_USED_MAX) {
		t = ftagent_excl_compact();
		if (!t)
			goto missed;
	}
	ftagent_excl_place(t, tgid);
	return;
missed:
	ftagent_excl_missed++;
}

static void ftagent_excl_add(u32 tgid)
{
	u64 t0;

	spin_lock(&ftagent_excl_lock);
	t0 = local_clock();
	ftagent_excl_add_locked(tgid);
	ftagent_excl_note(t0);
	spin_unlock(&ftagent_excl_lock);
}

/*
 * The last thread of an excluded process leaves the set in acct_process(),
 * but closes its files after that (exit_files()), and those closes must
 * not be reported. It is kept here, by task pointer, which cannot be
 * reused, until its task_struct is freed (sched_process_free).
 */
#define FTAGENT_DYING_SLOTS	64

static struct task_struct *ftagent_dying[FTAGENT_DYING_SLOTS];

bool ftagent_exiting_excluded(struct task_struct *t)
{
	int i;

	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		if (READ_ONCE(ftagent_dying[i]) == t)
			return true;
	return false;
}

void ftagent_exclude_free(struct task_struct *t)
{
	int i;

	if (!(t->flags & PF_EXITING))
		return;
	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		if (READ_ONCE(ftagent_dying[i]) == t)
			WRITE_ONCE(ftagent_dying[i], NULL);
}

static void ftagent_excl_remove(u32 tgid);

void ftagent_exclude_exit(struct task_struct *t, bool excluded)
{
	int i;

	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	for (i = 0; excluded && i < FTAGENT_DYING_SLOTS; i++)
		if (!cmpxchg(&ftagent_dying[i], NULL, t))
			break;
	if (excluded && i == FTAGENT_DYING_SLOTS)
		ftagent_excl_missed++;	/* its closes at exit will show */
	ftagent_excl_remove(t->tgid);
}

static void ftagent_excl_remove(u32 tgid)
{
	struct ftagent_excl_table *t;
	u32 i, n, v;
	u64 t0;

	spin_lock(&ftagent_excl_lock);
	t0 = local_clock();
	t = rcu_dereference_protected(ftagent_excl,
				      lockdep_is_held(&ftagent_excl_lock));
	i = ftagent_excl_hash(tgid);
	for (n = 0; n < FTAGENT_EXCL_SLOTS; n++) {
		v = t->slot[i];
		if (!v)
			break;
		if (v == tgid) {
			/* A tombstone keeps the probe chains of others whole. */
			WRITE_ONCE(t->slot[i], FTAGENT_EXCL_TOMB);
			t->live--;
			break;
		}
		i = (i + 1) & (FTAGENT_EXCL_SLOTS - 1);
	}
	ftagent_excl_note(t0);
	spin_unlock(&ftagent_excl_lock);
}

/* A comm as the kernel keeps it (15 bytes at most) against a name. */
static bool ftagent_comm_is(const char *comm, const char *name)
{
	int i;

	for (i = 0; i < FTAGENT_COMM_LEN - 1; i++) {
		if (comm[i] != name[i])
			return false;
		if (!name[i])
			return true;
	}
	return true;
}

static bool ftagent_comm_listed(const struct ftagent_filters *f,
				const char *comm)
{
	unsigned int i;

	for (i = 0; i < f->n_comms; i++)
		if (ftagent_comm_is(comm, f->comms[i]))
			return true;
	return false;
}

void ftagent_exclude_fork(struct task_struct *parent,
			  struct task_struct *child)
{
	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	if (ftagent_tgid_excluded_slow(parent->tgid))
		ftagent_excl_add(child->tgid);
}

void ftagent_exclude_rename(struct task_struct *task, const char *comm)
{
	const struct ftagent_filters *f;
	bool listed;

	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	rcu_read_lock_sched_notrace();
	f = rcu_dereference_sched(ftagent_filters_cur);
	listed = f && ftagent_comm_listed(f, comm);
	rcu_read_unlock_sched_notrace();
	if (listed)
		ftagent_excl_add(task->tgid);
}

bool ftagent_path_excluded(const char *path, size_t len)
{
	const struct ftagent_filters *f;
	bool excluded = false;
	unsigned int i;

	rcu_read_lock_sched_notrace();
	f = rcu_dereference_sched(ftagent_filters_cur);
	for (i = 0; f && i < f->n_paths && !excluded; i++)
		excluded = f->path_len[i] <= len &&
			   !memcmp(path, f->paths[i], f->path_len[i]);
	rcu_read_unlock_sched_notrace();
	return excluded;
}

/*
 * Derive the excluded set from scratch for @f into the spare table:
 * a process is in if a thread's name is listed or its parent is in.
 * for_each_process() goes in fork order, so parents come first (a
 * reparented orphan may be visited before its new parent, and is then
 * judged by its own name only). Caller holds the lock.
 */
static void ftagent_excl_rebuild(const struct ftagent_filters *f)
{
	struct ftagent_excl_table *s = ftagent_excl_spare;
	struct task_struct *p, *t;
	bool in;

	memset(s, 0, FTAGENT_EXCL_BYTES);
	rcu_read_lock();
	for_each_process(p) {
		/*
		 * A process past its exit point would never leave the set,
		 * and its tgid would exclude whoever gets it next.
		 */
		if ((p->flags & PF_EXITING) || p->exit_state ||
		    !atomic_read(&p->signal->live))
			continue;
		in = ftagent_excl_find(s, rcu_dereference(p->real_parent)->tgid);
		for_each_thread(p, t)
			if (!in)
				in = ftagent_comm_listed(f, t->comm);
		if (!in)
			continue;
		if (s->live < FTAGENT_EXCL_LIVE_MAX)
			ftagent_excl_place(s, p->tgid);
		else
			ftagent_excl_missed++;
	}
	rcu_read_unlock();
	ftagent_excl_publish(s);
}

void ftagent_filters_free(struct ftagent_filters *f)
{
	if (f)
		kfree(f->path_blob);
	kfree(f);
}

static void ftagent_filters_free_rcu(struct rcu_head *head)
{
	ftagent_filters_free(container_of(head, struct ftagent_filters, rcu));
}

void ftagent_filters_replace(struct ftagent_filters *next)
{
	struct ftagent_filters *old;
	u64 t0;

	if (next->n_comms)
		static_branch_enable(&ftagent_exclusions_on);
	for (;;) {
		/* The spare table must be out of every reader's sight. */
		rcu_barrier();
		spin_lock(&ftagent_excl_lock);
		t0 = local_clock();
		if (ftagent_excl_spare_ready)
			break;
		/* A compaction raced with us: wait for its grace period. */
		spin_unlock(&ftagent_excl_lock);
	}
	old = rcu_replace_pointer(ftagent_filters_cur, next, true);
	ftagent_excl_rebuild(next);
	WRITE_ONCE(ftagent_filter_flags, next->flags);
	ftagent_excl_note(t0);
	spin_unlock(&ftagent_excl_lock);
	if (!next->n_comms)
		static_branch_disable(&ftagent_exclusions_on);
	if (old)
		call_rcu(&old->rcu, ftagent_filters_free_rcu);
}

/* Caller holds the config lock, under which alone the filters change. */
struct ftagent_filters *ftagent_filters_copy(void)
{
	const struct ftagent_filters *cur;
	struct ftagent_filters *f;
	size_t blob = 0;
	unsigned int i;
	char *p;

	cur = rcu_dereference_protected(ftagent_filters_cur, true);
	f = kmemdup(cur, sizeof(*cur), GFP_KERNEL);
	if (!f)
		return NULL;
	for (i = 0; i < cur->n_paths; i++)
		blob += cur->path_len[i] + 1;
	f->path_blob = blob ? kmalloc(blob, GFP_KERNEL) : NULL;
	if (blob && !f->path_blob) {
		kfree(f);
		return NULL;
	}
	for (i = 0, p = f->path_blob; i < cur->n_paths; i++) {
		memcpy(p, cur->paths[i], cur->path_len[i] + 1);
		f->paths[i] = p;
		p += cur->path_len[i] + 1;
	}
	return f;
}

unsigned int ftagent_excluded_count(void)
{
	const struct ftagent_excl_table *t;
	unsigned int n;

	rcu_read_lock_sched();
	t = rcu_dereference_sched(ftagent_excl);
	n = static_branch_unlikely(&ftagent_exclusions_on) && t ?
	    READ_ONCE(t->live) : 0;
	rcu_read_unlock_sched();
	return n;
}

u64 ftagent_exclude_missed(void)
{
	return READ_ONCE(ftagent_excl_missed);
}

size_t ftagent_filters_memory(void)
{
	return 2 * FTAGENT_EXCL_BYTES +
	       sizeof(struct ftagent_filters);
}

int ftagent_filters_init(void)
{
	struct ftagent_excl_table *a, *b;
	struct ftagent_filters *f;

	a = kvzalloc(FTAGENT_EXCL_BYTES, GFP_KERNEL);
	b = kvzalloc(FTAGENT_EXCL_BYTES, GFP_KERNEL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!a || !b || !f) {
		kvfree(a);
		kvfree(b);
		kfree(f);
		return -ENOMEM;
	}
	/* Default: everything tracked, the daemon's own work left alone. */
	f->flags = FTAGENT_TRACK_ALL;
	f->n_comms = 1;
	strscpy(f->comms[0], "ftagentd", sizeof(f->comms[0]));
	RCU_INIT_POINTER(ftagent_excl, a);
	ftagent_excl_spare = b;
	ftagent_excl_spare_ready = true;
	ftagent_filters_replace(f);
	return 0;
}

/* Every hook and tracepoint that reads the filters is gone. */
void ftagent_filters_exit(void)
{
	int i;

	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		WRITE_ONCE(ftagent_dying[i], NULL);
	static_branch_disable(&ftagent_exclusions_on);
	rcu_barrier();	/* the spare's and the old filters' callbacks */
	kvfree(rcu_dereference_protected(ftagent_excl, true));
	kvfree(ftagent_excl_spare);
	ftagent_filters_free(rcu_dereference_protected(ftagent_filters_cur,
						       true));
}
