// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus page (metrics.h): rendering the text exposition format,
 * and serving it with libmicrohttpd.
 *
 * Format rules kept here: every family has # HELP and # TYPE before its
 * samples, counters end in _total, a series appears once, and label
 * values are valid UTF-8 with backslash, double quote and newline
 * escaped (a command name can hold any byte).
 *
 * libmicrohttpd is opened with dlopen() when a page is first asked for,
 * not linked: it brings GnuTLS and its chain, megabytes of mappings a
 * daemon without [metrics] listen would carry for nothing. The header
 * still gives the types and constants; the few functions used come
 * through the table below.
 */
#include <dlfcn.h>
#include <limits.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "event_output.h"
#include "ftagentd.h"
#include "losses.h"
#include "metrics.h"
#include "state.h"

/* A scrape is one connection; a few more for the curious, no more. */
#define FTD_METRICS_CONNECTIONS 16
/* Seconds a connection may sit idle before it is closed. */
#define FTD_METRICS_TIMEOUT_S 10
/* Labelled series one process adds: {in, out} x {net, file}. */
#define FTD_METRICS_PROC_SERIES 4

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The soname of the ABI microhttpd.h describes (Debian's libmicrohttpd12). */
#define MHD_SONAME "libmicrohttpd.so.12"

/* The functions used, typed from the header; filled once, never closed. */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *create_response;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

#define MHD_OFF(field) offsetof(__typeof__(mhd), field)
static const struct {
	size_t off;
	const char *name;
} mhd_syms[] = {
	{MHD_OFF(start_daemon), "MHD_start_daemon"},
	{MHD_OFF(stop_daemon), "MHD_stop_daemon"},
	{MHD_OFF(run), "MHD_run"},
	{MHD_OFF(get_timeout), "MHD_get_timeout"},
	{MHD_OFF(get_daemon_info), "MHD_get_daemon_info"},
	{MHD_OFF(create_response), "MHD_create_response_from_buffer"},
	{MHD_OFF(add_response_header), "MHD_add_response_header"},
	{MHD_OFF(queue_response), "MHD_queue_response"},
	{MHD_OFF(destroy_response), "MHD_destroy_response"},
};

/*
 * Open libmicrohttpd and fill mhd. 0, or -1 with @err naming the library.
 * Only the loop's thread starts pages, so no lock.
 */
static int mhd_load(char *err, size_t err_size)
{
	static void *lib;
	void *h, *f;
	size_t i;

	if (lib)
		return 0;
	h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, err_size,
			 "%s (the page needs libmicrohttpd; install "
			 "libmicrohttpd12)",
			 dlerror());
		return -1;
	}
	for (i = 0; i < sizeof(mhd_syms) / sizeof(mhd_syms[0]); i++) {
		f = dlsym(h, mhd_syms[i].name);
		if (!f) {
			snprintf(err, err_size, "%s: no %s: %s", MHD_SONAME,
				 mhd_syms[i].name, dlerror());
			dlclose(h);
			return -1;
		}
		memcpy((char *)&mhd + mhd_syms[i].off, &f, sizeof(f));
	}
	lib = h;
	return 0;
}

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

static void io_add(struct ftd_metrics_io *io,
		   const struct ftagent_dir_counts *c)
{
	io->bytes += c->bytes;
	io->calls += c->calls;
}

static enum ftd_metrics_family family_of(uint8_t family)
{
	switch (family) {
	case AF_INET: return FTD_MF_IPV4;
	case AF_INET6: return FTD_MF_IPV6;
	case AF_UNIX: return FTD_MF_UNIX;
	}
	return FTD_MF_OTHER;
}

void ftd_metrics_account(struct ftd_metrics_totals *t,
			 const struct ftagent_counter *k)
{
	enum ftd_metrics_proto p = FTD_MP_OTHER;
	enum ftd_metrics_family f;

	switch (k->kind) {
	case FTAGENT_OBJ_SOCKET:
		f = family_of(k->family);
		/* The protocol numbers are IP's only for IP sockets. */
		if (f == FTD_MF_IPV4 || f == FTD_MF_IPV6) {
			if (k->protocol == IPPROTO_TCP)
				p = FTD_MP_TCP;
			else if (k->protocol == IPPROTO_UDP)
				p = FTD_MP_UDP;
		}
		io_add(&t->net[f][p][FTD_MD_IN], &k->in);
		io_add(&t->net[f][p][FTD_MD_OUT], &k->out);
		break;
	case FTAGENT_OBJ_FILE:
		io_add(&t->file[FTD_MD_IN], &k->in);
		io_add(&t->file[FTD_MD_OUT], &k->out);
		break;
	case FTAGENT_OBJ_TRANSFER: io_add(&t->transfer, &k->out); break;
	default: break;
	}
}

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
		sample(pg, "ftagent_events_total", c->events[t], "kind", name,
		       NULL);
	}

	ftd_event_losses(d, &loss);
	family(pg, "ftagent_events_dropped_total", "counter",
	       "Event records lost, by kind (the figures ftctl stats shows). "
	       "In the kernel, never written: buffer_full, too_big, "
	       "recursion, nmi, no_buffer; written but dropped unread when "
	       "the event channel was replaced (a new ring_buffer_size): "
	       "channel_discarded. In ftagentd: bad_record (failed "
	       "validation), event_log (could not be stored in the event "
	       "log). Records aged out of the event log are not lost: see "
	       "ftagent_event_log_aged_out_total.");
	for (l = 0; l < __FTAGENT_EV_LOSS_MAX; l++)
		sample(pg, "ftagent_events_dropped_total", loss.kernel[l],
		       "kind", ftagent_event_loss_name(l), NULL);
	sample(pg, "ftagent_events_dropped_total", loss.discarded, "kind",
	       "channel_discarded", NULL);
	for (l = 0; l < __FTD_DROP_MAX; l++) {
		if (l == FTD_DROP_DUMP_RETRY)
			continue; /* a retry, not a loss: exported below */
		sample(pg, "ftagent_events_dropped_total", loss.daemon[l],
		       "kind", ftd_drop_name(l), NULL);
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
	       "many calls in flight).");
	for (l = 0; l < __FTAGENT_LOSS_MAX; l++)
		sample(pg, "ftagent_kernel_lost_total", lost[l], "kind",
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
	       "target: the state journal, the state snapshot, event_output.");
	sample(pg, "ftagent_write_errors_total",
	       d->state ? d->state->journal_errors : 0, "target", "journal",
	       NULL);
	sample(pg, "ftagent_write_errors_total",
	       d->state ? d->state->snapshot_errors : 0, "target", "snapshot",
	       NULL);
	sample(pg, "ftagent_write_errors_total",
	       d->output ? d->output->errors : 0, "target", "event_output",
	       NULL);
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

/* One process's series, already counted against metric_series. */
static void put_process(struct page *pg, const struct ftd_proc *p,
			const char *pid)
{
	const struct ftd_inout *io[2] = {&p->net, &p->file};
	static const char *const kinds[2] = {"net", "file"};
	int k;

	for (k = 0; k < 2; k++) {
		sample_counted(pg, "ftagent_process_bytes_total",
			       io[k]->in.bytes, "pid", pid, "comm", p->comm,
			       "direction", "in", "kind", kinds[k], NULL);
		sample_counted(pg, "ftagent_process_bytes_total",
			       io[k]->out.bytes, "pid", pid, "comm", p->comm,
			       "direction", "out", "kind", kinds[k], NULL);
	}
}

/* The busiest processes first, as many as metric_series leaves room for. */
static void put_processes(struct page *pg, const struct ftd_collector *c)
{
	const struct ftd_table *t = &c->table[FTD_T_PROCESSES];
	struct proc_rank *rank;
	const struct ftd_proc *p;
	size_t n = 0, i;

	family(pg, "ftagent_process_bytes_total", "counter",
	       "Bytes each of the busiest processes moved, by direction and "
	       "kind (net: sockets, file: regular files); resets when the "
	       "process's row is evicted.");
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

		p = rank[i].p;
		/* A process's series go together or not at all. */
		if (pg->limit - pg->series < FTD_METRICS_PROC_SERIES) {
			pg->overflow += FTD_METRICS_PROC_SERIES;
			continue;
		}
		pg->series += FTD_METRICS_PROC_SERIES;
		snprintf(pid, sizeof(pid), "%" PRIu32, p->key.tgid);
		put_process(pg, p, pid);
	}
	free(rank);
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
	put_module(&pg, d);
	put_processes(&pg, &d->col);
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

__attribute__((format(printf, 3, 4))) static int fail(char *err,
						      size_t err_size,
						      const char *fmt, ...)
{
	va_list ap;

	if (err && err_size) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int ftd_metrics_parse_listen(const char *listen, struct sockaddr_storage *ss,
			     socklen_t *len, char *err, size_t err_size)
{
	const char *host, *host_end, *port_str, *s;
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned long port = 0;
	int v6 = 0;

	memset(ss, 0, sizeof(*ss));
	if (!listen || !*listen)
		return fail(err, err_size,
			    "no listen address: host:port, e.g. "
			    "127.0.0.1:9465");
	if (listen[0] == '[') {
		v6 = 1;
		host = listen + 1;
		host_end = strchr(host, ']');
		if (!host_end)
			return fail(err, err_size,
				    "listen \"%s\": no ']' after the IPv6 "
				    "address",
				    listen);
		if (host_end[1] != ':')
			return fail(err, err_size,
				    "listen \"%s\": a port must follow, e.g. "
				    "[::1]:9465",
				    listen);
		port_str = host_end + 2;
	} else {
		host = listen;
		host_end = strrchr(listen, ':');
		if (!host_end)
			return fail(err, err_size,
				    "listen \"%s\": no port; host:port, e.g. "
				    "127.0.0.1:9465",
				    listen);
		if (memchr(listen, ':', (size_t)(host_end - listen)))
			return fail(err, err_size,
				    "listen \"%s\": an IPv6 address goes in "
				    "brackets, e.g. [::1]:9465",
				    listen);
		port_str = host_end + 1;
	}
	for (s = port_str; *s >= '0' && *s <= '9' && s - port_str < 6; s++)
		port = port * 10 + (unsigned long)(*s - '0');
	if (s == port_str || *s || port < 1 || port > 65535)
		return fail(err, err_size,
			    "listen \"%s\": the port must be a number from 1 "
			    "to 65535",
			    listen);
	if (host_end == host)
		return fail(err, err_size,
			    "listen \"%s\": no address before the port "
			    "(0.0.0.0 means every IPv4 address)",
			    listen);
	if ((size_t)(host_end - host) >= sizeof(addr))
		goto not_ip;
	memcpy(addr, host, (size_t)(host_end - host));
	addr[host_end - host] = '\0';
	if (v6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1)
			goto not_ip;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			goto not_ip;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof(*sin);
	}
	return 0;
not_ip:
	memset(ss, 0, sizeof(*ss));
	return fail(err, err_size,
		    "listen \"%s\": \"%.*s\" is not an IP%s address; names "
		    "are not resolved (use 127.0.0.1 or [::1])",
		    listen, (int)(host_end - host), host, v6 ? "v6" : "");
}

struct ftd_metrics_server {
	struct MHD_Daemon *mhd;
	struct ftagentd *d;
	int started; /* atomic: the logger's messages are no longer kept */
	char start_error[256];
};

/* libmicrohttpd's messages: the first one while starting says why. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct ftd_metrics_server *s = cls;
	size_t n;

	if (__atomic_load_n(&s->started, __ATOMIC_ACQUIRE) || s->start_error[0])
		return;
	vsnprintf(s->start_error, sizeof(s->start_error), fmt, ap);
	n = strlen(s->start_error);
	while (n &&
	       (s->start_error[n - 1] == '\n' || s->start_error[n - 1] == '.'))
		s->start_error[--n] = '\0';
}

static struct MHD_Response *text(const char *msg)
{
	return mhd.create_response(strlen(msg), (void *)msg,
				   MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     const char *version, const char *upload_data,
			     size_t *upload_data_size, void **con_cls)
{
	struct ftd_metrics_server *s = cls;
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;
	size_t len = 0;
	char *page;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = text("only GET and HEAD\n");
		if (r)
			mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW,
						"GET, HEAD");
	} else if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		r = text("not found: the page is /metrics\n");
	} else {
		if (s->d->refresh)
			s->d->refresh(s->d->refresh_arg);
		pthread_mutex_lock(&s->d->col.lock);
		page = ftd_metrics_render(s->d, &len);
		pthread_mutex_unlock(&s->d->col.lock);
		if (page) {
			status = MHD_HTTP_OK;
			r = mhd.create_response(len, page,
						MHD_RESPMEM_MUST_FREE);
			if (!r)
				free(page);
			else
				mhd.add_response_header(
					r, MHD_HTTP_HEADER_CONTENT_TYPE,
					CONTENT_TYPE);
		} else {
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
			r = text("out of memory\n");
		}
	}
	if (!r)
		return MHD_NO;
	ret = mhd.queue_response(conn, status, r);
	mhd.destroy_response(r);
	return ret;
}

struct ftd_metrics_server *ftd_metrics_start(struct ftagentd *d,
					     const char *listen, char *err,
					     size_t err_size)
{
	/* No thread: the caller's loop polls ftd_metrics_fd(). */
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct ftd_metrics_server *s;
	struct sockaddr_storage ss;
	char why[200];
	socklen_t sl;
	uint16_t port;

	if (ftd_metrics_parse_listen(listen, &ss, &sl, err, err_size) < 0)
		return NULL;
	if (mhd_load(why, sizeof(why)) < 0) {
		fail(err, err_size, "listen \"%s\": %s", listen, why);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fail(err, err_size, "listen \"%s\": out of memory", listen);
		return NULL;
	}
	s->d = d;
	if (ss.ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	/* The logger must come first to catch every message. */
	s->mhd = mhd.start_daemon(
		flags, port, NULL, NULL, serve, s, MHD_OPTION_EXTERNAL_LOGGER,
		mhd_log, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)FTD_METRICS_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)FTD_METRICS_TIMEOUT_S, MHD_OPTION_END);
	if (!s->mhd) {
		fail(err, err_size, "listen \"%s\": %s", listen,
		     s->start_error[0] ? s->start_error
				       : "libmicrohttpd could not start");
		free(s);
		return NULL;
	}
	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	return s;
}

int ftd_metrics_fd(const struct ftd_metrics_server *s)
{
	const union MHD_DaemonInfo *info =
		mhd.get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

void ftd_metrics_run(struct ftd_metrics_server *s)
{
	mhd.run(s->mhd);
}

int ftd_metrics_timeout_ms(const struct ftd_metrics_server *s)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (mhd.get_timeout(s->mhd, &ms) != MHD_YES)
		return -1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

void ftd_metrics_stop(struct ftd_metrics_server *s)
{
	if (!s)
		return;
	mhd.stop_daemon(s->mhd);
	free(s);
}
