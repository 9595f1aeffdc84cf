// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: the command-line view of ftagent. This file only parses the
 * global options before the command and dispatches to one file per
 * command (each describes itself in a struct ftctl_command).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../lib/api_client.h"
#include "../lib/api_version.h"
#include "../lib/ftnl.h"
#include "../lib/status.h"
#include "ftctl.h"

const struct ftctl_command *const ftctl_commands[] = {
	&ftctl_cmd_stats,     &ftctl_cmd_top,	   &ftctl_cmd_events,
	&ftctl_cmd_policy,    &ftctl_cmd_budget,   &ftctl_cmd_audit,
	&ftctl_cmd_selfcheck, &ftctl_cmd_version,  &ftctl_cmd_doctor,
	&ftctl_cmd_help,      &ftctl_cmd_complete, NULL,
};

const struct ftctl_command *ftctl_find_command(const char *name)
{
	size_t i;

	for (i = 0; ftctl_commands[i]; i++)
		if (!strcmp(name, ftctl_commands[i]->name))
			return ftctl_commands[i];
	return NULL;
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
			"ftctl: %s: permission denied: needs CAP_SYS_ADMIN "
			"(run as root)\n",
			what);
		return FTCTL_FAILED;
	}
	fprintf(stderr, "ftctl: %s: %s\n", what,
		ftnl_format_error(err, msg, sizeof(msg)));
	return FTCTL_FAILED;
}

/* ftctl --version: this program alone, no module nor daemon asked. */
static void print_version(void)
{
	printf("ftctl %s (module ABI %s, API %d.%d)\n", FTAGENTD_VERSION,
	       FTAGENT_ABI_STRING, FTAGENT_API_MAJOR, FTAGENT_API_MINOR);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, FTCTL_OPT_JSON},
		{"no-header", no_argument, NULL, FTCTL_OPT_NO_HEADER},
		{"socket", required_argument, NULL, FTCTL_OPT_SOCKET},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const struct ftctl_command *cmd;
	struct ftctl_opts opts = {0};
	int c;

	opterr = 0;
	/* '+': stop at the command; what follows is the command's. */
	while ((c = getopt_long(argc, argv, "+:hV", longopts, NULL)) != -1) {
		switch (c) {
		case FTCTL_OPT_JSON: opts.json = 1; break;
		case FTCTL_OPT_NO_HEADER: opts.no_header = 1; break;
		case FTCTL_OPT_SOCKET:
			ftagent_api_set_socket_path(optarg);
			break;
		case 'h': ftctl_help(stdout); return FTCTL_OK;
		case 'V': print_version(); return FTCTL_OK;
		case ':':
			fprintf(stderr, "ftctl: option '%s' needs a value\n",
				argv[optind - 1]);
			ftctl_help(stderr);
			return FTCTL_USAGE;
		default:
			if (optopt)
				fprintf(stderr, "ftctl: unknown option '-%c'\n",
					optopt);
			else
				fprintf(stderr, "ftctl: unknown option '%s'\n",
					argv[optind - 1]);
			ftctl_help(stderr);
			return FTCTL_USAGE;
		}
	}
	if (optind == argc) {
		ftctl_help(stderr);
		return FTCTL_USAGE;
	}
	cmd = ftctl_find_command(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "ftctl: unknown command '%s'\n", argv[optind]);
		ftctl_help(stderr);
		return FTCTL_USAGE;
	}
	return cmd->run(&opts, argc - optind, argv + optind);
}
