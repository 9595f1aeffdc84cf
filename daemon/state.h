/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lets ftagentd restart (or crash) without losing a count.
 *
 * The module keeps a counter generation until it is acknowledged, so a
 * generation is safe in the kernel until ftagentd says it has it. What
 * ftagentd has merged must then survive the daemon: before each
 * acknowledgement the generation is appended to a journal, and every
 * event record read from the relay files is appended too. Now and then
 * the whole collector is written as a snapshot and the journal starts
 * over. At start the snapshot is loaded and the journal replayed through
 * the same merge code; a generation the kernel still offers whose number
 * the journal already holds is acknowledged without merging it twice.
 *
 * The files live on tmpfs (/run/ftagent by default): they survive the
 * daemon, not a reboot, and so do the module's counters.
 */
#ifndef FTAGENTD_STATE_H
#define FTAGENTD_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "collector.h"

struct ftagent_generation;

struct ftd_state {
	char dir[256];
	int journal_fd;
	uint64_t journal_bytes;
	uint64_t snapshots, snapshot_errors, journal_errors;
	uint64_t replayed_generations, replayed_records;
	char error[640]; /* the last failure, for logs and stats */
};

/*
 * Open (creating @dir if needed), load the snapshot into @c and replay
 * the journal. A missing state is a fresh start; a damaged snapshot or
 * journal is reported in @st->error, the damaged part skipped, and 1
 * returned so the caller can log it. 0 on a clean load, -1 when the
 * directory can't be used at all.
 */
int ftd_state_open(struct ftd_state *st, const char *dir,
		   struct ftd_collector *c);
void ftd_state_close(struct ftd_state *st);

/*
 * Only one ftagentd at a time: create @dir if needed and take an
 * exclusive lock on @dir/lock (flock, dropped by the kernel when the
 * process dies, kill -9 included), writing our pid in it. The locked
 * descriptor, kept open for the daemon's life, or -1 with @why saying
 * which daemon holds it.
 */
int ftd_state_lock(const char *dir, char *why, size_t why_len);

/* Append a generation about to be acknowledged. 0, or -1. */
int ftd_state_log_generation(struct ftd_state *st,
			     const struct ftagent_generation *gen);
/* Append event records just read (@len bytes of whole records). */
int ftd_state_log_records(struct ftd_state *st, const void *recs, size_t len,
			  uint64_t realtime_offset_ns);
/* Write a snapshot of @c and truncate the journal. 0, or -1. */
int ftd_state_snapshot(struct ftd_state *st, const struct ftd_collector *c);

#endif /* FTAGENTD_STATE_H */
