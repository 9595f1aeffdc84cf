// SPDX-License-Identifier: GPL-2.0
/*
 * A tracer can rewrite its tracee's registers at every syscall-exit stop
 * (PTRACE_SYSCALL), before the task goes on to user space: the call's
 * number (orig_rax) and its arguments. The tracee never looks at those
 * once the call has returned, so a process that traces its own child
 * loses nothing by it. The child's calls are still charged exactly: the
 * module settles a traced task's call when the stop is reported.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

#define WRITES 10
#define SIZE   1000

/* The child: stops for its tracer, then writes WRITES x SIZE to @fd. */
static void tracee(int fd)
{
	char buf[SIZE];
	int i;

	memset(buf, 'p', sizeof(buf));
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(10);
	raise(SIGSTOP);
	for (i = 0; i < WRITES; i++)
		if (write(fd, buf, sizeof(buf)) != SIZE)
			_exit(11);
	_exit(0);
}

/*
 * Run @kid to its end, rewriting orig_rax (to -1: "no system call"), rdi
 * and rsi at every syscall-exit stop. The number of stops rewritten.
 */
static int rewrite_every_exit(pid_t kid, int *status)
{
	struct __ptrace_syscall_info info;
	struct user_regs_struct regs;
	int rewritten = 0;

	if (waitpid(kid, status, 0) != kid || !WIFSTOPPED(*status) ||
	    ptrace(PTRACE_SETOPTIONS, kid, NULL, PTRACE_O_TRACESYSGOOD))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, kid, NULL, NULL) ||
		    waitpid(kid, status, 0) != kid)
			return -1;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return rewritten;
		if (WSTOPSIG(*status) != (SIGTRAP | 0x80))
			continue;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, kid, sizeof(info), &info) <=
			    0 ||
		    info.op != PTRACE_SYSCALL_INFO_EXIT)
			continue;
		if (ptrace(PTRACE_GETREGS, kid, NULL, &regs))
			return -1;
		regs.orig_rax = -1;
		regs.rdi = 999999;
		regs.rsi = 0;
		if (ptrace(PTRACE_SETREGS, kid, NULL, &regs))
			return -1;
		rewritten++;
	}
}

TEST(a_tracer_rewriting_exit_registers_hides_no_call)
{
	char path[] = "/tmp/ftptrace.XXXXXX";
	struct ft_counters fc;
	struct ft_totals t;
	int fd, status, n;
	pid_t kid;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0)
		tracee(fd);
	n = rewrite_every_exit(kid, &status);
	ASSERT_LE(WRITES, n);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* What the child wrote is in the file; its counters say the same. */
	ASSERT_EQ(WRITES * SIZE, lseek(fd, 0, SEEK_END));
	ASSERT_EQ(0, ft_collect_tgid(&fc, kid));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(WRITES * SIZE, t.out_bytes);
	EXPECT_EQ(WRITES, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	ft_counters_free(&fc);
	close(fd);
	unlink(path);
}

/*
 * The child: a sendmmsg of 100 + 200 + 300 bytes on @tx, then three
 * recvfrom calls on @rx that get those datagrams but fail with EFAULT
 * (the address length is in a read-only page).
 */
static void socket_tracee(int tx, int rx)
{
	static char buf[4096];
	struct sockaddr_in from;
	struct mmsghdr vec[3];
	struct iovec iov[3];
	socklen_t *len;
	int i;

	len = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (len == MAP_FAILED)
		_exit(12);
	*len = sizeof(from);
	if (mprotect(len, 4096, PROT_READ))
		_exit(13);
	memset(vec, 0, sizeof(vec));
	for (i = 0; i < 3; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = 100 * (i + 1);
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(10);
	raise(SIGSTOP);
	if (sendmmsg(tx, vec, 3, 0) != 3)
		_exit(11);
	for (i = 0; i < 3; i++)
		if (recvfrom(rx, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     len) != -1 ||
		    errno != EFAULT)
			_exit(14 + i);
	_exit(0);
}

/* Run @kid to its end, setting rax to 0 at every syscall-entry stop. */
static int rewrite_every_entry(pid_t kid, int *status)
{
	struct __ptrace_syscall_info info;
	struct user_regs_struct regs;
	int rewritten = 0;

	if (waitpid(kid, status, 0) != kid || !WIFSTOPPED(*status) ||
	    ptrace(PTRACE_SETOPTIONS, kid, NULL, PTRACE_O_TRACESYSGOOD))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, kid, NULL, NULL) ||
		    waitpid(kid, status, 0) != kid)
			return -1;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return rewritten;
		if (WSTOPSIG(*status) != (SIGTRAP | 0x80))
			continue;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, kid, sizeof(info), &info) <=
			    0 ||
		    info.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		if (ptrace(PTRACE_GETREGS, kid, NULL, &regs))
			return -1;
		regs.rax = 0;
		if (ptrace(PTRACE_SETREGS, kid, NULL, &regs))
			return -1;
		rewritten++;
	}
}

/*
 * The saved ax says whether a call is still running (kmod/mmsg.c takes
 * the kernel's byte counts only then), and a tracer can write it at the
 * entry stop. The child's sendmmsg messages and the data of its failing
 * receives are still counted.
 */
TEST(a_tracer_rewriting_entry_registers_hides_no_byte)
{
	int fds[2];
	struct ft_counters fc;
	struct ft_totals t;
	int tx, rx, status, n;
	pid_t kid;

	ASSERT_EQ(0, ft_udp_pair(AF_INET, fds));
	rx = fds[0];
	tx = fds[1];
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0)
		socket_tracee(tx, rx);
	n = rewrite_every_entry(kid, &status);
	ASSERT_LE(4, n);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, ft_collect_tgid(&fc, kid));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, tx);
	EXPECT_EQ(600, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, rx);
	EXPECT_EQ(600, t.in_bytes);
	EXPECT_EQ(3, t.in_calls);
	EXPECT_EQ(3, t.in_errors);
	ft_counters_free(&fc);
	close(tx);
	close(rx);
}

TEST_HARNESS_MAIN
