/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bytes by process group, for the Prometheus page ([metrics] group_by):
 * by command name, executable or systemd unit, so that pid churn does not
 * make series without end.
 *
 * Counts are added as they are merged, to the group the process is in
 * at that moment. So a group's totals only grow: a process that exits,
 * or whose row is evicted from the processes table, takes nothing off
 * them, and one that changes group (an exec) leaves what it did so far
 * where it was. Groups are never evicted either (that would be a counter
 * reset): past [metrics] group_limit, a new group's counts go to one
 * group, FTD_GROUP_OTHER, and each count put there is counted (overflow).
 *
 * Single-threaded like the collector that owns it.
 */
#ifndef FTAGENTD_GROUPS_H
#define FTAGENTD_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "table.h"
#include "totals.h"

/*
 * Not names a process can have: a command is at most 15 bytes, an
 * executable an absolute path, a unit has no spaces.
 */
#define FTD_GROUP_OTHER	   "(other processes)"
#define FTD_GROUP_UNKNOWN  "(unknown)"
#define FTD_GROUP_NAME_MAX 256

struct ftd_group_key {
	char name[FTD_GROUP_NAME_MAX];
};

enum ftd_group_object { FTD_GO_SOCKET, FTD_GO_FILE, __FTD_GO_MAX };

struct ftd_group {
	struct ftd_group_key key;
	uint64_t bytes[__FTD_GO_MAX][__FTD_MD_MAX];
};

struct ftd_groups {
	uint32_t by; /* enum ftagentd_group_by: what the names are */
	struct ftd_table table;
	struct ftd_group other; /* FTD_GROUP_OTHER */
	uint64_t overflow; /* counts put in other because the table was full */
};

/* 0, or -1 (ENOMEM, EINVAL). */
int ftd_groups_init(struct ftd_groups *g, uint32_t by, size_t limit);
void ftd_groups_free(struct ftd_groups *g);

/*
 * Add @in and @out bytes of @object to the group @name ("" : unknown),
 * which is made if there is room, or to FTD_GROUP_OTHER if not.
 */
void ftd_groups_add(struct ftd_groups *g, const char *name,
		    enum ftd_group_object object, uint64_t in, uint64_t out);

/* The group @name, or NULL (not made: FTD_GROUP_OTHER holds its bytes). */
const struct ftd_group *ftd_groups_find(const struct ftd_groups *g,
					const char *name);

#endif /* FTAGENTD_GROUPS_H */
