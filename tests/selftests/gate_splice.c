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
 *   that used it up with EDQUOT;
 * - each call is decided once, however many pages or pipe-fulls it hands
 *   the socket (kmod/xfer.h): a rule's hit count grows by one per call;
 * - but not for longer than its rule set: a call that blocks halfway and
 *   finds a set swapped in meanwhile that refuses its destination stops
 *   there, and the peer gets exactly the bytes it returned.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <linux/sockios.h>

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

/* An enforced set of one send rule for @port: @action, named @name. */
static int one_send_rule(const char *name, uint8_t action, uint16_t port,
			 struct ftnl_error *err)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	int ret = -1;

	ftagent_policy_spec_init(&p);
	r = ftagent_policy_spec_add(&p);
	if (r) {
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->ops = 1u << FTAGENT_OP_SEND;
		r->action = action;
		r->set |= FTAGENT_RULE_SET_PORT;
		r->port_min = r->port_max = port;
		p.enforce = 1;
		ret = set_policy(&p, err);
	}
	ftagent_policy_spec_free(&p);
	return ret;
}

/* A sendfile of @len bytes from offset 0, in a thread of its own. */
struct blocked_sendfile {
	pthread_t t;
	int sock, file;
	size_t len;
	ssize_t ret;
	int err;
	pid_t tid;
};

static void *blocked_sendfile_run(void *arg)
{
	struct blocked_sendfile *b = arg;
	off_t off = 0;

	__atomic_store_n(&b->tid, gettid(), __ATOMIC_RELEASE);
	b->ret = sendfile(b->sock, b->file, &off, b->len);
	b->err = errno;
	return NULL;
}

/* Bytes the connection holds: unsent or unacked at @tx, unread at @rx. */
static int bytes_in_flight(int tx, int rx)
{
	int out = 0, in = 0;

	if (ioctl(tx, SIOCOUTQ, &out) || ioctl(rx, SIOCINQ, &in))
		return -1;
	return out + in;
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

/*
 * sendfile up to 6.4 hands the socket one page at a time, each through
 * kernel_sendpage(); from 6.5 one pipe-full (64 KiB) at a time through
 * sock_sendmsg(); splice from a pipe likewise. Each call is one decision:
 * the rule that lets them go (with a verdict record) counts one hit per
 * call.
 */
TEST_F(splice, sendfile_and_splice_are_decided_once_per_call)
{
	const size_t big = 16 * CHUNK; /* 256 KiB: 64 pages, 4 pipe-fulls */
	struct ftnl_error err;
	struct sink k;
	off_t off = 0;
	loff_t loff;
	int f, i;

	ASSERT_EQ(0, sink_open(&k));
	f = data_file(big);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, one_send_rule("audit-sink", FTAGENT_ACTION_AUDIT,
				   sink_port(&k), &err))
	TH_LOG("%s", err.msg);

	ASSERT_EQ(big, sendfile(k.fds[1], f, &off, big));
	EXPECT_EQ(1, hits_of(0));
	/* A splice from a pipe of 4 pages, three times: three decisions. */
	for (i = 0; i < 3; i++) {
		loff = 0;
		ASSERT_EQ(4 * CHUNK, splice_to(k.fds[1], f, &loff, 4 * CHUNK));
	}
	EXPECT_EQ(4, hits_of(0));
	/* The second sendfile is a call of its own. */
	off = 0;
	ASSERT_EQ(big, sendfile(k.fds[1], f, &off, big));
	EXPECT_EQ(5, hits_of(0));
	EXPECT_EQ(2 * big + 12 * CHUNK, sink_close(&k));
	close(f);
}

/* The default's decision is kept the same way: one default hit a call. */
TEST_F(splice, the_default_decides_a_sendfile_once)
{
	const size_t big = 4 * CHUNK;
	struct ftagent_policy_spec got;
	struct ftnl_error err;
	uint64_t before;
	struct sink k;
	off_t off;
	int f, i;

	ASSERT_EQ(0, sink_open(&k));
	f = data_file(big);
	ASSERT_LE(0, f);
	/* A rule for a port nothing here sends to: the default decides. */
	ASSERT_EQ(0, one_send_rule("deny-elsewhere", FTAGENT_ACTION_DENY,
				   sink_port(&k) ^ 1, &err))
	TH_LOG("%s", err.msg);
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err));
	before = got.default_hits;
	ftagent_policy_spec_free(&got);
	for (i = 0; i < 3; i++) {
		off = 0;
		ASSERT_EQ(big, sendfile(k.fds[1], f, &off, big));
	}
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err));
	/* And one for the request reading them: a send the default let go. */
	EXPECT_EQ(before + 3 + 1, got.default_hits);
	EXPECT_EQ(0, got.rules[0].hits);
	ftagent_policy_spec_free(&got);
	EXPECT_EQ(3 * big, sink_close(&k));
	close(f);
}

/*
 * A decision holds for one call and one rule set: a sendfile blocked
 * halfway (the peer reads nothing) that finds, when it goes on, a set
 * refusing its destination hands over no further page. It returns what
 * it had sent, which is exactly what the peer gets.
 */
TEST_F(splice, a_blocked_sendfile_is_decided_again_under_a_new_rule_set)
{
	const size_t total = 64 * CHUNK; /* 1 MiB */
	struct blocked_sendfile b = {0};
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fds[3], small = 4096, before = -1, now, i;
	uint64_t got = 0;
	struct ftnl_error err;
	char buf[65536];
	uint16_t port;
	ssize_t n;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, setsockopt(fds[2], SOL_SOCKET, SO_RCVBUF, &small,
				sizeof(small)));
	ASSERT_EQ(0, setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &small,
				sizeof(small)));
	ASSERT_EQ(0, getsockname(fds[0], (struct sockaddr *)&sin, &len));
	port = ntohs(sin.sin_port);
	b.file = data_file(total);
	ASSERT_LE(0, b.file);
	b.sock = fds[1];
	b.len = total;
	ASSERT_EQ(0,
		  one_send_rule("audit-sink", FTAGENT_ACTION_AUDIT, port, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(0, pthread_create(&b.t, NULL, blocked_sendfile_run, &b));

	/* Blocked: asleep, with the bytes it handed over standing still. */
	for (i = 0; i < 3000; i++) {
		pid_t tid = __atomic_load_n(&b.tid, __ATOMIC_ACQUIRE);

		usleep(10000);
		now = bytes_in_flight(fds[1], fds[2]);
		if (tid && ft_thread_state(tid) == 'S' && now > 0 &&
		    now == before)
			break;
		before = now;
	}
	ASSERT_LT(i, 3000) TH_LOG("the sendfile never blocked");
	/* More than one page went, by one decision. */
	EXPECT_LT(4096, now);
	EXPECT_EQ(1, hits_of(0));

	ASSERT_EQ(0,
		  one_send_rule("deny-sink", FTAGENT_ACTION_DENY, port, &err))
	TH_LOG("%s", err.msg);
	/* Let it go on: it must stop at its next piece. */
	for (;;) {
		n = recv(fds[2], buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			got += n;
			continue;
		}
		if (!pthread_tryjoin_np(b.t, NULL))
			break;
		usleep(1000);
	}
	EXPECT_LT(0, b.ret);
	EXPECT_GT((ssize_t)total, b.ret);
	EXPECT_LE(now, b.ret);
	EXPECT_EQ(1, hits_of(0));
	/* What the peer gets is what the call returned. */
	shutdown(fds[1], SHUT_WR);
	while ((n = recv(fds[2], buf, sizeof(buf), 0)) > 0)
		got += n;
	EXPECT_EQ((uint64_t)b.ret, got);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	close(b.file);
}

TEST_HARNESS_MAIN
