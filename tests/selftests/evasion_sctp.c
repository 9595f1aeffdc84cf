// SPDX-License-Identifier: GPL-2.0
/*
 * SCTP reaches connect and bind by ways of its own: connectx and bindx
 * (setsockopt SCTP_SOCKOPT_CONNECTX, SCTP_SOCKOPT_BINDX_ADD) and the
 * association a sendmsg on a one-to-many socket opens. None passes
 * security_socket_connect or _bind; all pass security_sctp_bind_connect,
 * which the gate hooks: a connect or bind rule refuses them as it refuses
 * connect() and bind(), and a connects budget counts the associations
 * they open. Skipped where the sctp module can't be loaded.
 */
#include "kselftest_harness.h"
#include "evasion_test.h"
#include "budget_test.h"

/* From linux/sctp.h, which needs the rest of lksctp's headers. */
#ifndef SOL_SCTP
#define SOL_SCTP 132
#endif
#define SCTP_SOCKOPT_BINDX_ADD 100
#define SCTP_SOCKOPT_CONNECTX  110

static struct sockaddr_in lo(uint32_t addr, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET};

	s.sin_addr.s_addr = htonl(addr);
	s.sin_port = htons(port);
	return s;
}

/* An SCTP listener on 127.0.0.1; its fd and port. */
static int sctp_listener(int type, uint16_t *port)
{
	struct sockaddr_in s = lo(INADDR_LOOPBACK, 0);
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET, type, IPPROTO_SCTP);

	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    listen(fd, 16) || getsockname(fd, (struct sockaddr *)&s, &len))
		return -1;
	*port = ntohs(s.sin_port);
	return fd;
}

FIXTURE(sctp)
{
	int lfd;
	uint16_t port;
};

FIXTURE_SETUP(sctp)
{
	int fd;

	/* The guest's root is the host's: its /lib/modules. */
	if (system("modprobe sctp 2>/dev/null"))
		fprintf(stderr, "# modprobe sctp failed\n");
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	if (fd < 0)
		SKIP(return, "no SCTP (%s): modprobe sctp", strerror(errno));
	close(fd);
	ASSERT_EQ(0, ev_clear_policy());
	self->lfd = sctp_listener(SOCK_STREAM, &self->port);
	ASSERT_GE(self->lfd, 0);
}

FIXTURE_TEARDOWN(sctp)
{
	EXPECT_EQ(0, ev_clear_policy());
	EXPECT_EQ(0, clear_budgets());
	if (self->lfd > 0)
		close(self->lfd);
}

static void deny(struct __test_metadata *_metadata, uint32_t op, uint16_t port)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	const uint8_t a[4] = {127, 0, 0, 1};
	struct ftagent_rule_spec *r;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-sctp", 1u << op, FTAGENT_ACTION_DENY);
	if (op == FTAGENT_OP_CONNECT)
		ev_cidr(r, a, 4, 32);
	ev_port(r, port, port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
}

/* setsockopt(SCTP_SOCKOPT_CONNECTX) with @n addresses: >= 0 or -errno. */
static int connectx(const struct sockaddr_in *a, int n)
{
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), rc;

	rc = setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_CONNECTX, a, n * sizeof(*a));
	rc = rc < 0 ? -errno : 0;
	close(fd);
	return rc;
}

TEST_F(sctp, connectx_is_a_connect)
{
	/* The denied address second: every address is decided. */
	struct sockaddr_in a[2] = {lo(0x7f000002, self->port),
				   lo(INADDR_LOOPBACK, self->port)};
	struct sockaddr_in one = lo(INADDR_LOOPBACK, self->port);
	int fd;

	FT_RETURN_IF_SETUP_SKIPPED();
	ASSERT_EQ(0, connectx(&a[1], 1));
	deny(_metadata, FTAGENT_OP_CONNECT, self->port);
	EXPECT_EQ(-EPERM, connectx(a, 2));
	EXPECT_EQ(-EPERM, connectx(&a[1], 1));
	/* An address the rule does not name goes (refused by no one). */
	EXPECT_NE(-EPERM, connectx(&a[0], 1));
	/* connect() as ever. */
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	EXPECT_EQ(-EPERM, ev_connect(fd, &one, sizeof(one)));
	close(fd);
}

/* A one-to-many socket's sendmsg to a new peer opens an association. */
TEST_F(sctp, a_send_that_opens_an_association_is_a_connect)
{
	struct sockaddr_in to = lo(INADDR_LOOPBACK, 0);
	uint16_t port;
	int l = sctp_listener(SOCK_SEQPACKET, &port), fd;

	FT_RETURN_IF_SETUP_SKIPPED();
	ASSERT_GE(l, 0);
	to.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	ASSERT_EQ(0, ev_sendto(fd, &to, sizeof(to)));
	close(fd);
	/* A connect rule only: the send is not refused as a send. */
	deny(_metadata, FTAGENT_OP_CONNECT, port);
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	EXPECT_EQ(-EPERM, ev_sendto(fd, &to, sizeof(to)));
	close(fd);
	close(l);
}

TEST_F(sctp, bindx_is_a_bind)
{
	struct sockaddr_in a[2] = {lo(INADDR_LOOPBACK, 999),
				   lo(0x7f000002, 999)};
	struct sockaddr_in any = lo(INADDR_LOOPBACK, 0);
	int fd;

	FT_RETURN_IF_SETUP_SKIPPED();
	deny(_metadata, FTAGENT_OP_BIND, 999);
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD, a,
				 sizeof(a)));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)a, sizeof(a[0])));
	EXPECT_EQ(EPERM, errno);
	/* Another port binds. */
	EXPECT_EQ(0, setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD, &any,
				sizeof(any)));
	close(fd);
}

/*
 * connectx may name some 262000 addresses, each a rule walk with
 * preemption off: above 64 the call is refused whole, whatever the rules
 * say of its addresses.
 */
TEST_F(sctp, connectx_over_64_addresses_is_refused)
{
	struct sockaddr_in a[65];
	int i;

	FT_RETURN_IF_SETUP_SKIPPED();
	for (i = 0; i < 65; i++)
		a[i] = lo(INADDR_LOOPBACK + i, self->port);
	/* A connect rule that names none of them. */
	deny(_metadata, FTAGENT_OP_CONNECT, self->port + 1);
	EXPECT_NE(-EPERM, connectx(a, 64));
	EXPECT_EQ(-EPERM, connectx(a, 65));
}

/*
 * bindx port 0 binds the port the endpoint already has (sctp_do_bind()):
 * after bind(127.0.0.1:998), bindx(127.0.0.2:0) binds 127.0.0.2:998, and
 * a rule denying bind to 127.0.0.2 port 998 refuses it.
 */
TEST_F(sctp, bindx_port_0_is_the_bound_port)
{
	struct sockaddr_in first = lo(INADDR_LOOPBACK, 998);
	struct sockaddr_in b0 = lo(0x7f000002, 0);
	const uint8_t b[4] = {127, 0, 0, 2};
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int fd;

	FT_RETURN_IF_SETUP_SKIPPED();
	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-127.0.0.2:998", 1u << FTAGENT_OP_BIND,
		    FTAGENT_ACTION_DENY);
	ev_cidr(r, b, 4, 32);
	ev_port(r, 998, 998);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&first, sizeof(first)));
	EXPECT_EQ(-1, setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD, &b0,
				 sizeof(b0)));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	/* Unbound, port 0 is an ephemeral port: not the rule's. */
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	EXPECT_EQ(0, setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD, &b0,
				sizeof(b0)));
	close(fd);
}

/*
 * A connects budget counts what opens an association: connectx once,
 * whatever number of addresses it names, and a one-to-many sendmsg to a
 * new peer once; a send on the association it opened is no connect.
 * Past the limit both are refused (EDQUOT), as connect() is.
 */
TEST_F(sctp, connectx_and_a_send_that_opens_an_association_are_charged)
{
	struct sockaddr_in one = lo(INADDR_LOOPBACK, self->port);
	struct sockaddr_in two[2] = {lo(INADDR_LOOPBACK, self->port),
				     lo(0x7f000002, self->port)};
	struct sockaddr_in to = lo(INADDR_LOOPBACK, 0);
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	uint16_t port;
	int l, fd, fd2;

	FT_RETURN_IF_SETUP_SKIPPED();
	l = sctp_listener(SOCK_SEQPACKET, &port);
	ASSERT_GE(l, 0);
	to.sin_port = htons(port);
	budget(&s, "three-connects", FTAGENT_METRIC_CONNECTS, 3, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, connectx(&one, 1));
	ASSERT_EQ(0, connectx(two, 2));
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	ASSERT_EQ(0, ev_sendto(fd, &to, sizeof(to)));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3, got.used);
	EXPECT_EQ(0, got.denied);
	/* The association is open: no connect. */
	EXPECT_EQ(0, ev_sendto(fd, &to, sizeof(to)));
	EXPECT_EQ(-EDQUOT, connectx(&one, 1));
	fd2 = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	EXPECT_EQ(-EDQUOT, ev_sendto(fd2, &to, sizeof(to)));
	close(fd2);
	fd2 = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	EXPECT_EQ(-EDQUOT, ev_connect(fd2, &one, sizeof(one)));
	close(fd2);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3, got.used);
	EXPECT_EQ(3, got.denied);
	close(fd);
	close(l);
	ftagent_budget_set_free(&s);
}

TEST_HARNESS_MAIN
