// SPDX-License-Identifier: GPL-2.0
/* Loss over the last hour (loss_window.h). */
#include "loss_window.h"

static const struct ftd_loss_sample *nth_oldest(const struct ftd_loss_window *w,
						unsigned int i)
{
	unsigned int first = (w->next + FTD_LOSS_WINDOW_SAMPLES - w->n) %
			     FTD_LOSS_WINDOW_SAMPLES;

	return &w->s[(first + i) % FTD_LOSS_WINDOW_SAMPLES];
}

void ftd_loss_window_note(struct ftd_loss_window *w, uint64_t mono_ns,
			  uint64_t events, uint64_t counters)
{
	struct ftd_loss_sample *s;

	if (w->n && mono_ns - nth_oldest(w, w->n - 1)->mono_ns <
			    FTD_LOSS_SAMPLE_EVERY_NS)
		return;
	s = &w->s[w->next];
	s->mono_ns = mono_ns;
	s->events = events;
	s->counters = counters;
	w->next = (w->next + 1) % FTD_LOSS_WINDOW_SAMPLES;
	if (w->n < FTD_LOSS_WINDOW_SAMPLES)
		w->n++;
}

/* A total that went down (a module reloaded under us) counts from 0. */
static uint64_t growth(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;
}

int ftd_loss_window_growth(const struct ftd_loss_window *w, uint64_t mono_ns,
			   uint64_t events, uint64_t counters,
			   uint64_t *window_s, uint64_t *d_events,
			   uint64_t *d_counters)
{
	const uint64_t hour_ns = FTD_LOSS_WINDOW_S * 1000000000ull;
	const struct ftd_loss_sample *base;
	unsigned int i;

	if (!w->n)
		return -1;
	base = nth_oldest(w, 0);
	for (i = 1; i < w->n; i++) {
		const struct ftd_loss_sample *s = nth_oldest(w, i);

		if (mono_ns - s->mono_ns < hour_ns)
			break;
		base = s;
	}
	*window_s = mono_ns > base->mono_ns
			    ? (mono_ns - base->mono_ns) / 1000000000ull
			    : 0;
	*d_events = growth(events, base->events);
	*d_counters = growth(counters, base->counters);
	return 0;
}
