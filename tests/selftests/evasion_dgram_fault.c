// SPDX-License-Identifier: GPL-2.0
/*
 * A receive whose data copy faults: the caller's buffer runs from a
 * writable page into one the kernel can read but not write. A datagram
 * socket copies up to the fault, drops the datagram and fails with
 * EFAULT: the caller has the first bytes, the socket has nothing left,
 * and the return value says nothing of either. Every byte that landed
 * must still be counted and charged against a bytes_received budget,
 * whichever call received it (recvfrom, recvmsg, recvmmsg, read,
 * readv, preadv2, and io_uring's RECV, RECVMSG, READ and READV, run
 * inline, by an io-wq worker or by the SQPOLL thread). The ground truth
 * is what the test finds in its own buffer up to the unwritable page,
 * and a queue that is empty afterwards.
 */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "evasion_test.h"
#include "../../tools/lib/iouring_raw.h"

#define NDGRAM 10
#define LANDS  300 /* writable bytes before the unwritable page */

/* Datagram i is 500 + 37 * i bytes, all of them the byte 'a' + i. */
static size_t dgram_size(int i)
{
	return 500 + 37 * i;
}

FIXTURE(dgram_fault)
{
	int fds[2]; /* [0] receives, [1] sends */
	long page;
	char *area; /* a writable page, then a read-only one */
	char *buf;  /* LANDS bytes before the read-only page */
};

FIXTURE_VARIANT(dgram_fault)
{
	int family;
	/*
	 * Sent with MSG_MORE, then pushed: the datagram has a software
	 * checksum, which the receiver checks as it copies a datagram its
	 * buffer holds whole. That copy says nothing of how far it got in
	 * the segment that faulted: the whole datagram is charged.
	 */
	bool corked;
};

FIXTURE_VARIANT_ADD(dgram_fault, udp){
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(dgram_fault, udp6){
	.family = AF_INET6,
};

FIXTURE_VARIANT_ADD(dgram_fault, udp_corked){
	.family = AF_INET,
	.corked = true,
};

FIXTURE_VARIANT_ADD(dgram_fault, udp6_corked){
	.family = AF_INET6,
	.corked = true,
};

FIXTURE_VARIANT_ADD(dgram_fault, unix){
	.family = AF_UNIX,
};

FIXTURE_SETUP(dgram_fault)
{
	int err = variant->family == AF_UNIX
			  ? socketpair(AF_UNIX, SOCK_DGRAM, 0, self->fds)
			  : ft_udp_pair(variant->family, self->fds);

	ASSERT_EQ(0, err);
	self->page = sysconf(_SC_PAGESIZE);
	self->area = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->area);
	ASSERT_EQ(0, mprotect(self->area + self->page, self->page, PROT_READ));
	self->buf = self->area + self->page - LANDS;
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(dgram_fault)
{
	EXPECT_EQ(0, clear_budgets());
	munmap(self->area, 2 * self->page);
	close(self->fds[0]);
	close(self->fds[1]);
}

/* Send datagram @i on @fd, in two sends when @corked. */
static int send_dgram(int fd, int i, bool corked)
{
	char out[1024];

	memset(out, 'a' + i, dgram_size(i));
	if (corked)
		return send(fd, out, dgram_size(i), MSG_MORE) ==
					       (ssize_t)dgram_size(i) &&
				       send(fd, out, 0, 0) == 0
			       ? 0
			       : -1;
	return send(fd, out, dgram_size(i), 0) == (ssize_t)dgram_size(i) ? 0
									 : -1;
}

/* What a receive of datagram @i that faults after LANDS bytes costs. */
static uint64_t charged(const FIXTURE_VARIANT(dgram_fault) * variant, int i)
{
	return variant->corked ? dgram_size(i) : LANDS;
}

enum receiver {
	BY_RECVFROM,
	BY_RECVMSG,
	BY_READ,
	BY_READV,
	BY_PREADV2,
	/* io_uring, issued inline unless said otherwise */
	BY_IOUR_RECV,
	BY_IOUR_RECVMSG,
	BY_IOUR_READ,
	BY_IOUR_READV,
	BY_IOUR_RECV_IOWQ,   /* IOSQE_ASYNC: an io-wq worker */
	BY_IOUR_RECV_SQPOLL, /* the SQPOLL thread */
};

/* One io_uring request of @op on a ring of its own: its result. */
static ssize_t ring_receive(int fd, int op, void *addr, unsigned int len,
			    enum receiver how)
{
	struct io_uring_cqe cqe;
	struct io_uring_sqe *sqe;
	struct ring r;
	int rc;

	if (ring_init(&r, 4,
		      how == BY_IOUR_RECV_SQPOLL ? IORING_SETUP_SQPOLL : 0, 0))
		return -ENOSYS;
	sqe = ring_rw(&r, op, fd, addr, len,
		      op == IORING_OP_READ || op == IORING_OP_READV ? -1 : 0,
		      7);
	if (how == BY_IOUR_RECV_IOWQ)
		sqe->flags |= IOSQE_ASYNC;
	rc = ring_submit(&r, 1);
	if (rc == 1)
		rc = ring_wait(&r, &cqe, 1);
	ring_exit(&r);
	if (rc < 0)
		return rc;
	return cqe.res;
}

/* Receive datagram @i into the buffer that faults: -1 with EFAULT. */
static ssize_t receive(int fd, char *buf, size_t len, enum receiver how)
{
	struct iovec iov[2] = {
		{.iov_base = buf, .iov_len = LANDS / 2},
		{.iov_base = buf + LANDS / 2, .iov_len = len - LANDS / 2},
	};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	ssize_t res;

	switch (how) {
	case BY_IOUR_RECV:
	case BY_IOUR_RECV_IOWQ:
	case BY_IOUR_RECV_SQPOLL:
		res = ring_receive(fd, IORING_OP_RECV, buf, len, how);
		break;
	case BY_IOUR_RECVMSG:
		res = ring_receive(fd, IORING_OP_RECVMSG, &mh, 1, how);
		break;
	case BY_IOUR_READ:
		res = ring_receive(fd, IORING_OP_READ, buf, len, how);
		break;
	case BY_IOUR_READV:
		res = ring_receive(fd, IORING_OP_READV, iov, 2, how);
		break;
	default: res = 0; break;
	}
	if (how >= BY_IOUR_RECV) {
		if (res >= 0)
			return res;
		errno = -res;
		return -1;
	}
	switch (how) {
	case BY_RECVFROM: return recvfrom(fd, buf, len, 0, NULL, NULL);
	case BY_RECVMSG: return recvmsg(fd, &mh, 0);
	case BY_READ: return read(fd, buf, len);
	case BY_READV: return readv(fd, iov, 2);
	default: return preadv2(fd, iov, 2, -1, 0);
	}
}

/*
 * Every datagram was taken off @fd's queue, and its socket was charged
 * @bytes in @calls receives, each an error. After an SQPOLL ring the
 * last count may come a moment after its CQE (seen on PREEMPT_RT, where
 * the waiter runs at once): ft_sum_fd_settled().
 */
static void expect_drained_and_charged(struct __test_metadata *_metadata,
				       int fd, uint64_t bytes, int calls,
				       enum receiver how)
{
	struct ft_totals sum;
	char spare[64];

	ASSERT_EQ(0, ft_sum_fd_settled(FTAGENT_OBJ_SOCKET, fd,
				       how == BY_IOUR_RECV_SQPOLL ? calls : 0,
				       &sum));
	EXPECT_EQ(bytes, sum.in_bytes);
	EXPECT_EQ(calls, sum.in_calls);
	EXPECT_EQ(calls, sum.in_errors);
	/* After the counts: this receive is counted as well. */
	errno = 0;
	EXPECT_EQ(-1, recv(fd, spare, sizeof(spare), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * NDGRAM datagrams, each received by @how into the buffer that faults:
 * LANDS bytes of each land, the datagram is gone, the call fails.
 */
static void faulting_receives(struct __test_metadata *_metadata,
			      FIXTURE_DATA(dgram_fault) * self,
			      const FIXTURE_VARIANT(dgram_fault) * variant,
			      enum receiver how)
{
	uint64_t want = 0;
	int i;

	for (i = 0; i < NDGRAM; i++) {
		ASSERT_EQ(0, send_dgram(self->fds[1], i, variant->corked));
		memset(self->buf, 0, LANDS);
		errno = 0;
		EXPECT_EQ(-1,
			  receive(self->fds[0], self->buf, dgram_size(i), how));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_TRUE(ft_all_bytes(self->buf, LANDS, 'a' + i))
		TH_LOG("datagram %d did not land", i);
		want += charged(variant, i);
	}
	expect_drained_and_charged(_metadata, self->fds[0], want, NDGRAM, how);
}

TEST_F(dgram_fault, a_recvfrom_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_RECVFROM);
}

TEST_F(dgram_fault, a_recvmsg_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_RECVMSG);
}

TEST_F(dgram_fault, a_read_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_READ);
}

TEST_F(dgram_fault, a_readv_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_READV);
}

/* preadv2 with an offset of -1 is readv, on a socket too. */
TEST_F(dgram_fault, a_preadv2_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_PREADV2);
}

/*
 * io_uring receives run no traced call: each request is charged when it
 * completes, with what its copy had copied when it fails with EFAULT.
 */
TEST_F(dgram_fault, an_io_uring_recv_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_RECV);
}

TEST_F(dgram_fault, an_io_uring_recvmsg_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_RECVMSG);
}

TEST_F(dgram_fault, an_io_uring_read_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_READ);
}

TEST_F(dgram_fault, an_io_uring_readv_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_READV);
}

/*
 * NDGRAM receives in one submission: their completions wait for the end
 * of the batch, each with its own bytes.
 */
TEST_F(dgram_fault, a_batch_of_io_uring_recvs_that_fault_is_counted)
{
	struct io_uring_cqe cqe[NDGRAM];
	struct ft_counters fc = {0};
	struct ft_totals t;
	uint64_t want = 0;
	struct ring r;
	int i;

	for (i = 0; i < NDGRAM; i++) {
		ASSERT_EQ(0, send_dgram(self->fds[1], i, variant->corked));
		want += charged(variant, i);
	}
	ASSERT_EQ(0, ring_init(&r, 16, 0, 0));
	for (i = 0; i < NDGRAM; i++)
		ring_rw(&r, IORING_OP_RECV, self->fds[0], self->buf,
			dgram_size(NDGRAM - 1), 0, i);
	ASSERT_EQ(NDGRAM, ring_submit(&r, NDGRAM));
	ASSERT_EQ(0, ring_wait(&r, cqe, NDGRAM));
	for (i = 0; i < NDGRAM; i++)
		EXPECT_EQ(-EFAULT, cqe[i].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->fds[0]);
	EXPECT_EQ(want, t.in_bytes);
	EXPECT_EQ(NDGRAM, t.in_calls);
	EXPECT_EQ(NDGRAM, t.in_errors);
	ft_counters_free(&fc);
}

TEST_F(dgram_fault, an_io_wq_recv_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_RECV_IOWQ);
}

TEST_F(dgram_fault, an_sqpoll_recv_that_faults_in_the_copy_is_counted)
{
	faulting_receives(_metadata, self, variant, BY_IOUR_RECV_SQPOLL);
}

/*
 * A recvmsg whose message header is on a page the kernel can read but
 * not write: the datagram is copied whole into a writable buffer and
 * taken off the queue, then writing the message's flags back to the
 * header faults and the call fails with EFAULT. Its result says nothing
 * of the datagram, which the caller has all the same: the system call
 * and io_uring's RECVMSG (inline, io-wq, SQPOLL) are charged it whole.
 */
/* A read-only page holding a msghdr whose one iovec is @lands, @len. */
static struct msghdr *readonly_header(long page, char *lands, size_t len)
{
	char *hdr = mmap(NULL, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct msghdr *mh = (struct msghdr *)hdr;
	struct iovec *iov = (struct iovec *)(hdr + 256);

	if (hdr == MAP_FAILED)
		return NULL;
	iov->iov_base = lands;
	iov->iov_len = len;
	memset(mh, 0, sizeof(*mh));
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	if (mprotect(hdr, page, PROT_READ)) {
		munmap(hdr, page);
		return NULL;
	}
	return mh;
}

/* A recvmsg by @how with the read-only @mh: -1 and errno, or bytes. */
static ssize_t receive_into_readonly_header(int fd, struct msghdr *mh,
					    enum receiver how)
{
	ssize_t res;

	if (how == BY_RECVMSG)
		return recvmsg(fd, mh, 0);
	res = ring_receive(fd, IORING_OP_RECVMSG, mh, 1, how);
	if (res >= 0)
		return res;
	errno = -res;
	return -1;
}

static void readonly_header_receives(struct __test_metadata *_metadata,
				     FIXTURE_DATA(dgram_fault) * self,
				     enum receiver how)
{
	char *lands = self->area; /* writable, apart from the header */
	struct msghdr *mh;
	uint64_t want = 0;
	int i;

	mh = readonly_header(self->page, lands, dgram_size(NDGRAM - 1));
	ASSERT_NE(NULL, mh);
	for (i = 0; i < NDGRAM; i++) {
		ASSERT_EQ(0, send_dgram(self->fds[1], i, false));
		memset(lands, 0, dgram_size(NDGRAM - 1));
		errno = 0;
		EXPECT_EQ(-1,
			  receive_into_readonly_header(self->fds[0], mh, how));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_TRUE(ft_all_bytes(lands, dgram_size(i), 'a' + i))
		TH_LOG("datagram %d did not land whole", i);
		want += dgram_size(i);
	}
	expect_drained_and_charged(_metadata, self->fds[0], want, NDGRAM, how);
	munmap(mh, self->page);
}

TEST_F(dgram_fault, a_recvmsg_that_cannot_write_its_header_is_counted)
{
	readonly_header_receives(_metadata, self, BY_RECVMSG);
}

TEST_F(dgram_fault, an_io_uring_recvmsg_that_cannot_write_its_header_is_counted)
{
	readonly_header_receives(_metadata, self, BY_IOUR_RECVMSG);
}

TEST_F(dgram_fault, an_io_wq_recvmsg_that_cannot_write_its_header_is_counted)
{
	readonly_header_receives(_metadata, self, BY_IOUR_RECV_IOWQ);
}

TEST_F(dgram_fault, an_sqpoll_recvmsg_that_cannot_write_its_header_is_counted)
{
	readonly_header_receives(_metadata, self, BY_IOUR_RECV_SQPOLL);
}

/*
 * recvmmsg whose second message faults: it returns 1, the first
 * datagram whole and LANDS bytes of the second are the caller's, and
 * the socket keeps the EFAULT for the next call (which copies nothing).
 */
TEST_F(dgram_fault, a_recvmmsg_whose_second_message_faults_is_counted)
{
	struct mmsghdr v[2];
	struct iovec iov[2];
	struct ft_counters fc = {0};
	struct ft_totals t;
	char first[1024], spare[64];

	ASSERT_EQ(0, send_dgram(self->fds[1], 0, variant->corked));
	ASSERT_EQ(0, send_dgram(self->fds[1], 1, variant->corked));
	memset(v, 0, sizeof(v));
	iov[0].iov_base = first;
	iov[0].iov_len = sizeof(first);
	iov[1].iov_base = self->buf;
	iov[1].iov_len = dgram_size(1);
	v[0].msg_hdr.msg_iov = &iov[0];
	v[0].msg_hdr.msg_iovlen = 1;
	v[1].msg_hdr.msg_iov = &iov[1];
	v[1].msg_hdr.msg_iovlen = 1;
	memset(self->buf, 0, LANDS);
	EXPECT_EQ(1, recvmmsg(self->fds[0], v, 2, 0, NULL));
	EXPECT_EQ(dgram_size(0), v[0].msg_len);
	EXPECT_TRUE(ft_all_bytes(self->buf, LANDS, 'b'));
	/* The error the socket kept, then nothing queued. */
	recv(self->fds[0], spare, sizeof(spare), MSG_DONTWAIT);
	errno = 0;
	EXPECT_EQ(-1, recv(self->fds[0], spare, sizeof(spare), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->fds[0]);
	EXPECT_EQ(dgram_size(0) + charged(variant, 1), t.in_bytes);
	ft_counters_free(&fc);
}

/*
 * A bytes_received budget of 1,000 against receives that all fault in
 * the copy: each is charged what landed (300, 600, 900, 1,200; corked:
 * whole datagrams), and the one after the limit is passed is refused
 * before it takes a datagram. Network budgets are for internet sockets:
 * a Unix socket's receives use none of it (docs/policy.md).
 */
static void budget_against_faults(struct __test_metadata *_metadata,
				  FIXTURE_DATA(dgram_fault) * self,
				  const FIXTURE_VARIANT(dgram_fault) * variant,
				  enum receiver how)
{
	bool network = variant->family != AF_UNIX;
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	uint64_t used = 0;
	int i;

	budget(&s, "dgram-fault-1000", FTAGENT_METRIC_BYTES_RECEIVED, 1000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, send_dgram(self->fds[1], i, variant->corked));
	for (i = 0; i < 5 && (!network || used < 1000); i++) {
		errno = 0;
		EXPECT_EQ(-1,
			  receive(self->fds[0], self->buf, dgram_size(i), how));
		EXPECT_EQ(EFAULT, errno);
		used += charged(variant, i);
	}
	if (network) {
		ASSERT_GT(5, i);
		errno = 0;
		EXPECT_EQ(-1,
			  receive(self->fds[0], self->buf, dgram_size(i), how));
		EXPECT_EQ(EDQUOT, errno);
	}
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(network ? used : 0, got.used);
	EXPECT_EQ(network ? 1 : 0, got.denied);
	ftagent_budget_set_free(&s);
}

/*
 * A multishot RECVMSG writes an io_uring_recvmsg_out header at the start
 * of the buffer it picks, and the datagram after the header, the name
 * and the control space. With the buffer's first page read-only and the
 * control space ending at the second, the datagram lands whole on the
 * writable page, the header's copy faults, and the request ends with
 * EFAULT: the datagram is charged all the same.
 */
TEST_F(dgram_fault, a_multishot_recvmsg_whose_header_faults_is_counted)
{
	struct io_uring_cqe cqe;
	struct io_uring_sqe *sqe;
	struct msghdr mh = {0};
	uint64_t want = 0;
	struct ring r;
	char *bufs;
	int i;

	bufs = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bufs);
	ASSERT_EQ(0, mprotect(bufs, self->page, PROT_READ));
	mh.msg_controllen = self->page - sizeof(struct io_uring_recvmsg_out);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, send_dgram(self->fds[1], i, false));
		memset(bufs + self->page, 0, self->page);
		ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
		sqe = ring_sqe(&r, IORING_OP_PROVIDE_BUFFERS, 1, 1);
		sqe->addr = (uintptr_t)bufs;
		sqe->len = 2 * self->page;
		sqe->buf_group = 5;
		ASSERT_EQ(1, ring_submit(&r, 1));
		ASSERT_EQ(0, ring_wait(&r, &cqe, 1));
		ASSERT_EQ(0, cqe.res);
		sqe = ring_rw(&r, IORING_OP_RECVMSG, self->fds[0], &mh, 1, 0,
			      2);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = 5;
		sqe->ioprio = IORING_RECV_MULTISHOT;
		ASSERT_EQ(1, ring_submit(&r, 1));
		ASSERT_EQ(0, ring_wait(&r, &cqe, 1));
		EXPECT_EQ(-EFAULT, cqe.res);
		EXPECT_FALSE(cqe.flags & IORING_CQE_F_MORE);
		ring_exit(&r);
		EXPECT_TRUE(
			ft_all_bytes(bufs + self->page, dgram_size(i), 'a' + i))
		TH_LOG("datagram %d did not land after the header", i);
		want += dgram_size(i);
	}
	expect_drained_and_charged(_metadata, self->fds[0], want, 3,
				   BY_IOUR_RECVMSG);
	munmap(bufs, 2 * self->page);
}

/*
 * A bytes_received budget of 1,000 against io_uring RECVMSGs that fail
 * to write their header back: each is charged its whole datagram (500,
 * then 537), and the third is refused before it takes one. A Unix
 * socket's receives use none of it.
 */
static void budget_against_readonly_headers(struct __test_metadata *_metadata,
					    FIXTURE_DATA(dgram_fault) * self,
					    const FIXTURE_VARIANT(dgram_fault) *
						    variant,
					    enum receiver how)
{
	bool network = variant->family != AF_UNIX;
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	struct msghdr *mh;
	int i;

	mh = readonly_header(self->page, self->area, dgram_size(4));
	ASSERT_NE(NULL, mh);
	budget(&s, "dgram-header-1000", FTAGENT_METRIC_BYTES_RECEIVED, 1000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, send_dgram(self->fds[1], i, false));
	for (i = 0; i < 2; i++) {
		errno = 0;
		EXPECT_EQ(-1,
			  receive_into_readonly_header(self->fds[0], mh, how));
		EXPECT_EQ(EFAULT, errno);
	}
	errno = 0;
	EXPECT_EQ(-1, receive_into_readonly_header(self->fds[0], mh, how));
	EXPECT_EQ(network ? EDQUOT : EFAULT, errno);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(network ? dgram_size(0) + dgram_size(1) : 0, got.used);
	EXPECT_EQ(network ? 1 : 0, got.denied);
	ftagent_budget_set_free(&s);
	munmap(mh, self->page);
}

TEST_F(dgram_fault, a_budget_holds_against_recvmsgs_that_cannot_write_back)
{
	budget_against_readonly_headers(_metadata, self, variant, BY_RECVMSG);
}

TEST_F(dgram_fault,
       a_budget_holds_against_io_uring_recvmsgs_that_cannot_write_back)
{
	budget_against_readonly_headers(_metadata, self, variant,
					BY_IOUR_RECVMSG);
}

TEST_F(dgram_fault,
       a_budget_holds_against_io_wq_recvmsgs_that_cannot_write_back)
{
	budget_against_readonly_headers(_metadata, self, variant,
					BY_IOUR_RECV_IOWQ);
}

TEST_F(dgram_fault, a_budget_holds_against_copies_that_fault)
{
	budget_against_faults(_metadata, self, variant, BY_RECVFROM);
}

TEST_F(dgram_fault, a_budget_holds_against_io_uring_copies_that_fault)
{
	budget_against_faults(_metadata, self, variant, BY_IOUR_RECV);
}

TEST_F(dgram_fault, a_budget_holds_against_io_wq_copies_that_fault)
{
	budget_against_faults(_metadata, self, variant, BY_IOUR_RECV_IOWQ);
}

/*
 * A stream that faults before copying anything fails with EFAULT and
 * keeps its data queued: what landed is charged, as a MSG_PEEK is, and
 * the whole is charged again when it is read (docs/hooks.md).
 */
TEST(a_stream_that_faults_first_is_charged_what_landed)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char out[1000], in[1000];
	struct ft_counters fc = {0};
	struct ft_totals t;
	int fds[3], i;

	ASSERT_NE(MAP_FAILED, area);
	ASSERT_EQ(0, mprotect(area + page, page, PROT_READ));
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	memset(out, 's', sizeof(out));
	ASSERT_EQ(0, ft_write_all(fds[1], out, sizeof(out)));
	errno = 0;
	EXPECT_EQ(-1,
		  recv(fds[2], area + page - LANDS, sizeof(out), MSG_WAITALL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_TRUE(ft_all_bytes(area + page - LANDS, LANDS, 's'));
	EXPECT_EQ(sizeof(in), recv(fds[2], in, sizeof(in), MSG_WAITALL));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(LANDS + sizeof(in), t.in_bytes);
	ft_counters_free(&fc);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	munmap(area, 2 * page);
}

/*
 * A read of a stream that faults after copying some returns those, and
 * what the faulting copy wrote stays queued: none of it may be charged
 * to a later call. Here the next call is a read of a file that fails
 * with EFAULT before it copies anything: it is charged nothing.
 */
TEST(a_stream_read_that_returned_leaves_no_fault_behind)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[] = "/tmp/ftdf.XXXXXX", out[1000], in[1000];
	struct ft_counters fc = {0};
	struct ft_totals t;
	int fds[2], file;

	ASSERT_NE(MAP_FAILED, area);
	ASSERT_EQ(0, mprotect(area + page, page, PROT_READ));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, fds));
	file = mkstemp(path);
	ASSERT_LE(0, file);
	unlink(path);
	memset(out, 'u', sizeof(out));
	ASSERT_EQ(0, ft_write_all(file, out, sizeof(out)));
	ASSERT_EQ(0, lseek(file, 0, SEEK_SET));
	/* Two messages: the first is copied whole, the second faults. */
	ASSERT_EQ(100, write(fds[1], out, 100));
	ASSERT_EQ(1000, write(fds[1], out, 1000));
	EXPECT_EQ(100, read(fds[0], area + page - LANDS, 1100));
	errno = 0;
	EXPECT_EQ(-1, read(file, area + page, sizeof(out)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1000, read(fds[0], in, sizeof(in)));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, file);
	EXPECT_EQ(0, t.in_bytes);
	EXPECT_EQ(1, t.in_errors);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[0]);
	EXPECT_EQ(1100, t.in_bytes);
	ft_counters_free(&fc);
	close(file);
	close(fds[0]);
	close(fds[1]);
	munmap(area, 2 * page);
}

/* The Internet checksum of @n bytes at @p, added to @sum. */
static uint32_t csum_add(uint32_t sum, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

/*
 * Send @n bytes of @data to @to (on loopback) as a UDP datagram whose
 * checksum is one off the right one, through a raw socket.
 */
static int send_bad_checksum(const struct sockaddr_in *to, const char *data,
			     size_t n)
{
	char pkt[sizeof(struct udphdr) + 1024];
	struct udphdr *uh = (struct udphdr *)pkt;
	size_t len = sizeof(*uh) + n;
	uint32_t sum = 0;
	uint16_t right;
	ssize_t sent;
	int raw;

	if (n > 1024)
		return -1;
	memset(uh, 0, sizeof(*uh));
	uh->source = htons(9);
	uh->dest = to->sin_port;
	uh->len = htons(len);
	memcpy(pkt + sizeof(*uh), data, n);
	/* Pseudo-header: 127.0.0.1 to 127.0.0.1, UDP, the length. */
	sum = csum_add(sum, &to->sin_addr, 4);
	sum = csum_add(sum, &to->sin_addr, 4);
	sum += IPPROTO_UDP + len;
	sum = csum_add(sum, pkt, len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	right = ~sum & 0xffff;
	uh->check = htons(right == 0xfffe ? 1 : right + 1);
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (raw < 0)
		return -1;
	sent = sendto(raw, pkt, len, 0, (const struct sockaddr *)to,
		      sizeof(*to));
	close(raw);
	return sent == (ssize_t)len ? 0 : -1;
}

/*
 * A datagram whose checksum does not match is copied into the buffer
 * whole before the kernel checks it, then discarded: the receive waits
 * for the next datagram, or fails with EAGAIN, but the bytes are in the
 * caller's buffer all the same, and are charged. A remote sender could
 * otherwise feed a receiver past its budget.
 */
TEST(a_datagram_discarded_for_its_checksum_is_charged_what_landed)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	struct ft_counters fc = {0};
	char bad[700], in[1024];
	struct ft_totals t;
	int fds[2];

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	ASSERT_EQ(0, getsockname(fds[0], (struct sockaddr *)&a, &len));
	memset(bad, 'x', sizeof(bad));
	ASSERT_EQ(0, send_bad_checksum(&a, bad, sizeof(bad)));
	memset(in, 0, sizeof(in));
	errno = 0;
	EXPECT_EQ(-1, recv(fds[0], in, sizeof(in), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_TRUE(ft_all_bytes(in, sizeof(bad), 'x'));
	/* Then one good byte after a bad datagram, waited for. */
	ASSERT_EQ(0, send_bad_checksum(&a, bad, sizeof(bad)));
	ASSERT_EQ(1, send(fds[1], "g", 1, 0));
	memset(in, 0, sizeof(in));
	EXPECT_EQ(1, recv(fds[0], in, sizeof(in), 0));
	EXPECT_EQ('g', in[0]);
	EXPECT_TRUE(ft_all_bytes(in + 1, sizeof(bad) - 1, 'x'));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[0]);
	EXPECT_EQ(2 * sizeof(bad) + 1, t.in_bytes);
	EXPECT_EQ(2, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
}

/*
 * io_uring's RECV with MSG_WAITALL on a SOCK_SEQPACKET socket goes on
 * after a short message; when the next one faults (and is dropped), the
 * request reports the first message's bytes only. What landed of the
 * second is charged all the same.
 */
TEST(an_io_uring_waitall_receive_whose_second_message_faults_is_counted)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf = area + page - 100 - LANDS;
	struct ft_counters fc = {0};
	struct io_uring_cqe cqe;
	char out[500];
	struct ft_totals t;
	struct ring r;
	int fds[2];

	ASSERT_NE(MAP_FAILED, area);
	ASSERT_EQ(0, mprotect(area + page, page, PROT_READ));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds));
	memset(out, 'p', 100);
	ASSERT_EQ(100, send(fds[1], out, 100, 0));
	memset(out, 'q', sizeof(out));
	ASSERT_EQ(sizeof(out), send(fds[1], out, sizeof(out), 0));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ring_rw(&r, IORING_OP_RECV, fds[0], buf, 100 + sizeof(out), 0, 1)
		->msg_flags = MSG_WAITALL;
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, &cqe, 1));
	ring_exit(&r);
	/* The first message, reported; LANDS bytes of the second, not. */
	EXPECT_EQ(100, cqe.res);
	EXPECT_TRUE(ft_all_bytes(buf, 100, 'p'));
	EXPECT_TRUE(ft_all_bytes(buf + 100, LANDS, 'q'));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[0]);
	EXPECT_EQ(100 + LANDS, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
	munmap(area, 2 * page);
}

/*
 * The same through io_uring: a receive that meets a bad datagram waits
 * (polled) for the next; the request completes with that one's byte,
 * and is charged the discarded datagram's bytes too.
 */
TEST(an_io_uring_receive_is_charged_a_datagram_discarded_for_its_checksum)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	struct ft_counters fc = {0};
	struct io_uring_cqe cqe;
	char bad[700], in[1024];
	struct ft_totals t;
	struct ring r;
	int fds[2];

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	ASSERT_EQ(0, getsockname(fds[0], (struct sockaddr *)&a, &len));
	memset(bad, 'x', sizeof(bad));
	memset(in, 0, sizeof(in));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, send_bad_checksum(&a, bad, sizeof(bad)));
	ring_rw(&r, IORING_OP_RECV, fds[0], in, sizeof(in), 0, 1);
	ASSERT_EQ(1, ring_submit(&r, 0));
	/* The bad one, queued first, is taken and dropped; then a byte. */
	ASSERT_EQ(1, send(fds[1], "g", 1, 0));
	ASSERT_EQ(0, ring_wait(&r, &cqe, 1));
	EXPECT_EQ(1, cqe.res);
	EXPECT_EQ('g', in[0]);
	EXPECT_TRUE(ft_all_bytes(in + 1, sizeof(bad) - 1, 'x'));
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[0]);
	EXPECT_EQ(sizeof(bad) + 1, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(0, t.in_errors);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
}

TEST_HARNESS_MAIN
