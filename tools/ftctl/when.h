/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Points in time as an operator writes them: a duration ago ("30s",
 * "5m", "2h", "1d", "250ms", "1.5h"), seconds since the epoch
 * ("1700000000", "1700000000.25"), or ISO 8601 ("2026-12-01T10:00:00",
 * local time, or with Z or +HH:MM). `ftctl events` and `ftctl audit
 * show` take the same --since.
 */
#ifndef FTCTL_WHEN_H
#define FTCTL_WHEN_H

#include <stdint.h>

/* CLOCK_REALTIME, in nanoseconds. */
uint64_t ftctl_realtime_ns(void);
/* @s into ns since the epoch (*@out), against @now. 0, or -1. */
int ftctl_parse_when(const char *s, uint64_t now, uint64_t *out);

#endif /* FTCTL_WHEN_H */
