// SPDX-License-Identifier: GPL-2.0
/*
 * Shared formatting for ftctl's text output, and its calls to ftagentd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/api_client.h"
#include "ftctl.h"
#include "human.h"

const char *ftctl_human(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	/* 1023.96 K would print as "1024.0K": say 1.0M instead. */
	if (d >= 1023.95 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", d, units[u]);
	return buf;
}

const char *ftctl_size(uint64_t v, char *buf, size_t len)
{
	char n[32];
	size_t l;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", v);
		return buf;
	}
	ftctl_human(v, n, sizeof(n));
	l = strlen(n);
	snprintf(buf, len, "%.*s %ciB", (int)(l - 1), n, n[l - 1]);
	return buf;
}

const char *ftctl_human_rate(double v, char *buf, size_t len)
{
	if (v < 0)
		v = 0;
	if (v < 1024) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	return ftctl_human(v >= 1.8e19 ? UINT64_MAX : (uint64_t)v, buf, len);
}

const char *ftctl_duration(uint64_t s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
			 s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
			 s / 60 % 60);
	else
		snprintf(buf, len, "%" PRIu64 "d%02" PRIu64 "h", s / 86400,
			 s / 3600 % 24);
	return buf;
}

/*
 * Bytes of the valid UTF-8 sequence at @s that a terminal prints as
 * text, or 0: a C0 or C1 control (C1 as U+0080..U+009F, or a raw byte
 * 0x80..0x9F, which an 8-bit terminal takes as CSI and friends), DEL,
 * or a byte that starts no valid sequence.
 */
static size_t printable_seq(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (s[0] == 0xc2 && s[1] < 0xa0) /* U+0080..U+009F: C1 */
		return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f) || (s[0] == 0xed && s[1] > 0x9f))
		return 0; /* overlong, past U+10FFFF, or a surrogate */
	return n;
}

const char *ftctl_printable(const char *s, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, n;

	if (!len)
		return buf;
	while (u && u[i] && o + 1 < len) {
		n = printable_seq(u + i);
		if (!n) {
			buf[o++] = '?';
			i++;
			continue;
		}
		if (o + n >= len)
			break; /* never half a character */
		memcpy(buf + o, u + i, n);
		o += n;
		i += n;
	}
	buf[o] = '\0';
	return buf;
}

/*
 * The byte offset where column @cols of UTF-8 text @s starts (one column
 * per character, roughly), or its length when it is shorter.
 */
static size_t column_offset(const char *s, size_t cols)
{
	size_t i, n = 0;

	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (n == cols)
			return i;
		n++;
	}
	return i;
}

void ftctl_fit(char *s, size_t cols)
{
	size_t end = column_offset(s, cols);

	if (!s[end] || cols < 3)
		return;
	memcpy(s + column_offset(s, cols - 3), "...", 4);
}

void ftctl_line(const char *label, const char *fmt, ...)
{
	char value[512], line[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%-18s%s", label, value);
	ftctl_fit(line, FTCTL_COLUMNS);
	puts(line);
}

void ftctl_print_counts(struct json_object *counts)
{
	char item[96], line[FTCTL_COLUMNS + 1] = "";
	size_t used = 0, n;

	if (!counts || json_object_get_type(counts) != json_type_object)
		return;
	json_object_object_foreach(counts, key, val)
	{
		n = (size_t)snprintf(item, sizeof(item), "  %s %" PRIu64, key,
				     json_object_get_uint64(val));
		if (n >= sizeof(item))
			n = sizeof(item) - 1;
		if (used && used + n > FTCTL_COLUMNS) {
			puts(line);
			used = 0;
		}
		if (n > FTCTL_COLUMNS)
			n = FTCTL_COLUMNS;
		memcpy(line + used, item, n);
		used += n;
		line[used] = '\0';
	}
	if (used)
		puts(line);
}

uint64_t ftctl_sum_counts(struct json_object *counts)
{
	uint64_t n = 0;

	if (!counts || json_object_get_type(counts) != json_type_object)
		return 0;
	json_object_object_foreach(counts, key, val)
	{
		(void)key;
		n += json_object_get_uint64(val);
	}
	return n;
}

struct json_object *ftctl_jget(struct json_object *o, const char *path)
{
	char key[128];
	const char *dot;
	size_t n;

	while (o && *path) {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (json_object_get_type(o) != json_type_object ||
		    !json_object_object_get_ex(o, key, &o))
			return NULL;
		path += n + (dot ? 1 : 0);
	}
	return o;
}

uint64_t ftctl_ju64(struct json_object *o, const char *path)
{
	struct json_object *v = ftctl_jget(o, path);

	if (!v || json_object_get_type(v) != json_type_int)
		return 0;
	return json_object_get_uint64(v);
}

int64_t ftctl_ji64(struct json_object *o, const char *path)
{
	struct json_object *v = ftctl_jget(o, path);

	if (!v || json_object_get_type(v) != json_type_int)
		return 0;
	return json_object_get_int64(v);
}

double ftctl_jdouble(struct json_object *o, const char *path)
{
	struct json_object *v = ftctl_jget(o, path);

	if (!v)
		return 0;
	return json_object_get_double(v);
}

const char *ftctl_jstr(struct json_object *o, const char *path)
{
	struct json_object *v = ftctl_jget(o, path);

	if (!v || json_object_get_type(v) != json_type_string)
		return "";
	return json_object_get_string(v);
}

struct json_object *ftctl_jarray(struct json_object *o, const char *path,
				 size_t *n)
{
	struct json_object *v = ftctl_jget(o, path);

	if (!v || json_object_get_type(v) != json_type_array) {
		*n = 0;
		return NULL;
	}
	*n = json_object_array_length(v);
	return v;
}

int ftctl_daemon_call(struct json_object *req, struct json_object **reply,
		      char *err, size_t err_size)
{
	return ftagent_api_call(NULL, req, reply, FTCTL_DAEMON_TIMEOUT_MS, err,
				err_size);
}

int ftctl_daemon_cmd(const char *cmd, struct json_object **reply, char *err,
		     size_t err_size)
{
	struct json_object *req = json_object_new_object();
	int rc;

	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	rc = ftctl_daemon_call(req, reply, err, err_size);
	json_object_put(req);
	return rc;
}

int ftctl_report_daemon_error(const char *what, int rc, const char *err)
{
	const char *path = ftagent_api_socket_path();

	if (ftagent_api_not_running(rc)) {
		fprintf(stderr,
			"ftctl: %s: ftagentd is not running (socket %s: %s); "
			"start it with 'systemctl start ftagentd'\n",
			what, path, err);
		return FTCTL_NO_DAEMON;
	}
	if (rc == -EACCES || rc == -EPERM) {
		fprintf(stderr,
			"ftctl: %s: permission denied on %s: run as root or "
			"as a member of the ftagent group\n",
			what, path);
		return FTCTL_FAILED;
	}
	if (rc == -EREMOTEIO) {
		fprintf(stderr, "ftctl: %s: ftagentd refused: %s\n", what, err);
		return FTCTL_FAILED;
	}
	fprintf(stderr, "ftctl: %s: ftagentd (socket %s): %s\n", what, path,
		err);
	return FTCTL_FAILED;
}
