// SPDX-License-Identifier: GPL-2.0
/*
 * A tracer can rewrite its tracee's registers at every syscall-exit stop
 * (PTRACE_SYSCALL), before the task goes on to user space: the call's
 * number (orig_rax) and its arguments. The tracee never looks at those
 * once the call has returned, so a process that traces its own child
 * loses nothing by it. The child's calls are still charged exactly: the
 * module settles a traced task's call when the stop is reported.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/ptrace.h>
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

TEST_HARNESS_MAIN
