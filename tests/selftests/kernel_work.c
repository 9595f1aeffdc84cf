// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own work in a user task is never refused or charged: once
 * a bytes_read budget is used up, the process's own reads get EDQUOT, but
 * exec, which reads the binary with kernel_read(), still works.
 *
 * Kernel sockets (sk_kern_sock: SunRPC, NFS) are skipped by the gate the
 * same way; that case is not reproduced here (the guest has no NFS
 * server or mount.nfs), see docs/security.md.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "budget_test.h"

#define STATIC_BINARY "/bin/busybox" /* reads no file to run `true` */

FIXTURE(kernel_work)
{
	int unused;
};

FIXTURE_SETUP(kernel_work)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;

	budget(&s, "reads", FTAGENT_METRIC_BYTES_READ, 1,
	       FTAGENT_BUDGET_WINDOW_MAX_MS);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ftagent_budget_set_free(&s);
}

FIXTURE_TEARDOWN(kernel_work)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;

	set_budgets(&s, &err);
}

/* Read a regular file until the budget refuses; 0 once it has. */
static int use_up_reads(void)
{
	char buf[64];
	int i, fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (i = 0; i < 16; i++)
		if (pread(fd, buf, sizeof(buf), 0) < 0) {
			close(fd);
			return errno == EDQUOT ? 0 : -1;
		}
	close(fd);
	return -1;
}

TEST_F(kernel_work, exec_works_after_the_read_budget_is_used_up)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, use_up_reads());
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(STATIC_BINARY, "true", (char *)NULL);
		_exit(errno == EDQUOT ? 42 : 43);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(42, WEXITSTATUS(status))
	TH_LOG("exec was refused by the read budget (EDQUOT)");
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The budget still holds for the process's own reads. */
	EXPECT_EQ(0, use_up_reads());
}

TEST_HARNESS_MAIN
