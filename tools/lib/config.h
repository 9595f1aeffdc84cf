/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentd's configuration: /etc/ftagent/ftagent.conf, INI sections as in
 * docs/config.md. A file is taken whole or not at all: the first bad line
 * is reported as FILE:LINE: [section] key: reason, and the caller keeps
 * the configuration it had.
 */
#ifndef FTAGENTD_CONFIG_H
#define FTAGENTD_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

#include "policy_config.h"

#define FTAGENTD_CONFIG_PATH "/etc/ftagent/ftagent.conf"
#define FTAGENTD_LIST_MAX    64
#define FTAGENTD_NAME_MAX    1024
#define FTAGENTD_AUDIT_DIR   "/var/log/ftagent/audit"
/* Every event type but GAP (a loss marker, not an event). */
#define FTAGENTD_ALL_EVENT_TYPES                                               \
	(((1u << __FTAGENT_REC_MAX) - 1) & ~(1u << FTAGENT_REC_GAP))

/*
 * How the page's per-process series are grouped ([metrics] group_by):
 * by command name, executable path, systemd unit, or one series set per
 * process (pid, opt-in: a host's pid churn is unbounded).
 */
enum ftagentd_group_by {
	FTAGENTD_GROUP_COMMAND,
	FTAGENTD_GROUP_EXECUTABLE,
	FTAGENTD_GROUP_UNIT,
	FTAGENTD_GROUP_PID,
	__FTAGENTD_GROUP_MAX
};

/* "command", ...; "unknown" when out of range. */
const char *ftagentd_group_by_name(unsigned int by);

struct ftagentd_list {
	char *item[FTAGENTD_LIST_MAX];
	size_t n;
};

struct ftagentd_config {
	struct {
		uint32_t mode;		   /* enum ftagent_mode */
		uint32_t hooks;		   /* enum ftagent_hook_set */
		uint64_t ring_buffer_size; /* bytes, 0: the mode's default */
		uint64_t flush_interval_ms;
		uint64_t event_log_size; /* bytes */
		/* Events as JSON lines too: "" none, "journal", or a path. */
		char event_output[256];
		/* The event types event_output gets: bits (1 << type). */
		uint32_t event_output_types;
	} agent;
	struct {
		uint64_t processes, sockets, flows, files, transfers;
		uint64_t kernel_counters, metric_series;
	} limits;
	struct {
		int tcp, udp, ipv4, ipv6;
	} network;
	struct {
		int track_read, track_sendfile;
	} file;
	struct {
		struct ftagentd_list exclude_processes, exclude_paths;
	} filters;
	struct {
		char listen[128];     /* "" : off */
		uint32_t group_by;    /* enum ftagentd_group_by */
		uint64_t group_limit; /* groups with series of their own */
	} metrics;
	/*
	 * The audit trail (docs/audit.md): every verdict and every change of
	 * the sets in force, hash-chained, in files under @dir.
	 */
	struct {
		int enabled;
		char dir[256];
		uint64_t rotate_size; /* bytes: a file past it is rotated */
		uint64_t fsync_batch; /* records between fsyncs, at most */
		uint64_t fsync_interval_ms; /* and time between them */
	} audit;
	/* [policy] and [policy.NAME]: the rule set pushed to the module. */
	struct ftd_policy_config policy;
};

/* The defaults, as documented. */
void ftagentd_config_defaults(struct ftagentd_config *cfg);
void ftagentd_config_free(struct ftagentd_config *cfg);

/*
 * Parse @path into @cfg (defaults first, then the file). 0, or -1 with
 * @err (@err_size bytes) saying file, line, key and why; @cfg is then
 * freed and must not be used.
 */
int ftagentd_config_load(const char *path, struct ftagentd_config *cfg,
			 char *err, size_t err_size);
/* The same from a string, reported as @name. For tests and --check. */
int ftagentd_config_parse(const char *name, const char *text,
			  struct ftagentd_config *cfg, char *err,
			  size_t err_size);

#endif /* FTAGENTD_CONFIG_H */
