// SPDX-License-Identifier: GPL-2.0
/* Bytes by process group (groups.h). */
#include <errno.h>
#include <string.h>

#include "../tools/lib/config.h"
#include "groups.h"

int ftd_groups_init(struct ftd_groups *g, uint32_t by, size_t limit)
{
	memset(g, 0, sizeof(*g));
	g->by = by;
	strcpy(g->other.key.name, FTD_GROUP_OTHER);
	return ftd_table_init(&g->table, "groups", limit,
			      sizeof(struct ftd_group_key),
			      sizeof(struct ftd_group));
}

void ftd_groups_free(struct ftd_groups *g)
{
	ftd_table_free(&g->table);
}

static void key_of(struct ftd_group_key *k, const char *name)
{
	memset(k, 0, sizeof(*k));
	strncpy(k->name, *name ? name : FTD_GROUP_UNKNOWN, sizeof(k->name) - 1);
}

const struct ftd_group *ftd_groups_find(const struct ftd_groups *g,
					const char *name)
{
	struct ftd_group_key k;

	key_of(&k, name);
	return ftd_table_find(&g->table, &k);
}

void ftd_groups_add(struct ftd_groups *g, const char *name,
		    enum ftd_group_object object, uint64_t in, uint64_t out)
{
	struct ftd_group_key k;
	struct ftd_group *grp;

	/* Per process, the page reads the processes table itself. */
	if ((!in && !out) || g->by == FTAGENTD_GROUP_PID)
		return;
	key_of(&k, name);
	grp = ftd_table_find(&g->table, &k);
	/* Never evict: a group that went away would be a counter reset. */
	if (!grp && g->table.used < g->table.capacity)
		grp = ftd_table_get(&g->table, &k, NULL);
	if (!grp) {
		grp = &g->other;
		g->overflow++;
	}
	grp->bytes[object][FTD_MD_IN] += in;
	grp->bytes[object][FTD_MD_OUT] += out;
}
