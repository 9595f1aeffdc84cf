// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl help [COMMAND]: ftctl's usage, or one command's, on stdout. The
 * list of commands is ftctl_commands[], the one main() dispatches on.
 */
#include <stdio.h>

#include "ftctl.h"

void ftctl_help(FILE *out)
{
	size_t i;

	fprintf(out, "usage: ftctl [OPTIONS] COMMAND [ARGS]\n"
		     "       ftctl help [COMMAND] | --version\n\ncommands:\n");
	for (i = 0; ftctl_commands[i]; i++)
		if (!ftctl_commands[i]->hidden)
			fprintf(out, "  %-10s %s\n", ftctl_commands[i]->name,
				ftctl_commands[i]->summary);
	fprintf(out, "\noptions (global: also after the command):\n"
		     "  --json         machine-readable output\n"
		     "  --no-header    no line naming the columns\n"
		     "  --socket PATH  ftagentd's API socket (default: "
		     "$FTAGENT_SOCKET,\n"
		     "                 else /run/ftagent/ftagentd.sock)\n"
		     "  -h, --help     this text; COMMAND --help: the "
		     "command's\n"
		     "  -V, --version  ftctl's version\n");
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	const struct ftctl_command *cmd;
	int first;

	first = ftctl_parse_options(&ftctl_cmd_help, opts, argc, argv, NULL,
				    NULL);
	if (first < 0)
		return ftctl_parse_exit(first);
	if (first == argc) {
		ftctl_help(stdout);
		return FTCTL_OK;
	}
	if (argc - first > 1)
		return ftctl_usage_error(&ftctl_cmd_help,
					 "one command at most");
	cmd = ftctl_find_command(argv[first]);
	if (!cmd || cmd->hidden)
		return ftctl_usage_error(&ftctl_cmd_help,
					 "unknown command '%s'", argv[first]);
	ftctl_command_usage(cmd, stdout);
	return FTCTL_OK;
}

const struct ftctl_command ftctl_cmd_help = {
	.name = "help",
	.summary = "this list, or how to use one command",
	.usage = "help [COMMAND]",
	.run = run,
};
