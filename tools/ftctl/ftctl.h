/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FTCTL_H
#define FTCTL_H

#include <getopt.h>
#include <stdio.h>

/*
 * Exit codes, documented in docs/ftctl.md:
 *   0  success
 *   1  the request failed (the message says why); doctor: a check failed
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

/* The global options, which go before or after the command. */
struct ftctl_opts {
	int json;
	int no_header; /* leave out the line naming the columns */
};

/*
 * One command: what `ftctl help`, the usage messages and the shell
 * completion (`ftctl __complete`) say about it all comes from here, and
 * its options are parsed from the same table, so they cannot disagree.
 */
struct ftctl_command {
	const char *name;
	const char *summary; /* one line for `ftctl help` */
	const char *usage;   /* what follows "usage: ftctl [OPTIONS] " */
	/* Its own subcommands ("show", "check"...), NULL-terminated. */
	const char *const *words;
	/* Words after which a FILE operand follows (policy check FILE). */
	const char *const *file_words;
	const char *shortopts; /* getopt syntax, without the global ones */
	const struct option *longopts; /* zero-terminated; NULL: none */
	/* Values an option takes, for completion (NULL: any). */
	const char *const *(*values)(const char *long_name);
	int (*run)(struct ftctl_opts *opts, int argc, char **argv);
	int hidden; /* not listed (__complete) */
};

extern const struct ftctl_command ftctl_cmd_stats, ftctl_cmd_version,
	ftctl_cmd_selfcheck, ftctl_cmd_top, ftctl_cmd_policy, ftctl_cmd_budget,
	ftctl_cmd_events, ftctl_cmd_audit, ftctl_cmd_doctor, ftctl_cmd_help,
	ftctl_cmd_complete;

/* Every command, in the order `ftctl help` lists them; NULL-terminated. */
extern const struct ftctl_command *const ftctl_commands[];
const struct ftctl_command *ftctl_find_command(const char *name);

/* The global long options, zero-terminated (options.c). */
extern const struct option ftctl_global_longopts[];
/* Option values the global options use beyond 'h'. */
enum {
	FTCTL_OPT_JSON = 0x100,
	FTCTL_OPT_NO_HEADER,
	FTCTL_OPT_SOCKET,
	FTCTL_OPT_FIRST_LOCAL = 0x200, /* commands number theirs from here */
};

/*
 * A command's option, handed to its parser: 0 taken, -1 refused (the
 * parser has said why on stderr).
 */
typedef int (*ftctl_option_fn)(void *ctx, int opt, const char *arg);

/* What ftctl_parse_options() returns beside an operand index. */
#define FTCTL_PARSE_HELP  (-1) /* --help printed the usage: exit 0 */
#define FTCTL_PARSE_USAGE (-2) /* a bad option: usage on stderr, exit 2 */

/*
 * getopt_long over @argv (argv[0] is the command's name) with @cmd's
 * options and the global ones, in any order, "--opt value" or
 * "--opt=value". Global options go into @opts; the command's own to @fn.
 * Returns the index in @argv of the first operand (operands are moved
 * after the options), or FTCTL_PARSE_HELP or FTCTL_PARSE_USAGE.
 */
int ftctl_parse_options(const struct ftctl_command *cmd,
			struct ftctl_opts *opts, int argc, char **argv,
			ftctl_option_fn fn, void *ctx);
/* The exit code for a parse result that is not an operand index. */
int ftctl_parse_exit(int parsed);
/* ftctl's own usage: the global options and every command. */
void ftctl_help(FILE *out);
/* "usage: ftctl [OPTIONS] USAGE" and the global options, on @out. */
void ftctl_command_usage(const struct ftctl_command *cmd, FILE *out);
/* Say on stderr what is wrong, then the usage; returns FTCTL_USAGE. */
int ftctl_usage_error(const struct ftctl_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct ftagent_budget_set;
struct json_object;
/*
 * Budgets as text or JSON (cmd_budget.c): with @in_force the module's
 * usage, window left, refusals and alerts; without, a file's budgets as
 * `ftctl policy check` lists them. @header: the line naming the columns.
 */
void ftctl_print_budgets(const struct ftagent_budget_set *s, int in_force,
			 int header);
struct json_object *ftctl_budgets_json(const struct ftagent_budget_set *s,
				       int in_force);

struct ftagent_status;
struct ftagent_resources;
/* Status and resources from the module, or the exit code to return. */
int ftctl_query_kernel(struct ftagent_status *st,
		       struct ftagent_resources *res);

/* Report a failed module query on stderr; returns the exit code to use. */
struct ftnl_error;
int ftctl_report_query_error(const char *what, const struct ftnl_error *err);

#endif /* FTCTL_H */
