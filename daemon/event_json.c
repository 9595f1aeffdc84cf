// SPDX-License-Identifier: GPL-2.0
/*
 * Event log entries as JSON (event_json.h). The entry's bytes are decoded
 * again with ftagent_rec_next(), which checks sizes and string lengths,
 * and bodies are copied out with memcpy(), so nothing here trusts the
 * entry; names from the kernel (paths, arguments) may hold any bytes and
 * are made valid UTF-8 before they go into JSON.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "../tools/lib/budgets.h"
#include "../tools/lib/policy.h"
#include "../tools/lib/records.h"
#include "event_json.h"

#define HDR_SIZE sizeof(struct ftagent_rec_hdr)

/* The length of the valid UTF-8 sequence at @p (RFC 3629), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0; /* no overlong forms */
	else if (p[0] == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f; /* nothing above U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

struct json_object *ftd_json_bytes(const char *s, size_t len)
{
	static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
	const unsigned char *p = (const unsigned char *)s;
	struct json_object *o;
	size_t i = 0, n = 0, k;
	char *buf;

	if (!len)
		return json_object_new_string("");
	while (i < len && (k = utf8_seq(p + i, len - i)))
		i += k;
	if (i == len)
		return json_object_new_string_len(s, (int)len);
	buf = malloc(3 * len);
	if (!buf)
		return NULL;
	for (i = 0; i < len;) {
		k = utf8_seq(p + i, len - i);
		if (k) {
			memcpy(buf + n, p + i, k);
			n += k;
			i += k;
		} else {
			memcpy(buf + n, replacement, 3);
			n += 3;
			i++;
		}
	}
	o = json_object_new_string_len(buf, (int)n);
	free(buf);
	return o;
}

struct json_object *ftd_json_cstr(const char *s, size_t size)
{
	return ftd_json_bytes(s, strnlen(s, size));
}

struct json_object *ftd_json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *ftd_json_family(unsigned int family)
{
	switch (family) {
	case AF_INET: return json_object_new_string("ipv4");
	case AF_INET6: return json_object_new_string("ipv6");
	case AF_UNIX: return json_object_new_string("unix");
	}
	return json_object_new_int64(family);
}

struct json_object *ftd_json_protocol(unsigned int protocol)
{
	switch (protocol) {
	case IPPROTO_TCP: return json_object_new_string("tcp");
	case IPPROTO_UDP: return json_object_new_string("udp");
	case IPPROTO_MPTCP: return json_object_new_string("mptcp");
	}
	return json_object_new_int64(protocol);
}

struct json_object *ftd_json_endpoint(unsigned int family,
				      const uint8_t addr[16], uint16_t port)
{
	char ip[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 16];

	if (family == AF_INET) {
		if (!inet_ntop(AF_INET, addr, ip, sizeof(ip)))
			return NULL;
		snprintf(buf, sizeof(buf), "%s:%u", ip, port);
	} else if (family == AF_INET6) {
		if (!inet_ntop(AF_INET6, addr, ip, sizeof(ip)))
			return NULL;
		snprintf(buf, sizeof(buf), "[%s]:%u", ip, port);
	} else {
		return NULL;
	}
	return json_object_new_string(buf);
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	add(o, key, ftd_json_u64(v));
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	add(o, key, json_object_new_int64(v));
}

static void add_bool(struct json_object *o, const char *key, int v)
{
	add(o, key, json_object_new_boolean(!!v));
}

/* Bytes as lowercase hex, two digits each. */
static struct json_object *hex(const unsigned char *p, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	struct json_object *o;
	char *buf = malloc(2 * len + 1);
	size_t i;

	if (!buf)
		return NULL;
	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 15];
	}
	buf[2 * len] = '\0';
	o = json_object_new_string_len(buf, (int)(2 * len));
	free(buf);
	return o;
}

/* NUL-separated arguments, as /proc/PID/cmdline; a final NUL ends one. */
static struct json_object *argv_json(const char *s, size_t len)
{
	struct json_object *arr = json_object_new_array();
	const char *end = s + len, *nul;

	while (arr && s < end) {
		nul = memchr(s, '\0', (size_t)(end - s));
		if (!nul)
			nul = end;
		json_object_array_add(arr,
				      ftd_json_bytes(s, (size_t)(nul - s)));
		s = nul + 1;
	}
	return arr;
}

static void exec_json(struct json_object *o, const struct ftagent_rec *rec)
{
	uint16_t flags = rec->hdr->flags;
	struct ftagent_rec_exec e;
	char h[20];

	memcpy(&e, rec->body, sizeof(e));
	add_u64(o, "ppid", e.ppid);
	add_u64(o, "uid", e.uid);
	add_u64(o, "gid", e.gid);
	add_u64(o, "euid", e.euid);
	add_u64(o, "cgroup_id", e.cgroup_id);
	add_u64(o, "argc", e.argc);
	add_u64(o, "argv_bytes", e.argv_bytes);
	if (flags & FTAGENT_REC_F_STR0_UNREADABLE)
		add(o, "exe", NULL);
	else
		add(o, "exe", ftd_json_bytes(rec->str[0], rec->str_len[0]));
	if (flags & FTAGENT_REC_F_STR1_UNREADABLE)
		add(o, "argv", json_object_new_array());
	else
		add(o, "argv", argv_json(rec->str[1], rec->str_len[1]));
	snprintf(h, sizeof(h), "%016" PRIx64, (uint64_t)e.argv_hash);
	add(o, "argv_hash", json_object_new_string(h));
	add_bool(o, "exe_truncated", flags & FTAGENT_REC_F_STR0_TRUNCATED);
	add_bool(o, "argv_truncated", flags & FTAGENT_REC_F_STR1_TRUNCATED);
	add_bool(o, "exe_unreadable", flags & FTAGENT_REC_F_STR0_UNREADABLE);
	add_bool(o, "argv_unreadable", flags & FTAGENT_REC_F_STR1_UNREADABLE);
	add_bool(o, "argv_hash_partial", flags & FTAGENT_REC_F_HASH_PARTIAL);
}

static void exit_json(struct json_object *o, const struct ftagent_rec *rec)
{
	struct ftagent_rec_exit x;

	memcpy(&x, rec->body, sizeof(x));
	add_int(o, "exit_code", x.exit_code);
	if (WIFEXITED(x.exit_code))
		add_int(o, "exit_status", WEXITSTATUS(x.exit_code));
	else if (WIFSIGNALED(x.exit_code))
		add_int(o, "signal", WTERMSIG(x.exit_code));
	add_u64(o, "nr_threads", x.nr_threads);
	add_u64(o, "rchar", x.rchar);
	add_u64(o, "wchar", x.wchar);
	add_u64(o, "syscr", x.syscr);
	add_u64(o, "syscw", x.syscw);
	add_u64(o, "read_bytes", x.read_bytes);
	add_u64(o, "write_bytes", x.write_bytes);
}

static int addr_is_zero(const uint8_t addr[16])
{
	static const uint8_t zero[16];

	return !memcmp(addr, zero, sizeof(zero));
}

static void sock_json(struct json_object *o, const struct ftagent_rec *rec)
{
	struct ftagent_rec_sock k;

	memcpy(&k, rec->body, sizeof(k));
	add_u64(o, "sock_ino", k.sock_ino);
	add_int(o, "result", k.result);
	add(o, "family", ftd_json_family(k.family));
	add_u64(o, "sock_type", k.type);
	add(o, "protocol", ftd_json_protocol(k.protocol));
	add(o, "local",
	    ftd_json_endpoint(k.family, k.local_addr, k.local_port));
	if (k.remote_port || !addr_is_zero(k.remote_addr))
		add(o, "remote",
		    ftd_json_endpoint(k.family, k.remote_addr, k.remote_port));
	else
		add(o, "remote", NULL);
	add_u64(o, "backlog", k.backlog);
}

static void open_json(struct json_object *o, const struct ftagent_rec *rec)
{
	uint16_t flags = rec->hdr->flags;
	struct ftagent_rec_open f;

	memcpy(&f, rec->body, sizeof(f));
	if (flags & FTAGENT_REC_F_STR0_UNREADABLE)
		add(o, "path", NULL);
	else
		add(o, "path", ftd_json_bytes(rec->str[0], rec->str_len[0]));
	add_bool(o, "path_truncated", flags & FTAGENT_REC_F_STR0_TRUNCATED);
	add_bool(o, "path_unreadable", flags & FTAGENT_REC_F_STR0_UNREADABLE);
	add_u64(o, "flags", f.flags);
	add_u64(o, "mode", f.mode);
	add_u64(o, "dev", f.dev);
	add_u64(o, "ino", f.ino);
	add_int(o, "fd", f.fd);
}

static void gap_json(struct json_object *o, const struct ftagent_rec *rec)
{
	struct json_object *by = json_object_new_object();
	struct ftagent_rec_gap g;
	int c;

	memcpy(&g, rec->body, sizeof(g));
	add_u64(o, "first_seq", g.first_seq);
	add_u64(o, "lost", g.lost);
	for (c = 0; by && c < __FTAGENT_EV_LOSS_MAX; c++)
		add_u64(by, ftagent_event_loss_name(c), g.lost_by_cause[c]);
	add(o, "lost_by_cause", by);
}

static struct json_object *bad_entry(struct json_object *o,
				     const struct ftd_event *ev,
				     const char *why)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "undecodable record (%zu bytes): %s",
		 ev->rec_size, why);
	add(o, "comm", ftd_json_cstr(ev->comm, sizeof(ev->comm)));
	add_u64(o, "size", ev->rec_size);
	add(o, "error", json_object_new_string(msg));
	return o;
}

/* A policy verdict: which rule of which set, what it did, to what. */
static void verdict_json(struct json_object *o, const struct ftagent_rec *rec)
{
	struct ftagent_rec_verdict v;

	memcpy(&v, rec->body, sizeof(v));
	add_u64(o, "policy_generation", v.policy_generation);
	if (v.rule == FTAGENT_RULE_DEFAULT)
		add(o, "rule", NULL);
	else
		add_u64(o, "rule", v.rule);
	add(o, "rule_name", ftd_json_cstr(v.rule_name, sizeof(v.rule_name)));
	add(o, "op",
	    v.op == FTAGENT_OP_NONE
		    ? NULL
		    : json_object_new_string(ftagent_op_name(v.op)));
	add(o, "action", json_object_new_string(ftagent_action_name(v.action)));
	add(o, "verdict",
	    json_object_new_string(ftagent_verdict_name(v.verdict)));
	add(o, "result", json_object_new_int(v.error));
	add(o, "source",
	    json_object_new_string(v.source == FTAGENT_VERDICT_SRC_BUDGET
					   ? "budget"
					   : "rule"));
	if (v.source == FTAGENT_VERDICT_SRC_BUDGET) {
		add(o, "metric",
		    json_object_new_string(ftagent_metric_name(v.metric)));
		add_u64(o, "used", v.used);
		add_u64(o, "limit", v.limit);
	}
	if (v.family) {
		add(o, "family", ftd_json_family(v.family));
		add(o, "remote", ftd_json_endpoint(v.family, v.addr, v.port));
	}
	if ((v.op == FTAGENT_OP_EXEC || v.op == FTAGENT_OP_OPEN) &&
	    rec->n_str >= 1 &&
	    !(rec->hdr->flags & FTAGENT_REC_F_STR0_UNREADABLE))
		add(o, "path", ftd_json_bytes(rec->str[0], rec->str_len[0]));
	if (rec->hdr->flags & FTAGENT_REC_F_STR0_TRUNCATED)
		add(o, "path_truncated", json_object_new_boolean(1));
}

struct json_object *ftd_event_json(const struct ftd_event *ev)
{
	struct json_object *o = json_object_new_object();
	enum ftagent_rec_status st;
	struct ftagent_rec rec;
	const char *why = NULL;
	const unsigned char *p;
	size_t used = 0;

	if (!o)
		return NULL;
	add_u64(o, "time_ns", ev->realtime_ns);
	st = ftagent_rec_next(ev->rec, ev->rec_size, &rec, &used, &why);
	if (st == FTAGENT_REC_NEED_MORE)
		return bad_entry(o, ev, "cut short");
	if (st != FTAGENT_REC_OK)
		return bad_entry(o, ev, why ? why : "not a record");
	add(o, "type",
	    json_object_new_string(ftagent_rec_type_name(rec.hdr->type)));
	add_u64(o, "cpu", rec.hdr->cpu);
	add_u64(o, "seq", rec.hdr->seq);
	add_u64(o, "pid", rec.hdr->tgid);
	add_u64(o, "tid", rec.hdr->pid);
	add(o, "comm", ftd_json_cstr(ev->comm, sizeof(ev->comm)));
	switch (rec.hdr->type) {
	case FTAGENT_REC_GAP: gap_json(o, &rec); break;
	case FTAGENT_REC_FORK: {
		struct ftagent_rec_fork f;

		memcpy(&f, rec.body, sizeof(f));
		add_u64(o, "child_pid", f.child_tgid);
		break;
	}
	case FTAGENT_REC_EXEC: exec_json(o, &rec); break;
	case FTAGENT_REC_EXIT: exit_json(o, &rec); break;
	case FTAGENT_REC_CONNECT:
	case FTAGENT_REC_ACCEPT:
	case FTAGENT_REC_CLOSE:
	case FTAGENT_REC_BIND:
	case FTAGENT_REC_LISTEN: sock_json(o, &rec); break;
	case FTAGENT_REC_OPEN: open_json(o, &rec); break;
	case FTAGENT_REC_VERDICT: verdict_json(o, &rec); break;
	default:
		/* Types of a newer ABI: the bytes as they are. */
		add_u64(o, "type_id", rec.hdr->type);
		p = (const unsigned char *)rec.hdr;
		add(o, "raw", hex(p + HDR_SIZE, rec.hdr->size - HDR_SIZE));
		break;
	}
	return o;
}
