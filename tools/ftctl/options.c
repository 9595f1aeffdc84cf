// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing shared by every ftctl command: getopt_long over the
 * command's own options and the global ones, so `--json` and `--socket`
 * work after the command as before it, `--opt=value` as `--opt value`,
 * and `-h`/`--help` on every command prints that command's usage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../lib/api_client.h"
#include "ftctl.h"

const struct option ftctl_global_longopts[] = {
	{"json", no_argument, NULL, FTCTL_OPT_JSON},
	{"no-header", no_argument, NULL, FTCTL_OPT_NO_HEADER},
	{"socket", required_argument, NULL, FTCTL_OPT_SOCKET},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

#define OPTS_MAX 32

void ftctl_command_usage(const struct ftctl_command *cmd, FILE *out)
{
	fprintf(out, "usage: ftctl [OPTIONS] %s\n", cmd->usage);
	if (cmd->summary)
		fprintf(out, "%s\n", cmd->summary);
	fprintf(out, "\nglobal options (before or after the command):\n"
		     "  --json         machine-readable output\n"
		     "  --no-header    no line naming the columns\n"
		     "  --socket PATH  ftagentd's API socket\n"
		     "  -h, --help     this text\n");
}

int ftctl_usage_error(const struct ftctl_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ftctl: %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	ftctl_command_usage(cmd, stderr);
	return FTCTL_USAGE;
}

int ftctl_parse_exit(int parsed)
{
	return parsed == FTCTL_PARSE_HELP ? FTCTL_OK : FTCTL_USAGE;
}

/* The command's options then the global ones, in one table. */
static size_t merge(const struct ftctl_command *cmd, struct option *all)
{
	size_t n = 0, i;

	for (i = 0; cmd->longopts && cmd->longopts[i].name; i++)
		all[n++] = cmd->longopts[i];
	for (i = 0; ftctl_global_longopts[i].name; i++)
		all[n++] = ftctl_global_longopts[i];
	memset(&all[n], 0, sizeof(all[n]));
	return n;
}

int ftctl_parse_options(const struct ftctl_command *cmd,
			struct ftctl_opts *opts, int argc, char **argv,
			ftctl_option_fn fn, void *ctx)
{
	struct option all[OPTS_MAX];
	char shortopts[64];
	int c;

	merge(cmd, all);
	/* ':' first: a missing value comes back as ':', said our way. */
	snprintf(shortopts, sizeof(shortopts), ":h%s",
		 cmd->shortopts ? cmd->shortopts : "");
	opterr = 0;
	optind = 0; /* glibc: start over, main() parsed its own argv */
	while ((c = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
		switch (c) {
		case 'h':
			ftctl_command_usage(cmd, stdout);
			return FTCTL_PARSE_HELP;
		case FTCTL_OPT_JSON: opts->json = 1; break;
		case FTCTL_OPT_NO_HEADER: opts->no_header = 1; break;
		case FTCTL_OPT_SOCKET:
			ftagent_api_set_socket_path(optarg);
			break;
		case ':':
			ftctl_usage_error(cmd, "option '%s' needs a value",
					  argv[optind - 1]);
			return FTCTL_PARSE_USAGE;
		case '?':
			if (optopt)
				ftctl_usage_error(cmd, "unknown option '-%c'",
						  optopt);
			else
				ftctl_usage_error(cmd, "unknown option '%s'",
						  argv[optind - 1]);
			return FTCTL_PARSE_USAGE;
		default:
			if (!fn || fn(ctx, c, optarg) < 0) {
				ftctl_command_usage(cmd, stderr);
				return FTCTL_PARSE_USAGE;
			}
		}
	}
	return optind;
}
