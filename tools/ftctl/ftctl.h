/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FTCTL_H
#define FTCTL_H

/*
 * Exit codes, documented in docs/ftctl.md:
 *   0  success
 *   1  the request failed (the message says why)
 *   2  usage error
 *   3  the module is not loaded
 *   4  the module speaks an incompatible ABI
 *   5  the command needs ftagentd, which is not running
 */
enum ftctl_exit {
	FTCTL_OK = 0,
	FTCTL_FAILED = 1,
	FTCTL_USAGE = 2,
	FTCTL_NO_MODULE = 3,
	FTCTL_ABI_MISMATCH = 4,
	FTCTL_NO_DAEMON = 5,
};

struct ftctl_opts {
	int json;
};

int ftctl_cmd_stats(const struct ftctl_opts *opts, int argc, char **argv);
int ftctl_cmd_version(const struct ftctl_opts *opts, int argc, char **argv);
int ftctl_cmd_selfcheck(const struct ftctl_opts *opts, int argc, char **argv);
int ftctl_cmd_top(const struct ftctl_opts *opts, int argc, char **argv);
int ftctl_cmd_policy(const struct ftctl_opts *opts, int argc, char **argv);
int ftctl_cmd_budget(const struct ftctl_opts *opts, int argc, char **argv);

struct ftagent_budget_set;
struct json_object;
/*
 * Budgets as text or JSON (cmd_budget.c): with @in_force the module's
 * usage, window left, refusals and alerts; without, a file's budgets as
 * `ftctl policy check` lists them.
 */
void ftctl_print_budgets(const struct ftagent_budget_set *s, int in_force);
struct json_object *ftctl_budgets_json(const struct ftagent_budget_set *s,
				       int in_force);
int ftctl_cmd_events(const struct ftctl_opts *opts, int argc, char **argv);

struct ftagent_status;
struct ftagent_resources;
/* Status and resources from the module, or the exit code to return. */
int ftctl_query_kernel(struct ftagent_status *st,
		       struct ftagent_resources *res);

/* Report a failed module query on stderr; returns the exit code to use. */
struct ftnl_error;
int ftctl_report_query_error(const char *what, const struct ftnl_error *err);

#endif /* FTCTL_H */
