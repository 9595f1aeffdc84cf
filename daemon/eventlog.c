// SPDX-License-Identifier: GPL-2.0
/*
 * The event log: a ring of pointers to copied records, bounded by the
 * bytes the entries cost (record plus bookkeeping), not by their number,
 * so a burst of long exec records cannot grow the daemon past its bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"

size_t ftd_event_cost(size_t rec_size)
{
	return sizeof(struct ftd_event) + rec_size + sizeof(void *);
}

int ftd_eventlog_init(struct ftd_eventlog *log, size_t limit_bytes)
{
	memset(log, 0, sizeof(*log));
	log->limit = limit_bytes;
	return 0;
}

void ftd_eventlog_free(struct ftd_eventlog *log)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		free(log->ring[(log->head + i) % log->cap]);
	free(log->ring);
	memset(log, 0, sizeof(*log));
}

static void drop_oldest(struct ftd_eventlog *log)
{
	struct ftd_event *ev = log->ring[log->head];

	log->bytes -= ftd_event_cost(ev->rec_size);
	free(ev);
	log->ring[log->head] = NULL;
	log->head = (log->head + 1) % log->cap;
	log->n--;
	log->aged_out++;
}

static int grow(struct ftd_eventlog *log)
{
	size_t cap = log->cap ? 2 * log->cap : 256, i;
	struct ftd_event **ring = calloc(cap, sizeof(*ring));

	if (!ring)
		return -1;
	for (i = 0; i < log->n; i++)
		ring[i] = log->ring[(log->head + i) % log->cap];
	free(log->ring);
	log->ring = ring;
	log->cap = cap;
	log->head = 0;
	return 0;
}

int ftd_eventlog_append(struct ftd_eventlog *log, const void *rec, size_t size,
			uint64_t realtime_ns, const char *comm)
{
	size_t cost = ftd_event_cost(size);
	struct ftd_event *ev;

	if (cost > log->limit) {
		log->too_big++;
		errno = EMSGSIZE;
		return -1;
	}
	while (log->n && log->bytes + cost > log->limit)
		drop_oldest(log);
	if (log->n == log->cap && grow(log) < 0)
		return -1;
	ev = malloc(sizeof(*ev) + size);
	if (!ev)
		return -1;
	ev->realtime_ns = realtime_ns;
	memset(ev->comm, 0, sizeof(ev->comm));
	if (comm)
		strncpy(ev->comm, comm, sizeof(ev->comm) - 1);
	ev->rec_size = size;
	memcpy(ev->rec, rec, size);
	log->ring[(log->head + log->n) % log->cap] = ev;
	log->n++;
	log->bytes += cost;
	log->appended++;
	return 0;
}

void ftd_eventlog_set_limit(struct ftd_eventlog *log, size_t limit_bytes)
{
	log->limit = limit_bytes;
	while (log->n && log->bytes > log->limit)
		drop_oldest(log);
}

static int matches(const struct ftd_event *ev, const struct ftd_event_query *q)
{
	const struct ftagent_rec_hdr *hdr = (const void *)ev->rec;

	if (ev->realtime_ns < q->since_ns)
		return 0;
	if (q->until_ns && ev->realtime_ns > q->until_ns)
		return 0;
	if (q->type_mask &&
	    (hdr->type >= 32 || !(q->type_mask & (1u << hdr->type))))
		return 0;
	if (q->pid && hdr->tgid != q->pid && hdr->pid != q->pid)
		return 0;
	if (q->comm[0] && strncmp(q->comm, ev->comm, sizeof(ev->comm)))
		return 0;
	return 1;
}

size_t ftd_eventlog_query(const struct ftd_eventlog *log,
			  const struct ftd_event_query *q,
			  void (*fn)(const struct ftd_event *ev, void *arg),
			  void *arg)
{
	size_t i, total = 0, skip = 0, passed = 0;

	for (i = 0; i < log->n; i++)
		total += matches(log->ring[(log->head + i) % log->cap], q);
	if (q->limit && total > q->limit)
		skip = total - q->limit;
	for (i = 0; i < log->n; i++) {
		const struct ftd_event *ev =
			log->ring[(log->head + i) % log->cap];

		if (!matches(ev, q))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		fn(ev, arg);
		passed++;
	}
	return passed;
}

size_t ftd_eventlog_read_after(
	const struct ftd_eventlog *log, const struct ftd_event_query *q,
	struct ftd_eventlog_cursor *cur,
	void (*fn)(const struct ftd_event *ev, void *arg), void *arg)
{
	uint64_t oldest =
		log->appended - log->n + 1; /* position of ring[head] */
	size_t i, passed = 0;

	cur->more = 0;
	cur->skipped = cur->after + 1 < oldest ? oldest - 1 - cur->after : 0;
	/* A cursor past the newest entry: nothing new (the caller decides). */
	cur->next = cur->after < log->appended ? cur->after : log->appended;
	i = cur->after >= oldest ? (size_t)(cur->after - oldest + 1) : 0;
	for (; i < log->n; i++) {
		const struct ftd_event *ev =
			log->ring[(log->head + i) % log->cap];

		if (!matches(ev, q)) {
			cur->next = oldest + i;
			continue;
		}
		if (q->limit && passed == q->limit) {
			cur->more = 1;
			break;
		}
		fn(ev, arg);
		passed++;
		cur->next = oldest + i;
	}
	return passed;
}

const struct ftd_event *ftd_eventlog_newest(const struct ftd_eventlog *log)
{
	return log->n ? log->ring[(log->head + log->n - 1) % log->cap] : NULL;
}
