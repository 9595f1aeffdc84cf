// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: what the module reports about itself. Later sections
 * (RESOURCES, COLLECTOR) come from ftagentd; KERNEL comes straight from the
 * module over netlink so it shows even when the daemon is down.
 */
#include <stdio.h>
#include <json-c/json.h>

#include "../lib/status.h"
#include "ftctl.h"

static void print_text(const struct ftagent_status *st)
{
	printf("KERNEL\n");
	printf("Module:           ftagent %s\n", st->module_version);
	printf("ABI:              %u.%u\n", st->abi_major, st->abi_minor);
	printf("State:            %s\n", ftagent_state_name(st->state));
}

static void print_json(const struct ftagent_status *st)
{
	struct json_object *root = json_object_new_object();
	struct json_object *kernel = json_object_new_object();

	json_object_object_add(kernel, "module_version",
			       json_object_new_string(st->module_version));
	json_object_object_add(kernel, "abi_major",
			       json_object_new_int64(st->abi_major));
	json_object_object_add(kernel, "abi_minor",
			       json_object_new_int64(st->abi_minor));
	json_object_object_add(
		kernel, "state",
		json_object_new_string(ftagent_state_name(st->state)));
	json_object_object_add(root, "kernel", kernel);
	puts(json_object_to_json_string_ext(
		root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

int ftctl_cmd_stats(const struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftagent_status st;
	struct ftnl_error err;

	(void)argv;
	if (argc) {
		fprintf(stderr, "ftctl: stats takes no arguments yet\n");
		return FTCTL_USAGE;
	}
	if (ftagent_query_status(&st, &err) < 0)
		return ftctl_report_query_error("stats", &err);
	if (!ftagent_abi_compatible(&st)) {
		fprintf(stderr,
			"ftctl: module ABI %u.%u, this ftctl speaks %s: "
			"upgrade one of them\n",
			st.abi_major, st.abi_minor, FTAGENT_ABI_STRING);
		return FTCTL_ABI_MISMATCH;
	}
	if (opts->json)
		print_json(&st);
	else
		print_text(&st);
	return FTCTL_OK;
}
