/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentd's messages, on stderr. Under systemd (JOURNAL_STREAM set) each
 * line carries a <N> priority prefix that journald reads as the level.
 */
#ifndef FTAGENTD_LOG_H
#define FTAGENTD_LOG_H

#include <stdint.h>
#include <syslog.h>

void ftd_log(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A failure that may repeat every tick (a full disk) is logged at once,
 * then at most once a minute with how many were held back meanwhile.
 */
struct ftd_log_limit {
	uint64_t last_ns;
	uint64_t held; /* failures not logged since the last line */
};

void ftd_log_limited(struct ftd_log_limit *rl, uint64_t now_ns, int priority,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* FTAGENTD_LOG_H */
