/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit trail's writer ([audit], docs/audit.md): records appended to
 * DIR/audit.jsonl, hash-chained (tools/lib/audit_chain.h), one write()
 * each, so a killed daemon leaves whole lines behind; fsync()ed every
 * fsync_batch records or fsync_interval, whichever comes first, so a
 * host crash loses at most that many. Past rotate_size the file is
 * renamed audit-SEQ.jsonl (SEQ: its first record) and the next file
 * starts with a "rotated" record naming it.
 *
 * At start the chain resumes from the newest file; a last line that a
 * crash cut short, or that does not check out, is left as it is and
 * followed by a "damaged" record that names it. A record that could not
 * be written is counted and followed, at the next write that works, by
 * a "lost" record saying how many went missing: nothing leaves the
 * trail silently.
 */
#ifndef FTAGENTD_AUDIT_H
#define FTAGENTD_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "../tools/lib/audit_chain.h"
#include "../tools/lib/config.h"

struct ftd_audit {
	int fd; /* DIR/audit.jsonl, or -1: off or not open */
	/* On, but the file could not be opened or was closed on an error:
	 * records are counted as lost until the next open works. */
	int broken;
	char dir[256];
	uint64_t rotate_size, fsync_batch, fsync_interval_ns;
	/* The chain: the last record written, and this file's first. */
	uint64_t seq, file_first_seq, file_bytes;
	char last_hash[FTAGENT_AUDIT_HEX_LEN + 1];
	/* Written since the last fsync, and when the first of them was. */
	uint64_t unsynced, unsynced_since_ns;
	/* Records that did not reach the file since the last that did. */
	uint64_t lost_pending;
	char *line; /* the line being composed */
	size_t line_cap;
	/* For stats and metrics; kept across reopening. */
	uint64_t written, lost, errors, fsyncs, rotations, damaged;
	char error[320]; /* the last failure */
};

/* A closed writer (fd -1), counters at zero. */
void ftd_audit_init(struct ftd_audit *a);
/*
 * Open the trail as @cfg says (nothing when it is off), resume its
 * chain and append a "start" record. 0, or -1 with a->error.
 */
int ftd_audit_open(struct ftd_audit *a, const struct ftagentd_config *cfg);
/* fsync what is pending, close. Counters stay. */
void ftd_audit_close(struct ftd_audit *a);
static inline int ftd_audit_on(const struct ftd_audit *a)
{
	return a->fd >= 0;
}
/*
 * Append one record: @kind, @record_json (a JSON object's text), stamped
 * with the wall clock @realtime_ns. 0, or -1 (counted; a->error).
 */
int ftd_audit_append(struct ftd_audit *a, uint64_t realtime_ns,
		     const char *kind, const char *record_json);
/* fsync now if records wait and fsync_interval has passed since the
 * first of them (@now_ns: CLOCK_MONOTONIC). */
void ftd_audit_tick(struct ftd_audit *a, uint64_t now_ns);
/* Milliseconds until ftd_audit_tick() has an fsync due; 0: none waits. */
uint64_t ftd_audit_due_ms(const struct ftd_audit *a, uint64_t now_ns);

#endif /* FTAGENTD_AUDIT_H */
