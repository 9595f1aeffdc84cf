// SPDX-License-Identifier: GPL-2.0
/*
 * The x32 entry: a 64-bit process can make any system call with
 * __X32_SYSCALL_BIT in its number, where x32's table numbers the calls
 * whose structures differ (iovec, msghdr, mmsghdr hold 32-bit pointers)
 * from 512 up and sends them to entry points of their own
 * (__x64_compat_sys_*). Each such call is counted and charged exactly
 * like its 64-bit twin: files against the kernel's rchar/wchar, sockets
 * against what the peer received, and a byte budget holds through them.
 *
 * Debian builds x32 in but leaves it off unless the kernel is booted with
 * syscall.x32=y, which the test guests are (tools/guest/run-guest). On a
 * kernel whose config has it, x32 being off is a failure here; a kernel
 * built without it (the debug tier's) skips.
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "x32_test.h"

#define CHUNK 4096

/* Memory below 4 GiB, where a 32-bit pointer can name it. */
static char *low;

FIXTURE(x32)
{
	char dir[64];
	int file;
};

FIXTURE_SETUP(x32)
{
	char path[128];

	/* x32's getpid is the 64-bit one: it answers where x32 is on. */
	if (callx(SYS_getpid, 0, 0, 0, 0, 0) == -ENOSYS) {
		ASSERT_FALSE(kernel_has_x32())
		TH_LOG("x32 is built in but off: boot with syscall.x32=y");
		SKIP(return, "a kernel built without the x32 ABI");
	}
	ASSERT_EQ(getpid(), callx(SYS_getpid, 0, 0, 0, 0, 0));
	low = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(1ul << 32, (uintptr_t)low + (1 << 20));
	memset(low, 'x', 1 << 20);
	strcpy(self->dir, "/tmp/ftx32.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/f", self->dir);
	self->file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, self->file);
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(x32)
{
	char cmd[128];

	if (!low)
		return;
	EXPECT_EQ(0, clear_budgets());
	close(self->file);
	munmap(low, 1 << 20);
	low = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(x32, file_calls_through_x32_are_counted_exactly)
{
	struct iovecx *iov = (struct iovecx *)low;
	char *buf = low + 4096;
	uint64_t r0, r1, w0, w1, in = 0, out = 0;
	struct ft_counters fc;
	struct ft_totals t;
	ssize_t proc0;
	long n;
	int fd = self->file;

	FT_RETURN_IF_SETUP_SKIPPED();

	iov[0] = (struct iovecx){lo32(buf), 10};
	iov[1] = (struct iovecx){lo32(buf + 10), CHUNK};
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);

	/* write is x32's and the 64-bit one alike. */
	n = callx(SYS_write, fd, lo32(buf), 1000, 0, 0);
	ASSERT_EQ(1000, n);
	out += n;
	n = callx(NRX_WRITEV, fd, lo32(iov), 2, 0, 0);
	ASSERT_EQ(CHUNK + 10, n);
	out += n;
	/* pwritev: fd, iov, count, the offset whole in one register. */
	n = callx(NRX_PWRITEV, fd, lo32(iov), 2, 2 * CHUNK, 0);
	ASSERT_EQ(CHUNK + 10, n);
	out += n;
	n = callx(NRX_PWRITEV2, fd, lo32(iov), 2, 4 * CHUNK, 0);
	ASSERT_EQ(CHUNK + 10, n);
	out += n;

	ASSERT_EQ(0, (int)lseek(fd, 0, SEEK_SET));
	n = callx(SYS_read, fd, lo32(buf), 777, 0, 0);
	ASSERT_EQ(777, n);
	in += n;
	n = callx(NRX_READV, fd, lo32(iov), 2, 0, 0);
	ASSERT_EQ(CHUNK + 10, n);
	in += n;
	n = callx(NRX_PREADV, fd, lo32(iov), 2, CHUNK, 0);
	ASSERT_EQ(CHUNK + 10, n);
	in += n;
	/* preadv2 with an offset of -1 is readv at the file position. */
	n = callx(NRX_PREADV2, fd, lo32(iov), 1, -1, 0);
	ASSERT_EQ(10, n);
	in += n;
	/* A failure is an error of the call, not bytes. */
	ASSERT_EQ(-EFAULT, callx(NRX_PREADV, fd, 16, 1, 0, 0));
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(out, t.out_bytes);
	EXPECT_EQ(4, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	EXPECT_EQ(in, t.in_bytes);
	EXPECT_EQ(5, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	/* The kernel's own figures agree. */
	EXPECT_EQ(out, w1 - w0);
	EXPECT_EQ(in, r1 - r0 - (uint64_t)proc0);
	ft_counters_free(&fc);
}

/* One message of @len bytes from @buf, in x32's structures at @at. */
static struct msghdrx *msgx(char *at, char *buf, uint32_t len)
{
	struct msghdrx *m = (struct msghdrx *)at;
	struct iovecx *iov = (struct iovecx *)(at + 64);

	*iov = (struct iovecx){lo32(buf), len};
	*m = (struct msghdrx){.iov = lo32(iov), .iovlen = 1};
	return m;
}

TEST_F(x32, socket_calls_through_x32_are_counted_exactly)
{
	struct mmsghdrx *mm = (struct mmsghdrx *)(low + 12288);
	struct iovecx *iov = (struct iovecx *)(low + 16384);
	char *buf = low + 65536, got[65536];
	uint64_t sent = 0, recvd = 0, peer = 0;
	struct ft_counters fc;
	struct ft_totals t;
	int fds[3], c, a, i;
	long n;

	FT_RETURN_IF_SETUP_SKIPPED();

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	c = fds[1], a = fds[2];
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	n = callx(SYS_sendto, c, lo32(buf), 1111, 0, 0);
	ASSERT_EQ(1111, n);
	sent += n;
	n = callx(NRX_SENDMSG, c, lo32(msgx(low + 8192, buf, 2222)), 0, 0, 0);
	ASSERT_EQ(2222, n);
	sent += n;
	/* sendmmsg: three messages, their struct mmsghdr x32's. */
	for (i = 0; i < 3; i++) {
		iov[i] = (struct iovecx){lo32(buf), 100 * (i + 1)};
		mm[i] = (struct mmsghdrx){.hdr.iov = lo32(&iov[i]),
					  .hdr.iovlen = 1};
	}
	n = callx(NRX_SENDMMSG, c, lo32(mm), 3, 0, 0);
	ASSERT_EQ(3, n);
	sent += 100 + 200 + 300;
	/* The peer reads them all, then answers. */
	while (peer < sent) {
		n = read(a, got, sizeof(got));
		ASSERT_LT(0, n);
		peer += n;
	}
	ASSERT_EQ(sent, peer);
	ASSERT_EQ(7000, write(a, got, 7000));
	n = callx(NRX_RECVFROM, c, lo32(buf), 1000, MSG_WAITALL, 0);
	ASSERT_EQ(1000, n);
	recvd += n;
	n = callx(NRX_RECVMSG, c, lo32(msgx(low + 8192, buf, 2000)),
		  MSG_WAITALL, 0, 0);
	ASSERT_EQ(2000, n);
	recvd += n;
	/* recvmmsg: two messages of 1000 and 3000 (no timeout). */
	iov[0] = (struct iovecx){lo32(buf), 1000};
	iov[1] = (struct iovecx){lo32(buf + 1000), 3000};
	for (i = 0; i < 2; i++)
		mm[i] = (struct mmsghdrx){.hdr.iov = lo32(&iov[i]),
					  .hdr.iovlen = 1};
	n = callx(NRX_RECVMMSG, c, lo32(mm), 2, MSG_WAITALL, 0);
	ASSERT_EQ(2, n);
	EXPECT_EQ(1000, mm[0].msg_len);
	EXPECT_EQ(3000, mm[1].msg_len);
	recvd += mm[0].msg_len + mm[1].msg_len;

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, c);
	EXPECT_EQ(sent, t.out_bytes);
	EXPECT_EQ(3, t.out_calls);
	EXPECT_EQ(recvd, t.in_bytes);
	EXPECT_EQ(3, t.in_calls);
	ft_counters_free(&fc);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/*
 * A datagram whose copy faults, received through x32's readv, recvfrom,
 * recvmsg and preadv2 (offset -1): 300 bytes land before a read-only
 * page, the datagram is gone, and each call is charged 300 (the
 * kernel's own count, taken by the x32 numbers: docs/hooks.md).
 */
TEST_F(x32, a_datagram_copy_that_faults_is_counted)
{
	char *ro = low + (1 << 20) - 4096, *buf = ro - 300;
	struct iovecx *iov = (struct iovecx *)(low + 8192);
	struct msghdrx *m = (struct msghdrx *)(low + 12288);
	struct ft_counters fc;
	struct ft_totals t;
	int fds[2], rx, tx, i, j;
	long r;

	FT_RETURN_IF_SETUP_SKIPPED();

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	rx = fds[0];
	tx = fds[1];
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	*iov = (struct iovecx){lo32(buf), 600};
	*m = (struct msghdrx){.iov = lo32(iov), .iovlen = 1};
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(600, send(tx, low, 600, 0));
		memset(buf, 0, 300);
		if (i == 0)
			r = callx(NRX_READV, rx, lo32(iov), 1, 0, 0);
		else if (i == 1)
			r = callx(NRX_RECVFROM, rx, lo32(buf), 600, 0, 0);
		else if (i == 2)
			r = callx(NRX_RECVMSG, rx, lo32(m), 0, 0, 0);
		else
			r = callx(NRX_PREADV2, rx, lo32(iov), 1, -1, 0);
		EXPECT_EQ(-EFAULT, r) TH_LOG("receive %d", i);
		for (j = 0; j < 300 && buf[j] == 'x'; j++)
			;
		EXPECT_EQ(300, j) TH_LOG("receive %d did not land", i);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	EXPECT_EQ(-1, recv(rx, low, 4000, MSG_DONTWAIT)) TH_LOG("not taken");
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, rx);
	EXPECT_EQ(4 * 300, t.in_bytes);
	EXPECT_EQ(4, t.in_calls);
	EXPECT_EQ(4, t.in_errors);
	ft_counters_free(&fc);
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ | PROT_WRITE));
	close(rx);
	close(tx);
}

TEST_F(x32, a_budget_holds_through_x32)
{
	struct iovecx *iov = (struct iovecx *)low;
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int i, refused = -1;
	struct sink k;
	long n;

	FT_RETURN_IF_SETUP_SKIPPED();

	budget(&s, "x32-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000, 60000);
	budget(&s, "x32-sent-3000", FTAGENT_METRIC_BYTES_SENT, 3000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	/* 5 writes of 1000 through x32's writev reach the limit. */
	iov[0] = (struct iovecx){lo32(low + 4096), 1000};
	for (i = 0; i < 10; i++) {
		n = callx(NRX_WRITEV, self->file, lo32(iov), 1, 0, 0);
		if (n < 0) {
			EXPECT_EQ(-EDQUOT, n);
			refused = i;
			break;
		}
		ASSERT_EQ(1000, n);
	}
	EXPECT_EQ(5, refused);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);

	/* 3 sends of 1000 through x32's sendmsg, then refused. */
	ASSERT_EQ(0, sink_open(&k));
	refused = -1;
	for (i = 0; i < 10; i++) {
		n = callx(NRX_SENDMSG, k.fds[1],
			  lo32(msgx(low + 8192, low + 4096, 1000)), 0, 0, 0);
		if (n < 0) {
			EXPECT_EQ(-EDQUOT, n);
			refused = i;
			break;
		}
		ASSERT_EQ(1000, n);
	}
	EXPECT_EQ(3, refused);
	EXPECT_EQ(3000, sink_close(&k));
	ftagent_budget_set_free(&s);
}

TEST_HARNESS_MAIN
