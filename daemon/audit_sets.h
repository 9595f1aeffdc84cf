/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changes of the sets in force (rules, budgets, filters) into the audit
 * trail. ftagentd pushes sets itself, but `ftctl policy load` and any
 * netlink client talk to the module directly; so the sets are read back
 * from the module (GET_POLICY, GET_BUDGETS, GET_FILTERS) after each push
 * of ours and, for changes made by others, on the daemon's ticks, at
 * most once a CHECK_INTERVAL. A set whose digest (set_digest.h) or, for
 * rules, generation moved gets a "change" record: which set, its
 * generation (rules only: the module does not report the budget set's),
 * digest and size, and who: "ftagentd" after its own push, "seen" for a
 * change it did not make, "start" for the sets found at start.
 */
#ifndef FTAGENTD_AUDIT_SETS_H
#define FTAGENTD_AUDIT_SETS_H

#include <stdint.h>

#include "../tools/lib/audit_chain.h"
#include "audit.h"
#include "module.h"

#define FTD_AUDIT_SETS_CHECK_NS 1000000000ull

struct ftd_audit_sets {
	int known[3]; /* policy, budgets, filters read at least once */
	uint64_t policy_generation;
	char digest[3][FTAGENT_AUDIT_HEX_LEN + 1];
	uint64_t last_check_ns; /* CLOCK_MONOTONIC */
	uint64_t read_errors;
};

/*
 * Read the sets and record those that changed since the last read,
 * saying @by. @now_ns: CLOCK_MONOTONIC. Nothing when the trail is off.
 */
void ftd_audit_sets_check(struct ftd_audit_sets *s, struct ftd_audit *a,
			  struct ftd_module *m, const char *by,
			  uint64_t now_ns);
/* The same on a tick: only once FTD_AUDIT_SETS_CHECK_NS has passed. */
void ftd_audit_sets_tick(struct ftd_audit_sets *s, struct ftd_audit *a,
			 struct ftd_module *m, uint64_t now_ns);

#endif /* FTAGENTD_AUDIT_SETS_H */
