/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loss over the last hour. The loss counters (losses.h, the collector's
 * counter_table_lost) only ever grow, since the module loaded or the
 * daemon started; an operator asking "is it losing now?" needs their
 * growth over a recent window. The daemon keeps one sample of the totals
 * a minute, for a bit more than an hour, and answers with the growth
 * since the newest sample at least an hour old (or since the oldest one,
 * with the shorter window said, while the daemon is younger than that).
 */
#ifndef FTAGENTD_LOSS_WINDOW_H
#define FTAGENTD_LOSS_WINDOW_H

#include <stdint.h>

#define FTD_LOSS_WINDOW_S	 3600u
#define FTD_LOSS_SAMPLE_EVERY_NS (60ull * 1000000000ull)
/* An hour of one-minute samples, and the one at its far end. */
#define FTD_LOSS_WINDOW_SAMPLES 64

struct ftd_loss_sample {
	uint64_t mono_ns;
	uint64_t events;   /* event records lost, every cause */
	uint64_t counters; /* counts the module could not take */
};

struct ftd_loss_window {
	struct ftd_loss_sample s[FTD_LOSS_WINDOW_SAMPLES];
	unsigned int n, next; /* samples held; where the next one goes */
};

/* Keep @now's totals if the last kept sample is a minute old (or none). */
void ftd_loss_window_note(struct ftd_loss_window *w, uint64_t mono_ns,
			  uint64_t events, uint64_t counters);

/*
 * The growth from the baseline sample to the totals given: the newest
 * sample at least FTD_LOSS_WINDOW_S old, else the oldest. *@window_s:
 * the seconds it covers. 0, or -1 when nothing was noted yet.
 */
int ftd_loss_window_growth(const struct ftd_loss_window *w, uint64_t mono_ns,
			   uint64_t events, uint64_t counters,
			   uint64_t *window_s, uint64_t *d_events,
			   uint64_t *d_counters);

#endif /* FTAGENTD_LOSS_WINDOW_H */
