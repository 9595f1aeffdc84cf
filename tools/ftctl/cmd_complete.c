// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl __complete WORD... CURRENT: the candidates for the word being
 * typed, one per line, for the bash completion (completion/ftctl.bash).
 * Everything comes from the tables the commands parse their options
 * with, so the completion cannot offer what ftctl would refuse, nor miss
 * what it takes. WORD... are the words after "ftctl" before the cursor;
 * CURRENT is the (possibly empty) word at it. A line "@files" asks the
 * shell to complete a file name. Hidden from `ftctl help`.
 */
#include <stdio.h>
#include <string.h>

#include "ftctl.h"

static void print_words(const char *const *w)
{
	for (; w && *w; w++)
		puts(*w);
}

static void print_longopts(const struct option *o)
{
	for (; o && o->name; o++)
		printf("--%s\n", o->name);
}

/* The option (of @cmd or global) named by "--name" or "-c", or NULL. */
static const struct option *find_opt(const struct ftctl_command *cmd,
				     const char *word, int *takes_value)
{
	const struct option *tables[2] = {cmd ? cmd->longopts : NULL,
					  ftctl_global_longopts};
	const char *p;
	size_t t;

	*takes_value = 0;
	if (word[0] == '-' && word[1] && word[1] != '-' && !word[2] && cmd &&
	    cmd->shortopts && (p = strchr(cmd->shortopts, word[1]))) {
		*takes_value = p[1] == ':' && p[2] != ':';
		return NULL;
	}
	if (strncmp(word, "--", 2) || strchr(word, '='))
		return NULL;
	for (t = 0; t < 2; t++)
		for (const struct option *o = tables[t]; o && o->name; o++)
			if (!strcmp(o->name, word + 2)) {
				*takes_value = o->has_arg == required_argument;
				return o;
			}
	return NULL;
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	const struct ftctl_command *cmd = NULL;
	const struct option *opt = NULL;
	const char *cur, *word = NULL;
	int i, value_next = 0, takes;

	(void)opts;
	if (argc < 2) {
		fprintf(stderr, "usage: ftctl __complete [WORD...] CURRENT\n");
		return FTCTL_USAGE;
	}
	cur = argv[argc - 1];
	/* Walk the words before the cursor: options, command, its words. */
	for (i = 1; i < argc - 1; i++) {
		const char *w = argv[i];

		if (value_next) {
			value_next = 0;
			continue;
		}
		if (w[0] == '-' && w[1]) {
			opt = find_opt(cmd, w, &takes);
			value_next = takes;
			continue;
		}
		if (!cmd)
			cmd = ftctl_find_command(w);
		else if (!word)
			word = w;
		if (!cmd)
			return FTCTL_OK; /* an unknown command: nothing */
	}
	if (value_next) {
		/* The value of the option before: its choices, or a file. */
		if (opt && cmd && cmd->values && cmd->values(opt->name))
			print_words(cmd->values(opt->name));
		else if (opt && !strcmp(opt->name, "socket"))
			puts("@files");
		return FTCTL_OK;
	}
	if (cur[0] == '-') {
		if (!cmd) {
			print_longopts(ftctl_global_longopts);
			puts("--version");
			return FTCTL_OK;
		}
		print_longopts(cmd->longopts);
		print_longopts(ftctl_global_longopts);
		return FTCTL_OK;
	}
	if (!cmd) {
		for (i = 0; ftctl_commands[i]; i++)
			if (!ftctl_commands[i]->hidden)
				puts(ftctl_commands[i]->name);
		return FTCTL_OK;
	}
	if (cmd == &ftctl_cmd_help) {
		for (i = 0; !word && ftctl_commands[i]; i++)
			if (!ftctl_commands[i]->hidden)
				puts(ftctl_commands[i]->name);
		return FTCTL_OK;
	}
	if (!word) {
		print_words(cmd->words);
		return FTCTL_OK;
	}
	for (i = 0; cmd->file_words && cmd->file_words[i]; i++)
		if (!strcmp(word, cmd->file_words[i]))
			puts("@files");
	return FTCTL_OK;
}

const struct ftctl_command ftctl_cmd_complete = {
	.name = "__complete",
	.summary = "completion candidates, for the shell",
	.usage = "__complete [WORD...] CURRENT",
	.run = run,
	.hidden = 1,
};
