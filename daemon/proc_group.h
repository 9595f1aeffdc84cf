/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which group ([metrics] group_by) a process of the collector's
 * processes table is in, and learning what that takes when the records
 * don't say it: the executable or the cgroup of a process that started
 * before the daemon, read from /proc when it is first seen (only when
 * the collector reads /proc at all: not in tests or replay).
 */
#ifndef FTAGENTD_PROC_GROUP_H
#define FTAGENTD_PROC_GROUP_H

#include "collector.h"

/* Cgroup ids whose unit is remembered (proc_unit.h), most recent first. */
#define FTD_UNIT_CACHE 1024

struct ftd_unit_entry {
	uint64_t cgroup_id;
	char unit[FTD_GROUP_NAME_MAX];
};

/* A row just made for @p: fill what its group needs from /proc. */
void ftd_proc_group_first_sight(struct ftd_collector *c, struct ftd_proc *p);
/* @p's cgroup id was just set from an exec record. */
void ftd_proc_group_cgroup_known(struct ftd_collector *c, struct ftd_proc *p);
/* @p's group name ("" when unknown); not for group_by = pid. */
const char *ftd_proc_group_name(const struct ftd_collector *c,
				const struct ftd_proc *p);

#endif /* FTAGENTD_PROC_GROUP_H */
