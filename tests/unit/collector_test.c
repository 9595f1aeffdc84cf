// SPDX-License-Identifier: GPL-2.0
/*
 * The collector and its state files: counters land in the right rows,
 * records name them, transfers are attributed as documented, the event
 * log keeps to its bound and answers queries, and a daemon that dies
 * (no snapshot, journal only) or stops (snapshot) comes back with exactly
 * the same figures, without merging a generation twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/ftagent.h>

#include "../../daemon/collector.h"
#include "../../daemon/drain.h"
#include "../../daemon/state.h"
#include "../../tools/lib/counters.h"
#include "../../tools/lib/records.h"
#include "collector_build.h"

static uint64_t rec_buf[8192];

static void feed(struct ftd_collector *c, const void *buf)
{
	struct ftagent_rec rec;
	size_t used;

	assert_int_equal(
		FTAGENT_REC_OK,
		ftagent_rec_next(buf, FTAGENT_REC_SIZE_MAX, &rec, &used, NULL));
	ftd_collector_event(c, &rec);
}

static void init(struct ftd_collector *c, uint64_t procs)
{
	struct ftagentd_config cfg;

	ftagentd_config_defaults(&cfg);
	cfg.limits.processes = procs;
	cfg.agent.event_log_size = 64 * 1024;
	assert_int_equal(0, ftd_collector_init(c, &cfg));
	ftagentd_config_free(&cfg);
}

static void merge(struct ftd_collector *c, uint64_t seq,
		  struct ftagent_counter *k, size_t n)
{
	struct ftagent_cpu_stats cpu = {0};
	struct ftagent_generation gen = {0};

	cpu.lost[FTAGENT_LOSS_COUNTER_TABLE] = seq; /* something to carry */
	gen.seq = seq;
	gen.counters = k;
	gen.n_counters = n;
	gen.cpus = &cpu;
	gen.n_cpus = 1;
	ftd_collector_generation(c, &gen);
}

static struct ftd_proc *proc(struct ftd_collector *c, uint32_t tgid)
{
	struct ftd_proc_key key = {.tgid = tgid};

	return ftd_table_find(&c->table[FTD_T_PROCESSES], &key);
}

static void counters_land_in_their_rows(void **state)
{
	struct ftd_collector c;
	struct ftagent_counter k[] = {
		counter(100, FTAGENT_OBJ_SOCKET, 7, 1000, 2000),
		counter(100, FTAGENT_OBJ_SOCKET, 7, 1, 2), /* another CPU */
		counter(100, FTAGENT_OBJ_FILE, 42, 4096, 0),
		counter(100, FTAGENT_OBJ_PIPE, 9, 5, 6),
		counter(200, FTAGENT_OBJ_FILE, 42, 0, 512),
	};
	struct ftd_sock_key sk = {.tgid = 100, .ino = 7};
	struct ftd_file_key fk = {.dev = 8, .ino = 42};
	struct ftd_sock *s;
	struct ftd_file *f;
	struct ftd_proc *p;

	(void)state;
	init(&c, 16);
	build_exec(rec_buf, 100, 1, "curl", "/usr/bin/curl");
	feed(&c, rec_buf);
	merge(&c, 1, k, 5);
	p = proc(&c, 100);
	assert_non_null(p);
	assert_string_equal("curl", p->comm);
	assert_string_equal("/usr/bin/curl", p->exe);
	assert_int_equal(1001, p->net.in.bytes);
	assert_int_equal(2002, p->net.out.bytes);
	assert_int_equal(2, p->net.in.calls);
	assert_int_equal(4096, p->file.in.bytes);
	assert_int_equal(5, p->other.in.bytes);
	assert_int_equal(512, proc(&c, 200)->file.out.bytes);
	s = ftd_table_find(&c.table[FTD_T_SOCKETS], &sk);
	assert_non_null(s);
	assert_int_equal(2002, s->io.out.bytes);
	f = ftd_table_find(&c.table[FTD_T_FILES], &fk);
	assert_non_null(f);
	assert_int_equal(4096, f->io.in.bytes);
	assert_int_equal(512, f->io.out.bytes);
	assert_int_equal(1, c.generations);
	assert_int_equal(5, c.counters);
	assert_int_equal(1, c.kernel_lost[FTAGENT_LOSS_COUNTER_TABLE]);
	assert_int_equal(1, c.events[FTAGENT_REC_EXEC]);
	ftd_collector_free(&c);
}

static void a_flow_gets_the_bytes_of_its_socket(void **state)
{
	struct ftd_collector c;
	struct ftagent_counter before =
		counter(100, FTAGENT_OBJ_SOCKET, 7, 10, 20);
	struct ftagent_counter after =
		counter(100, FTAGENT_OBJ_SOCKET, 7, 1, 2);
	struct ftd_flow *f;

	(void)state;
	init(&c, 16);
	/* Counted before the connect record arrived, then after. */
	merge(&c, 1, &before, 1);
	build_connect(rec_buf, 100, 1, 7, 40000, 80);
	feed(&c, rec_buf);
	merge(&c, 2, &after, 1);
	assert_int_equal(1, c.table[FTD_T_FLOWS].used);
	f = ftd_table_first(&c.table[FTD_T_FLOWS]);
	assert_int_equal(80, f->key.remote_port);
	assert_int_equal(40000, f->key.local_port);
	assert_int_equal(11, f->io.in.bytes);
	assert_int_equal(22, f->io.out.bytes);
	ftd_collector_free(&c);
}

static void file_paths_come_from_open_records(void **state)
{
	struct ftd_collector c;
	struct ftd_file_key fk = {.dev = 8, .ino = 42};
	struct ftd_file *f;

	(void)state;
	init(&c, 16);
	build_open(rec_buf, 100, 1, 8, 42, "/var/log/syslog");
	feed(&c, rec_buf);
	f = ftd_table_find(&c.table[FTD_T_FILES], &fk);
	assert_non_null(f);
	assert_string_equal("/var/log/syslog", f->path);
	ftd_collector_free(&c);
}

static uint64_t xfer_bytes(struct ftd_collector *c, uint32_t tgid, uint64_t ino,
			   uint64_t sock, uint32_t attributed)
{
	struct ftd_xfer_key key = {.tgid = tgid,
				   .dev = 8,
				   .ino = ino,
				   .sock_ino = sock,
				   .attributed = attributed};
	struct ftd_xfer *x = ftd_table_find(&c->table[FTD_T_TRANSFERS], &key);

	return x ? x->bytes : 0;
}

static void transfers_direct_and_attributed(void **state)
{
	struct ftd_collector c;
	struct ftagent_counter k[6];

	(void)state;
	init(&c, 16);
	/* sendfile of 1000 bytes: counted in the file, socket and transfer. */
	k[0] = counter(100, FTAGENT_OBJ_FILE, 42, 1000, 0);
	k[1] = counter(100, FTAGENT_OBJ_SOCKET, 7, 0, 1000);
	k[2] = counter(100, FTAGENT_OBJ_TRANSFER, 42, 0, 1000);
	k[2].peer_ino = 7;
	/* Another process reads 3000 + 1000 bytes and sends 2000. */
	k[3] = counter(200, FTAGENT_OBJ_FILE, 50, 3000, 0);
	k[4] = counter(200, FTAGENT_OBJ_FILE, 51, 1000, 0);
	k[5] = counter(200, FTAGENT_OBJ_SOCKET, 9, 0, 2000);
	merge(&c, 1, k, 6);
	assert_int_equal(1000, xfer_bytes(&c, 100, 42, 7, 0));
	/* Nothing left to attribute for the sendfile process. */
	assert_int_equal(0, xfer_bytes(&c, 100, 42, 7, 1));
	/* min(4000, 2000) = 2000, split 3:1 between the files. */
	assert_int_equal(1500, xfer_bytes(&c, 200, 50, 9, 1));
	assert_int_equal(500, xfer_bytes(&c, 200, 51, 9, 1));
	assert_int_equal(3, c.table[FTD_T_TRANSFERS].used);
	/* The transfer is not counted again in the process's bytes. */
	assert_int_equal(1000, proc(&c, 100)->net.out.bytes);
	ftd_collector_free(&c);
}

static void full_process_table_evicts_and_counts(void **state)
{
	struct ftd_collector c;
	struct ftagent_counter k;
	uint32_t t;

	(void)state;
	init(&c, 4);
	for (t = 1; t <= 10; t++) {
		k = counter(t, FTAGENT_OBJ_FILE, t, t, 0);
		merge(&c, t, &k, 1);
	}
	assert_int_equal(4, c.table[FTD_T_PROCESSES].used);
	assert_int_equal(6, c.table[FTD_T_PROCESSES].evicted);
	assert_null(proc(&c, 6));
	assert_non_null(proc(&c, 7));
	ftd_collector_free(&c);
}

static void gap_records_count_losses_by_cause(void **state)
{
	struct ftd_collector c;
	struct ftagent_rec_gap g = {0};

	(void)state;
	init(&c, 4);
	g.first_seq = 3;
	g.lost = 7;
	g.lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL] = 5;
	g.lost_by_cause[FTAGENT_EV_LOSS_RECURSION] = 2;
	build_rec(rec_buf, FTAGENT_REC_GAP, 1, 10, 1, &g, sizeof(g), NULL, 0,
		  NULL, 0);
	feed(&c, rec_buf);
	assert_int_equal(5, c.events_lost[FTAGENT_EV_LOSS_BUFFER_FULL]);
	assert_int_equal(2, c.events_lost[FTAGENT_EV_LOSS_RECURSION]);
	assert_int_equal(0, c.log.n); /* not a process's event */
	ftd_collector_free(&c);
}

struct query_result {
	uint32_t tgid[64];
	size_t n;
};

static void collect(const struct ftd_event *ev, void *arg)
{
	struct query_result *r = arg;
	const struct ftagent_rec_hdr *h = (const void *)ev->rec;

	r->tgid[r->n++] = h->tgid;
}

static void event_log_keeps_its_bound_and_filters(void **state)
{
	struct ftd_collector c;
	struct ftd_event_query q = {0};
	struct query_result r = {0};
	size_t size = 0;
	uint32_t i;

	(void)state;
	init(&c, 64);
	for (i = 1; i <= 2000; i++) {
		size = build_exec(rec_buf, i, i, i % 2 ? "odd" : "even",
				  "/bin/x");
		feed(&c, rec_buf);
	}
	/* 64 KiB holds this many of these entries, no more. */
	assert_int_equal(65536 / ftd_event_cost(size), c.log.n);
	assert_true(c.log.bytes <= 65536);
	assert_int_equal(2000 - c.log.n, c.log.aged_out);
	/* The newest three of comm "odd". */
	strcpy(q.comm, "odd");
	q.limit = 3;
	assert_int_equal(3, ftd_eventlog_query(&c.log, &q, collect, &r));
	assert_int_equal(1995, r.tgid[0]);
	assert_int_equal(1999, r.tgid[2]);
	/* By pid. */
	memset(&q, 0, sizeof(q));
	memset(&r, 0, sizeof(r));
	q.pid = 1998;
	assert_int_equal(1, ftd_eventlog_query(&c.log, &q, collect, &r));
	/* By type: no connect records were logged. */
	q.pid = 0;
	q.type_mask = 1u << FTAGENT_REC_CONNECT;
	assert_int_equal(0, ftd_eventlog_query(&c.log, &q, collect, &r));
	/* By time: everything is later than the epoch, nothing after now+1h. */
	q.type_mask = 0;
	q.since_ns = ftd_record_realtime_ns(0) + 3600ull * 1000000000ull;
	assert_int_equal(0, ftd_eventlog_query(&c.log, &q, collect, &r));
	ftd_collector_free(&c);
}

/* Everything the state must bring back, compared field by field. */
static void assert_same(struct ftd_collector *a, struct ftd_collector *b)
{
	int t;

	for (t = 0; t < __FTD_T_MAX; t++) {
		const void *ra, *rb;

		assert_int_equal(a->table[t].used, b->table[t].used);
		assert_int_equal(a->table[t].evicted, b->table[t].evicted);
		for (ra = ftd_table_first(&a->table[t]),
		    rb = ftd_table_first(&b->table[t]);
		     ra && rb; ra = ftd_table_next_row(&a->table[t], ra),
		    rb = ftd_table_next_row(&b->table[t], rb)) {
			/* Figures and names; last-use times may differ. */
			assert_memory_equal(ra, rb, a->table[t].key_size);
		}
	}
	assert_int_equal(a->generations, b->generations);
	assert_int_equal(a->last_gen_seq, b->last_gen_seq);
	assert_memory_equal(a->events, b->events, sizeof(a->events));
	assert_int_equal(a->log.n, b->log.n);
	assert_int_equal(proc(a, 100)->net.out.bytes,
			 proc(b, 100)->net.out.bytes);
	assert_int_equal(proc(a, 100)->file.in.bytes,
			 proc(b, 100)->file.in.bytes);
	assert_string_equal(proc(a, 100)->comm, proc(b, 100)->comm);
}

static void work(struct ftd_collector *c, struct ftd_state *st, uint64_t seq)
{
	struct ftagent_counter k[2] = {
		counter(100, FTAGENT_OBJ_SOCKET, 7, 0, 1000 + seq),
		counter(100, FTAGENT_OBJ_FILE, 42, 4096, 0),
	};
	struct ftagent_generation gen = {
		.seq = seq, .counters = k, .n_counters = 2};
	size_t n = build_exec(rec_buf, 100, seq, "srv", "/usr/sbin/srv");

	assert_int_equal(0, ftd_state_log_records(st, rec_buf, n,
						  ftd_record_realtime_ns(0)));
	feed(c, rec_buf);
	assert_int_equal(0, ftd_state_log_generation(st, &gen));
	ftd_collector_generation(c, &gen);
}

static void state_survives_kill_and_stop(void **state)
{
	char dir[] = "/tmp/ftagentd-state-XXXXXX", path[128];
	struct ftd_collector live, back, again;
	struct ftd_state st, st2, st3;
	uint64_t seq;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	init(&live, 16);
	assert_int_equal(0, ftd_state_open(&st, dir, &live));
	for (seq = 1; seq <= 50; seq++)
		work(&live, &st, seq);
	/* Killed: no snapshot, only the journal. */
	ftd_state_close(&st);
	init(&back, 16);
	assert_int_equal(0, ftd_state_open(&st2, dir, &back));
	assert_int_equal(50, st2.replayed_generations);
	assert_int_equal(50, st2.replayed_records);
	assert_same(&live, &back);
	assert_int_equal(50 * 1000 + 50 * 51 / 2,
			 proc(&back, 100)->net.out.bytes);
	ftd_collector_free(&live);
	/* More work, a snapshot, more work, then killed again. */
	for (seq = 51; seq <= 60; seq++)
		work(&back, &st2, seq);
	assert_int_equal(0, ftd_state_snapshot(&st2, &back));
	assert_int_equal(0, st2.journal_bytes);
	for (seq = 61; seq <= 70; seq++)
		work(&back, &st2, seq);
	ftd_state_close(&st2);
	init(&again, 16);
	assert_int_equal(0, ftd_state_open(&st3, dir, &again));
	assert_int_equal(10, st3.replayed_generations);
	assert_same(&back, &again);
	assert_int_equal(70, again.last_gen_seq);
	ftd_state_close(&st3);
	ftd_collector_free(&again);

	/* A journal cut mid-entry: the whole entries before it count. */
	snprintf(path, sizeof(path), "%s/journal", dir);
	f = fopen(path, "ab");
	assert_non_null(f);
	fwrite("\x4a\x52\x4e\x4c\x01\x00\x00\x00\xff", 1, 9, f);
	fclose(f);
	init(&again, 16);
	assert_int_equal(1, ftd_state_open(&st3, dir, &again));
	assert_int_equal(10, st3.replayed_generations);
	assert_same(&back, &again);
	ftd_state_close(&st3);
	ftd_collector_free(&again);

	/* A damaged snapshot is set aside and reported, not misread. */
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fwrite("garbage!", 1, 8, f);
	fclose(f);
	init(&again, 16);
	assert_int_equal(1, ftd_state_open(&st3, dir, &again));
	assert_non_null(strstr(st3.error, "snapshot"));
	snprintf(path, sizeof(path), "%s/snapshot.bad", dir);
	assert_int_equal(0, access(path, F_OK));
	ftd_state_close(&st3);
	ftd_collector_free(&again);
	ftd_collector_free(&back);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(0, system(path));
}

/*
 * A snapshot written before ABI 0.6's iouring loss cause ("FTAGSNP1",
 * four kernel loss causes) is read and widened on upgrade: its totals
 * are kept, not set aside.
 */
static void a_snapshot_of_the_previous_layout_is_kept(void **state)
{
	char dir[] = "/tmp/ftagentd-state-XXXXXX", path[128];
	const size_t lost_off = 8 * (1 + __FTD_T_MAX + __FTAGENT_REC_MAX +
				     __FTAGENT_EV_LOSS_MAX + __FTD_DROP_MAX);
	const uint64_t v1_magic = 0x31504e5347415446ull;
	struct ftd_collector live, back;
	struct ftd_state st;
	unsigned char *buf;
	uint64_t seq;
	long len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	init(&live, 16);
	assert_int_equal(0, ftd_state_open(&st, dir, &live));
	for (seq = 1; seq <= 5; seq++)
		work(&live, &st, seq);
	live.kernel_lost[FTAGENT_LOSS_COUNTER_TABLE] = 3;
	live.kernel_lost[FTAGENT_LOSS_PENDING_TABLE] = 9;
	assert_int_equal(0, ftd_state_snapshot(&st, &live));
	ftd_state_close(&st);

	/* Rewrite it as the old build wrote it: the last cause taken out. */
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(1, fread(buf, len, 1, f));
	fclose(f);
	memcpy(buf, &v1_magic, 8);
	memmove(buf + lost_off + 8 * 4, buf + lost_off + 8 * 5,
		len - lost_off - 8 * 5);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(1, fwrite(buf, len - 8, 1, f));
	fclose(f);
	free(buf);

	init(&back, 16);
	assert_int_equal(0, ftd_state_open(&st, dir, &back));
	assert_same(&live, &back);
	assert_int_equal(3, back.kernel_lost[FTAGENT_LOSS_COUNTER_TABLE]);
	assert_int_equal(9, back.kernel_lost[FTAGENT_LOSS_PENDING_TABLE]);
	assert_int_equal(0, back.kernel_lost[FTAGENT_LOSS_IOURING]);
	ftd_state_close(&st);
	ftd_collector_free(&live);
	ftd_collector_free(&back);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(0, system(path));
}

/*
 * One drain reads CPU 0's file, then CPU 1's: a child's EXIT (CPU 0,
 * later) comes before its FORK (CPU 1, earlier). In written order, the
 * exited process keeps the name it had at exit, not its parent's.
 */
static void an_exit_read_before_its_fork_keeps_its_name(void **state)
{
	struct ftagent_rec_exit x = {0};
	struct ftagent_rec_fork f = {0};
	struct ftd_proc_key key = {.tgid = 4243};
	unsigned char *batch = malloc(4096);
	struct ftd_collector c;
	struct ftd_proc *p;
	size_t len, off;

	(void)state;
	assert_non_null(batch);
	init(&c, 64);
	strcpy(x.comm, "renamed");
	len = build_rec(batch, FTAGENT_REC_EXIT, 4243, 7, 2000, &x, sizeof(x),
			NULL, 0, NULL, 0);
	((struct ftagent_rec_hdr *)batch)->cpu = 0;
	f.child_tgid = 4243;
	strcpy(f.comm, "python3");
	off = len;
	len += build_rec(batch + off, FTAGENT_REC_FORK, 4242, 3, 1000, &f,
			 sizeof(f), NULL, 0, NULL, 0);
	((struct ftagent_rec_hdr *)(batch + off))->cpu = 1;
	assert_int_equal(0, ftd_records_in_time_order(&batch, len));
	assert_int_equal(FTAGENT_REC_FORK,
			 ((struct ftagent_rec_hdr *)batch)->type);
	for (off = 0; off < len;) {
		struct ftagent_rec rec;
		size_t used;

		assert_int_equal(FTAGENT_REC_OK,
				 ftagent_rec_next(batch + off, len - off, &rec,
						  &used, NULL));
		ftd_collector_event(&c, &rec);
		off += used;
	}
	p = ftd_table_find(&c.table[FTD_T_PROCESSES], &key);
	assert_non_null(p);
	assert_string_equal("renamed", p->comm);
	assert_true(p->exited);
	ftd_collector_free(&c);
	free(batch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_land_in_their_rows),
		cmocka_unit_test(a_flow_gets_the_bytes_of_its_socket),
		cmocka_unit_test(file_paths_come_from_open_records),
		cmocka_unit_test(transfers_direct_and_attributed),
		cmocka_unit_test(full_process_table_evicts_and_counts),
		cmocka_unit_test(gap_records_count_losses_by_cause),
		cmocka_unit_test(event_log_keeps_its_bound_and_filters),
		cmocka_unit_test(state_survives_kill_and_stop),
		cmocka_unit_test(a_snapshot_of_the_previous_layout_is_kept),
		cmocka_unit_test(an_exit_read_before_its_fork_keeps_its_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
