// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: ftagent.conf, the whole file. The bytes are the text
 * of a configuration, given to ftagentd_config_parse() (tools/lib/
 * config.c), the reader ftagentd and `ftctl policy check` share: libinih,
 * then every section's keys, [policy], [policy.NAME] and [budget.NAME]
 * included, and the checks run once the file has been read. Whatever the
 * text, the parse ends in 0, or in -1 with a message saying why, and
 * leaves nothing allocated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/lib/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftagentd_config cfg;
	char err[512] = "";
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ftagentd_config_parse("fuzz.conf", text, &cfg, err, sizeof(err)) ==
	    0)
		ftagentd_config_free(&cfg);
	else if (!err[0])
		abort(); /* every rejection says why */
	free(text);
	return 0;
}
