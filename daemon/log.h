/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentd's messages, on stderr. Under systemd (JOURNAL_STREAM set) each
 * line carries a <N> priority prefix that journald reads as the level.
 */
#ifndef FTAGENTD_LOG_H
#define FTAGENTD_LOG_H

#include <syslog.h>

void ftd_log(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FTAGENTD_LOG_H */
