// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the local API's replies (daemon/api_reply.c): a daemon
 * state built from records and generations made by hand, exact figures
 * in every command's reply, every way a request can be wrong (each
 * answered with ok:false and a message naming the problem), and random
 * bytes, which must never crash it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "../../daemon/api_reply.h"
#include "../../tools/lib/api_client.h"
#include "../../tools/lib/api_version.h"
#include "../../tools/lib/counters.h"
#include "../../tools/lib/records.h"

#define HDR_SIZE  sizeof(struct ftagent_rec_hdr)
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* ---- building the daemon's state ---- */

static int setup(void **state)
{
	struct ftagentd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	ftagentd_config_defaults(&d->cfg);
	assert_int_equal(ftd_collector_init(&d->col, &d->cfg), 0);
	d->config_path = "/etc/ftagent/ftagent.conf";
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct ftagentd *d = *state;

	ftd_collector_free(&d->col);
	ftagentd_config_free(&d->cfg);
	free(d);
	return 0;
}

/* Lay out a record: header, body, strings, zeros to a multiple of 8. */
static size_t put_rec(void *out, uint16_t type, uint32_t tgid, const void *body,
		      size_t body_size, const char *s0, size_t l0,
		      const char *s1, size_t l1)
{
	static uint64_t seq;
	struct ftagent_rec_hdr h = {0};
	unsigned char *p = out;
	size_t off = HDR_SIZE;

	memcpy(p + off, body, body_size);
	off += body_size;
	if (l0)
		memcpy(p + off, s0, l0);
	off += l0;
	if (l1)
		memcpy(p + off, s1, l1);
	off += l1;
	memset(p + off, 0, ALIGN8(off) - off);
	h.type = type;
	h.size = (uint16_t)ALIGN8(off);
	h.body_size = (uint16_t)body_size;
	h.seq = ++seq;
	h.time_ns = 1000 + seq;
	h.tgid = tgid;
	h.pid = tgid;
	memcpy(p, &h, HDR_SIZE);
	return h.size;
}

/* Hand a record to the collector, as the drain does. */
static void feed(struct ftagentd *d, const void *buf, size_t size)
{
	struct ftagent_rec rec;
	const char *why = "cut short";
	size_t used = 0;

	if (ftagent_rec_next(buf, size, &rec, &used, &why) != FTAGENT_REC_OK)
		fail_msg("bad test record: %s", why);
	ftd_collector_event(&d->col, &rec);
}

static size_t put_exec(void *buf, uint32_t tgid, const char *comm,
		       const char *exe)
{
	struct ftagent_rec_exec e = {0};
	static const char argv[] = "x\0--flag";

	e.ppid = 1;
	e.uid = 33;
	e.argc = 2;
	e.exe_len = (uint16_t)strlen(exe);
	e.argv_len = sizeof(argv);
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return put_rec(buf, FTAGENT_REC_EXEC, tgid, &e, sizeof(e), exe,
		       e.exe_len, argv, sizeof(argv));
}

static void feed_exec(struct ftagentd *d, uint32_t tgid, const char *comm,
		      const char *exe)
{
	_Alignas(8) unsigned char buf[512];

	feed(d, buf, put_exec(buf, tgid, comm, exe));
}

static void feed_fork(struct ftagentd *d, uint32_t parent, uint32_t child)
{
	_Alignas(8) unsigned char buf[256];
	struct ftagent_rec_fork f = {.child_tgid = child};

	strcpy(f.comm, "init");
	feed(d, buf,
	     put_rec(buf, FTAGENT_REC_FORK, parent, &f, sizeof(f), NULL, 0,
		     NULL, 0));
}

static void feed_exit(struct ftagentd *d, uint32_t tgid, int32_t code)
{
	_Alignas(8) unsigned char buf[256];
	struct ftagent_rec_exit x = {.exit_code = code};

	strcpy(x.comm, "cron");
	feed(d, buf,
	     put_rec(buf, FTAGENT_REC_EXIT, tgid, &x, sizeof(x), NULL, 0, NULL,
		     0));
}

static size_t put_connect(void *buf, uint32_t tgid, uint64_t ino)
{
	struct ftagent_rec_sock k = {0};

	k.sock_ino = ino;
	k.family = AF_INET;
	k.type = SOCK_STREAM;
	k.protocol = IPPROTO_TCP;
	k.local_port = 40000;
	k.remote_port = 443;
	inet_pton(AF_INET, "10.1.2.3", k.local_addr);
	inet_pton(AF_INET, "192.0.2.7", k.remote_addr);
	return put_rec(buf, FTAGENT_REC_CONNECT, tgid, &k, sizeof(k), NULL, 0,
		       NULL, 0);
}

static size_t put_open(void *buf, uint32_t tgid, uint32_t dev, uint64_t ino,
		       const char *path)
{
	struct ftagent_rec_open o = {0};

	o.dev = dev;
	o.ino = ino;
	o.fd = 5;
	o.mode = 0100644;
	o.path_len = (uint16_t)strlen(path);
	return put_rec(buf, FTAGENT_REC_OPEN, tgid, &o, sizeof(o), path,
		       o.path_len, NULL, 0);
}

static struct ftagent_counter counter(uint32_t tgid, uint16_t kind,
				      uint32_t dev, uint64_t ino,
				      uint64_t in_bytes, uint64_t out_bytes,
				      uint32_t calls, uint32_t errors)
{
	struct ftagent_counter c = {0};

	c.tgid = tgid;
	c.kind = kind;
	c.dev = dev;
	c.ino = ino;
	if (kind == FTAGENT_OBJ_SOCKET) {
		c.family = AF_INET;
		c.protocol = IPPROTO_TCP;
	}
	c.in.bytes = in_bytes;
	c.in.calls = calls;
	c.in.errors = errors;
	c.out.bytes = out_bytes;
	c.out.calls = calls;
	return c;
}

/*
 * Three processes: 10 (nginx) reads a file and sends on a socket, 20
 * reads and writes a big file and sendfile()s part of it, 30 (exited)
 * makes many small pipe calls.
 */
static void feed_world(struct ftagentd *d)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagent_counter c[6];
	struct ftagent_cpu_stats cpus[2] = {{0}};
	struct ftagent_generation gen = {0};

	feed_exec(d, 10, "nginx", "/usr/sbin/nginx");
	feed(d, buf, put_connect(buf, 10, 1));
	feed(d, buf, put_open(buf, 20, 8, 6, "/srv/big.iso"));
	feed_exit(d, 30, 2 << 8);
	c[0] = counter(10, FTAGENT_OBJ_SOCKET, 0, 1, 1000, 500, 3, 1);
	c[1] = counter(10, FTAGENT_OBJ_FILE, 8, 5, 100, 0, 1, 0);
	c[2] = counter(20, FTAGENT_OBJ_FILE, 8, 6, 5000, 4000, 5, 0);
	c[3] = counter(30, FTAGENT_OBJ_PIPE, 0, 9, 7, 7, 50, 2);
	c[4] = counter(20, FTAGENT_OBJ_TRANSFER, 8, 6, 0, 3000, 2, 0);
	c[4].peer_ino = 77;
	c[5] = counter(10, FTAGENT_OBJ_SOCKET, 0, 1, 24, 0, 1, 0);
	c[5].cpu = 1;
	cpus[0].lost[FTAGENT_LOSS_COUNTER_TABLE] = 7;
	cpus[1].cpu = 1;
	cpus[1].lost[FTAGENT_LOSS_COUNTER_TABLE] = 2;
	cpus[1].lost[FTAGENT_LOSS_RECURSION] = 1;
	gen.seq = 42;
	gen.counters = c;
	gen.n_counters = 6;
	gen.cpus = cpus;
	gen.n_cpus = 2;
	ftd_collector_generation(&d->col, &gen);
}

/* ---- asking ---- */

/* The reply to @len bytes; it must be an object that round-trips. */
static struct json_object *ask_len(struct ftagentd *d, const char *req,
				   size_t len)
{
	struct json_object *o = ftd_api_reply(d, req, len), *back, *ok;
	const char *text;

	assert_non_null(o);
	assert_int_equal(json_object_get_type(o), json_type_object);
	assert_true(json_object_object_get_ex(o, "ok", &ok));
	assert_int_equal(json_object_get_type(ok), json_type_boolean);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_null(strchr(text, '\n')); /* one line on the wire */
	back = json_tokener_parse(text);
	assert_non_null(back);
	assert_true(json_object_equal(o, back));
	json_object_put(back);
	return o;
}

static struct json_object *ask(struct ftagentd *d, const char *req)
{
	struct json_object *o = ask_len(d, req, strlen(req));
	struct json_object *ok;

	json_object_object_get_ex(o, "ok", &ok);
	if (!json_object_get_boolean(ok))
		fail_msg("%s -> %s", req, json_object_to_json_string(o));
	return o;
}

static struct json_object *at(struct json_object *o, const char *path)
{
	char key[64];
	const char *dot;
	struct json_object *v = o;

	while (*path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s",
			 (int)(dot ? dot - path : (long)strlen(path)), path);
		if (isdigit((unsigned char)key[0]) &&
		    json_object_get_type(v) == json_type_array)
			v = json_object_array_get_idx(v, (size_t)atoi(key));
		else if (!json_object_object_get_ex(v, key, &v))
			fail_msg("no '%s' in %s", key,
				 json_object_to_json_string(o));
		path = dot ? dot + 1 : path + strlen(path);
	}
	return v;
}

static uint64_t u64_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (json_object_get_type(v) != json_type_int)
		fail_msg("%s is not an integer", path);
	return json_object_get_uint64(v);
}

static const char *str_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (json_object_get_type(v) != json_type_string)
		fail_msg("%s is not a string", path);
	return json_object_get_string(v);
}

static int bool_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (json_object_get_type(v) != json_type_boolean)
		fail_msg("%s is not a boolean", path);
	return json_object_get_boolean(v);
}

static size_t len_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (json_object_get_type(v) != json_type_array)
		fail_msg("%s is not an array", path);
	return json_object_array_length(v);
}

static void expect_error_len(struct ftagentd *d, const char *req, size_t len,
			     const char *want)
{
	struct json_object *o = ask_len(d, req, len);
	const char *msg;

	assert_false(bool_at(o, "ok"));
	/* ok, error and api_version: a refusal says which API refused. */
	assert_int_equal(json_object_object_length(o), 3);
	assert_int_equal(u64_at(o, "api_version.major"), FTAGENT_API_MAJOR);
	msg = str_at(o, "error");
	if (!strstr(msg, want))
		fail_msg("'%.60s': error '%s' does not say '%s'", req, msg,
			 want);
	json_object_put(o);
}

static void expect_error(struct ftagentd *d, const char *req, const char *want)
{
	expect_error_len(d, req, strlen(req), want);
}

/* ---- stats ---- */

static void stats_of_an_empty_daemon(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o = ask(d, "{\"cmd\":\"stats\"}");
	static const char *const types[] = {
		"fork",	 "exec", "exit",   "connect", "accept",
		"close", "bind", "listen", "open",    "verdict"};
	char path[96];
	size_t i;

	assert_true(bool_at(o, "ok"));
	assert_string_equal(str_at(o, "daemon.version"), FTAGENTD_VERSION);
	assert_int_equal(u64_at(o, "daemon.pid"), (uint64_t)getpid());
	assert_true(u64_at(o, "daemon.uptime_s") < 5);
	assert_string_equal(str_at(o, "daemon.config_path"),
			    "/etc/ftagent/ftagent.conf");
	assert_string_equal(str_at(o, "daemon.mode"), "standard");
	assert_int_equal(u64_at(o, "daemon.reloads"), 0);
	assert_null(at(o, "daemon.last_reload_error"));
	assert_int_equal(u64_at(o, "resources.rss_bytes"), 0);
	assert_int_equal(u64_at(o, "collector.event_log.limit_bytes"),
			 16 << 20);
	assert_int_equal(u64_at(o, "collector.event_log.count"), 0);
	assert_int_equal(u64_at(o, "collector.tables.processes.capacity"),
			 4096);
	assert_int_equal(u64_at(o, "collector.tables.transfers.capacity"),
			 16384);
	assert_int_equal(u64_at(o, "collector.tables.flows.used"), 0);
	/* Every type but gap, which is a loss report, not an event. */
	assert_int_equal(
		json_object_object_length(at(o, "collector.events_received")),
		10);
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "collector.events_received.%s",
			 types[i]);
		assert_int_equal(u64_at(o, path), 0);
	}
	/*
	 * Losses only (losses.h): 5 kernel causes, channel_discarded, and
	 * the collector's bad_record and event_log; not dump_retry (a
	 * retry), not event_log_too_big (within event_log), not aged_out.
	 */
	assert_int_equal(
		json_object_object_length(at(o, "collector.events_dropped")),
		8);
	/* counter_table, recursion, user_read, pending_table, iouring */
	assert_int_equal(json_object_object_length(
				 at(o, "collector.counter_table_lost")),
			 5);
	json_object_put(o);
}

static void stats_count_everything(void **state)
{
	struct ftagentd *d = *state;
	_Alignas(8) unsigned char buf[512];
	struct ftagent_rec_gap g = {0};
	struct json_object *o;
	uint64_t seq;

	feed_world(d);
	feed_fork(d, 10, 11);
	/* A GAP says 7 records were lost: 5 buffer full, 2 too big. */
	g.lost = 7;
	g.lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL] = 5;
	g.lost_by_cause[FTAGENT_EV_LOSS_TOO_BIG] = 2;
	g.first_seq = 93;
	put_rec(buf, FTAGENT_REC_GAP, 0, &g, sizeof(g), NULL, 0, NULL, 0);
	seq = 100; /* lost = seq - first_seq */
	memcpy(buf + offsetof(struct ftagent_rec_hdr, seq), &seq, 8);
	feed(d, buf, HDR_SIZE + sizeof(g));
	/* A log too small for the next exec. */
	ftd_eventlog_set_limit(&d->col.log, ftd_event_cost(64));
	feed_exec(d, 12, "x", "/a/path/long/enough/to/make/the/record/big");
	d->col.queue_capacity = 4 << 20;
	d->col.queue_bytes = 4096;
	d->col.queue_peak = 65536;
	d->self.cpu_percent = 1.25;
	d->self.cpu_seconds = 3.5;
	d->self.rss_bytes = 9 << 20;
	d->self.vm_bytes = 100 << 20;
	d->self.open_fds = 17;
	d->reloads = 2;
	d->reload_errors = 1;
	strcpy(d->last_reload_error, "x.conf:3: [agent] mode: bad");

	o = ask(d, "{\"cmd\":\"stats\"}");
	assert_string_equal(json_object_to_json_string(at(o, "resources")),
			    "{ \"cpu_percent\": 1.25, \"cpu_seconds\": 3.50, "
			    "\"rss_bytes\": 9437184, \"vm_bytes\": "
			    "104857600, \"open_fds\": 17 }");
	assert_int_equal(u64_at(o, "daemon.reloads"), 2);
	assert_int_equal(u64_at(o, "daemon.reload_errors"), 1);
	assert_string_equal(str_at(o, "daemon.last_reload_error"),
			    "x.conf:3: [agent] mode: bad");
	assert_int_equal(u64_at(o, "collector.event_queue.size_bytes"),
			 4 << 20);
	assert_int_equal(u64_at(o, "collector.event_queue.used_bytes"), 4096);
	assert_int_equal(u64_at(o, "collector.event_queue.peak_bytes"), 65536);
	assert_int_equal(u64_at(o, "collector.events_received.exec"), 2);
	assert_int_equal(u64_at(o, "collector.events_received.fork"), 1);
	assert_int_equal(u64_at(o, "collector.events_received.exit"), 1);
	assert_int_equal(u64_at(o, "collector.events_received.connect"), 1);
	assert_int_equal(u64_at(o, "collector.events_received.open"), 1);
	assert_int_equal(u64_at(o, "collector.events_received.close"), 0);
	assert_int_equal(u64_at(o, "collector.events_dropped.buffer_full"), 5);
	assert_int_equal(u64_at(o, "collector.events_dropped.too_big"), 2);
	assert_int_equal(u64_at(o, "collector.events_dropped.nmi"), 0);
	assert_int_equal(u64_at(o, "collector.events_dropped.event_log"), 1);
	assert_int_equal(u64_at(o, "collector.events_dropped.bad_record"), 0);
	assert_false(json_object_object_get_ex(
		at(o, "collector.events_dropped"), "dump_retry", NULL));
	assert_false(json_object_object_get_ex(
		at(o, "collector.events_dropped"), "event_log_too_big", NULL));
	assert_int_equal(u64_at(o, "collector.event_log.too_big"), 1);
	assert_int_equal(u64_at(o, "collector.dump_retries"), 0);
	/* Shrinking the log aged out all but what fits one small entry. */
	assert_int_equal(u64_at(o, "collector.event_log.limit_bytes"),
			 ftd_event_cost(64));
	assert_int_equal(u64_at(o, "collector.event_log.count"), 1);
	assert_int_equal(u64_at(o, "collector.event_log.aged_out"), 4);
	assert_int_equal(u64_at(o, "collector.event_log.appended"), 5);
	assert_int_equal(u64_at(o, "collector.tables.processes.used"), 5);
	assert_int_equal(u64_at(o, "collector.tables.sockets.used"), 1);
	assert_int_equal(u64_at(o, "collector.tables.flows.used"), 1);
	assert_int_equal(u64_at(o, "collector.tables.files.used"), 2);
	/* One sendfile()d, one read-then-send by nginx. */
	assert_int_equal(u64_at(o, "collector.tables.transfers.used"), 2);
	assert_int_equal(u64_at(o, "collector.tables.files.evicted"), 0);
	assert_int_equal(u64_at(o, "collector.generations"), 1);
	assert_int_equal(u64_at(o, "collector.counters"), 6);
	assert_int_equal(u64_at(o, "collector.last_generation"), 42);
	assert_int_equal(
		u64_at(o, "collector.counter_table_lost.counter_table"), 9);
	assert_int_equal(u64_at(o, "collector.counter_table_lost.recursion"),
			 1);
	assert_int_equal(u64_at(o, "collector.counter_table_lost.user_read"),
			 0);
	json_object_put(o);
}

static void stats_evictions(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;
	uint32_t pid;

	for (pid = 1; pid <= 4100; pid++)
		feed_fork(d, 1, pid + 1000);
	o = ask(d, "{\"cmd\":\"stats\"}");
	assert_int_equal(u64_at(o, "collector.tables.processes.used"), 4096);
	assert_int_equal(u64_at(o, "collector.tables.processes.evicted"), 4);
	assert_int_equal(u64_at(o, "collector.tables.processes.inserted"),
			 4100);
	json_object_put(o);
}

/* ---- top ---- */

static void top_totals(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	feed_world(d);
	o = ask(d, "{\"cmd\":\"top\"}");
	assert_string_equal(str_at(o, "sort"), "bytes");
	assert_int_equal(u64_at(o, "total"), 3);
	assert_int_equal(len_at(o, "processes"), 3);
	/* 20: 9000 bytes; 10: 1624; 30: 14. */
	assert_int_equal(u64_at(o, "processes.0.pid"), 20);
	assert_int_equal(u64_at(o, "processes.0.file_in_bytes"), 5000);
	assert_int_equal(u64_at(o, "processes.0.file_out_bytes"), 4000);
	assert_int_equal(u64_at(o, "processes.0.net_in_bytes"), 0);
	assert_int_equal(u64_at(o, "processes.0.calls"), 10);
	assert_string_equal(str_at(o, "processes.0.comm"), "");
	assert_false(bool_at(o, "processes.0.exited"));
	assert_false(json_object_object_get_ex(at(o, "processes.0"),
					       "exit_code", NULL));
	assert_int_equal(u64_at(o, "processes.1.pid"), 10);
	assert_string_equal(str_at(o, "processes.1.comm"), "nginx");
	assert_string_equal(str_at(o, "processes.1.exe"), "/usr/sbin/nginx");
	assert_int_equal(u64_at(o, "processes.1.ppid"), 1);
	assert_int_equal(u64_at(o, "processes.1.uid"), 33);
	assert_int_equal(u64_at(o, "processes.1.net_in_bytes"), 1024);
	assert_int_equal(u64_at(o, "processes.1.net_out_bytes"), 500);
	assert_int_equal(u64_at(o, "processes.1.file_in_bytes"), 100);
	assert_int_equal(u64_at(o, "processes.1.file_out_bytes"), 0);
	assert_int_equal(u64_at(o, "processes.1.calls"), 10);
	assert_int_equal(u64_at(o, "processes.1.errors"), 1);
	assert_int_equal(u64_at(o, "processes.2.pid"), 30);
	assert_string_equal(str_at(o, "processes.2.comm"), "cron");
	assert_true(bool_at(o, "processes.2.exited"));
	assert_int_equal(u64_at(o, "processes.2.exit_code"), 512);
	assert_int_equal(u64_at(o, "processes.2.other_in_bytes"), 7);
	assert_int_equal(u64_at(o, "processes.2.other_out_bytes"), 7);
	assert_int_equal(u64_at(o, "processes.2.calls"), 100);
	assert_int_equal(u64_at(o, "processes.2.errors"), 2);
	assert_true(u64_at(o, "processes.2.last_seen_ns") >
		    1600000000ull * 1000000000);
	json_object_put(o);
}

static void top_sorts_and_limits(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	feed_world(d);
	o = ask(d, "{\"cmd\":\"top\",\"sort\":\"net\"}");
	assert_int_equal(u64_at(o, "processes.0.pid"), 10);
	assert_int_equal(u64_at(o, "processes.1.pid"), 20); /* ties: by pid */
	assert_int_equal(u64_at(o, "processes.2.pid"), 30);
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"top\",\"sort\":\"file\"}");
	assert_int_equal(u64_at(o, "processes.0.pid"), 20);
	assert_int_equal(u64_at(o, "processes.1.pid"), 10);
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"top\",\"sort\":\"calls\",\"limit\":2}");
	assert_int_equal(len_at(o, "processes"), 2);
	assert_int_equal(u64_at(o, "total"), 3);
	assert_int_equal(u64_at(o, "processes.0.pid"), 30);
	assert_int_equal(u64_at(o, "processes.1.pid"), 10); /* 10 and 10 */
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"top\",\"limit\":100000}");
	assert_int_equal(len_at(o, "processes"), 3);
	json_object_put(o);
}

/* ---- table ---- */

static void table_rows(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o, *row;

	feed_world(d);
	o = ask(d, "{\"cmd\":\"table\",\"name\":\"sockets\"}");
	assert_string_equal(str_at(o, "name"), "sockets");
	assert_int_equal(u64_at(o, "used"), 1);
	assert_int_equal(u64_at(o, "capacity"), 16384);
	assert_int_equal(len_at(o, "rows"), 1);
	row = at(o, "rows.0");
	assert_int_equal(u64_at(row, "pid"), 10);
	assert_int_equal(u64_at(row, "ino"), 1);
	assert_string_equal(str_at(row, "family"), "ipv4");
	assert_string_equal(str_at(row, "protocol"), "tcp");
	assert_string_equal(str_at(row, "local"), "10.1.2.3:40000");
	assert_string_equal(str_at(row, "remote"), "192.0.2.7:443");
	assert_false(bool_at(row, "closed"));
	assert_int_equal(u64_at(row, "in_bytes"), 1024);
	assert_int_equal(u64_at(row, "in_calls"), 4);
	assert_int_equal(u64_at(row, "in_errors"), 1);
	assert_int_equal(u64_at(row, "out_bytes"), 500);
	assert_int_equal(u64_at(row, "out_calls"), 4);
	assert_int_equal(u64_at(row, "out_errors"), 0);
	json_object_put(o);

	o = ask(d, "{\"cmd\":\"table\",\"name\":\"flows\"}");
	row = at(o, "rows.0");
	assert_string_equal(str_at(row, "local"), "10.1.2.3:40000");
	assert_string_equal(str_at(row, "remote"), "192.0.2.7:443");
	assert_int_equal(u64_at(row, "in_bytes"), 1024);
	assert_int_equal(u64_at(row, "out_bytes"), 500);
	json_object_put(o);

	o = ask(d, "{\"cmd\":\"table\",\"name\":\"files\"}");
	assert_int_equal(len_at(o, "rows"), 2);
	/* Newest first: 20's file was merged after 10's. */
	row = at(o, "rows.0");
	assert_int_equal(u64_at(row, "dev"), 8);
	assert_int_equal(u64_at(row, "ino"), 6);
	assert_string_equal(str_at(row, "path"), "/srv/big.iso");
	assert_false(bool_at(row, "path_truncated"));
	assert_int_equal(u64_at(row, "in_bytes"), 5000);
	assert_int_equal(u64_at(row, "out_bytes"), 4000);
	assert_null(at(o, "rows.1.path")); /* no open record seen */
	json_object_put(o);

	o = ask(d, "{\"cmd\":\"table\",\"name\":\"transfers\"}");
	assert_int_equal(len_at(o, "rows"), 2);
	/* Attribution runs after the counters merge: it is the newest. */
	row = at(o, "rows.0");
	assert_int_equal(u64_at(row, "pid"), 10);
	assert_true(bool_at(row, "attributed"));
	assert_int_equal(u64_at(row, "ino"), 5);
	assert_int_equal(u64_at(row, "sock_ino"), 1);
	assert_int_equal(u64_at(row, "bytes"), 100);
	assert_int_equal(u64_at(row, "calls"), 0);
	row = at(o, "rows.1");
	assert_int_equal(u64_at(row, "pid"), 20);
	assert_false(bool_at(row, "attributed"));
	assert_int_equal(u64_at(row, "dev"), 8);
	assert_int_equal(u64_at(row, "ino"), 6);
	assert_string_equal(str_at(row, "path"), "/srv/big.iso");
	assert_int_equal(u64_at(row, "sock_ino"), 77);
	assert_int_equal(u64_at(row, "bytes"), 3000);
	assert_int_equal(u64_at(row, "calls"), 2);
	json_object_put(o);
}

static void table_newest_first_and_limit(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	feed_exec(d, 1, "one", "/bin/one");
	feed_exec(d, 2, "two", "/bin/two");
	feed_exec(d, 3, "three", "/bin/three");
	feed_exec(d, 1, "one", "/bin/one"); /* used again: newest */
	o = ask(d, "{\"cmd\":\"table\",\"name\":\"processes\",\"limit\":2}");
	assert_int_equal(len_at(o, "rows"), 2);
	assert_int_equal(u64_at(o, "used"), 3);
	assert_int_equal(u64_at(o, "rows.0.pid"), 1);
	assert_int_equal(u64_at(o, "rows.1.pid"), 3);
	assert_string_equal(str_at(o, "rows.1.exe"), "/bin/three");
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"table\",\"name\":\"flows\"}");
	assert_int_equal(len_at(o, "rows"), 0);
	json_object_put(o);
}

/* ---- events ---- */

/* Log entries with chosen times, types, pids and names. */
static void log_at(struct ftagentd *d, uint64_t t, uint16_t type, uint32_t tgid,
		   uint32_t tid, const char *comm)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagent_rec_hdr h;
	size_t size;

	if (type == FTAGENT_REC_EXEC) {
		size = put_exec(buf, tgid, comm, "/bin/x");
	} else if (type == FTAGENT_REC_OPEN) {
		size = put_open(buf, tgid, 8, 1, "/etc/hosts");
	} else if (type == FTAGENT_REC_CONNECT) {
		size = put_connect(buf, tgid, 5);
	} else {
		struct ftagent_rec_exit x = {0};

		size = put_rec(buf, type, tgid, &x, sizeof(x), NULL, 0, NULL,
			       0);
	}
	memcpy(&h, buf, sizeof(h));
	h.pid = tid;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(ftd_eventlog_append(&d->col.log, buf, size, t, comm),
			 0);
}

static void five_events(struct ftagentd *d)
{
	log_at(d, 1000, FTAGENT_REC_EXIT, 1, 1, "a");
	log_at(d, 2000, FTAGENT_REC_EXEC, 2, 2, "b");
	log_at(d, 3000, FTAGENT_REC_OPEN, 2, 7, "b");
	log_at(d, 4000, FTAGENT_REC_CONNECT, 3, 3, "c");
	log_at(d, 5000, FTAGENT_REC_EXIT, 2, 2, "b");
}

/* The times of the events a request returns, as "t1 t2 ...". */
static void expect_times(struct ftagentd *d, const char *req, const char *want)
{
	struct json_object *o = ask(d, req), *ev;
	char got[256] = "";
	size_t i, n = len_at(o, "events");

	for (i = 0; i < n; i++) {
		ev = json_object_array_get_idx(at(o, "events"), i);
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%" PRIu64, i ? " " : "", u64_at(ev, "time_ns"));
	}
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", req, got, want);
	json_object_put(o);
}

static void events_filters(void **state)
{
	struct ftagentd *d = *state;

	five_events(d);
	expect_times(d, "{\"cmd\":\"events\"}", "1000 2000 3000 4000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"since_ns\":2000}",
		     "2000 3000 4000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"until_ns\":3999}",
		     "1000 2000 3000");
	expect_times(d,
		     "{\"cmd\":\"events\",\"since_ns\":2001,\"until_ns\":4000}",
		     "3000 4000");
	expect_times(d, "{\"cmd\":\"events\",\"types\":[\"exit\"]}",
		     "1000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"types\":[\"open\",\"connect\"]}",
		     "3000 4000");
	expect_times(d, "{\"cmd\":\"events\",\"types\":[\"fork\"]}", "");
	/* A pid matches the process or the thread. */
	expect_times(d, "{\"cmd\":\"events\",\"pid\":2}", "2000 3000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"pid\":7}", "3000");
	expect_times(d, "{\"cmd\":\"events\",\"comm\":\"c\"}", "4000");
	expect_times(d, "{\"cmd\":\"events\",\"comm\":\"zz\"}", "");
	expect_times(d,
		     "{\"cmd\":\"events\",\"comm\":\"b\",\"types\":[\"exit\","
		     "\"exec\"],\"since_ns\":2500}",
		     "5000");
	expect_times(d, "{\"cmd\":\"events\",\"limit\":2}", "4000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"pid\":2,\"limit\":1}", "5000");
}

static void events_more_and_fields(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	five_events(d);
	o = ask(d, "{\"cmd\":\"events\",\"limit\":4}");
	assert_true(bool_at(o, "more"));
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"events\",\"limit\":5}");
	assert_false(bool_at(o, "more"));
	assert_string_equal(str_at(o, "events.1.type"), "exec");
	assert_int_equal(u64_at(o, "events.1.pid"), 2);
	assert_string_equal(str_at(o, "events.1.comm"), "b");
	assert_string_equal(str_at(o, "events.1.exe"), "/bin/x");
	assert_string_equal(str_at(o, "events.1.argv.1"), "--flag");
	assert_int_equal(u64_at(o, "events.2.tid"), 7);
	assert_string_equal(str_at(o, "events.2.path"), "/etc/hosts");
	assert_string_equal(str_at(o, "events.3.remote"), "192.0.2.7:443");
	json_object_put(o);
}

/* "after": the entries past a cursor, oldest first, paged by limit. */
static void events_after_a_cursor(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	five_events(d);
	/* A plain request tells where the log ends. */
	o = ask(d, "{\"cmd\":\"events\",\"limit\":1}");
	assert_int_equal(u64_at(o, "cursor"), 5);
	json_object_put(o);
	expect_times(d, "{\"cmd\":\"events\",\"after\":0}",
		     "1000 2000 3000 4000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"after\":3}", "4000 5000");
	expect_times(d, "{\"cmd\":\"events\",\"after\":5}", "");
	/* The limit keeps the oldest: a follower pages without a gap. */
	expect_times(d, "{\"cmd\":\"events\",\"after\":0,\"limit\":2}",
		     "1000 2000");
	o = ask(d, "{\"cmd\":\"events\",\"after\":0,\"limit\":2}");
	assert_true(bool_at(o, "more"));
	assert_int_equal(u64_at(o, "cursor"), 2);
	assert_int_equal(u64_at(o, "skipped"), 0);
	json_object_put(o);
	/* Filters apply; the cursor passes entries that did not match. */
	o = ask(d, "{\"cmd\":\"events\",\"after\":1,\"types\":[\"exit\"]}");
	assert_int_equal(len_at(o, "events"), 1);
	assert_int_equal(u64_at(o, "events.0.time_ns"), 5000);
	assert_false(bool_at(o, "more"));
	assert_int_equal(u64_at(o, "cursor"), 5);
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"events\",\"after\":5,\"pid\":2}");
	assert_int_equal(u64_at(o, "cursor"), 5);
	json_object_put(o);
	/* A cursor past the end (another log): the client starts over. */
	o = ask(d, "{\"cmd\":\"events\",\"after\":99}");
	assert_int_equal(len_at(o, "events"), 0);
	assert_int_equal(u64_at(o, "cursor"), 5);
	json_object_put(o);
	expect_error(d, "{\"cmd\":\"events\",\"after\":-1}", "key 'after'");
	expect_error(d, "{\"cmd\":\"events\",\"after\":\"3\"}", "key 'after'");
}

/* Entries that aged out past a cursor are counted, not hidden. */
static void events_after_counts_what_aged_out(void **state)
{
	struct ftagentd *d = *state;
	struct json_object *o;

	five_events(d);
	/* Room for the last two of the five: positions 4 and 5 remain. */
	ftd_eventlog_set_limit(
		&d->col.log,
		ftd_event_cost(d->col.log.ring[3]->rec_size) +
			ftd_event_cost(d->col.log.ring[4]->rec_size));
	assert_int_equal(d->col.log.n, 2);
	o = ask(d, "{\"cmd\":\"events\",\"after\":1}");
	assert_int_equal(u64_at(o, "skipped"), 2);
	assert_int_equal(len_at(o, "events"), 2);
	assert_int_equal(u64_at(o, "events.0.time_ns"), 4000);
	assert_int_equal(u64_at(o, "cursor"), 5);
	json_object_put(o);
	o = ask(d, "{\"cmd\":\"events\",\"after\":3}");
	assert_int_equal(u64_at(o, "skipped"), 0);
	assert_int_equal(len_at(o, "events"), 2);
	json_object_put(o);
}

/* Every reply says its API version; "version" adds the daemon's. */
static void every_reply_carries_the_api_version(void **state)
{
	static const char *const reqs[] = {
		"{\"cmd\":\"stats\"}",
		"{\"cmd\":\"top\"}",
		"{\"cmd\":\"events\"}",
		"{\"cmd\":\"table\",\"name\":\"files\"}",
		"{\"cmd\":\"version\"}",
		"{\"cmd\":\"nope\"}",
		"not json",
	};
	struct ftagentd *d = *state;
	struct json_object *o;
	size_t i;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		o = ask_len(d, reqs[i], strlen(reqs[i]));
		assert_int_equal(u64_at(o, "api_version.major"),
				 FTAGENT_API_MAJOR);
		assert_int_equal(u64_at(o, "api_version.minor"),
				 FTAGENT_API_MINOR);
		/* What the client library checks, it finds. */
		assert_int_equal(ftagent_api_reply_major(o), FTAGENT_API_MAJOR);
		json_object_put(o);
	}
	o = ask(d, "{\"cmd\":\"version\"}");
	assert_true(bool_at(o, "ok"));
	assert_string_equal(str_at(o, "daemon_version"), FTAGENTD_VERSION);
	json_object_put(o);
	expect_error(d, "{\"cmd\":\"version\",\"x\":1}", "unknown key 'x'");
}

/* The client's reading of api_version: absent is 1.0, bad is refused. */
static void the_client_reads_the_major(void **state)
{
	static const struct {
		const char *reply;
		int major;
	} cases[] = {
		{"{\"ok\":true}", 1},
		{"{\"ok\":true,\"api_version\":{\"major\":1,\"minor\":9}}", 1},
		{"{\"ok\":true,\"api_version\":{\"major\":2,\"minor\":0}}", 2},
		{"{\"ok\":true,\"api_version\":\"1.1\"}", -1},
		{"{\"ok\":true,\"api_version\":{\"major\":-1}}", -1},
		{"{\"ok\":true,\"api_version\":{}}", -1},
	};
	struct json_object *o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = json_tokener_parse(cases[i].reply);
		assert_non_null(o);
		if (ftagent_api_reply_major(o) != cases[i].major)
			fail_msg("%s: major %d, want %d", cases[i].reply,
				 ftagent_api_reply_major(o), cases[i].major);
		json_object_put(o);
	}
}

/* Records through the collector keep the command name it knew. */
static void events_from_the_collector(void **state)
{
	struct ftagentd *d = *state;
	_Alignas(8) unsigned char buf[512];
	struct json_object *o;

	feed_exec(d, 10, "nginx", "/usr/sbin/nginx");
	feed(d, buf, put_connect(buf, 10, 1));
	o = ask(d, "{\"cmd\":\"events\",\"comm\":\"nginx\"}");
	assert_int_equal(len_at(o, "events"), 2);
	assert_string_equal(str_at(o, "events.0.type"), "exec");
	assert_string_equal(str_at(o, "events.1.type"), "connect");
	assert_string_equal(str_at(o, "events.1.comm"), "nginx");
	assert_true(u64_at(o, "events.1.time_ns") > 1600000000ull * 1000000000);
	json_object_put(o);
}

static void garbage_in_the_log_is_an_error_entry(void **state)
{
	struct ftagentd *d = *state;
	_Alignas(8) unsigned char junk[64];
	struct json_object *o;

	memset(junk, 0xa5, sizeof(junk));
	assert_int_equal(
		ftd_eventlog_append(&d->col.log, junk, sizeof(junk), 10, "z"),
		0);
	assert_int_equal(ftd_eventlog_append(&d->col.log, junk, 3, 11, "z"), 0);
	log_at(d, 12, FTAGENT_REC_EXEC, 2, 2, "b");
	o = ask(d, "{\"cmd\":\"events\"}");
	assert_int_equal(len_at(o, "events"), 3);
	assert_non_null(strstr(str_at(o, "events.0.error"), "undecodable"));
	assert_int_equal(u64_at(o, "events.0.time_ns"), 10);
	assert_non_null(strstr(str_at(o, "events.1.error"), "undecodable"));
	assert_string_equal(str_at(o, "events.2.type"), "exec");
	json_object_put(o);
}

/* ---- errors ---- */

static void refusals_name_the_problem(void **state)
{
	static const struct {
		const char *req, *want;
	} cases[] = {
		{"not json", "not valid JSON"},
		{"[1,2]", "must be a JSON object, not an array"},
		{"\"stats\"", "not a string"},
		{"42", "not an integer"},
		{"null", "not null"},
		{"true", "not a boolean"},
		{"{}", "missing key 'cmd'"},
		{"{\"cmd\":1}", "key 'cmd': must be a string, not an integer"},
		{"{\"cmd\":null}", "key 'cmd': must be a string, not null"},
		{"{\"cmd\":\"nope\"}", "unknown command 'nope'"},
		{"{\"cmd\":\"STATS\"}", "unknown command 'STATS'"},
		{"{\"cmd\":\"stats\",\"x\":1}",
		 "unknown key 'x' for cmd 'stats'"},
		{"{\"cmd\":\"top\",\"types\":[]}",
		 "unknown key 'types' for cmd 'top' (it takes: cmd, limit, "
		 "sort)"},
		{"{\"cmd\":\"top\",\"limit\":\"5\"}",
		 "key 'limit': must be an integer from 1 to 100000, not a "
		 "string"},
		{"{\"cmd\":\"top\",\"limit\":-1}", "key 'limit'"},
		{"{\"cmd\":\"top\",\"limit\":-1}", "(got -1)"},
		{"{\"cmd\":\"top\",\"limit\":0}", "(got 0)"},
		{"{\"cmd\":\"top\",\"limit\":100001}", "(got 100001)"},
		{"{\"cmd\":\"top\",\"limit\":99999999999999999999999}",
		 "key 'limit'"},
		{"{\"cmd\":\"top\",\"limit\":1.5}",
		 "key 'limit': must be an integer from 1 to 100000, not a "
		 "number with a fraction"},
		{"{\"cmd\":\"top\",\"limit\":1e3}", "key 'limit'"},
		{"{\"cmd\":\"top\",\"sort\":\"size\"}",
		 "key 'sort': must be one of bytes, net, file, calls (got "
		 "'size')"},
		{"{\"cmd\":\"top\",\"sort\":[]}", "key 'sort'"},
		{"{\"cmd\":\"events\",\"types\":[\"exec\",\"bogus\"]}",
		 "key 'types': unknown event type 'bogus'"},
		{"{\"cmd\":\"events\",\"types\":[\"gap\"]}",
		 "unknown event type 'gap'"},
		{"{\"cmd\":\"events\",\"types\":\"exec\"}",
		 "key 'types': must be an array"},
		{"{\"cmd\":\"events\",\"types\":[]}",
		 "key 'types': must not be empty"},
		{"{\"cmd\":\"events\",\"types\":[1]}",
		 "key 'types': item 0 must be a string"},
		{"{\"cmd\":\"events\",\"pid\":0}", "key 'pid'"},
		{"{\"cmd\":\"events\",\"pid\":4294967296}", "key 'pid'"},
		{"{\"cmd\":\"events\",\"pid\":\"1\"}", "key 'pid'"},
		{"{\"cmd\":\"events\",\"since_ns\":-5}", "key 'since_ns'"},
		{"{\"cmd\":\"events\",\"since_ns\":18446744073709551615}",
		 "key 'since_ns'"},
		{"{\"cmd\":\"events\",\"until_ns\":0}", "key 'until_ns'"},
		{"{\"cmd\":\"events\",\"since_ns\":10,\"until_ns\":5}",
		 "key 'until_ns': 5 is before since_ns 10"},
		{"{\"cmd\":\"events\",\"comm\":\"0123456789abcdef\"}",
		 "key 'comm': must be a command name of 1 to 15 bytes"},
		{"{\"cmd\":\"events\",\"comm\":\"\"}", "key 'comm'"},
		{"{\"cmd\":\"events\",\"comm\":\"a\\u0000b\"}", "key 'comm'"},
		{"{\"cmd\":\"events\",\"comm\":5}", "key 'comm'"},
		{"{\"cmd\":\"events\",\"limit\":100001}", "key 'limit'"},
		{"{\"cmd\":\"table\"}", "missing key 'name'"},
		{"{\"cmd\":\"table\",\"name\":\"procs\"}",
		 "key 'name': must be one of processes, sockets, flows, "
		 "files, transfers (got 'procs')"},
		{"{\"cmd\":\"table\",\"name\":\"files\",\"limit\":true}",
		 "key 'limit': must be an integer from 1 to 100000, not a "
		 "boolean"},
		{"{\"cmd\":\"table\",\"name\":\"files\",\"sort\":\"net\"}",
		 "unknown key 'sort' for cmd 'table'"},
		{"{\"cmd\":\"sta", "not complete JSON"},
		{"{\"cmd\":\"stats\"", "not complete JSON"},
		{"{\"cmd\":\"stats\",", "not complete JSON"},
		{"{\"cmd\":\"stats\"} {\"cmd\":\"stats\"}", "not valid JSON"},
		{"{\"cmd\":\"stats\"}x", "not valid JSON"},
		{"{\"cmd\":\"stats\",}", "not valid JSON"},
		{"{\"cmd\":\"st\xff\"}", "not valid JSON: invalid utf-8"},
		{"{\"cmd\":\"stats\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]"
		 "]]]]]]]]]]]]]]]]}",
		 "nesting too deep"},
		{"", "empty request"},
		{"\n", "empty request"},
		{" \t \r\n", "empty request"},
	};
	struct ftagentd *d = *state;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(d, cases[i].req, cases[i].want);
}

static void nul_bytes_and_size(void **state)
{
	static const char with_nul[] = "{\"cmd\":\"stats\"}\0{}";
	struct ftagentd *d = *state;
	size_t n = FTD_API_REQUEST_MAX + 1;
	char *big = malloc(n + 1);
	struct json_object *o;

	assert_non_null(big);
	expect_error_len(d, with_nul, sizeof(with_nul) - 1,
			 "NUL byte (at byte 15)");
	expect_error_len(d, "\0", 1, "NUL byte");
	/* 64 KiB of garbage, then one byte more than the limit. */
	memset(big, 'A', n);
	expect_error_len(d, big, FTD_API_REQUEST_MAX, "not valid JSON");
	expect_error_len(d, big, n, "the limit is 65536 bytes");
	/* A valid object as large as allowed is parsed, then judged. */
	memset(big, ' ', n);
	memcpy(big, "{\"cmd\":\"top\",\"x\":\"", 18);
	memcpy(big + FTD_API_REQUEST_MAX - 2, "\"}", 2);
	expect_error_len(d, big, FTD_API_REQUEST_MAX,
			 "unknown key 'x' for cmd 'top'");
	/* ... with its newline, which is the frame, not the request. */
	big[FTD_API_REQUEST_MAX] = '\n';
	expect_error_len(d, big, n, "unknown key 'x'");
	memcpy(big, "{\"cmd\":\"top\",\"limit\":5} ", 24);
	o = ask_len(d, big, 24);
	assert_true(bool_at(o, "ok"));
	json_object_put(o);
	o = ftd_api_reply(d, NULL, 0);
	assert_false(bool_at(o, "ok"));
	json_object_put(o);
	o = ftd_api_reply(d, NULL, 5);
	assert_false(bool_at(o, "ok"));
	json_object_put(o);
	free(big);
}

static void newlines_and_whitespace_are_fine(void **state)
{
	static const char *const ok[] = {
		"{\"cmd\":\"stats\"}\n",
		"{\"cmd\":\"stats\"}\r\n",
		"  {\"cmd\" : \"top\" , \"limit\" : 3}  \n",
		"{\"cmd\":\"events\",\"types\":[\"exec\",\"exec\"]}",
		"{\"cmd\":\"top\",\"limit\":5,\"limit\":6}",
	};
	struct ftagentd *d = *state;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		json_object_put(ask(d, ok[i]));
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Random bytes, and valid requests with random bytes changed, cut or
 * spliced: a reply every time, never a crash.
 */
static void fuzz_never_crashes(void **state)
{
	static const char *const seeds[] = {
		"{\"cmd\":\"stats\"}",
		"{\"cmd\":\"top\",\"limit\":3,\"sort\":\"calls\"}",
		"{\"cmd\":\"events\",\"since_ns\":1,\"until_ns\":99999,"
		"\"types\":[\"exec\",\"open\"],\"pid\":2,\"comm\":\"b\","
		"\"limit\":2}",
		"{\"cmd\":\"table\",\"name\":\"transfers\",\"limit\":1}",
		"{\"cmd\":\"table\",\"name\":\"sockets\"}",
	};
	static const char alphabet[] = "{}[]\",:0123456789-.eE \\u\n\t"
				       "cmdstatopeventlimi\xff\xc3\x80";
	struct ftagentd *d = *state;
	uint64_t x = 0x853c49e6748fea9bULL;
	char buf[512];
	size_t len, i, n_ok = 0;
	struct json_object *o;
	int iter;

	feed_world(d);
	five_events(d);
	for (iter = 0; iter < 30000; iter++) {
		const char *seed = seeds[rnd(&x) % 5];

		len = strlen(seed);
		memcpy(buf, seed, len);
		switch (rnd(&x) % 4) {
		case 0:
			len = rnd(&x) % sizeof(buf);
			for (i = 0; i < len; i++)
				buf[i] = (char)rnd(&x);
			break;
		case 1:
			for (i = 0; i < 1 + rnd(&x) % 3; i++)
				buf[rnd(&x) % len] =
					alphabet[rnd(&x) %
						 (sizeof(alphabet) - 1)];
			break;
		case 2: len = rnd(&x) % (len + 1); break;
		default:
			for (i = 0; i < 1 + rnd(&x) % 3; i++)
				buf[rnd(&x) % len] = (char)rnd(&x);
			break;
		}
		o = ask_len(d, buf, len);
		n_ok += json_object_get_boolean(at(o, "ok"));
		json_object_put(o);
	}
	/* Some mutations keep the request valid; most do not. */
	assert_true(n_ok > 0 && n_ok < 30000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(stats_of_an_empty_daemon, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stats_count_everything, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stats_evictions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(top_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(top_sorts_and_limits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(table_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(table_newest_first_and_limit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(events_filters, setup,
						teardown),
		cmocka_unit_test_setup_teardown(events_more_and_fields, setup,
						teardown),
		cmocka_unit_test_setup_teardown(events_after_a_cursor, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			events_after_counts_what_aged_out, setup, teardown),
		cmocka_unit_test_setup_teardown(
			every_reply_carries_the_api_version, setup, teardown),
		cmocka_unit_test(the_client_reads_the_major),
		cmocka_unit_test_setup_teardown(events_from_the_collector,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			garbage_in_the_log_is_an_error_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(refusals_name_the_problem,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nul_bytes_and_size, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			newlines_and_whitespace_are_fine, setup, teardown),
		cmocka_unit_test_setup_teardown(fuzz_never_crashes, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
