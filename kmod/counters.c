// SPDX-License-Identifier: GPL-2.0
/*
 * Counter tables.
 *
 * Each CPU owns two preallocated open-addressing tables, one per
 * generation. A hook charges the active generation of the CPU it runs on,
 * with preemption disabled, so a table has one writer at a time and needs
 * neither locks nor atomics. A table holds at most @capacity keys in
 * 2 * @capacity slots: at a load factor of at most one half an insert
 * always finds a free slot after a short probe, and a key that arrives
 * when @capacity keys are already present is counted as lost, exactly.
 *
 * Generations: swapping advances the generation sequence, whose low bit
 * is the active index, then waits for an RCU grace period, after which no
 * hook still writes the old one (hooks run with preemption disabled, which
 * RCU waits out). The old active table is then idle: dumped over netlink,
 * acknowledged by its consumer, cleared.
 * A swap is refused while the idle generation is unacknowledged, so
 * counts that nobody has read are never overwritten; meanwhile the active
 * generation keeps counting.
 *
 * Each CPU also remembers the slot it charged last, with the sequence it
 * was found in: a call on the same object as the previous one on that CPU
 * (the common case) compares its key with that slot's and skips the hash
 * and the probe. The slot stays valid while the sequence is unchanged: a
 * table is only cleared while it is idle, after a swap.
 *
 * Memory: 2 generations * 2 * capacity slots * 64 bytes per possible CPU,
 * see ftagent_counters_memory() and docs/memory.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "budget.h"
#include "counters.h"
#include "zerocopy.h"

struct ftagent_table {
	struct ftagent_slot *slots;
	u32 fill;
	u64 lost[__FTAGENT_LOSS_MAX];
};

struct ftagent_cpu_tables {
	struct ftagent_table gen[2];
	u32 peak;
	u64 lost_total[__FTAGENT_LOSS_MAX];
};

static struct ftagent_cpu_tables __percpu *ftagent_tables;
static unsigned int ftagent_capacity;	/* keys per table */
static u32 ftagent_slot_mask;		/* 2 * capacity - 1 */
unsigned long ftagent_gen_seq;
DEFINE_PER_CPU(struct ftagent_last, ftagent_last);

/* Swaps, acks and dumps of the idle generation exclude each other. */
static DEFINE_MUTEX(ftagent_gen_lock);
static u64 ftagent_idle_seq;		/* generation number of the idle one */
static bool ftagent_idle_acked = true;
static u64 ftagent_flush_count;

static unsigned int ftagent_interval_ms;
static void ftagent_flush_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ftagent_flush_work, ftagent_flush_work_fn);

static_assert(sizeof(struct ftagent_slot) == 64);
static_assert(sizeof(struct ftagent_key) == 4 * sizeof(u64));

/*
 * The hot path hashes and compares the key as four words: the kernel's
 * memcmp() is a byte loop and jhash2() costs a few dozen instructions per
 * word, which together were most of the accounting cost per call.
 */
static __always_inline const u64 *ftagent_key_words(const struct ftagent_key *k)
{
	return (const u64 *)k;
}

static __always_inline u32 ftagent_key_hash(const struct ftagent_key *key)
{
	const u64 *w = ftagent_key_words(key);

	return hash_64(w[0] ^ (w[1] * GOLDEN_RATIO_64) ^ rol64(w[2], 29) ^
		       rol64(w[3], 47), 32);
}

/* The index of the active generation. */
static __always_inline unsigned int ftagent_active(void)
{
	return READ_ONCE(ftagent_gen_seq) & 1;
}

static struct ftagent_slot *ftagent_find_or_insert(struct ftagent_table *t,
						   const struct ftagent_key *key)
{
	u32 i = ftagent_key_hash(key) & ftagent_slot_mask;
	struct ftagent_slot *slot;

	/* Terminates: at most half of the slots are ever used. */
	for (;; i = (i + 1) & ftagent_slot_mask) {
		slot = &t->slots[i];
		if (!slot->key.kind)
			break;
		if (ftagent_key_equal(&slot->key, key))
			return slot;
	}
	if (t->fill >= ftagent_capacity)
		return NULL;
	slot->key = *key;
	t->fill++;
	return slot;
}

/*
 * A loss belongs to the generation the hook was writing, and to the
 * total. A hook in an interrupt (a socket's receive path) may count one
 * on this CPU in the middle of another's read-modify-write: interrupts
 * are off for the two adds, which only losses pay.
 */
static void ftagent_table_losses(struct ftagent_cpu_tables *ct,
				 struct ftagent_table *t,
				 enum ftagent_loss cause, u64 n)
{
	unsigned long flags;

	local_irq_save(flags);
	t->lost[cause] += n;
	ct->lost_total[cause] += n;
	local_irq_restore(flags);
}

void ftagent_count_loss(enum ftagent_loss cause)
{
	ftagent_count_losses(cause, 1);
}

/* Any context: with interrupts off, this CPU's tables stay ours. */
void ftagent_count_losses(enum ftagent_loss cause, u64 n)
{
	struct ftagent_cpu_tables *ct;
	unsigned long flags;

	local_irq_save(flags);
	ct = this_cpu_ptr(ftagent_tables);
	ftagent_table_losses(ct, &ct->gen[ftagent_active()], cause, n);
	local_irq_restore(flags);
}

/* The slot of @key in generation @seq, remembered as the CPU's last one. */
struct ftagent_slot *ftagent_counter_lookup(const struct ftagent_key *key,
					    unsigned long seq)
{
	struct ftagent_cpu_tables *ct = this_cpu_ptr(ftagent_tables);
	struct ftagent_last *last = this_cpu_ptr(&ftagent_last);
	struct ftagent_table *t = &ct->gen[seq & 1];
	struct ftagent_slot *slot;

	slot = ftagent_find_or_insert(t, key);
	if (unlikely(!slot)) {
		ftagent_table_losses(ct, t, FTAGENT_LOSS_COUNTER_TABLE, 1);
		return NULL;
	}
	last->slot = slot;
	last->seq = seq;
	if (unlikely(t->fill > ct->peak))
		ct->peak = t->fill;
	return slot;
}

/* Budgets count what the counters count; transfers are counted twice. */
void ftagent_counter_budget(const struct ftagent_key *key,
			    enum ftagent_dir dir, long ret)
{
	if (key->kind != FTAGENT_OBJ_TRANSFER)
		ftagent_budget_charge_bytes(key->kind, key->family, dir, ret);
}

static void ftagent_table_clear(struct ftagent_table *t)
{
	if (t->fill)
		memset(t->slots, 0, sizeof(*t->slots) * (ftagent_slot_mask + 1));
	t->fill = 0;
	memset(t->lost, 0, sizeof(t->lost));
}

/* Caller holds ftagent_gen_lock. */
static int ftagent_swap_locked(void)
{
	if (!ftagent_idle_acked)
		return -EBUSY;
	/* Probe misses the probes cannot count themselves: this generation. */
	ftagent_zerocopy_count_missed();
	WRITE_ONCE(ftagent_gen_seq, ftagent_gen_seq + 1);
	/* Wait out hooks that may still write the generation now idle. */
	synchronize_rcu();
	ftagent_idle_seq++;
	ftagent_idle_acked = false;
	ftagent_flush_count++;
	return 0;
}

int ftagent_counters_flush(u64 *idle_seq)
{
	int err;

	mutex_lock(&ftagent_gen_lock);
	err = ftagent_swap_locked();
	*idle_seq = ftagent_idle_seq;
	mutex_unlock(&ftagent_gen_lock);
	return err;
}

int ftagent_counters_ack(u64 seq)
{
	int cpu, err = 0;

	mutex_lock(&ftagent_gen_lock);
	if (seq != ftagent_idle_seq || ftagent_idle_acked) {
		err = -ESTALE;
		goto out;
	}
	for_each_possible_cpu(cpu) {
		struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);

		ftagent_table_clear(&ct->gen[!ftagent_active()]);
	}
	ftagent_idle_acked = true;
out:
	mutex_unlock(&ftagent_gen_lock);
	return err;
}

static void ftagent_flush_work_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(ftagent_interval_ms);

	mutex_lock(&ftagent_gen_lock);
	ftagent_swap_locked();	/* -EBUSY: the consumer is behind; retry */
	mutex_unlock(&ftagent_gen_lock);
	if (ms)
		schedule_delayed_work(&ftagent_flush_work,
				      msecs_to_jiffies(ms));
}

void ftagent_counters_set_interval(unsigned int ms)
{
	WRITE_ONCE(ftagent_interval_ms, ms);
	if (ms)
		mod_delayed_work(system_wq, &ftagent_flush_work,
				 msecs_to_jiffies(ms));
	else
		cancel_delayed_work_sync(&ftagent_flush_work);
}

unsigned int ftagent_counters_capacity(void)
{
	return ftagent_capacity;
}

size_t ftagent_counters_memory(void)
{
	return num_possible_cpus() *
	       (sizeof(struct ftagent_cpu_tables) +
		2 * sizeof(struct ftagent_slot) * (ftagent_slot_mask + 1));
}

u64 ftagent_counters_flushes(void)
{
	u64 n;

	mutex_lock(&ftagent_gen_lock);
	n = ftagent_flush_count;
	mutex_unlock(&ftagent_gen_lock);
	return n;
}

u64 ftagent_counters_idle_seq_locked(bool *acked)
{
	lockdep_assert_held(&ftagent_gen_lock);
	*acked = ftagent_idle_acked;
	return ftagent_idle_seq;
}

u64 ftagent_counters_idle_seq(bool *acked)
{
	u64 seq;

	mutex_lock(&ftagent_gen_lock);
	seq = ftagent_counters_idle_seq_locked(acked);
	mutex_unlock(&ftagent_gen_lock);
	return seq;
}

/* Racy reads of another CPU's figures: fine for statistics. */
void ftagent_counters_cpu_totals(int cpu, struct ftagent_cpu_view *v)
{
	struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);

	v->fill = READ_ONCE(ct->gen[ftagent_active()].fill);
	v->peak = READ_ONCE(ct->peak);
	v->entries = 0;
	memcpy(v->lost, ct->lost_total, sizeof(v->lost));
}

void ftagent_counters_dump_lock(void)
{
	mutex_lock(&ftagent_gen_lock);
}

void ftagent_counters_dump_unlock(void)
{
	mutex_unlock(&ftagent_gen_lock);
}

/* Caller holds ftagent_gen_lock: the idle generation is stable. */
void ftagent_counters_cpu_idle(int cpu, struct ftagent_cpu_view *v)
{
	struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);
	struct ftagent_table *t = &ct->gen[!ftagent_active()];

	v->fill = t->fill;
	v->entries = t->fill;
	v->peak = ct->peak;
	memcpy(v->lost, t->lost, sizeof(v->lost));
}

bool ftagent_counters_idle_next(int cpu, u32 *slot,
				struct ftagent_counter *out)
{
	struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);
	struct ftagent_table *t = &ct->gen[!ftagent_active()];
	const struct ftagent_slot *s;

	/* ABI 0.6 appended protocol_full to the 64 bytes of 0.5. */
	BUILD_BUG_ON(sizeof(struct ftagent_counter) != 72);
	BUILD_BUG_ON(offsetof(struct ftagent_counter, protocol_full) !=
		     FTAGENT_COUNTER_SIZE_V5);
	/* An idle daemon dumps empty tables: don't walk their slots. */
	if (!t->fill)
		return false;
	for (; *slot <= ftagent_slot_mask; (*slot)++) {
		s = &t->slots[*slot];
		if (!s->key.kind)
			continue;
		memset(out, 0, sizeof(*out));
		out->tgid = s->key.tgid;
		out->kind = s->key.kind;
		out->family = s->key.family;
		/*
		 * The u8 of ABI 0.5: MPTCP as TCP, which daemons of 0.5
		 * count it as; protocol_full has it whole.
		 */
		if (s->key.protocol == IPPROTO_MPTCP)
			out->protocol = IPPROTO_TCP;
		else
			out->protocol = s->key.protocol <= U8_MAX ?
					s->key.protocol : 0;
		out->protocol_full = s->key.protocol;
		out->dev = new_encode_dev(s->key.dev);
		out->cpu = cpu;
		out->ino = s->key.ino;
		out->peer_ino = s->key.peer_ino;
		out->in = s->dir[FTAGENT_DIR_IN];
		out->out = s->dir[FTAGENT_DIR_OUT];
		(*slot)++;
		return true;
	}
	return false;
}

static void ftagent_counters_free(void)
{
	int cpu;

	if (!ftagent_tables)
		return;
	for_each_possible_cpu(cpu) {
		struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);

		kvfree(ct->gen[0].slots);
		kvfree(ct->gen[1].slots);
	}
	free_percpu(ftagent_tables);
	ftagent_tables = NULL;
}

int __init ftagent_counters_init(unsigned int capacity)
{
	size_t bytes;
	int cpu, g;

	ftagent_capacity = capacity;
	ftagent_slot_mask = roundup_pow_of_two(2 * capacity) - 1;
	bytes = sizeof(struct ftagent_slot) * (ftagent_slot_mask + 1);

	ftagent_tables = alloc_percpu(struct ftagent_cpu_tables);
	if (!ftagent_tables)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ftagent_cpu_tables *ct = per_cpu_ptr(ftagent_tables, cpu);

		for (g = 0; g < 2; g++) {
			ct->gen[g].slots = kvzalloc_node(bytes, GFP_KERNEL,
							 cpu_to_node(cpu));
			if (!ct->gen[g].slots) {
				ftagent_counters_free();
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/* Hooks are gone when this runs: nothing writes the tables any more. */
void ftagent_counters_exit(void)
{
	cancel_delayed_work_sync(&ftagent_flush_work);
	ftagent_counters_free();
}
