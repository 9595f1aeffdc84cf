/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events for log shippers ([agent] event_output): each event, as the API
 * renders it, also appended as one JSON line to a file, or sent to the
 * systemd journal with the JSON as MESSAGE and FTAGENT_* fields to filter
 * on. Lines of one drain go out in one write. The file is reopened on
 * SIGHUP, so logrotate can move it away and signal the daemon. The file
 * is mode 0640, group ftagent when there is one, for log shippers.
 */
#ifndef FTAGENTD_EVENT_OUTPUT_H
#define FTAGENTD_EVENT_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../tools/lib/config.h"
#include "eventlog.h"

struct ftd_event_output {
	int fd;	     /* the file, or -1 */
	int journal; /* send to the journal instead */
	/* The event types it takes ([agent] event_output_types): bits
	 * (1 << type); all by default. */
	uint32_t types;
	char path[256];
	char *buf; /* lines not yet written */
	size_t len, cap;
	/*
	 * Events written (file: once write() took them), events lost (a
	 * failed write or send: disk full, journald gone), failed calls.
	 * Kept across reopening (reload, reopen), for stats and metrics.
	 */
	uint64_t written, lost, errors;
	char error[320]; /* the last failure */
};

/* @where: "" (off), "journal" or a path. 0, or -1 with o->error. */
int ftd_event_output_open(struct ftd_event_output *o, const char *where);
/* The same on a closed @o, keeping its counts and last error. */
int ftd_event_output_reopen(struct ftd_event_output *o, const char *where);
void ftd_event_output_close(struct ftd_event_output *o);
static inline int ftd_event_output_on(const struct ftd_event_output *o)
{
	return o->fd >= 0 || o->journal;
}
/* Queue (file) or send (journal) one event. */
void ftd_event_output_add(struct ftd_event_output *o,
			  const struct ftd_event *ev);
/* Write what is queued. 0, or -1 (counted in lost and errors, said in
 * error). */
int ftd_event_output_flush(struct ftd_event_output *o);

#endif /* FTAGENTD_EVENT_OUTPUT_H */
