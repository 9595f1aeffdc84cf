// SPDX-License-Identifier: GPL-2.0
/*
 * The two drains. Order matters for "no count lost": a generation is
 * written to the journal before it is acknowledged, and records are
 * journaled as soon as they are read, before they are merged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "audit_verdicts.h"
#include "drain.h"

#define DUMP_TRIES 8
#define SWAP_TRIES 16

/* Dump the idle generation until a dump is consistent. */
static int dump(struct ftd_module *m, struct ftd_collector *c,
		struct ftagent_generation *gen, struct ftnl_error *err)
{
	int tries;

	for (tries = 0; tries < DUMP_TRIES; tries++) {
		if (ftagent_dump_generation(&m->stats, gen, err) < 0) {
			/*
			 * The kernel had no memory for a part (ENOBUFS), or
			 * still ran a dump given up on earlier (EBUSY; ftnl
			 * reads it out): the dump is redone whole.
			 */
			if (err->err == ENOBUFS || err->err == EBUSY) {
				c->drops[FTD_DROP_DUMP_RETRY]++;
				continue;
			}
			return -1;
		}
		if (!gen->interrupted)
			return 0;
		/* NLM_F_DUMP_INTR: the generation changed under the dump. */
		c->drops[FTD_DROP_DUMP_RETRY]++;
		ftagent_generation_free(gen);
	}
	err->err = EAGAIN;
	snprintf(err->msg, sizeof(err->msg), "no consistent dump in %d tries",
		 DUMP_TRIES);
	return -1;
}

static int consume_idle(struct ftd_module *m, struct ftd_collector *c,
			struct ftd_state *st, struct ftnl_error *err)
{
	struct ftagent_generation gen;
	uint64_t seq;

	if (dump(m, c, &gen, err) < 0)
		return -1;
	seq = gen.seq;
	if (gen.acked) {
		ftagent_generation_free(&gen);
		return 0;
	}
	/*
	 * A generation the journal already holds (the daemon died between
	 * journaling and acknowledging it) is acknowledged, not merged again.
	 */
	if (!(c->generations && seq <= c->last_gen_seq)) {
		/*
		 * Not journaled, not safe: neither merged nor acknowledged.
		 * The module keeps it (and counts on in its active
		 * generation) until a later tick can write it.
		 */
		if (ftd_state_log_generation(st, &gen) < 0) {
			ftagent_generation_free(&gen);
			err->err = EIO;
			snprintf(err->msg, sizeof(err->msg),
				 "generation %llu left in the module: %.200s",
				 (unsigned long long)seq, st->error);
			return -1;
		}
		pthread_mutex_lock(&c->lock);
		ftd_collector_generation(c, &gen);
		pthread_mutex_unlock(&c->lock);
	}
	ftagent_generation_free(&gen);
	if (ftagent_ack_generation(&m->ctl, seq, err) < 0 && err->err != ESTALE)
		return -1;
	return 0;
}

int ftd_drain_idle_generation(struct ftd_module *m, struct ftd_collector *c,
			      struct ftd_state *st, char *why, size_t why_len)
{
	struct ftnl_error err = {0};
	char msg[384];

	if (consume_idle(m, c, st, &err) == 0)
		return 0;
	snprintf(why, why_len, "counters: %s",
		 ftnl_format_error(&err, msg, sizeof(msg)));
	return -1;
}

int ftd_drain_counters(struct ftd_module *m, struct ftd_collector *c,
		       struct ftd_state *st, char *why, size_t why_len)
{
	struct ftnl_error err = {0};
	char msg[384];
	uint64_t seq;
	int tries;

	/* The module's timer may swap too: consume, swap, until ours goes. */
	for (tries = 0; tries < SWAP_TRIES; tries++) {
		if (consume_idle(m, c, st, &err) < 0)
			goto fail;
		if (ftagent_flush(&m->ctl, &seq, &err) == 0) {
			if (consume_idle(m, c, st, &err) < 0)
				goto fail;
			return 0;
		}
		if (err.err != EBUSY)
			goto fail;
	}
	err.err = EBUSY;
	snprintf(err.msg, sizeof(err.msg), "could not swap generations");
fail:
	snprintf(why, why_len, "counters: %s",
		 ftnl_format_error(&err, msg, sizeof(msg)));
	return -1;
}

int ftd_events_open(struct ftd_event_drain *d)
{
	int rc;

	d->open = 0;
	rc = ftagent_events_mount(NULL);
	if (rc == 0)
		rc = ftagent_events_open(&d->reader, NULL);
	if (rc < 0) {
		snprintf(d->error, sizeof(d->error), "event files %s: %s",
			 FTAGENT_FS_MOUNTPOINT, strerror(-rc));
		return -1;
	}
	d->open = 1;
	return 0;
}

void ftd_events_close(struct ftd_event_drain *d)
{
	if (d->open)
		ftagent_events_close(&d->reader);
	d->open = 0;
}

void ftd_events_trim(struct ftd_event_drain *d)
{
	ftagent_events_trim(&d->reader);
	free(d->batch);
	d->batch = NULL;
	d->batch_len = d->batch_cap = 0;
}

static int batch_add(const struct ftagent_rec *rec, void *arg)
{
	struct ftd_event_drain *d = arg;
	size_t size = rec->hdr->size;

	if (d->batch_len + size > d->batch_cap) {
		size_t cap = d->batch_cap ? d->batch_cap : 1 << 16;
		unsigned char *b;

		while (cap < d->batch_len + size)
			cap *= 2;
		b = realloc(d->batch, cap);
		if (!b)
			return -1;
		d->batch = b;
		d->batch_cap = cap;
	}
	memcpy(d->batch + d->batch_len, rec->hdr, size);
	d->batch_len += size;
	return 0;
}

struct rec_ref {
	uint64_t time_ns, seq;
	uint32_t cpu;
	size_t off, size;
};

static int by_time(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Put one drain's records (@len bytes of whole records at *@batch, sorted
 * in place) in the order they were written, across CPUs
 * (the module's clock is monotonic; per CPU the order stays as read): a
 * child's EXIT read from one CPU's file before its FORK from another's
 * would otherwise be merged first, and the FORK would give the exited
 * process its parent's name. The journal gets them in this order too.
 * 0, or -1 (left as read: no memory, or not whole records).
 */
int ftd_records_in_time_order(unsigned char **batch, size_t len)
{
	struct rec_ref *refs = NULL;
	unsigned char *sorted;
	size_t n = 0, cap = 0, off, i, at;
	int rc = -1;

	for (off = 0; off < len;) {
		struct ftagent_rec rec;
		size_t used;

		if (ftagent_rec_next(*batch + off, len - off, &rec, &used,
				     NULL) != FTAGENT_REC_OK)
			break;
		if (n == cap) {
			struct rec_ref *r;

			cap = cap ? 2 * cap : 256;
			r = realloc(refs, cap * sizeof(*r));
			if (!r)
				goto out;
			refs = r;
		}
		refs[n++] = (struct rec_ref){rec.hdr->time_ns, rec.hdr->seq,
					     rec.hdr->cpu, off, used};
		off += used;
	}
	if (n < 2 || off != len) {
		rc = n < 2 && off == len ? 0 : -1;
		goto out;
	}
	sorted = malloc(len);
	if (!sorted)
		goto out;
	qsort(refs, n, sizeof(*refs), by_time);
	for (i = 0, at = 0; i < n; i++) {
		memcpy(sorted + at, *batch + refs[i].off, refs[i].size);
		at += refs[i].size;
	}
	memcpy(*batch, sorted, len);
	free(sorted);
	rc = 0;
out:
	free(refs);
	return rc;
}

long ftd_drain_events(struct ftd_event_drain *d, struct ftd_collector *c,
		      struct ftd_state *st)
{
	const char *why = NULL;
	uint64_t offset, appended;
	size_t off;
	long n = 0;
	unsigned int i;
	int failed = 0;

	if (!d->open)
		return 0;
	d->batch_len = 0;
	if (ftagent_events_drain(&d->reader, batch_add, d, &why) < 0) {
		failed = 1;
		snprintf(d->error, sizeof(d->error), "event files: %s",
			 why ? why : strerror(errno));
		/* A BAD stream: count it, and start the CPU's stream over. */
		for (i = 0; i < d->reader.n; i++) {
			if (!d->reader.streams[i].bad)
				continue;
			d->bad_streams++;
			c->drops[FTD_DROP_BAD_RECORD]++;
			ftagent_rec_stream_init(&d->reader.streams[i]);
		}
	}
	if (!d->batch_len)
		return failed ? -1 : 0;
	ftd_records_in_time_order(&d->batch, d->batch_len);
	offset = ftd_record_realtime_ns(0);
	/* Before the journal: a replayed record never reaches the trail. */
	if (d->audit)
		ftd_audit_verdicts(d->audit, c, d->batch, d->batch_len, offset);
	/*
	 * Read records are gone from the module: a journal that can't take
	 * them only costs them across a crash (counted, and said).
	 */
	if (ftd_state_log_records(st, d->batch, d->batch_len, offset) < 0) {
		snprintf(d->error, sizeof(d->error), "state: %.380s",
			 st->error);
		failed = 1;
	}
	pthread_mutex_lock(&c->lock);
	c->queue_bytes = d->batch_len;
	if (c->queue_bytes > c->queue_peak)
		c->queue_peak = c->queue_bytes;
	for (off = 0; off < d->batch_len;) {
		struct ftagent_rec rec;
		size_t used;

		if (ftagent_rec_next(d->batch + off, d->batch_len - off, &rec,
				     &used, NULL) != FTAGENT_REC_OK)
			break;
		appended = c->log.appended;
		ftd_collector_event_at(c, &rec, rec.hdr->time_ns + offset);
		/* As logged (with its comm), so file and API agree. */
		if (d->output && c->log.appended != appended)
			ftd_event_output_add(d->output,
					     ftd_eventlog_newest(&c->log));
		off += used;
		n++;
	}
	pthread_mutex_unlock(&c->lock);
	if (d->output && ftd_event_output_flush(d->output) < 0) {
		snprintf(d->error, sizeof(d->error), "%s", d->output->error);
		failed = 1;
	}
	return failed ? -1 : n;
}
