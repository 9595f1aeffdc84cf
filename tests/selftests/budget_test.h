/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the budget selftests share: setting, clearing and reading back a
 * budget set, and a budget scoped to the test's own process subtree.
 */
#ifndef FTAGENT_BUDGET_TEST_H
#define FTAGENT_BUDGET_TEST_H

#include "gate_test.h"
#include "../../tools/lib/budgets.h"

static inline int set_budgets(struct ftagent_budget_set *s,
			      struct ftnl_error *err)
{
	uint64_t gen;

	return ftagent_set_budgets(ctl(), s, &gen, err);
}

static inline int clear_budgets(void)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;

	return set_budgets(&s, &err);
}

/* A budget on this process and its descendants. */
static inline struct ftagent_budget_spec *budget(struct ftagent_budget_set *s,
						 const char *name,
						 uint32_t metric,
						 uint64_t limit,
						 uint32_t window_ms)
{
	struct ftagent_budget_spec *b = ftagent_budget_set_add(s);

	if (!b)
		abort();
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->metric = metric;
	b->limit = limit;
	b->window_ms = window_ms;
	b->set |= FTAGENT_RULE_SET_SUBTREE;
	b->subtree = getpid();
	return b;
}

/* The first budget of the set the module holds, with its usage. */
static inline int get_one(struct ftagent_budget_spec *out)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	int rc = ftagent_get_budgets(ctl(), &s, &err);

	if (rc == 0 && s.n >= 1)
		*out = s.b[0];
	else
		rc = -1;
	ftagent_budget_set_free(&s);
	return rc;
}

#endif /* FTAGENT_BUDGET_TEST_H */
