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
	 * Who decided: the credentials and the cgroups (css_set) it ran
	 * under. Compared, never followed.
	 */
	const struct cred *cred;
	const void *cgroups;
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

/* The current task's cgroups, to compare: they change when it moves. */
static __always_inline const void *ftagent_xfer_cgroups(void)
{
#ifdef CONFIG_CGROUPS
	return rcu_access_pointer(current->cgroups);
#else
	return NULL;
#endif
}

bool ftagent_xfer_call(const struct pt_regs *uregs)
{
	const struct ftagent_hook *hook;

	/* io_uring's workers run no call of their own (their ax is 0). */
	if ((current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    !ftagent_in_body(uregs))
		return false;
	hook = ftagent_hook_for(uregs);
	if (!hook || (hook->call->class != FTAGENT_CALL_SENDFILE &&
		      hook->call->class != FTAGENT_CALL_SPLICE))
		return false;
	/* Its settle clears what it keeps: only a call seen to begin. */
	return hook->kind == FTAGENT_HOOKS_KPROBE ?
		       ftagent_kprobe_call_seen(hook) :
		       ftagent_ftrace_call_seen();
}

bool ftagent_xfer_kept(const struct ftagent_gate_call *c,
		       const struct sock *sk)
{
	const struct ftagent_ruleset *set = rcu_dereference_sched(ftagent_policy);
	const struct ftagent_xfer_entry *e;
	struct ftagent_xfer_dest d;
	unsigned int seq;
	bool same;

	/*
	 * Only a call that kept a decision has the second mark (hooks.h):
	 * written by ftagent_xfer_keep() for a call seen to begin, or by a
	 * tracer at the syscall-entry stop of a call no hook saw, which
	 * finds no entry of its task: every kept call's settle clears its
	 * own, and the hooks' detach clears them all.
	 */
	if (!set ||
	    READ_ONCE(task_pt_regs(current)->ax) != FTAGENT_BODY_KEPT)
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
	       READ_ONCE(e->cgroups) == ftagent_xfer_cgroups();
	return same && !read_seqcount_retry(&e->seq, seq);
}

void ftagent_xfer_keep(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation)
{
	struct ftagent_xfer_entry *e = ftagent_xfer_entry_of(current);
	struct ftagent_xfer_dest d;

	ftagent_xfer_dest(c, &d);
	raw_spin_lock(&e->lock);
	write_seqcount_begin(&e->seq);
	WRITE_ONCE(e->task, current);
	WRITE_ONCE(e->cred, current_cred());
	WRITE_ONCE(e->cgroups, ftagent_xfer_cgroups());
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
static void ftagent_xfer_clear(struct ftagent_xfer_entry *e,
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

void ftagent_xfer_done(void)
{
	struct ftagent_xfer_entry *e = ftagent_xfer_entry_of(current);

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
