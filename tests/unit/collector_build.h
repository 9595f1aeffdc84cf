/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building the module's output by hand for the daemon's unit tests:
 * event records (header, body, strings, padding) and counters.
 */
#ifndef FTAGENT_TEST_COLLECTOR_BUILD_H
#define FTAGENT_TEST_COLLECTOR_BUILD_H

#include <stdint.h>
#include <string.h>
#include <linux/ftagent.h>

/* Write a record of @type at @buf; returns its size. */
static inline size_t build_rec(void *buf, uint16_t type, uint32_t tgid,
			       uint64_t seq, uint64_t time_ns, const void *body,
			       size_t body_size, const char *s0, size_t l0,
			       const char *s1, size_t l1)
{
	struct ftagent_rec_hdr *h = buf;
	unsigned char *p = buf;
	size_t size = sizeof(*h) + body_size + l0 + l1;

	size = (size + 7) & ~(size_t)7;
	memset(buf, 0, size);
	h->type = type;
	h->size = (uint16_t)size;
	h->body_size = (uint16_t)body_size;
	h->seq = seq;
	h->time_ns = time_ns;
	h->tgid = tgid;
	h->pid = tgid;
	memcpy(p + sizeof(*h), body, body_size);
	if (l0)
		memcpy(p + sizeof(*h) + body_size, s0, l0);
	if (l1)
		memcpy(p + sizeof(*h) + body_size + l0, s1, l1);
	return size;
}

static inline size_t build_exec(void *buf, uint32_t tgid, uint64_t seq,
				const char *comm, const char *exe)
{
	struct ftagent_rec_exec e = {0};

	e.ppid = 1;
	e.uid = 1000;
	e.argc = 1;
	e.exe_len = (uint16_t)strlen(exe);
	e.argv_len = (uint16_t)(strlen(comm) + 1);
	e.argv_bytes = e.argv_len;
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return build_rec(buf, FTAGENT_REC_EXEC, tgid, seq, seq * 1000, &e,
			 sizeof(e), exe, strlen(exe), comm, strlen(comm) + 1);
}

static inline size_t build_connect(void *buf, uint32_t tgid, uint64_t seq,
				   uint64_t ino, uint16_t lport, uint16_t rport)
{
	struct ftagent_rec_sock s = {0};

	s.sock_ino = ino;
	s.family = 2; /* AF_INET */
	s.type = 1;
	s.protocol = 6;
	s.local_port = lport;
	s.remote_port = rport;
	s.local_addr[0] = 127;
	s.local_addr[3] = 1;
	s.remote_addr[0] = 127;
	s.remote_addr[3] = 1;
	return build_rec(buf, FTAGENT_REC_CONNECT, tgid, seq, seq * 1000, &s,
			 sizeof(s), NULL, 0, NULL, 0);
}

static inline size_t build_open(void *buf, uint32_t tgid, uint64_t seq,
				uint32_t dev, uint64_t ino, const char *path)
{
	struct ftagent_rec_open o = {0};

	o.dev = dev;
	o.ino = ino;
	o.mode = 0100644;
	o.fd = 3;
	o.path_len = (uint16_t)strlen(path);
	return build_rec(buf, FTAGENT_REC_OPEN, tgid, seq, seq * 1000, &o,
			 sizeof(o), path, strlen(path), NULL, 0);
}

static inline struct ftagent_counter counter(uint32_t tgid, uint16_t kind,
					     uint64_t ino, uint64_t in,
					     uint64_t out)
{
	struct ftagent_counter k = {0};

	k.tgid = tgid;
	k.kind = kind;
	k.ino = ino;
	k.dev = kind == FTAGENT_OBJ_SOCKET ? 0 : 8;
	k.family = kind == FTAGENT_OBJ_SOCKET ? 2 : 0;
	k.protocol = kind == FTAGENT_OBJ_SOCKET ? 6 : 0;
	k.in.bytes = in;
	k.in.calls = in ? 1 : 0;
	k.out.bytes = out;
	k.out.calls = out ? 1 : 0;
	return k;
}

#endif /* FTAGENT_TEST_COLLECTOR_BUILD_H */
