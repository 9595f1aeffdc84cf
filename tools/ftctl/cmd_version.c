// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl version: this client's ABI and the module's, over the stats family
 * (open to any user), so a mismatch shows before anything else is tried.
 */
#include <stdio.h>
#include <json-c/json.h>

#include "../lib/status.h"
#include "ftctl.h"
#include "human.h"

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftagent_status st;
	struct ftnl_error err;
	int compatible, first;
	char shown[256];

	first = ftctl_parse_options(&ftctl_cmd_version, opts, argc, argv, NULL,
				    NULL);
	if (first < 0)
		return ftctl_parse_exit(first);
	if (first != argc)
		return ftctl_usage_error(&ftctl_cmd_version,
					 "takes no arguments");
	if (ftagent_query_version(&st, &err) < 0)
		return ftctl_report_query_error("version", &err);
	compatible = ftagent_abi_compatible(&st);

	if (opts->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(
			o, "client_abi",
			json_object_new_string(FTAGENT_ABI_STRING));
		json_object_object_add(
			o, "module_version",
			json_object_new_string(st.module_version));
		json_object_object_add(o, "module_abi_major",
				       json_object_new_int64(st.abi_major));
		json_object_object_add(o, "module_abi_minor",
				       json_object_new_int64(st.abi_minor));
		json_object_object_add(o, "compatible",
				       json_object_new_boolean(compatible));
		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		printf("client ABI:      %s\n", FTAGENT_ABI_STRING);
		/* The module's string: shown as text, never as controls. */
		printf("module version:  %s\n",
		       ftctl_printable(st.module_version, shown,
				       sizeof(shown)));
		printf("module ABI:      %u.%u (%s)\n", st.abi_major,
		       st.abi_minor,
		       compatible ? "compatible" : "INCOMPATIBLE");
	}
	return compatible ? FTCTL_OK : FTCTL_ABI_MISMATCH;
}

const struct ftctl_command ftctl_cmd_version = {
	.name = "version",
	.summary = "this client's ABI, the module's version and ABI",
	.usage = "version",
	.run = run,
};
