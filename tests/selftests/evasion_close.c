// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor closed, or closed and reused, by another thread while a
 * call on it is blocked: the call goes on with the file it took, and
 * its bytes must be charged to that file, not to whatever the number
 * names when the call returns (another file, or nothing at all).
 * Otherwise a process could receive past a byte budget by closing the
 * descriptor under its own blocked recv(), or move its bytes to another
 * object. Each case is exact against the bytes the call returned, the
 * object's own inode taken before the close, and /proc/self/io.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "ia32_test.h"
#include "x32_test.h"

#define IA32_READ	3   /* the ia32 table's read */
#define IA32_SOCKETCALL 102 /* and socketcall */
#define SOCKETCALL_RECV 10  /* socketcall's SYS_RECV */

enum blocked_op {
	OP_READ,
	OP_READ32,
	OP_SOCKETCALL_RECV,
	OP_RECVFROM,
	OP_RECVMMSG,
	OP_READV_X32,
	OP_RECVFROM_X32,
	OP_WRITE,
	OP_SPLICE
};

struct blocked {
	enum blocked_op op;
	int fd, fd_out;
	char *buf;
	size_t len;
	pid_t tid;
	ssize_t ret;
	int err;
	uint32_t *args32; /* below 4 GiB, for socketcall */
};

/* socketcall(SYS_RECV)'s argument block: recv(fd, buf, len, 0). */
static void recv_block(uint32_t *block, int fd, void *buf, uint32_t len)
{
	block[0] = fd;
	block[1] = (uint32_t)(uintptr_t)buf;
	block[2] = len;
	block[3] = 0;
}

/*
 * Send @len bytes from @tx beginning with @number, and let them arrive
 * whole, so that one receive takes them all: 0, or -1.
 */
static int send_number(int tx, int32_t number, char *data, size_t len)
{
	memset(data, 'd', len);
	memcpy(data, &number, sizeof(number));
	if (ft_write_all(tx, data, len))
		return -1;
	usleep(100000);
	return 0;
}

static void *blocked_call(void *arg)
{
	struct blocked *b = arg;

	__atomic_store_n(&b->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	switch (b->op) {
	case OP_READ: b->ret = read(b->fd, b->buf, b->len); break;
	case OP_READ32:
		b->ret = call32(IA32_READ, b->fd, (long)b->buf, b->len, 0, 0);
		if (b->ret < 0) {
			errno = -b->ret;
			b->ret = -1;
		}
		break;
	case OP_SOCKETCALL_RECV:
		/* recv(fd, buf, len, 0), its arguments in a 32-bit block. */
		recv_block(b->args32, b->fd, b->buf, b->len);
		b->ret = call32(IA32_SOCKETCALL, SOCKETCALL_RECV,
				(long)b->args32, 0, 0, 0);
		if (b->ret < 0) {
			errno = -b->ret;
			b->ret = -1;
		}
		break;
	case OP_RECVFROM:
		b->ret = recvfrom(b->fd, b->buf, b->len, 0, NULL, NULL);
		break;
	case OP_RECVMMSG: {
		struct iovec iov = {.iov_base = b->buf, .iov_len = b->len};
		struct mmsghdr m = {
			.msg_hdr = {.msg_iov = &iov, .msg_iovlen = 1}};

		b->ret = recvmmsg(b->fd, &m, 1, 0, NULL);
		if (b->ret == 1)
			b->ret = m.msg_len;
		break;
	}
	case OP_READV_X32: {
		/* x32's own readv: its iovec, of 32-bit halves, in low memory. */
		struct iovecx *iov = (struct iovecx *)b->args32;

		iov->base = lo32(b->buf);
		iov->len = b->len;
		b->ret = callx(NRX_READV, b->fd, lo32(iov), 1, 0, 0);
		break;
	}
	case OP_RECVFROM_X32:
		/* x32's own recvfrom (__x64_compat_sys_recvfrom). */
		b->ret = callx(NRX_RECVFROM, b->fd, lo32(b->buf), b->len, 0, 0);
		break;
	case OP_WRITE: b->ret = write(b->fd, b->buf, b->len); break;
	case OP_SPLICE:
		b->ret = splice(b->fd, NULL, b->fd_out, NULL, b->len, 0);
		break;
	}
	b->err = errno;
	return NULL;
}

/*
 * Start @b in a thread of this process (so the descriptor table is
 * shared) and wait until it sleeps inside system call @nr.
 */
static int start_blocked(struct blocked *b, pthread_t *th, long nr)
{
	pid_t tid;
	int i;

	b->tid = 0;
	if (pthread_create(th, NULL, blocked_call, b))
		return -1;
	while (!(tid = __atomic_load_n(&b->tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	for (i = 0; i < 5000; i++) {
		if (ft_thread_in_syscall(tid, nr, 1))
			return 0;
		usleep(2000);
	}
	return -1;
}

/*
 * A regular file put in place of descriptor @want in one step (dup2, as
 * an attacker would): @want, or -1.
 */
static int reuse_number(int want, const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int got;

	if (fd < 0)
		return -1;
	got = dup2(fd, want);
	close(fd);
	return got;
}

FIXTURE(closed)
{
	int fds[3]; /* listener, client, accepted */
	char path[64];
	char buf[65536];
	char *rbuf; /* below 4 GiB, for int $0x80 */
};

FIXTURE_SETUP(closed)
{
	struct ft_counters fc;

	ASSERT_EQ(0, clear_budgets());
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, self->fds));
	snprintf(self->path, sizeof(self->path), "/tmp/ftclose.%d", getpid());
	memset(self->buf, 'c', sizeof(self->buf));
	self->rbuf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, self->rbuf);
	/* What setting up counted (the accept()) is not the test's. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
}

FIXTURE_TEARDOWN(closed)
{
	int i;

	EXPECT_EQ(0, clear_budgets());
	for (i = 0; i < 3; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	unlink(self->path);
	munmap(self->rbuf, 65536);
}

/*
 * A receive blocked on @self's accepted socket; its descriptor closed
 * and, if @reuse, given to a regular file; then 3000 bytes arrive.
 * Checks where the module charged them.
 */
static void receive_after_close(struct __test_metadata *_metadata,
				FIXTURE_DATA(closed) * self, enum blocked_op op,
				long nr, int reuse)
{
	struct blocked b = {.op = op, .fd = self->fds[2], .len = 65536};
	uint64_t r0, r1, w0, w1, sock_ino, file_ino;
	uint32_t dev, file_dev;
	struct ft_counters fc;
	struct ft_totals t;
	ssize_t proc0;
	pthread_t th;
	int file = -1;

	b.buf = self->rbuf;
	b.args32 = (uint32_t *)(self->rbuf + 65536 - 64);
	b.len = 65536 - 64;
	ft_fd_id(self->fds[2], &dev, &sock_ino);
	ASSERT_NE(0, sock_ino);
	/* After the wait, which reads /proc: the receive adds at return. */
	ASSERT_EQ(0, start_blocked(&b, &th, nr));
	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);
	/* A socketcall's block is rewritten too: to the peer's number. */
	if (op == OP_SOCKETCALL_RECV)
		b.args32[0] = self->fds[1];
	if (reuse) {
		file = reuse_number(self->fds[2], self->path);
		ASSERT_EQ(self->fds[2], file);
	} else {
		ASSERT_EQ(0, close(self->fds[2]));
	}
	self->fds[2] = file;
	ASSERT_EQ(0, ft_write_all(self->fds[1], self->buf, 3000));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, b.ret) TH_LOG("%s", strerror(b.err));
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sock_ino, 0);
	EXPECT_EQ(b.ret, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(0, t.in_errors);
	/* The kernel's own count (rchar counts read(), not receives). */
	if (op == OP_READ || op == OP_READ32 || op == OP_READV_X32)
		EXPECT_EQ((uint64_t)b.ret, r1 - r0 - (uint64_t)proc0);
	if (op == OP_SOCKETCALL_RECV) {
		ft_fd_id(self->fds[1], &file_dev, &file_ino);
		t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, file_ino, 0);
		EXPECT_EQ(0, t.in_calls);
	}
	if (reuse) {
		ft_fd_id(file, &file_dev, &file_ino);
		t = ft_sum(&fc, FTAGENT_OBJ_FILE, file_dev, file_ino, 0);
		EXPECT_EQ(0, t.in_calls);
		EXPECT_EQ(0, t.in_bytes);
	}
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);
}

TEST_F(closed, a_read_whose_socket_was_closed_is_charged_to_it)
{
	receive_after_close(_metadata, self, OP_READ, SYS_read, 0);
}

TEST_F(closed, a_read_whose_number_was_reused_is_charged_to_its_socket)
{
	receive_after_close(_metadata, self, OP_READ, SYS_read, 1);
}

TEST_F(closed, a_recvfrom_whose_number_was_reused_is_charged_to_its_socket)
{
	receive_after_close(_metadata, self, OP_RECVFROM, SYS_recvfrom, 1);
}

TEST_F(closed, a_recvmmsg_whose_number_was_reused_is_charged_to_its_socket)
{
	receive_after_close(_metadata, self, OP_RECVMMSG, SYS_recvmmsg, 1);
}

TEST_F(closed, an_int80_read_whose_number_was_reused_is_charged_to_its_socket)
{
	receive_after_close(_metadata, self, OP_READ32, IA32_READ, 1);
}

/*
 * x32's own entry points, which the settle finds by x32's own numbers:
 * the same, through them. x32 off in a kernel that has it is a failure
 * (the test guests turn it on); a kernel without it skips.
 */
static int x32_usable(struct __test_metadata *_metadata)
{
	if (callx(SYS_getpid, 0, 0, 0, 0, 0) != -ENOSYS)
		return 1;
	EXPECT_FALSE(kernel_has_x32())
	TH_LOG("x32 is built in but off: boot with syscall.x32=y");
	return 0;
}

TEST_F(closed, an_x32_readv_whose_number_was_reused_is_charged_to_its_socket)
{
	if (!x32_usable(_metadata))
		SKIP(return, "a kernel built without the x32 ABI");
	receive_after_close(_metadata, self, OP_READV_X32, X32_BIT | NRX_READV,
			    1);
}

TEST_F(closed, an_x32_recvfrom_whose_number_was_reused_is_charged_to_its_socket)
{
	if (!x32_usable(_metadata))
		SKIP(return, "a kernel built without the x32 ABI");
	receive_after_close(_metadata, self, OP_RECVFROM_X32,
			    X32_BIT | NRX_RECVFROM, 1);
}

/*
 * ia32 socketcall(SYS_RECV): its descriptor is in a block in the
 * caller's memory, which the test rewrites too (to the peer's number).
 */
TEST_F(closed,
       a_socketcall_recv_whose_number_was_reused_is_charged_to_its_socket)
{
	receive_after_close(_metadata, self, OP_SOCKETCALL_RECV,
			    IA32_SOCKETCALL, 1);
}

/*
 * One thread, no race: an ia32 socketcall(SYS_RECV) whose buffer is its
 * own argument block, so the data it receives rewrites the descriptor
 * there with the peer's number. Charged to the socket it received on.
 */
TEST_F(closed, a_socketcall_recv_into_its_own_block_is_charged_to_its_socket)
{
	uint32_t *block = (uint32_t *)self->rbuf;
	uint64_t sock_ino, peer_ino;
	int32_t peer = self->fds[1];
	struct ft_counters fc;
	struct ft_totals t;
	char data[16];
	uint32_t dev;
	long ret;

	ft_fd_id(self->fds[2], &dev, &sock_ino);
	ft_fd_id(self->fds[1], &dev, &peer_ino);
	ASSERT_EQ(0, send_number(self->fds[1], peer, data, sizeof(data)));
	recv_block(block, self->fds[2], block, sizeof(data));
	ret = call32(IA32_SOCKETCALL, SOCKETCALL_RECV, (long)block, 0, 0, 0);
	ASSERT_EQ(sizeof(data), ret);
	ASSERT_EQ(self->fds[1], (int)block[0]);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sock_ino, 0);
	EXPECT_EQ(sizeof(data), t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, peer_ino, 0);
	EXPECT_EQ(0, t.in_calls);
	ft_counters_free(&fc);
}

/*
 * A socketcall recv blocked while a sibling makes its argument block
 * unreadable (PROT_NONE): charged to its socket all the same, from what
 * the block said at entry.
 */
TEST_F(closed, a_socketcall_recv_whose_block_went_away_is_charged_to_it)
{
	struct blocked b = {.op = OP_SOCKETCALL_RECV, .fd = self->fds[2]};
	uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	struct ft_counters fc;
	struct ft_totals t;
	uint64_t sock_ino;
	pthread_t th;
	uint32_t dev;

	ASSERT_NE(MAP_FAILED, page);
	b.args32 = page;
	b.buf = self->rbuf;
	b.len = 65536;
	ft_fd_id(self->fds[2], &dev, &sock_ino);
	ASSERT_EQ(0, start_blocked(&b, &th, IA32_SOCKETCALL));
	ASSERT_EQ(0, mprotect(page, 4096, PROT_NONE));
	ASSERT_EQ(0, ft_write_all(self->fds[1], self->buf, 3000));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, b.ret) TH_LOG("%s", strerror(b.err));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sock_ino, 0);
	EXPECT_EQ(b.ret, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_USER_READ]);
	ft_counters_free(&fc);
	munmap(page, 4096);
}

/*
 * The limit: a socketcall whose block is not in memory at entry (the
 * module cannot fault it in there) is read again at return, and a
 * receive into its own block has by then rewritten it. The doubt is
 * counted (lost{user_read}), and the bytes are still charged to a
 * socket of the caller's.
 */
TEST_F(closed, a_socketcall_block_not_in_memory_at_entry_is_counted_as_doubt)
{
	uint64_t sock_ino, peer_ino;
	int32_t peer = self->fds[1];
	struct ft_counters fc;
	struct ft_totals t, u;
	uint32_t *block, dev;
	char data[16], path[80];
	long ret;
	int fd;

	snprintf(path, sizeof(path), "%s.block", self->path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4096));
	block = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_32BIT,
		     fd, 0);
	ASSERT_NE(MAP_FAILED, block);
	ft_fd_id(self->fds[2], &dev, &sock_ino);
	ft_fd_id(self->fds[1], &dev, &peer_ino);
	ASSERT_EQ(0, send_number(self->fds[1], peer, data, sizeof(data)));
	recv_block(block, self->fds[2], block, sizeof(data));
	/* The page stays in the file; only this mapping forgets it. */
	ASSERT_EQ(0, madvise(block, 4096, MADV_DONTNEED));
	ret = call32(IA32_SOCKETCALL, SOCKETCALL_RECV, (long)block, 0, 0, 0);
	ASSERT_EQ(sizeof(data), ret);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sock_ino, 0);
	u = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, peer_ino, 0);
	EXPECT_EQ(sizeof(data), t.in_bytes + u.in_bytes);
	EXPECT_LE(1, fc.lost[FTAGENT_LOSS_USER_READ]);
	ft_counters_free(&fc);
	munmap(block, 4096);
	close(fd);
	unlink(path);
}

/*
 * The module goes (and comes back) while a thread is blocked in a read
 * on a descriptor closed under it: nothing the module kept for that
 * call outlives it, so the socket is released when the read returns and
 * the peer sees the end of the stream.
 */
TEST_F_TIMEOUT(closed, a_socket_read_across_a_reload_is_released, 300)
{
	struct blocked b = {.op = OP_READ, .fd = self->fds[2], .len = 65536};
	struct pollfd pfd = {.fd = self->fds[1], .events = POLLIN};
	pthread_t th;
	char c;

	b.buf = self->rbuf;
	ASSERT_EQ(0, start_blocked(&b, &th, SYS_read));
	ASSERT_EQ(0, close(self->fds[2]));
	self->fds[2] = -1;
	ASSERT_EQ(0, ft_unload_module());
	ctl_forget();
	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(0, ft_write_all(self->fds[1], self->buf, 10));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(10, b.ret) TH_LOG("%s", strerror(b.err));
	/* The last reference went with the read: the socket is closed. */
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_EQ(0, read(self->fds[1], &c, 1));
}

/*
 * A bytes_received budget of 1,000: a receive of more (3,000 bytes sent) on a
 * descriptor closed under it is charged all of them, and the next
 * receive (on another socket) is refused.
 */
TEST_F(closed, closing_under_a_receive_does_not_dodge_a_budget)
{
	struct blocked b = {.op = OP_READ, .fd = self->fds[2], .len = 65536};
	struct ftagent_budget_spec got;
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	int other[3];
	pthread_t th;
	char c;

	b.buf = self->rbuf;
	budget(&s, "close-1000", FTAGENT_METRIC_BYTES_RECEIVED, 1000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ftagent_budget_set_free(&s);
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, other));
	ASSERT_EQ(1, write(other[1], "x", 1));

	ASSERT_EQ(0, start_blocked(&b, &th, SYS_read));
	ASSERT_EQ(0, close(self->fds[2]));
	self->fds[2] = -1;
	ASSERT_EQ(0, ft_write_all(self->fds[1], self->buf, 3000));
	ASSERT_EQ(0, pthread_join(th, NULL));
	/* One receive of more than the budget, whatever TCP cut. */
	ASSERT_LT(1000, b.ret) TH_LOG("%s", strerror(b.err));

	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(b.ret, got.used);
	errno = 0;
	EXPECT_EQ(-1, read(other[2], &c, 1));
	EXPECT_EQ(EDQUOT, errno);
	close(other[0]);
	close(other[1]);
	close(other[2]);
}

/*
 * A write blocked on a full pipe, its descriptor closed meanwhile: the
 * pipe is charged when the reader makes room.
 */
TEST_F(closed, a_write_whose_pipe_was_closed_is_charged_to_it)
{
	struct blocked b = {.op = OP_WRITE, .len = 4096};
	uint64_t r0, r1, w0, w1, ino;
	struct ft_counters fc;
	struct ft_totals t;
	size_t drained = 0;
	int p[2], full;
	pthread_t th;
	uint32_t dev;
	ssize_t n;

	b.buf = self->buf;
	ASSERT_EQ(0, pipe(p));
	full = fcntl(p[1], F_GETPIPE_SZ);
	ASSERT_LT(0, full);
	ASSERT_EQ(0, fcntl(p[1], F_SETFL, O_NONBLOCK));
	while ((n = write(p[1], self->buf, 4096)) > 0)
		drained += n; /* filled, to be drained below */
	ASSERT_EQ(0, fcntl(p[1], F_SETFL, 0));
	ft_fd_id(p[1], &dev, &ino);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_LT(0, ft_proc_io(&r0, &w0));

	b.fd = p[1];
	ASSERT_EQ(0, start_blocked(&b, &th, SYS_write));
	ASSERT_EQ(0, close(p[1]));
	/* Room for the blocked write: all that was queued, then its own. */
	drained += 4096;
	while (drained) {
		n = read(p[0], self->buf, drained < 65536 ? drained : 65536);
		ASSERT_LT(0, n);
		drained -= n;
	}
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(4096, b.ret) TH_LOG("%s", strerror(b.err));
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_PIPE, dev, ino, 0);
	EXPECT_EQ(4096, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(4096, w1 - w0);
	ft_counters_free(&fc);
	close(p[0]);
}

/*
 * splice() from the socket into a pipe, both descriptors closed while it
 * waits for data: both ends are charged.
 */
TEST_F(closed, a_splice_whose_ends_were_both_closed_charges_both)
{
	struct blocked b = {.op = OP_SPLICE, .len = 65536};
	uint64_t sock_ino, pipe_ino;
	uint32_t dev, pipe_dev;
	struct ft_counters fc;
	struct ft_totals t;
	pthread_t th;
	int p[2];
	ssize_t n;

	ASSERT_EQ(0, pipe(p));
	ft_fd_id(self->fds[2], &dev, &sock_ino);
	ft_fd_id(p[1], &pipe_dev, &pipe_ino);
	b.fd = self->fds[2];
	b.fd_out = p[1];
	ASSERT_EQ(0, start_blocked(&b, &th, SYS_splice));
	ASSERT_EQ(0, close(self->fds[2]));
	self->fds[2] = -1;
	ASSERT_EQ(0, close(p[1]));
	ASSERT_EQ(0, ft_write_all(self->fds[1], self->buf, 1000));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, b.ret) TH_LOG("%s", strerror(b.err));
	n = read(p[0], self->buf, sizeof(self->buf));
	EXPECT_EQ(b.ret, n);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sock_ino, 0);
	EXPECT_EQ(b.ret, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	t = ft_sum(&fc, FTAGENT_OBJ_PIPE, pipe_dev, pipe_ino, 0);
	EXPECT_EQ(b.ret, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	ft_counters_free(&fc);
	close(p[0]);
}

TEST_HARNESS_MAIN
