// SPDX-License-Identifier: GPL-2.0
/*
 * One decision per transfer call (xfer.h): the table of kept decisions.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/socket.h>
#include <linux/string.h>

#include "calls.h"
#include "gate.h"
#include "hooks.h"
#include "policy.h"
#include "xfer.h"

/*
 * Entries, by task. Only the transfer calls running at one time use
 * them, each for as long as its call: two that share an entry take turns
 * at it, and pay the decisions they did before this table existed.
 */
#define FTAGENT_XFER_BITS	8

/*
 * A destination as the gate describes it (gate.h), in three words: an
 * IPv4 address is its first four bytes (the only ones set), zero-filled.
 */
struct ftagent_xfer_dest {
	u32 how;		/* have_addr, family, port; 0: none */
	u64 a0, a1;
};

struct ftagent_xfer_entry {
	raw_spinlock_t lock;		/* writers */
	seqcount_raw_spinlock_t seq;	/* readers */
	/* NULL once the call settled (ftagent_xfer_done()) */
	const struct task_struct *task;
	/*
	 * Who decided: the credentials it ran under (its own, which no one
	 * else replaces and it cannot inside the call; compared, never
	 * followed) and its cgroup's id.
	 */
	const struct cred *cred;
	u64 cgroup;
	const struct sock *sk;
	u64 generation;
	struct ftagent_xfer_dest dest;
} ____cacheline_aligned_in_smp;

static struct ftagent_xfer_entry ftagent_xfer_table[1 << FTAGENT_XFER_BITS];

static __always_inline struct ftagent_xfer_entry *
ftagent_xfer_entry_of(const struct task_struct *t)
{
	return &ftagent_xfer_table[hash_ptr(t, FTAGENT_XFER_BITS)];
}

static __always_inline void ftagent_xfer_dest(const struct ftagent_gate_call *c,
					      struct ftagent_xfer_dest *d)
{
	const u64 *a = (const u64 *)c->addr;

	d->how = 0;
	d->a0 = 0;
	d->a1 = 0;
	if (!c->have_addr)
		return;
	d->how = BIT(31) | (u32)c->family << 16 | c->port;
	if (c->family == AF_INET) {
		d->a0 = *(const u32 *)c->addr;
	} else {
		d->a0 = a[0];
		d->a1 = a[1];
	}
}

/*
 * The current task's cgroup (the default hierarchy's, which the rules
 * name) by its id: unique for the boot, so a move away and into a new
 * cgroup at a reused address is still a change.
 */
static __always_inline u64 ftagent_xfer_cgroup(void)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	/*
	 * Preemption is off, an RCU read side, but task_css_set_check()
	 * accepts that only from 5.18 (and its backports): say it.
	 */
	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/* Whether @hook traces a transfer call, whose pieces share a decision. */
static __always_inline bool ftagent_xfer_hook(const struct ftagent_hook *hook)
{
	return hook && (hook->call->class == FTAGENT_CALL_SENDFILE ||
			hook->call->class == FTAGENT_CALL_SPLICE);
}

/* Its settle clears what it keeps: only a call seen to begin. */
static notrace bool ftagent_xfer_seen(const struct ftagent_hook *hook)
{
	return hook->kind == FTAGENT_HOOKS_KPROBE ?
		       ftagent_kprobe_call_seen(hook) :
		       ftagent_ftrace_call_seen();
}

bool notrace ftagent_xfer_call(const struct pt_regs *uregs)
{
	const struct ftagent_hook *hook;

	/* io_uring's workers run no call of their own (their ax is 0). */
	if (!in_task() || (current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    !ftagent_in_body(uregs))
		return false;
	hook = ftagent_hook_for(uregs);
	return ftagent_xfer_hook(hook) && ftagent_xfer_seen(hook);
}

bool notrace ftagent_xfer_kept(const struct ftagent_gate_call *c,
			       const struct sock *sk)
{
	const struct ftagent_ruleset *set = rcu_dereference_sched(ftagent_policy);
	const struct pt_regs *uregs = task_pt_regs(current);
	const struct ftagent_xfer_entry *e;
	const struct ftagent_hook *hook;
	struct ftagent_xfer_dest d __uninitialized;
	unsigned int seq;
	bool same;

	/*
	 * Only a call that kept a decision has the second mark (hooks.h),
	 * written by ftagent_xfer_keep(), for a call seen to begin. Others
	 * can hold it too: one whose entry no hook saw, where a tracer wrote
	 * it at the syscall-entry stop, or an lseek() on /proc/self/mem to
	 * that offset, whose io_uring task work then reaches a send point.
	 * Hence the hook and the seen test, last, once all else matched.
	 */
	if (!in_task() || (current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    !set || READ_ONCE(uregs->ax) != FTAGENT_BODY_KEPT)
		return false;
	hook = ftagent_hook_for(uregs);
	if (!ftagent_xfer_hook(hook))
		return false;
	e = ftagent_xfer_entry_of(current);
	ftagent_xfer_dest(c, &d);
	seq = raw_read_seqcount(&e->seq);
	if (seq & 1)
		return false;
	same = READ_ONCE(e->task) == current && READ_ONCE(e->sk) == sk &&
	       READ_ONCE(e->generation) == set->generation &&
	       READ_ONCE(e->dest.how) == d.how &&
	       READ_ONCE(e->dest.a0) == d.a0 && READ_ONCE(e->dest.a1) == d.a1 &&
	       READ_ONCE(e->cred) == current_cred() &&
	       READ_ONCE(e->cgroup) == ftagent_xfer_cgroup();
	return same && !read_seqcount_retry(&e->seq, seq) &&
	       ftagent_xfer_seen(hook);
}

void notrace ftagent_xfer_keep(struct pt_regs *uregs,
			       const struct ftagent_gate_call *c,
			       const struct sock *sk, u64 generation)
{
	struct ftagent_xfer_entry *e = ftagent_xfer_entry_of(current);
	struct ftagent_xfer_dest d;

	u64 cgroup = ftagent_xfer_cgroup();

	ftagent_xfer_dest(c, &d);
	raw_spin_lock(&e->lock);
	/*
	 * A piece on another socket inside one this call kept (AF_SMC's
	 * kernel_sendpage() on its TCP socket, 6.1) is decided each time
	 * rather than take the entry from the call's own socket.
	 */
	if (READ_ONCE(uregs->ax) == FTAGENT_BODY_KEPT && e->task == current &&
	    e->sk != sk) {
		raw_spin_unlock(&e->lock);
		return;
	}
	write_seqcount_begin(&e->seq);
	WRITE_ONCE(e->task, current);
	WRITE_ONCE(e->cred, current_cred());
	WRITE_ONCE(e->cgroup, cgroup);
	WRITE_ONCE(e->sk, sk);
	WRITE_ONCE(e->generation, generation);
	WRITE_ONCE(e->dest.how, d.how);
	WRITE_ONCE(e->dest.a0, d.a0);
	WRITE_ONCE(e->dest.a1, d.a1);
	write_seqcount_end(&e->seq);
	raw_spin_unlock(&e->lock);
	/* Only the task writes its own saved ax inside its call's body. */
	WRITE_ONCE(uregs->ax, FTAGENT_BODY_KEPT);
}

/* Clear @e if it is @t's, or any task's when @t is NULL. */
static notrace void ftagent_xfer_clear(struct ftagent_xfer_entry *e,
				       const struct task_struct *t)
{
	raw_spin_lock(&e->lock);
	if (e->task && (!t || e->task == t)) {
		write_seqcount_begin(&e->seq);
		WRITE_ONCE(e->task, NULL);
		write_seqcount_end(&e->seq);
	}
	raw_spin_unlock(&e->lock);
}

void notrace ftagent_xfer_done(void)
{
	struct ftagent_xfer_entry *e;

	/*
	 * Without a set nothing is kept, and this clear is skipped. An entry
	 * left from before the set went is harmless: only a call that keeps
	 * a decision, rewriting it, can take it (ftagent_xfer_kept()).
	 */
	if (!rcu_access_pointer(ftagent_policy))
		return;
	e = ftagent_xfer_entry_of(current);
	if (READ_ONCE(e->task) == current)
		ftagent_xfer_clear(e, current);
}

void ftagent_xfer_forget(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_xfer_table); i++)
		ftagent_xfer_clear(&ftagent_xfer_table[i], NULL);
}

void ftagent_xfer_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_xfer_table); i++) {
		raw_spin_lock_init(&ftagent_xfer_table[i].lock);
		seqcount_raw_spinlock_init(&ftagent_xfer_table[i].seq,
					   &ftagent_xfer_table[i].lock);
	}
}
