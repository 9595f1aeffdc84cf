// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring moves bytes without any traced system call: the submitting
 * thread, an io-wq worker (IOSQE_ASYNC) or an SQPOLL thread calls the
 * file's and the socket's methods directly. Each request is counted for
 * the process that submitted it when it completes, exactly, whether its
 * CQE is posted, overflows a full completion ring, or is skipped
 * (IOSQE_CQE_SKIP_SUCCESS); byte budgets are charged for it, under the
 * process's name even when an io thread does the work; and what the
 * module cannot see on a kernel is counted as lost, never silently
 * missed.
 *
 * Raw io_uring system calls, no liburing: setup, three mmaps, enter.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "../../tools/lib/iouring_raw.h"

#define CHUNK 4096

FIXTURE(iour)
{
	char dir[64];
	int file;
	char buf[16 * CHUNK];
};

FIXTURE_SETUP(iour)
{
	struct ft_counters fc;

	strcpy(self->dir, "/tmp/ftiour.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->buf, sizeof(self->buf), "%s/data", self->dir);
	self->file = open(self->buf, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, self->file);
	memset(self->buf, 'u', sizeof(self->buf));
	ASSERT_EQ(0, ft_write_all(self->file, self->buf, sizeof(self->buf)));
	ASSERT_EQ(0, clear_budgets());
	/* Start from zero: what earlier calls counted is taken now. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
}

FIXTURE_TEARDOWN(iour)
{
	char cmd[128];

	EXPECT_EQ(0, clear_budgets());
	close(self->file);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Reads and writes, inline and through io-wq, one by one and batched. */
TEST_F(iour, reads_and_writes_are_counted_exactly)
{
	struct io_uring_cqe cqe[16];
	struct ft_counters fc;
	struct ft_totals t;
	struct iovec iov[2];
	uint64_t in = 0, out = 0, in_calls = 0, out_calls = 0;
	struct ring r;
	int i;

	ASSERT_EQ(0, ring_init(&r, 16, 0, 0));
	/* One at a time, inline. */
	ring_rw(&r, IORING_OP_READ, self->file, self->buf, 1000, 0, 1);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(1000, cqe[0].res);
	in += 1000, in_calls++;
	ring_rw(&r, IORING_OP_WRITE, self->file, self->buf, 777, 5, 2);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(777, cqe[0].res);
	out += 777, out_calls++;
	/* A batch of 8, half of them through io-wq workers. */
	for (i = 0; i < 8; i++) {
		struct io_uring_sqe *sqe = ring_rw(
			&r, i % 2 ? IORING_OP_READ : IORING_OP_WRITE,
			self->file, self->buf, 100 + i, i * CHUNK, 10 + i);

		if (i >= 4)
			sqe->flags |= IOSQE_ASYNC;
	}
	ASSERT_EQ(8, ring_submit(&r, 8));
	ASSERT_EQ(0, ring_wait(&r, cqe, 8));
	for (i = 0; i < 8; i++) {
		int k = cqe[i].user_data - 10;

		ASSERT_EQ(100 + k, cqe[i].res);
		if (k % 2)
			in += 100 + k, in_calls++;
		else
			out += 100 + k, out_calls++;
	}
	/* Vectored, and a read past the end: short, then 0. */
	iov[0].iov_base = self->buf;
	iov[0].iov_len = 300;
	iov[1].iov_base = self->buf + 300;
	iov[1].iov_len = 200;
	ring_rw(&r, IORING_OP_WRITEV, self->file, iov, 2, 0, 30);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(500, cqe[0].res);
	out += 500, out_calls++;
	ring_rw(&r, IORING_OP_READ, self->file, self->buf, 3 * CHUNK,
		sizeof(self->buf) - 123, 31);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(123, cqe[0].res);
	in += 123, in_calls++;
	ring_rw(&r, IORING_OP_READ, self->file, self->buf, 10,
		sizeof(self->buf), 32);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(0, cqe[0].res);
	in_calls++;
	ring_exit(&r);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(in, t.in_bytes);
	EXPECT_EQ(in_calls, t.in_calls);
	EXPECT_EQ(out, t.out_bytes);
	EXPECT_EQ(out_calls, t.out_calls);
	EXPECT_EQ(0, t.in_errors + t.out_errors);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
}

/* A request on a descriptor open the wrong way fails: an error, no bytes. */
TEST_F(iour, failed_requests_are_errors)
{
	struct io_uring_cqe cqe[1];
	struct ft_counters fc;
	struct ft_totals t;
	struct ring r;
	int ro;

	snprintf(self->buf, sizeof(self->buf), "%s/data", self->dir);
	ro = open(self->buf, O_RDONLY);
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ring_rw(&r, IORING_OP_WRITE, ro, self->buf, 100, 0, 1);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(-EBADF, cqe[0].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, ro);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(1, t.out_errors);
	EXPECT_EQ(0, t.out_bytes);
	ft_counters_free(&fc);
	close(ro);
}

/*
 * IOSQE_CQE_SKIP_SUCCESS: no CQE, and the io_uring_complete tracepoint
 * does not fire. The bytes are counted all the same, inline and through
 * io-wq, and a skipped request that fails is counted once, as an error.
 */
TEST_F(iour, skipped_completions_are_counted)
{
	struct io_uring_cqe cqe[4];
	struct ft_counters fc;
	struct ft_totals t;
	struct ring r;
	int i;

	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	/* Inline and through io-wq; each linked to a NOP that posts. */
	for (i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe =
			ring_rw(&r, IORING_OP_READ, self->file, self->buf,
				1500 + i, 0, 1);

		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_LINK |
			      (i ? IOSQE_ASYNC : 0);
		ring_sqe(&r, IORING_OP_NOP, -1, 2);
		ASSERT_EQ(2, ring_submit(&r, 1));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		EXPECT_EQ(2, cqe[0].user_data);
		EXPECT_EQ(0, cqe[0].res);
	}
	/* A skipped write on a read-only descriptor fails: its CQE posts. */
	snprintf(self->buf, sizeof(self->buf), "%s/data", self->dir);
	i = open(self->buf, O_RDONLY);
	ASSERT_LE(0, i);
	ring_rw(&r, IORING_OP_WRITE, i, self->buf, 10, 0, 3)->flags |=
		IOSQE_CQE_SKIP_SUCCESS;
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(3, cqe[0].user_data);
	EXPECT_EQ(-EBADF, cqe[0].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(1500 + 1501, t.in_bytes);
	EXPECT_EQ(2, t.in_calls);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(1, t.out_errors);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	close(i);
}

/* Many skipped writes in flight at once, in batches: each counted once. */
TEST_F(iour, skipped_batches_are_counted_once)
{
	struct io_uring_cqe cqe[1];
	struct ft_counters fc;
	struct ft_totals t;
	uint64_t expect = 0;
	struct ring r;
	int i, j;

	ASSERT_EQ(0, ring_init(&r, 64, 0, 0));
	for (j = 0; j < 10; j++) {
		for (i = 0; i < 63; i++) {
			struct io_uring_sqe *sqe =
				ring_rw(&r, IORING_OP_WRITE, self->file,
					self->buf, 100 + i, i * 128, i);

			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_LINK |
				      (i % 3 ? 0 : IOSQE_ASYNC);
			expect += 100 + i;
		}
		ring_sqe(&r, IORING_OP_NOP, -1, 999);
		ASSERT_EQ(64, ring_submit(&r, 1));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		ASSERT_EQ(999, cqe[0].user_data);
	}
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(expect, t.out_bytes);
	EXPECT_EQ(630, t.out_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
}

/*
 * A completion ring of 4: 8 reads overflow it, and the kernel copies the
 * rest in as the test reaps. Each read is counted once.
 */
TEST_F(iour, overflowed_completions_are_counted_once)
{
	struct io_uring_cqe cqe[8];
	struct ft_counters fc;
	struct ft_totals t;
	uint64_t expect = 0;
	struct ring r;
	int i;

	ASSERT_EQ(0, ring_init(&r, 4, IORING_SETUP_CQSIZE, 4));
	for (i = 0; i < 8; i++) {
		ring_rw(&r, IORING_OP_READ, self->file, self->buf, 1000 + i, 0,
			i);
		expect += 1000 + i;
		if (r.queued == 4)
			ASSERT_EQ(4, ring_submit(&r, 0));
	}
	ASSERT_EQ(0, ring_wait(&r, cqe, 8));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(1000 + cqe[i].user_data, cqe[i].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(expect, t.in_bytes);
	EXPECT_EQ(8, t.in_calls);
	ft_counters_free(&fc);
}

/* An SQPOLL ring: the kernel thread submits; the process is charged. */
TEST_F(iour, sqpoll_requests_are_the_process_s)
{
	struct io_uring_cqe cqe[2];
	struct ft_totals sum;
	struct ring r;

	ASSERT_EQ(0, ring_init(&r, 4, IORING_SETUP_SQPOLL, 0));
	ring_rw(&r, IORING_OP_READ, self->file, self->buf, 2222, 0, 1);
	ring_rw(&r, IORING_OP_WRITE, self->file, self->buf, 3333, 0, 2);
	ASSERT_EQ(2, ring_submit(&r, 2));
	ASSERT_EQ(0, ring_wait(&r, cqe, 2));
	EXPECT_EQ(cqe[0].user_data == 1 ? 2222 : 3333, cqe[0].res);
	EXPECT_EQ(cqe[1].user_data == 1 ? 2222 : 3333, cqe[1].res);
	ring_exit(&r);
	/* The counts may come a moment after the CQEs: ftagent_test.h. */
	ASSERT_EQ(0, ft_sum_fd_settled(FTAGENT_OBJ_FILE, self->file, 2, &sum));
	EXPECT_EQ(2222, sum.in_bytes);
	EXPECT_EQ(3333, sum.out_bytes);
	EXPECT_EQ(1, sum.in_calls);
	EXPECT_EQ(1, sum.out_calls);
}

/* send, sendmsg and zero-copy send on TCP; recv on the other end. */
TEST_F(iour, socket_bytes_are_counted_exactly)
{
	struct io_uring_cqe cqe[8];
	struct ft_counters fc;
	struct ft_totals tx, rx;
	struct msghdr msg = {0};
	struct iovec iov;
	uint64_t sent = 0, got = 0, recvs = 0;
	int fds[3], notif = 0, i;
	struct ring r;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	/* The connect and accept are counted calls: taken now. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	ring_rw(&r, IORING_OP_SEND, fds[1], self->buf, 1111, 0, 1);
	iov.iov_base = self->buf;
	iov.iov_len = 2222;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	ring_rw(&r, IORING_OP_SENDMSG, fds[1], &msg, 1, 0, 2);
	ring_rw(&r, IORING_OP_SEND_ZC, fds[1], self->buf, 3333, 0, 3);
	ASSERT_EQ(3, ring_submit(&r, 3));
	/* Three results, and the zero-copy send's notification. */
	ASSERT_EQ(0, ring_wait(&r, cqe, 4));
	for (i = 0; i < 4; i++) {
		if (cqe[i].flags & IORING_CQE_F_NOTIF) {
			notif++;
			continue;
		}
		ASSERT_LT(0, cqe[i].res);
		sent += cqe[i].res;
	}
	EXPECT_EQ(1, notif);
	EXPECT_EQ(1111 + 2222 + 3333, sent);
	while (got < sent) {
		/* recv and recvmsg by turns: 6666 bytes take at least two. */
		iov.iov_base = self->buf;
		iov.iov_len = 4000;
		if (recvs % 2)
			ring_rw(&r, IORING_OP_RECVMSG, fds[2], &msg, 1, 0, 9);
		else
			ring_rw(&r, IORING_OP_RECV, fds[2], self->buf, 4000, 0,
				9);
		ASSERT_EQ(1, ring_submit(&r, 1));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		ASSERT_LT(0, cqe[0].res);
		got += cqe[0].res;
		recvs++;
	}
	EXPECT_EQ(sent, got);
	EXPECT_LE(2, recvs);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	tx = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[1]);
	rx = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(sent, tx.out_bytes);
	EXPECT_EQ(3, tx.out_calls);
	EXPECT_EQ(0, tx.out_errors + tx.in_calls);
	EXPECT_EQ(got, rx.in_bytes);
	EXPECT_EQ(recvs, rx.in_calls);
	EXPECT_EQ(0, rx.in_errors + rx.out_calls);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/* Writes of 1000 through @r until one fails: its error, writes done. */
static int write_until_refused(struct ring *r, int fd, char *buf, int flags,
			       int *done)
{
	struct io_uring_cqe cqe[1];
	int i;

	for (i = 0; i < 100; i++) {
		struct io_uring_sqe *sqe =
			ring_rw(r, IORING_OP_WRITE, fd, buf, 1000, 0, i);

		sqe->flags |= flags;
		if (ring_submit(r, 1) != 1 || ring_wait(r, cqe, 1))
			return -1;
		if (cqe[0].res < 0) {
			*done = i;
			return -cqe[0].res;
		}
	}
	*done = i;
	return 0;
}

/* A bytes_written budget holds against io_uring writes, inline or not. */
TEST_F(iour, a_written_bytes_budget_is_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	struct ring r;
	int done = -1;

	budget(&s, "iour-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	EXPECT_EQ(EDQUOT,
		  write_until_refused(&r, self->file, self->buf, 0, &done));
	EXPECT_EQ(5, done);
	ring_exit(&r);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);
	ftagent_budget_set_free(&s);
}

/*
 * Writes of 1000 through a ring set up with @setup, SQEs flagged
 * @sqe_flags, by this process renamed @comm for the run, under a
 * bytes_written budget of @limit scoped by that name: the refusal's
 * errno (-1 if the run could not be set up), the writes done, and the
 * budget's usage.
 */
static int comm_budget_writes(int file, char *buf, const char *comm,
			      uint64_t limit, unsigned int setup, int sqe_flags,
			      int *done, uint64_t *used)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec *b, got = {0};
	struct ftnl_error err;
	struct ring r;
	int e = -1;

	if (prctl(PR_SET_NAME, comm))
		return -1;
	b = budget(&s, comm, FTAGENT_METRIC_BYTES_WRITTEN, limit, 60000);
	b->set = FTAGENT_RULE_SET_COMM;
	snprintf(b->comm, sizeof(b->comm), "%s", comm);
	if (!set_budgets(&s, &err) && !ring_init(&r, 4, setup, 0)) {
		e = write_until_refused(&r, file, buf, sqe_flags, done);
		ring_exit(&r);
	}
	prctl(PR_SET_NAME, "evasion_iouring");
	if (get_one(&got))
		e = -1;
	*used = got.used;
	ftagent_budget_set_free(&s);
	return e;
}

/*
 * A budget scoped by process name: an io-wq worker is named iou-wrk-N,
 * and it is matched by its process's name, so IOSQE_ASYNC does not step
 * around it. The same holds for a name the test takes on for the run.
 */
TEST_F(iour, a_name_budget_holds_for_io_worker_writes)
{
	uint64_t used = 0;
	int done = -1;

	EXPECT_EQ(EDQUOT,
		  comm_budget_writes(self->file, self->buf, "ftiour_named",
				     3000, 0, IOSQE_ASYNC, &done, &used));
	EXPECT_EQ(3, done);
	EXPECT_EQ(3000, used);
}

/* The same through an SQPOLL ring, whose thread is named iou-sqp-N. */
TEST_F(iour, a_name_budget_holds_for_sqpoll_writes)
{
	uint64_t used = 0;
	int done = -1;

	EXPECT_EQ(EDQUOT,
		  comm_budget_writes(self->file, self->buf, "ftiour_sqp", 2000,
				     IORING_SETUP_SQPOLL, 0, &done, &used));
	EXPECT_EQ(2, done);
	EXPECT_EQ(2000, used);
}

/*
 * A ring inherited by a child: what the child submits is the child's,
 * what the parent submits the parent's, in the counters and in a budget
 * on the child alone.
 */
TEST_F(iour, a_shared_ring_charges_whoever_submits)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec *b, got;
	struct io_uring_cqe cqe[1];
	struct ft_counters fc[2];
	struct ft_totals parent, child_t;
	int status, go[2], done[2], release[2];
	struct ftnl_error err;
	pid_t tgids[2];
	struct ring r;
	char c = 0;

	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	ASSERT_EQ(0, pipe(release));
	tgids[0] = getpid();
	tgids[1] = fork();
	ASSERT_LE(0, tgids[1]);
	if (tgids[1] == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		ring_rw(&r, IORING_OP_READ, self->file, self->buf, 1234, 0, 1);
		if (ring_submit(&r, 1) != 1 || ring_wait(&r, cqe, 1) ||
		    cqe[0].res != 1234)
			_exit(1);
		/* Stay until the parent has collected this process. */
		if (write(done[1], &c, 1) != 1 || read(release[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	b = budget(&s, "iour-child-read", FTAGENT_METRIC_BYTES_READ, 100000,
		   60000);
	b->subtree = tgids[1];
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(1, write(go[1], &c, 1));
	/* One at a time: the two share the completion ring. */
	ASSERT_EQ(1, read(done[0], &c, 1));
	ring_rw(&r, IORING_OP_READ, self->file, self->buf, 4321, 0, 2);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	ASSERT_EQ(4321, cqe[0].res);
	ASSERT_EQ(0, ev_collect_tgids(fc, tgids, 2));
	parent = ft_sum_fd(&fc[0], FTAGENT_OBJ_FILE, self->file);
	child_t = ft_sum_fd(&fc[1], FTAGENT_OBJ_FILE, self->file);
	ft_counters_free(&fc[0]);
	ft_counters_free(&fc[1]);
	ASSERT_EQ(0, get_one(&got));
	ASSERT_EQ(1, write(release[1], &c, 1));
	ASSERT_EQ(tgids[1], waitpid(tgids[1], &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(4321, parent.in_bytes);
	EXPECT_EQ(1, parent.in_calls);
	EXPECT_EQ(1234, child_t.in_bytes);
	EXPECT_EQ(1, child_t.in_calls);
	EXPECT_EQ(1234, got.used);
	ftagent_budget_set_free(&s);
	ring_exit(&r);
}

#define MSHOT_GROUP 7

/* Give the ring @n buffers of 1 KiB at @buf for multishot receives. */
static int provide_buffers(struct ring *r, char *buf, int n)
{
	struct io_uring_sqe *sqe = ring_sqe(r, IORING_OP_PROVIDE_BUFFERS, n, 1);
	struct io_uring_cqe cqe;

	sqe->addr = (uintptr_t)buf;
	sqe->len = 1024;
	sqe->off = 0;
	sqe->buf_group = MSHOT_GROUP;
	if (ring_submit(r, 1) != 1 || ring_wait(r, &cqe, 1) || cqe.res != 0)
		return -1;
	return 0;
}

/* A multishot receive on @fd, tagged @user_data, into those buffers. */
static int arm_multishot_recv(struct ring *r, int fd, uint64_t user_data)
{
	struct io_uring_sqe *sqe = ring_sqe(r, IORING_OP_RECV, fd, user_data);

	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = MSHOT_GROUP;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	return ring_submit(r, 0) == 1 ? 0 : -1;
}

/*
 * A multishot receive posts one CQE per chunk, with no request behind
 * it: each chunk is counted as a receive on the socket, exactly, and the
 * final CQE (here a cancellation) as the request's own.
 */
TEST_F(iour, multishot_receive_chunks_are_counted)
{
	static const int sizes[] = {5, 7, 3};
	struct io_uring_cqe cqe[2];
	struct io_uring_sqe *sqe;
	struct ft_counters fc;
	struct ft_totals t;
	struct ring r;
	int fds[3], i;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	ASSERT_EQ(0, provide_buffers(&r, self->buf, 4));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	ASSERT_EQ(0, arm_multishot_recv(&r, fds[2], 2));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(sizes[i], write(fds[1], self->buf, sizes[i]));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		ASSERT_EQ(sizes[i], cqe[0].res);
		ASSERT_TRUE(cqe[0].flags & IORING_CQE_F_MORE);
	}
	sqe = ring_sqe(&r, IORING_OP_ASYNC_CANCEL, -1, 3);
	sqe->addr = 2;
	ASSERT_EQ(1, ring_submit(&r, 2));
	ASSERT_EQ(0, ring_wait(&r, cqe, 2));
	for (i = 0; i < 2; i++)
		if (cqe[i].user_data == 2)
			EXPECT_EQ(-ECANCELED, cqe[i].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(5 + 7 + 3, t.in_bytes);
	EXPECT_EQ(4, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/*
 * A CQE that MSG_RING posts into the ring carries a result and tag of the
 * sender's choosing, and no request: it is never charged to the socket
 * of a pending multishot receive with the same tag.
 */
TEST_F(iour, msg_ring_cannot_charge_a_socket)
{
	struct io_uring_cqe cqe[2];
	struct io_uring_sqe *sqe;
	struct ft_counters fc;
	struct ft_totals t;
	struct ring r;
	int fds[3], i, got_msg = 0;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	ASSERT_EQ(0, provide_buffers(&r, self->buf, 4));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_EQ(0, arm_multishot_recv(&r, fds[2], 2));
	ASSERT_EQ(5, write(fds[1], self->buf, 5));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	ASSERT_EQ(5, cqe[0].res);
	/* A message to this very ring, with the receive's tag. */
	sqe = ring_sqe(&r, IORING_OP_MSG_RING, r.fd, 3);
	sqe->len = 1000000;
	sqe->off = 2;
	ASSERT_EQ(1, ring_submit(&r, 2));
	ASSERT_EQ(0, ring_wait(&r, cqe, 2));
	for (i = 0; i < 2; i++)
		if (cqe[i].user_data == 2 && cqe[i].res == 1000000)
			got_msg = 1;
	EXPECT_TRUE(got_msg);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(5, t.in_bytes);
	ft_counters_free(&fc);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/* A bytes_received budget holds against multishot chunks. */
TEST_F(iour, a_received_bytes_budget_is_charged_for_multishot_chunks)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct io_uring_cqe cqe[1];
	struct ftnl_error err;
	struct ring r;
	int fds[3], i;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	ASSERT_EQ(0, provide_buffers(&r, self->buf, 8));
	budget(&s, "iour-recv-100", FTAGENT_METRIC_BYTES_RECEIVED, 100, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, arm_multishot_recv(&r, fds[2], 2));
	/* 60 + 60 bytes: the second chunk takes it past the limit. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(60, write(fds[1], self->buf, 60));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		ASSERT_EQ(60, cqe[0].res);
	}
	/* The next receive is refused: the multishot request ends. */
	ASSERT_EQ(60, write(fds[1], self->buf, 60));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(-EDQUOT, cqe[0].res);
	EXPECT_FALSE(cqe[0].flags & IORING_CQE_F_MORE);
	ring_exit(&r);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(120, got.used);
	EXPECT_LE(1, got.denied);
	ftagent_budget_set_free(&s);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/* Read @len bytes from @fd. */
static int drain(int fd, char *buf, size_t len)
{
	ssize_t n;

	for (; len; len -= n) {
		n = read(fd, buf, len);
		if (n <= 0)
			return -1;
	}
	return 0;
}

/* Queue an io_uring SPLICE of @len from @in (a slot with @fixed) to @out. */
static void splice_sqe(struct ring *r, int in, bool fixed, int out,
		       unsigned int len, uint64_t tag)
{
	struct io_uring_sqe *sqe = ring_sqe(r, IORING_OP_SPLICE, out, tag);

	sqe->splice_fd_in = in;
	sqe->splice_off_in = (uint64_t)-1;
	sqe->splice_flags = fixed ? SPLICE_F_FD_IN_FIXED : 0;
	sqe->off = (uint64_t)-1;
	sqe->len = len;
}

/*
 * An io_uring splice from a pipe to the file: both ends are counted, as
 * a splice() call counts them (the request holds only its output).
 */
TEST_F(iour, splice_counts_both_ends)
{
	struct io_uring_cqe cqe[1];
	struct ft_counters fc;
	struct ft_totals t;
	struct ring r;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ft_write_all(p[1], self->buf, 700));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	splice_sqe(&r, p[0], false, self->file, 700, 1);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(700, cqe[0].res);
	ring_exit(&r);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(700, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, p[0]);
	EXPECT_EQ(700, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	close(p[0]);
	close(p[1]);
}

/*
 * A splice from a TCP socket into a pipe, which blocks in an io-wq worker
 * until the data comes: the socket's bytes are counted, exactly what the
 * requests returned, and a bytes_received budget is charged for them and
 * refuses the request after the one that used it up.
 */
TEST_F(iour, splice_from_a_socket_is_counted_and_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct io_uring_cqe cqe[1];
	struct ft_counters fc;
	struct ftnl_error err;
	struct ft_totals t;
	long moved = 0;
	struct ring r;
	int fds[3], p[2], i;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	budget(&s, "iour-splice-1000", FTAGENT_METRIC_BYTES_RECEIVED, 1000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 2; i++) {
		/* Submitted before the data: it waits in a worker. */
		splice_sqe(&r, fds[2], false, p[1], 600, 1);
		ASSERT_EQ(1, ring_submit(&r, 0));
		usleep(100000);
		ASSERT_EQ(0, ft_write_all(fds[1], self->buf, 600));
		ASSERT_EQ(0, ring_wait(&r, cqe, 1));
		ASSERT_LT(0, cqe[0].res);
		moved += cqe[0].res;
		/* Whatever the first splice left behind, and the pipe. */
		while (moved < 600 * (i + 1)) {
			splice_sqe(&r, fds[2], false, p[1], 600, 2);
			ASSERT_EQ(1, ring_submit(&r, 1));
			ASSERT_EQ(0, ring_wait(&r, cqe, 1));
			ASSERT_LT(0, cqe[0].res);
			moved += cqe[0].res;
		}
		ASSERT_EQ(0, drain(p[0], self->buf, 600));
	}
	/* 1,200 of 1,000: the next one is refused. */
	ASSERT_EQ(0, ft_write_all(fds[1], self->buf, 10));
	splice_sqe(&r, fds[2], false, p[1], 10, 3);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(-EDQUOT, cqe[0].res);
	ring_exit(&r);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(1200, got.used);
	EXPECT_LE(1, got.denied);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(1200, t.in_bytes);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	ftagent_budget_set_free(&s);
	close(p[0]);
	close(p[1]);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/*
 * A splice whose input is a registered file (SPLICE_F_FD_IN_FIXED), in
 * the ring's own table, here a TCP socket spliced into a pipe: the
 * socket's bytes are counted, and charged to a bytes_received budget,
 * which then refuses the next splice. Slot 0 while descriptor 0 names
 * something else.
 */
TEST_F(iour, a_registered_input_is_counted_and_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct io_uring_cqe cqe[1];
	struct ft_counters fc;
	struct ftnl_error err;
	struct ft_totals t;
	struct ring r;
	int fds[3], p[2];

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, syscall(__NR_io_uring_register, r.fd,
			     IORING_REGISTER_FILES, &fds[2], 1));
	budget(&s, "iour-fixed-100", FTAGENT_METRIC_BYTES_RECEIVED, 100, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ft_write_all(fds[1], self->buf, 300));
	/* Loopback TCP: the 300 bytes are queued before the write returns. */
	splice_sqe(&r, 0, true, p[1], 300, 1);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	ASSERT_EQ(300, cqe[0].res);
	ASSERT_EQ(0, ft_write_all(fds[1], self->buf, 10));
	splice_sqe(&r, 0, true, p[1], 10, 2);
	ASSERT_EQ(1, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	EXPECT_EQ(-EDQUOT, cqe[0].res);
	ring_exit(&r);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(300, got.used);
	EXPECT_LE(1, got.denied);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[2]);
	EXPECT_EQ(300, t.in_bytes);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	ftagent_budget_set_free(&s);
	close(p[0]);
	close(p[1]);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/*
 * The kernel's own accounting agrees. io_uring never passes the read()
 * and write() paths that add to rchar and wchar, but direct I/O on a
 * block device adds each bio's bytes to read_bytes and write_bytes, for
 * whichever of the process's threads submits it: the caller, an io-wq
 * worker or the SQPOLL thread. Each request stays below a split of the
 * loop device's limits, so its bytes reach the block layer once.
 */
static int loop_device(const char *img, char *dev, size_t len)
{
	char cmd[512];
	FILE *f;
	int ok;

	snprintf(cmd, sizeof(cmd),
		 "{ test -e /dev/loop-control || modprobe -q loop; } && "
		 "truncate -s 4M %s && losetup --find --show %s",
		 img, img);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	ok = fgets(dev, len, f) != NULL;
	if (pclose(f) || !ok)
		return -1;
	dev[strcspn(dev, "\n")] = '\0';
	return 0;
}

/*
 * Inline and through io-wq workers (on the SQPOLL ring, all by its
 * thread), 512-byte aligned; the vectored ones are two segments of one
 * bio (len is then the iovec count).
 */
static const struct block_req {
	int op;
	unsigned int len, bytes;
	uint64_t off;
	bool async;
} block_reqs[] = {
	{IORING_OP_WRITE, 2 * CHUNK, 2 * CHUNK, 0, false},
	{IORING_OP_READ, 3 * CHUNK, 3 * CHUNK, CHUNK, false},
	{IORING_OP_WRITE, 1536, 1536, 8 * CHUNK, true},
	{IORING_OP_READ, 4 * CHUNK, 4 * CHUNK, 16 * CHUNK, true},
	{IORING_OP_WRITEV, 2, CHUNK + 512, 32 * CHUNK, false},
	{IORING_OP_READV, 2, CHUNK + 512, 64 * CHUNK, true},
};

#define N_BLOCK_REQS (sizeof(block_reqs) / sizeof(block_reqs[0]))

TEST_F(iour, block_device_bytes_match_the_kernel_s_own_count)
{
	uint64_t rb0, wb0, rb1, wb1, in = 0, out = 0, in_calls = 0;
	uint64_t out_calls = 0;
	struct io_uring_cqe cqe[N_BLOCK_REQS];
	char img[96], dev[64], cmd[160];
	struct ft_totals sum;
	struct iovec iov[2];
	struct ring r;
	unsigned int i;
	char *buf;
	int fd, sqpoll;

	snprintf(img, sizeof(img), "%s/blk.img", self->dir);
	ASSERT_EQ(0, loop_device(img, dev, sizeof(dev)));
	fd = open(dev, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", dev, strerror(errno));
	ASSERT_EQ(0, posix_memalign((void **)&buf, 4096, 16 * CHUNK));
	memset(buf, 'b', 16 * CHUNK);
	iov[0].iov_base = buf + 10 * CHUNK;
	iov[0].iov_len = CHUNK;
	iov[1].iov_base = buf + 11 * CHUNK;
	iov[1].iov_len = 512;
	ASSERT_EQ(0, ft_sum_fd_settled(FTAGENT_OBJ_OTHER, fd, 0, &sum));
	ASSERT_EQ(0, ft_proc_io_block(&rb0, &wb0));

	for (sqpoll = 0; sqpoll < 2; sqpoll++) {
		ASSERT_EQ(0, ring_init(&r, 8, sqpoll ? IORING_SETUP_SQPOLL : 0,
				       0));
		for (i = 0; i < N_BLOCK_REQS; i++) {
			const struct block_req *q = &block_reqs[i];
			bool vec = q->op == IORING_OP_READV ||
				   q->op == IORING_OP_WRITEV;
			bool reads = q->op == IORING_OP_READ ||
				     q->op == IORING_OP_READV;
			struct io_uring_sqe *sqe;

			sqe = ring_rw(&r, q->op, fd,
				      vec ? (void *)iov : buf + i * 4 * CHUNK,
				      q->len, q->off, q->bytes);
			if (q->async)
				sqe->flags |= IOSQE_ASYNC;
			if (reads)
				in += q->bytes, in_calls++;
			else
				out += q->bytes, out_calls++;
		}
		ASSERT_EQ(N_BLOCK_REQS, ring_submit(&r, N_BLOCK_REQS));
		ASSERT_EQ(0, ring_wait(&r, cqe, N_BLOCK_REQS));
		for (i = 0; i < N_BLOCK_REQS; i++)
			ASSERT_EQ((int)cqe[i].user_data, cqe[i].res);
		ring_exit(&r);
	}

	ASSERT_EQ(0, ft_sum_fd_settled(FTAGENT_OBJ_OTHER, fd,
				       in_calls + out_calls, &sum));
	EXPECT_EQ(in, sum.in_bytes);
	EXPECT_EQ(out, sum.out_bytes);
	EXPECT_EQ(in_calls, sum.in_calls);
	EXPECT_EQ(out_calls, sum.out_calls);
	EXPECT_EQ(0, sum.in_errors + sum.out_errors);
	ASSERT_EQ(0, ft_proc_io_block(&rb1, &wb1));
	EXPECT_EQ(in, rb1 - rb0);
	EXPECT_EQ(out, wb1 - wb0);
	TH_LOG("io_uring on %s: read %lu (kernel %lu), wrote %lu (kernel %lu)",
	       dev, (unsigned long)in, (unsigned long)(rb1 - rb0),
	       (unsigned long)out, (unsigned long)(wb1 - wb0));
	free(buf);
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
