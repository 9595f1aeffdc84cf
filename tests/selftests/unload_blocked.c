// SPDX-License-Identifier: GPL-2.0
/*
 * rmmod with 64 threads blocked in traced calls, cycle after cycle: 16
 * in accept(), 16 in a pipe read(), 16 in recv() and 16 in a connect()
 * whose SYN is never answered (the listener's accept queue is full, so
 * the kernel drops it). Each cycle unloads the module while all 64
 * sleep, checks they still sleep, and wakes them either before the
 * module comes back (the calls return with no module loaded) or after
 * (a new module instance sees calls return that it never saw enter).
 * Every call must then return what its waker sent. Idle, and with four
 * threads hammering pread and send meanwhile. The guest harness fails
 * the run on any splat in the kernel log.
 *
 * make check runs 1 cycle of each, idle waking after a reload and under
 * traffic waking with the module gone; FTAGENT_LONG=1 (make check-long)
 * runs 200, both orders in turn; FTAGENT_BLOCKED_CYCLES=N overrides both.
 * 200 cycles under TCG take 20 to 60 minutes per test (a load while four
 * threads hammer takes seconds), hence the 4-hour timeout; the guest's
 * own timeout still bounds a hang in make check.
 *
 * Needs FTAGENT_KO; leaves the module loaded with the runner's parameters.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "hammer_test.h"

#define PER_KIND  16
#define N_BLOCKED (4 * PER_KIND)

enum kind { K_ACCEPT, K_PIPE, K_RECV, K_CONNECT };

struct blocked {
	enum kind kind;
	int fd;	     /* what the thread blocks on */
	pid_t tid;   /* set by the thread before it blocks */
	long result; /* the call's return value */
	int err;     /* its errno */
	char byte;   /* what it read, for the data calls */
	pthread_t th;
};

static struct sockaddr_in listen_addr, full_addr;

static void *block_in_call(void *arg)
{
	struct blocked *b = arg;

	__atomic_store_n(&b->tid, gettid(), __ATOMIC_RELEASE);
	switch (b->kind) {
	case K_ACCEPT: b->result = accept(b->fd, NULL, NULL); break;
	case K_PIPE: b->result = read(b->fd, &b->byte, 1); break;
	case K_RECV: b->result = recv(b->fd, &b->byte, 1, 0); break;
	case K_CONNECT:
		b->result = connect(b->fd, (struct sockaddr *)&full_addr,
				    sizeof(full_addr));
		break;
	}
	b->err = b->result < 0 ? errno : 0;
	return NULL;
}

/* 1 once thread @tid of this process sleeps in the kernel, within 30 s. */
static int thread_sleeping(pid_t tid)
{
	char state;
	int tries;

	for (tries = 0; tries < 3000; tries++) {
		state = ft_thread_state(tid);
		if (!state)
			return 0;
		if (state == 'S')
			return 1;
		usleep(10 * 1000);
	}
	return 0;
}

static int tcp_listener(struct sockaddr_in *sa, int backlog)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(fd, backlog) || getsockname(fd, (struct sockaddr *)sa, &len))
		return -1;
	return fd;
}

static int cycles(void)
{
	const char *n = getenv("FTAGENT_BLOCKED_CYCLES");
	const char *longrun = getenv("FTAGENT_LONG");

	if (n && atoi(n) > 0)
		return atoi(n);
	return longrun && !strcmp(longrun, "1") ? 200 : 1;
}

FIXTURE(blocked)
{
	struct blocked b[N_BLOCKED];
	int lfd;     /* the accept()ers' listener */
	int full_fd; /* the listener whose queue is kept full */
	int filler;  /* the connection that fills it */
	int pipes[PER_KIND][2];
	int pairs[PER_KIND][2];
};

FIXTURE_SETUP(blocked)
{
	self->lfd = tcp_listener(&listen_addr, PER_KIND);
	ASSERT_LE(0, self->lfd);
	/*
	 * Backlog 0 queues one connection; once it is queued (and never
	 * accepted) the listener drops every further SYN, so a connect()
	 * to it sleeps until retransmits give up or someone wakes it.
	 */
	self->full_fd = tcp_listener(&full_addr, 0);
	ASSERT_LE(0, self->full_fd);
	self->filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_EQ(0, connect(self->filler, (struct sockaddr *)&full_addr,
			     sizeof(full_addr)));
}

FIXTURE_TEARDOWN(blocked)
{
	close(self->filler);
	close(self->full_fd);
	close(self->lfd);
}

/* Start the 64 threads and wait until every one sleeps in its call. */
static void start_blocked(struct __test_metadata *_metadata,
			  FIXTURE_DATA(blocked) * self)
{
	int i;

	memset(self->b, 0, sizeof(self->b));
	for (i = 0; i < PER_KIND; i++) {
		ASSERT_EQ(0, pipe2(self->pipes[i], O_CLOEXEC));
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
					self->pairs[i]));
	}
	for (i = 0; i < N_BLOCKED; i++) {
		struct blocked *b = &self->b[i];
		int k = i % PER_KIND;

		b->kind = i / PER_KIND;
		switch (b->kind) {
		case K_ACCEPT: b->fd = self->lfd; break;
		case K_PIPE: b->fd = self->pipes[k][0]; break;
		case K_RECV: b->fd = self->pairs[k][1]; break;
		case K_CONNECT:
			b->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			ASSERT_LE(0, b->fd);
			break;
		}
		ASSERT_EQ(0, pthread_create(&b->th, NULL, block_in_call, b));
	}
	for (i = 0; i < N_BLOCKED; i++) {
		int kind = self->b[i].kind;

		while (!__atomic_load_n(&self->b[i].tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		ASSERT_TRUE(thread_sleeping(self->b[i].tid))
		TH_LOG("thread %d (kind %d) never slept", i, kind);
	}
}

/* Every thread still sleeps: none was woken or killed by the unload. */
static void still_blocked(struct __test_metadata *_metadata,
			  FIXTURE_DATA(blocked) * self)
{
	int i;

	for (i = 0; i < N_BLOCKED; i++) {
		int kind = self->b[i].kind;

		ASSERT_TRUE(thread_sleeping(self->b[i].tid))
		TH_LOG("thread %d (kind %d) left its call", i, kind);
	}
}

/*
 * Wake each call with something it can tell apart: a connection for
 * accept(), the byte 'A' + k for the data calls, and shutdown() for the
 * connect() (inet_shutdown() disconnects a SYN_SENT socket and wakes it).
 */
static void wake_and_check(struct __test_metadata *_metadata,
			   FIXTURE_DATA(blocked) * self)
{
	int conns[PER_KIND], i, k;

	for (k = 0; k < PER_KIND; k++) {
		char c = 'A' + k;

		conns[k] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_EQ(0, connect(conns[k], (struct sockaddr *)&listen_addr,
				     sizeof(listen_addr)));
		ASSERT_EQ(1, write(self->pipes[k][1], &c, 1));
		ASSERT_EQ(1, send(self->pairs[k][0], &c, 1, 0));
	}
	for (i = 3 * PER_KIND; i < N_BLOCKED; i++)
		ASSERT_EQ(0, shutdown(self->b[i].fd, SHUT_RDWR));
	for (i = 0; i < N_BLOCKED; i++) {
		struct blocked *b = &self->b[i];

		ASSERT_EQ(0, pthread_join(b->th, NULL));
		switch (b->kind) {
		case K_ACCEPT:
			EXPECT_LE(0, b->result)
			TH_LOG("accept: %s", strerror(b->err));
			if (b->result >= 0)
				close(b->result);
			break;
		case K_PIPE:
		case K_RECV:
			EXPECT_EQ(1, b->result);
			EXPECT_LE('A', b->byte);
			EXPECT_GT('A' + PER_KIND, b->byte);
			break;
		case K_CONNECT:
			/* Woken by shutdown(): refused, never "connected". */
			EXPECT_EQ(-1, b->result);
			EXPECT_NE(0, b->err);
			close(b->fd);
			break;
		}
	}
	for (k = 0; k < PER_KIND; k++) {
		close(conns[k]);
		close(self->pipes[k][0]);
		close(self->pipes[k][1]);
		close(self->pairs[k][0]);
		close(self->pairs[k][1]);
	}
}

static void run_cycles(struct __test_metadata *_metadata,
		       FIXTURE_DATA(blocked) * self, int hammering)
{
	int n = cycles(), i;
	pthread_t th[4];
	void *ret;

	ft_stop_hammer = 0;
	for (i = 0; hammering && i < 4; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ft_hammer,
					    (void *)(long)i));
	for (i = 0; i < n; i++) {
		start_blocked(_metadata, self);
		ASSERT_EQ(0, ft_unload_module()) TH_LOG("cycle %d: unload", i);
		still_blocked(_metadata, self);
		if ((i + hammering) % 2) {
			/* Woken with the module gone, then reloaded. */
			wake_and_check(_metadata, self);
			ASSERT_EQ(0, ft_reload_module(NULL))
			TH_LOG("cycle %d: load", i);
		} else {
			/* Reloaded first: the new instance sees them return. */
			ASSERT_EQ(0, ft_reload_module(NULL))
			TH_LOG("cycle %d: load", i);
			still_blocked(_metadata, self);
			wake_and_check(_metadata, self);
		}
	}
	TH_LOG("%d cycles, %d threads blocked in each, %s", n, N_BLOCKED,
	       hammering ? "under traffic" : "idle");
	ft_stop_hammer = 1;
	for (i = 0; hammering && i < 4; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &ret));
		EXPECT_EQ(NULL, ret);
	}
}

TEST_F_TIMEOUT(blocked, idle, 4 * 3600)
{
	run_cycles(_metadata, self, 0);
}

TEST_F_TIMEOUT(blocked, under_traffic, 4 * 3600)
{
	run_cycles(_metadata, self, 1);
}

TEST_HARNESS_MAIN
