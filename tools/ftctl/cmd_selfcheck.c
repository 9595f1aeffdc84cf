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
	struct ftagent_resources before, res;
	struct ftagent_status st;
	unsigned int silent = 0, failed = 0;
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
	/*
	 * Judge by hit counts before and after our calls, not by the
	 * module's "verified" state: that is set by a hook's first hit and
	 * never cleared, so a hook that fired once and went quiet since
	 * (kernel.ftrace_enabled=0, say) would still pass.
	 */
	rc = ftctl_query_kernel(&st, &before);
	if (rc != FTCTL_OK)
		return rc;
	ftagent_call_every_traced_syscall();
	rc = ftctl_query_kernel(&st, &res);
	if (rc != FTCTL_OK) {
		ftagent_resources_free(&before);
		return rc;
	}
	for (i = 0; i < res.n_hooks; i++) {
		const struct ftagent_hook_stats *h = &res.hook[i];
		const char *verdict;

		if (h->state == FTAGENT_HOOK_DETACHED)
			continue;
		if (ftagent_hook_not_applicable(h)) {
			if (!opts->json)
				printf("%-24s %-9s %s\n",
				       ftctl_printable(h->name, name,
						       sizeof(name)),
				       ftagent_hook_state_name(h->state),
				       !strncmp(h->name, "__ia32_", 7)
					       ? "not applicable: no ia32 "
						 "calls "
						 "here"
					       : "not applicable: no x32 calls "
						 "here");
			continue;
		}
		if (h->state == FTAGENT_HOOK_FAILED) {
			failed++;
			verdict = "FAILED";
		} else if (!ftagent_hook_fired(&before, h)) {
			silent++;
			verdict = "SILENT: did not fire on a test call";
		} else {
			verdict = "fired";
		}
		if (!opts->json)
			printf("%-24s %-9s %s\n",
			       ftctl_printable(h->name, name, sizeof(name)),
			       ftagent_hook_state_name(h->state), verdict);
	}
	if (opts->json)
		printf("{ \"verified\": %s, \"silent\": %u, \"failed\": %u }\n",
		       silent || failed ? "false" : "true", silent, failed);
	else
		printf("%s: %u silent, %u failed\n",
		       silent || failed ? "SELF-CHECK FAILED"
					: "self-check passed",
		       silent, failed);
	ftagent_resources_free(&before);
	ftagent_resources_free(&res);
	return silent || failed ? FTCTL_FAILED : FTCTL_OK;
}

const struct ftctl_command ftctl_cmd_selfcheck = {
	.name = "selfcheck",
	.summary = "prove that every hook fires (root)",
	.usage = "selfcheck",
	.run = run,
};
