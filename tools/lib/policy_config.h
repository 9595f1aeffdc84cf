/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy sections of the config file: [policy] (enforce, default)
 * and one [policy.NAME] per rule, in file order (the first rule that
 * matches decides). Compiled into the rule set the module takes
 * (tools/lib/policy.h); every value is checked here so --check-config
 * catches mistakes without the module, which checks again.
 */
#ifndef FTAGENTD_POLICY_CONFIG_H
#define FTAGENTD_POLICY_CONFIG_H

#include "budgets.h"
#include "policy.h"

/*
 * A rule or budget whose cgroup was given by path. The id (the
 * directory's inode) changes whenever the cgroup is made anew, as when
 * systemd restarts a service, so the path is kept and resolved again
 * before every push (ftd_policy_resolve), and whenever it may have
 * changed (daemon/cgroup_watch.c).
 */
struct ftd_cgroup_ref {
	int budget; /* 0: pc->spec.rules[index]; 1: pc->budgets.b[index] */
	size_t index;
	char path[1024];
};

struct ftd_policy_config {
	struct ftagent_policy_spec spec;
	int *line; /* each rule's first line, for messages */
	size_t line_cap;
	/* [budget.NAME] sections, in file order. */
	struct ftagent_budget_set budgets;
	int *budget_line;
	size_t budget_line_cap;
	unsigned int *budget_seen;	/* BUDGET_SEEN_* per budget */
	struct ftd_cgroup_ref *cgroups; /* cgroups given by path */
	size_t n_cgroups, cap_cgroups;
};

void ftd_policy_config_init(struct ftd_policy_config *pc);
void ftd_policy_config_free(struct ftd_policy_config *pc);

/*
 * Whether @section belongs to the policy ("policy", "policy.NAME",
 * "budget.NAME").
 */
int ftd_policy_section(const char *section);
/*
 * One key = value of a policy section, at @line. 0, or -1 with *@why (a
 * static reason).
 */
int ftd_policy_key(struct ftd_policy_config *pc, const char *section,
		   const char *name, const char *value, int line,
		   const char **why);
/*
 * After the whole file: every rule complete and consistent. 0, or -1
 * with @rule set to the index of the bad rule and *@why.
 */
int ftd_policy_check(const struct ftd_policy_config *pc, size_t *rule,
		     const char **why);
/* The same for the budgets. */
int ftd_budgets_check(const struct ftd_policy_config *pc, size_t *budget,
		      const char **why);

/*
 * The sets to push now: @pc's rules and budgets with every cgroup path
 * resolved to the id it has now. A rule or budget whose cgroup does not
 * exist (yet) is left out: no process can be in it, so the set decides
 * the same as with it, and it is put back once the cgroup appears.
 * @out and @out_b are initialised here; free them with
 * ftagent_policy_spec_free and ftagent_budget_set_free. The number left
 * out, their names in @missing ("NAME (PATH), ..."), or -1 (no memory).
 */
int ftd_policy_resolve(const struct ftd_policy_config *pc,
		       struct ftagent_policy_spec *out,
		       struct ftagent_budget_set *out_b, char *missing,
		       size_t missing_len);

#endif /* FTAGENTD_POLICY_CONFIG_H */
