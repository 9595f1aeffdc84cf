// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl events: the daemon's event log, filtered (docs/ftctl.md). One line
 * per event: time, type, pid, command and a short summary, all within 80
 * columns; --json prints the events as the daemon sent them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "../lib/records.h"
#include "ftctl.h"
#include "human.h"

#define NS 1000000000ull

static uint64_t realtime_ns(void)
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
static int parse_when(const char *s, uint64_t now, uint64_t *out)
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

static const char *const type_names[] = {
	"fork",	 "exec", "exit",   "connect", "accept",
	"close", "bind", "listen", "open",    "verdict",
};

#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]))

static int add_types(struct json_object *arr, const char *list)
{
	char *copy = strdup(list), *save = NULL, *t;
	size_t i;
	int rc = 0;

	if (!copy)
		return -1;
	for (t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < N_TYPES; i++)
			if (!strcmp(t, type_names[i]))
				break;
		if (i == N_TYPES) {
			fprintf(stderr,
				"ftctl: events: unknown type '%s' (known: "
				"fork, "
				"exec, exit, connect, accept, close, bind, "
				"listen, open, verdict)\n",
				t);
			rc = -1;
			break;
		}
		json_object_array_add(arr, json_object_new_string(t));
	}
	free(copy);
	if (!rc && !json_object_array_length(arr)) {
		fprintf(stderr, "ftctl: events: --type needs a type name\n");
		rc = -1;
	}
	return rc;
}

static int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* ---- one line per event ---- */

/* "tcp" or the protocol number, from the event. */
static const char *proto_of(struct json_object *ev, char *buf, size_t len)
{
	struct json_object *p = ftctl_jget(ev, "protocol");

	if (p && json_object_get_type(p) == json_type_string)
		return ftctl_printable(json_object_get_string(p), buf, len);
	snprintf(buf, len, "proto %" PRId64, ftctl_ji64(ev, "protocol"));
	return buf;
}

/* " ECONNREFUSED" for a failed call, "" for 0 or a descriptor. */
static const char *result_of(struct json_object *ev, char *buf, size_t len)
{
	int64_t r = ftctl_ji64(ev, "result");
	const char *name;

	buf[0] = '\0';
	if (r < 0 && r > -4096) {
		name = strerrorname_np((int)-r);
		if (name)
			snprintf(buf, len, " %s", name);
		else
			snprintf(buf, len, " error %" PRId64, r);
	}
	return buf;
}

static void summary_sock(struct json_object *ev, const char *type, char *out,
			 size_t len)
{
	char proto[32], res[48], local[64], remote[64];

	proto_of(ev, proto, sizeof(proto));
	result_of(ev, res, sizeof(res));
	ftctl_printable(ftctl_jstr(ev, "local"), local, sizeof(local));
	ftctl_printable(ftctl_jstr(ev, "remote"), remote, sizeof(remote));
	if (!strcmp(type, "connect"))
		snprintf(out, len, "%s > %s%s", proto, remote[0] ? remote : "?",
			 res);
	else if (!strcmp(type, "accept"))
		snprintf(out, len, "%s < %s on %s", proto,
			 remote[0] ? remote : "?", local);
	else if (!strcmp(type, "listen"))
		snprintf(out, len, "%s %s backlog %" PRIu64, proto, local,
			 ftctl_ju64(ev, "backlog"));
	else if (!strcmp(type, "close") && remote[0])
		snprintf(out, len, "%s %s", proto, remote);
	else
		snprintf(out, len, "%s %s%s", proto, local[0] ? local : "?",
			 res);
}

static void summary_exec(struct json_object *ev, char *out, size_t len)
{
	struct json_object *argv = ftctl_jget(ev, "argv");
	char arg[256];
	size_t i, n = argv ? json_object_array_length(argv) : 0, used = 0;

	out[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++) {
		ftctl_printable(json_object_get_string(
					json_object_array_get_idx(argv, i)),
				arg, sizeof(arg));
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 i ? " " : "", arg);
	}
	if (!n)
		ftctl_printable(ftctl_jstr(ev, "exe"), out, len);
}

static void summary(struct json_object *ev, const char *type, char *out,
		    size_t len)
{
	char a[32], b[32];

	if (ftctl_jget(ev, "error")) {
		ftctl_printable(ftctl_jstr(ev, "error"), out, len);
	} else if (!strcmp(type, "fork")) {
		snprintf(out, len, "child %" PRIu64,
			 ftctl_ju64(ev, "child_pid"));
	} else if (!strcmp(type, "exec")) {
		summary_exec(ev, out, len);
	} else if (!strcmp(type, "exit")) {
		if (ftctl_jget(ev, "signal"))
			snprintf(out, len, "signal %" PRId64,
				 ftctl_ji64(ev, "signal"));
		else
			snprintf(out, len, "status %" PRId64,
				 ftctl_ji64(ev, "exit_status"));
		snprintf(out + strlen(out), len - strlen(out),
			 ", read %s, wrote %s",
			 ftctl_human(ftctl_ju64(ev, "rchar"), a, sizeof(a)),
			 ftctl_human(ftctl_ju64(ev, "wchar"), b, sizeof(b)));
	} else if (!strcmp(type, "open")) {
		ftctl_printable(ftctl_jget(ev, "path") ? ftctl_jstr(ev, "path")
						       : "(unreadable path)",
				out, len);
	} else if (!strcmp(type, "verdict")) {
		/* "denied connect 10.0.0.1:22 by no-ssh" */
		char obj[256], rule[FTAGENT_RULE_NAME_MAX + 1];

		ftctl_printable(ftctl_jget(ev, "path") ? ftctl_jstr(ev, "path")
				: ftctl_jget(ev, "remote")
					? ftctl_jstr(ev, "remote")
					: "",
				obj, sizeof(obj));
		if (ftctl_jget(ev, "metric"))
			snprintf(out, len,
				 "%s %s: %" PRIu64 " of %" PRIu64 " by %s",
				 ftctl_jstr(ev, "verdict"),
				 ftctl_jstr(ev, "metric"),
				 ftctl_ju64(ev, "used"),
				 ftctl_ju64(ev, "limit"),
				 ftctl_printable(ftctl_jstr(ev, "rule_name"),
						 rule, sizeof(rule)));
		else
			snprintf(out, len, "%s %s %s by %s",
				 ftctl_jstr(ev, "verdict"),
				 ftctl_jstr(ev, "op"), obj,
				 ftctl_printable(ftctl_jstr(ev, "rule_name"),
						 rule, sizeof(rule)));
	} else if (ftctl_jget(ev, "sock_ino")) {
		summary_sock(ev, type, out, len);
	} else if (ftctl_jget(ev, "raw")) {
		snprintf(out, len, "%zu bytes: %s",
			 strlen(ftctl_jstr(ev, "raw")) / 2,
			 ftctl_jstr(ev, "raw"));
	} else {
		out[0] = '\0';
	}
}

static void print_event(struct json_object *ev)
{
	char when[32], comm[32], sum[512], line[640], type[16];
	uint64_t t = ftctl_ju64(ev, "time_ns");
	time_t secs = (time_t)(t / NS);
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%m-%d %H:%M:%S", &tm);
	else
		snprintf(when, sizeof(when), "?");
	ftctl_printable(ftctl_jget(ev, "error") ? "?" : ftctl_jstr(ev, "type"),
			type, sizeof(type));
	ftctl_printable(ftctl_jstr(ev, "comm"), comm, sizeof(comm));
	summary(ev, type, sum, sizeof(sum));
	snprintf(line, sizeof(line), "%-14s %-7.7s %7" PRIu64 " %-15.15s %s",
		 when, type, ftctl_ju64(ev, "pid"), comm, sum);
	ftctl_fit(line, FTCTL_COLUMNS);
	puts(line);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ftctl [--json] events [--since DUR|TIME] "
		"[--until DUR|TIME]\n"
		"         [--type T[,T...]] [--pid N] [--comm NAME] "
		"[--limit N]\n"
		"  DUR: 30s, 5m, 2h, 1d ago; TIME: seconds since the epoch or\n"
		"  YYYY-MM-DDTHH:MM:SS (local time; Z or +HH:MM for a zone)\n");
}

/* The value of option @name at argv[*i] ("--x V" or "--x=V"), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int build_request(struct json_object *req, int argc, char **argv,
			 int *json)
{
	uint64_t now = realtime_ns(), v, since = 0, until = 0;
	struct json_object *types;
	const char *val;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			*json = 1;
		} else if ((val = opt_value(argc, argv, &i, "--since"))) {
			if (parse_when(val, now, &since) < 0)
				goto bad_time;
			json_object_object_add(req, "since_ns",
					       json_object_new_uint64(since));
		} else if ((val = opt_value(argc, argv, &i, "--until"))) {
			if (parse_when(val, now, &until) < 0 || !until)
				goto bad_time;
			json_object_object_add(req, "until_ns",
					       json_object_new_uint64(until));
		} else if ((val = opt_value(argc, argv, &i, "--type"))) {
			if (!json_object_object_get_ex(req, "types", &types)) {
				types = json_object_new_array();
				json_object_object_add(req, "types", types);
			}
			if (add_types(types, val) < 0)
				return FTCTL_USAGE;
		} else if ((val = opt_value(argc, argv, &i, "--pid"))) {
			if (parse_count(val, 1, UINT32_MAX, &v) < 0) {
				fprintf(stderr, "ftctl: events: --pid: not a "
						"process id\n");
				return FTCTL_USAGE;
			}
			json_object_object_add(req, "pid",
					       json_object_new_uint64(v));
		} else if ((val = opt_value(argc, argv, &i, "--comm"))) {
			if (!val[0] || strlen(val) > 15) {
				fprintf(stderr, "ftctl: events: --comm: a "
						"command name has 1 to 15 "
						"bytes\n");
				return FTCTL_USAGE;
			}
			json_object_object_add(req, "comm",
					       json_object_new_string(val));
		} else if ((val = opt_value(argc, argv, &i, "--limit"))) {
			if (parse_count(val, 1, 100000, &v) < 0) {
				fprintf(stderr, "ftctl: events: --limit: a "
						"count from 1 to 100000\n");
				return FTCTL_USAGE;
			}
			json_object_object_add(req, "limit",
					       json_object_new_uint64(v));
		} else {
			fprintf(stderr, "ftctl: events: unknown option '%s'\n",
				argv[i]);
			usage();
			return FTCTL_USAGE;
		}
	}
	if (since && until && until < since) {
		fprintf(stderr, "ftctl: events: --until is before --since\n");
		return FTCTL_USAGE;
	}
	return FTCTL_OK;
bad_time:
	fprintf(stderr,
		"ftctl: events: '%s': not a duration (30s, 5m, 2h, 1d), "
		"seconds since the epoch or YYYY-MM-DDTHH:MM:SS\n",
		argv[i]);
	return FTCTL_USAGE;
}

int ftctl_cmd_events(const struct ftctl_opts *opts, int argc, char **argv)
{
	struct json_object *req = json_object_new_object(), *reply = NULL;
	struct json_object *events;
	int json = opts->json, rc;
	char err[512];
	size_t i, n;

	if (argc == 1 &&
	    (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		usage();
		json_object_put(req);
		return FTCTL_OK;
	}
	json_object_object_add(req, "cmd", json_object_new_string("events"));
	rc = build_request(req, argc, argv, &json);
	if (rc != FTCTL_OK) {
		json_object_put(req);
		return rc;
	}
	rc = ftctl_daemon_call(req, &reply, err, sizeof(err));
	json_object_put(req);
	if (rc)
		return ftctl_report_daemon_error("events", rc, err);
	events = ftctl_jget(reply, "events");
	n = events && json_object_get_type(events) == json_type_array
		    ? json_object_array_length(events)
		    : 0;
	if (json && !n) {
		puts("[]");
	} else if (json) {
		puts(json_object_to_json_string_ext(
			events, JSON_C_TO_STRING_PRETTY |
					JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%-14s %-7s %7s %-15s %s\n", "TIME", "TYPE", "PID",
		       "COMMAND", "DETAILS");
		for (i = 0; i < n; i++)
			print_event(json_object_array_get_idx(events, i));
	}
	if (json_object_get_boolean(ftctl_jget(reply, "more")))
		fprintf(stderr,
			"ftctl: events: older events matched too: narrow the "
			"filters or raise --limit\n");
	json_object_put(reply);
	return FTCTL_OK;
}
