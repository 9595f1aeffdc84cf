// SPDX-License-Identifier: GPL-2.0
/*
 * audit_bench: what one verdict costs the audit trail, on the host (no
 * module, no guest): the real path ftagentd takes for each verdict
 * record of a drain (daemon/audit_verdicts.c: render the event as JSON,
 * chain it, one write()) with the real fsync batching (daemon/audit.c),
 * into a directory on tmpfs and one on the disk.
 *
 * Each sample is one record timed on its own (CLOCK_MONOTONIC around one
 * ftd_audit_verdicts() call holding one record), so the fsync that every
 * fsync_batch-th record pays shows in the tail, not in an average.
 * Rounds alternate which directory goes first, so neither one always
 * runs on a warmer cache.
 *
 * usage: audit_bench [-r ROUNDS] [-n RECORDS] [-b FSYNC_BATCH] DIR...
 * Output, one line per DIR:
 *   DIR samples=N p50=NS p95=NS p99=NS max=NS mean=NS fsyncs=N
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/ftagent.h>

#include "../audit.h"
#include "../audit_verdicts.h"
#include "../collector.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A connect refused by a rule, as the module writes it. */
static size_t verdict_record(uint64_t *buf, uint64_t seq)
{
	struct ftagent_rec_hdr *h = (void *)buf;
	struct ftagent_rec_verdict v = {0};
	size_t size = (sizeof(*h) + sizeof(v) + 7) & ~(size_t)7;

	memset(buf, 0, size);
	v.policy_generation = 3;
	v.rule = 0;
	v.op = FTAGENT_OP_CONNECT;
	v.action = FTAGENT_ACTION_DENY;
	v.verdict = FTAGENT_VERDICT_DENIED;
	v.source = FTAGENT_VERDICT_SRC_RULE;
	v.error = -1;
	v.family = 2;
	v.port = 443;
	memcpy(v.addr, "\xa9\xfe\xa9\xfe", 4);
	v.metric = 0xffff;
	strcpy(v.rule_name, "no-metadata");
	h->type = FTAGENT_REC_VERDICT;
	h->size = (uint16_t)size;
	h->body_size = sizeof(v);
	h->seq = seq;
	h->time_ns = now_ns();
	h->tgid = h->pid = 4242;
	memcpy((char *)buf + sizeof(*h), &v, sizeof(v));
	return size;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct target {
	const char *dir;
	uint64_t *samples;
	size_t n;
	uint64_t fsyncs;
};

static int one_round(struct target *t, struct ftd_collector *c, uint64_t batch,
		     size_t records)
{
	struct ftagentd_config cfg;
	struct ftd_audit a;
	uint64_t rec[64], t0, t1;
	size_t i, size;

	ftagentd_config_defaults(&cfg);
	cfg.audit.enabled = 1;
	snprintf(cfg.audit.dir, sizeof(cfg.audit.dir), "%s", t->dir);
	cfg.audit.fsync_batch = batch;
	ftd_audit_init(&a);
	if (ftd_audit_open(&a, &cfg) < 0) {
		fprintf(stderr, "audit_bench: %s\n", a.error);
		return -1;
	}
	for (i = 0; i < records; i++) {
		size = verdict_record(rec, i);
		t0 = now_ns();
		ftd_audit_verdicts(&a, c, (const unsigned char *)rec, size, 0);
		t1 = now_ns();
		t->samples[t->n++] = t1 - t0;
	}
	if (a.errors) {
		fprintf(stderr, "audit_bench: %s: %s\n", t->dir, a.error);
		return -1;
	}
	t->fsyncs += a.fsyncs;
	ftd_audit_close(&a);
	return 0;
}

static void report(const struct target *t)
{
	uint64_t sum = 0;
	size_t i;

	qsort(t->samples, t->n, sizeof(*t->samples), by_value);
	for (i = 0; i < t->n; i++)
		sum += t->samples[i];
	printf("%s samples=%zu p50=%" PRIu64 " p95=%" PRIu64 " p99=%" PRIu64
	       " max=%" PRIu64 " mean=%" PRIu64 " fsyncs=%" PRIu64 "\n",
	       t->dir, t->n, t->samples[t->n / 2], t->samples[t->n * 95 / 100],
	       t->samples[t->n * 99 / 100], t->samples[t->n - 1], sum / t->n,
	       t->fsyncs);
}

int main(int argc, char **argv)
{
	size_t rounds = 20, records = 2000, n, r, k;
	struct ftagentd_config cfg;
	struct ftd_collector c;
	struct target *t;
	uint64_t batch = 64;
	int opt;

	while ((opt = getopt(argc, argv, "r:n:b:")) != -1) {
		switch (opt) {
		case 'r': rounds = strtoul(optarg, NULL, 10); break;
		case 'n': records = strtoul(optarg, NULL, 10); break;
		case 'b': batch = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr,
				"usage: audit_bench [-r ROUNDS] "
				"[-n RECORDS] [-b FSYNC_BATCH] DIR...\n");
			return 2;
		}
	}
	n = (size_t)(argc - optind);
	if (!n || !rounds || !records || !batch)
		return 2;
	ftagentd_config_defaults(&cfg);
	if (ftd_collector_init(&c, &cfg) < 0)
		return 1;
	t = calloc(n, sizeof(*t));
	for (k = 0; k < n; k++) {
		t[k].dir = argv[optind + k];
		t[k].samples = calloc(rounds * records, sizeof(uint64_t));
	}
	for (r = 0; r < rounds; r++)
		for (k = 0; k < n; k++)
			/* Odd rounds in the other order. */
			if (one_round(&t[r % 2 ? n - 1 - k : k], &c, batch,
				      records) < 0)
				return 1;
	printf("# audit_bench: %zu rounds of %zu records, fsync_batch %" PRIu64
	       ", ns per record\n",
	       rounds, records, batch);
	for (k = 0; k < n; k++)
		report(&t[k]);
	return 0;
}
