// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus page (metrics.h): rendering the text exposition format.
 * Serving it is metrics_http.c's job.
 *
 * Format rules kept here: every family has # HELP and # TYPE before its
 * samples, counters end in _total, a series appears once, and label
 * values are valid UTF-8 with backslash, double quote and newline
 * escaped (a command name can hold any byte).
 */
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../tools/lib/budgets.h"
#include "../tools/lib/counters.h"
#include "../tools/lib/policy.h"
#include "../tools/lib/records.h"
#include "audit.h"
#include "../tools/lib/status.h"
#include "event_output.h"
#include "ftagentd.h"
#include "losses.h"
#include "metrics.h"
#include "state.h"

/* Labelled series one process or group adds: {in, out} x {socket, file}. */
#define FTD_METRICS_PROC_SERIES 4

static const char *const object_names[__FTD_GO_MAX] = {
	[FTD_GO_SOCKET] = "socket",
	[FTD_GO_FILE] = "file",
};

/* The label a group's name goes in, by enum ftagentd_group_by. */
static const char *const group_labels[__FTAGENTD_GROUP_MAX] = {
	[FTAGENTD_GROUP_COMMAND] = "comm",
	[FTAGENTD_GROUP_EXECUTABLE] = "exe",
	[FTAGENTD_GROUP_UNIT] = "unit",
	[FTAGENTD_GROUP_PID] = "pid",
};

static const char *const dir_names[__FTD_MD_MAX] = {
	[FTD_MD_IN] = "in",
	[FTD_MD_OUT] = "out",
};

static const char *const proto_names[__FTD_MP_MAX] = {
	[FTD_MP_TCP] = "tcp",
	[FTD_MP_UDP] = "udp",
	[FTD_MP_OTHER] = "other",
};

static const char *const family_names[__FTD_MF_MAX] = {
	[FTD_MF_IPV4] = "ipv4",
	[FTD_MF_IPV6] = "ipv6",
	[FTD_MF_UNIX] = "unix",
	[FTD_MF_OTHER] = "other",
};

/* The page being written, and the count of labelled series on it. */
struct page {
	char *buf;
	size_t len, cap;
	int oom;
	uint64_t series, limit, overflow;
};

/* Room for @more bytes after len. 0, or -1 (and oom set). */
static int reserve(struct page *pg, size_t more)
{
	size_t cap = pg->cap ? pg->cap : 16384;
	char *buf;

	if (pg->oom)
		return -1;
	if (pg->cap - pg->len >= more)
		return 0;
	while (cap - pg->len < more)
		cap *= 2;
	buf = realloc(pg->buf, cap);
	if (!buf) {
		pg->oom = 1;
		return -1;
	}
	pg->buf = buf;
	pg->cap = cap;
	return 0;
}

__attribute__((format(printf, 2, 3))) static void put(struct page *pg,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (reserve(pg, 256) < 0)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(pg->buf + pg->len, pg->cap - pg->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			pg->oom = 1;
			return;
		}
		if ((size_t)n < pg->cap - pg->len) {
			pg->len += (size_t)n;
			return;
		}
		if (reserve(pg, (size_t)n + 1) < 0)
			return;
	}
}

static void put_bytes(struct page *pg, const void *p, size_t n)
{
	if (reserve(pg, n + 1) < 0)
		return;
	memcpy(pg->buf + pg->len, p, n);
	pg->len += n;
	pg->buf[pg->len] = '\0';
}

/* The length of the valid UTF-8 sequence at @s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned int c = s[0], n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	/* A NUL is not a continuation byte: this stops at the string's end. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A label value: escaped, and each byte that is not UTF-8 as U+FFFD. */
static void put_label_value(struct page *pg, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n;

	while (*s) {
		n = utf8_seq(s);
		if (!n) {
			put_bytes(pg, "\xef\xbf\xbd", 3);
			s++;
			continue;
		}
		if (*s == '\\')
			put_bytes(pg, "\\\\", 2);
		else if (*s == '"')
			put_bytes(pg, "\\\"", 2);
		else if (*s == '\n')
			put_bytes(pg, "\\n", 2);
		else
			put_bytes(pg, s, n);
		s += n;
	}
}

static void family(struct page *pg, const char *name, const char *type,
		   const char *help)
{
	put(pg, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One more labelled series, if metric_series allows it. */
static int series_ok(struct page *pg)
{
	if (pg->series >= pg->limit) {
		pg->overflow++;
		return 0;
	}
	pg->series++;
	return 1;
}

/* name{k="v",...} value, the labels as NULL-terminated key, value pairs. */
static void vsample(struct page *pg, const char *name, uint64_t v, va_list ap)
{
	const char *key, *sep = "{";

	put(pg, "%s", name);
	while ((key = va_arg(ap, const char *))) {
		put(pg, "%s%s=\"", sep, key);
		put_label_value(pg, va_arg(ap, const char *));
		put(pg, "\"");
		sep = ",";
	}
	put(pg, "%s %" PRIu64 "\n", *sep == ',' ? "}" : "", v);
}

/* A labelled sample, counted against metric_series. */
__attribute__((sentinel)) static void sample(struct page *pg, const char *name,
					     uint64_t v, ...)
{
	va_list ap;

	if (!series_ok(pg))
		return;
	va_start(ap, v);
	vsample(pg, name, v, ap);
	va_end(ap);
}

/* The same, already counted by the caller. */
__attribute__((sentinel)) static void sample_counted(struct page *pg,
						     const char *name,
						     uint64_t v, ...)
{
	va_list ap;

	va_start(ap, v);
	vsample(pg, name, v, ap);
	va_end(ap);
}

/* A family of one unlabelled sample (not counted against the cap). */
static void single(struct page *pg, const char *name, const char *type,
		   const char *help, uint64_t v)
{
	family(pg, name, type, help);
	put(pg, "%s %" PRIu64 "\n", name, v);
}

static void single_float(struct page *pg, const char *name, const char *type,
			 const char *help, double v, int decimals)
{
	family(pg, name, type, help);
	put(pg, "%s %.*f\n", name, decimals, v);
}

static void put_self(struct page *pg, const struct ftd_self_usage *u)
{
	single_float(pg, "process_cpu_seconds_total", "counter",
		     "User and system CPU time ftagentd has used, in seconds.",
		     u->cpu_seconds, 6);
	single(pg, "process_resident_memory_bytes", "gauge",
	       "ftagentd's resident memory size in bytes.", u->rss_bytes);
	single(pg, "process_virtual_memory_bytes", "gauge",
	       "ftagentd's virtual memory size in bytes.", u->vm_bytes);
	single(pg, "process_open_fds", "gauge",
	       "File descriptors ftagentd has open.", u->open_fds);
	single_float(pg, "process_start_time_seconds", "gauge",
		     "When ftagentd started, in seconds since the Unix epoch.",
		     (double)u->start_realtime_ns / 1e9, 3);
}

static void put_events(struct page *pg, const struct ftagentd *d)
{
	const struct ftd_collector *c = &d->col;
	struct ftd_event_losses loss;
	unsigned int t, l;

	family(pg, "ftagent_events_total", "counter",
	       "Event records ftagentd received from the module, by type.");
	for (t = 0; t < __FTAGENT_REC_MAX; t++) {
		const char *name = ftagent_rec_type_name(t);

		/* GAP records are losses, counted below. */
		if (t == FTAGENT_REC_GAP || !strcmp(name, "unknown"))
			continue;
		sample(pg, "ftagent_events_total", c->events[t], "type", name,
		       NULL);
	}

	ftd_event_losses(d, &loss);
	family(pg, "ftagent_events_dropped_total", "counter",
	       "Event records lost, by cause (the figures ftctl stats shows). "
	       "In the kernel, never written: buffer_full, too_big, "
	       "recursion, nmi, no_buffer; written but dropped unread when "
	       "the event channel was replaced (a new ring_buffer_size): "
	       "channel_discarded. In ftagentd: bad_record (failed "
	       "validation), event_log (could not be stored in the event "
	       "log). Records aged out of the event log are not lost: see "
	       "ftagent_event_log_aged_out_total.");
	for (l = 0; l < __FTAGENT_EV_LOSS_MAX; l++)
		sample(pg, "ftagent_events_dropped_total", loss.kernel[l],
		       "cause", ftagent_event_loss_name(l), NULL);
	sample(pg, "ftagent_events_dropped_total", loss.discarded, "cause",
	       "channel_discarded", NULL);
	for (l = 0; l < __FTD_DROP_MAX; l++) {
		if (l == FTD_DROP_DUMP_RETRY)
			continue; /* a retry, not a loss: exported below */
		sample(pg, "ftagent_events_dropped_total", loss.daemon[l],
		       "cause", ftd_drop_name(l), NULL);
	}
}

static void put_kernel_losses(struct page *pg, const struct ftagentd *d)
{
	uint64_t lost[__FTAGENT_LOSS_MAX] = {0};
	unsigned int l;
	size_t i, j;

	if (d->have_res) {
		for (i = 0; i < d->res.n_cpus; i++)
			for (l = 0; l < __FTAGENT_LOSS_MAX; l++)
				lost[l] += d->res.cpus[i].lost[l];
	} else {
		memcpy(lost, d->col.kernel_lost, sizeof(lost));
	}
	family(pg, "ftagent_kernel_lost_total", "counter",
	       "Calls the module could not count, by cause: counter_table "
	       "(the CPU's counter table was full), recursion, user_read "
	       "(sendmmsg/recvmmsg lengths unreadable), pending_table (too "
	       "many calls in flight), iouring (io_uring requests whose bytes "
	       "this kernel hides).");
	for (l = 0; l < __FTAGENT_LOSS_MAX; l++)
		sample(pg, "ftagent_kernel_lost_total", lost[l], "cause",
		       ftagent_loss_name(l), NULL);

	if (!d->have_res)
		return;
	family(pg, "ftagent_hook_missed_total", "counter",
	       "Calls a hook could not see (kretprobe instances exhausted), "
	       "by hooked kernel function.");
	for (i = 0; i < d->res.n_hooks; i++) {
		const struct ftagent_hook_stats *h = &d->res.hook[i];
		uint64_t missed = 0;
		int seen = 0;

		/* One series per name: a name listed twice is summed. */
		for (j = 0; j < i && !seen; j++)
			seen = !strcmp(d->res.hook[j].name, h->name);
		if (seen)
			continue;
		for (j = i; j < d->res.n_hooks; j++)
			if (!strcmp(d->res.hook[j].name, h->name))
				missed += d->res.hook[j].missed;
		sample(pg, "ftagent_hook_missed_total", missed, "hook", h->name,
		       NULL);
	}
}

static void put_io(struct page *pg, const struct ftd_metrics_totals *t)
{
	static const char *const names[2] = {"ftagent_network_bytes_total",
					     "ftagent_network_calls_total"};
	static const char *const helps[2] = {
		"Bytes sent (out) and received (in) on sockets, by protocol "
		"(tcp, udp, other; other for every non-IP socket) and address "
		"family.",
		"Send (out) and receive (in) calls on sockets, failed ones "
		"included, by protocol and address family.",
	};
	int m, f, p, dir;

	for (m = 0; m < 2; m++) {
		family(pg, names[m], "counter", helps[m]);
		for (f = 0; f < __FTD_MF_MAX; f++) {
			for (p = 0; p < __FTD_MP_MAX; p++) {
				if (f != FTD_MF_IPV4 && f != FTD_MF_IPV6 &&
				    p != FTD_MP_OTHER)
					continue; /* never counted */
				for (dir = 0; dir < __FTD_MD_MAX; dir++) {
					const struct ftd_metrics_io *io =
						&t->net[f][p][dir];

					sample(pg, names[m],
					       m ? io->calls : io->bytes,
					       "direction", dir_names[dir],
					       "protocol", proto_names[p],
					       "family", family_names[f], NULL);
				}
			}
		}
	}
	family(pg, "ftagent_file_bytes_total", "counter",
	       "Bytes read (in) from and written (out) to regular files.");
	for (dir = 0; dir < __FTD_MD_MAX; dir++)
		sample(pg, "ftagent_file_bytes_total", t->file[dir].bytes,
		       "direction", dir_names[dir], NULL);
	family(pg, "ftagent_file_calls_total", "counter",
	       "Read (in) and write (out) calls on regular files, failed "
	       "ones included.");
	for (dir = 0; dir < __FTD_MD_MAX; dir++)
		sample(pg, "ftagent_file_calls_total", t->file[dir].calls,
		       "direction", dir_names[dir], NULL);
	single(pg, "ftagent_transfer_bytes_total", "counter",
	       "Bytes sendfile and splice moved from files to sockets.",
	       t->transfer.bytes);
	single(pg, "ftagent_transfer_calls_total", "counter",
	       "sendfile and splice calls that moved file bytes to sockets.",
	       t->transfer.calls);
}

static void put_collector(struct page *pg, const struct ftd_collector *c)
{
	int i;

	family(pg, "ftagent_table_entries", "gauge",
	       "Rows in each of ftagentd's tables.");
	for (i = 0; i < __FTD_T_MAX; i++)
		sample(pg, "ftagent_table_entries", c->table[i].used, "table",
		       ftd_table_name(i), NULL);
	family(pg, "ftagent_table_capacity", "gauge",
	       "Rows each table can hold ([limits]).");
	for (i = 0; i < __FTD_T_MAX; i++)
		sample(pg, "ftagent_table_capacity", c->table[i].capacity,
		       "table", ftd_table_name(i), NULL);
	family(pg, "ftagent_table_evicted_total", "counter",
	       "Rows dropped from a full table to make room (the least "
	       "recently used first).");
	for (i = 0; i < __FTD_T_MAX; i++)
		sample(pg, "ftagent_table_evicted_total", c->table[i].evicted,
		       "table", ftd_table_name(i), NULL);

	single(pg, "ftagent_event_log_bytes", "gauge",
	       "Bytes the event log holds.", c->log.bytes);
	single(pg, "ftagent_event_log_entries", "gauge",
	       "Records the event log holds.", c->log.n);
	single(pg, "ftagent_event_log_limit_bytes", "gauge",
	       "The event log's bound in bytes ([agent] event_log_size).",
	       c->log.limit);
	single(pg, "ftagent_event_log_appended_total", "counter",
	       "Records added to the event log.", c->log.appended);
	single(pg, "ftagent_event_log_aged_out_total", "counter",
	       "Records pushed out of the event log by newer ones (retention: "
	       "they were merged, only ftctl events no longer has them).",
	       c->log.aged_out);
	single(pg, "ftagent_event_queue_bytes", "gauge",
	       "Bytes of event records read in the last drain.",
	       c->queue_bytes);
	single(pg, "ftagent_event_queue_peak_bytes", "gauge",
	       "The most bytes of event records read in one drain.",
	       c->queue_peak);
	single(pg, "ftagent_event_queue_capacity_bytes", "gauge",
	       "Bytes the event reader can take in one drain.",
	       c->queue_capacity);
	single(pg, "ftagent_generations_total", "counter",
	       "Counter generations merged.", c->generations);
	single(pg, "ftagent_generation_counters_total", "counter",
	       "Counters in the merged generations.", c->counters);
	single(pg, "ftagent_dump_retries_total", "counter",
	       "Counter dumps redone (ENOBUFS, interrupted dump); nothing is "
	       "lost.",
	       c->drops[FTD_DROP_DUMP_RETRY]);
}

/* Writes that failed, by where they went; lines of event_output lost. */
static void put_write_failures(struct page *pg, const struct ftagentd *d)
{
	family(pg, "ftagent_write_errors_total", "counter",
	       "Writes ftagentd could not make (disk full, journald gone), by "
	       "target: the state journal, the state snapshot, event_output, "
	       "the audit trail.");
	sample(pg, "ftagent_write_errors_total",
	       d->state ? d->state->journal_errors : 0, "target", "journal",
	       NULL);
	sample(pg, "ftagent_write_errors_total",
	       d->state ? d->state->snapshot_errors : 0, "target", "snapshot",
	       NULL);
	sample(pg, "ftagent_write_errors_total",
	       d->output ? d->output->errors : 0, "target", "event_output",
	       NULL);
	sample(pg, "ftagent_write_errors_total",
	       d->audit ? d->audit->errors : 0, "target", "audit", NULL);
	single(pg, "ftagent_audit_records_total", "counter",
	       "Records appended to the audit trail ([audit]).",
	       d->audit ? d->audit->written : 0);
	single(pg, "ftagent_audit_lost_total", "counter",
	       "Records that did not reach the audit trail (a failed write); "
	       "each loss is said in the trail by a \"lost\" record.",
	       d->audit ? d->audit->lost : 0);
	single(pg, "ftagent_event_output_written_total", "counter",
	       "Events written to [agent] event_output.",
	       d->output ? d->output->written : 0);
	single(pg, "ftagent_event_output_lost_total", "counter",
	       "Events that did not reach [agent] event_output (a failed "
	       "write or send); the event log and the API still have them.",
	       d->output ? d->output->lost : 0);
}

static void put_module(struct page *pg, const struct ftagentd *d)
{
	if (!d->have_res)
		return;
	single(pg, "ftagent_module_memory_bytes", "gauge",
	       "Memory the kernel module holds.", d->res.memory_bytes);
	single(pg, "ftagent_module_flushes_total", "counter",
	       "Counter generations the module has swapped since it was "
	       "loaded.",
	       d->res.flush_count);
	single(pg, "ftagent_module_event_buffer_bytes", "gauge",
	       "The module's event buffer, all CPUs, in bytes.",
	       d->res.ring_buffer_size);
	single(pg, "ftagent_module_exclude_missed_total", "counter",
	       "Process exclusions the module could not record.",
	       d->res.exclude_missed);
}

/* Which ftagentd, speaking which ABI, with which module: always 1. */
static void put_build_info(struct page *pg, const struct ftagentd *d)
{
	char abi[32];

	snprintf(abi, sizeof(abi), "%u.%u", d->module.abi_major,
		 d->module.abi_minor);
	family(pg, "ftagent_build_info", "gauge",
	       "Always 1: ftagentd's version, the module ABI it was built for "
	       "(abi), the loaded module's version and ABI (module_version, "
	       "module_abi).");
	sample(pg, "ftagent_build_info", 1, "version", FTAGENTD_VERSION, "abi",
	       FTAGENT_ABI_STRING, "module_version", d->module.module_version,
	       "module_abi", abi, NULL);
}

/* The module's state (one series at 1) and its hooks by state. */
static void put_module_state(struct page *pg, const struct ftagentd *d)
{
	unsigned int hooks[__FTAGENT_HOOK_STATE_MAX], i;

	if (!d->have_res)
		return;
	family(pg, "ftagent_module_state", "gauge",
	       "1 for the state the module is in (ready: no hook attached; "
	       "tracing: every hook attached and seen firing; degraded: some "
	       "hooks failed), 0 for the others.");
	for (i = FTAGENT_STATE_READY; i < __FTAGENT_STATE_MAX; i++)
		sample(pg, "ftagent_module_state", d->res.state == i, "state",
		       ftagent_state_name(i), NULL);
	ftagent_hook_states(&d->res, hooks);
	family(pg, "ftagent_module_hooks", "gauge",
	       "The module's hooks by state: attached (not yet seen firing), "
	       "verified (seen firing), failed (could not attach), detached "
	       "(not needed in this mode).");
	for (i = 0; i < __FTAGENT_HOOK_STATE_MAX; i++)
		sample(pg, "ftagent_module_hooks", hooks[i], "hook_state",
		       ftagent_hook_state_name(i), NULL);
}

/* The last SIGHUP: when, whether it was applied; reloads by result. */
static void put_reloads(struct page *pg, const struct ftagentd *d)
{
	family(pg, "ftagent_reloads_total", "counter",
	       "Config reloads (SIGHUP) by result: applied (success) or "
	       "refused, the running config kept (failure).");
	sample(pg, "ftagent_reloads_total", d->reloads, "result", "success",
	       NULL);
	sample(pg, "ftagent_reloads_total", d->reload_errors, "result",
	       "failure", NULL);
	single_float(pg, "ftagent_last_reload_time_seconds", "gauge",
		     "When the last reload was asked for, in seconds since the "
		     "Unix epoch; 0: none since ftagentd started.",
		     (double)d->last_reload_realtime_ns / 1e9, 3);
	single(pg, "ftagent_last_reload_success", "gauge",
	       "1 when the last reload was applied (or none was asked for), "
	       "0 when it was refused.",
	       !d->last_reload_realtime_ns || d->last_reload_ok);
}

/* The link to the module: SIGUSR2 releases it for an unload. */
static void put_module_link(struct page *pg, const struct ftagentd *d)
{
	single(pg, "ftagent_link_attached", "gauge",
	       "1 while ftagentd is attached to the module; 0 after a "
	       "release (SIGUSR2), until the next module is loaded: "
	       "nothing is counted or gated by ftagentd's rules then.",
	       d->module_link == FTD_LINK_ATTACHED);
	single(pg, "ftagent_link_releases_total", "counter",
	       "Releases of the module (SIGUSR2) so that it could be "
	       "unloaded.",
	       d->module_releases);
	single(pg, "ftagent_link_reloads_total", "counter",
	       "Modules attached after a release that were a new load: "
	       "what the old one counted after the release is not known.",
	       d->module_reloads);
	single_float(pg, "ftagent_link_detached_seconds_total", "counter",
		     "Time spent detached from the module since ftagentd "
		     "started.",
		     (double)ftd_module_detached_ns(d) / 1e9, 3);
}

/* The rule set in force: its mode and each rule's hits, the module's. */
static void put_policy(struct page *pg, const struct ftagentd *d)
{
	const struct ftagent_policy_spec *p = &d->policy;
	size_t i;

	if (!d->have_policy)
		return;
	single(pg, "ftagent_policy_enforcing", "gauge",
	       "1 when the policy refuses calls, 0 in monitor mode.",
	       (uint64_t) !!p->enforce);
	family(pg, "ftagent_policy_rule_hits_total", "counter",
	       "Calls each rule of the set in force decided, by rule and "
	       "action, as the module counts them (from 0 when the set is "
	       "replaced). The default action is rule \"(default rule)\".");
	for (i = 0; i < p->n; i++)
		sample(pg, "ftagent_policy_rule_hits_total", p->rules[i].hits,
		       "rule", p->rules[i].name, "action",
		       ftagent_action_name(p->rules[i].action), NULL);
	sample(pg, "ftagent_policy_rule_hits_total", p->default_hits, "rule",
	       FTD_VERDICT_DEFAULT, "action",
	       ftagent_action_name(p->default_action), NULL);
}

/* Each budget's usage in its window, its limit, refusals and alerts. */
static void put_budgets(struct page *pg, const struct ftagentd *d)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{"ftagent_budget_used", "gauge",
		 "What each budget has used of its limit in the current "
		 "window, "
		 "in its budget_metric's unit (bytes or calls)."},
		{"ftagent_budget_limit", "gauge",
		 "Each budget's limit per window."},
		{"ftagent_budget_refusals_total", "counter",
		 "Calls each budget refused (EDQUOT), as the module counts "
		 "them "
		 "(from 0 when the budgets are replaced)."},
		{"ftagent_budget_alerts_total", "counter",
		 "Times each budget's usage reached its alert mark."},
	};
	const struct ftagent_budget_set *s = &d->budgets;
	size_t f, i;

	if (!d->have_policy)
		return;
	for (f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		family(pg, fam[f].name, fam[f].type, fam[f].help);
		for (i = 0; i < s->n; i++) {
			const struct ftagent_budget_spec *b = &s->b[i];
			uint64_t v = f == 0   ? b->used
				     : f == 1 ? b->limit
				     : f == 2 ? b->denied
					      : b->alerts;

			if (f < 2)
				sample(pg, fam[f].name, v, "budget", b->name,
				       "budget_metric",
				       ftagent_metric_name(b->metric), NULL);
			else
				sample(pg, fam[f].name, v, "budget", b->name,
				       NULL);
		}
	}
}

/* VERDICT records by rule (or budget), action and verdict. */
static void put_verdicts(struct page *pg, const struct ftd_verdicts *v)
{
	const struct ftd_verdict_count *c;
	int source;

	family(pg, "ftagent_policy_verdicts_total", "counter",
	       "Verdict events of policy rules, by rule, action and verdict "
	       "(denied, would_deny, audited), as drained from the module.");
	/* Two families, one pass each, so each family's samples follow it. */
	for (source = 0; source < 2; source++) {
		if (source)
			family(pg, "ftagent_budget_verdicts_total", "counter",
			       "Verdict events of budgets, by budget and "
			       "verdict (over_budget, budget_alert, killed), "
			       "as drained.");
		for (c = ftd_table_first(&v->table); c;
		     c = ftd_table_next_row(&v->table, c)) {
			if ((c->key.source == FTAGENT_VERDICT_SRC_BUDGET) !=
			    source)
				continue;
			if (source)
				sample(pg, "ftagent_budget_verdicts_total",
				       c->n, "budget", c->key.name, "verdict",
				       ftagent_verdict_name(c->key.verdict),
				       NULL);
			else
				sample(pg, "ftagent_policy_verdicts_total",
				       c->n, "rule", c->key.name, "action",
				       ftagent_action_name(c->key.action),
				       "verdict",
				       ftagent_verdict_name(c->key.verdict),
				       NULL);
		}
	}
}

struct proc_rank {
	const struct ftd_proc *p;
	uint64_t bytes;
};

static uint64_t proc_bytes(const struct ftd_proc *p)
{
	return p->net.in.bytes + p->net.out.bytes + p->file.in.bytes +
	       p->file.out.bytes;
}

static int by_bytes(const void *a, const void *b)
{
	const struct proc_rank *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->p->key.tgid != y->p->key.tgid)
		return x->p->key.tgid < y->p->key.tgid ? -1 : 1;
	return 0;
}

/* A process's or group's series go together or not at all. */
static int room_for_one(struct page *pg)
{
	if (pg->limit - pg->series < FTD_METRICS_PROC_SERIES) {
		pg->overflow += FTD_METRICS_PROC_SERIES;
		return 0;
	}
	pg->series += FTD_METRICS_PROC_SERIES;
	return 1;
}

/* group_by = pid: one process's series, already counted. */
static void put_process(struct page *pg, const struct ftd_proc *p,
			const char *pid)
{
	const struct ftd_inout *io[__FTD_GO_MAX] = {&p->net, &p->file};
	int k;

	for (k = 0; k < __FTD_GO_MAX; k++) {
		sample_counted(pg, "ftagent_process_bytes_total",
			       io[k]->in.bytes, "pid", pid, "comm", p->comm,
			       "direction", "in", "object", object_names[k],
			       NULL);
		sample_counted(pg, "ftagent_process_bytes_total",
			       io[k]->out.bytes, "pid", pid, "comm", p->comm,
			       "direction", "out", "object", object_names[k],
			       NULL);
	}
}

/* group_by = pid: the busiest processes, as many as fit. */
static void put_processes(struct page *pg, const struct ftd_collector *c)
{
	const struct ftd_table *t = &c->table[FTD_T_PROCESSES];
	struct proc_rank *rank;
	const struct ftd_proc *p;
	size_t n = 0, i;

	rank = calloc(t->used ? t->used : 1, sizeof(*rank));
	if (!rank) {
		pg->oom = 1;
		return;
	}
	for (p = ftd_table_first(t); p && n < t->used;
	     p = ftd_table_next_row(t, p)) {
		uint64_t bytes = proc_bytes(p);

		if (bytes)
			rank[n++] = (struct proc_rank){p, bytes};
	}
	qsort(rank, n, sizeof(*rank), by_bytes);
	for (i = 0; i < n; i++) {
		char pid[16];

		if (!room_for_one(pg))
			continue;
		snprintf(pid, sizeof(pid), "%" PRIu32, rank[i].p->key.tgid);
		put_process(pg, rank[i].p, pid);
	}
	free(rank);
}

static uint64_t group_bytes(const struct ftd_group *g)
{
	uint64_t sum = 0;
	int k, dir;

	for (k = 0; k < __FTD_GO_MAX; k++)
		for (dir = 0; dir < __FTD_MD_MAX; dir++)
			sum += g->bytes[k][dir];
	return sum;
}

static int by_group_bytes(const void *a, const void *b)
{
	const struct ftd_group *x = *(const struct ftd_group *const *)a;
	const struct ftd_group *y = *(const struct ftd_group *const *)b;
	uint64_t bx = group_bytes(x), by = group_bytes(y);

	if (bx != by)
		return bx > by ? -1 : 1;
	return strcmp(x->key.name, y->key.name);
}

static void put_group(struct page *pg, const char *label,
		      const struct ftd_group *g)
{
	int k, dir;

	if (!room_for_one(pg))
		return;
	for (k = 0; k < __FTD_GO_MAX; k++)
		for (dir = 0; dir < __FTD_MD_MAX; dir++)
			sample_counted(pg, "ftagent_process_bytes_total",
				       g->bytes[k][dir], label, g->key.name,
				       "direction", dir_names[dir], "object",
				       object_names[k], NULL);
}

/*
 * The groups, busiest first, then the one that holds what did not fit
 * in [metrics] group_limit (once it holds anything: from then on always).
 */
static void put_groups(struct page *pg, const struct ftd_collector *c)
{
	const struct ftd_groups *gs = &c->groups;
	const char *label = group_labels[gs->by < __FTAGENTD_GROUP_MAX
						 ? gs->by
						 : FTAGENTD_GROUP_COMMAND];
	const struct ftd_group **rank, *g;
	size_t n = 0, i;

	rank = calloc(gs->table.used + 1, sizeof(*rank));
	if (!rank) {
		pg->oom = 1;
		return;
	}
	for (g = ftd_table_first(&gs->table); g && n < gs->table.used;
	     g = ftd_table_next_row(&gs->table, g))
		rank[n++] = g;
	qsort(rank, n, sizeof(*rank), by_group_bytes);
	for (i = 0; i < n; i++)
		put_group(pg, label, rank[i]);
	if (gs->overflow)
		put_group(pg, label, &gs->other);
	free(rank);
}

static void put_process_bytes(struct page *pg, const struct ftd_collector *c)
{
	family(pg, "ftagent_process_bytes_total", "counter",
	       "Bytes processes moved, by direction and object (socket, "
	       "file), per group of [metrics] group_by: comm, exe, unit, or "
	       "pid and comm. A group's counts only grow; per pid, a "
	       "process's series goes with its row.");
	if (c->groups.by == FTAGENTD_GROUP_PID)
		put_processes(pg, c);
	else
		put_groups(pg, c);
	single(pg, "ftagent_process_groups", "gauge",
	       "Process groups with series of their own ([metrics] group_by; "
	       "0 per pid).",
	       c->groups.by == FTAGENTD_GROUP_PID ? 0 : c->groups.table.used);
	single(pg, "ftagent_process_group_limit", "gauge",
	       "The most process groups with series of their own ([metrics] "
	       "group_limit).",
	       c->groups.table.capacity);
	single(pg, "ftagent_process_group_overflow_total", "counter",
	       "Counts merged into the group \"(other processes)\" because "
	       "[metrics] group_limit groups existed already.",
	       c->groups.overflow);
}

char *ftd_metrics_render(struct ftagentd *d, size_t *len)
{
	struct page pg = {.limit = d->cfg.limits.metric_series};

	put_self(&pg, &d->self);
	put_events(&pg, d);
	put_kernel_losses(&pg, d);
	put_io(&pg, &d->col.totals);
	put_collector(&pg, &d->col);
	put_write_failures(&pg, d);
	put_build_info(&pg, d);
	put_module(&pg, d);
	put_module_state(&pg, d);
	put_reloads(&pg, d);
	put_module_link(&pg, d);
	put_policy(&pg, d);
	put_budgets(&pg, d);
	put_verdicts(&pg, &d->col.verdicts);
	put_process_bytes(&pg, &d->col);
	single(&pg, "ftagent_metric_series", "gauge",
	       "Labelled series on this page.", pg.series);
	single(&pg, "ftagent_metric_series_limit", "gauge",
	       "The most labelled series a page may have ([limits] "
	       "metric_series).",
	       pg.limit);
	single(&pg, "ftagent_metric_series_overflow", "gauge",
	       "Labelled series left out of this page because of [limits] "
	       "metric_series.",
	       pg.overflow);
	if (pg.oom) {
		free(pg.buf);
		return NULL;
	}
	d->metric_series_overflow = pg.overflow;
	*len = pg.len;
	return pg.buf;
}
