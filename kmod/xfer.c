// SPDX-License-Identifier: GPL-2.0
/*
 * One decision per transfer call (xfer.h): the table of kept decisions.
 */
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "calls.h"
#include "gate.h"
#include "hooks.h"
#include "xfer.h"

/*
 * Entries, by task. Only the transfer calls running at one time use
 * them, each for as long as its call: two that share an entry take turns
 * at it, and pay the decisions they did before this table existed.
 */
#define FTAGENT_XFER_BITS	8

struct ftagent_xfer_kept {
	raw_spinlock_t lock;		/* writers; taken only by trylock */
	seqcount_raw_spinlock_t seq;	/* readers */
	const struct task_struct *task;
	const struct sock *sk;
	u64 generation;
	bool have_addr;
	u16 family, port;
	u8 addr[16];
} ____cacheline_aligned_in_smp;

static struct ftagent_xfer_kept ftagent_xfer_table[1 << FTAGENT_XFER_BITS];

static __always_inline struct ftagent_xfer_kept *
ftagent_xfer_entry(const struct task_struct *t)
{
	return &ftagent_xfer_table[hash_ptr(t, FTAGENT_XFER_BITS)];
}

/* The bytes of @c's address its family uses (gate.h: only those are set). */
static __always_inline size_t ftagent_xfer_addr_len(u16 family)
{
	return family == AF_INET ? 4 : 16;
}

bool ftagent_xfer_call(const struct pt_regs *uregs)
{
	const struct ftagent_hook *hook;

	if ((current->flags & PF_KTHREAD) || !ftagent_in_body(uregs))
		return false;
	hook = ftagent_hook_for(uregs);
	if (!hook)
		return false;
	return hook->call->class == FTAGENT_CALL_SENDFILE ||
	       hook->call->class == FTAGENT_CALL_SPLICE;
}

bool ftagent_xfer_kept(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation)
{
	struct ftagent_xfer_kept *e;
	unsigned int seq;
	bool same;

	/* This call kept nothing (or was not seen to begin). */
	if (READ_ONCE(uregs->ax) != FTAGENT_BODY_KEPT)
		return false;
	e = ftagent_xfer_entry(current);
	seq = raw_read_seqcount(&e->seq);
	if (seq & 1)
		return false;
	same = READ_ONCE(e->task) == current && READ_ONCE(e->sk) == sk &&
	       READ_ONCE(e->generation) == generation &&
	       READ_ONCE(e->have_addr) == c->have_addr;
	if (same && c->have_addr)
		same = READ_ONCE(e->family) == c->family &&
		       READ_ONCE(e->port) == c->port &&
		       !memcmp(e->addr, c->addr,
			       ftagent_xfer_addr_len(c->family));
	return same && !read_seqcount_retry(&e->seq, seq);
}

void ftagent_xfer_keep(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation)
{
	struct ftagent_xfer_kept *e = ftagent_xfer_entry(current);

	/* Another task writing the same entry: decide the next piece too. */
	if (!raw_spin_trylock(&e->lock))
		return;
	write_seqcount_begin(&e->seq);
	WRITE_ONCE(e->task, current);
	WRITE_ONCE(e->sk, sk);
	WRITE_ONCE(e->generation, generation);
	WRITE_ONCE(e->have_addr, c->have_addr);
	if (c->have_addr) {
		WRITE_ONCE(e->family, c->family);
		WRITE_ONCE(e->port, c->port);
		memcpy(e->addr, c->addr, ftagent_xfer_addr_len(c->family));
	}
	write_seqcount_end(&e->seq);
	raw_spin_unlock(&e->lock);
	/* Only the task writes its own saved ax inside its call's body. */
	WRITE_ONCE(uregs->ax, FTAGENT_BODY_KEPT);
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
