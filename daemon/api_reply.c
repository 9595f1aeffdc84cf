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

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "api.h"
#include "api_reply.h"
#include "state.h"
#include "event_json.h"
#include "event_output.h"
#include "losses.h"
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

static uint64_t sum_calls(const struct ftd_inout *io)
{
	return io->in.calls + io->out.calls;
}

static uint64_t sum_errors(const struct ftd_inout *io)
{
	return io->in.errors + io->out.errors;
}

static void add_inout(struct json_object *o, const struct ftd_inout *io)
{
	add_u64(o, "in_bytes", io->in.bytes);
	add_u64(o, "in_calls", io->in.calls);
	add_u64(o, "in_errors", io->in.errors);
	add_u64(o, "out_bytes", io->out.bytes);
	add_u64(o, "out_calls", io->out.calls);
	add_u64(o, "out_errors", io->out.errors);
}

/* CLOCK_MONOTONIC of a row's times to CLOCK_REALTIME; 0 stays 0. */
static void add_time(struct json_object *o, const char *key, uint64_t mono,
		     uint64_t offset)
{
	add_u64(o, key, mono ? mono + offset : 0);
}

/* ---- stats ---- */

static struct json_object *daemon_json(const struct ftagentd *d)
{
	struct json_object *o = json_object_new_object();
	uint64_t now, start;

	if (d->self.start_realtime_ns) {
		now = ftd_clock_ns(CLOCK_REALTIME);
		start = d->self.start_realtime_ns;
	} else {
		now = ftd_clock_ns(CLOCK_MONOTONIC);
		start = d->col.start_mono_ns;
	}
	add(o, "version", json_object_new_string(FTAGENTD_VERSION));
	add_u64(o, "pid", (uint64_t)getpid());
	/* The wall clock may have been set back since the start. */
	add_u64(o, "uptime_s", now > start ? (now - start) / 1000000000ull : 0);
	add(o, "config_path",
	    d->config_path ? ftd_json_cstr(d->config_path, 4096) : NULL);
	add(o, "mode",
	    json_object_new_string(ftagent_mode_name(d->cfg.agent.mode)));
	if (d->state) {
		struct json_object *st = json_object_new_object();

		add_u64(st, "snapshots", d->state->snapshots);
		add_u64(st, "snapshot_errors", d->state->snapshot_errors);
		add_u64(st, "journal_bytes", d->state->journal_bytes);
		add_u64(st, "journal_errors", d->state->journal_errors);
		add_u64(st, "replayed_generations",
			d->state->replayed_generations);
		add_u64(st, "replayed_records", d->state->replayed_records);
		add(st, "error",
		    d->state->error[0] ? ftd_json_cstr(d->state->error,
						       sizeof(d->state->error))
				       : NULL);
		add(o, "state", st);
	}
	if (d->output) {
		struct json_object *eo = json_object_new_object();
		const struct ftd_event_output *out = d->output;

		add(eo, "target",
		    json_object_new_string(out->journal	  ? "journal"
					   : out->fd >= 0 ? "file"
							  : "off"));
		add_u64(eo, "written", out->written);
		add_u64(eo, "lost", out->lost);
		add_u64(eo, "errors", out->errors);
		add(eo, "error",
		    out->error[0]
			    ? ftd_json_cstr(out->error, sizeof(out->error))
			    : NULL);
		add(o, "event_output", eo);
	}
	if (d->api) {
		struct json_object *a = json_object_new_object();

		add_u64(a, "requests", d->api->requests);
		add_u64(a, "errors", d->api->errors);
		add_u64(a, "refused", d->api->refused);
		add(o, "api", a);
	}
	add_u64(o, "reloads", d->reloads);
	add_u64(o, "reload_errors", d->reload_errors);
	add_u64(o, "reopens", d->reopens);
	add(o, "policy_waiting_for_cgroups",
	    d->policy_missing[0] ? ftd_json_cstr(d->policy_missing,
						 sizeof(d->policy_missing))
				 : NULL);
	add(o, "last_reload_error",
	    d->last_reload_error[0]
		    ? ftd_json_cstr(d->last_reload_error,
				    sizeof(d->last_reload_error))
		    : NULL);
	return o;
}

/* A double with @decimals digits after the point, printed as such. */
static struct json_object *fixed(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static struct json_object *resources_json(const struct ftd_self_usage *s)
{
	struct json_object *o = json_object_new_object();

	add(o, "cpu_percent", fixed(s->cpu_percent, 2));
	add(o, "cpu_seconds", fixed(s->cpu_seconds, 2));
	add_u64(o, "rss_bytes", s->rss_bytes);
	add_u64(o, "vm_bytes", s->vm_bytes);
	add_u64(o, "open_fds", s->open_fds);
	return o;
}

static struct json_object *collector_json(const struct ftagentd *d)
{
	const struct ftd_collector *c = &d->col;
	struct ftd_event_losses loss;
	struct json_object *o = json_object_new_object();
	struct json_object *q = json_object_new_object();
	struct json_object *rx = json_object_new_object();
	struct json_object *drop = json_object_new_object();
	struct json_object *log = json_object_new_object();
	struct json_object *tables = json_object_new_object();
	struct json_object *lost = json_object_new_object();
	unsigned int i;

	add_u64(q, "size_bytes", c->queue_capacity);
	add_u64(q, "used_bytes", c->queue_bytes);
	add_u64(q, "peak_bytes", c->queue_peak);
	add(o, "event_queue", q);
	for (i = FTAGENT_REC_GAP + 1; i < __FTAGENT_REC_MAX; i++)
		add_u64(rx, ftagent_rec_type_name(i), c->events[i]);
	add(o, "events_received", rx);
	/* The same figures as the metrics page and KERNEL (losses.h). */
	ftd_event_losses(d, &loss);
	for (i = 0; i < __FTAGENT_EV_LOSS_MAX; i++)
		add_u64(drop, ftagent_event_loss_name(i), loss.kernel[i]);
	add_u64(drop, "channel_discarded", loss.discarded);
	for (i = 0; i < __FTD_DROP_MAX; i++)
		if (i != FTD_DROP_DUMP_RETRY)
			add_u64(drop, ftd_drop_name(i), loss.daemon[i]);
	add(o, "events_dropped", drop);
	add_u64(o, "dump_retries", c->drops[FTD_DROP_DUMP_RETRY]);
	add_u64(log, "limit_bytes", c->log.limit);
	add_u64(log, "used_bytes", c->log.bytes);
	add_u64(log, "count", c->log.n);
	add_u64(log, "appended", c->log.appended);
	add_u64(log, "aged_out", c->log.aged_out);
	add_u64(log, "too_big", c->log.too_big);
	add(o, "event_log", log);
	for (i = 0; i < __FTD_T_MAX; i++) {
		const struct ftd_table *t = &c->table[i];
		struct json_object *row = json_object_new_object();

		add_u64(row, "used", t->used);
		add_u64(row, "capacity", t->capacity);
		add_u64(row, "evicted", t->evicted);
		add_u64(row, "inserted", t->inserted);
		add(tables, ftd_table_name(i), row);
	}
	add(o, "tables", tables);
	add_u64(o, "generations", c->generations);
	add_u64(o, "counters", c->counters);
	add_u64(o, "last_generation", c->last_gen_seq);
	for (i = 0; i < __FTAGENT_LOSS_MAX; i++)
		add_u64(lost, ftagent_loss_name(i), c->kernel_lost[i]);
	add(o, "counter_table_lost", lost);
	return o;
}

static int cmd_stats(struct ftagentd *d, struct json_object *req,
		     struct json_object *reply, struct err *e)
{
	(void)req;
	(void)e;
	add(reply, "daemon", daemon_json(d));
	add(reply, "resources", resources_json(&d->self));
	add(reply, "collector", collector_json(d));
	/* For ftctl stats run by a group member, who may not ask the module. */
	if (d->have_res)
		add(reply, "module",
		    ftagent_module_view_json(&d->module, &d->res));
	return 0;
}

/* ---- rows ---- */

static uint64_t proc_calls(const struct ftd_proc *p)
{
	return sum_calls(&p->net) + sum_calls(&p->file) + sum_calls(&p->other);
}

static uint64_t proc_errors(const struct ftd_proc *p)
{
	return sum_errors(&p->net) + sum_errors(&p->file) +
	       sum_errors(&p->other);
}

static struct json_object *proc_json(const struct ftd_proc *p, uint64_t off)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "pid", p->key.tgid);
	add_u64(o, "ppid", p->ppid);
	add_u64(o, "uid", p->uid);
	add(o, "comm", ftd_json_cstr(p->comm, sizeof(p->comm)));
	add(o, "exe", ftd_json_cstr(p->exe, sizeof(p->exe)));
	add_u64(o, "cgroup_id", p->cgroup_id);
	add(o, "exited", json_object_new_boolean(p->exited));
	if (p->exited)
		add(o, "exit_code", json_object_new_int64(p->exit_code));
	add_u64(o, "net_in_bytes", p->net.in.bytes);
	add_u64(o, "net_out_bytes", p->net.out.bytes);
	add_u64(o, "file_in_bytes", p->file.in.bytes);
	add_u64(o, "file_out_bytes", p->file.out.bytes);
	add_u64(o, "other_in_bytes", p->other.in.bytes);
	add_u64(o, "other_out_bytes", p->other.out.bytes);
	add_u64(o, "calls", proc_calls(p));
	add_u64(o, "errors", proc_errors(p));
	add_time(o, "first_seen_ns", p->first_ns, off);
	add_time(o, "last_seen_ns", p->last_ns, off);
	return o;
}

static struct json_object *sock_json(const struct ftd_sock *s, uint64_t off)
{
	struct json_object *o = json_object_new_object();
	unsigned int family = s->family ? s->family : s->flow.family;
	unsigned int proto = s->protocol ? s->protocol : s->flow.protocol;

	add_u64(o, "pid", s->key.tgid);
	add_u64(o, "ino", s->key.ino);
	add(o, "family", ftd_json_family(family));
	add(o, "protocol", ftd_json_protocol(proto));
	/* An event set the flow key (family non-zero): the local end. */
	add(o, "local",
	    s->flow.family
		    ? ftd_json_endpoint(s->flow.family, s->flow.local_addr,
					s->flow.local_port)
		    : NULL);
	add(o, "remote",
	    s->known ? ftd_json_endpoint(s->flow.family, s->flow.remote_addr,
					 s->flow.remote_port)
		     : NULL);
	add(o, "closed", json_object_new_boolean(s->closed));
	add_inout(o, &s->io);
	add_time(o, "last_seen_ns", s->last_ns, off);
	return o;
}

static struct json_object *flow_json(const struct ftd_flow *f, uint64_t off)
{
	struct json_object *o = json_object_new_object();
	const struct ftd_flow_key *k = &f->key;

	add(o, "family", ftd_json_family(k->family));
	add(o, "protocol", ftd_json_protocol(k->protocol));
	add(o, "local",
	    ftd_json_endpoint(k->family, k->local_addr, k->local_port));
	add(o, "remote",
	    ftd_json_endpoint(k->family, k->remote_addr, k->remote_port));
	add_inout(o, &f->io);
	add_time(o, "last_seen_ns", f->last_ns, off);
	return o;
}

static struct json_object *file_json(const struct ftd_file *f, uint64_t off)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "dev", f->key.dev);
	add_u64(o, "ino", f->key.ino);
	add(o, "path",
	    f->path[0] ? ftd_json_cstr(f->path, sizeof(f->path)) : NULL);
	add(o, "path_truncated", json_object_new_boolean(f->path_truncated));
	add_inout(o, &f->io);
	add_time(o, "last_seen_ns", f->last_ns, off);
	return o;
}

static struct json_object *xfer_json(const struct ftd_collector *c,
				     const struct ftd_xfer *x, uint64_t off)
{
	struct json_object *o = json_object_new_object();
	struct ftd_file_key fk = {.dev = x->key.dev, .ino = x->key.ino};
	const struct ftd_file *f = ftd_table_find(&c->table[FTD_T_FILES], &fk);

	add_u64(o, "pid", x->key.tgid);
	add_u64(o, "dev", x->key.dev);
	add_u64(o, "ino", x->key.ino);
	add(o, "path",
	    f && f->path[0] ? ftd_json_cstr(f->path, sizeof(f->path)) : NULL);
	add_u64(o, "sock_ino", x->key.sock_ino);
	add(o, "attributed", json_object_new_boolean(x->key.attributed));
	add_u64(o, "bytes", x->bytes);
	add_u64(o, "calls", x->calls);
	add_time(o, "last_seen_ns", x->last_ns, off);
	return o;
}

static struct json_object *row_json(const struct ftd_collector *c,
				    enum ftd_table_id id, const void *row,
				    uint64_t off)
{
	switch (id) {
	case FTD_T_PROCESSES: return proc_json(row, off);
	case FTD_T_SOCKETS: return sock_json(row, off);
	case FTD_T_FLOWS: return flow_json(row, off);
	case FTD_T_FILES: return file_json(row, off);
	case FTD_T_TRANSFERS: return xfer_json(c, row, off);
	default: return NULL;
	}
}

/* A table's rows, oldest first, as an array of pointers (or NULL). */
static const void **table_rows(const struct ftd_table *t, size_t *n)
{
	const void **rows = calloc(t->used ? t->used : 1, sizeof(*rows));
	const void *r;

	*n = 0;
	if (!rows)
		return NULL;
	for (r = ftd_table_first(t); r && *n < t->used;
	     r = ftd_table_next_row(t, r))
		rows[(*n)++] = r;
	return rows;
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
	case SORT_CALLS: return proc_calls(p);
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
	rows = table_rows(t, &n);
	if (!rows) {
		set_err(e, "out of memory");
		return -1;
	}
	by = (enum top_sort)sort;
	qsort_r(rows, n, sizeof(*rows), top_cmp, &by);
	arr = json_object_new_array();
	for (i = 0; i < n && i < limit; i++)
		json_object_array_add(arr, proc_json(rows[i], off));
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
	rows = table_rows(t, &n);
	if (!rows) {
		set_err(e, "out of memory");
		return -1;
	}
	arr = json_object_new_array();
	for (i = 0; i < n && i < limit; i++)
		json_object_array_add(
			arr, row_json(&d->col, id, rows[n - 1 - i], off));
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
	struct collect c;
	const char *comm;
	size_t len, n;
	int rc;

	if (get_uint(req, "since_ns", 0, NS_MAX, &q.since_ns, e) < 0 ||
	    get_uint(req, "until_ns", 1, NS_MAX, &until, e) < 0 ||
	    get_types(req, &q.type_mask, e) < 0 ||
	    get_uint(req, "pid", 1, UINT32_MAX, &pid, e) < 0 ||
	    get_uint(req, "limit", 1, FTD_API_LIMIT_MAX, &limit, e) < 0)
		return -1;
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
	/* One more than asked: whether older matches were left out. */
	q.limit = (size_t)limit + 1;
	c.arr = json_object_new_array();
	if (!c.arr) {
		set_err(e, "out of memory");
		return -1;
	}
	n = ftd_eventlog_query(&d->col.log, &q, collect_event, &c);
	if (n > limit)
		json_object_array_del_idx(c.arr, 0, 1);
	add(reply, "more", json_object_new_boolean(n > limit));
	add(reply, "events", c.arr);
	return 0;
}

/* ---- requests ---- */

static const char *const stats_keys[] = {NULL};
static const char *const top_keys[] = {"limit", "sort", NULL};
static const char *const events_keys[] = {
	"since_ns", "until_ns", "types", "pid", "comm", "limit", NULL};
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
			   "table)");
		return NULL;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strlen(commands[i].name) == len &&
		    !strcmp(cmd, commands[i].name))
			c = &commands[i];
	if (!c) {
		set_err(e,
			"key 'cmd': unknown command '%s' (one of stats, top, "
			"events, table)",
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
		return fail(&e);
	reply = dispatch(d, req, &e);
	json_object_put(req);
	return reply ? reply : fail(&e);
}
