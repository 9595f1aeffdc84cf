/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counter tables, two generations each: the active one takes
 * updates from the hooks, the idle one waits to be dumped and acknowledged.
 */
#ifndef _FTAGENT_COUNTERS_H
#define _FTAGENT_COUNTERS_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/ftagent.h>

/* What a counter is keyed by; the zero kind marks an empty slot. */
struct ftagent_key {
	u32 tgid;
	u16 kind;		/* enum ftagent_obj_kind */
	u16 family;
	u32 dev;		/* the kernel's dev_t: encoded when dumped */
	u16 protocol;		/* whole: IPPROTO_MPTCP is 262 */
	u16 pad;
	u64 ino;
	u64 peer_ino;
};

enum ftagent_dir { FTAGENT_DIR_IN, FTAGENT_DIR_OUT };

struct ftagent_slot {
	struct ftagent_key key;
	struct ftagent_dir_counts dir[2];
};

/* The slot this CPU charged last, in generation sequence @seq. */
struct ftagent_last {
	struct ftagent_slot *slot;
	unsigned long seq;
};

DECLARE_PER_CPU(struct ftagent_last, ftagent_last);
/* Generation sequence; its low bit is the index of the one hooks write. */
extern unsigned long ftagent_gen_seq;

int ftagent_counters_init(unsigned int capacity);
void ftagent_counters_exit(void);

/* The slow path of ftagent_counter_charge(): hash, probe, insert. */
struct ftagent_slot *ftagent_counter_lookup(const struct ftagent_key *key,
					    unsigned long seq);
void ftagent_counter_budget(const struct ftagent_key *key,
			    enum ftagent_dir dir, long ret);
DECLARE_STATIC_KEY_FALSE(ftagent_budgets_on);	/* budget.c */

static __always_inline bool ftagent_key_equal(const struct ftagent_key *a,
					      const struct ftagent_key *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;

	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		(x[3] ^ y[3])) == 0;
}

/* Add @calls calls that returned @ret (bytes, or an errno) to @slot. */
static __always_inline void ftagent_slot_add(struct ftagent_slot *slot,
					     enum ftagent_dir dir, long ret,
					     unsigned int calls)
{
	struct ftagent_dir_counts *c = &slot->dir[dir];

	c->calls += calls;
	if (ret < 0)
		c->errors++;
	else
		c->bytes += ret;
}

/*
 * Hot path: count @calls returned calls (1, or 0 for bytes moved by a
 * call counted on its own) on @key, budgets aside. Caller has
 * preemption off. @ret is the call's return value: >= 0 bytes, < 0 an
 * errno. A call on the object this CPU charged last reuses its slot (see
 * counters.c).
 */
static __always_inline void ftagent_counter_add(const struct ftagent_key *key,
						enum ftagent_dir dir, long ret,
						unsigned int calls)
{
	struct ftagent_last *last = this_cpu_ptr(&ftagent_last);
	unsigned long seq = READ_ONCE(ftagent_gen_seq);
	struct ftagent_slot *slot = last->slot;

	if (unlikely(last->seq != seq || !slot ||
		     !ftagent_key_equal(&slot->key, key))) {
		slot = ftagent_counter_lookup(key, seq);
		if (unlikely(!slot))
			return;
	}
	ftagent_slot_add(slot, dir, ret, calls);
}

static __always_inline void ftagent_counter_count(const struct ftagent_key *key,
						  enum ftagent_dir dir,
						  long ret)
{
	ftagent_counter_add(key, dir, ret, 1);
}

/*
 * Hot path: @bytes moved by a call counted on its own (one message of a
 * *mmsg call), budgets aside.
 */
static __always_inline void ftagent_counter_bytes(const struct ftagent_key *key,
						  enum ftagent_dir dir,
						  long bytes)
{
	ftagent_counter_add(key, dir, bytes, 0);
}

/*
 * Hot path: count the call, and charge its bytes to the budgets of the
 * current task's principal.
 */
static __always_inline void ftagent_counter_charge(const struct ftagent_key *key,
						   enum ftagent_dir dir,
						   long ret)
{
	if (static_branch_unlikely(&ftagent_budgets_on))
		ftagent_counter_budget(key, dir, ret);
	ftagent_counter_count(key, dir, ret);
}

/* Count a loss of @cause on this CPU; any context. */
void ftagent_count_loss(enum ftagent_loss cause);
/* @n at once; any context. */
void ftagent_count_losses(enum ftagent_loss cause, u64 n);

/* Process context, may sleep. */
int ftagent_counters_flush(u64 *idle_seq);
int ftagent_counters_ack(u64 seq);
void ftagent_counters_set_interval(unsigned int ms);

/* Read-only views for the stats family. */
struct ftagent_cpu_view {
	u32 fill, peak, entries;
	u64 lost[__FTAGENT_LOSS_MAX];
};

unsigned int ftagent_counters_capacity(void);
size_t ftagent_counters_memory(void);
u64 ftagent_counters_flushes(void);
/* The idle generation's sequence number and whether it is acknowledged. */
u64 ftagent_counters_idle_seq(bool *acked);
/* The same, for callers holding ftagent_counters_dump_lock(). */
u64 ftagent_counters_idle_seq_locked(bool *acked);
/* Cumulative figures of @cpu (fill/peak of the active generation). */
void ftagent_counters_cpu_totals(int cpu, struct ftagent_cpu_view *v);
/* Figures of @cpu's table in the idle generation. */
void ftagent_counters_cpu_idle(int cpu, struct ftagent_cpu_view *v);
/*
 * Copy the idle generation's counter at (@cpu, *@slot) or the next used
 * one into @out; advances *@slot past it. Returns false at the end of the
 * CPU's table. Dumps hold the read side with ftagent_counters_dump_lock().
 */
bool ftagent_counters_idle_next(int cpu, u32 *slot,
				struct ftagent_counter *out);
void ftagent_counters_dump_lock(void);
void ftagent_counters_dump_unlock(void);

#endif /* _FTAGENT_COUNTERS_H */
