// SPDX-License-Identifier: GPL-2.0
/*
 * sendmmsg and recvmmsg tell each message's length only through the
 * caller's msg_len fields. The module must count the bytes the kernel
 * moved, not what those fields say when the call returns: a sibling
 * thread that keeps zeroing them (or filling them with a huge number)
 * must change nothing, and neither may a sendmmsg vector the kernel
 * cannot write msg_len back into. The ground truth is what the test
 * sends: the datagrams' sizes, all of which the receiver gets.
 *
 * The receive side of that last case, a receive whose data was copied
 * but whose header could not be written back (it fails with EFAULT), is
 * evasion_recv.c's: its bytes are taken from the kernel as they move
 * (docs/hooks.md).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "reload_test.h"
#include "../../tools/lib/status.h"

#define NMSG   8
#define ROUNDS 200

/* Message i of a round is 100 + 37 * i bytes: 3,636 bytes a round. */
static size_t msg_size(int i)
{
	return 100 + 37 * i;
}

static size_t round_bytes(void)
{
	size_t sum = 0;
	int i;

	for (i = 0; i < NMSG; i++)
		sum += msg_size(i);
	return sum;
}

struct rewriter {
	struct mmsghdr *vec;
	unsigned int value;
	atomic_int stop;
	pthread_t thread;
};

/* The sibling: rewrite every msg_len as fast as it can. */
static void *rewrite_lengths(void *arg)
{
	struct rewriter *r = arg;
	int i;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed))
		for (i = 0; i < NMSG; i++)
			((volatile struct mmsghdr *)r->vec)[i].msg_len =
				r->value;
	return NULL;
}

static int rewriter_start(struct rewriter *r, struct mmsghdr *vec,
			  unsigned int value)
{
	r->vec = vec;
	r->value = value;
	atomic_store(&r->stop, 0);
	return pthread_create(&r->thread, NULL, rewrite_lengths, r);
}

static void rewriter_stop(struct rewriter *r)
{
	atomic_store(&r->stop, 1);
	pthread_join(r->thread, NULL);
}

FIXTURE(mmsg)
{
	int tx, rx;
	char *buf;
};

FIXTURE_VARIANT(mmsg)
{
	unsigned int value; /* what the sibling writes into msg_len */
};

FIXTURE_VARIANT_ADD(mmsg, zeroed){.value = 0};
FIXTURE_VARIANT_ADD(mmsg, inflated){.value = 0x7fffffff};

FIXTURE_SETUP(mmsg)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int size = 4 << 20;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	self->rx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->rx);
	/* Room for every datagram of the test: none may be dropped. */
	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_RCVBUFFORCE, &size,
				sizeof(size)));
	ASSERT_EQ(0, bind(self->rx, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(0, getsockname(self->rx, (struct sockaddr *)&a, &len));
	self->tx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->tx);
	ASSERT_EQ(0, connect(self->tx, (struct sockaddr *)&a, sizeof(a)));
	self->buf = malloc(NMSG * 4096);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 'm', NMSG * 4096);
}

FIXTURE_TEARDOWN(mmsg)
{
	close(self->tx);
	close(self->rx);
	free(self->buf);
}

/* A vector of NMSG messages, message i from @buf + 4096 * i. */
static void fill_vector(struct mmsghdr *vec, struct iovec *iov, char *buf,
			bool receive)
{
	int i;

	memset(vec, 0, sizeof(*vec) * NMSG);
	for (i = 0; i < NMSG; i++) {
		iov[i].iov_base = buf + 4096 * i;
		iov[i].iov_len = receive ? 4096 : msg_size(i);
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
}

TEST_F_TIMEOUT(mmsg, rewritten_lengths_change_no_count, 300)
{
	struct mmsghdr vec[NMSG];
	struct iovec iov[NMSG];
	struct ft_counters fc = {0};
	struct ft_totals t;
	struct rewriter r;
	uint64_t want = (uint64_t)ROUNDS * round_bytes(), got = 0;
	long calls = 0, k = 0;
	int round, n = 0, i;

	fill_vector(vec, iov, self->buf, false);
	ASSERT_EQ(0, rewriter_start(&r, vec, variant->value));
	for (round = 0; round < ROUNDS; round++) {
		n = sendmmsg(self->tx, vec, NMSG, 0);
		if (n != NMSG)
			break;
	}
	rewriter_stop(&r);
	ASSERT_EQ(ROUNDS, round)
	TH_LOG("sendmmsg returned %d: %s", n, strerror(errno));

	/*
	 * Every datagram arrives whole and in order, so the k-th is
	 * msg_size(k % NMSG) bytes: msg_len, being rewritten, is not asked.
	 */
	fill_vector(vec, iov, self->buf, true);
	ASSERT_EQ(0, rewriter_start(&r, vec, variant->value));
	while (k < (long)ROUNDS * NMSG) {
		n = recvmmsg(self->rx, vec, NMSG, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		calls++;
		for (i = 0; i < n; i++, k++)
			got += msg_size(k % NMSG);
	}
	rewriter_stop(&r);
	ASSERT_EQ((long)ROUNDS * NMSG, k)
	TH_LOG("recvmmsg returned %d: %s", n, strerror(errno));
	ASSERT_EQ(want, got);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->tx);
	EXPECT_EQ(want, t.out_bytes);
	/* The calls out: connect() and the sendmmsg calls. */
	EXPECT_EQ(1 + ROUNDS, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(want, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	EXPECT_EQ(0, t.in_errors);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);
}

/*
 * A vector the caller can read but not write: the kernel sends the
 * first message, cannot store its msg_len, and fails the call with
 * EFAULT. The datagram left all the same, and is counted.
 */
TEST_F(mmsg, a_message_sent_without_its_length_is_counted)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ft_counters fc = {0};
	struct iovec iov[NMSG];
	struct mmsghdr *vec;
	struct ft_totals t;
	ssize_t n;

	vec = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, vec);
	fill_vector(vec, iov, self->buf, false);
	ASSERT_EQ(0, mprotect(vec, page, PROT_READ));

	errno = 0;
	EXPECT_EQ(-1, sendmmsg(self->tx, vec, NMSG, 0));
	EXPECT_EQ(EFAULT, errno);
	/* What arrived: exactly the first message. */
	n = recv(self->rx, self->buf, 4096, MSG_DONTWAIT);
	EXPECT_EQ((ssize_t)msg_size(0), n);
	EXPECT_EQ(-1, recv(self->rx, self->buf, 4096, MSG_DONTWAIT));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->tx);
	EXPECT_EQ(msg_size(0), t.out_bytes);
	/* The calls out: connect() and sendmmsg. */
	EXPECT_EQ(2, t.out_calls);
	EXPECT_EQ(1, t.out_errors);
	ft_counters_free(&fc);
	munmap(vec, page);
}

struct stale {
	int rx1, rx2;
	pid_t tid;
	int first, second;
};

/* Two calls: 2 datagrams from rx1, then 1 from rx2. */
static void *stale_receiver(void *arg)
{
	struct stale *s = arg;
	static char buf[2][512];
	struct iovec iov[2] = {{buf[0], 512}, {buf[1], 512}};
	struct mmsghdr vec[2];

	memset(vec, 0, sizeof(vec));
	vec[0].msg_hdr.msg_iov = &iov[0];
	vec[0].msg_hdr.msg_iovlen = 1;
	vec[1].msg_hdr.msg_iov = &iov[1];
	vec[1].msg_hdr.msg_iovlen = 1;
	s->tid = syscall(SYS_gettid);
	s->first = recvmmsg(s->rx1, vec, 2, 0, NULL);
	s->second = recvmmsg(s->rx2, vec, 1, 0, NULL);
	return NULL;
}

static int udp_bound(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a->sin_family = AF_INET;
	a->sin_port = 0;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len))
		return -1;
	return fd;
}

/*
 * A recvmmsg that was waiting when the module loaded is never settled
 * (its entry came first), but its messages still pass the kprobes: what
 * they add must be counted lost, not charged to the thread's next call
 * on another socket.
 */
TEST_RELOADS(a_call_nobody_settles_leaves_nothing_to_the_next)
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
		    !(s.tid && ft_thread_in_syscall(s.tid, SYS_recvmmsg, 0));
	     i++)
		usleep(100000);
	ASSERT_TRUE(s.tid && ft_thread_in_syscall(s.tid, SYS_recvmmsg, 0));

	ASSERT_EQ(0, ft_reload_module(NULL));
	/* The first call ends after the load: 100 + 200 bytes, unsettled. */
	ASSERT_EQ(100,
		  sendto(tx, buf, 100, 0, (struct sockaddr *)&a1, sizeof(a1)));
	ASSERT_EQ(200,
		  sendto(tx, buf, 200, 0, (struct sockaddr *)&a1, sizeof(a1)));
	ASSERT_EQ(300,
		  sendto(tx, buf, 300, 0, (struct sockaddr *)&a2, sizeof(a2)));
	pthread_join(thread, NULL);
	ASSERT_EQ(2, s.first);
	ASSERT_EQ(1, s.second);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, s.rx2);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(300, t.in_bytes);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, s.rx1);
	EXPECT_EQ(0, t.in_calls);
	EXPECT_EQ(0, t.in_bytes);
	/*
	 * The 300 bytes no settle took: lost, and said so (the count is
	 * the whole guest's: another process's *mmsg call across the
	 * reload would add its own).
	 */
	EXPECT_LE(1, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);
	close(tx);
	close(s.rx1);
	close(s.rx2);
}

#define KPROBES_ENABLED "/sys/kernel/debug/kprobes/enabled"

/* Root's switch for every kprobe on the system ("0" or "1"): 0 if set. */
static int kprobes_enabled(const char *value)
{
	int fd, ok;

	if (access(KPROBES_ENABLED, W_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	fd = open(KPROBES_ENABLED, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, value, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* Whether the kernel log has a line with @what after @kmsg's position. */
static bool kmsg_has(int kmsg, const char *what)
{
	char rec[1024];
	ssize_t n;

	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue; /* overwritten records: read on */
		rec[n] = '\0';
		if (strstr(rec, what))
			return true;
	}
	return false;
}

/*
 * A load while root has every kprobe disarmed (debugfs kprobes/enabled
 * 0). The module registers its *mmsg probes disabled and arms them
 * together at the end of its set-up; the kernel cannot arm them then,
 * and root's re-arm skips a probe left disabled. The load says that
 * kprobes are disarmed (unless this kernel's build leaves the probes
 * out: MMSG_LENGTHS degraded, the lengths read back); once root arms
 * them again, a sendmmsg and a recvmmsg must be counted exactly.
 */
TEST_RELOADS(probes_come_on_when_root_arms_kprobes_after_the_load)
{
	struct iovec iov[NMSG], riov[NMSG];
	struct mmsghdr vec[NMSG], rvec[NMSG];
	struct ft_counters fc = {0};
	struct ftagent_status st;
	struct ftnl_error err;
	struct sockaddr_in a;
	struct ft_totals t;
	int rx, tx, reload, rearm, kmsg;
	char *buf, *rbuf;
	bool said;

	buf = calloc(NMSG, 4096);
	rbuf = calloc(NMSG, 4096);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, rbuf);
	rx = udp_bound(&a);
	ASSERT_LE(0, rx);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, tx);
	ASSERT_EQ(0, connect(tx, (struct sockaddr *)&a, sizeof(a)));

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, kmsg);
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, kprobes_enabled("0")) TH_LOG("no %s", KPROBES_ENABLED);
	reload = ft_reload_module(NULL);
	/* On again before anything can fail: the rest of the run needs it. */
	rearm = kprobes_enabled("1");
	ASSERT_EQ(0, reload);
	ASSERT_EQ(0, rearm);
	said = kmsg_has(kmsg, "ftagent: kprobes are disarmed");
	close(kmsg);
	ASSERT_EQ(0, ftagent_query_status(&st, &err));
	ASSERT_TRUE(st.present & FTAGENT_STATUS_HAVE_DEGRADED);
	/* Said exactly when there are probes: not where they are degraded. */
	EXPECT_EQ(!(st.degraded & (1u << FTAGENT_FEATURE_MMSG_LENGTHS)), said)
	TH_LOG("the load said kprobes were disarmed: %d", said);

	fill_vector(vec, iov, buf, false);
	ASSERT_EQ(NMSG, sendmmsg(tx, vec, NMSG, 0));
	fill_vector(rvec, riov, rbuf, true);
	ASSERT_EQ(NMSG, recvmmsg(rx, rvec, NMSG, MSG_DONTWAIT, NULL));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, tx);
	EXPECT_EQ(round_bytes(), t.out_bytes);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, rx);
	EXPECT_EQ(round_bytes(), t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	ft_counters_free(&fc);
	close(tx);
	close(rx);
	free(buf);
	free(rbuf);
}

TEST_HARNESS_MAIN
