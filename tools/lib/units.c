// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/* A whole non-negative decimal number, then whatever follows. */
static int leading_number(const char *s, uint64_t *n, const char **rest)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	*rest = end;
	return 0;
}

/* @rest without trailing blanks equals @unit, ignoring case. */
static int unit_is(const char *rest, const char *unit)
{
	size_t n = strlen(rest);

	while (n && isspace((unsigned char)rest[n - 1]))
		n--;
	return n == strlen(unit) && !strncasecmp(rest, unit, n);
}

struct unit {
	const char *name;
	uint64_t by;
};

/* What one kind of value calls its units, and what it says when wrong. */
struct unit_kind {
	const struct unit *units;
	size_t n;
	const char *not_a_number, *unknown_unit, *too_large;
};

/* A number and one of @kind's units: the number times the unit. */
static int parse_with_unit(const char *s, const struct unit_kind *kind,
			   uint64_t *out, const char **why)
{
	const char *rest;
	uint64_t n;
	size_t i;

	if (leading_number(s, &n, &rest)) {
		*why = kind->not_a_number;
		return -1;
	}
	for (i = 0; i < kind->n; i++) {
		if (!unit_is(rest, kind->units[i].name))
			continue;
		if (kind->units[i].by && n > UINT64_MAX / kind->units[i].by) {
			*why = kind->too_large;
			return -1;
		}
		*out = n * kind->units[i].by;
		return 0;
	}
	*why = kind->unknown_unit;
	return -1;
}

int ftagentd_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	static const struct unit units[] = {
		{"", 1},
		{"b", 1},
		{"kb", 1ull << 10},
		{"kib", 1ull << 10},
		{"k", 1ull << 10},
		{"mb", 1ull << 20},
		{"mib", 1ull << 20},
		{"m", 1ull << 20},
		{"gb", 1ull << 30},
		{"gib", 1ull << 30},
		{"g", 1ull << 30},
	};
	static const struct unit_kind size = {
		units, sizeof(units) / sizeof(units[0]),
		"not a size (a number, then B, KB, MB or GB)",
		"unknown size unit (use B, KB, MB or GB)", "size too large"};

	return parse_with_unit(s, &size, bytes, why);
}

int ftagentd_parse_duration(const char *s, uint64_t *ms, const char **why)
{
	static const struct unit units[] = {
		{"", 1},      {"ms", 1},      {"s", 1000},
		{"m", 60000}, {"min", 60000}, {"h", 3600000},
	};
	static const struct unit_kind duration = {
		units, sizeof(units) / sizeof(units[0]),
		"not a duration (a number, then ms, s, m or h)",
		"unknown duration unit (use ms, s, m or h)",
		"duration too long"};

	return parse_with_unit(s, &duration, ms, why);
}

int ftagentd_parse_count(const char *s, uint64_t *n, const char **why)
{
	const char *rest;

	if (leading_number(s, n, &rest) || *rest) {
		*why = "not a whole number";
		return -1;
	}
	return 0;
}

int ftagentd_parse_bool(const char *s, int *value, const char **why)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	size_t i;

	for (i = 0; i < 4; i++) {
		if (unit_is(s, yes[i])) {
			*value = 1;
			return 0;
		}
		if (unit_is(s, no[i])) {
			*value = 0;
			return 0;
		}
	}
	*why = "not a boolean (true or false)";
	return -1;
}

int ftagentd_parse_list(const char *s,
			int (*fn)(const char *item, size_t len, void *arg),
			void *arg, const char **why)
{
	const char *p = s, *start, *end;
	int rc;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		if (*p == '"') {
			start = ++p;
			end = strchr(p, '"');
			if (!end) {
				*why = "a quoted item has no closing quote";
				return -1;
			}
			p = end + 1;
		} else {
			start = p;
			while (*p && *p != ',')
				p++;
			end = p;
			while (end > start && isspace((unsigned char)end[-1]))
				end--;
		}
		if (end == start) {
			*why = "an empty item in the list";
			return -1;
		}
		rc = fn(start, end - start, arg);
		if (rc)
			return rc;
		while (isspace((unsigned char)*p))
			p++;
		if (*p && *p != ',') {
			*why = "items must be separated by commas";
			return -1;
		}
		if (*p)
			p++;
	}
}

struct one_string {
	char *out;
	size_t size;
	int n;
	const char **why;
};

static int take_one(const char *item, size_t len, void *arg)
{
	struct one_string *o = arg;

	if (o->n++) {
		*o->why = "one value expected, not a list";
		return -1;
	}
	if (len >= o->size) {
		*o->why = "value too long";
		return -1;
	}
	memcpy(o->out, item, len);
	o->out[len] = '\0';
	return 0;
}

int ftagentd_parse_string(const char *s, char *out, size_t size,
			  const char **why)
{
	struct one_string o = {out, size, 0, why};

	if (ftagentd_parse_list(s, take_one, &o, why))
		return -1;
	if (!o.n) {
		*why = "a value is needed";
		return -1;
	}
	return 0;
}
