/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentd's link to the module: the start-up handshake (is it loaded,
 * does it speak our ABI) and pushing the config's module settings and
 * filters.
 */
#ifndef FTAGENTD_MODULE_H
#define FTAGENTD_MODULE_H

#include <stddef.h>

#include "../tools/lib/ftnl.h"
#include "../tools/lib/status.h"
#include "../tools/lib/config.h"

/* ftagentd's exit codes (docs/ftagentd.md). */
enum ftagentd_exit {
	FTAGENTD_EXIT_OK = 0,
	FTAGENTD_EXIT_FAILED = 1,
	FTAGENTD_EXIT_USAGE = 2,
	FTAGENTD_EXIT_NO_MODULE = 3,
	FTAGENTD_EXIT_ABI = 4,
	FTAGENTD_EXIT_BUSY = 5,	  /* another ftagentd holds the state dir */
	FTAGENTD_EXIT_CONFIG = 6, /* the config file is bad */
};

struct ftd_module {
	struct ftnl ctl, stats; /* requests; dumps on stats */
	struct ftagent_status status;
};

/*
 * Features by the ABI minor that brought them. A module of the same
 * major and a smaller minor runs with what it has; ftd_module_missing()
 * names what it lacks ("" when nothing).
 */
#define FTD_MINOR_POLICY 4 /* SET/GET_POLICY, SET/GET_BUDGETS */
const char *ftd_module_missing(const struct ftd_module *m);

/*
 * Open both families and check the ABI. Returns FTAGENTD_EXIT_OK, or the
 * exit code to use with @why (@why_len bytes) saying what is wrong.
 */
int ftd_module_connect(struct ftd_module *m, char *why, size_t why_len);
void ftd_module_close(struct ftd_module *m);

/*
 * Push @cfg's mode, hooks, ring buffer size (only what differs from the
 * module's current state, as changing them re-attaches hooks or replaces
 * the event channel) and filters. *@channel_replaced says whether the
 * event files must be reopened. 0, or -1 with @why (the module's reason).
 */
int ftd_module_apply(struct ftd_module *m, const struct ftagentd_config *cfg,
		     int *channel_replaced, char *why, size_t why_len);

/*
 * Push @cfg's policy rules and budgets (nothing, and 0, on a module
 * older than FTD_MINOR_POLICY: the caller says so), with cgroup paths resolved as
 * they are now (ftd_policy_resolve), each set only when it differs from
 * the one in force. @missing gets the rules and budgets left out because
 * their cgroup does not exist yet ("" when none). 0, or -1 with @why.
 */
int ftd_module_apply_policy(struct ftd_module *m,
			    const struct ftagentd_config *cfg, char *missing,
			    size_t missing_len, char *why, size_t why_len);

#endif /* FTAGENTD_MODULE_H */
