/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector: what ftagentd knows, built from the module's counter
 * generations and event records. Five bounded tables (processes,
 * sockets, flows, files, transfers), the event log, and the daemon's own
 * figures. Everything here is single-threaded: the main loop feeds it,
 * and readers (API, metrics page) take the collector lock (collector.lock)
 * when they run on another thread.
 */
#ifndef FTAGENTD_COLLECTOR_H
#define FTAGENTD_COLLECTOR_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <linux/ftagent.h>

#include "../tools/lib/config.h"
#include "eventlog.h"
#include "groups.h"
#include "table.h"
#include "totals.h"
#include "verdicts.h"

struct ftd_counts {
	uint64_t bytes, calls, errors;
};

struct ftd_inout {
	struct ftd_counts in, out;
};

/* Processes, by tgid. Metadata comes from fork/exec/exit records. */
struct ftd_proc_key {
	uint32_t tgid;
};

struct ftd_proc {
	struct ftd_proc_key key;
	uint32_t ppid, uid;
	char comm[FTAGENT_COMM_LEN];
	char exe[256];
	uint64_t cgroup_id;
	uint64_t first_ns, last_ns; /* CLOCK_MONOTONIC */
	int exited;
	int32_t exit_code;
	struct ftagent_rec_exit io; /* the kernel's totals at exit */
	struct ftd_inout net, file, other;
};

/* Sockets, by (tgid, socket inode): one process's use of a socket. */
struct ftd_sock_key {
	uint32_t tgid;
	uint32_t pad;
	uint64_t ino;
};

/* A flow's identity: protocol and both ends. Zeros when unknown. */
struct ftd_flow_key {
	uint16_t family, protocol; /* protocol whole: IPPROTO_MPTCP is 262 */
	uint16_t local_port, remote_port;
	uint8_t local_addr[16], remote_addr[16];
};

struct ftd_sock {
	struct ftd_sock_key key;
	uint16_t family, protocol;
	int known;  /* the flow key below came from an event */
	int closed; /* a close record was seen */
	struct ftd_flow_key flow;
	struct ftd_inout io;
	uint64_t last_ns;
};

struct ftd_flow {
	struct ftd_flow_key key;
	struct ftd_inout io;
	uint64_t last_ns;
};

/* Files, by (dev, ino); path from the last open record seen. */
struct ftd_file_key {
	uint32_t dev;
	uint32_t pad;
	uint64_t ino;
};

struct ftd_file {
	struct ftd_file_key key;
	char path[256];
	int path_truncated;
	struct ftd_inout io;
	uint64_t last_ns;
};

/*
 * Transfers: bytes a process moved from a file to a socket. Direct ones
 * (sendfile, splice) the module counted; attributed ones are inferred
 * from a process reading files and sending on sockets in one generation.
 */
struct ftd_xfer_key {
	uint32_t tgid;
	uint32_t dev;
	uint64_t ino;
	uint64_t sock_ino;
	uint32_t attributed; /* 0: counted by the kernel; 1: inferred */
	uint32_t pad;
};

struct ftd_xfer {
	struct ftd_xfer_key key;
	uint64_t bytes, calls;
	uint64_t last_ns;
};

enum ftd_table_id {
	FTD_T_PROCESSES,
	FTD_T_SOCKETS,
	FTD_T_FLOWS,
	FTD_T_FILES,
	FTD_T_TRANSFERS,
	__FTD_T_MAX
};

/* Why the collector dropped something it received. */
enum ftd_drop {
	FTD_DROP_BAD_RECORD, /* a record failed validation */
	FTD_DROP_EVENT_LOG,  /* event log full: oldest entries aged out */
	FTD_DROP_DUMP_RETRY, /* counter dumps redone (ENOBUFS, DUMP_INTR) */
	__FTD_DROP_MAX
};

struct ftd_collector {
	pthread_mutex_t lock;
	struct ftd_table table[__FTD_T_MAX];
	struct ftd_eventlog log;
	int attribute_transfers; /* standard mode: infer read-then-send */
	/*
	 * Name a process first seen through its counters (it exec'd before
	 * the daemon started) from /proc/PID/comm. Off in tests and replay.
	 */
	int read_proc_names;

	/* Event records by enum ftagent_rec_type, as received. */
	uint64_t events[__FTAGENT_REC_MAX];
	/* Lost in the kernel, by enum ftagent_event_loss (from GAP records). */
	uint64_t events_lost[__FTAGENT_EV_LOSS_MAX];
	uint64_t drops[__FTD_DROP_MAX];
	/* Counter generations merged, and counters in them. */
	uint64_t generations, counters, last_gen_seq;
	/* Counters the kernel could not hold (counter_table), by cause. */
	uint64_t kernel_lost[__FTAGENT_LOSS_MAX];
	/* The event reader's queue: bytes per drain, and the most. */
	uint64_t queue_bytes, queue_peak, queue_capacity;
	uint64_t start_mono_ns; /* when this collector was created */
	/* Monotonic totals for the metrics page; survive table eviction. */
	struct ftd_metrics_totals totals;
	/* Bytes by process group ([metrics] group_by), for the page. */
	struct ftd_groups groups;
	/* Units by cgroup id (proc_group.h), for group_by = unit. */
	struct ftd_table units;
	const char *cgroup_root; /* where cgroup v2 is mounted */
	/* VERDICT records by rule, action and verdict, for the page. */
	struct ftd_verdicts verdicts;
};

int ftd_collector_init(struct ftd_collector *c,
		       const struct ftagentd_config *cfg);
void ftd_collector_free(struct ftd_collector *c);

/* Merge one event record (as decoded by records.h). */
struct ftagent_rec;
void ftd_collector_event(struct ftd_collector *c,
			 const struct ftagent_rec *rec);
/* The same, with the wall-clock time of the record given (replay). */
void ftd_collector_event_at(struct ftd_collector *c,
			    const struct ftagent_rec *rec,
			    uint64_t realtime_ns);
/* A clock, in nanoseconds. */
uint64_t ftd_clock_ns(clockid_t id);
/* CLOCK_REALTIME minus CLOCK_MONOTONIC now: monotonic times to wall time. */
uint64_t ftd_realtime_offset_ns(void);
/* CLOCK_REALTIME for a record's CLOCK_MONOTONIC time, as of now. */
uint64_t ftd_record_realtime_ns(uint64_t mono_ns);
/* Merge one dumped generation (counters and per-CPU losses). */
struct ftagent_generation;
void ftd_collector_generation(struct ftd_collector *c,
			      const struct ftagent_generation *gen);

const char *ftd_table_name(enum ftd_table_id id);
const char *ftd_drop_name(enum ftd_drop d);

#endif /* FTAGENTD_COLLECTOR_H */
