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

#include "../lib/api_client.h"
#include "../lib/records.h"
#include "ftctl.h"
#include "human.h"
#include "when.h"

#define NS 1000000000ull

/* NULL-terminated: the completion offers the same list. */
static const char *const type_names[] = {
	"fork", "exec",	  "exit", "connect", "accept", "close",
	"bind", "listen", "open", "verdict", NULL,
};

#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]) - 1)

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
	char arg[256];
	size_t i, n, used = 0;
	struct json_object *argv = ftctl_jarray(ev, "argv", &n);

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

enum {
	OPT_SINCE = FTCTL_OPT_FIRST_LOCAL,
	OPT_UNTIL,
	OPT_TYPE,
	OPT_PID,
	OPT_COMM,
	OPT_LIMIT,
	OPT_INTERVAL,
};

static const struct option events_longopts[] = {
	{"since", required_argument, NULL, OPT_SINCE},
	{"until", required_argument, NULL, OPT_UNTIL},
	{"type", required_argument, NULL, OPT_TYPE},
	{"pid", required_argument, NULL, OPT_PID},
	{"comm", required_argument, NULL, OPT_COMM},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"follow", no_argument, NULL, 'f'},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{NULL, 0, NULL, 0},
};

static const char *const *events_values(const char *name)
{
	return strcmp(name, "type") ? NULL : type_names;
}

struct events_args {
	struct json_object *req;
	uint64_t now, since, until;
	int follow;
	double interval; /* --follow: seconds between asks */
};

static int on_option(void *ctx, int opt, const char *val)
{
	struct events_args *a = ctx;
	struct json_object *types;
	uint64_t v;
	char *end;

	switch (opt) {
	case OPT_SINCE:
		if (ftctl_parse_when(val, a->now, &a->since) < 0)
			goto bad_time;
		json_object_object_add(a->req, "since_ns",
				       json_object_new_uint64(a->since));
		return 0;
	case OPT_UNTIL:
		if (ftctl_parse_when(val, a->now, &a->until) < 0 || !a->until)
			goto bad_time;
		json_object_object_add(a->req, "until_ns",
				       json_object_new_uint64(a->until));
		return 0;
	case OPT_TYPE:
		if (!json_object_object_get_ex(a->req, "types", &types)) {
			types = json_object_new_array();
			json_object_object_add(a->req, "types", types);
		}
		return add_types(types, val);
	case OPT_PID:
		if (parse_count(val, 1, UINT32_MAX, &v) < 0) {
			fprintf(stderr,
				"ftctl: events: --pid: not a process id\n");
			return -1;
		}
		json_object_object_add(a->req, "pid",
				       json_object_new_uint64(v));
		return 0;
	case OPT_COMM:
		if (!val[0] || strlen(val) > 15) {
			fprintf(stderr, "ftctl: events: --comm: a command "
					"name has 1 to 15 bytes\n");
			return -1;
		}
		json_object_object_add(a->req, "comm",
				       json_object_new_string(val));
		return 0;
	case OPT_LIMIT:
		if (parse_count(val, 1, 100000, &v) < 0) {
			fprintf(stderr, "ftctl: events: --limit: a count from "
					"1 to 100000\n");
			return -1;
		}
		json_object_object_add(a->req, "limit",
				       json_object_new_uint64(v));
		return 0;
	case 'f': a->follow = 1; return 0;
	case OPT_INTERVAL:
		a->interval = strtod(val, &end);
		if (end != val && !*end && a->interval >= 0.1 &&
		    a->interval <= 3600)
			return 0;
		fprintf(stderr, "ftctl: events: --interval: seconds from 0.1 "
				"to 3600\n");
		return -1;
	}
	return -1;
bad_time:
	fprintf(stderr,
		"ftctl: events: '%s': not a duration (30s, 5m, 2h, 1d), "
		"seconds since the epoch or YYYY-MM-DDTHH:MM:SS\n",
		val);
	return -1;
}

/* Text: one line each; JSON while following: one object per line. */
static void print_events(struct json_object *events, int json)
{
	size_t i, n = events && json_object_get_type(events) == json_type_array
			      ? json_object_array_length(events)
			      : 0;

	for (i = 0; i < n; i++) {
		struct json_object *ev = json_object_array_get_idx(events, i);

		if (json)
			puts(json_object_to_json_string_ext(
				ev, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			print_event(ev);
	}
}

static void print_header(void)
{
	printf("%-14s %-7s %7s %-15s %s\n", "TIME", "TYPE", "PID", "COMMAND",
	       "DETAILS");
}

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s};

	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * --follow: ask for what the log took after the last position seen
 * (docs/api.md, "Following the log"), until interrupted. The daemon may
 * restart meanwhile: positions survive that with its state directory;
 * a log that started anew is read from its start. Nothing is printed
 * twice, and what aged out unread is said on stderr, never hidden.
 */
static int follow(struct events_args *a, uint64_t cursor, int json)
{
	struct json_object *reply = NULL;
	int rc, away = 0, more = 0;
	uint64_t next;
	char err[512];

	json_object_object_add(a->req, "limit", json_object_new_uint64(1000));
	for (;;) {
		fflush(stdout);
		if (!more)
			sleep_s(a->interval);
		json_object_object_add(a->req, "after",
				       json_object_new_uint64(cursor));
		rc = ftctl_daemon_call(a->req, &reply, err, sizeof(err));
		if (rc && ftagent_api_not_running(rc)) {
			if (!away)
				fprintf(stderr,
					"ftctl: events: ftagentd went away "
					"(%s); waiting for it\n",
					err);
			away = 1;
			more = 0;
			continue;
		}
		if (rc)
			return ftctl_report_daemon_error("events", rc, err);
		if (away)
			fprintf(stderr, "ftctl: events: ftagentd is back\n");
		away = 0;
		next = ftctl_ju64(reply, "cursor");
		if (next < cursor) {
			fprintf(stderr, "ftctl: events: ftagentd's log started "
					"anew; reading it from its start\n");
			cursor = 0;
			more = 1;
			json_object_put(reply);
			continue;
		}
		if (ftctl_ju64(reply, "skipped"))
			fprintf(stderr,
				"ftctl: events: %" PRIu64
				" log entries aged out before they were read\n",
				ftctl_ju64(reply, "skipped"));
		print_events(ftctl_jget(reply, "events"), json);
		more = json_object_get_boolean(ftctl_jget(reply, "more"));
		cursor = next;
		json_object_put(reply);
	}
}

#define CONTINUE (-1)

/* What the options cannot say alone; CONTINUE when all is well. */
static int check_args(const struct events_args *a, int argc, char **argv,
		      int first)
{
	if (first != argc)
		return ftctl_usage_error(&ftctl_cmd_events,
					 "unexpected argument '%s'",
					 argv[first]);
	if (a->since && a->until && a->until < a->since)
		return ftctl_usage_error(&ftctl_cmd_events,
					 "--until is before --since");
	if (a->follow && a->until)
		return ftctl_usage_error(&ftctl_cmd_events,
					 "--follow and --until exclude each "
					 "other");
	return CONTINUE;
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct events_args a = {.now = ftctl_realtime_ns(), .interval = 1};
	struct json_object *reply = NULL, *events;
	int json, rc;
	char err[512];
	size_t n;

	a.req = json_object_new_object();
	json_object_object_add(a.req, "cmd", json_object_new_string("events"));
	rc = ftctl_parse_options(&ftctl_cmd_events, opts, argc, argv, on_option,
				 &a);
	rc = rc < 0 ? ftctl_parse_exit(rc) : check_args(&a, argc, argv, rc);
	if (rc != CONTINUE) {
		json_object_put(a.req);
		return rc;
	}
	json = opts->json;
	rc = ftctl_daemon_call(a.req, &reply, err, sizeof(err));
	if (rc) {
		json_object_put(a.req);
		return ftctl_report_daemon_error("events", rc, err);
	}
	if (a.follow && !ftctl_jget(reply, "cursor")) {
		fprintf(stderr, "ftctl: events: --follow needs ftagentd with "
				"API 1.1 or later (its reply has no cursor)\n");
		json_object_put(reply);
		json_object_put(a.req);
		return FTCTL_FAILED;
	}
	events = ftctl_jget(reply, "events");
	n = events && json_object_get_type(events) == json_type_array
		    ? json_object_array_length(events)
		    : 0;
	if (json && !a.follow && !n) {
		puts("[]");
	} else if (json && !a.follow) {
		puts(json_object_to_json_string_ext(
			events, JSON_C_TO_STRING_PRETTY |
					JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		if (!json && !opts->no_header)
			print_header();
		print_events(events, json);
	}
	if (json_object_get_boolean(ftctl_jget(reply, "more")))
		fprintf(stderr,
			"ftctl: events: older events matched too: narrow the "
			"filters or raise --limit\n");
	if (a.follow) {
		uint64_t cursor = ftctl_ju64(reply, "cursor");

		json_object_put(reply);
		rc = follow(&a, cursor, json);
	} else {
		json_object_put(reply);
		rc = FTCTL_OK;
	}
	json_object_put(a.req);
	return rc;
}

const struct ftctl_command ftctl_cmd_events = {
	.name = "events",
	.summary = "recent events from ftagentd's log; --follow for new ones",
	.usage = "events [--since DUR|TIME] [--until DUR|TIME]\n"
		 "             [--type T[,T...]] [--pid N] [--comm NAME] "
		 "[--limit N]\n"
		 "             [--follow [--interval S]]\n"
		 "  DUR: 30s, 5m, 2h, 1d ago; TIME: seconds since the epoch "
		 "or\n"
		 "  YYYY-MM-DDTHH:MM:SS (local time; Z or +HH:MM for a zone)",
	.shortopts = "f",
	.longopts = events_longopts,
	.values = events_values,
	.run = run,
};
