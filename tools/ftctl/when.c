// SPDX-License-Identifier: GPL-2.0
/* Points in time as an operator writes them (when.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "when.h"

#define NS 1000000000ull

uint64_t ftctl_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* "1.5" seconds (digits, at most one point) into ns; -1 if not that. */
static int parse_seconds_ns(const char *s, size_t len, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = NS;
	size_t i = 0;
	int digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (whole > (UINT64_MAX / NS - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			digits++;
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		}
	}
	if (!digits || i != len)
		return -1;
	*ns = whole * NS + frac;
	return 0;
}

/* 'YYYY-MM-DDTHH:MM:SS[.frac]' local time, or with Z or +HH:MM. */
static int parse_iso(const char *s, uint64_t *ns)
{
	struct tm tm = {0};
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	uint64_t frac = 0;
	int64_t off = 0;
	time_t t;
	size_t n;

	if (!p)
		p = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.') {
		n = strspn(p + 1, "0123456789");
		if (!n || parse_seconds_ns(p, n + 1, &frac) < 0)
			return -1;
		p += n + 1;
	}
	if (!strcmp(p, "Z")) {
		t = timegm(&tm);
	} else if ((p[0] == '+' || p[0] == '-') && strlen(p) == 6 &&
		   p[3] == ':' && strspn(p + 1, "0123456789") == 2 &&
		   strspn(p + 4, "0123456789") == 2) {
		off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600 +
		      ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
		t = timegm(&tm) - (p[0] == '+' ? off : -off);
	} else if (!*p) {
		tm.tm_isdst = -1;
		t = mktime(&tm);
	} else {
		return -1;
	}
	if (t < 0)
		return -1;
	*ns = (uint64_t)t * NS + frac;
	return 0;
}

/*
 * DUR ago ("30s", "5m", "2h", "1d", "250ms", "1.5h"), seconds since the
 * epoch ("1700000000", "1700000000.25"), or ISO 8601.
 */
int ftctl_parse_when(const char *s, uint64_t now, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		{"ms", 1},	{"s", 1000},	 {"m", 60000},
		{"h", 3600000}, {"d", 86400000},
	};
	size_t len = strlen(s), i, u;
	uint64_t v;

	if (strchr(s, '-') || strchr(s, ':'))
		return parse_iso(s, out);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		u = strlen(units[i].unit);
		if (len <= u || strcmp(s + len - u, units[i].unit))
			continue;
		if (parse_seconds_ns(s, len - u, &v) < 0)
			return -1;
		/* v is the number times 1e9; make it ns of the unit. */
		if (v / 1000 > UINT64_MAX / units[i].ms)
			return -1;
		v = v / 1000 * units[i].ms;
		*out = v > now ? 0 : now - v;
		return 0;
	}
	return parse_seconds_ns(s, len, out);
}
