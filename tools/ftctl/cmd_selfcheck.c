// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl selfcheck: prove that every hook fires. Makes one harmless call of
 * each traced system call on a descriptor that is not open (each fails
 * with EBADF before doing anything), then asks the module which hooks saw
 * a call. A hook still "attached" afterwards did not fire: its data would
 * be missing, so this exits non-zero.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/counters.h"
#include "../lib/selfcheck.h"
#include "../lib/status.h"
#include "ftctl.h"
#include "human.h"

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftagent_resources res;
	struct ftagent_status st;
	unsigned int states[__FTAGENT_HOOK_STATE_MAX], silent, failed;
	char name[256];
	size_t i;
	int rc;

	rc = ftctl_parse_options(&ftctl_cmd_selfcheck, opts, argc, argv, NULL,
				 NULL);
	if (rc < 0)
		return ftctl_parse_exit(rc);
	if (rc != argc)
		return ftctl_usage_error(&ftctl_cmd_selfcheck,
					 "takes no arguments");
	ftagent_call_every_traced_syscall();
	rc = ftctl_query_kernel(&st, &res);
	if (rc != FTCTL_OK)
		return rc;
	ftagent_hook_states(&res, states);
	silent = states[FTAGENT_HOOK_ATTACHED];
	failed = states[FTAGENT_HOOK_FAILED];
	for (i = 0; !opts->json && i < res.n_hooks; i++)
		if (res.hook[i].state != FTAGENT_HOOK_DETACHED)
			printf("%-24s %s\n",
			       ftctl_printable(res.hook[i].name, name,
					       sizeof(name)),
			       ftagent_hook_state_name(res.hook[i].state));
	if (opts->json)
		printf("{ \"verified\": %s, \"silent\": %u, \"failed\": %u }\n",
		       silent || failed ? "false" : "true", silent, failed);
	else
		printf("%s: %u silent, %u failed\n",
		       silent || failed ? "SELF-CHECK FAILED"
					: "self-check passed",
		       silent, failed);
	ftagent_resources_free(&res);
	return silent || failed ? FTCTL_FAILED : FTCTL_OK;
}

const struct ftctl_command ftctl_cmd_selfcheck = {
	.name = "selfcheck",
	.summary = "prove that every hook fires (root)",
	.usage = "selfcheck",
	.run = run,
};
