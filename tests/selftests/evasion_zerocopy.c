// SPDX-License-Identifier: GPL-2.0
/*
 * TCP zero-copy receive: getsockopt(TCP_ZEROCOPY_RECEIVE) maps received
 * pages into an mmap() of the socket and copies what it cannot map into
 * a buffer the caller names. No read or receive call is made, and the
 * count goes back only in the struct the call writes to user memory. A
 * process that receives everything this way must still be counted, and
 * charged against a bytes_received budget, for every byte it took.
 *
 * Ground truth: the bytes the sender wrote, the kernel's own
 * tcpi_bytes_received, the data found mapped or copied (every byte is
 * the pattern's), and an empty receive queue afterwards (SIOCINQ).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "ftagent_test.h"
#include "ia32_test.h"

#define zc_args tcp_zerocopy_receive

/* zc.msg_flags asking for timestamps (include/net/tcp.h, not uapi) */
#define TCP_CMSG_TS 2

#define MAP_BYTES  (256 << 10) /* the receive mapping */
#define COPY_BYTES (16 << 10)  /* the copy buffer */
#define PATTERN	   'z'

FIXTURE(zc)
{
	int tx, rx;
	char *map; /* the socket's mapping */
	char *copybuf;
	pid_t sender;
};

FIXTURE_SETUP(zc)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct ft_counters fc = {0};
	socklen_t len = sizeof(a);
	int lfd, size = 4 << 20, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, setsockopt(lfd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
				sizeof(size)));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&a, &len));
	ASSERT_EQ(0, listen(lfd, 1));
	self->tx = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, self->tx);
	ASSERT_EQ(0, setsockopt(self->tx, SOL_SOCKET, SO_SNDBUFFORCE, &size,
				sizeof(size)));
	/* Sent from user pages, so that loopback hands over whole pages. */
	ASSERT_EQ(0, setsockopt(self->tx, SOL_SOCKET, SO_ZEROCOPY, &one,
				sizeof(one)));
	ASSERT_EQ(0, connect(self->tx, (struct sockaddr *)&a, sizeof(a)));
	self->rx = accept(lfd, NULL, NULL);
	ASSERT_LE(0, self->rx);
	close(lfd);
	self->map = mmap(NULL, MAP_BYTES, PROT_READ, MAP_SHARED, self->rx, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->copybuf = malloc(COPY_BYTES);
	ASSERT_NE(NULL, self->copybuf);
	self->sender = -1;
	ASSERT_EQ(0, clear_budgets());
	/* accept() was a call on rx: the tests count from here. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
}

FIXTURE_TEARDOWN(zc)
{
	int status;

	EXPECT_EQ(0, clear_budgets());
	if (self->sender > 0) {
		kill(self->sender, SIGKILL);
		waitpid(self->sender, &status, 0);
	}
	munmap(self->map, MAP_BYTES);
	free(self->copybuf);
	close(self->tx);
	close(self->rx);
}

/* Read the MSG_ZEROCOPY completion notices queued on @tx, if any. */
static void reap_notices(int tx)
{
	char control[256];
	struct msghdr msg = {.msg_control = control};

	do {
		msg.msg_controllen = sizeof(control);
	} while (recvmsg(tx, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0);
	usleep(1000);
}

/*
 * A child sends @total bytes of the pattern on @tx in @chunk-sized sends
 * from page-aligned memory (MSG_ZEROCOPY, or a plain send where the
 * kernel refuses it), then exits.
 */
static pid_t send_in_child(int tx, size_t total, size_t chunk)
{
	pid_t pid = fork();
	char *buf;
	size_t done = 0;

	if (pid)
		return pid;
	buf = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(1);
	memset(buf, PATTERN, chunk);
	while (done < total) {
		size_t n = total - done < chunk ? total - done : chunk;
		ssize_t s = send(tx, buf, n, MSG_ZEROCOPY);
		int tries;

		/*
		 * Out of option memory for completion notices: read them
		 * and try again, rather than send copies loopback would not
		 * hand over as whole pages.
		 */
		for (tries = 0; s < 0 && errno == ENOBUFS && tries < 1000;
		     tries++) {
			reap_notices(tx);
			s = send(tx, buf, n, MSG_ZEROCOPY);
		}
		if (s <= 0)
			_exit(2);
		done += s;
	}
	_exit(0);
}

static uint64_t bytes_received(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return 0;
	return ti.tcpi_bytes_received;
}

static int queued(int fd)
{
	int n = -1;

	return ioctl(fd, SIOCINQ, &n) ? -1 : n;
}

/* Wait until @fd has received @total bytes in all (sender done). */
static int wait_received(int fd, uint64_t total)
{
	int i;

	for (i = 0; i < 30000 && bytes_received(fd) < total; i++)
		usleep(1000);
	return bytes_received(fd) == total ? 0 : -1;
}

/* A request for the fixture's mapping and copy buffer, all else 0. */
static void zc_request(struct zc_args *zc, FIXTURE_DATA(zc) * self)
{
	memset(zc, 0, sizeof(*zc));
	zc->address = (uintptr_t)self->map;
	zc->length = MAP_BYTES;
	zc->copybuf_address = (uintptr_t)self->copybuf;
	zc->copybuf_len = COPY_BYTES;
}

/*
 * One zero-copy receive into the fixture's mapping and copy buffer: what
 * it mapped and copied (each byte checked), or -1 with errno. *@mapped
 * gets the mapped part.
 */
static long zc_receive(struct __test_metadata *_metadata,
		       FIXTURE_DATA(zc) * self, struct zc_args *zc,
		       size_t *mapped)
{
	socklen_t len = sizeof(*zc);
	long got;

	zc_request(zc, self);
	memset(self->copybuf, 0, COPY_BYTES);
	if (getsockopt(self->rx, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, zc, &len))
		return -1;
	EXPECT_LE(0, zc->copybuf_len);
	EXPECT_TRUE(ft_all_bytes(self->map, zc->length, PATTERN));
	EXPECT_TRUE(ft_all_bytes(self->copybuf,
				 zc->copybuf_len > 0 ? zc->copybuf_len : 0,
				 PATTERN));
	got = zc->length + (zc->copybuf_len > 0 ? zc->copybuf_len : 0);
	*mapped = zc->length;
	return got;
}

/*
 * 1 MiB and 777 bytes, received only by TCP_ZEROCOPY_RECEIVE: counted
 * exactly, one receive per call, pages mapped as well as copied.
 */
TEST_F(zc, zero_copy_receives_are_counted_exactly)
{
	const size_t total = (1 << 20) + 777;
	struct ft_counters fc = {0};
	size_t got = 0, mapped_all = 0, mapped;
	uint64_t calls = 0;
	struct zc_args zc;
	struct ft_totals t;
	int status;

	self->sender = send_in_child(self->tx, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	while (got < total) {
		struct pollfd p = {.fd = self->rx, .events = POLLIN};
		long n;

		ASSERT_EQ(1, poll(&p, 1, 30000));
		n = zc_receive(_metadata, self, &zc, &mapped);
		ASSERT_LE(0, n)
		TH_LOG("TCP_ZEROCOPY_RECEIVE: %s", strerror(errno));
		calls++;
		got += n;
		mapped_all += mapped;
	}
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	EXPECT_EQ(total, got);
	EXPECT_EQ(total, bytes_received(self->rx));
	EXPECT_EQ(0, queued(self->rx));
	/* The mapping path ran, not only the copy. */
	EXPECT_LT(0, mapped_all);
	TH_LOG("%zu bytes in %lu calls, %zu of them mapped", got,
	       (unsigned long)calls, mapped_all);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(total, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	EXPECT_EQ(0, t.in_errors);
	ft_counters_free(&fc);
}

/*
 * The result cannot be written back (the struct is on a read-only page):
 * each call fails with EFAULT, its bytes taken off the queue all the
 * same. Every byte is counted.
 */
TEST_F(zc, a_zero_copy_receive_whose_result_cannot_be_written_back_is_counted)
{
	const size_t total = (512 << 10) + 4321;
	long page = sysconf(_SC_PAGESIZE);
	struct ft_counters fc = {0};
	struct zc_args *zc;
	struct ft_totals t;
	uint64_t calls = 0;
	char *ro;
	int status;

	ro = mmap(NULL, page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	zc = (struct zc_args *)ro;
	zc_request(zc, self);
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	self->sender = send_in_child(self->tx, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	ASSERT_EQ(0, wait_received(self->rx, total));
	while (queued(self->rx) > 0 && calls < 10000) {
		socklen_t len = sizeof(*zc);

		errno = 0;
		EXPECT_EQ(-1, getsockopt(self->rx, IPPROTO_TCP,
					 TCP_ZEROCOPY_RECEIVE, zc, &len));
		EXPECT_EQ(EFAULT, errno);
		calls++;
	}
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, queued(self->rx));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(total, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	/* Each moved bytes: a successful receive (docs/hooks.md). */
	EXPECT_EQ(0, t.in_errors);
	ft_counters_free(&fc);
	munmap(ro, page);
}

/* getsockopt in the ia32 table (arch/x86/entry/syscalls/syscall_32.tbl) */
#define NR32_GETSOCKOPT 365

/*
 * The same receives through the 32-bit entry (int $0x80 from this 64-bit
 * process), the struct and its length below 4 GiB where a 32-bit pointer
 * can name them: counted as the 64-bit call is.
 */
TEST_F(zc, a_zero_copy_receive_through_int80_is_counted)
{
	const size_t total = (384 << 10) + 55;
	struct ft_counters fc = {0};
	size_t got = 0, mapped_all = 0;
	struct zc_args *zc;
	struct ft_totals t;
	uint64_t calls = 0;
	uint32_t *optlen;
	char *low;
	int status;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(1ul << 32, (uintptr_t)low + 4096);
	zc = (struct zc_args *)low;
	optlen = (uint32_t *)(low + 2048);
	self->sender = send_in_child(self->tx, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	ASSERT_EQ(0, wait_received(self->rx, total));
	while (got < total && calls < 10000) {
		long rc;

		zc_request(zc, self);
		*optlen = sizeof(*zc);
		rc = call32(NR32_GETSOCKOPT, self->rx, IPPROTO_TCP,
			    TCP_ZEROCOPY_RECEIVE, (uint32_t)(uintptr_t)zc,
			    (uint32_t)(uintptr_t)optlen);
		ASSERT_EQ(0, rc) TH_LOG("int $0x80 getsockopt: %ld", rc);
		calls++;
		got += zc->length + (zc->copybuf_len > 0 ? zc->copybuf_len : 0);
		mapped_all += zc->length;
	}
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	EXPECT_EQ(total, got);
	EXPECT_EQ(0, queued(self->rx));
	EXPECT_LT(0, mapped_all);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(total, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	ft_counters_free(&fc);
	munmap(low, 4096);
}

struct scribbler {
	struct zc_args *zc;
	volatile int stop;
};

static void *scribble(void *arg)
{
	struct scribbler *s = arg;

	while (!s->stop) {
		__atomic_store_n(&s->zc->length, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->zc->copybuf_len, 0, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A sibling thread zeroes the result fields while the calls run: what
 * the caller reads back is worthless, the count is not.
 */
TEST_F(zc, a_sibling_rewriting_the_result_does_not_change_the_count)
{
	const size_t total = (768 << 10) + 99;
	struct scribbler s = {0};
	struct ft_counters fc = {0};
	struct zc_args zc;
	struct ft_totals t;
	pthread_t thread;
	uint64_t calls = 0;
	int status;

	s.zc = &zc;
	self->sender = send_in_child(self->tx, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	ASSERT_EQ(0, wait_received(self->rx, total));
	memset(&zc, 0, sizeof(zc));
	ASSERT_EQ(0, pthread_create(&thread, NULL, scribble, &s));
	while (queued(self->rx) > 0 && calls < 200000) {
		socklen_t len = sizeof(zc);
		int rc;

		zc_request(&zc, self);
		/* Zeroed first by the scribbler, a call takes nothing. */
		rc = getsockopt(self->rx, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE,
				&zc, &len);
		EXPECT_EQ(0, rc) TH_LOG("%s", strerror(errno));
		calls++;
	}
	s.stop = 1;
	pthread_join(thread, NULL);
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, queued(self->rx));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(total, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	ft_counters_free(&fc);
}

/*
 * A bytes_received budget of 200,000: zero-copy receives use it up, and
 * once it is spent the next one is refused (EDQUOT) before it takes
 * anything off the queue.
 */
TEST_F(zc, a_budget_holds_against_zero_copy_receives)
{
	const size_t total = 512 << 10;
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	unsigned char control[256];
	socklen_t len = sizeof(struct zc_args);
	struct zc_args zc;
	uint64_t used = 0;
	size_t mapped;
	int before, status, i, one = 1;
	long n;

	budget(&s, "zc-200000", FTAGENT_METRIC_BYTES_RECEIVED, 200000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	self->sender = send_in_child(self->tx, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	ASSERT_EQ(0, wait_received(self->rx, total));
	for (i = 0; i < 1000 && used < 200000; i++) {
		n = zc_receive(_metadata, self, &zc, &mapped);
		ASSERT_LE(0, n) TH_LOG("%s", strerror(errno));
		used += n;
	}
	ASSERT_LE(200000, used);
	before = queued(self->rx);
	ASSERT_LT(0, before);
	errno = 0;
	EXPECT_EQ(-1, zc_receive(_metadata, self, &zc, &mapped));
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(before, queued(self->rx));
	/*
	 * Refused with timestamps asked for: nothing is written into the
	 * caller's control buffer (the refusal leaves no timestamps behind
	 * for the kernel to put there).
	 */
	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_TIMESTAMP, &one,
				sizeof(one)));
	memset(control, 0xaa, sizeof(control));
	memset(&zc, 0, sizeof(zc));
	zc.address = (uintptr_t)self->map;
	zc.length = MAP_BYTES;
	zc.msg_flags = TCP_CMSG_TS;
	zc.msg_control = (uintptr_t)control;
	zc.msg_controllen = sizeof(control);
	errno = 0;
	EXPECT_EQ(-1, getsockopt(self->rx, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE,
				 &zc, &len));
	EXPECT_EQ(EDQUOT, errno);
	for (i = 0; i < (int)sizeof(control); i++)
		ASSERT_EQ(0xaa, control[i]) TH_LOG("control[%d] written", i);
	EXPECT_EQ(before, queued(self->rx));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(used, got.used);
	EXPECT_LE(1, got.denied);
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	ftagent_budget_set_free(&s);
}

#ifndef AF_SMC
#define AF_SMC 43
#endif

/*
 * AF_SMC passes SOL_TCP options to the TCP socket it makes underneath,
 * a kernel socket with no descriptor. Connected to a plain TCP listener
 * it falls back to that socket, and TCP_ZEROCOPY_RECEIVE on the SMC
 * descriptor takes the data off it (into any TCP socket's mapping: the
 * fixture's). Counted and charged all the same: a bytes_received budget
 * of 100,000 is charged exactly what was received, then refuses.
 */
TEST_F(zc, a_zero_copy_receive_through_af_smc_is_counted_and_charged)
{
	const size_t total = 512 << 10;
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ft_counters fc = {0};
	socklen_t alen = sizeof(a);
	uint64_t received = 0, counted = 0;
	struct ftnl_error err;
	struct zc_args zc;
	int lfd, smc, peer, status, i;
	size_t k;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&a, &alen));
	ASSERT_EQ(0, listen(lfd, 1));
	/*
	 * A host loads smc on the socket() call; the guest's module loader
	 * runs in the initramfs, not in the host's root this test sees.
	 */
	if (system("modprobe smc 2>/dev/null"))
		TH_LOG("modprobe smc failed");
	smc = socket(AF_SMC, SOCK_STREAM, 0);
	ASSERT_LE(0, smc) TH_LOG("AF_SMC: %s", strerror(errno));
	ASSERT_EQ(0, connect(smc, (struct sockaddr *)&a, sizeof(a)));
	peer = accept(lfd, NULL, NULL);
	ASSERT_LE(0, peer);
	close(lfd);
	/* The receives from here on are the SMC ones only. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	budget(&s, "zc-smc-100000", FTAGENT_METRIC_BYTES_RECEIVED, 100000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	self->sender = send_in_child(peer, total, 64 << 10);
	ASSERT_LT(0, self->sender);
	for (i = 0; i < 10000 && received < 100000; i++) {
		struct pollfd p = {.fd = smc, .events = POLLIN};
		socklen_t len = sizeof(zc);

		ASSERT_EQ(1, poll(&p, 1, 30000));
		zc_request(&zc, self);
		ASSERT_EQ(0, getsockopt(smc, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE,
					&zc, &len))
		TH_LOG("through AF_SMC: %s", strerror(errno));
		received +=
			zc.length + (zc.copybuf_len > 0 ? zc.copybuf_len : 0);
	}
	ASSERT_LE(100000, received);
	ASSERT_EQ(self->sender, waitpid(self->sender, &status, 0));
	self->sender = -1;
	ASSERT_EQ(0, status);
	zc_request(&zc, self);
	{
		socklen_t len = sizeof(zc);

		errno = 0;
		EXPECT_EQ(-1, getsockopt(smc, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE,
					 &zc, &len));
		EXPECT_EQ(EDQUOT, errno);
	}
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(received, got.used);
	/*
	 * Counted for this process, on the TCP socket underneath (its
	 * other receives are the netlink replies of this test's requests).
	 */
	ASSERT_EQ(0, ft_collect(&fc));
	for (k = 0; k < fc.n; k++)
		if (fc.c[k].kind == FTAGENT_OBJ_SOCKET &&
		    fc.c[k].family == AF_INET) {
			counted += fc.c[k].in.bytes;
			EXPECT_EQ(IPPROTO_TCP, fc.c[k].protocol);
		}
	EXPECT_EQ(received, counted);
	ft_counters_free(&fc);
	ftagent_budget_set_free(&s);
	close(peer);
	close(smc);
}

TEST_HARNESS_MAIN
