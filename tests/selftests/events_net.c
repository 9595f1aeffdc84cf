// SPDX-License-Identifier: GPL-2.0
/*
 * Socket records over loopback, TCP and UDP, IPv4 and IPv6: BIND, LISTEN,
 * CONNECT (refused and in progress too), ACCEPT and CLOSE each name the
 * socket by the inode fstat() reports and carry the addresses
 * getsockname() and getpeername() report; CLOSE comes with the last
 * reference, from whoever dropped it. (Toggles: events_toggles.c.)
 */
#include "kselftest_harness.h"
#include "events_test.h"

FIXTURE(net)
{
	struct ev_log log;
};

FIXTURE_VARIANT(net)
{
	int family, type, protocol;
};

FIXTURE_VARIANT_ADD(net, tcp4){AF_INET, SOCK_STREAM, IPPROTO_TCP};
FIXTURE_VARIANT_ADD(net, tcp6){AF_INET6, SOCK_STREAM, IPPROTO_TCP};
FIXTURE_VARIANT_ADD(net, udp4){AF_INET, SOCK_DGRAM, IPPROTO_UDP};
FIXTURE_VARIANT_ADD(net, udp6){AF_INET6, SOCK_DGRAM, IPPROTO_UDP};

FIXTURE_SETUP(net)
{
	ASSERT_EQ(0, ev_reset_filters());
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(net)
{
	EXPECT_EQ(0, ev_reset_filters());
	ev_close(&self->log);
}

/* What the kernel says about a socket: the record must say the same. */
struct sock_truth {
	uint64_t ino;
	int family;
	uint16_t lport, rport;
	uint8_t laddr[16], raddr[16];
};

static void addr_of(const struct sockaddr_storage *ss, uint16_t *port,
		    uint8_t addr[16])
{
	memset(addr, 0, 16);
	*port = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		*port = ntohs(in->sin_port);
		memcpy(addr, &in->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		*port = ntohs(in6->sin6_port);
		memcpy(addr, &in6->sin6_addr, 16);
	}
}

static struct sock_truth truth(int fd, int family)
{
	struct sockaddr_storage ss = {0};
	struct sock_truth t = {.family = family};
	socklen_t len = sizeof(ss);
	uint32_t dev;

	ft_fd_id(fd, &dev, &t.ino);
	if (!getsockname(fd, (struct sockaddr *)&ss, &len))
		addr_of(&ss, &t.lport, t.laddr);
	len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	/* Not connected (ENOTCONN): the record has zeros too. */
	if (!getpeername(fd, (struct sockaddr *)&ss, &len))
		addr_of(&ss, &t.rport, t.raddr);
	return t;
}

/* The only record of @type about socket @ino, made by this process. */
static const struct ftagent_rec_sock *find(const struct ev_log *l, int type,
					   uint64_t ino)
{
	const struct ftagent_rec_sock *found = NULL;
	const struct ftagent_rec *r;
	size_t i = 0;

	while ((r = ev_next(l, &i, type, getpid()))) {
		const struct ftagent_rec_sock *s = r->body;

		if (s->sock_ino != ino)
			continue;
		if (found || r->hdr->pid != (uint32_t)syscall(SYS_gettid))
			return NULL;
		found = s;
	}
	return found;
}

#define EXPECT_SOCK(rtype, t, res, bl)                                         \
	do {                                                                   \
		const struct ftagent_rec_sock *_s =                            \
			find(&self->log, rtype, (t).ino);                      \
		ASSERT_NE(NULL, _s)                                            \
		TH_LOG("record %d of socket %lu", rtype,                       \
		       (unsigned long)(t).ino);                                \
		EXPECT_EQ((int)(res), _s->result);                             \
		EXPECT_EQ((t).family, _s->family);                             \
		EXPECT_EQ(variant->type, _s->type);                            \
		EXPECT_EQ(variant->protocol, _s->protocol);                    \
		EXPECT_EQ((t).lport, _s->local_port);                          \
		EXPECT_EQ((t).rport, _s->remote_port);                         \
		EXPECT_EQ(0, memcmp((t).laddr, _s->local_addr, 16));           \
		EXPECT_EQ(0, memcmp((t).raddr, _s->remote_addr, 16));          \
		EXPECT_EQ((uint32_t)(bl), _s->backlog);                        \
	} while (0)

TEST_F(net, records_match_getsockname_getpeername_and_fstat)
{
	struct sock_truth srv, cli, acc = {0};
	struct sockaddr_storage ss;
	socklen_t len = ev_loopback(variant->family, &ss);
	int s = socket(variant->family, variant->type, 0);
	int c = socket(variant->family, variant->type, 0);
	int a = -1, d;

	ASSERT_LE(0, s);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(s, (struct sockaddr *)&ss, &len));
	if (variant->type == SOCK_STREAM) {
		ASSERT_EQ(0, listen(s, 7));
	} else {
		/* UDP can't listen: a failed call gives no record. */
		ASSERT_EQ(-1, listen(s, 7));
	}
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&ss, len));
	if (variant->type == SOCK_STREAM) {
		a = accept(s, NULL, NULL);
		ASSERT_LE(0, a);
		acc = truth(a, variant->family);
	}
	srv = truth(s, variant->family);
	cli = truth(c, variant->family);
	/* A second reference: the CLOSE waits for the last one. */
	d = dup(c);
	ASSERT_LE(0, d);
	close(c);
	ASSERT_LE(0, ev_drain(&self->log));
	EXPECT_EQ(0, find(&self->log, FTAGENT_REC_CLOSE, cli.ino) != NULL);
	close(d);
	if (a >= 0)
		close(a);
	close(s);
	ASSERT_LE(0, ev_drain(&self->log));

	/* Bound, not connected: no peer. Connected: the server's address. */
	EXPECT_SOCK(FTAGENT_REC_BIND, srv, 0, 0);
	EXPECT_SOCK(FTAGENT_REC_CONNECT, cli, 0, 0);
	EXPECT_EQ(srv.lport, cli.rport);
	EXPECT_SOCK(FTAGENT_REC_CLOSE, cli, 0, 0);
	if (variant->type == SOCK_STREAM) {
		EXPECT_SOCK(FTAGENT_REC_LISTEN, srv, 0, 7);
		EXPECT_SOCK(FTAGENT_REC_ACCEPT, acc, a, 0);
		EXPECT_EQ(cli.lport, acc.rport);
		EXPECT_EQ(0, memcmp(cli.laddr, acc.raddr, 16));
		EXPECT_SOCK(FTAGENT_REC_CLOSE, acc, 0, 0);
		EXPECT_EQ(2, ev_count_sock(&self->log, acc.ino));
		EXPECT_EQ(3, ev_count_sock(&self->log, srv.ino));
	} else {
		EXPECT_EQ(0,
			  ev_count(&self->log, FTAGENT_REC_LISTEN, getpid()));
		EXPECT_EQ(2, ev_count_sock(&self->log, srv.ino));
	}
	EXPECT_SOCK(FTAGENT_REC_CLOSE, srv, 0, 0);
	/* connect() binds implicitly: that is no BIND record. */
	EXPECT_EQ(2, ev_count_sock(&self->log, cli.ino));
}

TEST_F(net, failed_and_pending_connects_carry_the_return_value)
{
	struct sockaddr_storage ss;
	socklen_t len = ev_loopback(variant->family, &ss);
	int s = socket(variant->family, variant->type, 0);
	int c = socket(variant->family, variant->type | SOCK_NONBLOCK, 0);
	int rc, err = 0;

	ASSERT_LE(0, s);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(s, (struct sockaddr *)&ss, &len));
	if (variant->type == SOCK_STREAM) {
		/* Nobody listens on the bound port: refused. */
		int r = socket(variant->family, SOCK_STREAM, 0);
		struct sock_truth t = truth(r, variant->family);

		ASSERT_EQ(-1, connect(r, (struct sockaddr *)&ss, len));
		ASSERT_EQ(ECONNREFUSED, errno);
		ASSERT_LE(0, ev_drain(&self->log));
		ASSERT_NE(NULL, find(&self->log, FTAGENT_REC_CONNECT, t.ino));
		EXPECT_EQ(-ECONNREFUSED,
			  find(&self->log, FTAGENT_REC_CONNECT, t.ino)->result);
		close(r);
		ASSERT_EQ(0, listen(s, 1));
	}
	rc = connect(c, (struct sockaddr *)&ss, len);
	if (rc < 0)
		err = -errno;
	ASSERT_LE(0, ev_drain(&self->log));
	ASSERT_NE(NULL, find(&self->log, FTAGENT_REC_CONNECT, truth(c, 0).ino));
	EXPECT_EQ(
		err,
		find(&self->log, FTAGENT_REC_CONNECT, truth(c, 0).ino)->result);
	close(c);
	close(s);
}

TEST_F(net, close_belongs_to_whoever_drops_the_last_reference)
{
	struct sockaddr_storage ss;
	socklen_t len = ev_loopback(variant->family, &ss);
	int s = socket(variant->family, variant->type, 0), p[2];
	const struct ftagent_rec *r;
	struct sock_truth t;
	size_t i = 0;
	pid_t pid;
	char c;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&ss, len));
	t = truth(s, variant->family);
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Holds its copy until the parent has closed its own. */
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(s);
	ASSERT_EQ(1, write(p[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(1, ev_wait(&self->log, FTAGENT_REC_CLOSE, pid, 5000));
	r = ev_next(&self->log, &i, FTAGENT_REC_CLOSE, pid);
	EXPECT_EQ(t.ino, EV_BODY(r, struct ftagent_rec_sock)->sock_ino);
	EXPECT_EQ(t.lport, EV_BODY(r, struct ftagent_rec_sock)->local_port);
	EXPECT_EQ(0, find(&self->log, FTAGENT_REC_CLOSE, t.ino) != NULL);
}

TEST_HARNESS_MAIN
