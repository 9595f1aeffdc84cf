// SPDX-License-Identifier: GPL-2.0
/*
 * The 32-bit entry points: a 64-bit process can make any system call
 * through int $0x80, where the ia32 table numbers it differently and
 * passes its arguments in other registers and other structures. Each such
 * call is counted and charged exactly like its 64-bit twin: files against
 * the kernel's rchar/wchar, sockets against what the peer received, the
 * socketcall multiplexer (what ia32 glibc uses for every socket call)
 * included, and a byte budget holds whichever entry is used. And the
 * upper half of a 64-bit register, which the kernel drops from a
 * descriptor argument, changes nothing either. Then the same from a real
 * ia32 program (tests/helpers/ia32_exec), through int $0x80 and through
 * the vDSO's fast 32-bit entry, against its own /proc/PID/io.
 */
#include <fcntl.h>
#include <linux/net.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "evasion_test.h"
#include "ia32_exec_test.h"
#include "ia32_test.h"

#define CHUNK 4096

/* The ia32 table's numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define NR32_READ	3
#define NR32_WRITE	4
#define NR32_SOCKETCALL 102
#define NR32_READV	145
#define NR32_WRITEV	146
#define NR32_PREAD64	180
#define NR32_PWRITE64	181
#define NR32_PREADV	333
#define NR32_SENDTO	369
#define NR32_RECVFROM	371
#define NR32_LSEEK	19
#define NR32_SOCKET	359
#define NR32_CONNECT	362
#define NR32_SENDMSG	370

/* What struct iovec and struct mmsghdr are to an ia32 caller. */
struct iovec32 {
	uint32_t base, len;
};

struct mmsghdr32 {
	uint32_t name, namelen, iov, iovlen, control, controllen, flags;
	uint32_t msg_len;
};

/* Memory below 4 GiB, where a 32-bit pointer can name it. */
static char *low;

static uint32_t lo32(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

FIXTURE(ia32)
{
	char dir[64];
	int file;
};

FIXTURE_SETUP(ia32)
{
	char path[128];

	low = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(1ul << 32, (uintptr_t)low + (1 << 20));
	memset(low, 'i', 1 << 20);
	/* int $0x80 exists: a getpid through it answers. */
	ASSERT_EQ(getpid(), call32(20 /* getpid */, 0, 0, 0, 0, 0));
	strcpy(self->dir, "/tmp/ftia32.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/f", self->dir);
	self->file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, self->file);
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(ia32)
{
	char cmd[128];

	EXPECT_EQ(0, clear_budgets());
	close(self->file);
	munmap(low, 1 << 20);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(ia32, file_calls_through_int80_are_counted_exactly)
{
	struct iovec32 *iov = (struct iovec32 *)low;
	char *buf = low + 4096;
	uint64_t r0, r1, w0, w1, in = 0, out = 0;
	struct ft_counters fc;
	struct ft_totals t;
	ssize_t proc0;
	long n;
	int fd = self->file;

	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);

	n = call32(NR32_WRITE, fd, lo32(buf), 1000, 0, 0);
	ASSERT_EQ(1000, n);
	out += n;
	iov[0] = (struct iovec32){lo32(buf), 10};
	iov[1] = (struct iovec32){lo32(buf + 10), CHUNK};
	n = call32(NR32_WRITEV, fd, lo32(iov), 2, 0, 0);
	ASSERT_EQ(CHUNK + 10, n);
	out += n;
	/* pwrite64: the offset in two halves, low then high. */
	n = call32(NR32_PWRITE64, fd, lo32(buf), 3 * CHUNK, 2 * CHUNK, 0);
	ASSERT_EQ(3 * CHUNK, n);
	out += n;

	ASSERT_EQ(0, (int)lseek(fd, 0, SEEK_SET));
	n = call32(NR32_READ, fd, lo32(buf), 777, 0, 0);
	ASSERT_EQ(777, n);
	in += n;
	n = call32(NR32_READV, fd, lo32(iov), 2, 0, 0);
	ASSERT_EQ(CHUNK + 10, n);
	in += n;
	n = call32(NR32_PREAD64, fd, lo32(buf), 2 * CHUNK, CHUNK, 0);
	ASSERT_EQ(2 * CHUNK, n);
	in += n;
	/* preadv: fd, iov, count, then the offset's two halves. */
	n = call32(NR32_PREADV, fd, lo32(iov), 2, 4 * CHUNK, 0);
	ASSERT_EQ(CHUNK, n); /* short: the file is 5 chunks long */
	in += n;
	/* A failure is an error of the call, not bytes. */
	ASSERT_EQ(-EFAULT, call32(NR32_READ, fd, 16, 10, 0, 0));
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(out, t.out_bytes);
	EXPECT_EQ(3, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	EXPECT_EQ(in, t.in_bytes);
	EXPECT_EQ(5, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	/* The kernel's own figures agree. */
	EXPECT_EQ(out, w1 - w0);
	EXPECT_EQ(in, r1 - r0 - (uint64_t)proc0);
	ft_counters_free(&fc);
}

/* socketcall(@call, args): the argument block goes in low memory. */
static long socketcall32(int call, const uint32_t *args, int n)
{
	uint32_t *block = (uint32_t *)(low + 8192);

	memcpy(block, args, n * sizeof(*args));
	return call32(NR32_SOCKETCALL, call, lo32(block), 0, 0, 0);
}

TEST_F(ia32, socket_calls_and_socketcall_are_counted_exactly)
{
	struct mmsghdr32 *mm = (struct mmsghdr32 *)(low + 12288);
	struct iovec32 *iov = (struct iovec32 *)(low + 16384);
	char *buf = low + 65536, got[65536];
	uint64_t sent = 0, recvd = 0, peer = 0;
	struct ft_counters fc;
	struct ft_totals t;
	int fds[3], c, a, i;
	long n;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	c = fds[1], a = fds[2];
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	n = call32(NR32_SENDTO, c, lo32(buf), 1111, 0, 0);
	ASSERT_EQ(1111, n);
	sent += n;
	n = socketcall32(SYS_SEND, (uint32_t[]){c, lo32(buf), 2222, 0}, 4);
	ASSERT_EQ(2222, n);
	sent += n;
	n = socketcall32(SYS_SENDTO, (uint32_t[]){c, lo32(buf), 333, 0, 0, 0},
			 6);
	ASSERT_EQ(333, n);
	sent += n;
	/* sendmmsg: three messages, their struct mmsghdr the 32-bit one. */
	for (i = 0; i < 3; i++) {
		iov[i] = (struct iovec32){lo32(buf), 100 * (i + 1)};
		mm[i] = (struct mmsghdr32){.iov = lo32(&iov[i]), .iovlen = 1};
	}
	n = socketcall32(SYS_SENDMMSG, (uint32_t[]){c, lo32(mm), 3, 0}, 4);
	ASSERT_EQ(3, n);
	sent += 100 + 200 + 300;
	/* The peer reads them all, then answers the same way. */
	while (peer < sent) {
		n = read(a, got, sizeof(got));
		ASSERT_LT(0, n);
		peer += n;
	}
	ASSERT_EQ(sent, peer);
	ASSERT_EQ(5000, write(a, got, 5000));
	n = call32(NR32_RECVFROM, c, lo32(buf), 1000, 0, 0);
	ASSERT_EQ(1000, n);
	recvd += n;
	n = socketcall32(SYS_RECV, (uint32_t[]){c, lo32(buf), 4000, 0}, 4);
	ASSERT_EQ(4000, n);
	recvd += n;

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, c);
	EXPECT_EQ(sent, t.out_bytes);
	EXPECT_EQ(4, t.out_calls);
	EXPECT_EQ(recvd, t.in_bytes);
	EXPECT_EQ(2, t.in_calls);
	ft_counters_free(&fc);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/*
 * A receive through socketcall that fails after its data arrived (the
 * address length sits in a page the kernel can read but not write back)
 * is counted as its 64-bit twin is (evasion_recv): every byte, each
 * call an error.
 */
TEST_F(ia32, a_socketcall_receive_that_fails_after_its_data_is_counted)
{
	char *ro = low + (1 << 20) - 4096, *buf = low + 65536;
	int fds[2];
	struct ft_counters fc;
	struct ft_totals t;
	int rx, tx, i;

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	rx = fds[0];
	tx = fds[1];
	*(uint32_t *)ro = sizeof(struct sockaddr_in);
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(500 + i, send(tx, buf, 500 + i, 0));
		EXPECT_EQ(
			-EFAULT,
			socketcall32(SYS_RECVFROM,
				     (uint32_t[]){rx, lo32(buf), 4000, 0,
						  lo32(low + 20480), lo32(ro)},
				     6));
	}
	ASSERT_EQ(0, ft_collect(&fc));
	EXPECT_EQ(-1, recv(rx, buf, 4000, MSG_DONTWAIT)) TH_LOG("not taken");
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, rx);
	EXPECT_EQ(500 + 501 + 502, t.in_bytes);
	EXPECT_EQ(3, t.in_calls);
	EXPECT_EQ(3, t.in_errors);
	ft_counters_free(&fc);
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ | PROT_WRITE));
	close(rx);
	close(tx);
}

/*
 * A datagram whose copy faults, received through int $0x80 by read,
 * readv, recvfrom and socketcall(SYS_RECV): 300 bytes land before a
 * read-only page, the datagram is gone, and each call is charged 300.
 */
TEST_F(ia32, a_datagram_copy_that_faults_is_counted)
{
	char *ro = low + (1 << 20) - 4096, *buf = ro - 300;
	struct iovec32 *iov = (struct iovec32 *)(low + 8192);
	int fds[2];
	struct ft_counters fc;
	struct ft_totals t;
	int rx, tx, i, j;
	long r;

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	rx = fds[0];
	tx = fds[1];
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	iov->base = lo32(buf);
	iov->len = 600;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(600, send(tx, low, 600, 0));
		memset(buf, 0, 300);
		if (i == 0)
			r = call32(3 /* read */, rx, lo32(buf), 600, 0, 0);
		else if (i == 1)
			r = call32(145 /* readv */, rx, lo32(iov), 1, 0, 0);
		else if (i == 2)
			r = call32(NR32_RECVFROM, rx, lo32(buf), 600, 0, 0);
		else
			r = socketcall32(SYS_RECV,
					 (uint32_t[]){rx, lo32(buf), 600, 0},
					 4);
		EXPECT_EQ(-EFAULT, r) TH_LOG("receive %d", i);
		for (j = 0; j < 300 && buf[j] == 'i'; j++)
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

/*
 * The kernel takes a descriptor argument's low 32 bits: fd + 2^32 is fd.
 * Through the 64-bit entry and through int $0x80 alike, the call is
 * charged to fd.
 */
TEST_F(ia32, a_register_upper_half_does_not_hide_a_descriptor)
{
	const long high = 1l << 32;
	struct ft_counters fc;
	struct ft_totals t;
	int fd = self->file;

	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_EQ(1234, syscall(SYS_write, high | fd, low, 1234));
	ASSERT_EQ(4321, call32(NR32_WRITE, high | fd, lo32(low), 4321, 0, 0));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(1234 + 4321, t.out_bytes);
	EXPECT_EQ(2, t.out_calls);
	ft_counters_free(&fc);
}

/* A 64-bit system call whose number has @hi in its upper half. */
static long call64_hi(long hi, long nr, long a1, long a2, long a3, long a4)
{
	register long r10 __asm__("r10") = a4;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(hi | nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * The kernel runs the call in the number's low 32 bits and keeps the
 * whole register for tracers: write and sendmmsg through 2^32 + their
 * number are still the same calls, counted and charged.
 */
TEST_F(ia32, a_number_upper_half_does_not_hide_a_call)
{
	int fds[2];
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct mmsghdr vec[3];
	struct iovec iov[3];
	struct ft_counters fc;
	struct ftnl_error err;
	struct ft_totals t;
	int rx, tx, i;

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	rx = fds[0];
	tx = fds[1];
	memset(vec, 0, sizeof(vec));
	for (i = 0; i < 3; i++) {
		iov[i].iov_base = low;
		iov[i].iov_len = 100 * (i + 1);
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	budget(&s, "hi-written-3000", FTAGENT_METRIC_BYTES_WRITTEN, 3000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_EQ(2000, call64_hi(1l << 32, SYS_write, self->file, (long)low,
				  2000, 0));
	ASSERT_EQ(3, call64_hi(1l << 33, SYS_sendmmsg, tx, (long)vec, 3, 0));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(2000, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, tx);
	EXPECT_EQ(600, t.out_bytes);
	ft_counters_free(&fc);
	/* 2,000 then 2,000 more: the budget is spent, the third refused. */
	ASSERT_EQ(2000, call64_hi(1l << 32, SYS_write, self->file, (long)low,
				  2000, 0));
	EXPECT_EQ(-EDQUOT, call64_hi(1l << 32, SYS_write, self->file, (long)low,
				     2000, 0));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(4000, got.used);
	ftagent_budget_set_free(&s);
	close(rx);
	close(tx);
}

/* The same for the records: a connect through fd + 2^32 is recorded. */
TEST_F(ia32, a_register_upper_half_does_not_hide_a_connect)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	struct ev_log log;
	int lfd, c;

	ASSERT_EQ(0, ev_open(&log));
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, listen(lfd, 4));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&sin, &len));
	c = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, syscall(SYS_connect, (1l << 32) | c, &sin, sizeof(sin)));
	EXPECT_EQ(1, ev_wait(&log, FTAGENT_REC_CONNECT, getpid(), 5000));
	close(c);
	close(lfd);
	ev_close(&log);
}

TEST_F(ia32, a_budget_holds_through_int80_and_socketcall)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int i, refused = -1;
	struct sink k;
	long n;

	budget(&s, "ia32-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000,
	       60000);
	budget(&s, "ia32-sent-3000", FTAGENT_METRIC_BYTES_SENT, 3000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	/* 5 writes of 1000 reach the limit; the 6th is refused. */
	for (i = 0; i < 10; i++) {
		n = call32(NR32_WRITE, self->file, lo32(low), 1000, 0, 0);
		if (n < 0) {
			EXPECT_EQ(-EDQUOT, n);
			refused = i;
			break;
		}
	}
	EXPECT_EQ(5, refused);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);

	ASSERT_EQ(0, sink_open(&k));
	refused = -1;
	for (i = 0; i < 10; i++) {
		n = socketcall32(SYS_SEND,
				 (uint32_t[]){k.fds[1], lo32(low), 1000, 0}, 4);
		if (n < 0) {
			EXPECT_EQ(-EDQUOT, n);
			refused = i;
			break;
		}
	}
	EXPECT_EQ(3, refused);
	EXPECT_EQ(3000, sink_close(&k));
	ftagent_budget_set_free(&s);
}

/* Where the ia32 program's calls find what they need in its buffer. */
#define X_DATA 0       /* the bytes its writes and sends take */
#define X_IOV  0x30000 /* two struct iovec32 */
#define X_MSG  0x30100 /* a 32-bit struct msghdr */
#define X_ARGS 0x30200 /* a socketcall argument block */
#define X_ADDR 0x30300 /* a struct sockaddr_in */

/* A 32-bit struct msghdr: name, namelen, iov, iovlen, control, len, flags. */
struct msghdr32 {
	uint32_t name, namelen, iov, iovlen, control, controllen, flags;
};

#define VSYS  IA32_ENTRY_VSYSCALL
#define INT80 IA32_ENTRY_INT80

/*
 * A real ia32 program's file and socket calls, half through int $0x80
 * and half through the vDSO (the entry ia32 glibc takes), are counted
 * exactly: against the sizes it was asked to move, what the peer
 * received, and its own rchar and wchar. /proc/PID/io is read while it
 * sleeps waiting for its next command, so the only other bytes in it
 * are its commands and answers, which the test counts.
 */
TEST_F(ia32, a_real_ia32_program_is_counted_exactly_on_both_entries)
{
	struct iovec32 iov[2];
	struct msghdr32 msg = {0};
	uint32_t block[4];
	uint64_t r0, w0, r1, w1, cmd0, ans0, file_in = 0, file_out = 0;
	uint64_t sock_in = 0, sock_out = 0, vfs_in = 0, vfs_out = 0, peer = 0;
	struct ia32_child c;
	struct ft_counters fc;
	struct ft_totals t;
	char got[8192];
	int fds[3], status;
	ssize_t n;

	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	ASSERT_EQ(0, ia32_start(&c, self->file, fds[1]));
	iov[0] = (struct iovec32){ia32_addr(&c, X_DATA), 10};
	iov[1] = (struct iovec32){ia32_addr(&c, X_DATA + 10), CHUNK};
	ASSERT_EQ(0, ia32_poke(&c, X_IOV, iov, sizeof(iov)));
	ASSERT_EQ(0, ia32_wait_idle(&c));
	ASSERT_EQ(0, ia32_proc_io(&c, &r0, &w0));
	cmd0 = c.read_by_it;
	ans0 = c.written_by_it;

	/* The file, its descriptor 3. */
	ASSERT_EQ(1000, IA32_CALL(&c, VSYS, NR32_WRITE, 2, 3, X_DATA, 1000));
	ASSERT_EQ(CHUNK + 10,
		  IA32_CALL(&c, INT80, NR32_WRITEV, 2, 3, X_IOV, 2));
	ASSERT_EQ(3 * CHUNK, IA32_CALL(&c, VSYS, NR32_PWRITE64, 2, 3, X_DATA,
				       3 * CHUNK, 2 * CHUNK, 0));
	file_out = 1000 + CHUNK + 10 + 3 * CHUNK;
	ASSERT_EQ(0, IA32_CALL(&c, INT80, NR32_LSEEK, 0, 3, 0, SEEK_SET));
	ASSERT_EQ(777, IA32_CALL(&c, VSYS, NR32_READ, 2, 3, X_DATA, 777));
	ASSERT_EQ(CHUNK + 10, IA32_CALL(&c, INT80, NR32_READV, 2, 3, X_IOV, 2));
	ASSERT_EQ(2 * CHUNK, IA32_CALL(&c, VSYS, NR32_PREAD64, 2, 3, X_DATA,
				       2 * CHUNK, CHUNK, 0));
	/* Short: the file is five chunks long. */
	ASSERT_EQ(CHUNK, IA32_CALL(&c, INT80, NR32_PREADV, 2, 3, X_IOV, 2,
				   4 * CHUNK, 0));
	file_in = 777 + CHUNK + 10 + 2 * CHUNK + CHUNK;
	/* A failure is an error of the call, not bytes. */
	ASSERT_EQ(-EFAULT, IA32_CALL(&c, VSYS, NR32_READ, 0, 3, 16, 10));

	/* The socket, its descriptor 4: each way to send, each entry. */
	ASSERT_EQ(1111, IA32_CALL(&c, VSYS, NR32_SENDTO, 2, 4, X_DATA, 1111, 0,
				  0, 0));
	ASSERT_EQ(2222, IA32_CALL(&c, INT80, NR32_WRITE, 2, 4, X_DATA, 2222));
	iov[0] = (struct iovec32){ia32_addr(&c, X_DATA), 300};
	iov[1] = (struct iovec32){ia32_addr(&c, X_DATA), 400};
	ASSERT_EQ(0, ia32_poke(&c, X_IOV, iov, sizeof(iov)));
	msg.iov = ia32_addr(&c, X_IOV);
	msg.iovlen = 2;
	ASSERT_EQ(0, ia32_poke(&c, X_MSG, &msg, sizeof(msg)));
	ASSERT_EQ(700, IA32_CALL(&c, VSYS, NR32_SENDMSG, 2, 4, X_MSG, 0));
	block[0] = 4, block[1] = ia32_addr(&c, X_DATA), block[2] = 333;
	block[3] = 0;
	ASSERT_EQ(0, ia32_poke(&c, X_ARGS, block, sizeof(block)));
	ASSERT_EQ(333,
		  IA32_CALL(&c, INT80, NR32_SOCKETCALL, 2, SYS_SEND, X_ARGS));
	sock_out = 1111 + 2222 + 700 + 333;
	while (peer < sock_out) {
		n = read(fds[2], got, sizeof(got));
		ASSERT_LT(0, n);
		peer += n;
	}
	ASSERT_EQ(sock_out, peer);
	ASSERT_EQ(5000, write(fds[2], got, 5000));
	ASSERT_EQ(1000, IA32_CALL(&c, INT80, NR32_RECVFROM, 2, 4, X_DATA, 1000,
				  0, 0, 0));
	ASSERT_EQ(4000, IA32_CALL(&c, VSYS, NR32_READ, 2, 4, X_DATA, 4000));
	sock_in = 1000 + 4000;

	ASSERT_EQ(0, ia32_wait_idle(&c));
	ASSERT_EQ(0, ia32_proc_io(&c, &r1, &w1));
	ASSERT_EQ(0, ft_collect_tgid(&fc, c.pid));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(file_out, t.out_bytes);
	EXPECT_EQ(3, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	EXPECT_EQ(file_in, t.in_bytes);
	EXPECT_EQ(5, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[1]);
	EXPECT_EQ(sock_out, t.out_bytes);
	EXPECT_EQ(4, t.out_calls);
	EXPECT_EQ(sock_in, t.in_bytes);
	EXPECT_EQ(2, t.in_calls);
	ft_counters_free(&fc);
	/*
	 * The kernel's own figures: rchar and wchar take read(), write()
	 * and their vector and positional kin, on files and sockets alike,
	 * not the socket calls (sendto, sendmsg, recvfrom).
	 */
	vfs_out = file_out + 2222;
	vfs_in = file_in + 4000;
	EXPECT_EQ(vfs_out + (c.written_by_it - ans0), w1 - w0);
	EXPECT_EQ(vfs_in + (c.read_by_it - cmd0), r1 - r0);

	status = ia32_stop(&c, 0);
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/*
 * The same program against a budget and a rule: its sixth 1000-byte
 * write is refused on either entry, and a connect rule refuses its
 * connect() and socketcall(SYS_CONNECT) on either entry until the rule
 * goes.
 */
TEST_F(ia32, a_real_ia32_program_is_charged_and_gated_on_both_entries)
{
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	struct ia32_child c;
	uint32_t block[3];
	int i, refused = -1, s1, s2, lfd, status;
	uint16_t port;
	int32_t n;

	budget(&s, "ia32-exec-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ia32_start(&c, self->file, -1));
	for (i = 0; i < 10; i++) {
		n = IA32_CALL(&c, i % 2 ? INT80 : VSYS, NR32_WRITE, 2, 3,
			      X_DATA, 1000);
		if (n < 0) {
			EXPECT_EQ(-EDQUOT, n);
			refused = i;
			break;
		}
	}
	/* The sixth, through int $0x80; the vDSO's entry is refused too. */
	EXPECT_EQ(5, refused);
	EXPECT_EQ(-EDQUOT, IA32_CALL(&c, VSYS, NR32_WRITE, 2, 3, X_DATA, 1000));
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);
	EXPECT_EQ(2, got.denied);
	ASSERT_EQ(0, clear_budgets());
	ftagent_budget_set_free(&s);

	lfd = listener(&port);
	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "ia32-deny-port", 1u << FTAGENT_OP_CONNECT,
		    FTAGENT_ACTION_DENY);
	ev_port(r, port, port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	to.sin_port = htons(port);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, ia32_poke(&c, X_ADDR, &to, sizeof(to)));
	s1 = IA32_CALL(&c, VSYS, NR32_SOCKET, 0, AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, s1);
	EXPECT_EQ(-EPERM,
		  IA32_CALL(&c, VSYS, NR32_CONNECT, 2, s1, X_ADDR, sizeof(to)));
	EXPECT_EQ(-EPERM, IA32_CALL(&c, INT80, NR32_CONNECT, 2, s1, X_ADDR,
				    sizeof(to)));
	block[0] = AF_INET, block[1] = SOCK_STREAM, block[2] = 0;
	ASSERT_EQ(0, ia32_poke(&c, X_ARGS, block, sizeof(block)));
	s2 = IA32_CALL(&c, INT80, NR32_SOCKETCALL, 2, SYS_SOCKET, X_ARGS);
	ASSERT_LE(0, s2);
	block[0] = s2, block[1] = ia32_addr(&c, X_ADDR);
	block[2] = sizeof(to);
	ASSERT_EQ(0, ia32_poke(&c, X_ARGS, block, sizeof(block)));
	EXPECT_EQ(-EPERM, IA32_CALL(&c, INT80, NR32_SOCKETCALL, 2, SYS_CONNECT,
				    X_ARGS));
	EXPECT_EQ(-EPERM,
		  IA32_CALL(&c, VSYS, NR32_SOCKETCALL, 2, SYS_CONNECT, X_ARGS));
	EXPECT_EQ(0, ev_accepts(lfd));
	/* Without the rule the same call connects: the rule refused it. */
	ASSERT_EQ(0, ev_clear_policy());
	EXPECT_EQ(0,
		  IA32_CALL(&c, VSYS, NR32_CONNECT, 2, s1, X_ADDR, sizeof(to)));
	EXPECT_EQ(1, ev_accepts(lfd));

	status = ia32_stop(&c, 0);
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(lfd);
}

TEST_HARNESS_MAIN
