// SPDX-License-Identifier: GPL-2.0
/* Which group a process is in (proc_group.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc_group.h"
#include "proc_unit.h"

static void remember_unit(struct ftd_collector *c, uint64_t id,
			  const char *path)
{
	struct ftd_unit_entry *u;
	char unit[FTD_GROUP_NAME_MAX];

	if (!id || ftd_unit_of_cgroup(path, unit, sizeof(unit)) < 0)
		return;
	/* A cache: the entry idle longest goes, and is read again if needed. */
	u = ftd_table_get(&c->units, &id, NULL);
	strcpy(u->unit, unit);
}

static void read_cgroup(struct ftd_collector *c, struct ftd_proc *p)
{
	char path[FTD_GROUP_NAME_MAX * 4];
	uint64_t id = 0;

	if (ftd_proc_cgroup(p->key.tgid, c->cgroup_root, path, sizeof(path),
			    &id) < 0)
		return;
	/* The record's id wins: the process may have moved since. */
	if (!p->cgroup_id)
		p->cgroup_id = id;
	if (id == p->cgroup_id)
		remember_unit(c, id, path);
}

void ftd_proc_group_first_sight(struct ftd_collector *c, struct ftd_proc *p)
{
	char path[64];
	ssize_t n;

	if (!c->read_proc_names)
		return;
	switch (c->groups.by) {
	case FTAGENTD_GROUP_EXECUTABLE:
		snprintf(path, sizeof(path), "/proc/%u/exe", p->key.tgid);
		n = readlink(path, p->exe, sizeof(p->exe) - 1);
		p->exe[n > 0 ? n : 0] = '\0';
		break;
	case FTAGENTD_GROUP_UNIT: read_cgroup(c, p); break;
	default: break;
	}
}

void ftd_proc_group_cgroup_known(struct ftd_collector *c, struct ftd_proc *p)
{
	if (c->read_proc_names && c->groups.by == FTAGENTD_GROUP_UNIT &&
	    !ftd_table_find(&c->units, &p->cgroup_id))
		read_cgroup(c, p);
}

const char *ftd_proc_group_name(const struct ftd_collector *c,
				const struct ftd_proc *p)
{
	const struct ftd_unit_entry *u;

	switch (c->groups.by) {
	case FTAGENTD_GROUP_EXECUTABLE: return p->exe;
	case FTAGENTD_GROUP_UNIT:
		u = p->cgroup_id ? ftd_table_find(&c->units, &p->cgroup_id)
				 : NULL;
		return u ? u->unit : "";
	default: return p->comm;
	}
}
