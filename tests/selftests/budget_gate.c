// SPDX-License-Identifier: GPL-2.0
/*
 * Budgets, charged in the kernel on every call: a byte budget of N lets
 * a principal send at most N plus one call's bytes, then EDQUOT, and the
 * window resets; call budgets refuse the call past the limit; the same
 * command line run K times trips a repeats budget (the run past it dies
 * before it starts) while other command lines don't; alerts fire once
 * at their mark; usage, refusals and alerts read back exactly; a budget
 * set with one bad budget is refused whole and the old one stays.
 * Every budget here is scoped to this test's process subtree.
 */
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "evasion_test.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/status.h"

/* Send 4 KiB at a time until refused: bytes sent, and the errno. */
static uint64_t send_until_refused(int fd, int *err)
{
	char buf[4096] = {0};
	uint64_t total = 0;
	ssize_t n;

	for (;;) {
		n = send(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			*err = errno;
			return total;
		}
		total += n;
		if (total > (64u << 20)) {
			*err = 0;
			return total;
		}
	}
}

FIXTURE(budget)
{
	struct ev_log log;
};

FIXTURE_SETUP(budget)
{
	ASSERT_EQ(0, clear_budgets());
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(budget)
{
	EXPECT_EQ(0, clear_budgets());
	ev_close(&self->log);
}

TEST_F(budget, bytes_sent_stop_within_one_call_then_the_window_resets)
{
	const uint64_t limit = 100000;
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	const struct ftagent_rec *rec;
	const struct ftagent_rec_verdict *v;
	struct ftnl_error err;
	struct sink k;
	uint64_t sent;
	size_t i = 0;
	int e = 0;

	budget(&s, "send-100k", FTAGENT_METRIC_BYTES_SENT, limit, 3000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, sink_open(&k));
	sent = send_until_refused(k.fds[1], &e);
	EXPECT_EQ(EDQUOT, e);
	/* At least the limit went out, and at most one call beyond it. */
	EXPECT_GE(sent, limit);
	EXPECT_LT(sent, limit + 4096);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(sent, got.used);
	EXPECT_EQ(1, got.denied);
	EXPECT_GT(got.window_left_ms, 0);
	/* write() on the socket is refused too. */
	EXPECT_EQ(-1, write(k.fds[1], "x", 1));
	EXPECT_EQ(EDQUOT, errno);

	ev_wait(&self->log, FTAGENT_REC_VERDICT, getpid(), 2000);
	rec = ev_next(&self->log, &i, FTAGENT_REC_VERDICT, getpid());
	ASSERT_NE(NULL, rec);
	v = EV_BODY(rec, struct ftagent_rec_verdict);
	EXPECT_EQ(FTAGENT_VERDICT_SRC_BUDGET, v->source);
	EXPECT_EQ(FTAGENT_VERDICT_OVER_BUDGET, v->verdict);
	EXPECT_EQ(FTAGENT_METRIC_BYTES_SENT, v->metric);
	EXPECT_EQ(-EDQUOT, v->error);
	EXPECT_EQ(limit, v->limit);
	EXPECT_STREQ("send-100k", v->rule_name);

	/* A new window: sending works again. */
	ev_sleep_ms(3100);
	EXPECT_EQ(1, send(k.fds[1], "x", 1, 0));
	sink_close(&k);
	ftagent_budget_set_free(&s);
}

/* A process named like an excluded one is not counted, but it is charged. */
TEST_F(budget, an_excluded_name_does_not_escape_a_budget)
{
	const uint64_t limit = 50000;
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	struct sink k;
	uint64_t sent;
	int e = 0;

	budget(&s, "excluded-too", FTAGENT_METRIC_BYTES_SENT, limit, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, sink_open(&k));
	/* An excluded name: no counters, no events, but the budget holds. */
	ASSERT_EQ(0, ev_exclude(0, "ftgate_excl"));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "ftgate_excl"));
	sent = send_until_refused(k.fds[1], &e);
	prctl(PR_SET_NAME, "budget_gate");
	EXPECT_EQ(0, ev_reset_filters());
	EXPECT_EQ(EDQUOT, e);
	EXPECT_GE(sent, limit);
	EXPECT_LT(sent, limit + 4096);
	sink_close(&k);
	ftagent_budget_set_free(&s);
}

TEST_F(budget, file_writes_count_and_others_are_untouched)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	char buf[1000] = {0};
	int fd, i, refused = -1;

	budget(&s, "write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	fd = open("/tmp/ftg-budget", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 10; i++)
		if (write(fd, buf, sizeof(buf)) < 0) {
			EXPECT_EQ(EDQUOT, errno);
			refused = i;
			break;
		}
	/* 5 writes of 1000 reach the limit; the 6th is refused. */
	EXPECT_EQ(5, refused);
	close(fd);
	unlink("/tmp/ftg-budget");
	ftagent_budget_set_free(&s);
}

TEST_F(budget, the_call_past_a_call_budget_is_refused)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	uint16_t port;
	int lfd = listener(&port), i;

	budget(&s, "three-connects", FTAGENT_METRIC_CONNECTS, 3, 60000)
		->alert_at = 2;
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, try_connect(port));
	EXPECT_EQ(-EDQUOT, try_connect(port));
	EXPECT_EQ(-EDQUOT, try_connect(port));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3, got.used);
	EXPECT_EQ(2, got.denied);
	EXPECT_EQ(1, got.alerts);
	close(lfd);
	ftagent_budget_set_free(&s);
}

/* The first budget's use and refusals, as the module reads them back. */
static void expect_used(struct __test_metadata *_metadata, uint64_t used,
			uint64_t denied)
{
	struct ftagent_budget_spec got;

	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(used, got.used);
	EXPECT_EQ(denied, got.denied);
}

/*
 * Until the first budget has @used charged (2 s at most): 0, or -1. For
 * a charge that comes a moment after the completion the test waited for.
 */
static int wait_used(uint64_t used)
{
	struct ftagent_budget_spec got;
	int i;

	for (i = 0; i < 200; i++) {
		if (get_one(&got))
			return -1;
		if (got.used >= used)
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * Requests through io_uring are charged as the calls they stand for, one
 * each, whether the submitter, an io-wq worker or the SQPOLL thread runs
 * them, and refused past the limit with EDQUOT in their CQE: opens and
 * bytes sent. (Not connects yet: an inline CONNECT that finds the
 * handshake in progress is tried again after a poll and charged each
 * time; docs/policy.md, "Budgets".)
 */
TEST_F(budget, io_uring_requests_are_charged_as_their_calls)
{
	const char *file = "/tmp/ftg-iour-opens";
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	char buf[600] = {0};
	uint16_t port;
	int lfd = listener(&port), mode, fd, c;

	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	close(fd);
	budget(&s, "opens", FTAGENT_METRIC_OPENS, IOUR_MODES, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (mode = 0; mode < IOUR_MODES; mode++) {
		fd = iour_one(mode, IORING_OP_OPENAT, AT_FDCWD, (uintptr_t)file,
			      0, 0);
		EXPECT_LE(0, fd) TH_LOG("mode %d: %d", mode, fd);
		if (fd >= 0)
			close(fd);
	}
	EXPECT_EQ(-EDQUOT, iour_one(IOUR_ASYNC, IORING_OP_OPENAT, AT_FDCWD,
				    (uintptr_t)file, 0, 0));
	expect_used(_metadata, IOUR_MODES, 1);
	ftagent_budget_set_free(&s);
	unlink(file);

	/* N bytes and one call's more, then EDQUOT. */
	memset(&s, 0, sizeof(s));
	budget(&s, "sent", FTAGENT_METRIC_BYTES_SENT, 1000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	c = socket(AF_INET, SOCK_STREAM, 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(port);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(600, iour_one(IOUR_ASYNC, IORING_OP_SEND, c, (uintptr_t)buf,
				sizeof(buf), 0));
	EXPECT_EQ(600, iour_one(IOUR_SQPOLL, IORING_OP_SEND, c, (uintptr_t)buf,
				sizeof(buf), 0));
	/*
	 * The SQPOLL thread posts the CQE before it frees the request,
	 * where the bytes are charged: wait for the charge, or the next
	 * send may come first and pass (docs/policy.md, "Budgets": what a
	 * principal has in flight can overshoot).
	 */
	EXPECT_EQ(0, wait_used(1200));
	EXPECT_EQ(-EDQUOT, iour_one(IOUR_INLINE, IORING_OP_SEND, c,
				    (uintptr_t)buf, sizeof(buf), 0));
	expect_used(_metadata, 1200, 1);
	close(c);
	close(lfd);
	ftagent_budget_set_free(&s);
}

/* 127.0.0.1:@port. */
static struct sockaddr_in loopback_to(uint16_t port)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(port)};

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return to;
}

/*
 * A connects budget counts the connections a principal starts, as the
 * kernel counts them (Tcp ActiveOpens): a connect() that finds its
 * socket connecting or connected already (EALREADY, EISCONN) starts
 * nothing and is not charged, nor is io_uring's retry of a CONNECT in
 * progress, nor a second Fast Open send on the connection the first
 * one started; and past the limit such a call still says EISCONN, while
 * a new connection is refused.
 */
TEST_F(budget, a_connect_that_starts_nothing_is_not_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	struct sockaddr_in to;
	uint16_t port;
	int lfd = listener(&port), fd, i, mode, rc, eisconn = 0;
	long opens0;

	to = loopback_to(port);
	budget(&s, "connects", FTAGENT_METRIC_CONNECTS, 6, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	opens0 = tcp_active_opens();
	ASSERT_LE(0, opens0);

	/* A non-blocking connect, polled with connect() until it is up. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, fd);
	rc = connect(fd, (struct sockaddr *)&to, sizeof(to));
	ASSERT_TRUE(rc == 0 || errno == EINPROGRESS);
	for (i = 0; i < 200 && eisconn < 5; i++) {
		rc = connect(fd, (struct sockaddr *)&to, sizeof(to));
		if (rc && errno == EISCONN) {
			eisconn++;
		} else if (rc) {
			EXPECT_EQ(EALREADY, errno);
			if (errno != EALREADY)
				break;
		} else {
			usleep(1000);
		}
	}
	EXPECT_EQ(5, eisconn);
	close(fd);

	/* io_uring: one connect each, however often it tries. */
	for (mode = 0; mode < IOUR_MODES; mode++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, iour_one(mode, IORING_OP_CONNECT, fd,
				      (uintptr_t)&to, 0, sizeof(to)))
		TH_LOG("mode %d", mode);
		close(fd);
	}

	/* Fast Open: the send that connects is one; the next, none. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&to,
			    sizeof(to)));
	EXPECT_EQ(-1, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&to,
			     sizeof(to)));
	EXPECT_EQ(EISCONN, errno);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EISCONN, errno);
	/* A Fast Open send() with no address starts nothing either. */
	i = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, i);
	EXPECT_EQ(-1, send(i, "x", 1, MSG_FASTOPEN));
	close(i);

	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5, got.used);
	EXPECT_EQ(5, tcp_active_opens() - opens0);

	/* The sixth uses the budget up; a seventh is refused... */
	EXPECT_EQ(0, try_connect(port));
	EXPECT_EQ(-EDQUOT, try_connect(port));
	/* ...but a connect() that starts nothing still says so. */
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EISCONN, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(6, got.used);
	EXPECT_EQ(1, got.denied);
	EXPECT_EQ(6, tcp_active_opens() - opens0);
	close(fd);
	close(lfd);
	ftagent_budget_set_free(&s);
}

struct reset_race {
	int fd;
	volatile int stop;
	struct sockaddr_in to;
};

/* Resets the socket (connect(AF_UNSPEC)) until told to stop. */
static void *reset_loop(void *arg)
{
	struct reset_race *r = arg;
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};

	while (!r->stop)
		connect(r->fd, &unspec, sizeof(unspec));
	return NULL;
}

/* Accepts and closes until the listener is shut down. */
static void *accept_loop(void *arg)
{
	int lfd = *(int *)arg, c;

	for (;;) {
		c = accept(lfd, NULL, NULL);
		if (c >= 0)
			close(c);
		else if (errno != EAGAIN && errno != EINTR)
			return NULL;
		else
			usleep(1000);
	}
}

/*
 * A thread resetting the socket while another connects it: every
 * connection started is charged once, none twice and none missed,
 * against the kernel's count of connections started.
 */
TEST_F(budget, connects_raced_by_resets_are_each_charged_once)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct reset_race r = {0};
	struct ftnl_error err;
	pthread_t reset, drain;
	uint16_t port;
	int lfd = listener(&port), i;
	long opens0, opens;

	r.to = loopback_to(port);
	r.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, r.fd);
	budget(&s, "connects", FTAGENT_METRIC_CONNECTS, 1000000, 600000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	opens0 = tcp_active_opens();
	ASSERT_EQ(0, pthread_create(&drain, NULL, accept_loop, &lfd));
	ASSERT_EQ(0, pthread_create(&reset, NULL, reset_loop, &r));
	for (i = 0; i < 2000; i++)
		connect(r.fd, (struct sockaddr *)&r.to, sizeof(r.to));
	r.stop = 1;
	pthread_join(reset, NULL);
	shutdown(lfd, SHUT_RDWR);
	pthread_join(drain, NULL);
	opens = tcp_active_opens() - opens0;
	ASSERT_EQ(0, get_one(&got));
	EXPECT_LT(0, opens);
	EXPECT_EQ(opens, got.used);
	close(r.fd);
	close(lfd);
	ftagent_budget_set_free(&s);
}

#ifndef AF_SMC
#define AF_SMC 43
#endif

/*
 * AF_SMC connects its TCP socket underneath from the kernel (a kernel
 * socket's kernel_connect(), which passes no security hook), and its
 * Fast Open send falls back to TCP and connects that socket inside the
 * send: each is charged at its own socket's hook, and refused past the
 * limit, before any connection starts.
 */
TEST_F(budget, an_smc_connect_is_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	struct sockaddr_in to;
	uint16_t port;
	int lfd = listener(&port), fd, i;

	to = loopback_to(port);
	/* The guest's module loader is not in the root this test sees. */
	if (system("modprobe smc 2>/dev/null"))
		TH_LOG("modprobe smc failed");
	budget(&s, "smc-connects", FTAGENT_METRIC_CONNECTS, 2, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 4; i++) {
		fd = socket(AF_SMC, SOCK_STREAM, 0);
		ASSERT_LE(0, fd) TH_LOG("AF_SMC: %s", strerror(errno));
		if (i == 0) {
			EXPECT_EQ(0, connect(fd, (struct sockaddr *)&to,
					     sizeof(to)))
			TH_LOG("connect: %s", strerror(errno));
		} else if (i == 1) {
			EXPECT_EQ(1, sendto(fd, "x", 1, MSG_FASTOPEN,
					    (struct sockaddr *)&to, sizeof(to)))
			TH_LOG("Fast Open: %s", strerror(errno));
		} else if (i == 2) {
			EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&to,
					      sizeof(to)));
			EXPECT_EQ(EDQUOT, errno);
		} else {
			EXPECT_EQ(-1,
				  sendto(fd, "x", 1, MSG_FASTOPEN,
					 (struct sockaddr *)&to, sizeof(to)));
			EXPECT_EQ(EDQUOT, errno);
		}
		close(fd);
	}
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(2, got.used);
	EXPECT_EQ(2, got.denied);
	/* The two that went are the two connections the listener has. */
	usleep(100000);
	EXPECT_EQ(2, ev_accepts(lfd));
	close(lfd);
	ftagent_budget_set_free(&s);
}

/*
 * After AF_SMC falls back to TCP, its kernel TCP socket is the user's
 * file's socket and the user's calls reach it directly: its sends are
 * charged and refused past a byte budget, and a reset and connect again
 * on it is a connect, charged and refused past a connects budget. The
 * listener's connections are the ground truth.
 */
TEST_F(budget, an_smc_socket_after_its_fallback_is_charged)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	struct sockaddr_in to;
	char buf[1000] = {0};
	uint16_t port;
	int lfd = listener(&port), fd, i, refused = -1;

	to = loopback_to(port);
	if (system("modprobe smc 2>/dev/null"))
		TH_LOG("modprobe smc failed");
	budget(&s, "smc-sent", FTAGENT_METRIC_BYTES_SENT, 3000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	fd = socket(AF_SMC, SOCK_STREAM, 0);
	ASSERT_LE(0, fd) TH_LOG("AF_SMC: %s", strerror(errno));
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	for (i = 0; i < 10; i++)
		if (send(fd, buf, sizeof(buf), 0) < 0) {
			EXPECT_EQ(EDQUOT, errno);
			refused = i;
			break;
		}
	EXPECT_EQ(3, refused);
	EXPECT_EQ(-1, write(fd, buf, sizeof(buf)));
	EXPECT_EQ(EDQUOT, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3000, got.used);
	EXPECT_EQ(2, got.denied);
	ftagent_budget_set_free(&s);
	close(fd);

	memset(&s, 0, sizeof(s));
	budget(&s, "smc-connects", FTAGENT_METRIC_CONNECTS, 2, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	fd = socket(AF_SMC, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(0, connect(fd, &unspec, sizeof(unspec)));
	EXPECT_EQ(0, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(0, connect(fd, &unspec, sizeof(unspec)));
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EDQUOT, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(2, got.used);
	EXPECT_EQ(1, got.denied);
	close(fd);
	usleep(100000);
	/* The first test's connection and these two. */
	EXPECT_EQ(3, ev_accepts(lfd));
	close(lfd);
	ftagent_budget_set_free(&s);
}

/*
 * An AF_SMC socket that has fallen back to TCP before it listens (a
 * Fast Open option in its first state), listening on loopback: its fd,
 * or -1. Its address in @at.
 */
static int smc_fallback_listener(struct sockaddr_in *at, int backlog)
{
	socklen_t len = sizeof(*at);
	int fd, qlen = 5;

	if (system("modprobe smc 2>/dev/null"))
		fprintf(stderr, "# modprobe smc failed\n");
	fd = socket(AF_SMC, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	memset(at, 0, sizeof(*at));
	at->sin_family = AF_INET;
	at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (setsockopt(fd, SOL_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)) ||
	    bind(fd, (struct sockaddr *)at, sizeof(*at)) ||
	    listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)at, &len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A client connected to @at (in @client, also when the accept fails: its
 * connection then waits in the queue) and the connection @lfd accepted
 * for it, or -1.
 */
static int smc_accepted(int lfd, const struct sockaddr_in *at, int *client)
{
	*client = socket(AF_INET, SOCK_STREAM, 0);
	if (*client < 0)
		return -1;
	if (connect(*client, (const struct sockaddr *)at, sizeof(*at))) {
		close(*client);
		return -1;
	}
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/* GET_STATUS's count of accepts refused for want of a mark. */
static int accepts_refused(uint64_t *n)
{
	struct ftagent_status st;
	struct ftnl_error err;

	if (ftagent_query_status(&st, &err))
		return -1;
	if (!(st.present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED))
		return -1;
	*n = st.accepts_refused;
	return 0;
}

/*
 * An AF_SMC socket that falls back before it listens (a Fast Open
 * option in its first state) listens and accepts on its kernel TCP
 * socket, and the connections it accepts are clones of that kernel
 * socket in files of their own: the user's sockets all the same. Their
 * sends are charged and refused past a byte budget, whether they were
 * accepted before the budget was set or after.
 */
TEST_F(budget, an_smc_listener_s_connections_after_its_fallback_are_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct sockaddr_in at;
	struct ftnl_error err;
	char buf[1000] = {0};
	uint64_t refused0, refused1;
	int lfd, cfd[2], afd[2], i, refused = -1;

	lfd = smc_fallback_listener(&at, 4);
	ASSERT_LE(0, lfd) TH_LOG("AF_SMC listener: %s", strerror(errno));
	ASSERT_EQ(0, accepts_refused(&refused0));
	afd[0] = smc_accepted(lfd, &at, &cfd[0]);
	ASSERT_LE(0, afd[0]) TH_LOG("accept: %s", strerror(errno));
	budget(&s, "smc-accepted-sent", FTAGENT_METRIC_BYTES_SENT, 3000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	afd[1] = smc_accepted(lfd, &at, &cfd[1]);
	ASSERT_LE(0, afd[1]) TH_LOG("accept: %s", strerror(errno));
	for (i = 0; i < 10; i++)
		if (send(afd[0], buf, sizeof(buf), 0) < 0) {
			EXPECT_EQ(EDQUOT, errno);
			refused = i;
			break;
		}
	EXPECT_EQ(3, refused);
	EXPECT_EQ(-1, send(afd[1], buf, sizeof(buf), 0));
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(-1, write(afd[1], buf, sizeof(buf)));
	EXPECT_EQ(EDQUOT, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3000, got.used);
	EXPECT_EQ(3, got.denied);
	/* What the clients received is what was charged. */
	EXPECT_EQ(3000, recv(cfd[0], buf, sizeof(buf), MSG_DONTWAIT) +
				recv(cfd[0], buf, sizeof(buf), MSG_DONTWAIT) +
				recv(cfd[0], buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(-1, recv(cfd[1], buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(0, accepts_refused(&refused1));
	EXPECT_EQ(refused0, refused1);
	for (i = 0; i < 2; i++) {
		close(afd[i]);
		close(cfd[i]);
	}
	close(lfd);
	ftagent_budget_set_free(&s);
}

/* The module's accept_marks, or 0. */
static unsigned int accept_marks(void)
{
	unsigned int n = 0;
	FILE *f = fopen("/sys/module/ftagent/parameters/accept_marks", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%u", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/*
 * The module marks such connections from a pool (accept_marks, 4096 by
 * default; kmod/usersock.c), each mark held by an open connection. When
 * every mark is in use the accept is refused (ENOBUFS), never let
 * through unmarked, and counted in GET_STATUS; the connection waits in
 * the queue. Accepts on other sockets go on. Closing the connections
 * gives their marks back at once: the waiting one is then accepted, and
 * refused past the budget like the rest. Thousands of connections: on
 * the debug kernel, under load, longer than the harness's 30 s.
 */
TEST_F_TIMEOUT(budget, smc_accepts_past_the_mark_pool_are_refused_and_counted,
	       300)
{
	unsigned int pool = accept_marks();
	struct rlimit nofile = {.rlim_cur = 3 * pool + 64,
				.rlim_max = 3 * pool + 64};
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	uint64_t refused0, refused1;
	struct sockaddr_in at;
	struct ftnl_error err;
	char buf[1000] = {0};
	int lfd, plain, n = 0, i, a, c;
	uint16_t port;
	int *cfd, *afd;

	ASSERT_LE(16, pool);
	cfd = calloc(pool + 1, sizeof(*cfd));
	afd = calloc(pool + 1, sizeof(*afd));
	ASSERT_TRUE(cfd && afd);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
	lfd = smc_fallback_listener(&at, 64);
	ASSERT_LE(0, lfd) TH_LOG("AF_SMC listener: %s", strerror(errno));
	ASSERT_EQ(0, accepts_refused(&refused0));
	/* Every mark, and the next accept is refused. */
	for (;;) {
		ASSERT_GE((int)pool, n);
		afd[n] = smc_accepted(lfd, &at, &cfd[n]);
		if (afd[n] < 0)
			break;
		n++;
	}
	ASSERT_EQ(ENOBUFS, errno) TH_LOG("accept %d: %s", n, strerror(errno));
	EXPECT_EQ((int)pool, n);
	ASSERT_EQ(0, accepts_refused(&refused1));
	EXPECT_EQ(refused0 + 1, refused1);
	/* Only those accepts: another listener's go on, uncounted. */
	plain = listener(&port);
	a = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, connect(a,
			     (struct sockaddr *)&(struct sockaddr_in){
				     .sin_family = AF_INET,
				     .sin_port = htons(port),
				     .sin_addr.s_addr = htonl(INADDR_LOOPBACK)},
			     sizeof(struct sockaddr_in)));
	c = accept(plain, NULL, NULL);
	EXPECT_LE(0, c) TH_LOG("plain accept: %s", strerror(errno));
	close(c);
	close(a);
	close(plain);
	ASSERT_EQ(0, accepts_refused(&refused1));
	EXPECT_EQ(refused0 + 1, refused1);

	/* An hour: closing thousands of sockets outlasts a minute there. */
	budget(&s, "smc-pool-sent", FTAGENT_METRIC_BYTES_SENT, 1000, 3600000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1000, send(afd[0], buf, sizeof(buf), 0));
	EXPECT_EQ(-1, send(afd[n - 1], buf, sizeof(buf), 0));
	EXPECT_EQ(EDQUOT, errno);
	for (i = 0; i < n; i++)
		close(afd[i]);
	/* The marks are back: the connection left waiting (cfd[n]) goes. */
	ASSERT_EQ(0, fcntl(lfd, F_SETFL, O_NONBLOCK));
	a = accept(lfd, NULL, NULL);
	ASSERT_LE(0, a) TH_LOG("accept after close: %s", strerror(errno));
	EXPECT_EQ(-1, send(a, buf, sizeof(buf), 0));
	EXPECT_EQ(EDQUOT, errno);
	close(a);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(1000, got.used);
	EXPECT_EQ(2, got.denied);
	for (i = 0; i <= n; i++)
		close(cfd[i]);
	free(cfd);
	free(afd);
	close(lfd);
	ftagent_budget_set_free(&s);
}

/*
 * An accept that fails gives its mark back before it returns: a loop of
 * non-blocking accepts on an empty listener spends no marks, refuses
 * nothing, and the next connection is marked. Thousands of accepts
 * (the debug kernel's time, above).
 */
TEST_F_TIMEOUT(budget, failed_smc_accepts_keep_no_mark, 300)
{
	unsigned int pool = accept_marks();
	struct ftagent_budget_set s = {0};
	uint64_t refused0, refused1;
	struct sockaddr_in at;
	struct ftnl_error err;
	char buf[1000] = {0};
	int lfd, i, a, c;

	ASSERT_LE(16, pool);
	lfd = smc_fallback_listener(&at, 4);
	ASSERT_LE(0, lfd) TH_LOG("AF_SMC listener: %s", strerror(errno));
	ASSERT_EQ(0, fcntl(lfd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, accepts_refused(&refused0));
	for (i = 0; i < 2 * (int)pool; i++) {
		ASSERT_EQ(-1, accept(lfd, NULL, NULL));
		ASSERT_EQ(EAGAIN, errno)
		TH_LOG("accept %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(0, accepts_refused(&refused1));
	EXPECT_EQ(refused0, refused1);
	budget(&s, "smc-failed-sent", FTAGENT_METRIC_BYTES_SENT, 500, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	c = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&at, sizeof(at)));
	for (i = 0; i < 100; i++) {
		a = accept(lfd, NULL, NULL);
		if (a >= 0 || errno != EAGAIN)
			break;
		usleep(10000);
	}
	ASSERT_LE(0, a) TH_LOG("accept: %s", strerror(errno));
	EXPECT_EQ(1000, send(a, buf, sizeof(buf), 0));
	EXPECT_EQ(-1, send(a, buf, sizeof(buf), 0));
	EXPECT_EQ(EDQUOT, errno);
	close(a);
	close(c);
	close(lfd);
	ftagent_budget_set_free(&s);
}

/* Whether ftrace has @fn hooked (enabled_functions): 1, 0, or -1. */
static int fn_hooked(const char *fn)
{
	size_t n = strlen(fn);
	char line[512];
	int found = 0;
	FILE *f = ft_enabled_functions();

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, fn, n) && line[n] == ' ')
			found = 1;
	fclose(f);
	return found;
}

/*
 * tcp_v4_connect() and tcp_v6_connect() are hooked only while a connects
 * budget is held: not for a connect rule alone, nor for another budget
 * (an IPMODIFY hook there would keep a livepatch of them out).
 */
TEST_F(budget, the_tcp_connect_hooks_come_and_go_with_a_connects_budget)
{
	struct ftagent_budget_set s = {0}, other = {0};
	struct ftagent_policy_spec p;
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	ev_port(ev_rule(&p, "deny-port-1", 1u << FTAGENT_OP_CONNECT,
			FTAGENT_ACTION_DENY),
		1, 1);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	EXPECT_EQ(1, fn_hooked("security_socket_connect"));
	EXPECT_EQ(0, fn_hooked("tcp_v4_connect"));
	EXPECT_EQ(0, fn_hooked("tcp_v6_connect"));

	budget(&s, "connects", FTAGENT_METRIC_CONNECTS, 100, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, fn_hooked("tcp_v4_connect"));
	EXPECT_EQ(1, fn_hooked("tcp_v6_connect"));

	budget(&other, "sent", FTAGENT_METRIC_BYTES_SENT, 100, 60000);
	ASSERT_EQ(0, set_budgets(&other, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, fn_hooked("tcp_v4_connect"));
	EXPECT_EQ(0, fn_hooked("tcp_v6_connect"));

	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, fn_hooked("tcp_v4_connect"));
	ASSERT_EQ(0, clear_budgets());
	EXPECT_EQ(0, fn_hooked("tcp_v4_connect"));
	EXPECT_EQ(0, fn_hooked("tcp_v6_connect"));
	EXPECT_EQ(0, ev_clear_policy());
	ftagent_budget_set_free(&s);
	ftagent_budget_set_free(&other);
}

/*
 * An execs budget counts execve() calls: a script run through its #!
 * interpreter is one exec, not two, though exec rules decide both.
 */
TEST_F(budget, a_script_is_one_exec)
{
	const char *path = "/tmp/ftb-script";
	char *const argv[] = {(char *)path, NULL};
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int fd, status, i;
	pid_t pid;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ASSERT_LE(0, fd);
	ASSERT_EQ(12, write(fd, "#!/bin/true\n", 12));
	close(fd);
	budget(&s, "execs", FTAGENT_METRIC_EXECS, 1000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 3; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			execv(path, argv);
			_exit(100);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3, got.used);
	ftagent_budget_set_free(&s);
	unlink(path);
}

/*
 * A call budget beside a rule set that lets the calls through: by the
 * default without a rule lookup (a CIDR rule the calls never match: the
 * gate's shortcut, kmod/gate.c ftagent_gate_by_default()), then through
 * a rule (an audit rule on the port, which completes the call's
 * description before the budget reads it). Either way the budget
 * charges the caller's own principal and refuses the call past it.
 */
TEST_F(budget, a_call_budget_holds_beside_a_rule_set)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	uint64_t gen;
	uint16_t port;
	int lfd = listener(&port), round;

	for (round = 0; round < 2; round++) {
		struct ftagent_budget_set s = {0};

		ftagent_policy_spec_init(&p);
		r = ftagent_policy_spec_add(&p);
		ASSERT_NE(NULL, r);
		snprintf(r->name, sizeof(r->name), "%s",
			 round ? "audit-the-port" : "deny-10/8");
		r->ops = 1u << FTAGENT_OP_CONNECT;
		if (round) {
			r->action = FTAGENT_ACTION_AUDIT;
			r->set |= FTAGENT_RULE_SET_PORT;
			r->port_min = r->port_max = port;
		} else {
			r->action = FTAGENT_ACTION_DENY;
			r->set |= FTAGENT_RULE_SET_ADDR |
				  FTAGENT_RULE_SET_PREFIX_LEN;
			r->addr_len = 4;
			r->addr[0] = 10;
			r->prefix_len = 8;
		}
		ASSERT_EQ(0, ftagent_set_policy(ctl(), &p, &gen, &err))
		TH_LOG("%s", err.msg);
		budget(&s, "two-connects", FTAGENT_METRIC_CONNECTS, 2, 60000);
		ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
		EXPECT_EQ(0, try_connect(port)) TH_LOG("round %d", round);
		EXPECT_EQ(0, try_connect(port)) TH_LOG("round %d", round);
		EXPECT_EQ(-EDQUOT, try_connect(port)) TH_LOG("round %d", round);
		ASSERT_EQ(0, get_one(&got));
		EXPECT_EQ(2, got.used) TH_LOG("round %d", round);
		EXPECT_EQ(1, got.denied) TH_LOG("round %d", round);
		ftagent_budget_set_free(&s);
		ftagent_policy_spec_free(&p);
		ASSERT_EQ(0, clear_budgets());
	}
	ftagent_policy_spec_init(&p);
	EXPECT_EQ(0, ftagent_set_policy(ctl(), &p, &gen, &err));
	ftagent_policy_spec_free(&p);
	close(lfd);
}

/*
 * KILL: the call past the limit is refused and its caller killed. The
 * signal lands before the call returns to user space (sent in the hook,
 * or on PREEMPT_RT by a task_work the task runs on its way out,
 * kmod/kill.c): anything the child writes after the refused call means
 * it came back.
 */
TEST_F(budget, the_kill_action_kills_the_caller_past_the_limit)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	uint16_t port;
	int lfd = listener(&port), status, i, pfd[2];
	char mark;
	pid_t pid;

	budget(&s, "kill-connects", FTAGENT_METRIC_CONNECTS, 2, 60000)->kill =
		1;
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[0]);
		for (i = 0; i < 2; i++)
			if (try_connect(port))
				_exit(10 + i);
		try_connect(port);
		/* Must not get here: the refused call does not return. */
		if (write(pfd[1], "r", 1) != 1)
			_exit(4);
		_exit(3);
	}
	close(pfd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, read(pfd[0], &mark, 1))
	TH_LOG("the refused call returned");
	close(pfd[0]);
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(2, got.used);
	EXPECT_EQ(1, got.denied);
	close(lfd);
	ftagent_budget_set_free(&s);
}

/*
 * Two budgets on one metric, both used up: the first only refuses, the
 * second kills. The first must not hide the second.
 */
TEST_F(budget, a_refusing_budget_does_not_hide_a_killing_one)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	uint16_t port;
	int lfd = listener(&port), status;
	pid_t pid;

	budget(&s, "refuse-connects", FTAGENT_METRIC_CONNECTS, 1, 60000);
	budget(&s, "kill-connects", FTAGENT_METRIC_CONNECTS, 1, 60000)->kill =
		1;
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (try_connect(port))
			_exit(10);
		try_connect(port);
		_exit(3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	close(lfd);
	ftagent_budget_set_free(&s);
}

static int run(const char *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl("/bin/true", "true", arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

TEST_F(budget, the_same_command_line_too_often_is_a_loop)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int status;

	budget(&s, "loop", FTAGENT_METRIC_REPEATS, 2, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, run("again"));
	EXPECT_EQ(0, run("again"));
	status = run("again");
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	/* Other command lines are not the loop. */
	EXPECT_EQ(0, run("other"));
	EXPECT_EQ(0, run("third"));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(1, got.denied);
	ftagent_budget_set_free(&s);
}

TEST_F(budget, a_bad_budget_rejects_the_set_and_the_old_one_stays)
{
	struct ftagent_budget_set good = {0}, bad = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;

	budget(&good, "execs", FTAGENT_METRIC_EXECS, 1000, 60000);
	ASSERT_EQ(0, set_budgets(&good, &err)) TH_LOG("%s", err.msg);
	budget(&bad, "fine", FTAGENT_METRIC_OPENS, 10, 1000);
	budget(&bad, "odd", FTAGENT_METRIC_OPENS, 10, 1000)->alert_at = 10;
	ASSERT_EQ(-1, set_budgets(&bad, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ("ALERT_AT is above 0 and below LIMIT", err.msg);
	bad.b[1].alert_at = 0;
	bad.b[1].window_ms = 0;
	ASSERT_EQ(-1, set_budgets(&bad, &err));
	EXPECT_STREQ("WINDOW_MS is required, 1 ms to 7 days", err.msg);
	bad.b[1].window_ms = 1000;
	bad.b[1].limit = 0;
	ASSERT_EQ(-1, set_budgets(&bad, &err));
	EXPECT_STREQ("LIMIT is required and above 0", err.msg);
	bad.b[1].limit = 10;
	bad.b[1].enforce = 0;
	bad.b[1].kill = 1;
	ASSERT_EQ(-1, set_budgets(&bad, &err));
	EXPECT_STREQ("KILL needs an enforced budget", err.msg);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_STREQ("execs", got.name);
	ftagent_budget_set_free(&good);
	ftagent_budget_set_free(&bad);
}

static volatile int hammer_stop;

static void *hammer(void *arg)
{
	char buf[512] = {0};

	while (!hammer_stop)
		send(*(int *)arg, buf, sizeof(buf), MSG_DONTWAIT);
	return NULL;
}

/* Unload while sends are being charged and refused; load again after. */
TEST_F(budget, unload_while_refusing)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	struct sink k;
	pthread_t t[3];
	int i, rc = -1;

	budget(&s, "tiny", FTAGENT_METRIC_BYTES_SENT, 10000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ftagent_budget_set_free(&s);
	ASSERT_EQ(0, sink_open(&k));
	ev_close(&self->log);
	hammer_stop = 0;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, hammer, &k.fds[1]));
	ev_sleep_ms(300);
	for (i = 0; i < 50 && rc; i++) {
		rc = ft_unload_module();
		if (rc)
			ev_sleep_ms(100);
	}
	EXPECT_EQ(0, rc) TH_LOG("unload: %s", strerror(-rc));
	/* No module, no budget: sending works again. */
	EXPECT_EQ(1, send(k.fds[1], "x", 1, 0));
	hammer_stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	sink_close(&k);
	ASSERT_EQ(0, ft_reload_module(NULL));
	ctl_forget();
	ASSERT_EQ(0, ev_open(&self->log));
}

TEST_HARNESS_MAIN
