/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counter tables, two generations each: the active one takes
 * updates from the hooks, the idle one waits to be dumped and acknowledged.
 */
#ifndef _FTAGENT_COUNTERS_H
#define _FTAGENT_COUNTERS_H

#include <linux/types.h>
#include <linux/ftagent.h>

/* What a counter is keyed by; the zero kind marks an empty slot. */
struct ftagent_key {
	u32 tgid;
	u16 kind;		/* enum ftagent_obj_kind */
	u8 family;
	u8 protocol;
	u32 dev;		/* new_encode_dev(), as stat(2) reports it */
	u32 pad;
	u64 ino;
	u64 peer_ino;
};

enum ftagent_dir { FTAGENT_DIR_IN, FTAGENT_DIR_OUT };

int ftagent_counters_init(unsigned int capacity);
void ftagent_counters_exit(void);

/*
 * Hot path: charge one returned call to @key. Caller has preemption off.
 * @ret is the call's return value: >= 0 bytes, < 0 an errno.
 */
void ftagent_counter_charge(const struct ftagent_key *key,
			    enum ftagent_dir dir, long ret);
/* Hot path: count a loss of @cause on this CPU (preemption off). */
void ftagent_count_loss(enum ftagent_loss cause);

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
