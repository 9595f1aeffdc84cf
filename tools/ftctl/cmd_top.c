// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl top: bytes and calls per process.
 *
 * With ftagentd running, everything comes from its API ("top"): --once
 * prints the totals since the daemon began counting, and the live view
 * prints per-second rates, the differences between two replies, every
 * --interval. The daemon consumes the module's counter generations; this
 * process must then never touch them, or it would steal them.
 *
 * Only when no daemon listens on the socket does --once read the module
 * directly, and then without consuming anything: it dumps the idle
 * generation the module's timer swapped out and nobody has taken yet,
 * and neither swaps nor acknowledges, so a daemon started later still
 * gets every count. --consume (explicit) takes the counters as the
 * daemon would: swap, dump, acknowledge.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <json-c/json.h>

#include "../lib/api_client.h"
#include "../lib/counters.h"
#include "ftctl.h"
#include "human.h"

/* The most rows the daemon gives (FTD_API_LIMIT_MAX): every process. */
#define FTD_TOP_ALL 100000

enum sort_by { SORT_BYTES, SORT_NET, SORT_FILE, SORT_CALLS };

/* NULL-terminated: the completion offers the same list. */
static const char *const sort_names[] = {"bytes", "net", "file", "calls", NULL};

struct proc_row {
	uint32_t tgid;
	uint64_t net_in, net_out, file_in, file_out, calls, errors;
};

struct top {
	struct proc_row *rows;
	size_t n, cap;
};

static struct proc_row *row_for(struct top *t, uint32_t tgid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->rows[i].tgid == tgid)
			return &t->rows[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->rows = realloc(t->rows, t->cap * sizeof(*t->rows));
		if (!t->rows)
			abort();
	}
	memset(&t->rows[t->n], 0, sizeof(t->rows[0]));
	t->rows[t->n].tgid = tgid;
	return &t->rows[t->n++];
}

static void take(const struct ftagent_generation *gen, void *data)
{
	size_t i;

	for (i = 0; i < gen->n_counters; i++) {
		const struct ftagent_counter *c = &gen->counters[i];
		struct proc_row *r;

		if (c->kind == FTAGENT_OBJ_TRANSFER)
			continue; /* already in the file and socket rows */
		r = row_for(data, c->tgid);
		r->calls += c->in.calls + c->out.calls;
		r->errors += c->in.errors + c->out.errors;
		if (c->kind == FTAGENT_OBJ_SOCKET) {
			r->net_in += c->in.bytes;
			r->net_out += c->out.bytes;
		} else {
			r->file_in += c->in.bytes;
			r->file_out += c->out.bytes;
		}
	}
}

static uint64_t total(const struct proc_row *r)
{
	return r->net_in + r->net_out + r->file_in + r->file_out;
}

/* The kernel view's order: enum sort_by, set before sorting. */
static int kernel_sort;

static uint64_t kernel_key(const struct proc_row *r)
{
	switch (kernel_sort) {
	case SORT_NET: return r->net_in + r->net_out;
	case SORT_FILE: return r->file_in + r->file_out;
	case SORT_CALLS: return r->calls;
	default: return total(r);
	}
}

static int by_bytes(const void *a, const void *b)
{
	uint64_t x = kernel_key(a), y = kernel_key(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* /proc's name for @tgid, escaped: any local user names a process. */
static void comm_of(uint32_t tgid, char *buf, size_t len)
{
	char path[64], raw[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	f = fopen(path, "r");
	if (!f || !fgets(raw, (int)sizeof(raw), f)) {
		snprintf(buf, len, "(exited)");
	} else {
		raw[strcspn(raw, "\n")] = '\0';
		ftctl_printable(raw, buf, len);
	}
	if (f)
		fclose(f);
}

/* The kernel's view, limited to @limit rows (0: all). */
static void print_header(void)
{
	printf("%7s %-15s %9s %9s %9s %9s %8s %6s\n", "PID", "COMMAND",
	       "NET IN", "NET OUT", "FILE IN", "FILE OUT", "CALLS", "ERRS");
}

static void print_text(const struct top *t, size_t limit, int header)
{
	char comm[32], a[16], b[16], c[16], d[16];
	size_t i;

	if (header)
		print_header();
	for (i = 0; i < t->n && (!limit || i < limit); i++) {
		const struct proc_row *r = &t->rows[i];

		comm_of(r->tgid, comm, sizeof(comm));
		ftctl_human(r->net_in, a, sizeof(a));
		ftctl_human(r->net_out, b, sizeof(b));
		ftctl_human(r->file_in, c, sizeof(c));
		ftctl_human(r->file_out, d, sizeof(d));
		printf("%7u %-15.15s %9s %9s %9s %9s %8" PRIu64 " %6" PRIu64
		       "\n",
		       r->tgid, comm, a, b, c, d, r->calls, r->errors);
	}
}

static void print_json(const struct top *t, size_t limit)
{
	struct json_object *arr = json_object_new_array();
	char comm[32];
	size_t i;

	for (i = 0; i < t->n && (!limit || i < limit); i++) {
		const struct proc_row *r = &t->rows[i];
		struct json_object *o = json_object_new_object();

		comm_of(r->tgid, comm, sizeof(comm));
		json_object_object_add(o, "pid",
				       json_object_new_int64(r->tgid));
		json_object_object_add(o, "comm", json_object_new_string(comm));
		json_object_object_add(o, "net_in_bytes",
				       json_object_new_int64(r->net_in));
		json_object_object_add(o, "net_out_bytes",
				       json_object_new_int64(r->net_out));
		json_object_object_add(o, "file_in_bytes",
				       json_object_new_int64(r->file_in));
		json_object_object_add(o, "file_out_bytes",
				       json_object_new_int64(r->file_out));
		json_object_object_add(o, "calls",
				       json_object_new_int64(r->calls));
		json_object_object_add(o, "errors",
				       json_object_new_int64(r->errors));
		json_object_array_add(arr, o);
	}
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
}

static int top_from_kernel(int json, int header, size_t limit, int sort,
			   int consume)
{
	struct ftnl ctl, stats;
	struct ftnl_error err;
	struct top t = {0};
	int rc = FTCTL_OK, got, seen = 0;

	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return ftctl_report_query_error("top", &err);
	if (ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
		ftnl_close(&ctl);
		return ftctl_report_query_error("top", &err);
	}
	got = consume ? ftagent_collect(&ctl, &stats, take, &t, &err)
		      : ftagent_peek_idle(&stats, take, &t, &seen, &err);
	if (got < 0) {
		rc = ftctl_report_query_error("top", &err);
	} else {
		if (!consume)
			fprintf(stderr,
				"ftctl: top: ftagentd is not running: counts "
				"waiting in the module's idle generation%s, "
				"left for the daemon (the active generation "
				"is not readable without taking it: "
				"--consume)\n",
				seen ? "" : " (none waiting)");
		kernel_sort = sort;
		qsort(t.rows, t.n, sizeof(*t.rows), by_bytes);
		if (json)
			print_json(&t, limit);
		else
			print_text(&t, limit, header);
	}
	free(t.rows);
	ftnl_close(&stats);
	ftnl_close(&ctl);
	return rc;
}

/* ---- from the daemon ---- */

struct top_opts {
	int json, header, once, sort, consume;
	uint64_t limit; /* 0: the default */
	uint64_t count; /* frames; 0: until interrupted */
	double interval;
};

/* One process of a reply, with its rates against the previous reply. */
struct prow {
	struct json_object *o;
	uint32_t pid;
	uint64_t v[7]; /* net in/out, file in/out, other in/out, calls */
	double rate[7];
};

static const char *const counter_keys[7] = {
	"net_in_bytes",	  "net_out_bytes",   "file_in_bytes", "file_out_bytes",
	"other_in_bytes", "other_out_bytes", "calls",
};

static uint64_t total_bytes(const struct prow *r)
{
	return r->v[0] + r->v[1] + r->v[2] + r->v[3] + r->v[4] + r->v[5];
}

static double key_of(const struct prow *r, int sort, int rates)
{
	const double *x = r->rate;
	double v[7];
	int i;

	if (!rates) {
		for (i = 0; i < 7; i++)
			v[i] = (double)r->v[i];
		x = v;
	}
	switch (sort) {
	case SORT_NET: return x[0] + x[1];
	case SORT_FILE: return x[2] + x[3];
	case SORT_CALLS: return x[6];
	default: return x[0] + x[1] + x[2] + x[3] + x[4] + x[5];
	}
}

static int sort_mode;

static int by_rate(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;
	double kx = key_of(x, sort_mode, 1), ky = key_of(y, sort_mode, 1);
	uint64_t tx = total_bytes(x), ty = total_bytes(y);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_pid(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A reply's processes as rows (borrowing the reply's objects). */
static struct prow *rows_of(struct json_object *reply, size_t *n)
{
	struct json_object *arr = ftctl_jarray(reply, "processes", n);
	struct prow *rows;
	size_t i;
	int k;

	rows = calloc(*n ? *n : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = 0; i < *n; i++) {
		rows[i].o = json_object_array_get_idx(arr, i);
		rows[i].pid = (uint32_t)ftctl_ju64(rows[i].o, "pid");
		for (k = 0; k < 7; k++)
			rows[i].v[k] = ftctl_ju64(rows[i].o, counter_keys[k]);
	}
	return rows;
}

/* The command name, or /proc's for a process the daemon has no name for. */
static const char *name_of(struct json_object *p, char *buf, size_t len)
{
	const char *comm = ftctl_jstr(p, "comm");

	if (comm[0])
		return ftctl_printable(comm, buf, len);
	comm_of((uint32_t)ftctl_ju64(p, "pid"), buf, len);
	return buf;
}

/* 0 with *@reply, or the exit code after saying what went wrong. */
static int ask_top(uint64_t limit, int sort, struct json_object **reply)
{
	struct json_object *req = json_object_new_object();
	char err[512];
	int rc;

	json_object_object_add(req, "cmd", json_object_new_string("top"));
	json_object_object_add(req, "limit", json_object_new_uint64(limit));
	json_object_object_add(req, "sort",
			       json_object_new_string(sort_names[sort]));
	rc = ftctl_daemon_call(req, reply, err, sizeof(err));
	json_object_put(req);
	return rc ? ftctl_report_daemon_error("top", rc, err) : 0;
}

static void print_once_text(struct json_object *reply, int header)
{
	char comm[32], a[16], b[16], c[16], d[16];
	size_t i, n;
	struct json_object *arr = ftctl_jarray(reply, "processes", &n);

	if (header)
		print_header();
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		printf("%7" PRIu64 " %-15.15s %9s %9s %9s %9s %8" PRIu64
		       " %6" PRIu64 "\n",
		       ftctl_ju64(p, "pid"), name_of(p, comm, sizeof(comm)),
		       ftctl_human(ftctl_ju64(p, "net_in_bytes"), a, sizeof(a)),
		       ftctl_human(ftctl_ju64(p, "net_out_bytes"), b,
				   sizeof(b)),
		       ftctl_human(ftctl_ju64(p, "file_in_bytes"), c,
				   sizeof(c)),
		       ftctl_human(ftctl_ju64(p, "file_out_bytes"), d,
				   sizeof(d)),
		       ftctl_ju64(p, "calls"), ftctl_ju64(p, "errors"));
	}
}

/* Fill in the names the daemon lacks, so JSON matches the text. */
static void fill_names(struct json_object *reply)
{
	char comm[32];
	size_t i, n;
	struct json_object *arr = ftctl_jarray(reply, "processes", &n);

	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		if (!ftctl_jstr(p, "comm")[0]) {
			comm_of((uint32_t)ftctl_ju64(p, "pid"), comm,
				sizeof(comm));
			json_object_object_add(p, "comm",
					       json_object_new_string(comm));
		}
	}
}

static int top_once(const struct top_opts *o, struct json_object *reply)
{
	fill_names(reply);
	if (o->json)
		puts(json_object_to_json_string_ext(
			ftctl_jget(reply, "processes"),
			JSON_C_TO_STRING_PRETTY |
				JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_once_text(reply, o->header);
	return FTCTL_OK;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double left = t - mono_s();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Rates of @cur against @prev (sorted by pid), over @dt seconds. */
static void rates(struct prow *cur, size_t n, struct prow *prev, size_t np,
		  double dt)
{
	struct prow *p;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		p = bsearch(&cur[i], prev, np, sizeof(*prev), by_pid);
		for (k = 0; k < 7; k++) {
			/* A new process counts from zero; a reused pid too. */
			uint64_t before = p ? p->v[k] : 0;

			cur[i].rate[k] =
				cur[i].v[k] >= before
					? (double)(cur[i].v[k] - before) / dt
					: 0;
		}
	}
}

/* Rows that fit the terminal, or the --limit (default 20). */
static size_t frame_rows(const struct top_opts *o, int tty)
{
	struct winsize ws;

	if (o->limit)
		return (size_t)o->limit;
	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 6)
		return ws.ws_row - 5;
	return 20;
}

static void print_frame_text(const struct top_opts *o, struct prow *rows,
			     size_t n, double dt, int tty)
{
	double sum[7] = {0};
	char when[16], comm[32], v[7][16], t[16];
	size_t i, max = frame_rows(o, tty);
	time_t now = time(NULL);
	struct tm tm;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 7; k++)
			sum[k] += rows[i].rate[k];
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	/* --no-header: the rows alone (frames still end in a blank line). */
	if (o->header) {
		printf("ftctl top - %s, %zu processes, per second over %.1fs, "
		       "by %s\n",
		       when, n, dt, sort_names[o->sort]);
		printf("All: net in %s/s out %s/s, file in %s/s out %s/s, %s "
		       "calls/s\n",
		       ftctl_human_rate(sum[0], v[0], sizeof(v[0])),
		       ftctl_human_rate(sum[1], v[1], sizeof(v[1])),
		       ftctl_human_rate(sum[2], v[2], sizeof(v[2])),
		       ftctl_human_rate(sum[3], v[3], sizeof(v[3])),
		       ftctl_human_rate(sum[6], v[6], sizeof(v[6])));
		printf("\n%7s %-15s %8s %8s %8s %8s %8s %8s\n", "PID",
		       "COMMAND", "NET IN", "NET OUT", "FILE IN", "FILE OUT",
		       "CALLS", "TOTAL");
	}
	for (i = 0; i < n && i < max; i++) {
		for (k = 0; k < 7; k++)
			ftctl_human_rate(rows[i].rate[k], v[k], sizeof(v[k]));
		printf("%7u %-15.15s %8s %8s %8s %8s %8s %8s\n", rows[i].pid,
		       name_of(rows[i].o, comm, sizeof(comm)), v[0], v[1], v[2],
		       v[3], v[6],
		       ftctl_human(total_bytes(&rows[i]), t, sizeof(t)));
	}
	if (!tty)
		printf("\n");
	fflush(stdout);
}

static void print_frame_json(const struct top_opts *o, struct prow *rows,
			     size_t n, double dt)
{
	static const char *const rate_keys[7] = {
		"net_in_per_s",	  "net_out_per_s",  "file_in_per_s",
		"file_out_per_s", "other_in_per_s", "other_out_per_s",
		"calls_per_s",
	};
	struct json_object *frame = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	size_t i, max = o->limit ? (size_t)o->limit : n;
	struct timespec now;
	char num[32];
	int k;

	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(
		frame, "time_ns",
		json_object_new_uint64((uint64_t)now.tv_sec * 1000000000ull +
				       (uint64_t)now.tv_nsec));
	snprintf(num, sizeof(num), "%.3f", dt);
	json_object_object_add(frame, "interval_s",
			       json_object_new_double_s(dt, num));
	for (i = 0; i < n && i < max; i++) {
		struct json_object *p = json_object_get(rows[i].o);

		for (k = 0; k < 7; k++) {
			snprintf(num, sizeof(num), "%.1f", rows[i].rate[k]);
			json_object_object_add(
				p, rate_keys[k],
				json_object_new_double_s(rows[i].rate[k], num));
		}
		json_object_array_add(arr, p);
	}
	json_object_object_add(frame, "processes", arr);
	puts(json_object_to_json_string_ext(
		frame,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
	json_object_put(frame);
}

static int top_live(const struct top_opts *o, struct json_object *first)
{
	struct json_object *prev_reply = first, *reply = NULL;
	struct prow *prev, *cur;
	size_t np, n, frame;
	double t0 = mono_s(), t1;
	int tty = !o->json && isatty(STDOUT_FILENO), rc = FTCTL_OK;

	fill_names(prev_reply);
	prev = rows_of(prev_reply, &np);
	if (!prev)
		return FTCTL_FAILED;
	qsort(prev, np, sizeof(*prev), by_pid);
	sort_mode = o->sort;
	for (frame = 0; !o->count || frame < o->count; frame++) {
		sleep_until(t0 + o->interval);
		rc = ask_top(FTD_TOP_ALL, o->sort, &reply);
		if (rc)
			break;
		t1 = mono_s();
		fill_names(reply);
		cur = rows_of(reply, &n);
		if (!cur) {
			rc = FTCTL_FAILED;
			json_object_put(reply);
			break;
		}
		rates(cur, n, prev, np, t1 - t0 > 0.001 ? t1 - t0 : 0.001);
		qsort(cur, n, sizeof(*cur), by_rate);
		if (o->json)
			print_frame_json(o, cur, n, t1 - t0);
		else
			print_frame_text(o, cur, n, t1 - t0, tty);
		qsort(cur, n, sizeof(*cur), by_pid);
		free(prev);
		json_object_put(prev_reply);
		prev = cur;
		np = n;
		prev_reply = reply;
		t0 = t1;
	}
	free(prev);
	json_object_put(prev_reply);
	return rc;
}

enum {
	OPT_ONCE = FTCTL_OPT_FIRST_LOCAL,
	OPT_CONSUME,
	OPT_SORT,
	OPT_LIMIT,
};

static const struct option top_longopts[] = {
	{"once", no_argument, NULL, OPT_ONCE},
	{"consume", no_argument, NULL, OPT_CONSUME},
	{"count", required_argument, NULL, 'n'},
	{"interval", required_argument, NULL, 'd'},
	{"sort", required_argument, NULL, OPT_SORT},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{NULL, 0, NULL, 0},
};

static const char *const *top_values(const char *name)
{
	return strcmp(name, "sort") ? NULL : sort_names;
}

static int on_option(void *ctx, int opt, const char *v)
{
	struct top_opts *o = ctx;
	char *end;
	int s;

	switch (opt) {
	case OPT_ONCE: o->once = 1; return 0;
	case OPT_CONSUME: o->consume = 1; return 0;
	case 'n':
		errno = 0;
		o->count = strtoull(v, &end, 10);
		if (errno || *end || !o->count || v[0] == '-')
			break;
		return 0;
	case 'd':
		o->interval = strtod(v, &end);
		if (end == v || *end ||
		    !(o->interval >= 0.1 && o->interval <= 3600))
			break;
		return 0;
	case OPT_LIMIT:
		errno = 0;
		o->limit = strtoull(v, &end, 10);
		if (errno || *end || !o->limit || v[0] == '-' ||
		    o->limit > FTD_TOP_ALL)
			break;
		return 0;
	case OPT_SORT:
		for (s = 0; s < 4; s++)
			if (!strcmp(v, sort_names[s]))
				break;
		if (s == 4)
			break;
		o->sort = s;
		return 0;
	default: return -1;
	}
	fprintf(stderr, "ftctl: top: bad value '%s'\n", v);
	return -1;
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct top_opts o = {.interval = 1};
	struct json_object *reply = NULL, *req;
	uint64_t limit;
	char err[512];
	int rc;

	rc = ftctl_parse_options(&ftctl_cmd_top, opts, argc, argv, on_option,
				 &o);
	if (rc < 0)
		return ftctl_parse_exit(rc);
	if (rc != argc)
		return ftctl_usage_error(&ftctl_cmd_top,
					 "unexpected argument '%s'", argv[rc]);
	if (o.consume && !o.once)
		return ftctl_usage_error(&ftctl_cmd_top,
					 "--consume needs --once");
	if (o.once && o.count)
		return ftctl_usage_error(&ftctl_cmd_top,
					 "--once and -n exclude each other");
	o.json = opts->json;
	o.header = !opts->no_header;
	/* Text --once: 20 rows unless told; JSON and the live view: all. */
	limit = o.limit ? o.limit : o.once && !o.json ? 20 : FTD_TOP_ALL;
	if (!o.once)
		limit = FTD_TOP_ALL;
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("top"));
	json_object_object_add(req, "limit", json_object_new_uint64(limit));
	json_object_object_add(req, "sort",
			       json_object_new_string(sort_names[o.sort]));
	rc = ftctl_daemon_call(req, &reply, err, sizeof(err));
	json_object_put(req);
	if (rc && ftagent_api_not_running(rc)) {
		if (o.once)
			return top_from_kernel(o.json, o.header,
					       (size_t)o.limit, o.sort,
					       o.consume);
		fprintf(stderr,
			"ftctl: top: the live view needs ftagentd, which is "
			"not running (socket %s: %s); 'ftctl top --once' reads "
			"the module directly\n",
			ftagent_api_socket_path(), err);
		return FTCTL_NO_DAEMON;
	}
	/* A daemon that answers badly still owns the counters: no fallback. */
	if (rc)
		return ftctl_report_daemon_error("top", rc, err);
	if (o.consume) {
		fprintf(stderr, "ftctl: top: --consume: ftagentd is running "
				"and owns the counters; nothing taken\n");
		json_object_put(reply);
		return FTCTL_USAGE;
	}
	if (o.once) {
		rc = top_once(&o, reply);
		json_object_put(reply);
		return rc;
	}
	return top_live(&o, reply);
}

const struct ftctl_command ftctl_cmd_top = {
	.name = "top",
	.summary = "bytes and calls per process, live or --once",
	.usage = "top [--once [--consume] | -n COUNT] [--interval S]\n"
		 "             [--sort bytes|net|file|calls] [--limit N]",
	.shortopts = "n:d:",
	.longopts = top_longopts,
	.values = top_values,
	.run = run,
};
