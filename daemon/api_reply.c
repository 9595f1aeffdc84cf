// SPDX-License-Identifier: GPL-2.0
/*
 * The local API's commands (api_reply.h, docs/api.md). A request is taken
 * whole or refused whole: it must be one strict JSON object, with a known
 * "cmd", only that command's keys, each of its type and range. Every
 * refusal names the key or the problem, so a client's author can fix the
 * request from the message alone.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tools/lib/api_version.h"
#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "api.h"
#include "api_json.h"
#include "api_reply.h"
#include "event_json.h"
#include "../tools/lib/module_view.h"

#define LIMIT_TOP_DEFAULT    20
#define LIMIT_EVENTS_DEFAULT 1000
#define LIMIT_TABLE_DEFAULT  1000
#define NS_MAX		     ((uint64_t)INT64_MAX)
#define JSON_DEPTH	     16

struct err {
	char msg[512];
};

static void set_err(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

static struct json_object *fail(const struct err *e)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	/* The message may quote the client's bytes, cut anywhere. */
	json_object_object_add(o, "error",
			       ftd_json_cstr(e->msg, sizeof(e->msg)));
	return o;
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	add(o, key, ftd_json_u64(v));
}

/* A value's kind, for messages: "a string", "an array", ... */
static const char *kind_of(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number with a fraction or exponent";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

/*
 * Request parameters: each getter returns 0 when the key is absent, 1
 * when it is present and valid (*out set), -1 with @e otherwise.
 */
static int get_uint(struct json_object *req, const char *key, uint64_t min,
		    uint64_t max, uint64_t *out, struct err *e)
{
	struct json_object *v;
	uint64_t u;

	if (!json_object_object_get_ex(req, key, &v))
		return 0;
	if (json_object_get_type(v) != json_type_int) {
		set_err(e,
			"key '%s': must be an integer from %" PRIu64
			" to %" PRIu64 ", not %s",
			key, min, max, kind_of(v));
		return -1;
	}
	/* Above UINT64_MAX json-c saturates: max stays below it. */
	if (json_object_get_int64(v) < 0) {
		set_err(e,
			"key '%s': must be an integer from %" PRIu64
			" to %" PRIu64 " (got %" PRId64 ")",
			key, min, max, json_object_get_int64(v));
		return -1;
	}
	u = json_object_get_uint64(v);
	if (u < min || u > max) {
		set_err(e,
			"key '%s': must be an integer from %" PRIu64
			" to %" PRIu64 " (got %s%" PRIu64 ")",
			key, min, max, u == UINT64_MAX ? "at least " : "", u);
		return -1;
	}
	*out = u;
	return 1;
}

static int get_string(struct json_object *req, const char *key,
		      const char **out, size_t *len, struct err *e)
{
	struct json_object *v;

	if (!json_object_object_get_ex(req, key, &v))
		return 0;
	if (json_object_get_type(v) != json_type_string) {
		set_err(e, "key '%s': must be a string, not %s", key,
			kind_of(v));
		return -1;
	}
	*out = json_object_get_string(v);
	*len = (size_t)json_object_get_string_len(v);
	return 1;
}

/* @s (a request's string) as a short printable quote for messages. */
static const char *quote(const char *s, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 4 < size; i++)
		buf[n++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	if (i < len && n >= 3)
		memcpy(buf + n - 3, "...", 3);
	buf[n] = '\0';
	return buf;
}

/* The index of @s in @names (@n of them), or -1. */
static int lookup(const char *s, size_t len, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(s, names[i], len))
			return i;
	return -1;
}

static int get_choice(struct json_object *req, const char *key,
		      const char *const *names, int n, int *out, struct err *e)
{
	char list[160] = "", q[64];
	const char *s;
	size_t len;
	int rc, i;

	rc = get_string(req, key, &s, &len, e);
	if (rc <= 0)
		return rc;
	i = lookup(s, len, names, n);
	if (i >= 0) {
		*out = i;
		return 1;
	}
	for (i = 0; i < n; i++) {
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
	}
	set_err(e, "key '%s': must be one of %s (got '%s')", key, list,
		quote(s, len, q, sizeof(q)));
	return -1;
}

static int cmd_stats(struct ftagentd *d, struct json_object *req,
		     struct json_object *reply, struct err *e)
{
	(void)req;
	(void)e;
	add(reply, "daemon", ftd_api_daemon_json(d));
	add(reply, "resources", ftd_api_resources_json(&d->self));
	add(reply, "collector", ftd_api_collector_json(d));
	/* For ftctl stats run by a group member, who may not ask the module. */
	if (d->have_res)
		add(reply, "module",
		    ftagent_module_view_json(&d->module, &d->res));
	return 0;
}

/* ---- top ---- */

enum top_sort { SORT_BYTES, SORT_NET, SORT_FILE, SORT_CALLS, __SORT_MAX };

static const char *const sort_names[__SORT_MAX] = {
	[SORT_BYTES] = "bytes",
	[SORT_NET] = "net",
	[SORT_FILE] = "file",
	[SORT_CALLS] = "calls",
};

static uint64_t sort_key(const struct ftd_proc *p, enum top_sort s)
{
	uint64_t net = p->net.in.bytes + p->net.out.bytes;
	uint64_t file = p->file.in.bytes + p->file.out.bytes;

	switch (s) {
	case SORT_NET: return net;
	case SORT_FILE: return file;
	case SORT_CALLS: return ftd_api_proc_calls(p);
	default: return net + file + p->other.in.bytes + p->other.out.bytes;
	}
}

static int top_cmp(const void *a, const void *b, void *arg)
{
	const struct ftd_proc *x = *(const struct ftd_proc *const *)a;
	const struct ftd_proc *y = *(const struct ftd_proc *const *)b;
	enum top_sort by = *(const enum top_sort *)arg;
	uint64_t kx = sort_key(x, by), ky = sort_key(y, by);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return x->key.tgid < y->key.tgid ? -1 : x->key.tgid > y->key.tgid;
}

static int cmd_top(struct ftagentd *d, struct json_object *req,
		   struct json_object *reply, struct err *e)
{
	const struct ftd_table *t = &d->col.table[FTD_T_PROCESSES];
	uint64_t limit = LIMIT_TOP_DEFAULT, off = ftd_realtime_offset_ns();
	struct json_object *arr;
	const void **rows;
	int sort = SORT_BYTES;
	enum top_sort by;
	size_t n, i;

	if (get_uint(req, "limit", 1, FTD_API_LIMIT_MAX, &limit, e) < 0 ||
	    get_choice(req, "sort", sort_names, __SORT_MAX, &sort, e) < 0)
		return -1;
	rows = ftd_api_table_rows(t, &n);
	if (!rows) {
		set_err(e, "out of memory");
		return -1;
	}
	by = (enum top_sort)sort;
	qsort_r(rows, n, sizeof(*rows), top_cmp, &by);
	arr = json_object_new_array();
	for (i = 0; i < n && i < limit; i++)
		json_object_array_add(arr, ftd_api_proc_json(rows[i], off));
	free(rows);
	add_u64(reply, "time_ns", ftd_clock_ns(CLOCK_REALTIME));
	add(reply, "sort", json_object_new_string(sort_names[sort]));
	add_u64(reply, "total", n);
	add(reply, "processes", arr);
	return 0;
}

/* ---- table ---- */

static const char *const table_names[__FTD_T_MAX] = {
	[FTD_T_PROCESSES] = "processes", [FTD_T_SOCKETS] = "sockets",
	[FTD_T_FLOWS] = "flows",	 [FTD_T_FILES] = "files",
	[FTD_T_TRANSFERS] = "transfers",
};

static int cmd_table(struct ftagentd *d, struct json_object *req,
		     struct json_object *reply, struct err *e)
{
	uint64_t limit = LIMIT_TABLE_DEFAULT, off = ftd_realtime_offset_ns();
	struct json_object *arr;
	const struct ftd_table *t;
	const void **rows;
	size_t n, i;
	int id, rc;

	rc = get_choice(req, "name", table_names, __FTD_T_MAX, &id, e);
	if (rc < 0)
		return -1;
	if (!rc) {
		set_err(e, "missing key 'name' (one of processes, sockets, "
			   "flows, files, transfers)");
		return -1;
	}
	if (get_uint(req, "limit", 1, FTD_API_LIMIT_MAX, &limit, e) < 0)
		return -1;
	t = &d->col.table[id];
	rows = ftd_api_table_rows(t, &n);
	if (!rows) {
		set_err(e, "out of memory");
		return -1;
	}
	arr = json_object_new_array();
	for (i = 0; i < n && i < limit; i++)
		json_object_array_add(
			arr,
			ftd_api_row_json(&d->col, id, rows[n - 1 - i], off));
	free(rows);
	add(reply, "name", json_object_new_string(table_names[id]));
	add_u64(reply, "used", t->used);
	add_u64(reply, "capacity", t->capacity);
	add_u64(reply, "evicted", t->evicted);
	add(reply, "rows", arr);
	return 0;
}

/* ---- events ---- */

static int get_types(struct json_object *req, uint32_t *mask, struct err *e)
{
	struct json_object *v, *item;
	const char *s;
	char q[64];
	size_t i, n;
	int type;

	if (!json_object_object_get_ex(req, "types", &v))
		return 0;
	if (json_object_get_type(v) != json_type_array) {
		set_err(e,
			"key 'types': must be an array of event type names, "
			"not %s",
			kind_of(v));
		return -1;
	}
	n = json_object_array_length(v);
	if (!n) {
		set_err(e, "key 'types': must not be empty (leave it out for "
			   "every type)");
		return -1;
	}
	*mask = 0;
	for (i = 0; i < n; i++) {
		item = json_object_array_get_idx(v, i);
		if (json_object_get_type(item) != json_type_string) {
			set_err(e,
				"key 'types': item %zu must be a string, not "
				"%s",
				i, kind_of(item));
			return -1;
		}
		s = json_object_get_string(item);
		for (type = FTAGENT_REC_GAP + 1; type < __FTAGENT_REC_MAX;
		     type++)
			if ((size_t)json_object_get_string_len(item) ==
				    strlen(ftagent_rec_type_name(type)) &&
			    !strcmp(s, ftagent_rec_type_name(type)))
				break;
		if (type == __FTAGENT_REC_MAX) {
			set_err(e,
				"key 'types': unknown event type '%s' (known: "
				"fork, exec, exit, connect, accept, close, "
				"bind, listen, open, verdict)",
				quote(s,
				      (size_t)json_object_get_string_len(item),
				      q, sizeof(q)));
			return -1;
		}
		*mask |= 1u << type;
	}
	return 1;
}

struct collect {
	struct json_object *arr;
};

static void collect_event(const struct ftd_event *ev, void *arg)
{
	struct collect *c = arg;

	json_object_array_add(c->arr, ftd_event_json(ev));
}

static int cmd_events(struct ftagentd *d, struct json_object *req,
		      struct json_object *reply, struct err *e)
{
	struct ftd_event_query q = {0};
	uint64_t limit = LIMIT_EVENTS_DEFAULT, pid = 0, until = 0;
	struct ftd_eventlog_cursor cur = {0};
	struct collect c;
	const char *comm;
	size_t len, n;
	int rc, after;

	if (get_uint(req, "since_ns", 0, NS_MAX, &q.since_ns, e) < 0 ||
	    get_uint(req, "until_ns", 1, NS_MAX, &until, e) < 0 ||
	    get_types(req, &q.type_mask, e) < 0 ||
	    get_uint(req, "pid", 1, UINT32_MAX, &pid, e) < 0 ||
	    get_uint(req, "limit", 1, FTD_API_LIMIT_MAX, &limit, e) < 0)
		return -1;
	rc = get_uint(req, "after", 0, UINT64_MAX - 1, &cur.after, e);
	if (rc < 0)
		return -1;
	after = rc;
	if (until && until < q.since_ns) {
		set_err(e,
			"key 'until_ns': %" PRIu64
			" is before since_ns %" PRIu64,
			until, q.since_ns);
		return -1;
	}
	rc = get_string(req, "comm", &comm, &len, e);
	if (rc < 0)
		return -1;
	if (rc && (!len || len >= sizeof(q.comm) || strlen(comm) != len)) {
		set_err(e,
			"key 'comm': must be a command name of 1 to %zu bytes "
			"without NUL (got %zu bytes)",
			sizeof(q.comm) - 1, len);
		return -1;
	}
	if (rc)
		memcpy(q.comm, comm, len + 1);
	q.until_ns = until;
	q.pid = (uint32_t)pid;
	c.arr = json_object_new_array();
	if (!c.arr) {
		set_err(e, "out of memory");
		return -1;
	}
	if (after) {
		/* Paging forward: the oldest matches after the cursor. */
		q.limit = (size_t)limit;
		ftd_eventlog_read_after(&d->col.log, &q, &cur, collect_event,
					&c);
		add(reply, "more", json_object_new_boolean(cur.more));
		add_u64(reply, "cursor", cur.next);
		add_u64(reply, "skipped", cur.skipped);
		add(reply, "events", c.arr);
		return 0;
	}
	/* One more than asked: whether older matches were left out. */
	q.limit = (size_t)limit + 1;
	n = ftd_eventlog_query(&d->col.log, &q, collect_event, &c);
	if (n > limit)
		json_object_array_del_idx(c.arr, 0, 1);
	add(reply, "more", json_object_new_boolean(n > limit));
	/* Where a reader that wants what comes next starts ("after"). */
	add_u64(reply, "cursor", d->col.log.appended);
	add(reply, "events", c.arr);
	return 0;
}

/* ---- version ---- */

static struct json_object *api_version_json(void)
{
	struct json_object *v = json_object_new_object();

	if (v) {
		add_u64(v, "major", FTAGENT_API_MAJOR);
		add_u64(v, "minor", FTAGENT_API_MINOR);
	}
	return v;
}

/* api_version is in every reply; this adds what the daemon is. */
static int cmd_version(struct ftagentd *d, struct json_object *req,
		       struct json_object *reply, struct err *e)
{
	(void)d;
	(void)req;
	(void)e;
	add(reply, "daemon_version", json_object_new_string(FTAGENTD_VERSION));
	return 0;
}

/* ---- requests ---- */

static const char *const stats_keys[] = {NULL};
static const char *const version_keys[] = {NULL};
static const char *const top_keys[] = {"limit", "sort", NULL};
static const char *const events_keys[] = {
	"since_ns", "until_ns", "types", "pid", "comm", "limit", "after", NULL};
static const char *const table_keys[] = {"name", "limit", NULL};

static const struct command {
	const char *name;
	const char *const *keys; /* besides "cmd" */
	int (*run)(struct ftagentd *d, struct json_object *req,
		   struct json_object *reply, struct err *e);
} commands[] = {
	{"stats", stats_keys, cmd_stats},
	{"top", top_keys, cmd_top},
	{"events", events_keys, cmd_events},
	{"table", table_keys, cmd_table},
	{"version", version_keys, cmd_version},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static int check_keys(struct json_object *req, const struct command *c,
		      struct err *e)
{
	struct json_object_iterator it = json_object_iter_begin(req);
	struct json_object_iterator end = json_object_iter_end(req);
	char list[128], q[64];
	const char *key;
	size_t i;

	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		key = json_object_iter_peek_name(&it);
		if (!strcmp(key, "cmd"))
			continue;
		for (i = 0; c->keys[i]; i++)
			if (!strcmp(key, c->keys[i]))
				break;
		if (c->keys[i])
			continue;
		snprintf(list, sizeof(list), "cmd");
		for (i = 0; c->keys[i]; i++) {
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			strncat(list, c->keys[i],
				sizeof(list) - strlen(list) - 1);
		}
		set_err(e, "unknown key '%s' for cmd '%s' (it takes: %s)",
			quote(key, strlen(key), q, sizeof(q)), c->name, list);
		return -1;
	}
	return 0;
}

static struct json_object *dispatch(struct ftagentd *d, struct json_object *req,
				    struct err *e)
{
	struct json_object *reply;
	const struct command *c = NULL;
	const char *cmd;
	char q[64];
	size_t len, i;
	int rc;

	rc = get_string(req, "cmd", &cmd, &len, e);
	if (rc < 0)
		return NULL;
	if (!rc) {
		set_err(e, "missing key 'cmd' (one of stats, top, events, "
			   "table, version)");
		return NULL;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strlen(commands[i].name) == len &&
		    !strcmp(cmd, commands[i].name))
			c = &commands[i];
	if (!c) {
		set_err(e,
			"key 'cmd': unknown command '%s' (one of stats, top, "
			"events, table, version)",
			quote(cmd, len, q, sizeof(q)));
		return NULL;
	}
	if (check_keys(req, c, e) < 0)
		return NULL;
	reply = json_object_new_object();
	if (!reply) {
		set_err(e, "out of memory");
		return NULL;
	}
	add(reply, "ok", json_object_new_boolean(1));
	if (c->run(d, req, reply, e) < 0) {
		json_object_put(reply);
		return NULL;
	}
	return reply;
}

/* Parse one line as a strict JSON object, or say why not. */
static struct json_object *parse(const char *line, size_t len, struct err *e)
{
	struct json_tokener *tok;
	struct json_object *req;
	enum json_tokener_error jerr;
	const char *nul;
	size_t i, at;
	char *buf;

	if (len > FTD_API_REQUEST_MAX) {
		set_err(e, "request of %zu bytes: the limit is %d bytes", len,
			FTD_API_REQUEST_MAX);
		return NULL;
	}
	nul = memchr(line, '\0', len);
	if (nul) {
		set_err(e, "request holds a NUL byte (at byte %zu)",
			(size_t)(nul - line));
		return NULL;
	}
	for (i = 0; i < len && strchr(" \t\r\n", line[i]); i++)
		;
	if (i == len) {
		set_err(e, "empty request: send one JSON object per line, "
			   "such as {\"cmd\":\"stats\"}");
		return NULL;
	}
	buf = malloc(len + 1);
	tok = json_tokener_new_ex(JSON_DEPTH);
	if (!buf || !tok) {
		free(buf);
		if (tok)
			json_tokener_free(tok);
		set_err(e, "out of memory");
		return NULL;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	/* The NUL is the end of input: a number or keyword at the end ends. */
	req = json_tokener_parse_ex(tok, buf, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	at = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	free(buf);
	if (jerr == json_tokener_success && !req) {
		set_err(e, "request must be a JSON object, not null");
		return NULL;
	}
	if (jerr != json_tokener_success) {
		json_object_put(req);
		if (jerr == json_tokener_error_parse_eof ||
		    jerr == json_tokener_continue)
			set_err(e, "request is not complete JSON: it ends "
				   "before the object does");
		else
			set_err(e,
				"request is not valid JSON: %s (at byte %zu)",
				json_tokener_error_desc(jerr), at);
		return NULL;
	}
	if (json_object_get_type(req) != json_type_object) {
		set_err(e, "request must be a JSON object, not %s",
			kind_of(req));
		json_object_put(req);
		return NULL;
	}
	return req;
}

/* Every reply, refusals too, says which API answered. */
static struct json_object *versioned(struct json_object *reply)
{
	if (reply)
		add(reply, "api_version", api_version_json());
	return reply;
}

struct json_object *ftd_api_reply(struct ftagentd *d, const char *line,
				  size_t len)
{
	struct json_object *req, *reply;
	struct err e = {""};

	if (!line)
		len = 0;
	/* One trailing newline (with its CR) is the frame, not the request. */
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	req = parse(line ? line : "", len, &e);
	if (!req)
		return versioned(fail(&e));
	reply = dispatch(d, req, &e);
	json_object_put(req);
	return versioned(reply ? reply : fail(&e));
}
