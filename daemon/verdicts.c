// SPDX-License-Identifier: GPL-2.0
/* Verdicts by rule, action and verdict (verdicts.h). */
#include <string.h>

#include "verdicts.h"

int ftd_verdicts_init(struct ftd_verdicts *v)
{
	memset(v, 0, sizeof(*v));
	return ftd_table_init(&v->table, "verdicts", FTD_VERDICTS_MAX,
			      sizeof(struct ftd_verdict_key),
			      sizeof(struct ftd_verdict_count));
}

void ftd_verdicts_free(struct ftd_verdicts *v)
{
	ftd_table_free(&v->table);
}

void ftd_verdicts_add(struct ftd_verdicts *v,
		      const struct ftagent_rec_verdict *r)
{
	struct ftd_verdict_key k = {0};
	struct ftd_verdict_count *c;
	size_t len;

	k.source = r->source;
	k.action = r->action;
	k.verdict = r->verdict;
	if (r->source == FTAGENT_VERDICT_SRC_RULE &&
	    r->rule == FTAGENT_RULE_DEFAULT) {
		strcpy(k.name, FTD_VERDICT_DEFAULT);
	} else {
		len = strnlen(r->rule_name, sizeof(r->rule_name));
		memcpy(k.name, r->rule_name, len);
	}
	c = ftd_table_find(&v->table, &k);
	/* Never evict (that would be a reset); the last row is for other. */
	if (!c && v->table.used + 1 >= v->table.capacity) {
		memset(k.name, 0, sizeof(k.name));
		strcpy(k.name, FTD_VERDICT_OTHER);
		c = ftd_table_find(&v->table, &k);
		v->overflow++;
	}
	if (!c)
		c = ftd_table_get(&v->table, &k, NULL);
	c->n++;
}
