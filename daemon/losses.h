/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event losses, counted in one place. The module owns the kernel's
 * losses (records never written, by cause, and records written but
 * dropped unread with a replaced channel): when ftagentd has read its
 * resources, its cumulative per-CPU counts are the figures; before that,
 * what the GAP markers in the stream reported. ftagentd owns its own
 * (bad records, records the event log could not store). The API
 * (COLLECTOR), ftctl's KERNEL section and the metrics page all report
 * these same figures. Not losses, and never counted here: counter dumps
 * redone (dump_retry) and records aged out of the event log (retention).
 */
#ifndef FTAGENTD_LOSSES_H
#define FTAGENTD_LOSSES_H

#include <stdint.h>
#include <linux/ftagent.h>

#include "collector.h"

struct ftagentd;

struct ftd_event_losses {
	uint64_t kernel[__FTAGENT_EV_LOSS_MAX]; /* by enum ftagent_event_loss */
	uint64_t discarded;			/* channel_discarded */
	uint64_t daemon[__FTD_DROP_MAX];	/* dump_retry always 0 */
	int from_module; /* kernel[] from GET_RESOURCES */
};

void ftd_event_losses(const struct ftagentd *d, struct ftd_event_losses *l);

/*
 * Every loss as two totals: event records (kernel, discarded and the
 * daemon's own) and counts the module could not take (every cause).
 */
void ftd_loss_totals(const struct ftagentd *d, uint64_t *events,
		     uint64_t *counters);

#endif /* FTAGENTD_LOSSES_H */
