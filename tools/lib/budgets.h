/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's budgets (SET_BUDGETS, GET_BUDGETS), as plain structs; the
 * module checks every value and names the budget it refuses.
 */
#ifndef FTAGENT_LIB_BUDGETS_H
#define FTAGENT_LIB_BUDGETS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"
#include "policy.h"

struct ftagent_budget_spec {
	char name[FTAGENT_RULE_NAME_MAX + 1];
	uint32_t metric; /* enum ftagent_budget_metric */
	uint64_t limit, alert_at;
	uint32_t window_ms;
	int enforce, kill;
	/* Principal: FTAGENT_RULE_SET_UID, _COMM, _CGROUP, _EXE, _SUBTREE. */
	unsigned int set;
	uint32_t uid, subtree;
	char comm[FTAGENT_COMM_LEN];
	uint64_t cgroup_id;
	char exe_prefix[FTAGENT_RULE_PREFIX_MAX + 1];
	/* GET_BUDGETS */
	uint64_t used, denied, alerts;
	uint32_t window_left_ms;
};

struct ftagent_budget_set {
	struct ftagent_budget_spec *b;
	size_t n, cap;
};

void ftagent_budget_set_free(struct ftagent_budget_set *s);
/* A new budget (enforced, no kill) at the end, or NULL. */
struct ftagent_budget_spec *ftagent_budget_set_add(
	struct ftagent_budget_set *s);
int ftagent_set_budgets(struct ftnl *ctl, const struct ftagent_budget_set *s,
			uint64_t *generation, struct ftnl_error *err);
int ftagent_get_budgets(struct ftnl *ctl, struct ftagent_budget_set *s,
			struct ftnl_error *err);
/* As ftagent_policy_msg_size(), _put() and _parse() (policy.h). */
size_t ftagent_budgets_msg_size(const struct ftagent_budget_set *s);
void ftagent_budgets_put(struct nlmsghdr *req,
			 const struct ftagent_budget_set *s);
int ftagent_budgets_parse(const struct nlmsghdr *nlh,
			  struct ftagent_budget_set *s);
/* 1 when @a and @b hold the same budgets in order (usage aside). */
int ftagent_budget_set_equal(const struct ftagent_budget_set *a,
			     const struct ftagent_budget_set *b);
/* Whether @metric counts bytes (else calls). */
int ftagent_metric_is_bytes(unsigned int metric);
/* "bytes_sent", ...; "unknown". */
const char *ftagent_metric_name(unsigned int metric);

#endif /* FTAGENT_LIB_BUDGETS_H */
