/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 digests of what decides: the rule set, the budget set and the
 * filters, as the module reads them back. Two sets that decide alike
 * have the same digest (hit counts, budget usage and windows left are
 * not part of it), so the audit trail can name a set by its digest and
 * tell a change from a re-read.
 */
#ifndef FTAGENT_LIB_SET_DIGEST_H
#define FTAGENT_LIB_SET_DIGEST_H

#include "audit_chain.h"
#include "budgets.h"
#include "filters.h"
#include "policy.h"

void ftagent_policy_digest(const struct ftagent_policy_spec *p,
			   char out[FTAGENT_AUDIT_HEX_LEN + 1]);
void ftagent_budgets_digest(const struct ftagent_budget_set *s,
			    char out[FTAGENT_AUDIT_HEX_LEN + 1]);
void ftagent_filters_digest(const struct ftagent_filters *f,
			    char out[FTAGENT_AUDIT_HEX_LEN + 1]);

#endif /* FTAGENT_LIB_SET_DIGEST_H */
