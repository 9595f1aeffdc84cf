// SPDX-License-Identifier: GPL-2.0
/*
 * The unspecified address reaches this host: the kernel routes a connect
 * or a send to 0.0.0.0 to the socket's bound address or else 127.0.0.1,
 * and :: to ::1, on an IPv6 socket too (::ffff:0.0.0.0, ::ffff:127.0.0.1).
 * A rule on 127.0.0.0/8 or ::1 must refuse them all; a bind to 0.0.0.0
 * stays "any", and a connect to family 0 (a disconnect) names no address.
 */
#include "kselftest_harness.h"
#include "evasion_test.h"

static const uint8_t lo4[4] = {127, 0, 0, 0};
static const uint8_t lo6[16] = {[15] = 1};

static struct sockaddr_in sin4(uint32_t addr, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET};

	s.sin_addr.s_addr = htonl(addr);
	s.sin_port = htons(port);
	return s;
}

/* ::ffff:@v4 (host order), or @v6 when @v6 is given. */
static struct sockaddr_in6 sin6(const uint8_t *v6, uint32_t v4, uint16_t port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6};

	if (v6) {
		memcpy(&s.sin6_addr, v6, 16);
	} else {
		s.sin6_addr.s6_addr[10] = 0xff;
		s.sin6_addr.s6_addr[11] = 0xff;
		s.sin6_addr.s6_addr32[3] = htonl(v4);
	}
	s.sin6_port = htons(port);
	return s;
}

/* A non-blocking TCP listener on [::1]; returns its fd and port. */
static int listener6(uint16_t *port)
{
	struct sockaddr_in6 s = sin6(lo6, 0, 0);
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    listen(fd, 16) || getsockname(fd, (struct sockaddr *)&s, &len))
		return -1;
	*port = ntohs(s.sin6_port);
	return fd;
}

static int tcp_connect(int family, const void *sa, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM, 0), rc;

	rc = ev_connect(fd, sa, len);
	close(fd);
	return rc;
}

static int udp_sendto(int family, const void *sa, socklen_t len)
{
	int fd = socket(family, SOCK_DGRAM, 0), rc;

	rc = ev_sendto(fd, sa, len);
	close(fd);
	return rc;
}

FIXTURE(lo)
{
	struct ev_log log;
	int lfd, other_lfd, lfd6, other_lfd6;
	uint16_t port, other_port, port6, other_port6;
};

FIXTURE_SETUP(lo)
{
	ASSERT_EQ(0, ev_clear_policy());
	ASSERT_EQ(0, ev_open(&self->log));
	self->lfd = listener(&self->port);
	self->other_lfd = listener(&self->other_port);
	self->lfd6 = listener6(&self->port6);
	self->other_lfd6 = listener6(&self->other_port6);
	ASSERT_GE(self->lfd6, 0)
	TH_LOG("no IPv6 loopback: %s", strerror(errno));
	ASSERT_GE(self->other_lfd6, 0);
}

FIXTURE_TEARDOWN(lo)
{
	EXPECT_EQ(0, ev_clear_policy());
	close(self->lfd);
	close(self->other_lfd);
	close(self->lfd6);
	close(self->other_lfd6);
	ev_close(&self->log);
}

/* Deny connect and send to 127.0.0.0/8 and ::1 on the listeners' ports. */
static void deny_loopback(struct __test_metadata *_metadata,
			  FIXTURE_DATA(lo) * self)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	uint32_t ops = 1u << FTAGENT_OP_CONNECT | 1u << FTAGENT_OP_SEND;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-lo4", ops, FTAGENT_ACTION_DENY);
	ev_cidr(r, lo4, 4, 8);
	ev_port(r, self->port, self->port);
	r = ev_rule(&p, "no-lo6", ops, FTAGENT_ACTION_DENY);
	ev_cidr(r, lo6, 16, 128);
	ev_port(r, self->port6, self->port6);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
}

TEST_F(lo, connect_to_any_is_connect_to_loopback)
{
	struct sockaddr_in a = sin4(INADDR_ANY, self->port);
	struct sockaddr_in6 m0 = sin6(NULL, INADDR_ANY, self->port);
	struct sockaddr_in6 m1 = sin6(NULL, INADDR_LOOPBACK, self->port);
	struct sockaddr_in6 any6 = sin6(in6addr_any.s6_addr, 0, self->port6);
	const struct ftagent_rec *rec;
	const struct ftagent_rec_verdict *v;
	size_t i = 0;

	/* Without a rule each of these reaches the listener. */
	ASSERT_EQ(0, tcp_connect(AF_INET, &a, sizeof(a)));
	ASSERT_EQ(0, tcp_connect(AF_INET6, &m0, sizeof(m0)));
	ASSERT_EQ(0, tcp_connect(AF_INET6, &any6, sizeof(any6)));
	ev_sleep_ms(50);
	EXPECT_EQ(2, ev_accepts(self->lfd));
	EXPECT_EQ(1, ev_accepts(self->lfd6));

	deny_loopback(_metadata, self);
	EXPECT_EQ(-EPERM, tcp_connect(AF_INET, &a, sizeof(a)));
	EXPECT_EQ(-EPERM, tcp_connect(AF_INET6, &m0, sizeof(m0)));
	EXPECT_EQ(-EPERM, tcp_connect(AF_INET6, &m1, sizeof(m1)));
	EXPECT_EQ(-EPERM, tcp_connect(AF_INET6, &any6, sizeof(any6)));
	ev_sleep_ms(50);
	EXPECT_EQ(0, ev_accepts(self->lfd));
	EXPECT_EQ(0, ev_accepts(self->lfd6));

	/* Other ports: the same addresses go through, and arrive. */
	a.sin_port = htons(self->other_port);
	any6.sin6_port = htons(self->other_port6);
	EXPECT_EQ(0, tcp_connect(AF_INET, &a, sizeof(a)));
	EXPECT_EQ(0, tcp_connect(AF_INET6, &any6, sizeof(any6)));
	ev_sleep_ms(50);
	EXPECT_EQ(1, ev_accepts(self->other_lfd));
	EXPECT_EQ(1, ev_accepts(self->other_lfd6));

	/* The verdict names the address the call would have reached. */
	ev_wait(&self->log, FTAGENT_REC_VERDICT, getpid(), 2000);
	rec = ev_next(&self->log, &i, FTAGENT_REC_VERDICT, getpid());
	ASSERT_NE(NULL, rec);
	v = EV_BODY(rec, struct ftagent_rec_verdict);
	EXPECT_EQ(AF_INET, v->family);
	EXPECT_EQ(127, v->addr[0]);
	EXPECT_EQ(1, v->addr[3]);
	EXPECT_STREQ("no-lo4", v->rule_name);
}

TEST_F(lo, sendto_any_is_sendto_loopback)
{
	struct sockaddr_in a = sin4(INADDR_ANY, self->port);
	struct sockaddr_in6 m0 = sin6(NULL, INADDR_ANY, self->port);
	struct sockaddr_in6 any6 = sin6(in6addr_any.s6_addr, 0, self->port6);
	int fd;

	deny_loopback(_metadata, self);
	EXPECT_EQ(-EPERM, udp_sendto(AF_INET, &a, sizeof(a)));
	a.sin_family = AF_UNSPEC; /* taken as AF_INET by udp_sendmsg() */
	EXPECT_EQ(-EPERM, udp_sendto(AF_INET, &a, sizeof(a)));
	EXPECT_EQ(-EPERM, udp_sendto(AF_INET6, &m0, sizeof(m0)));
	EXPECT_EQ(-EPERM, udp_sendto(AF_INET6, &any6, sizeof(any6)));
	/* A UDP socket connected to 0.0.0.0 sends to its peer, 127.0.0.1. */
	a.sin_family = AF_INET;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	EXPECT_EQ(-EPERM, ev_connect(fd, &a, sizeof(a)));
	close(fd);
	/* Other ports go. */
	a.sin_port = htons(self->other_port);
	any6.sin6_port = htons(self->other_port6);
	EXPECT_EQ(0, udp_sendto(AF_INET, &a, sizeof(a)));
	EXPECT_EQ(0, udp_sendto(AF_INET6, &any6, sizeof(any6)));
}

/* A socket bound to 127.0.0.2 reaches 127.0.0.2 through 0.0.0.0. */
TEST_F(lo, any_is_the_bound_address)
{
	struct sockaddr_in b = sin4(0x7f000002, 0);
	struct sockaddr_in a = sin4(INADDR_ANY, self->port);
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	const uint8_t two[4] = {127, 0, 0, 2};
	int fd;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-127.0.0.2", 1u << FTAGENT_OP_CONNECT,
		    FTAGENT_ACTION_DENY);
	ev_cidr(r, two, 4, 32);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&b, sizeof(b)));
	EXPECT_EQ(-EPERM, ev_connect(fd, &a, sizeof(a)));
	close(fd);
	/* Unbound, 0.0.0.0 is 127.0.0.1: not this rule's. */
	EXPECT_EQ(0, tcp_connect(AF_INET, &a, sizeof(a)));
	ev_sleep_ms(50);
	EXPECT_EQ(1, ev_accepts(self->lfd));
}

/* An IPv6 socket bound to ::ffff:127.0.0.1 connects to :: over IPv4. */
TEST_F(lo, any6_on_a_mapped_socket_is_ipv4_loopback)
{
	struct sockaddr_in6 b = sin6(NULL, INADDR_LOOPBACK, 0);
	struct sockaddr_in6 any6 = sin6(in6addr_any.s6_addr, 0, self->port);
	int fd;

	deny_loopback(_metadata, self);
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&b, sizeof(b)));
	EXPECT_EQ(-EPERM, ev_connect(fd, &any6, sizeof(any6)));
	close(fd);
	ev_sleep_ms(50);
	EXPECT_EQ(0, ev_accepts(self->lfd));
}

/*
 * A UDPv6 socket bound to ::ffff:0.0.0.0 sends to :: over IPv4, to
 * 127.0.0.1 (udpv6_sendmsg()): a send rule on 127.0.0.0/8 refuses it.
 */
TEST_F(lo, sendto_any6_on_a_mapped_socket_is_ipv4_loopback)
{
	struct sockaddr_in6 b = sin6(NULL, INADDR_ANY, 0);
	struct sockaddr_in6 any6 = sin6(in6addr_any.s6_addr, 0, self->port);
	int fd;

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&b, sizeof(b)));
	/* Without a rule it goes (to a TCP port: nothing receives it). */
	EXPECT_EQ(0, ev_sendto(fd, &any6, sizeof(any6)));
	deny_loopback(_metadata, self);
	EXPECT_EQ(-EPERM, ev_sendto(fd, &any6, sizeof(any6)));
	close(fd);
}

/* Fast Open connects inside sendto: a connect rule alone must see it. */
TEST_F(lo, fastopen_under_a_connect_rule_alone)
{
	struct sockaddr_in a = sin4(INADDR_ANY, self->port);
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int fd;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-lo4", 1u << FTAGENT_OP_CONNECT,
		    FTAGENT_ACTION_DENY);
	ev_cidr(r, lo4, 4, 8);
	ev_port(r, self->port, self->port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	EXPECT_EQ(-1, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&a,
			     sizeof(a)));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	ev_sleep_ms(50);
	EXPECT_EQ(0, ev_accepts(self->lfd));
}

/* bind's 0.0.0.0 is "any"; a connect to family 0 is a disconnect. */
TEST_F(lo, bind_any_and_disconnect_are_not_loopback)
{
	struct sockaddr_in a = sin4(INADDR_ANY, 0);
	struct sockaddr_in to = sin4(INADDR_LOOPBACK, self->other_port);
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int fd;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-lo4-port0",
		    1u << FTAGENT_OP_CONNECT | 1u << FTAGENT_OP_BIND,
		    FTAGENT_ACTION_DENY);
	ev_cidr(r, lo4, 4, 8);
	ev_port(r, 0, 0);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	EXPECT_EQ(0, bind(fd, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(0, ev_connect(fd, &to, sizeof(to)));
	a.sin_family = AF_UNSPEC;
	EXPECT_EQ(0, ev_connect(fd, &a, sizeof(a)));
	close(fd);
}

TEST_HARNESS_MAIN
