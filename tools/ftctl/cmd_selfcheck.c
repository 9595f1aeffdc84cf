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

int ftctl_cmd_selfcheck(const struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftagent_resources res;
	struct ftagent_status st;
	unsigned int silent = 0, failed = 0;
	size_t i;
	int rc;

	(void)argv;
	if (argc) {
		fprintf(stderr, "ftctl: selfcheck takes no arguments\n");
		return FTCTL_USAGE;
	}
	ftagent_call_every_traced_syscall();
	rc = ftctl_query_kernel(&st, &res);
	if (rc != FTCTL_OK)
		return rc;
	for (i = 0; i < res.n_hooks; i++) {
		const struct ftagent_hook_stats *h = &res.hook[i];

		if (h->state == FTAGENT_HOOK_DETACHED)
			continue;
		silent += h->state == FTAGENT_HOOK_ATTACHED;
		failed += h->state == FTAGENT_HOOK_FAILED;
		if (!opts->json)
			printf("%-24s %s\n", h->name,
			       ftagent_hook_state_name(h->state));
	}
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
