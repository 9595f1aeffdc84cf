// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl top --once: per-process bytes and calls since the last collection,
 * straight from the module: swap generations, dump, acknowledge. Without
 * ftagentd this process is the consumer of the counters; with the daemon
 * running, the daemon consumes them and serves its own view instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "../lib/counters.h"
#include "ftctl.h"

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

static int by_bytes(const void *a, const void *b)
{
	uint64_t x = total(a), y = total(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

static void comm_of(uint32_t tgid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "(exited)");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void human(uint64_t v, char *buf, size_t len)
{
	if (v >= 10ull << 20)
		snprintf(buf, len, "%.1fM", v / 1048576.0);
	else if (v >= 10ull << 10)
		snprintf(buf, len, "%.1fK", v / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void print_text(const struct top *t)
{
	char comm[32], a[16], b[16], c[16], d[16];
	size_t i;

	printf("%7s %-15s %9s %9s %9s %9s %8s %6s\n", "PID", "COMMAND",
	       "NET IN", "NET OUT", "FILE IN", "FILE OUT", "CALLS", "ERRS");
	for (i = 0; i < t->n; i++) {
		const struct proc_row *r = &t->rows[i];

		comm_of(r->tgid, comm, sizeof(comm));
		human(r->net_in, a, sizeof(a));
		human(r->net_out, b, sizeof(b));
		human(r->file_in, c, sizeof(c));
		human(r->file_out, d, sizeof(d));
		printf("%7u %-15.15s %9s %9s %9s %9s %8" PRIu64 " %6" PRIu64
		       "\n",
		       r->tgid, comm, a, b, c, d, r->calls, r->errors);
	}
}

static void print_json(const struct top *t)
{
	struct json_object *arr = json_object_new_array();
	char comm[32];
	size_t i;

	for (i = 0; i < t->n; i++) {
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

int ftctl_cmd_top(const struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftnl ctl, stats;
	struct ftnl_error err;
	struct top t = {0};
	int rc = FTCTL_OK;

	if (argc != 1 || strcmp(argv[0], "--once")) {
		fprintf(stderr, "ftctl: usage: ftctl top --once (the live view "
				"comes with ftagentd)\n");
		return FTCTL_USAGE;
	}
	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return ftctl_report_query_error("top", &err);
	if (ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
		ftnl_close(&ctl);
		return ftctl_report_query_error("top", &err);
	}
	if (ftagent_collect(&ctl, &stats, take, &t, &err) < 0) {
		rc = ftctl_report_query_error("top", &err);
	} else {
		qsort(t.rows, t.n, sizeof(*t.rows), by_bytes);
		if (opts->json)
			print_json(&t);
		else
			print_text(&t);
	}
	free(t.rows);
	ftnl_close(&stats);
	ftnl_close(&ctl);
	return rc;
}
