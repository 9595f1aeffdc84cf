/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Draining the module: the counter generations (consume the idle one,
 * swap, consume again; journal each before acknowledging it) and the
 * relay files (read every CPU's file, journal the records, merge them).
 */
#ifndef FTAGENTD_DRAIN_H
#define FTAGENTD_DRAIN_H

#include <stddef.h>

#include "../tools/lib/events_reader.h"
#include "audit.h"
#include "collector.h"
#include "event_output.h"
#include "module.h"
#include "state.h"

/* Collect every counter taken up to now. 0, or -1 with @why. */
int ftd_drain_counters(struct ftd_module *m, struct ftd_collector *c,
		       struct ftd_state *st, char *why, size_t why_len);
/*
 * Only the generation the module's own timer swapped out, if any: no
 * swap, so the counters of the last flush interval wait in the active
 * one. The cheap look of an idle tick. 0, or -1 with @why.
 */
int ftd_drain_idle_generation(struct ftd_module *m, struct ftd_collector *c,
			      struct ftd_state *st, char *why, size_t why_len);

struct ftd_event_drain {
	struct ftagent_events_reader reader;
	int open;
	unsigned char *batch; /* records of one drain, for the journal */
	size_t batch_len, batch_cap;
	uint64_t bad_streams; /* CPU streams that went bad and were reset */
	struct ftd_event_output *output; /* events for log shippers, or NULL */
	struct ftd_audit *audit;	 /* verdicts go to the trail, or NULL */
	char error[400];
};

/* Mount the module's filesystem if needed and open every CPU's file. */
int ftd_events_open(struct ftd_event_drain *d);
void ftd_events_close(struct ftd_event_drain *d);
/*
 * Free the read batch, grown by a burst, and the reader's read buffer;
 * the next drain allocates them again.
 */
void ftd_events_trim(struct ftd_event_drain *d);
/*
 * Sort @len bytes of whole records at *@batch, in place, into the order
 * they were written across CPUs (time, then CPU and sequence). 0, or -1
 * (left as they were).
 */
int ftd_records_in_time_order(unsigned char **batch, size_t len);
/*
 * Read and merge everything waiting. Records merged, or -1 with d->error
 * when anything failed (a BAD stream, the journal, event_output); what
 * was read is merged all the same.
 */
long ftd_drain_events(struct ftd_event_drain *d, struct ftd_collector *c,
		      struct ftd_state *st);

#endif /* FTAGENTD_DRAIN_H */
