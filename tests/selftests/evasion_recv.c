// SPDX-License-Identifier: GPL-2.0
/*
 * A receive can fail after its data arrived: recvfrom and recvmsg copy
 * the data into the caller's buffer first, then store the sender's
 * address, its length, msg_flags and the control length, and any of
 * those stores can fault. The call then returns -1 with EFAULT, its
 * data consumed and in the caller's buffer. A caller that makes every
 * receive fail that way must still be counted, and charged against a
 * bytes_received budget, for every byte it got: the ground truth is the
 * sizes the test sent, the data the receiver finds in its buffer, and a
 * socket queue that is empty afterwards.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "reload_test.h"

#define NDGRAM 10

/* Datagram i is 100 + 37 * i bytes, all of them the byte 'a' + i. */
static size_t dgram_size(int i)
{
	return 100 + 37 * i;
}

static int udp_bound(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int size = 1 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a->sin_family = AF_INET;
	a->sin_port = 0;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len))
		return -1;
	return fd;
}

FIXTURE(recv)
{
	int tx, rx;
	long page;
	char *ro; /* a page the kernel can read but not write */
	char *buf;
};

FIXTURE_SETUP(recv)
{
	struct sockaddr_in a;

	self->rx = udp_bound(&a);
	ASSERT_LE(0, self->rx);
	self->tx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->tx);
	ASSERT_EQ(0, connect(self->tx, (struct sockaddr *)&a, sizeof(a)));
	self->page = sysconf(_SC_PAGESIZE);
	self->ro = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ro);
	self->buf = malloc(1 << 16);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(recv)
{
	EXPECT_EQ(0, clear_budgets());
	munmap(self->ro, self->page);
	free(self->buf);
	close(self->tx);
	close(self->rx);
}

/* Send datagram @i of the pattern on @tx. */
static int send_dgram(int tx, int i)
{
	char out[1024];

	memset(out, 'a' + i, dgram_size(i));
	return send(tx, out, dgram_size(i), 0) == (ssize_t)dgram_size(i) ? 0
									 : -1;
}

/* The readable, unwritable page holds a socklen_t: the address length. */
static socklen_t *ro_addrlen(char *ro, long page)
{
	*(socklen_t *)ro = sizeof(struct sockaddr_in);
	if (mprotect(ro, page, PROT_READ))
		return NULL;
	return (socklen_t *)ro;
}

/*
 * recvfrom with an address length the kernel can read but not write
 * back: each datagram is in the buffer, each call fails with EFAULT.
 */
TEST_F(recv, a_recvfrom_that_cannot_store_the_length_is_counted)
{
	struct sockaddr_in from;
	struct ft_counters fc = {0};
	socklen_t *len = ro_addrlen(self->ro, self->page);
	uint64_t want = 0;
	struct ft_totals t;
	int i;

	ASSERT_NE(NULL, len);
	for (i = 0; i < NDGRAM; i++) {
		ASSERT_EQ(0, send_dgram(self->tx, i));
		memset(self->buf, 0, 1024);
		errno = 0;
		EXPECT_EQ(-1, recvfrom(self->rx, self->buf, 4096, 0,
				       (struct sockaddr *)&from, len));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_TRUE(ft_all_bytes(self->buf, dgram_size(i), 'a' + i))
		TH_LOG("datagram %d did not arrive", i);
		want += dgram_size(i);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	/* Every datagram was taken off the queue. */
	EXPECT_EQ(-1, recv(self->rx, self->buf, 4096, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(want, t.in_bytes);
	EXPECT_EQ(NDGRAM, t.in_calls);
	EXPECT_EQ(NDGRAM, t.in_errors);
	ft_counters_free(&fc);
}

/*
 * recvmsg on TCP with its struct msghdr in the read-only page: the data
 * is copied and consumed, then msg_flags cannot be stored. The stream's
 * bytes are all counted, however the kernel cut them into calls.
 */
TEST_F(recv, a_tcp_recvmsg_that_cannot_store_its_flags_is_counted)
{
	const int total = 100000;
	struct msghdr *mh = (struct msghdr *)self->ro;
	struct ft_counters fc = {0};
	struct iovec iov;
	struct ft_totals t;
	long calls = 0;
	int fds[3], i, q = 0, unsent = 0;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	memset(self->buf, 't', 1 << 16);
	for (i = 0; i < total; i += 10000)
		ASSERT_EQ(0, ft_write_all(fds[1], self->buf, 10000));
	iov.iov_base = self->buf;
	iov.iov_len = 7000;
	memset(mh, 0, sizeof(*mh));
	mh->msg_iov = &iov;
	mh->msg_iovlen = 1;
	ASSERT_EQ(0, mprotect(self->ro, self->page, PROT_READ));
	/*
	 * Until nothing is queued on either side: what the receive window
	 * held back is sent as the failing calls make room.
	 */
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, ioctl(fds[2], FIONREAD, &q));
		ASSERT_EQ(0, ioctl(fds[1], SIOCOUTQ, &unsent));
		if (!q && !unsent)
			break;
		if (!q) {
			usleep(1000);
			continue;
		}
		memset(self->buf, 0, 7000);
		errno = 0;
		EXPECT_EQ(-1, recvmsg(fds[2], mh, 0));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_EQ('t', self->buf[0]);
		calls++;
	}
	ASSERT_EQ(0, q);
	ASSERT_EQ(0, unsent);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(total, t.in_bytes);
	/* The accept() that made the socket is a call in on it. */
	EXPECT_EQ(calls + 1, t.in_calls);
	EXPECT_EQ(calls, t.in_errors);
	ft_counters_free(&fc);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/*
 * recvmmsg with a vector the kernel can read but not write: the first
 * message is received, its msg_flags cannot be stored, and the call
 * fails with EFAULT having taken that one datagram.
 */
TEST_F(recv, a_recvmmsg_that_cannot_write_its_vector_is_counted)
{
	struct mmsghdr *vec = (struct mmsghdr *)self->ro;
	struct ft_counters fc = {0};
	struct iovec iov[4];
	uint64_t want = 0;
	struct ft_totals t;
	int i;

	memset(vec, 0, 4 * sizeof(*vec));
	for (i = 0; i < 4; i++) {
		iov[i].iov_base = self->buf + 4096 * i;
		iov[i].iov_len = 4096;
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	ASSERT_EQ(0, mprotect(self->ro, self->page, PROT_READ));
	for (i = 0; i < NDGRAM; i++)
		ASSERT_EQ(0, send_dgram(self->tx, i));
	for (i = 0; i < NDGRAM; i++) {
		errno = 0;
		EXPECT_EQ(-1, recvmmsg(self->rx, vec, 4, MSG_DONTWAIT, NULL));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_TRUE(ft_all_bytes(self->buf, dgram_size(i), 'a' + i))
		TH_LOG("datagram %d did not arrive", i);
		want += dgram_size(i);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	EXPECT_EQ(-1, recv(self->rx, self->buf, 4096, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(want, t.in_bytes);
	EXPECT_EQ(NDGRAM, t.in_calls);
	EXPECT_EQ(NDGRAM, t.in_errors);
	ft_counters_free(&fc);
}

/*
 * A bytes_received budget of 1,000: receives that all fail with EFAULT
 * use it up like any others, and once it is spent the next receive is
 * refused before it takes a datagram.
 */
TEST_F(recv, a_budget_holds_against_receives_that_fail)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct sockaddr_in from;
	socklen_t *len = ro_addrlen(self->ro, self->page);
	struct ftnl_error err;
	char out[400];
	int i;

	ASSERT_NE(NULL, len);
	budget(&s, "recv-efault-1000", FTAGENT_METRIC_BYTES_RECEIVED, 1000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	memset(out, 'b', sizeof(out));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(400, send(self->tx, out, 400, 0));
	/* 400, 800, 1,200: the third takes it past the limit. */
	for (i = 0; i < 3; i++) {
		errno = 0;
		EXPECT_EQ(-1, recvfrom(self->rx, self->buf, 4096, 0,
				       (struct sockaddr *)&from, len));
		EXPECT_EQ(EFAULT, errno);
	}
	errno = 0;
	EXPECT_EQ(-1, recvfrom(self->rx, self->buf, 4096, 0,
			       (struct sockaddr *)&from, len));
	EXPECT_EQ(EDQUOT, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(1200, got.used);
	EXPECT_LE(1, got.denied);
	ftagent_budget_set_free(&s);
}

/*
 * A receive made while kernel.ftrace_enabled is 0 is not traced: the
 * entry hook does not run and no settle comes. The socket layer's count
 * still sees its data (a tracepoint on 6.12, int3 kprobes on 6.1, which
 * the sysctl leaves on), and must keep none of it for the task's next
 * traced receive: that one, failing with EFAULT after its own datagram
 * arrived, is charged exactly that datagram, and nothing is counted
 * lost. While the ftrace set returns through the exit work (its default)
 * the sysctl is refused (EBUSY): its tracepoint-counting ops are
 * PERMANENT, so that no peer's syscall tracepoint probe can go unseen.
 */
TEST_F(recv, a_receive_with_function_tracing_off_leaves_nothing_behind)
{
	struct ft_counters fc = {0};
	struct sockaddr_in from;
	socklen_t *len;
	ssize_t untraced;
	int exit_work;
	uint64_t lost0;
	struct ft_totals t;

	ASSERT_EQ(0, ft_collect(&fc));
	lost0 = fc.lost[FTAGENT_LOSS_PENDING_TABLE];
	ft_counters_free(&fc);
	memset(&fc, 0, sizeof(fc));

	ASSERT_EQ(0, send_dgram(self->tx, 0));
	exit_work = ft_exit_work_on();
	ASSERT_LE(0, exit_work);
	if (exit_work) {
		ASSERT_EQ(-EBUSY, ft_set_ftrace_enabled(0));
		return;
	}
	ASSERT_EQ(0, ft_set_ftrace_enabled(0));
	untraced = recvfrom(self->rx, self->buf, 4096, 0, NULL, NULL);
	/* Back on before anything can fail out of the test. */
	ASSERT_EQ(0, ft_set_ftrace_enabled(1));
	ASSERT_EQ((ssize_t)dgram_size(0), untraced);

	len = ro_addrlen(self->ro, self->page);
	ASSERT_NE(NULL, len);
	ASSERT_EQ(0, send_dgram(self->tx, 1));
	errno = 0;
	EXPECT_EQ(-1, recvfrom(self->rx, self->buf, 4096, 0,
			       (struct sockaddr *)&from, len));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_TRUE(ft_all_bytes(self->buf, dgram_size(1), 'a' + 1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(dgram_size(1), t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	EXPECT_EQ(lost0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);
}

struct stale {
	int rx1, rx2;
	pid_t tid;
	ssize_t first, second;
};

/* Two calls: 300 bytes from rx1, then 100 from rx2. */
static void *stale_receiver(void *arg)
{
	static char buf[512];
	struct stale *s = arg;

	s->tid = syscall(SYS_gettid);
	s->first = recvfrom(s->rx1, buf, sizeof(buf), 0, NULL, NULL);
	s->second = recvfrom(s->rx2, buf, sizeof(buf), 0, NULL, NULL);
	return NULL;
}

/*
 * A recvfrom that was waiting when the module was reloaded is never
 * settled, but its data still passes the socket layer's count (the
 * module before the reload marked its entry): that count must be
 * counted lost, not charged to the thread's next receive.
 */
TEST_RELOADS(a_receive_nobody_settles_leaves_nothing_to_the_next)
{
	struct sockaddr_in a1, a2;
	struct ft_counters fc = {0};
	struct stale s = {0};
	static char buf[300];
	struct ft_totals t;
	pthread_t thread;
	int tx, i;

	s.rx1 = udp_bound(&a1);
	s.rx2 = udp_bound(&a2);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s.rx1);
	ASSERT_LE(0, s.rx2);
	ASSERT_LE(0, tx);
	ASSERT_EQ(0, pthread_create(&thread, NULL, stale_receiver, &s));
	for (i = 0; i < 600 &&
		    !(s.tid && ft_thread_in_syscall(s.tid, SYS_recvfrom, 0));
	     i++)
		usleep(100000);
	ASSERT_TRUE(s.tid && ft_thread_in_syscall(s.tid, SYS_recvfrom, 0));

	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(300,
		  sendto(tx, buf, 300, 0, (struct sockaddr *)&a1, sizeof(a1)));
	ASSERT_EQ(100,
		  sendto(tx, buf, 100, 0, (struct sockaddr *)&a2, sizeof(a2)));
	pthread_join(thread, NULL);
	ASSERT_EQ(300, s.first);
	ASSERT_EQ(100, s.second);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, s.rx2);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(100, t.in_bytes);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, s.rx1);
	EXPECT_EQ(0, t.in_calls);
	EXPECT_EQ(0, t.in_bytes);
	EXPECT_LE(1, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);
	close(tx);
	close(s.rx1);
	close(s.rx2);
}

TEST_HARNESS_MAIN
