// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

void ftd_log(int priority, const char *fmt, ...)
{
	static int journal = -1;
	va_list ap;

	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		fprintf(stderr, "<%d>", priority);
	else
		fputs("ftagentd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
