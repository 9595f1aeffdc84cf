// SPDX-License-Identifier: GPL-2.0
/*
 * sendfile and splice to a socket, gated the same on every kernel: up to
 * 6.4 they reach the socket through kernel_sendpage(), which never calls
 * security_socket_sendmsg(), so the gate hooks it too; from 6.5 on
 * splice_to_socket() calls sock_sendmsg() (MSG_SPLICE_PAGES) and the send
 * hook sees them (kmod/compat/net.h). Either way:
 *
 * - a send rule refuses sendfile and splice to its port with EPERM, and
 *   nothing reaches the peer, while the same calls to another port pass;
 * - a bytes_sent budget is charged exactly the bytes sendfile and splice
 *   returned (and the peer received), and refuses the call after the one
 *   that used it up with EDQUOT.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/sendfile.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "../../tools/lib/policy.h"

#define CHUNK 16384

/* A file of @size bytes on tmpfs, opened for reading at offset 0. */
static int data_file(size_t size)
{
	char path[64], buf[4096];
	size_t left = size;
	int fd;

	memset(buf, 'd', sizeof(buf));
	snprintf(path, sizeof(path), "/tmp/ftg-splice.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	unlink(path);
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		if (ft_write_all(fd, buf, n))
			return -1;
		left -= n;
	}
	return lseek(fd, 0, SEEK_SET) == 0 ? fd : -1;
}

/* splice @len bytes of @file (from *@off) through a pipe into @sock. */
static ssize_t splice_to(int sock, int file, loff_t *off, size_t len)
{
	int p[2];
	ssize_t in, out;

	if (pipe(p))
		return -1;
	in = splice(file, off, p[1], NULL, len, 0);
	if (in <= 0) {
		out = in;
		goto done;
	}
	out = splice(p[0], NULL, sock, NULL, in, 0);
done:
	close(p[0]);
	close(p[1]);
	return out;
}

static int set_policy(struct ftagent_policy_spec *p, struct ftnl_error *err)
{
	uint64_t gen;

	return ftagent_set_policy(ctl(), p, &gen, err);
}

FIXTURE(splice){};

FIXTURE_SETUP(splice)
{
}

FIXTURE_TEARDOWN(splice)
{
	struct ftagent_policy_spec p;
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	EXPECT_EQ(0, set_policy(&p, &err));
	EXPECT_EQ(0, set_budgets(&s, &err));
	ftagent_policy_spec_free(&p);
}

TEST_F(splice, a_send_rule_refuses_sendfile_and_splice)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	struct sink denied, other;
	off_t off = 0;
	loff_t loff = 0;
	int f;

	ASSERT_EQ(0, sink_open(&denied));
	ASSERT_EQ(0, sink_open(&other));
	f = data_file(CHUNK);
	ASSERT_LE(0, f);

	ftagent_policy_spec_init(&p);
	r = ftagent_policy_spec_add(&p);
	ASSERT_NE(NULL, r);
	snprintf(r->name, sizeof(r->name), "no-send-to-sink");
	r->ops = 1u << FTAGENT_OP_SEND;
	r->action = FTAGENT_ACTION_DENY;
	r->set |= FTAGENT_RULE_SET_PORT;
	r->port_min = r->port_max = sink_port(&denied);
	p.enforce = 1;
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	EXPECT_EQ(-1, sendfile(denied.fds[1], f, &off, CHUNK));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, splice_to(denied.fds[1], f, &loff, CHUNK));
	EXPECT_EQ(EPERM, errno);
	/* The same calls to another port go through, whole. */
	off = 0;
	loff = 0;
	EXPECT_EQ(CHUNK, sendfile(other.fds[1], f, &off, CHUNK));
	EXPECT_EQ(CHUNK, splice_to(other.fds[1], f, &loff, CHUNK));

	EXPECT_EQ(0, sink_close(&denied));
	EXPECT_EQ(2 * CHUNK, sink_close(&other));
	close(f);
	ftagent_policy_spec_free(&p);
}

TEST_F(splice, a_bytes_sent_budget_charges_sendfile_and_splice)
{
	const uint64_t limit = 10 * CHUNK + 100;
	struct ftagent_budget_set s = {0}, got = {0};
	struct ftnl_error err;
	uint64_t sent = 0;
	struct sink k;
	off_t off = 0;
	loff_t loff;
	ssize_t n;
	int f, i, e = 0;

	ASSERT_EQ(0, sink_open(&k));
	f = data_file(CHUNK);
	ASSERT_LE(0, f);
	budget(&s, "splice-budget", FTAGENT_METRIC_BYTES_SENT, limit, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);

	/* Alternate the two calls until the budget refuses one. */
	for (i = 0; i < 100; i++) {
		off = 0;
		loff = 0;
		n = i % 2 ? splice_to(k.fds[1], f, &loff, CHUNK)
			  : sendfile(k.fds[1], f, &off, CHUNK);
		if (n < 0) {
			e = errno;
			break;
		}
		ASSERT_EQ(CHUNK, n);
		sent += n;
	}
	EXPECT_EQ(EDQUOT, e);
	/* The limit went out, and at most the one call that crossed it. */
	EXPECT_GE(sent, limit);
	EXPECT_LT(sent, limit + CHUNK);
	ASSERT_EQ(0, ftagent_get_budgets(ctl(), &got, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(1, got.n);
	EXPECT_EQ(sent, got.b[0].used);
	EXPECT_EQ(1, got.b[0].denied);
	/* Both calls stay refused, and the peer got exactly what was sent. */
	off = 0;
	loff = 0;
	EXPECT_EQ(-1, sendfile(k.fds[1], f, &off, CHUNK));
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(-1, splice_to(k.fds[1], f, &loff, CHUNK));
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(sent, sink_close(&k));
	close(f);
	ftagent_budget_set_free(&s);
	ftagent_budget_set_free(&got);
}

TEST_HARNESS_MAIN
