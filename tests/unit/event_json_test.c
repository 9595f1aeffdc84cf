// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for event log entries as JSON (daemon/event_json.c): every
 * record type with exact fields, strings that are not UTF-8, and entries
 * whose bytes are damaged or random, which must render as error entries.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "../../daemon/event_json.h"

#define HDR_SIZE  sizeof(struct ftagent_rec_hdr)
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* An event log entry holding @size bytes of record. */
static struct ftd_event *entry(const void *rec, size_t size)
{
	struct ftd_event *ev = calloc(1, sizeof(*ev) + size + 8);

	assert_non_null(ev);
	ev->realtime_ns = 1700000000123456789ULL;
	strcpy(ev->comm, "worker");
	ev->rec_size = size;
	if (size)
		memcpy(ev->rec, rec, size);
	return ev;
}

/*
 * Lay out one record in @buf: header, body, strings, zeros to a multiple
 * of 8. Returns its size.
 */
static size_t put_rec(unsigned char *buf, uint16_t type, uint16_t flags,
		      const void *body, size_t body_size, const char *s0,
		      size_t l0, const char *s1, size_t l1)
{
	struct ftagent_rec_hdr h = {0};
	size_t off = HDR_SIZE;

	memcpy(buf + off, body, body_size);
	off += body_size;
	if (l0)
		memcpy(buf + off, s0, l0);
	off += l0;
	if (l1)
		memcpy(buf + off, s1, l1);
	off += l1;
	memset(buf + off, 0, ALIGN8(off) - off);
	h.type = type;
	h.size = (uint16_t)ALIGN8(off);
	h.body_size = (uint16_t)body_size;
	h.flags = flags;
	h.cpu = 2;
	h.seq = 41;
	h.time_ns = 5000;
	h.tgid = 300;
	h.pid = 301;
	memcpy(buf, &h, HDR_SIZE);
	return h.size;
}

/* Render @buf as an entry; the JSON must survive a round trip. */
static struct json_object *render(const unsigned char *buf, size_t size)
{
	struct ftd_event *ev = entry(buf, size);
	struct json_object *o = ftd_event_json(ev), *back;
	const char *text;

	free(ev);
	assert_non_null(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	back = json_tokener_parse(text);
	assert_non_null(back);
	assert_true(json_object_equal(o, back));
	json_object_put(back);
	return o;
}

static struct json_object *field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key '%s' in %s", key,
			 json_object_to_json_string(o));
	return v;
}

static uint64_t u64_of(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	assert_int_equal(json_object_get_type(v), json_type_int);
	return json_object_get_uint64(v);
}

static int64_t i64_of(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	assert_int_equal(json_object_get_type(v), json_type_int);
	return json_object_get_int64(v);
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	assert_int_equal(json_object_get_type(v), json_type_string);
	return json_object_get_string(v);
}

static int bool_of(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	assert_int_equal(json_object_get_type(v), json_type_boolean);
	return json_object_get_boolean(v);
}

static void assert_null_field(struct json_object *o, const char *key)
{
	assert_null(field(o, key));
}

static void assert_common(struct json_object *o, const char *type)
{
	assert_int_equal(u64_of(o, "time_ns"), 1700000000123456789ULL);
	assert_string_equal(str_of(o, "type"), type);
	assert_int_equal(u64_of(o, "cpu"), 2);
	assert_int_equal(u64_of(o, "seq"), 41);
	assert_int_equal(u64_of(o, "pid"), 300);
	assert_int_equal(u64_of(o, "tid"), 301);
	assert_string_equal(str_of(o, "comm"), "worker");
	assert_false(json_object_object_get_ex(o, "error", NULL));
}

static void fork_has_child(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct ftagent_rec_fork f = {.child_tgid = 4321};
	struct json_object *o;

	(void)state;
	strcpy(f.comm, "bash");
	o = render(buf, put_rec(buf, FTAGENT_REC_FORK, 0, &f, sizeof(f), NULL,
				0, NULL, 0));
	assert_common(o, "fork");
	assert_int_equal(u64_of(o, "child_pid"), 4321);
	json_object_put(o);
}

static const char exe[] = "/usr/bin/env";
static const char args[] = "env\0-i\0\0true"; /* an empty argument too */

static size_t put_exec(unsigned char *buf, uint16_t flags, size_t argv_len)
{
	struct ftagent_rec_exec e = {0};

	e.ppid = 1;
	e.uid = 1000;
	e.gid = 1001;
	e.euid = 0;
	e.cgroup_id = 4242;
	e.argv_hash = 0x00ab567890abcdefULL;
	e.argc = 4;
	e.argv_bytes = sizeof(args);
	e.exe_len = strlen(exe);
	e.argv_len = (uint16_t)argv_len;
	strcpy(e.comm, "env");
	return put_rec(buf, FTAGENT_REC_EXEC, flags, &e, sizeof(e), exe,
		       e.exe_len, args, argv_len);
}

static void exec_has_every_field(void **state)
{
	_Alignas(8) unsigned char buf[512];
	struct json_object *o, *argv;

	(void)state;
	/* The whole area, final NUL included: it ends the last argument. */
	o = render(buf, put_exec(buf, 0, sizeof(args)));
	assert_common(o, "exec");
	assert_int_equal(u64_of(o, "ppid"), 1);
	assert_int_equal(u64_of(o, "uid"), 1000);
	assert_int_equal(u64_of(o, "gid"), 1001);
	assert_int_equal(u64_of(o, "euid"), 0);
	assert_int_equal(u64_of(o, "cgroup_id"), 4242);
	assert_int_equal(u64_of(o, "argc"), 4);
	assert_int_equal(u64_of(o, "argv_bytes"), sizeof(args));
	assert_string_equal(str_of(o, "exe"), exe);
	assert_string_equal(str_of(o, "argv_hash"), "00ab567890abcdef");
	argv = field(o, "argv");
	assert_int_equal(json_object_array_length(argv), 4);
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(argv, 0)),
		"env");
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(argv, 1)),
		"-i");
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(argv, 2)), "");
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(argv, 3)),
		"true");
	assert_false(bool_of(o, "exe_truncated"));
	assert_false(bool_of(o, "argv_truncated"));
	assert_false(bool_of(o, "exe_unreadable"));
	assert_false(bool_of(o, "argv_unreadable"));
	assert_false(bool_of(o, "argv_hash_partial"));
	json_object_put(o);
}

static void exec_cut_and_unreadable(void **state)
{
	_Alignas(8) unsigned char buf[512];
	struct json_object *o, *argv;

	(void)state;
	/* Cut inside "-i": the last argument is what was kept. */
	o = render(buf, put_exec(buf,
				 FTAGENT_REC_F_STR1_TRUNCATED |
					 FTAGENT_REC_F_HASH_PARTIAL,
				 5));
	argv = field(o, "argv");
	assert_int_equal(json_object_array_length(argv), 2);
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(argv, 1)),
		"-");
	assert_true(bool_of(o, "argv_truncated"));
	assert_true(bool_of(o, "argv_hash_partial"));
	assert_false(bool_of(o, "exe_truncated"));
	json_object_put(o);

	o = render(buf, put_exec(buf,
				 FTAGENT_REC_F_STR0_UNREADABLE |
					 FTAGENT_REC_F_STR1_UNREADABLE,
				 0));
	assert_null_field(o, "exe");
	assert_int_equal(json_object_array_length(field(o, "argv")), 0);
	assert_true(bool_of(o, "exe_unreadable"));
	assert_true(bool_of(o, "argv_unreadable"));
	json_object_put(o);
}

static size_t put_exit(unsigned char *buf, int32_t code)
{
	struct ftagent_rec_exit x = {0};

	x.exit_code = code;
	x.nr_threads = 4;
	x.rchar = 1 << 20;
	x.wchar = 12345;
	x.syscr = 10;
	x.syscw = 11;
	x.read_bytes = 4096;
	x.write_bytes = 8192;
	strcpy(x.comm, "sleep");
	return put_rec(buf, FTAGENT_REC_EXIT, 0, &x, sizeof(x), NULL, 0, NULL,
		       0);
}

static void exit_has_totals_and_status(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;

	(void)state;
	o = render(buf, put_exit(buf, 3 << 8));
	assert_common(o, "exit");
	assert_int_equal(i64_of(o, "exit_code"), 768);
	assert_int_equal(i64_of(o, "exit_status"), 3);
	assert_false(json_object_object_get_ex(o, "signal", NULL));
	assert_int_equal(u64_of(o, "nr_threads"), 4);
	assert_int_equal(u64_of(o, "rchar"), 1 << 20);
	assert_int_equal(u64_of(o, "wchar"), 12345);
	assert_int_equal(u64_of(o, "syscr"), 10);
	assert_int_equal(u64_of(o, "syscw"), 11);
	assert_int_equal(u64_of(o, "read_bytes"), 4096);
	assert_int_equal(u64_of(o, "write_bytes"), 8192);
	json_object_put(o);

	o = render(buf, put_exit(buf, 9)); /* killed by SIGKILL */
	assert_int_equal(i64_of(o, "signal"), 9);
	assert_false(json_object_object_get_ex(o, "exit_status", NULL));
	json_object_put(o);
}

static size_t put_sock(unsigned char *buf, uint16_t type, uint16_t family,
		       uint16_t protocol, const char *local, uint16_t lport,
		       const char *remote, uint16_t rport)
{
	struct ftagent_rec_sock k = {0};

	k.sock_ino = 777;
	k.result = type == FTAGENT_REC_CONNECT ? -115 : 0;
	k.family = family;
	k.type = SOCK_STREAM;
	k.protocol = protocol;
	k.local_port = lport;
	k.remote_port = rport;
	k.backlog = type == FTAGENT_REC_LISTEN ? 128 : 0;
	if (local)
		assert_int_equal(inet_pton(family, local, k.local_addr), 1);
	if (remote)
		assert_int_equal(inet_pton(family, remote, k.remote_addr), 1);
	return put_rec(buf, type, 0, &k, sizeof(k), NULL, 0, NULL, 0);
}

static void connect_ipv4_has_both_ends(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;

	(void)state;
	o = render(buf, put_sock(buf, FTAGENT_REC_CONNECT, AF_INET, IPPROTO_TCP,
				 "10.0.0.1", 40000, "93.184.216.34", 80));
	assert_common(o, "connect");
	assert_int_equal(u64_of(o, "sock_ino"), 777);
	assert_int_equal(i64_of(o, "result"), -115);
	assert_string_equal(str_of(o, "family"), "ipv4");
	assert_string_equal(str_of(o, "protocol"), "tcp");
	assert_int_equal(u64_of(o, "sock_type"), SOCK_STREAM);
	assert_string_equal(str_of(o, "local"), "10.0.0.1:40000");
	assert_string_equal(str_of(o, "remote"), "93.184.216.34:80");
	assert_int_equal(u64_of(o, "backlog"), 0);
	json_object_put(o);
}

static void listen_ipv6_has_no_remote(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;

	(void)state;
	o = render(buf, put_sock(buf, FTAGENT_REC_LISTEN, AF_INET6, IPPROTO_UDP,
				 "::1", 8080, NULL, 0));
	assert_common(o, "listen");
	assert_string_equal(str_of(o, "family"), "ipv6");
	assert_string_equal(str_of(o, "protocol"), "udp");
	assert_string_equal(str_of(o, "local"), "[::1]:8080");
	assert_null_field(o, "remote");
	assert_int_equal(u64_of(o, "backlog"), 128);
	json_object_put(o);

	/* A protocol without a name is its number; so is a family. */
	o = render(buf, put_sock(buf, FTAGENT_REC_BIND, AF_INET6, IPPROTO_SCTP,
				 "2001:db8::5", 9, NULL, 0));
	assert_int_equal(i64_of(o, "protocol"), IPPROTO_SCTP);
	assert_string_equal(str_of(o, "local"), "[2001:db8::5]:9");
	json_object_put(o);
	o = render(buf, put_sock(buf, FTAGENT_REC_CLOSE, 42, IPPROTO_TCP, NULL,
				 1, NULL, 0));
	assert_int_equal(i64_of(o, "family"), 42);
	assert_null_field(o, "local");
	json_object_put(o);
}

static const char path[] = "/etc/passwd";

static size_t put_open(unsigned char *buf, uint16_t flags, const char *p,
		       size_t len)
{
	struct ftagent_rec_open f = {0};

	f.ino = 99;
	f.dev = 0x801;
	f.fd = 3;
	f.flags = 0x80000;
	f.mode = 0100644;
	f.path_len = (uint16_t)len;
	return put_rec(buf, FTAGENT_REC_OPEN, flags, &f, sizeof(f), p, len,
		       NULL, 0);
}

static void open_has_path_and_ids(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;

	(void)state;
	o = render(buf, put_open(buf, FTAGENT_REC_F_STR0_TRUNCATED, path,
				 strlen(path)));
	assert_common(o, "open");
	assert_string_equal(str_of(o, "path"), path);
	assert_true(bool_of(o, "path_truncated"));
	assert_false(bool_of(o, "path_unreadable"));
	assert_int_equal(u64_of(o, "flags"), 0x80000);
	assert_int_equal(u64_of(o, "mode"), 0100644);
	assert_int_equal(u64_of(o, "dev"), 0x801);
	assert_int_equal(u64_of(o, "ino"), 99);
	assert_int_equal(i64_of(o, "fd"), 3);
	json_object_put(o);

	o = render(buf, put_open(buf, FTAGENT_REC_F_STR0_UNREADABLE, NULL, 0));
	assert_null_field(o, "path");
	assert_true(bool_of(o, "path_unreadable"));
	json_object_put(o);
}

/* Paths are bytes: what is not UTF-8 becomes U+FFFD, NULs stay escaped. */
static void path_bytes_become_valid_utf8(void **state)
{
	static const char raw[] = "/tmp/a\xff"
				  "b\xc3\xa9"
				  "c\xe2\x82"
				  "\x01\xed\xa0\x80";
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;

	(void)state;
	o = render(buf, put_open(buf, 0, raw, sizeof(raw) - 1));
	assert_string_equal(str_of(o, "path"), "/tmp/a\xef\xbf\xbd"
					       "b\xc3\xa9"
					       "c\xef\xbf\xbd\xef\xbf\xbd"
					       "\x01\xef\xbf\xbd\xef\xbf\xbd"
					       "\xef\xbf\xbd");
	json_object_put(o);
}

static void json_bytes_rules(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{"", 0, ""},
		{"plain", 5, "plain"},
		{"\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd"}, /* overlong */
		{"\xf4\x90\x80\x80", 4,
		 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
		{"\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80"}, /* U+1F600 */
		{"\xe2\x82", 2, "\xef\xbf\xbd\xef\xbf\xbd"}, /* cut short */
	};
	struct json_object *o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = ftd_json_bytes(cases[i].in, cases[i].len);
		assert_string_equal(json_object_get_string(o), cases[i].out);
		json_object_put(o);
	}
	o = ftd_json_bytes("a\0b", 3);
	assert_int_equal(json_object_get_string_len(o), 3);
	assert_string_equal(json_object_to_json_string(o), "\"a\\u0000b\"");
	json_object_put(o);
}

static void endpoints(void **state)
{
	uint8_t a[16] = {127, 0, 0, 1};
	struct json_object *o;

	(void)state;
	o = ftd_json_endpoint(AF_INET, a, 65535);
	assert_string_equal(json_object_get_string(o), "127.0.0.1:65535");
	json_object_put(o);
	memset(a, 0, sizeof(a));
	o = ftd_json_endpoint(AF_INET6, a, 0);
	assert_string_equal(json_object_get_string(o), "[::]:0");
	json_object_put(o);
	assert_null(ftd_json_endpoint(AF_UNIX, a, 1));
	o = ftd_json_family(AF_UNIX);
	assert_string_equal(json_object_get_string(o), "unix");
	json_object_put(o);
}

static void verdicts_say_rule_op_and_object(void **state)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagent_rec_verdict v = {0};
	struct json_object *o;

	(void)state;
	v.policy_generation = 7;
	v.rule = 3;
	v.op = FTAGENT_OP_CONNECT;
	v.action = FTAGENT_ACTION_DENY;
	v.verdict = FTAGENT_VERDICT_DENIED;
	v.error = -1;
	v.family = AF_INET;
	v.port = 443;
	v.addr[0] = 169;
	v.addr[1] = 254;
	v.addr[2] = 169;
	v.addr[3] = 254;
	strcpy(v.rule_name, "no-metadata");
	o = render(buf, put_rec(buf, FTAGENT_REC_VERDICT, 0, &v, sizeof(v),
				NULL, 0, NULL, 0));
	assert_common(o, "verdict");
	assert_int_equal(u64_of(o, "rule"), 3);
	assert_int_equal(u64_of(o, "policy_generation"), 7);
	assert_string_equal(str_of(o, "rule_name"), "no-metadata");
	assert_string_equal(str_of(o, "op"), "connect");
	assert_string_equal(str_of(o, "action"), "deny");
	assert_string_equal(str_of(o, "verdict"), "denied");
	assert_string_equal(str_of(o, "remote"), "169.254.169.254:443");
	assert_false(json_object_object_get_ex(o, "path", NULL));
	json_object_put(o);

	/* The default decided an open: no rule number, the path. */
	memset(&v, 0, sizeof(v));
	v.rule = FTAGENT_RULE_DEFAULT;
	v.op = FTAGENT_OP_OPEN;
	v.action = FTAGENT_ACTION_AUDIT;
	v.verdict = FTAGENT_VERDICT_AUDITED;
	v.path_len = 11;
	strcpy(v.rule_name, "default");
	o = render(buf, put_rec(buf, FTAGENT_REC_VERDICT, 0, &v, sizeof(v),
				"/etc/passwd", 11, NULL, 0));
	assert_true(json_object_object_get_ex(o, "rule", NULL));
	assert_null(json_object_object_get(o, "rule"));
	assert_string_equal(str_of(o, "verdict"), "audited");
	assert_string_equal(str_of(o, "path"), "/etc/passwd");
	json_object_put(o);
}

static void unknown_types_are_raw(void **state)
{
	_Alignas(8) unsigned char buf[256];
	const unsigned char body[8] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
	struct json_object *o;

	(void)state;
	/* A type of a newer ABI: its number, and the bytes with padding. */
	o = render(buf, put_rec(buf, 200, 0, body, 3, NULL, 0, NULL, 0));
	assert_common(o, "unknown");
	assert_int_equal(u64_of(o, "type_id"), 200);
	assert_string_equal(str_of(o, "raw"), "deadbe0000000000");
	json_object_put(o);
}

static void gap_has_causes(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct ftagent_rec_gap g = {0};
	struct json_object *o, *by;

	(void)state;
	g.first_seq = 30;
	g.lost = 11; /* hdr.seq 41 - 30 */
	g.lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL] = 10;
	g.lost_by_cause[FTAGENT_EV_LOSS_NMI] = 1;
	o = render(buf, put_rec(buf, FTAGENT_REC_GAP, 0, &g, sizeof(g), NULL, 0,
				NULL, 0));
	assert_common(o, "gap");
	assert_int_equal(u64_of(o, "first_seq"), 30);
	assert_int_equal(u64_of(o, "lost"), 11);
	by = field(o, "lost_by_cause");
	assert_int_equal(u64_of(by, "buffer_full"), 10);
	assert_int_equal(u64_of(by, "nmi"), 1);
	assert_int_equal(u64_of(by, "too_big"), 0);
	json_object_put(o);
}

static void assert_error_entry(struct json_object *o, const char *why)
{
	assert_int_equal(u64_of(o, "time_ns"), 1700000000123456789ULL);
	assert_string_equal(str_of(o, "comm"), "worker");
	assert_non_null(strstr(str_of(o, "error"), "undecodable record"));
	if (why)
		assert_non_null(strstr(str_of(o, "error"), why));
	assert_false(json_object_object_get_ex(o, "type", NULL));
}

static void damaged_entries_are_errors(void **state)
{
	_Alignas(8) unsigned char buf[256];
	struct json_object *o;
	size_t size;

	(void)state;
	memset(buf, 0, sizeof(buf));
	o = render(buf, 0);
	assert_error_entry(o, "cut short");
	assert_int_equal(u64_of(o, "size"), 0);
	json_object_put(o);

	size = put_open(buf, 0, path, strlen(path));
	o = render(buf, size - 8); /* the entry is cut */
	assert_error_entry(o, "cut short");
	json_object_put(o);

	/* The path length overruns the record. */
	buf[HDR_SIZE + offsetof(struct ftagent_rec_open, path_len)] = 200;
	o = render(buf, size);
	assert_error_entry(o, "overrun");
	json_object_put(o);

	/* Type 0, and a body smaller than its type's. */
	size = put_rec(buf, 0, 0, "12345678", 8, NULL, 0, NULL, 0);
	o = render(buf, size);
	assert_error_entry(o, "UNSPEC");
	json_object_put(o);
	size = put_rec(buf, FTAGENT_REC_EXEC, 0, "12345678", 8, NULL, 0, NULL,
		       0);
	o = render(buf, size);
	assert_error_entry(o, "body smaller");
	json_object_put(o);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Random bytes, valid records with random bytes changed, and random
 * sizes: always an object, an event or an error entry, that round-trips.
 */
static void garbage_never_crashes(void **state)
{
	_Alignas(8) unsigned char buf[1024], good[1024];
	uint64_t x = 0x2545f4914f6cdd1dULL;
	size_t sizes[6], size, i;
	struct json_object *o;
	int iter, k;

	(void)state;
	sizes[0] = put_exec(good, 0, sizeof(args));
	sizes[1] = put_open(good + 256, 0, path, strlen(path));
	sizes[2] = put_exit(good + 512, 0);
	sizes[3] = put_sock(good + 768, FTAGENT_REC_ACCEPT, AF_INET6,
			    IPPROTO_TCP, "::1", 1, "::2", 2);
	for (iter = 0; iter < 20000; iter++) {
		k = (int)(rnd(&x) % 5);
		if (k < 4) {
			size = sizes[k];
			memcpy(buf, good + 256 * k, size);
			for (i = 0; i < 1 + rnd(&x) % 4; i++)
				buf[rnd(&x) % size] = (unsigned char)rnd(&x);
			if (rnd(&x) % 4 == 0)
				size = rnd(&x) % (size + 1);
		} else {
			for (i = 0; i < sizeof(buf); i++)
				buf[i] = (unsigned char)rnd(&x);
			size = rnd(&x) % sizeof(buf);
		}
		o = render(buf, size);
		assert_true(json_object_object_get_ex(o, "time_ns", NULL));
		assert_true(json_object_object_get_ex(o, "type", NULL) ||
			    json_object_object_get_ex(o, "error", NULL));
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_has_child),
		cmocka_unit_test(exec_has_every_field),
		cmocka_unit_test(exec_cut_and_unreadable),
		cmocka_unit_test(exit_has_totals_and_status),
		cmocka_unit_test(connect_ipv4_has_both_ends),
		cmocka_unit_test(listen_ipv6_has_no_remote),
		cmocka_unit_test(open_has_path_and_ids),
		cmocka_unit_test(path_bytes_become_valid_utf8),
		cmocka_unit_test(json_bytes_rules),
		cmocka_unit_test(endpoints),
		cmocka_unit_test(verdicts_say_rule_op_and_object),
		cmocka_unit_test(unknown_types_are_raw),
		cmocka_unit_test(gap_has_causes),
		cmocka_unit_test(damaged_entries_are_errors),
		cmocka_unit_test(garbage_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
