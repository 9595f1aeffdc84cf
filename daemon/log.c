// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
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

#define LOG_LIMIT_NS 60000000000ull

void ftd_log_limited(struct ftd_log_limit *rl, uint64_t now_ns, int priority,
		     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (rl->last_ns && now_ns - rl->last_ns < LOG_LIMIT_NS) {
		rl->held++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rl->held)
		ftd_log(priority,
			"%s (and %" PRIu64 " more in the last minute)", msg,
			rl->held);
	else
		ftd_log(priority, "%s", msg);
	rl->held = 0;
	rl->last_ns = now_ns;
}
