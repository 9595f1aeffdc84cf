// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink client (tools/lib/ftnl.c) after the kernel dropped answers:
 * the ENOBUFS the socket then holds is reported, not waited on, and the
 * answers still queued for requests whose callers gave up are not taken
 * for the next request's. The fault-injection sweeps (tests/faults) make
 * the kernel drop an ACK by failing its allocation; here a full receive
 * buffer makes it drop them, on any kernel.
 *
 * Runs in the guest as root with ftagent.ko loaded.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/ftagent.h>
#include <linux/genetlink.h>

#include "kselftest_harness.h"
#include "../../tools/lib/ftnl.h"

#define REQUESTS 16

static struct nlmsghdr *get_status(struct ftnl *nl, char *buf)
{
	return ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);
}

/* Answers dropped (a full buffer): the next request says ENOBUFS. */
TEST(dropped_answers_are_reported)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftnl_error err;
	struct ftnl nl;
	int i, rcvbuf = 0, rc;

	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	/* The smallest buffer the kernel allows: one answer fills it. */
	ASSERT_EQ(0, setsockopt(mnl_socket_get_fd(nl.sock), SOL_SOCKET,
				SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)));
	for (i = 0; i < REQUESTS; i++) {
		struct nlmsghdr *nlh = get_status(&nl, buf);

		ASSERT_LT(0, mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len));
	}
	rc = ftnl_transact(&nl, get_status(&nl, buf), NULL, NULL, &err);
	EXPECT_EQ(-1, rc);
	EXPECT_EQ(ENOBUFS, err.err)
	{
		TH_LOG("got: %s (errno %d)", err.msg, err.err);
	}
	ftnl_close(&nl);
}

/* An answer nobody read (its caller gave up) is not the next one's. */
TEST(stale_answer_is_skipped)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftnl_error err;
	struct nlmsghdr *nlh;
	struct ftnl nl;
	int rc;

	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	nlh = get_status(&nl, buf);
	ASSERT_LT(0, mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len));
	rc = ftnl_transact(&nl, get_status(&nl, buf), NULL, NULL, &err);
	EXPECT_EQ(0, rc)
	{
		TH_LOG("got: %s (errno %d)", err.msg, err.err);
	}
	ftnl_close(&nl);
}

TEST_HARNESS_MAIN
