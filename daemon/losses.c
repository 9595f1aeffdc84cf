// SPDX-License-Identifier: GPL-2.0
/* Event losses, counted in one place (losses.h). */
#include <string.h>

#include "ftagentd.h"
#include "losses.h"

void ftd_event_losses(const struct ftagentd *d, struct ftd_event_losses *l)
{
	const struct ftd_collector *c = &d->col;
	unsigned int k;
	size_t i;

	memset(l, 0, sizeof(*l));
	if (d->have_res) {
		l->from_module = 1;
		for (i = 0; i < d->res.n_cpus; i++) {
			for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
				l->kernel[k] += d->res.cpus[i].ev_lost[k];
			l->discarded += d->res.cpus[i].ev_discarded;
		}
	} else {
		memcpy(l->kernel, c->events_lost, sizeof(l->kernel));
	}
	memcpy(l->daemon, c->drops, sizeof(l->daemon));
	l->daemon[FTD_DROP_DUMP_RETRY] = 0; /* a retry, not a loss */
}

void ftd_loss_totals(const struct ftagentd *d, uint64_t *events,
		     uint64_t *counters)
{
	struct ftd_event_losses l;
	unsigned int k;

	ftd_event_losses(d, &l);
	*events = l.discarded;
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		*events += l.kernel[k];
	for (k = 0; k < __FTD_DROP_MAX; k++)
		*events += l.daemon[k];
	*counters = 0;
	for (k = 0; k < __FTAGENT_LOSS_MAX; k++)
		*counters += d->col.kernel_lost[k];
}
