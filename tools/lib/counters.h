/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the module's counter generations and resources.
 */
#ifndef FTAGENT_LIB_COUNTERS_H
#define FTAGENT_LIB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"

/*
 * Per-CPU figures of one generation (dump) or since load (resources).
 * The ev_* event figures come with resources only: records generated
 * (each takes a sequence number), written, lost by enum ftagent_event_loss,
 * and the most bytes the CPU's buffer held.
 */
struct ftagent_cpu_stats {
	uint32_t cpu;
	uint32_t fill, peak, entries;
	uint64_t lost[__FTAGENT_LOSS_MAX];
	uint64_t ev_emitted, ev_delivered, ev_peak_bytes;
	uint64_t ev_discarded; /* delivered, then dropped with the channel */
	uint64_t ev_lost[__FTAGENT_EV_LOSS_MAX];
};

/* Every event record lost on a CPU, all causes. */
uint64_t ftagent_cpu_ev_lost(const struct ftagent_cpu_stats *c);

/*
 * Decode an EV_LOST nest (one u64 per cause, attribute type = enum
 * ftagent_event_loss + 1) into @lost, zeroed first; causes of a newer
 * minor ABI are skipped. 0, or -1 for a wrongly typed attribute.
 */
int ftagent_ev_lost_parse(const struct nlattr *nest,
			  uint64_t lost[__FTAGENT_EV_LOSS_MAX]);

/*
 * A counter's socket protocol, whole: protocol_full from ABI 0.6 on (an
 * older module leaves it 0, and its u8 protocol is all there is).
 */
static inline unsigned int ftagent_counter_protocol(
	const struct ftagent_counter *k)
{
	return k->protocol_full ? k->protocol_full : k->protocol;
}

/* One dumped generation: its counters, as the module sent them. */
struct ftagent_generation {
	uint64_t seq;
	int acked;	 /* already acknowledged when dumped */
	int interrupted; /* NLM_F_DUMP_INTR seen: redo the dump */
	struct ftagent_counter *counters;
	size_t n_counters, cap_counters;
	struct ftagent_cpu_stats *cpus;
	size_t n_cpus, cap_cpus;
};

void ftagent_generation_free(struct ftagent_generation *gen);

/* Decode one DUMP_COUNTERS message into @gen (appending). MNL_CB_*. */
int ftagent_generation_parse(const struct nlmsghdr *nlh,
			     struct ftagent_generation *gen);

/* Dump the idle generation. 0, or -1 with @err. */
int ftagent_dump_generation(struct ftnl *stats, struct ftagent_generation *gen,
			    struct ftnl_error *err);
/* FLUSH: swap generations; *@seq is the new idle one. -1 with @err. */
int ftagent_flush(struct ftnl *ctl, uint64_t *seq, struct ftnl_error *err);
/* ACK_GENERATION @seq. 0, or -1 with @err. */
int ftagent_ack_generation(struct ftnl *ctl, uint64_t seq,
			   struct ftnl_error *err);

/*
 * Collect everything counted up to now: consume any unacknowledged idle
 * generation, swap, consume the one that became idle. Calls @fn for each
 * consumed generation. Returns 0, or -1 with @err.
 */
typedef void (*ftagent_generation_fn)(const struct ftagent_generation *gen,
				      void *data);
int ftagent_collect(struct ftnl *ctl, struct ftnl *stats,
		    ftagent_generation_fn fn, void *data,
		    struct ftnl_error *err);

/*
 * Read without consuming: dump the idle generation and, when nobody has
 * acknowledged it yet, call @fn with it; no swap, no acknowledgement, so
 * the daemon still gets every count. What the active generation holds is
 * not readable this way. *@seen: 1 when @fn was called. 0, or -1 with @err.
 */
int ftagent_peek_idle(struct ftnl *stats, ftagent_generation_fn fn, void *data,
		      int *seen, struct ftnl_error *err);

/* Module resources (GET_RESOURCES). */
struct ftagent_hook_stats {
	char name[64];
	uint32_t kind, state, error;
	uint64_t hits, missed;
};

struct ftagent_resources {
	uint32_t mode, hooks, state, nr_cpus, table_capacity, gen_acked;
	uint64_t memory_bytes, flush_count, gen_seq;
	/* The event channel: all CPUs' bytes, and each CPU's sub-buffers. */
	uint32_t ring_buffer_size, subbuf_size, n_subbufs;
	/* Processes excluded now; exclusions the module could not record. */
	uint32_t excluded_tgids;
	uint64_t exclude_missed;
	struct ftagent_cpu_stats *cpus;
	size_t n_cpus, cap_cpus;
	struct ftagent_hook_stats *hook;
	size_t n_hooks, cap_hooks;
};

void ftagent_resources_free(struct ftagent_resources *res);
/* How many hooks are in each enum ftagent_hook_state. */
void ftagent_hook_states(const struct ftagent_resources *res,
			 unsigned int counts[__FTAGENT_HOOK_STATE_MAX]);
int ftagent_resources_parse(const struct nlmsghdr *nlh,
			    struct ftagent_resources *res);
int ftagent_get_resources(struct ftnl *stats, struct ftagent_resources *res,
			  struct ftnl_error *err);

const char *ftagent_mode_name(uint32_t mode);
const char *ftagent_hooks_name(uint32_t hooks);
const char *ftagent_hook_state_name(uint32_t state);
const char *ftagent_loss_name(unsigned int cause);

#endif /* FTAGENT_LIB_COUNTERS_H */
