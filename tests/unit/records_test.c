// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the event record decoder and the per-CPU stream: records
 * built by hand as uapi/linux/ftagent.h lays them out (header, body,
 * strings, zero padding to 8 bytes), cut at every byte, corrupted field
 * by field, and random bytes that must never crash it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/lib/records.h"

#define HDR_SIZE  sizeof(struct ftagent_rec_hdr)
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* Record buffers: 8-byte aligned, as the stream hands them on. */
#define BUF(name, size) _Alignas(8) unsigned char name[size]

static size_t put_bytes(unsigned char *p, size_t off, const void *src, size_t n)
{
	if (n) /* memcpy() from NULL is undefined even for 0 bytes */
		memcpy(p + off, src, n);
	return off + n;
}

/*
 * Lay out one record: header, body, the strings in order, zeros to a
 * multiple of 8. Returns its size. The body's length fields are the
 * caller's, so a test can make them lie.
 */
static size_t put_rec(void *buf, uint16_t type, uint64_t seq, const void *body,
		      size_t body_size, const char *s0, size_t l0,
		      const char *s1, size_t l1)
{
	struct ftagent_rec_hdr h = {0};
	unsigned char *p = buf;
	size_t off = HDR_SIZE;

	off = put_bytes(p, off, body, body_size);
	off = put_bytes(p, off, s0, l0);
	off = put_bytes(p, off, s1, l1);
	memset(p + off, 0, ALIGN8(off) - off);

	h.type = type;
	h.size = ALIGN8(off);
	h.body_size = body_size;
	h.cpu = 3;
	h.seq = seq;
	h.time_ns = 1000000 + seq;
	h.tgid = 100;
	h.pid = 101;
	memcpy(p, &h, HDR_SIZE);
	return h.size;
}

static size_t put_gap(void *buf, uint64_t seq, uint64_t first_seq)
{
	struct ftagent_rec_gap g = {0};

	g.first_seq = first_seq;
	g.lost = seq - first_seq;
	g.lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL] = g.lost;
	return put_rec(buf, FTAGENT_REC_GAP, seq, &g, sizeof(g), NULL, 0, NULL,
		       0);
}

static size_t put_fork(void *buf, uint64_t seq, uint32_t child)
{
	struct ftagent_rec_fork f = {0};

	f.child_tgid = child;
	strcpy(f.comm, "bash");
	return put_rec(buf, FTAGENT_REC_FORK, seq, &f, sizeof(f), NULL, 0, NULL,
		       0);
}

static const char exe[] = "/usr/bin/env";
static const char argv[] = "env\0-i\0true"; /* as /proc/PID/cmdline */

static size_t put_exec(void *buf, uint64_t seq)
{
	struct ftagent_rec_exec e = {0};

	e.ppid = 1;
	e.uid = 1000;
	e.euid = 0;
	e.cgroup_id = 4242;
	e.argv_hash = 0x1234567890abcdefULL;
	e.argc = 3;
	e.argv_bytes = sizeof(argv);
	e.exe_len = strlen(exe);
	e.argv_len = sizeof(argv) - 1;
	strcpy(e.comm, "env");
	return put_rec(buf, FTAGENT_REC_EXEC, seq, &e, sizeof(e), exe,
		       e.exe_len, argv, e.argv_len);
}

static size_t put_exit(void *buf, uint64_t seq)
{
	struct ftagent_rec_exit x = {0};

	x.exit_code = 256;
	x.nr_threads = 4;
	x.rchar = 1 << 20;
	x.wchar = 12345;
	strcpy(x.comm, "sleep");
	return put_rec(buf, FTAGENT_REC_EXIT, seq, &x, sizeof(x), NULL, 0, NULL,
		       0);
}

static size_t put_sock(void *buf, uint16_t type, uint64_t seq)
{
	struct ftagent_rec_sock k = {0};

	k.sock_ino = 777;
	k.result = -115; /* -EINPROGRESS */
	k.family = 10;	 /* AF_INET6 */
	k.type = 1;
	k.protocol = 6;
	k.local_port = 40000;
	k.remote_port = 443;
	k.backlog = type == FTAGENT_REC_LISTEN ? 128 : 0;
	k.local_addr[15] = 1;
	k.remote_addr[0] = 0x20;
	return put_rec(buf, type, seq, &k, sizeof(k), NULL, 0, NULL, 0);
}

static const char path[] = "/etc/passwd";

static size_t put_open(void *buf, uint64_t seq)
{
	struct ftagent_rec_open o = {0};

	o.ino = 99;
	o.dev = 0x801;
	o.fd = 3;
	o.flags = 0x80000; /* O_CLOEXEC */
	o.mode = 0100644;
	o.path_len = strlen(path);
	return put_rec(buf, FTAGENT_REC_OPEN, seq, &o, sizeof(o), path,
		       o.path_len, NULL, 0);
}

/* Decode a whole record that must be valid and fill exactly @size. */
static struct ftagent_rec decode_ok(const void *buf, size_t size)
{
	struct ftagent_rec rec;
	const char *why = NULL;
	size_t used = 0;

	assert_int_equal(ftagent_rec_next(buf, size, &rec, &used, &why),
			 FTAGENT_REC_OK);
	assert_int_equal(used, size);
	assert_ptr_equal(rec.hdr, buf);
	assert_ptr_equal(rec.body, (const unsigned char *)buf + HDR_SIZE);
	return rec;
}

/* Decode, expect BAD, and check the reason names the right check. */
static void expect_bad(const void *buf, size_t len, const char *reason)
{
	struct ftagent_rec rec;
	const char *why = NULL;
	size_t used = 0;

	assert_int_equal(ftagent_rec_next(buf, len, &rec, &used, &why),
			 FTAGENT_REC_BAD);
	assert_non_null(why);
	assert_non_null(strstr(why, reason));
}

static void set_hdr_u16(void *buf, size_t off, uint16_t v)
{
	memcpy((unsigned char *)buf + off, &v, sizeof(v));
}

static void fork_decodes(void **state)
{
	BUF(buf, 256);
	size_t size = put_fork(buf, 7, 4321);
	struct ftagent_rec rec = decode_ok(buf, size);
	const struct ftagent_rec_fork *f = rec.body;

	(void)state;
	assert_int_equal(size, HDR_SIZE + sizeof(*f));
	assert_int_equal(rec.hdr->type, FTAGENT_REC_FORK);
	assert_int_equal(rec.hdr->seq, 7);
	assert_int_equal(rec.hdr->cpu, 3);
	assert_int_equal(rec.hdr->tgid, 100);
	assert_int_equal(rec.hdr->pid, 101);
	assert_int_equal(f->child_tgid, 4321);
	assert_string_equal(f->comm, "bash");
	assert_int_equal(rec.n_str, 0);
	assert_null(rec.str[0]);
}

static void exec_decodes_with_two_strings(void **state)
{
	BUF(buf, 512);
	size_t size = put_exec(buf, 8);
	struct ftagent_rec rec = decode_ok(buf, size);
	const struct ftagent_rec_exec *e = rec.body;

	(void)state;
	assert_int_equal(size, ALIGN8(HDR_SIZE + sizeof(*e) + strlen(exe) +
				      sizeof(argv) - 1));
	assert_int_equal(e->argc, 3);
	assert_int_equal(e->cgroup_id, 4242);
	assert_int_equal(e->argv_hash, 0x1234567890abcdefULL);
	assert_string_equal(e->comm, "env");
	assert_int_equal(rec.n_str, 2);
	assert_ptr_equal(rec.str[0],
			 (const char *)(rec.hdr + 1) + rec.hdr->body_size);
	assert_int_equal(rec.str_len[0], strlen(exe));
	assert_memory_equal(rec.str[0], exe, strlen(exe));
	assert_ptr_equal(rec.str[1], rec.str[0] + rec.str_len[0]);
	assert_int_equal(rec.str_len[1], sizeof(argv) - 1);
	assert_memory_equal(rec.str[1], argv, sizeof(argv) - 1);
}

static void exec_with_empty_strings_decodes(void **state)
{
	BUF(buf, 512);
	struct ftagent_rec_exec e = {0};
	size_t size = put_rec(buf, FTAGENT_REC_EXEC, 1, &e, sizeof(e), NULL, 0,
			      NULL, 0);
	struct ftagent_rec rec = decode_ok(buf, size);

	(void)state;
	assert_int_equal(rec.n_str, 2);
	assert_int_equal(rec.str_len[0], 0);
	assert_int_equal(rec.str_len[1], 0);
}

/* A newer minor ABI appends body fields: the strings move after them. */
static void longer_body_moves_strings(void **state)
{
	BUF(buf, 512);
	struct {
		struct ftagent_rec_open o;
		uint64_t newer_field;
	} body = {{0}, 0xfeedULL};
	size_t size;
	struct ftagent_rec rec;

	(void)state;
	body.o.path_len = strlen(path);
	size = put_rec(buf, FTAGENT_REC_OPEN, 2, &body, sizeof(body), path,
		       strlen(path), NULL, 0);
	rec = decode_ok(buf, size);
	assert_int_equal(rec.hdr->body_size, sizeof(body));
	assert_ptr_equal(rec.str[0],
			 (const unsigned char *)buf + HDR_SIZE + sizeof(body));
	assert_memory_equal(rec.str[0], path, strlen(path));
}

static void exit_decodes(void **state)
{
	BUF(buf, 256);
	size_t size = put_exit(buf, 9);
	struct ftagent_rec rec = decode_ok(buf, size);
	const struct ftagent_rec_exit *x = rec.body;

	(void)state;
	assert_int_equal(x->exit_code, 256);
	assert_int_equal(x->nr_threads, 4);
	assert_int_equal(x->rchar, 1 << 20);
	assert_int_equal(x->wchar, 12345);
	assert_string_equal(x->comm, "sleep");
	assert_int_equal(rec.n_str, 0);
}

static void socket_types_decode(void **state)
{
	BUF(buf, 256);
	uint16_t type;

	(void)state;
	for (type = FTAGENT_REC_CONNECT; type <= FTAGENT_REC_LISTEN; type++) {
		size_t size = put_sock(buf, type, type);
		struct ftagent_rec rec = decode_ok(buf, size);
		const struct ftagent_rec_sock *k = rec.body;

		assert_int_equal(rec.hdr->type, type);
		assert_int_equal(k->sock_ino, 777);
		assert_int_equal(k->result, -115);
		assert_int_equal(k->family, 10);
		assert_int_equal(k->local_port, 40000);
		assert_int_equal(k->remote_port, 443);
		assert_int_equal(k->backlog,
				 type == FTAGENT_REC_LISTEN ? 128 : 0);
		assert_int_equal(k->local_addr[15], 1);
		assert_int_equal(k->remote_addr[0], 0x20);
		assert_int_equal(rec.n_str, 0);
	}
}

static void open_decodes_with_path(void **state)
{
	BUF(buf, 256);
	size_t size = put_open(buf, 10);
	struct ftagent_rec rec = decode_ok(buf, size);
	const struct ftagent_rec_open *o = rec.body;

	(void)state;
	assert_int_equal(o->ino, 99);
	assert_int_equal(o->dev, 0x801);
	assert_int_equal(o->fd, 3);
	assert_int_equal(o->mode, 0100644);
	assert_int_equal(rec.n_str, 1);
	assert_int_equal(rec.str_len[0], strlen(path));
	assert_memory_equal(rec.str[0], path, strlen(path));
	assert_null(rec.str[1]);
}

static void gap_decodes(void **state)
{
	BUF(buf, 256);
	size_t size = put_gap(buf, 20, 15);
	struct ftagent_rec rec = decode_ok(buf, size);
	const struct ftagent_rec_gap *g = rec.body;

	(void)state;
	assert_int_equal(g->first_seq, 15);
	assert_int_equal(g->lost, 5);
	assert_int_equal(g->lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL], 5);
	assert_int_equal(rec.n_str, 0);
}

static size_t put_verdict(void *buf, uint64_t seq, const char *obj)
{
	struct ftagent_rec_verdict v = {0};

	v.rule = 2;
	v.op = FTAGENT_OP_OPEN;
	v.action = FTAGENT_ACTION_DENY;
	v.error = -1;
	v.path_len = (uint16_t)strlen(obj);
	strcpy(v.rule_name, "no-secrets");
	return put_rec(buf, FTAGENT_REC_VERDICT, seq, &v, sizeof(v), obj,
		       strlen(obj), NULL, 0);
}

/* A verdict needs its whole body; its path is the one string. */
static void verdict_has_a_body_and_a_path(void **state)
{
	unsigned char body[sizeof(struct ftagent_rec_verdict)] = {0};
	BUF(buf, 512);
	struct ftagent_rec rec;
	const char *why = NULL;
	size_t size, used;

	(void)state;
	size = put_verdict(buf, 1, "/etc/shadow");
	rec = decode_ok(buf, size);
	assert_int_equal(rec.n_str, 1);
	assert_int_equal(rec.str_len[0], 11);
	assert_memory_equal(rec.str[0], "/etc/shadow", 11);
	size = put_rec(buf, FTAGENT_REC_VERDICT, 1, body, sizeof(body) - 8,
		       NULL, 0, NULL, 0);
	assert_int_equal(ftagent_rec_next(buf, size, &rec, &used, &why),
			 FTAGENT_REC_BAD);
	assert_string_equal(why, "record body smaller than its type's struct");
}

static void names(void **state)
{
	static const char *const want[] = {
		"unknown", "gap",   "fork", "exec",   "exit", "connect",
		"accept",  "close", "bind", "listen", "open", "verdict",
	};
	unsigned int t;

	(void)state;
	for (t = 0; t < sizeof(want) / sizeof(want[0]); t++)
		assert_string_equal(ftagent_rec_type_name(t), want[t]);
	assert_string_equal(ftagent_rec_type_name(__FTAGENT_REC_MAX),
			    "unknown");
	assert_string_equal(ftagent_rec_type_name(~0U), "unknown");
	assert_string_equal(
		ftagent_event_loss_name(FTAGENT_EV_LOSS_BUFFER_FULL),
		"buffer_full");
	assert_string_equal(ftagent_event_loss_name(FTAGENT_EV_LOSS_TOO_BIG),
			    "too_big");
	assert_string_equal(ftagent_event_loss_name(FTAGENT_EV_LOSS_RECURSION),
			    "recursion");
	assert_string_equal(ftagent_event_loss_name(FTAGENT_EV_LOSS_NMI),
			    "nmi");
	assert_string_equal(ftagent_event_loss_name(FTAGENT_EV_LOSS_NO_BUFFER),
			    "no_buffer");
	assert_string_equal(ftagent_event_loss_name(__FTAGENT_EV_LOSS_MAX),
			    "unknown");
}

/* Every window shorter than the record, the header included, waits. */
static void truncated_window_needs_more(void **state)
{
	BUF(buf, 512);
	size_t size = put_exec(buf, 1), len, used;
	struct ftagent_rec rec;
	const char *why;

	(void)state;
	for (len = 0; len < size; len++)
		assert_int_equal(ftagent_rec_next(buf, len, &rec, &used, &why),
				 FTAGENT_REC_NEED_MORE);
}

/* The largest valid size is not an error, only a long wait. */
static void largest_record_needs_more(void **state)
{
	BUF(buf, 256);
	struct ftagent_rec rec;
	const char *why;
	size_t used;

	(void)state;
	put_rec(buf, 200, 1, NULL, 0, NULL, 0, NULL, 0); /* a newer type */
	set_hdr_u16(buf, offsetof(struct ftagent_rec_hdr, size),
		    FTAGENT_REC_SIZE_MAX);
	assert_int_equal(ftagent_rec_next(buf, 256, &rec, &used, &why),
			 FTAGENT_REC_NEED_MORE);
}

/*
 * What the header alone shows is BAD at once, even in a window holding
 * only the header: waiting for the rest would stall the stream.
 */
static void bad_header_sizes(void **state)
{
	static const struct {
		uint16_t size, body_size;
		const char *reason;
	} cases[] = {
		{0xffff, 24, "above FTAGENT_REC_SIZE_MAX"},
		{68, 24, "not a multiple"},
		{60, 24, "not a multiple"},
		{56, 24, "smaller than its header and body"},
		{32, 0, "smaller than its header and body"},
		{0, 0, "smaller than its header and body"},
		{48, 8, "smaller than its type"},
	};
	BUF(buf, 256);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_fork(buf, 1, 2);
		set_hdr_u16(buf, offsetof(struct ftagent_rec_hdr, size),
			    cases[i].size);
		set_hdr_u16(buf, offsetof(struct ftagent_rec_hdr, body_size),
			    cases[i].body_size);
		expect_bad(buf, HDR_SIZE, cases[i].reason);
		expect_bad(buf, sizeof(buf), cases[i].reason);
	}
}

static void type_zero_is_bad(void **state)
{
	BUF(buf, 256);
	size_t size = put_fork(buf, 1, 2);

	(void)state;
	set_hdr_u16(buf, offsetof(struct ftagent_rec_hdr, type),
		    FTAGENT_REC_UNSPEC);
	expect_bad(buf, HDR_SIZE, "type 0");
	expect_bad(buf, size, "type 0");
}

static void every_type_needs_its_body(void **state)
{
	static const uint16_t types[] = {
		FTAGENT_REC_GAP,   FTAGENT_REC_FORK,	FTAGENT_REC_EXEC,
		FTAGENT_REC_EXIT,  FTAGENT_REC_CONNECT, FTAGENT_REC_ACCEPT,
		FTAGENT_REC_CLOSE, FTAGENT_REC_BIND,	FTAGENT_REC_LISTEN,
		FTAGENT_REC_OPEN,
	};
	unsigned char body[256] = {0};
	BUF(buf, 512);
	size_t i, size;

	(void)state;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		/* One byte short of the smallest body each type has. */
		size = put_rec(buf, types[i], 1, body, 23, NULL, 0, NULL, 0);
		expect_bad(buf, size, "smaller than its type");
	}
}

static void strings_overrunning_are_bad(void **state)
{
	BUF(buf, 512);
	size_t size;

	(void)state;
	/* The path claims 8 bytes more than the record holds. */
	size = put_open(buf, 1);
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_open, path_len),
		    size - HDR_SIZE - sizeof(struct ftagent_rec_open) + 1);
	expect_bad(buf, size, "strings overrun");
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_open, path_len),
		    0xffff);
	expect_bad(buf, size, "strings overrun");

	/* Each exec string fits alone; together they do not. */
	size = put_exec(buf, 1);
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_exec, argv_len),
		    size - HDR_SIZE - sizeof(struct ftagent_rec_exec));
	expect_bad(buf, size, "strings overrun");
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_exec, argv_len),
		    0);
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_exec, exe_len),
		    0xffff);
	expect_bad(buf, size, "strings overrun");
}

/* Padding may be used by the strings, to the last byte, but no further. */
static void strings_may_fill_the_padding(void **state)
{
	BUF(buf, 512);
	size_t size = put_open(buf, 1);
	struct ftagent_rec rec;

	(void)state;
	set_hdr_u16(buf, HDR_SIZE + offsetof(struct ftagent_rec_open, path_len),
		    size - HDR_SIZE - sizeof(struct ftagent_rec_open));
	rec = decode_ok(buf, size);
	assert_int_equal(rec.str_len[0] + HDR_SIZE + rec.hdr->body_size, size);
}

static void inconsistent_gap_is_bad(void **state)
{
	BUF(buf, 256);
	struct ftagent_rec_gap *g = (void *)(buf + HDR_SIZE);
	size_t size = put_gap(buf, 20, 15);

	(void)state;
	g->lost = 4;
	expect_bad(buf, size, "GAP");
	g->first_seq = 21; /* after the record it precedes */
	g->lost = (uint64_t)20 - 21;
	expect_bad(buf, size, "GAP");
}

/* What the stream passes on, for comparison between ways of feeding. */
struct seen {
	unsigned char bytes[4096];
	size_t len;
	unsigned int n;
	int stop_at; /* return 7 on this record (1-based); 0: never */
};

static int collect(const struct ftagent_rec *rec, void *arg)
{
	struct seen *seen = arg;
	const unsigned char *start = (const void *)rec->hdr;
	int i;

	/* The callback may dereference: the record must be aligned. */
	assert_int_equal((uintptr_t)rec->hdr % FTAGENT_REC_ALIGN, 0);
	for (i = 0; i < rec->n_str; i++) {
		assert_true((const unsigned char *)rec->str[i] >= start);
		assert_true((const unsigned char *)rec->str[i] +
				    rec->str_len[i] <=
			    start + rec->hdr->size);
	}
	assert_true(seen->len + rec->hdr->size <= sizeof(seen->bytes));
	memcpy(seen->bytes + seen->len, rec->hdr, rec->hdr->size);
	seen->len += rec->hdr->size;
	seen->n++;
	return seen->n == (unsigned int)seen->stop_at ? 7 : 0;
}

/* A stream of every type, numbered 0.., with a GAP for 3 lost records. */
static size_t put_stream(unsigned char *buf, unsigned int *n)
{
	size_t len = 0;
	uint16_t t;

	len += put_fork(buf + len, 0, 500);
	len += put_exec(buf + len, 1);
	len += put_open(buf + len, 2);
	len += put_gap(buf + len, 6, 3);
	len += put_exit(buf + len, 6);
	for (t = FTAGENT_REC_CONNECT; t <= FTAGENT_REC_LISTEN; t++)
		len += put_sock(buf + len, t, 7 + t - FTAGENT_REC_CONNECT);
	len += put_verdict(buf + len, 12, "abc");
	*n = 11;
	return len;
}

static void check_stream_counts(const struct ftagent_rec_stream *s)
{
	assert_int_equal(s->records, 10);
	assert_int_equal(s->gaps, 1);
	assert_int_equal(s->gap_lost, 3);
	assert_int_equal(s->seq_jumps, 3);
	assert_int_equal(s->unexplained, 0);
	assert_int_equal(s->next_seq, 13);
	assert_int_equal(s->carry_len, 0);
	assert_false(s->bad);
}

/* Feed @len bytes in pieces ending at each of @cuts, then the rest. */
static void feed_cut(struct ftagent_rec_stream *s, const unsigned char *buf,
		     size_t len, const size_t *cuts, int n_cuts,
		     struct seen *seen)
{
	const char *why = NULL;
	size_t from = 0;
	int i;

	for (i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : len;

		assert_int_equal(ftagent_rec_stream_feed(s, buf + from,
							 to - from, collect,
							 seen, &why),
				 0);
		from = to;
	}
}

static struct ftagent_rec_stream stream; /* too big for the stack */

/*
 * Cut anywhere, and at odd addresses, the stream passes on the same
 * records, byte for byte, aligned, with the same counts.
 */
static void split_at_every_byte_decodes_the_same(void **state)
{
	static BUF(buf, 4096 + 8);
	static struct seen seen;
	unsigned int n;
	size_t len = put_stream(buf, &n), cut, cuts[2];

	(void)state;
	for (cut = 0; cut <= len; cut++) {
		memset(&seen, 0, sizeof(seen));
		ftagent_rec_stream_init(&stream);
		feed_cut(&stream, buf, len, &cut, 1, &seen);
		assert_int_equal(seen.n, n);
		assert_int_equal(seen.len, len);
		assert_memory_equal(seen.bytes, buf, len);
		check_stream_counts(&stream);
	}
	/* Three pieces: a record can be cut twice, inside its header too. */
	for (cuts[0] = 0; cuts[0] <= 200; cuts[0] += 3) {
		for (cuts[1] = cuts[0]; cuts[1] <= len; cuts[1] += 5) {
			memset(&seen, 0, sizeof(seen));
			ftagent_rec_stream_init(&stream);
			feed_cut(&stream, buf, len, cuts, 2, &seen);
			assert_int_equal(seen.n, n);
			assert_memory_equal(seen.bytes, buf, len);
			check_stream_counts(&stream);
		}
	}
}

static void byte_at_a_time_from_odd_address(void **state)
{
	static BUF(buf, 4096 + 8);
	static struct seen seen;
	const char *why = NULL;
	unsigned int n;
	size_t len, i;

	(void)state;
	len = put_stream(buf + 8, &n);
	memmove(buf + 1, buf + 8, len); /* the whole stream at an odd address */
	memset(&seen, 0, sizeof(seen));
	ftagent_rec_stream_init(&stream);
	for (i = 0; i < len; i++)
		assert_int_equal(ftagent_rec_stream_feed(&stream, buf + 1 + i,
							 1, collect, &seen,
							 &why),
				 0);
	assert_int_equal(seen.n, n);
	assert_memory_equal(seen.bytes, buf + 1, len);
	check_stream_counts(&stream);

	memset(&seen, 0, sizeof(seen));
	ftagent_rec_stream_init(&stream);
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf + 1, len, collect,
						 &seen, &why),
			 0);
	assert_int_equal(seen.n, n);
	check_stream_counts(&stream);
}

static void unknown_type_is_skipped(void **state)
{
	static BUF(buf, 1024);
	static struct seen seen;
	unsigned char body[40] = {0xaa};
	const struct ftagent_rec_hdr *h;
	const char *why = NULL;
	size_t len = 0, unknown_at;

	(void)state;
	len += put_fork(buf + len, 0, 2);
	unknown_at = len;
	/* A future type: a body, then bytes it may call strings. */
	len += put_rec(buf + len, 200, 1, body, 16, "future", 6, NULL, 0);
	len += put_open(buf + len, 2);
	memset(&seen, 0, sizeof(seen));
	ftagent_rec_stream_init(&stream);
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf, len, collect,
						 &seen, &why),
			 0);
	assert_int_equal(seen.n, 3);
	assert_memory_equal(seen.bytes, buf, len);
	h = (const void *)(seen.bytes + unknown_at);
	assert_int_equal(h->type, 200);
	assert_string_equal(ftagent_rec_type_name(h->type), "unknown");
	assert_int_equal(stream.records, 3);
	assert_int_equal(stream.seq_jumps, 0);
	assert_int_equal(stream.next_seq, 3);
}

static void unknown_type_has_no_strings(void **state)
{
	BUF(buf, 256);
	size_t size = put_rec(buf, 77, 1, "12345678", 8, "xyz", 3, NULL, 0);
	struct ftagent_rec rec = decode_ok(buf, size);

	(void)state;
	assert_int_equal(rec.n_str, 0);
}

/* Feed one record built by @put into the test's stream. */
static void feed_one(unsigned char *buf, size_t size)
{
	const char *why = NULL;

	assert_int_equal(
		ftagent_rec_stream_feed(&stream, buf, size, NULL, NULL, &why),
		0);
}

static void gap_explains_the_jump(void **state)
{
	BUF(buf, 512);

	(void)state;
	ftagent_rec_stream_init(&stream);
	feed_one(buf, put_fork(buf, 0, 2));
	feed_one(buf, put_fork(buf, 1, 2));
	feed_one(buf, put_gap(buf, 5, 2));
	assert_int_equal(stream.gaps, 1);
	assert_int_equal(stream.gap_lost, 3);
	assert_int_equal(stream.next_seq, 2); /* not moved by the GAP */
	feed_one(buf, put_fork(buf, 5, 2));
	assert_int_equal(stream.records, 3);
	assert_int_equal(stream.seq_jumps, 3);
	assert_int_equal(stream.unexplained, 0);
	assert_int_equal(stream.next_seq, 6);
}

static void jump_without_gap_is_unexplained(void **state)
{
	BUF(buf, 512);

	(void)state;
	ftagent_rec_stream_init(&stream);
	feed_one(buf, put_fork(buf, 10, 2)); /* the first sets the numbering */
	assert_int_equal(stream.seq_jumps, 0);
	feed_one(buf, put_fork(buf, 13, 2));
	assert_int_equal(stream.seq_jumps, 2);
	assert_int_equal(stream.unexplained, 2);
	assert_int_equal(stream.gaps, 0);
	assert_int_equal(stream.records, 2);
	/* A number seen again: nothing missing, still counted. */
	feed_one(buf, put_fork(buf, 13, 2));
	assert_int_equal(stream.seq_jumps, 2);
	assert_int_equal(stream.unexplained, 3);
}

static void gap_that_does_not_fit_is_unexplained(void **state)
{
	BUF(buf, 512);

	(void)state;
	/* The GAP starts after the gap in the numbering. */
	ftagent_rec_stream_init(&stream);
	feed_one(buf, put_fork(buf, 0, 2));
	feed_one(buf, put_gap(buf, 5, 3));
	feed_one(buf, put_fork(buf, 5, 2));
	assert_int_equal(stream.seq_jumps, 4);
	assert_int_equal(stream.gap_lost, 2);
	assert_int_equal(stream.unexplained, 4);

	/* The GAP is followed by a record other than the one it precedes. */
	ftagent_rec_stream_init(&stream);
	feed_one(buf, put_fork(buf, 0, 2));
	feed_one(buf, put_gap(buf, 5, 1));
	feed_one(buf, put_fork(buf, 7, 2));
	assert_int_equal(stream.seq_jumps, 6);
	assert_int_equal(stream.gap_lost, 4);
	assert_int_equal(stream.unexplained, 6);

	/* A GAP explains only the record right after it. */
	feed_one(buf, put_fork(buf, 9, 2));
	assert_int_equal(stream.unexplained, 7);
}

static void gap_first_on_stream(void **state)
{
	BUF(buf, 512);

	(void)state;
	ftagent_rec_stream_init(&stream);
	feed_one(buf, put_gap(buf, 104, 100));
	assert_true(stream.have_seq);
	feed_one(buf, put_exit(buf, 104));
	assert_int_equal(stream.gaps, 1);
	assert_int_equal(stream.gap_lost, 4);
	assert_int_equal(stream.seq_jumps, 4);
	assert_int_equal(stream.unexplained, 0);
	assert_int_equal(stream.records, 1);
	assert_int_equal(stream.next_seq, 105);
}

static void bad_stream_stays_bad(void **state)
{
	BUF(buf, 512);
	const char *why = NULL;
	size_t size;

	(void)state;
	ftagent_rec_stream_init(&stream);
	size = put_fork(buf, 0, 2);
	size += put_fork(buf + size, 1, 2);
	set_hdr_u16(buf + size / 2, offsetof(struct ftagent_rec_hdr, type), 0);
	/* The bad header arrives in a later feed than the good record. */
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf, size / 2 + 3,
						 NULL, NULL, &why),
			 0);
	assert_int_equal(stream.records, 1);
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf + size / 2 + 3,
						 size - size / 2 - 3, NULL,
						 NULL, &why),
			 -1);
	assert_non_null(strstr(why, "type 0"));
	assert_true(stream.bad);
	why = NULL;
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf, size / 2, NULL,
						 NULL, &why),
			 -1);
	assert_non_null(why);
	assert_int_equal(stream.records, 1);
}

/*
 * A callback's stop is returned; what followed in those bytes is dropped
 * but framed, so the next feed decodes, and the drop shows as a jump.
 */
static void callback_stop_keeps_framing(void **state)
{
	static BUF(buf, 4096);
	static struct seen seen;
	const char *why = NULL;
	unsigned int n;
	size_t len = put_stream(buf, &n);

	(void)state;
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = 2;
	ftagent_rec_stream_init(&stream);
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf, len - 20,
						 collect, &seen, &why),
			 7);
	assert_int_equal(seen.n, 2);
	assert_int_equal(stream.records, 2);
	assert_int_not_equal(stream.carry_len, 0);
	seen.stop_at = 0;
	assert_int_equal(ftagent_rec_stream_feed(&stream, buf + len - 20, 20,
						 collect, &seen, &why),
			 0);
	assert_int_equal(seen.n, 3);
	assert_int_equal(stream.records, 3);
	assert_int_equal(stream.next_seq, 13);
	assert_int_equal(stream.seq_jumps, 10);
	assert_int_equal(stream.unexplained, 10);
}

/* xorshift64: the same bytes on every libc. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void check_any_window(const unsigned char *buf, size_t len)
{
	enum ftagent_rec_status st;
	struct ftagent_rec rec;
	const char *why = NULL;
	size_t used = 0;

	st = ftagent_rec_next(buf, len, &rec, &used, &why);
	if (st == FTAGENT_REC_BAD)
		assert_non_null(why);
	if (st != FTAGENT_REC_OK)
		return;
	assert_true(used >= HDR_SIZE && used <= len);
	assert_int_equal(used % FTAGENT_REC_ALIGN, 0);
	assert_true(rec.n_str >= 0 && rec.n_str <= 2);
	if (rec.n_str)
		assert_true((const unsigned char *)rec.str[rec.n_str - 1] +
				    rec.str_len[rec.n_str - 1] <=
			    buf + used);
}

/*
 * Random bytes, and random bytes under a plausible header so the checks
 * past the header run too: never a crash, and the stream ends BAD or
 * waiting for more (or, rarely, on a record boundary).
 */
static void garbage_never_crashes(void **state)
{
	static BUF(buf, 4096);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	const char *why;
	size_t i, off, chunk;
	int iter, rc, oks = 0;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		for (i = 0; i < sizeof(buf); i += 8) {
			uint64_t v = rnd(&x);

			memcpy(buf + i, &v, 8);
		}
		if (iter % 2) {
			set_hdr_u16(buf, 0, rnd(&x) % (__FTAGENT_REC_MAX + 2));
			set_hdr_u16(buf, 2, (rnd(&x) % 64) * 8);
			set_hdr_u16(buf, 4, rnd(&x) % 400);
		}
		for (i = 0; i < 64; i++)
			check_any_window(buf, rnd(&x) % (sizeof(buf) + 1));

		ftagent_rec_stream_init(&stream);
		why = NULL;
		rc = 0;
		for (off = 0; off < sizeof(buf) && rc == 0; off += chunk) {
			chunk = 1 + rnd(&x) % 700;
			if (chunk > sizeof(buf) - off)
				chunk = sizeof(buf) - off;
			rc = ftagent_rec_stream_feed(&stream, buf + off, chunk,
						     NULL, NULL, &why);
		}
		assert_true(rc == 0 || rc == -1);
		if (rc == -1)
			assert_non_null(why);
		else
			oks++;
		assert_true(stream.carry_len <= FTAGENT_REC_SIZE_MAX);
	}
	/* Random bytes do not look like records for long. */
	assert_true(oks < 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_decodes),
		cmocka_unit_test(exec_decodes_with_two_strings),
		cmocka_unit_test(exec_with_empty_strings_decodes),
		cmocka_unit_test(longer_body_moves_strings),
		cmocka_unit_test(exit_decodes),
		cmocka_unit_test(socket_types_decode),
		cmocka_unit_test(open_decodes_with_path),
		cmocka_unit_test(gap_decodes),
		cmocka_unit_test(verdict_has_a_body_and_a_path),
		cmocka_unit_test(names),
		cmocka_unit_test(truncated_window_needs_more),
		cmocka_unit_test(largest_record_needs_more),
		cmocka_unit_test(bad_header_sizes),
		cmocka_unit_test(type_zero_is_bad),
		cmocka_unit_test(every_type_needs_its_body),
		cmocka_unit_test(strings_overrunning_are_bad),
		cmocka_unit_test(strings_may_fill_the_padding),
		cmocka_unit_test(inconsistent_gap_is_bad),
		cmocka_unit_test(split_at_every_byte_decodes_the_same),
		cmocka_unit_test(byte_at_a_time_from_odd_address),
		cmocka_unit_test(unknown_type_is_skipped),
		cmocka_unit_test(unknown_type_has_no_strings),
		cmocka_unit_test(gap_explains_the_jump),
		cmocka_unit_test(jump_without_gap_is_unexplained),
		cmocka_unit_test(gap_that_does_not_fit_is_unexplained),
		cmocka_unit_test(gap_first_on_stream),
		cmocka_unit_test(bad_stream_stays_bad),
		cmocka_unit_test(callback_stop_keeps_framing),
		cmocka_unit_test(garbage_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
