// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: the command-line view of ftagent. This file only parses global
 * options and dispatches to one file per command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../lib/ftnl.h"
#include "ftctl.h"

static const struct {
	const char *name;
	int (*run)(const struct ftctl_opts *opts, int argc, char **argv);
	const char *help;
} commands[] = {
	{"stats", ftctl_cmd_stats,
	 "the daemon's and the module's figures; stats resources [--watch]"},
	{"version", ftctl_cmd_version, "show client and module versions"},
	{"selfcheck", ftctl_cmd_selfcheck, "prove that every hook fires"},
	{"top", ftctl_cmd_top, "bytes and calls per process, live or --once"},
	{"policy", ftctl_cmd_policy, "show | check FILE | load FILE: rules"},
	{"budget", ftctl_cmd_budget, "show: usage of each budget"},
	{"events", ftctl_cmd_events,
	 "recent events (--since 5m, --type exec, ...): needs ftagentd"},
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: ftctl [--json] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].help);
	fprintf(out, "\noptions:\n  --json     machine-readable output\n");
}

int ftctl_report_query_error(const char *what, const struct ftnl_error *err)
{
	char msg[384];

	if (err->err == ENOENT && !err->msg[0]) {
		fprintf(stderr,
			"ftctl: %s: the ftagent module is not loaded (modprobe "
			"ftagent)\n",
			what);
		return FTCTL_NO_MODULE;
	}
	if (err->err == EPERM) {
		fprintf(stderr,
			"ftctl: %s: permission denied: needs CAP_NET_ADMIN "
			"(run as root)\n",
			what);
		return FTCTL_FAILED;
	}
	fprintf(stderr, "ftctl: %s: %s\n", what,
		ftnl_format_error(err, msg, sizeof(msg)));
	return FTCTL_FAILED;
}

int main(int argc, char **argv)
{
	struct ftctl_opts opts = {0};
	int i = 1;
	size_t c;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json")) {
			opts.json = 1;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			usage(stdout);
			return FTCTL_OK;
		} else {
			fprintf(stderr, "ftctl: unknown option '%s'\n",
				argv[i]);
			usage(stderr);
			return FTCTL_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return FTCTL_USAGE;
	}
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].run(&opts, argc - i - 1,
					       argv + i + 1);
	fprintf(stderr, "ftctl: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return FTCTL_USAGE;
}
