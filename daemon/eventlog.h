/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event log: the last event records received, bounded in bytes
 * ([agent] event_log_size). Entries keep the record as the module wrote
 * it, plus the wall-clock time and the process's command name at
 * arrival; when a new entry does not fit, the oldest ones age out and
 * are counted. Queries filter by time, type, pid and command name.
 */
#ifndef FTAGENTD_EVENTLOG_H
#define FTAGENTD_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

struct ftd_event {
	uint64_t realtime_ns; /* CLOCK_REALTIME of the record's time */
	char comm[FTAGENT_COMM_LEN];
	size_t rec_size;
	/* The record: header, body, strings (rec_size bytes, 8-aligned). */
	uint64_t rec[];
};

struct ftd_eventlog {
	struct ftd_event **ring;
	size_t cap, head, n; /* ring slots; the oldest is ring[head] */
	size_t bytes, limit; /* accounted bytes held, and the bound */
	uint64_t appended, aged_out;
	uint64_t too_big; /* records larger than the whole log */
};

/* What an entry costs against the bound. */
size_t ftd_event_cost(size_t rec_size);

int ftd_eventlog_init(struct ftd_eventlog *log, size_t limit_bytes);
void ftd_eventlog_free(struct ftd_eventlog *log);
/*
 * Append a copy of @rec (@size bytes). Ages out the oldest entries as
 * needed. 0, or -1 when the record alone is larger than the bound
 * (counted in too_big) or memory ran out.
 */
int ftd_eventlog_append(struct ftd_eventlog *log, const void *rec, size_t size,
			uint64_t realtime_ns, const char *comm);
/* Change the bound (config reload); ages out what no longer fits. */
void ftd_eventlog_set_limit(struct ftd_eventlog *log, size_t limit_bytes);

/* The entry appended last, or NULL when the log is empty. */
const struct ftd_event *ftd_eventlog_newest(const struct ftd_eventlog *log);

struct ftd_event_query {
	uint64_t since_ns, until_ns; /* realtime; until 0: no bound */
	uint32_t type_mask;	     /* bits (1 << type); 0: all */
	uint32_t pid;		     /* tgid or pid; 0: all */
	char comm[FTAGENT_COMM_LEN]; /* exact; "": all */
	size_t limit;		     /* the newest @limit matches; 0: all */
};

/*
 * Call @fn for each matching entry, oldest first (the newest @limit
 * ones when a limit is set). Returns the number of matches passed.
 */
size_t ftd_eventlog_query(const struct ftd_eventlog *log,
			  const struct ftd_event_query *q,
			  void (*fn)(const struct ftd_event *ev, void *arg),
			  void *arg);

/*
 * Entries have positions: the Nth entry ever appended is at N (from 1),
 * so the newest is at log->appended, and a reader that remembers the
 * last position it saw can ask for what came after it, whatever aged
 * out meanwhile (ftctl events --follow).
 */
struct ftd_eventlog_cursor {
	uint64_t after;	  /* in: entries at positions above this */
	uint64_t next;	  /* out: the last position looked at */
	uint64_t skipped; /* out: entries above @after that aged out unread */
	int more;	  /* out: matches remain past @next (limit reached) */
};

/*
 * Call @fn for each matching entry after @cur->after, oldest first, at
 * most @q->limit of them (0: all). Unlike ftd_eventlog_query() the limit
 * keeps the oldest matches, so a reader pages forward without a gap.
 * Returns the number of matches passed.
 */
size_t ftd_eventlog_read_after(
	const struct ftd_eventlog *log, const struct ftd_event_query *q,
	struct ftd_eventlog_cursor *cur,
	void (*fn)(const struct ftd_event *ev, void *arg), void *arg);

#endif /* FTAGENTD_EVENTLOG_H */
