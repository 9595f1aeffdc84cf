// SPDX-License-Identifier: GPL-2.0
/*
 * MPTCP: a connect on an IPPROTO_MPTCP socket passes the same
 * security_socket_connect as TCP, so an address rule refuses it, Fast
 * Open included; and its counters keep the protocol whole (262, which an
 * 8-bit field kept as 6, TCP). Extra subflows are the kernel's own
 * connects (docs/policy.md says what a rule does not see of them).
 * Skipped where the kernel has no MPTCP or net.mptcp.enabled is 0.
 */
#include "kselftest_harness.h"
#include "evasion_test.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

static int mptcp_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
}

FIXTURE(mptcp)
{
	int lfd;
	uint16_t port;
};

FIXTURE_SETUP(mptcp)
{
	int fd = mptcp_socket();

	if (fd < 0)
		SKIP(return, "no MPTCP here (%s): net.mptcp.enabled?",
			   strerror(errno));
	close(fd);
	ASSERT_EQ(0, ev_clear_policy());
	self->lfd = listener(&self->port);
}

FIXTURE_TEARDOWN(mptcp)
{
	EXPECT_EQ(0, ev_clear_policy());
	if (self->lfd > 0)
		close(self->lfd);
}

TEST_F(mptcp, an_address_rule_refuses_an_mptcp_connect)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(self->port)};
	const uint8_t lo[4] = {127, 0, 0, 1};
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int fd;

	FT_RETURN_IF_SETUP_SKIPPED();
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* No rule: it connects (falling back to TCP with a TCP listener). */
	fd = mptcp_socket();
	ASSERT_EQ(0, ev_connect(fd, &to, sizeof(to)));
	close(fd);
	ev_sleep_ms(50);
	EXPECT_EQ(1, ev_accepts(self->lfd));

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-lo", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_DENY);
	ev_cidr(r, lo, 4, 32);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	fd = mptcp_socket();
	EXPECT_EQ(-EPERM, ev_connect(fd, &to, sizeof(to)));
	close(fd);
	/* Fast Open on MPTCP connects inside sendto: decided as a connect. */
	fd = mptcp_socket();
	errno = 0;
	EXPECT_EQ(-1, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&to,
			     sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	ev_sleep_ms(50);
	EXPECT_EQ(0, ev_accepts(self->lfd));
}

/* The counters of an MPTCP socket say 262, a TCP socket's 6. */
TEST_F(mptcp, counters_keep_the_protocol_whole)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(self->port)};
	struct ft_counters fc;
	int fd[2], i, found[2] = {0, 0};
	uint64_t bytes[2] = {0, 0};
	uint64_t ino[2];
	uint32_t dev;
	size_t k;

	FT_RETURN_IF_SETUP_SKIPPED();
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	fd[0] = mptcp_socket();
	fd[1] = socket(AF_INET, SOCK_STREAM, 0);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ev_connect(fd[i], &to, sizeof(to)));
		ASSERT_EQ(4, write(fd[i], "data", 4));
		ft_fd_id(fd[i], &dev, &ino[i]);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	for (k = 0; k < fc.n; k++) {
		const struct ftagent_counter *c = &fc.c[k];

		for (i = 0; i < 2; i++) {
			if (c->kind != FTAGENT_OBJ_SOCKET || c->ino != ino[i])
				continue;
			found[i]++;
			EXPECT_EQ(AF_INET, c->family);
			bytes[i] += c->out.bytes;
			EXPECT_EQ(i ? IPPROTO_TCP : IPPROTO_MPTCP,
				  c->protocol_full);
			/* The 8-bit field of ABI 0.5: MPTCP as TCP. */
			EXPECT_EQ(IPPROTO_TCP, c->protocol);
			EXPECT_EQ(i ? IPPROTO_TCP : IPPROTO_MPTCP,
				  ftagent_counter_protocol(c));
		}
	}
	/* One counter per CPU that charged it. */
	EXPECT_GE(found[0], 1);
	EXPECT_GE(found[1], 1);
	EXPECT_EQ(4, bytes[0]);
	EXPECT_EQ(4, bytes[1]);
	ft_counters_free(&fc);
	close(fd[0]);
	close(fd[1]);
	ev_accepts(self->lfd);
}

TEST_HARNESS_MAIN
