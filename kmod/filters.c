// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side filters.
 *
 * The toggles are one word the hooks read. The filter set (names and
 * prefixes) is replaced whole under RCU. Excluded processes are kept as
 * a set of thread-group ids, because the hot path can afford a hash
 * probe but not a walk of names and ancestors. A process is excluded:
 *  - when one of its threads takes an excluded name (exec and prctl both
 *    go through the task_rename tracepoint), a name being the operator's
 *    choice, which any process can take (docs/security.md);
 *  - while it is registered by EXCLUDE_SELF: a CAP_SYS_ADMIN caller asks
 *    for its own process, for as long as the netlink socket that asked
 *    stays open. The registration is a reference to the process's struct
 *    pid (never reused, unlike a number) and a reference to the socket;
 *    the NETLINK_URELEASE notifier (genl_ctl.c), which 6.1 and 6.12 both
 *    call from the socket's release, ends it. This is the daemon's own
 *    exclusion: nothing another process can copy or take over;
 *  - when an excluded process forks it.
 * It leaves the set when it exits. Membership is sticky until exit, so a
 * child that execs something else stays excluded.
 *
 * The set is an open-addressing table of tgids with tombstones, written
 * under a raw spinlock and read locklessly under RCU (sched). Raw, since
 * the fork and rename tracepoints and the exit hook take it with
 * preemption off, where PREEMPT_RT's sleeping spinlock would schedule
 * while atomic when contended; nothing under it allocates or sleeps.
 * The lock is taken only in process context (the fork, rename and exit
 * points, and the changes below), never from an interrupt, and never for
 * work that grows with the number of tasks: one insertion or removal, or a
 * compaction (a fixed 4096 slots) when tombstones pile up, which copies
 * the live entries into the spare table, publishes it with RCU and takes
 * the old one as the spare after a grace period.
 *
 * A change of names or registrations re-derives the set (a rebuild), in
 * process context, under the config lock, and outside the spinlock: a
 * fresh table (the shadow) is filled by a walk of every process in pid
 * order (find_ge_pid() under rcu_read_lock, one process at a time, with
 * cond_resched() between), each judged by itself and its ancestors (a
 * process is in if a thread of it or of an ancestor has a listed name,
 * or it or an ancestor is registered). While the walk runs, every change
 * the fork, rename and exit points make under the lock goes to the shadow
 * as well as to the table in force, and a fork judges its child the same
 * way the walk does (cost: the child's ancestry, not the task count), so
 * a process born, renamed or gone during the walk is not missed or kept.
 * Then the shadow is published with RCU and the old table freed after a
 * grace period.
 *
 * Renames race the rebuild: the task_rename tracepoint fires, under the
 * task's task_lock, before the new name is written. The walk reads each
 * thread's name under its task_lock, and the rename point decides under
 * the spinlock against the names published (also under the spinlock)
 * when a rebuild is running, so either the walk sees the new name or the
 * rename point sees the new names and the shadow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/in.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/sock.h>

#include "filters.h"
#include "memory.h"

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
/* The table a rebuild fills (no reader sees it); under the lock. */
static struct ftagent_excl_table *ftagent_excl_shadow;
static DEFINE_RAW_SPINLOCK(ftagent_excl_lock);
static u64 ftagent_excl_missed;

/*
 * EXCLUDE_SELF registrations. Written under the config lock and the
 * spinlock; @pid read under RCU (compared, never dereferenced), and put
 * a grace period after it is cleared.
 */
#define FTAGENT_SELF_MAX	FTAGENT_EXCLUDE_SELF_MAX

static struct ftagent_self {
	struct pid *pid;	/* the registered process (its tgid) */
	const struct net *net;	/* the socket that asked: net, portid */
	u32 portid;
	/*
	 * That socket itself, held (sock_hold) while the entry exists. The
	 * release notifier names only (net, portid), and netlink_release()
	 * unhashes a socket before it calls the notifier, so a new socket
	 * can bind the same portid in between: the notifier ends an entry
	 * only if its socket is the one being released (SOCK_DEAD, set by
	 * sock_orphan() before the notifier runs). A new socket with the
	 * portid of one still being released is told to retry.
	 */
	struct sock *sk;
} ftagent_selves[FTAGENT_SELF_MAX];
static unsigned int ftagent_n_selves;

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

/* Caller holds the lock: add @tgid to the table in force. */
static void ftagent_excl_add_cur(u32 tgid)
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

/* Caller holds the lock: add @tgid to the shadow, if a rebuild runs. */
static void ftagent_excl_add_shadow(u32 tgid)
{
	struct ftagent_excl_table *s = ftagent_excl_shadow;

	if (!s || ftagent_excl_find(s, tgid))
		return;
	/* The shadow holds no tombstones (see remove): live == used. */
	if (s->live < FTAGENT_EXCL_LIVE_MAX)
		ftagent_excl_place(s, tgid);
	else
		ftagent_excl_missed++;
}

/*
 * Caller holds the lock: remove @tgid from the shadow. No reader sees
 * the shadow, so entries are moved back instead of leaving tombstones
 * (deletion in linear probing), and a long rebuild under a fork-and-exit
 * storm cannot fill it.
 */
static void ftagent_excl_remove_shadow(u32 tgid)
{
	struct ftagent_excl_table *s = ftagent_excl_shadow;
	u32 i, j, k, n;

	if (!s || !tgid)
		return;
	i = ftagent_excl_hash(tgid);
	for (n = 0; s->slot[i] != tgid; n++) {
		if (!s->slot[i] || n == FTAGENT_EXCL_SLOTS)
			return;
		i = (i + 1) & (FTAGENT_EXCL_SLOTS - 1);
	}
	s->live--;
	s->used--;
	for (j = i;;) {
		s->slot[i] = 0;
		for (;;) {
			j = (j + 1) & (FTAGENT_EXCL_SLOTS - 1);
			if (!s->slot[j])
				return;
			k = ftagent_excl_hash(s->slot[j]);
			/* Stays if its home is cyclically within (i, j]. */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		s->slot[i] = s->slot[j];
		i = j;
	}
}

/*
 * The last thread of an excluded process leaves the set in acct_process(),
 * but files are closed after that (exit_files()), and those closes must
 * not be reported. They are not always the last thread's: another thread
 * that is still on its way out (past exit_mm(), which lets pthread_join()
 * return, but before its own exit_files()) may drop the last reference
 * to the file table and close them. So the process is kept here by its
 * signal_struct, which every thread shares, until the group leader's
 * task_struct is freed (sched_process_free): the leader is released only
 * after every other thread, and the signal_struct lives at least as long
 * as it, so the pointer cannot be reused while it is here.
 */
#define FTAGENT_DYING_SLOTS	64

static struct signal_struct *ftagent_dying[FTAGENT_DYING_SLOTS];

bool ftagent_exiting_excluded(struct task_struct *t)
{
	struct signal_struct *sig = t->signal;
	int i;

	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		if (READ_ONCE(ftagent_dying[i]) == sig)
			return true;
	return false;
}

void ftagent_exclude_free(struct task_struct *t)
{
	int i;

	if (!(t->flags & PF_EXITING) || !thread_group_leader(t))
		return;
	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		if (READ_ONCE(ftagent_dying[i]) == t->signal)
			WRITE_ONCE(ftagent_dying[i], NULL);
}

static void ftagent_excl_remove(u32 tgid);

void ftagent_exclude_exit(struct task_struct *t, bool excluded)
{
	int i;

	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	/* One slot per process, whichever of its threads comes last. */
	if (excluded && ftagent_exiting_excluded(t))
		excluded = false;
	for (i = 0; excluded && i < FTAGENT_DYING_SLOTS; i++)
		if (!cmpxchg(&ftagent_dying[i], NULL, t->signal))
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

	raw_spin_lock(&ftagent_excl_lock);
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
	ftagent_excl_remove_shadow(tgid);
	ftagent_excl_note(t0);
	raw_spin_unlock(&ftagent_excl_lock);
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

/* Under RCU: whether @pid is registered by EXCLUDE_SELF. */
static bool ftagent_self_registered(const struct pid *pid)
{
	unsigned int i;

	/* A released task has no tgid pid: never an empty slot's match. */
	if (!pid)
		return false;
	for (i = 0; i < FTAGENT_SELF_MAX; i++)
		if (READ_ONCE(ftagent_selves[i].pid) == pid)
			return true;
	return false;
}

/* Whether a thread of @p has a listed name, read under its task_lock. */
static bool ftagent_threads_listed(const struct ftagent_filters *f,
				   struct task_struct *p)
{
	struct task_struct *t;
	bool listed = false;

	if (!f->n_comms)
		return false;
	for_each_thread(p, t) {
		task_lock(t);
		listed = ftagent_comm_listed(f, t->comm);
		task_unlock(t);
		if (listed)
			break;
	}
	return listed;
}

/*
 * Caller holds rcu_read_lock: whether @p is excluded under @f and the
 * registrations, judged by itself and its ancestors (cost: its ancestry,
 * not the number of tasks). The idle task (pid 0) ends every chain.
 */
static bool ftagent_excl_judge(const struct ftagent_filters *f,
			       struct task_struct *p)
{
	struct task_struct *a;

	for (a = p; a->pid; a = rcu_dereference(a->real_parent)) {
		if (ftagent_self_registered(task_tgid(a)) ||
		    ftagent_threads_listed(f, a))
			return true;
	}
	return false;
}

/*
 * The rebuild's judge (pid order, under RCU): a process whose parent has
 * a lower number was judged already, so it inherits that result from the
 * table being built instead of walking its ancestry again; only the rest
 * (reparented or after a pid wrap) walk. So a rebuild costs about one
 * look per thread, however deep the process tree.
 */
static bool ftagent_excl_judge_walked(const struct ftagent_filters *f,
				      struct task_struct *p,
				      struct ftagent_excl_table *s)
{
	struct task_struct *parent = rcu_dereference(p->real_parent);
	bool in;

	if (ftagent_self_registered(task_tgid(p)) ||
	    ftagent_threads_listed(f, p))
		return true;
	if (!parent->pid)
		return false;
	if (parent->tgid >= p->tgid)
		return ftagent_excl_judge(f, parent);
	raw_spin_lock(&ftagent_excl_lock);
	in = ftagent_excl_find(s, parent->tgid);
	raw_spin_unlock(&ftagent_excl_lock);
	return in;
}

/* Caller holds the lock: whether @p is still to leave at its exit. */
static bool ftagent_excl_alive(struct task_struct *p)
{
	/*
	 * The exit point (acct_process) comes after signal->live drops to
	 * 0 and takes the lock: if it is not 0 here, that removal follows.
	 * (Not PF_EXITING: a leader that called pthread_exit() has it while
	 * its other threads go on.)
	 */
	return atomic_read(&p->signal->live);
}

void ftagent_exclude_fork(struct task_struct *parent,
			  struct task_struct *child)
{
	const struct ftagent_filters *f;
	struct ftagent_excl_table *cur;
	bool judged = false;
	u64 t0;

	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	/*
	 * Pairs with the barrier after the shadow is set: either the walk
	 * finds the child (in the pid table before this point) or this
	 * point sees the shadow.
	 */
	smp_mb();
	if (READ_ONCE(ftagent_excl_shadow)) {
		/*
		 * A rebuild runs: the child by its own name (its parent's, at
		 * fork) and, below, by its parent's place in either table.
		 * Never an ancestry walk here, with preemption off: its cost
		 * would be the user's to choose.
		 */
		rcu_read_lock();
		f = rcu_dereference(ftagent_filters_cur);
		judged = f && ftagent_comm_listed(f, child->comm);
		rcu_read_unlock();
	} else if (!ftagent_tgid_excluded_slow(parent->tgid)) {
		return;
	}
	raw_spin_lock(&ftagent_excl_lock);
	t0 = local_clock();
	cur = rcu_dereference_protected(ftagent_excl,
					lockdep_is_held(&ftagent_excl_lock));
	if (judged || ftagent_excl_find(cur, parent->tgid))
		ftagent_excl_add_cur(child->tgid);
	if (judged || (ftagent_excl_shadow &&
		       ftagent_excl_find(ftagent_excl_shadow, parent->tgid)))
		ftagent_excl_add_shadow(child->tgid);
	ftagent_excl_note(t0);
	raw_spin_unlock(&ftagent_excl_lock);
}

/* Under the task's task_lock, before @comm is written (__set_task_comm). */
void ftagent_exclude_rename(struct task_struct *task, const char *comm)
{
	const struct ftagent_filters *f;
	bool listed;
	u64 t0;

	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return;
	rcu_read_lock_sched_notrace();
	f = rcu_dereference_sched(ftagent_filters_cur);
	listed = f && ftagent_comm_listed(f, comm);
	rcu_read_unlock_sched_notrace();
	if (!listed && !READ_ONCE(ftagent_excl_shadow))
		return;
	/* Decide against the names in force under the lock (see the top). */
	raw_spin_lock(&ftagent_excl_lock);
	t0 = local_clock();
	f = rcu_dereference_protected(ftagent_filters_cur,
				      lockdep_is_held(&ftagent_excl_lock));
	if (f && ftagent_comm_listed(f, comm)) {
		ftagent_excl_add_cur(task->tgid);
		ftagent_excl_add_shadow(task->tgid);
	}
	ftagent_excl_note(t0);
	raw_spin_unlock(&ftagent_excl_lock);
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
 * Re-derive the excluded set (see the top): caller holds the config lock,
 * may sleep. Nothing it does under the spinlock depends on the number of
 * tasks. -ENOMEM leaves the set in force as it was.
 */
static int ftagent_excl_rebuild(void)
{
	const struct ftagent_filters *f;
	struct ftagent_excl_table *s, *old;
	struct task_struct *p;
	struct pid *pid;
	bool want, in;
	int nr = 1;
	u64 t0;

	f = rcu_dereference_protected(ftagent_filters_cur, true);
	want = f->n_comms || ftagent_n_selves;
	s = kvzalloc(FTAGENT_EXCL_BYTES, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	if (want && !static_key_enabled(&ftagent_exclusions_on)) {
		/*
		 * While the key was off no exit left the table: empty it,
		 * once every point that saw the key on is done.
		 */
		synchronize_rcu();
		old = rcu_dereference_protected(ftagent_excl, true);
		memset(old, 0, FTAGENT_EXCL_BYTES);
		static_branch_enable(&ftagent_exclusions_on);
	}
	raw_spin_lock(&ftagent_excl_lock);
	WRITE_ONCE(ftagent_excl_shadow, s);
	raw_spin_unlock(&ftagent_excl_lock);
	smp_mb();	/* pairs with the one in ftagent_exclude_fork() */

	while (want) {
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid) + 1;
		p = pid_task(pid, PIDTYPE_TGID);
		in = p && ftagent_excl_judge_walked(f, p, s);
		if (in) {
			raw_spin_lock(&ftagent_excl_lock);
			t0 = local_clock();
			/* Gone already: its number would exclude the next. */
			if (ftagent_excl_alive(p))
				ftagent_excl_add_shadow(p->tgid);
			ftagent_excl_note(t0);
			raw_spin_unlock(&ftagent_excl_lock);
		}
		rcu_read_unlock();
		cond_resched();
	}

	raw_spin_lock(&ftagent_excl_lock);
	t0 = local_clock();
	old = rcu_replace_pointer(ftagent_excl, s,
				  lockdep_is_held(&ftagent_excl_lock));
	WRITE_ONCE(ftagent_excl_shadow, NULL);
	ftagent_excl_note(t0);
	raw_spin_unlock(&ftagent_excl_lock);
	if (!want)
		static_branch_disable(&ftagent_exclusions_on);
	synchronize_rcu();	/* readers of @old, and every hook that saw the key */
	kvfree(old);
	return 0;
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

int ftagent_filters_replace(struct ftagent_filters *next)
{
	struct ftagent_filters *old;
	int err;

	/* Under the spinlock: the rename point decides against these. */
	raw_spin_lock(&ftagent_excl_lock);
	old = rcu_replace_pointer(ftagent_filters_cur, next,
				  lockdep_is_held(&ftagent_excl_lock));
	WRITE_ONCE(ftagent_filter_flags, next->flags);
	raw_spin_unlock(&ftagent_excl_lock);
	err = ftagent_excl_rebuild();
	if (err) {
		/* Back to the filters whose set is in force. */
		raw_spin_lock(&ftagent_excl_lock);
		rcu_replace_pointer(ftagent_filters_cur, old,
				    lockdep_is_held(&ftagent_excl_lock));
		WRITE_ONCE(ftagent_filter_flags, old ? old->flags : 0);
		raw_spin_unlock(&ftagent_excl_lock);
		synchronize_rcu();
		ftagent_filters_free(next);
		return err;
	}
	if (old)
		call_rcu(&old->rcu, ftagent_filters_free_rcu);
	return 0;
}

/* End registration @i (caller holds the config lock). */
static void ftagent_self_end(unsigned int i)
{
	struct ftagent_self *e = &ftagent_selves[i];
	struct sock *sk = e->sk;
	struct pid *pid;

	raw_spin_lock(&ftagent_excl_lock);
	pid = e->pid;
	WRITE_ONCE(e->pid, NULL);
	WRITE_ONCE(ftagent_n_selves, ftagent_n_selves - 1);
	e->sk = NULL;
	raw_spin_unlock(&ftagent_excl_lock);
	if (ftagent_excl_rebuild()) {
		/* No memory for a rebuild: the process at least leaves. */
		rcu_read_lock();
		if (pid_task(pid, PIDTYPE_TGID))
			ftagent_excl_remove(pid_nr(pid));
		rcu_read_unlock();
	}
	synchronize_rcu();	/* no judge compares against @pid any more */
	put_pid(pid);
	sock_put(sk);
}

int ftagent_filters_exclude_self(struct pid *pid, const struct net *net,
				 u32 portid, struct sock *sk)
{
	struct ftagent_self *e = NULL;
	unsigned int i;
	int err;

	for (i = 0; i < FTAGENT_SELF_MAX; i++) {
		if (ftagent_selves[i].pid && ftagent_selves[i].net == net &&
		    ftagent_selves[i].portid == portid) {
			if (ftagent_selves[i].sk != sk)
				return -EAGAIN;	/* the old one is going */
			return ftagent_selves[i].pid == pid ? 0 : -EBUSY;
		}
		if (!ftagent_selves[i].pid && !e)
			e = &ftagent_selves[i];
	}
	if (!e)
		return -ENOSPC;
	sock_hold(sk);
	raw_spin_lock(&ftagent_excl_lock);
	e->net = net;
	e->portid = portid;
	e->sk = sk;
	WRITE_ONCE(e->pid, get_pid(pid));
	WRITE_ONCE(ftagent_n_selves, ftagent_n_selves + 1);
	raw_spin_unlock(&ftagent_excl_lock);
	err = ftagent_excl_rebuild();
	if (err) {
		/*
		 * The rebuild failed before it changed anything (its table
		 * could not be had), and none can run beside it under the
		 * config lock: take the slot back, nothing more. Not
		 * ftagent_self_end(), whose fallback would take the process
		 * out of the set even when another socket or a name keeps it
		 * in.
		 */
		raw_spin_lock(&ftagent_excl_lock);
		WRITE_ONCE(e->pid, NULL);
		WRITE_ONCE(ftagent_n_selves, ftagent_n_selves - 1);
		e->sk = NULL;
		raw_spin_unlock(&ftagent_excl_lock);
		synchronize_rcu();
		put_pid(pid);
		sock_put(sk);
	}
	return err;
}

void ftagent_filters_socket_released(const struct net *net, u32 portid)
{
	unsigned int i;

	for (i = 0; i < FTAGENT_SELF_MAX; i++) {
		if (!ftagent_selves[i].pid || ftagent_selves[i].net != net ||
		    ftagent_selves[i].portid != portid)
			continue;
		/* Another socket's release, after it lent us its portid. */
		if (!sock_flag(ftagent_selves[i].sk, SOCK_DEAD))
			continue;
		ftagent_self_end(i);
		return;
	}
}

bool ftagent_filters_any_self(void)
{
	return READ_ONCE(ftagent_n_selves);
}

/*
 * Without a lock, for the release notifier, which sees every generic
 * netlink socket close on the machine: whether this socket may hold an
 * exclusion. Slots change under the config lock, which the notifier takes
 * only when this says yes.
 */
bool ftagent_filters_may_hold(const struct net *net, u32 portid)
{
	unsigned int i;

	for (i = 0; i < FTAGENT_SELF_MAX; i++)
		if (READ_ONCE(ftagent_selves[i].pid) &&
		    READ_ONCE(ftagent_selves[i].net) == net &&
		    READ_ONCE(ftagent_selves[i].portid) == portid)
			return true;
	return false;
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

/*
 * The two tables of excluded tgids (a rebuild holds a third while it
 * runs) and the filters in force with their paths. Caller holds the
 * config lock, under which alone the filters change; the two tables
 * swap places under ftagent_excl_lock (fork and rename hooks), so they
 * are read under it, as a pair.
 */
size_t ftagent_filters_memory(void)
{
	const struct ftagent_filters *f;
	size_t blob = 0, tables;
	unsigned int i;

	f = rcu_dereference_protected(ftagent_filters_cur, true);
	for (i = 0; f && i < f->n_paths; i++)
		blob += f->path_len[i] + 1;
	raw_spin_lock(&ftagent_excl_lock);
	tables = ftagent_kv_bytes(rcu_access_pointer(ftagent_excl),
				  FTAGENT_EXCL_BYTES) +
		 ftagent_kv_bytes(ftagent_excl_spare, FTAGENT_EXCL_BYTES);
	raw_spin_unlock(&ftagent_excl_lock);
	return tables +
	       kmalloc_size_roundup(sizeof(struct ftagent_filters)) +
	       (blob ? kmalloc_size_roundup(blob) : 0);
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
	/*
	 * Default: everything tracked, no process excluded. The daemon
	 * excludes itself with EXCLUDE_SELF, not by a name anyone can take.
	 */
	f->flags = FTAGENT_TRACK_ALL;
	RCU_INIT_POINTER(ftagent_excl, a);
	ftagent_excl_spare = b;
	ftagent_excl_spare_ready = true;
	RCU_INIT_POINTER(ftagent_filters_cur, f);
	return 0;
}

/* Every hook and tracepoint that reads the filters is gone. */
void ftagent_filters_exit(void)
{
	int i;

	for (i = 0; i < FTAGENT_DYING_SLOTS; i++)
		WRITE_ONCE(ftagent_dying[i], NULL);
	/* The release notifier is gone (genl_ctl.c): nobody else puts. */
	for (i = 0; i < FTAGENT_SELF_MAX; i++) {
		if (!ftagent_selves[i].pid)
			continue;
		put_pid(ftagent_selves[i].pid);
		ftagent_selves[i].pid = NULL;
		sock_put(ftagent_selves[i].sk);
		ftagent_selves[i].sk = NULL;
	}
	ftagent_n_selves = 0;
	static_branch_disable(&ftagent_exclusions_on);
	rcu_barrier();	/* the spare's and the old filters' callbacks */
	kvfree(rcu_dereference_protected(ftagent_excl, true));
	kvfree(ftagent_excl_spare);
	ftagent_filters_free(rcu_dereference_protected(ftagent_filters_cur,
						       true));
}
