// SPDX-License-Identifier: GPL-2.0
/*
 * What the local API's replies say (api_json.h): the stats sections and
 * the table rows as JSON. The requests, their checks and the commands
 * are api_reply.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "api.h"
#include "api_json.h"
#include "api_reply.h"
#include "event_json.h"
#include "audit.h"
#include "event_output.h"
#include "losses.h"
#include "state.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	add(o, key, ftd_json_u64(v));
}

static struct json_object *fixed(double v, int decimals);

const char *ftd_module_link_name(int link)
{
	switch (link) {
	case FTD_LINK_ATTACHED: return "attached";
	case FTD_LINK_RELEASED: return "released";
	case FTD_LINK_ABSENT: return "absent";
	}
	return "unknown";
}

uint64_t ftd_module_detached_ns(const struct ftagentd *d)
{
	uint64_t open = 0;

	if (d->module_link != FTD_LINK_ATTACHED && d->module_detached_since_ns)
		open = ftd_clock_ns(CLOCK_MONOTONIC) -
		       d->module_detached_since_ns;
	return d->module_detached_ns + open;
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

struct json_object *ftd_api_daemon_json(const struct ftagentd *d)
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
	if (d->audit) {
		struct json_object *au = json_object_new_object();
		const struct ftd_audit *t = d->audit;

		add(au, "enabled",
		    json_object_new_boolean(d->cfg.audit.enabled));
		add(au, "dir", ftd_json_cstr(t->dir, sizeof(t->dir)));
		add_u64(au, "written", t->written);
		add_u64(au, "lost", t->lost);
		add_u64(au, "errors", t->errors);
		add_u64(au, "fsyncs", t->fsyncs);
		add_u64(au, "rotations", t->rotations);
		add_u64(au, "damaged", t->damaged);
		add_u64(au, "last_seq", t->seq);
		add(au, "last_hash",
		    t->seq ? json_object_new_string(t->last_hash) : NULL);
		add(au, "error",
		    t->error[0] ? ftd_json_cstr(t->error, sizeof(t->error))
				: NULL);
		add(o, "audit", au);
	}
	if (d->api) {
		struct json_object *a = json_object_new_object();

		add_u64(a, "requests", d->api->requests);
		add_u64(a, "errors", d->api->errors);
		add_u64(a, "refused", d->api->refused);
		add(o, "api", a);
	}
	add(o, "module_link",
	    json_object_new_string(ftd_module_link_name(d->module_link)));
	add_u64(o, "module_releases", d->module_releases);
	add_u64(o, "module_attaches", d->module_attaches);
	add_u64(o, "module_reloads", d->module_reloads);
	add(o, "module_detached_seconds",
	    fixed((double)ftd_module_detached_ns(d) / 1e9, 3));
	add_u64(o, "reloads", d->reloads);
	add_u64(o, "reload_errors", d->reload_errors);
	add_u64(o, "reopens", d->reopens);
	add(o, "module_missing",
	    d->module_missing[0] ? json_object_new_string(d->module_missing)
				 : NULL);
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

struct json_object *ftd_api_resources_json(const struct ftd_self_usage *s)
{
	struct json_object *o = json_object_new_object();

	add(o, "cpu_percent", fixed(s->cpu_percent, 2));
	add(o, "cpu_seconds", fixed(s->cpu_seconds, 2));
	add_u64(o, "rss_bytes", s->rss_bytes);
	add_u64(o, "vm_bytes", s->vm_bytes);
	add_u64(o, "open_fds", s->open_fds);
	return o;
}

/* {"window_s", "events", "counters"}; null before the first sample. */
static struct json_object *loss_last_hour(const struct ftagentd *d)
{
	uint64_t events, counters, window_s, d_events, d_counters;
	struct json_object *o;

	ftd_loss_totals(d, &events, &counters);
	if (ftd_loss_window_growth(
		    &d->loss_window, ftd_clock_ns(CLOCK_MONOTONIC), events,
		    counters, &window_s, &d_events, &d_counters) < 0)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "window_s", window_s);
	add_u64(o, "events", d_events);
	add_u64(o, "counters", d_counters);
	return o;
}

struct json_object *ftd_api_collector_json(const struct ftagentd *d)
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
	add(o, "loss_last_hour", loss_last_hour(d));
	return o;
}

/* ---- rows ---- */

uint64_t ftd_api_proc_calls(const struct ftd_proc *p)
{
	return sum_calls(&p->net) + sum_calls(&p->file) + sum_calls(&p->other);
}

static uint64_t proc_errors(const struct ftd_proc *p)
{
	return sum_errors(&p->net) + sum_errors(&p->file) +
	       sum_errors(&p->other);
}

struct json_object *ftd_api_proc_json(const struct ftd_proc *p, uint64_t off)
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
	add_u64(o, "calls", ftd_api_proc_calls(p));
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

struct json_object *ftd_api_row_json(const struct ftd_collector *c,
				     enum ftd_table_id id, const void *row,
				     uint64_t off)
{
	switch (id) {
	case FTD_T_PROCESSES: return ftd_api_proc_json(row, off);
	case FTD_T_SOCKETS: return sock_json(row, off);
	case FTD_T_FLOWS: return flow_json(row, off);
	case FTD_T_FILES: return file_json(row, off);
	case FTD_T_TRANSFERS: return xfer_json(c, row, off);
	default: return NULL;
	}
}

/* A table's rows, oldest first, as an array of pointers (or NULL). */
const void **ftd_api_table_rows(const struct ftd_table *t, size_t *n)
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
