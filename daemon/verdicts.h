/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdicts by rule (or budget), action and verdict, counted from the
 * VERDICT records the daemon drains, for the Prometheus page. The
 * module's own per-rule figures (GET_POLICY hits, GET_BUDGETS usage)
 * start again when a set is replaced; these only grow while the daemon
 * runs and are saved with the collector. A record lost on the way is
 * not counted here, but is in ftagent_events_dropped_total.
 *
 * Bounded like the process groups (groups.h): never evicted; a verdict
 * of a new name once the table is full is counted under FTD_VERDICT_OTHER.
 */
#ifndef FTAGENTD_VERDICTS_H
#define FTAGENTD_VERDICTS_H

#include <stdint.h>
#include <linux/ftagent.h>

#include "table.h"

/* Longer than a record's rule_name can be: no rule has these names. */
#define FTD_VERDICT_DEFAULT "(default rule)"
#define FTD_VERDICT_OTHER   "(other rules)"
#define FTD_VERDICTS_MAX    4096

struct ftd_verdict_key {
	char name[FTAGENT_RULE_NAME_MAX + 1]; /* rule or budget */
	uint8_t source;			      /* FTAGENT_VERDICT_SRC_* */
	uint8_t action;			      /* enum ftagent_action */
	uint8_t verdict;		      /* enum ftagent_verdict */
	uint8_t pad[5];
};

struct ftd_verdict_count {
	struct ftd_verdict_key key;
	uint64_t n;
};

struct ftd_verdicts {
	struct ftd_table table;
	uint64_t overflow; /* verdicts counted under FTD_VERDICT_OTHER */
};

int ftd_verdicts_init(struct ftd_verdicts *v);
void ftd_verdicts_free(struct ftd_verdicts *v);
/* Count one VERDICT record's body. */
void ftd_verdicts_add(struct ftd_verdicts *v,
		      const struct ftagent_rec_verdict *r);

#endif /* FTAGENTD_VERDICTS_H */
