// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks and their configuration: every attached hook fires (the
 * self-check), the hook set and mode can be switched at run time through
 * SET_CONFIG with counting still exact afterwards, and bad values are
 * refused with a reason while the running configuration stays.
 *
 * Leaves the module configured as the runner loaded it.
 */

#include <sched.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "../../tools/lib/filters.h"
#include "../../tools/lib/selfcheck.h"

static int set_config(uint32_t mode, uint32_t hooks, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0)
		return -1;
	req = ftnl_put_request(&nl, buf, FTAGENT_CTL_CMD_SET_CONFIG, 0);
	if (mode)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_MODE, mode);
	if (hooks)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_HOOKS, hooks);
	rc = ftnl_transact(&nl, req, NULL, NULL, err);
	ftnl_close(&nl);
	return rc;
}

TEST(every_attached_hook_fires)
{
	unsigned int states[__FTAGENT_HOOK_STATE_MAX];
	struct ftagent_resources res;

	/* x32's getpid answers where x32 is on (the guests boot it on). */
	int x32_on = syscall(0x40000000L | SYS_getpid) == getpid();
	unsigned int x32 = 0;
	size_t i;

	ftagent_call_every_traced_syscall();
	ASSERT_EQ(0, ft_get_resources(&res));
	ftagent_hook_states(&res, states);
	/* x32's own entry points: hooked where the kernel builds x32 in. */
	for (i = 0; i < res.n_hooks; i++)
		x32 += !strncmp(res.hook[i].name, "__x64_compat_", 13);
	EXPECT_TRUE(x32 == 0 || x32 == 9) TH_LOG("%u x32 hooks", x32);
	/* Standard mode: every traced call attached, and each one fired. */
	/*
	 * 28 64-bit entry points, 30 ia32 ones (kmod/calls.c), and x32's
	 * own, which fire only where x32 is on (syscall.x32=y on Debian).
	 */
	EXPECT_EQ(28 + 30 + (x32_on ? x32 : 0), states[FTAGENT_HOOK_VERIFIED]);
	EXPECT_EQ(x32_on ? 0 : x32, states[FTAGENT_HOOK_ATTACHED]);
	EXPECT_EQ(0, states[FTAGENT_HOOK_FAILED]);
	EXPECT_EQ((uint32_t)FTAGENT_STATE_TRACING, res.state);
	ftagent_resources_free(&res);
}

/* Count one pread of 4 KB from a fresh file, through whatever is attached. */
static int pread_counted(uint64_t *bytes)
{
	char path[] = "/tmp/fthc.XXXXXX", buf[4096] = {0};
	struct ft_counters fc;
	struct ft_totals t;
	int fd = mkstemp(path);

	if (fd < 0 || ft_write_all(fd, buf, sizeof(buf)))
		return -1;
	unlink(path);
	if (ft_collect(&fc))
		return -1;
	ft_counters_free(&fc);
	if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf) || ft_collect(&fc))
		return -1;
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	*bytes = t.in_bytes;
	ft_counters_free(&fc);
	close(fd);
	return 0;
}

/*
 * preadv2 and pwritev2 with an offset of -1 are readv and writev, which
 * work on sockets: counted in either mode.
 */
static int socket_v2_counted(uint64_t *out, uint64_t *in)
{
	char buf[1000] = {0};
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct ft_counters fc;
	struct ft_totals t;
	int fds[2], rc = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		return -1;
	if (pwritev2(fds[1], &iov, 1, -1, 0) != sizeof(buf) ||
	    preadv2(fds[0], &iov, 1, -1, 0) != sizeof(buf) || ft_collect(&fc))
		goto out;
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[1]);
	*out = t.out_bytes;
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, fds[0]);
	*in = t.in_bytes;
	ft_counters_free(&fc);
	rc = 0;
out:
	close(fds[0]);
	close(fds[1]);
	return rc;
}

/* SET_CONFIG FLUSH_INTERVAL_MS alone. */
static int set_flush_interval(uint32_t ms, struct ftnl_error *err)
{
	struct ftagent_config cfg = {
		.set = FTAGENT_CONFIG_HAVE_FLUSH_INTERVAL,
		.flush_interval_ms = ms,
	};
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0)
		return -1;
	rc = ftagent_set_config(&nl, &cfg, err);
	ftnl_close(&nl);
	return rc;
}

/* The flush interval the module was loaded with. */
static uint32_t loaded_flush_interval(void)
{
	char buf[32] = "250";
	int fd = open("/sys/module/ftagent/parameters/flush_interval_ms",
		      O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) <= 0)
			strcpy(buf, "250");
		close(fd);
	}
	return (uint32_t)strtoul(buf, NULL, 10);
}

/*
 * The runner's hook set and mode, put back in the teardown, which runs
 * whatever the test asserted: the next test shares this load
 * (tests/selftests/guest-run).
 */
FIXTURE(switched)
{
	uint32_t orig_hooks;
};

FIXTURE_SETUP(switched)
{
	struct ftagent_resources res;

	ASSERT_EQ(0, ft_get_resources(&res));
	self->orig_hooks = res.hooks;
	ftagent_resources_free(&res);
}

FIXTURE_TEARDOWN(switched)
{
	struct ftnl_error err;

	EXPECT_EQ(0, set_config(FTAGENT_MODE_STANDARD, self->orig_hooks, &err))
	TH_LOG("putting the runner's load back: %s", err.msg);
	EXPECT_EQ(0, set_flush_interval(loaded_flush_interval(), &err))
	TH_LOG("putting the flush interval back: %s", err.msg);
}

/* Five minutes, as TEST_RELOADS: a hook set switch is a reattach. */
TEST_F_TIMEOUT(switched, hook_set_and_mode_switch_at_run_time, 300)
{
	struct ftagent_resources res;
	struct ftnl_error err;
	uint32_t orig_hooks = self->orig_hooks;
	uint64_t bytes, out, in;

	/* The other hook set: still exact. */
	ASSERT_EQ(0, set_config(0,
				orig_hooks == FTAGENT_HOOKS_FTRACE
					? FTAGENT_HOOKS_KPROBE
					: FTAGENT_HOOKS_FTRACE,
				&err))
	TH_LOG("SET_CONFIG hooks: %s", err.msg);
	ASSERT_EQ(0, pread_counted(&bytes));
	EXPECT_EQ(4096, bytes);

	/* Minimal mode: files are not charged, pread is not even hooked. */
	ASSERT_EQ(0, set_config(FTAGENT_MODE_MINIMAL, 0, &err));
	ASSERT_EQ(0, pread_counted(&bytes));
	EXPECT_EQ(0, bytes);
	/* But preadv2 and pwritev2 of a socket are. */
	ASSERT_EQ(0, socket_v2_counted(&out, &in));
	EXPECT_EQ(1000, out);
	EXPECT_EQ(1000, in);
	ASSERT_EQ(0, ft_get_resources(&res));
	EXPECT_EQ((uint32_t)FTAGENT_MODE_MINIMAL, res.mode);
	ftagent_resources_free(&res);

	/* Back to how the runner loaded the module (again in the teardown). */
	ASSERT_EQ(0, set_config(FTAGENT_MODE_STANDARD, orig_hooks, &err));
	ASSERT_EQ(0, pread_counted(&bytes));
	EXPECT_EQ(4096, bytes);
}

static void pin_to(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* Wait, without a system call ftagent traces, for @stage. */
static void wait_stage(atomic_int *at, int stage)
{
	while (atomic_load(at) < stage)
		sched_yield();
}

/*
 * Minimal mode charges sockets only, from its first call. A child reads
 * a file on one CPU in standard mode, so that CPU's last counter slot
 * (the one the hot path compares with) is that file's; another CPU
 * switches the mode to minimal, with no generation swap between (flush
 * interval 0, put back in the teardown). The child's read()s of the
 * file after the switch are not charged; its socket sends and receives
 * are, exactly.
 */
TEST_F_TIMEOUT(switched, minimal_mode_charges_sockets_only_after_a_switch, 300)
{
	char path[] = "/tmp/fthm.XXXXXX", buf[512] = {0};
	atomic_int *stage;
	struct ft_counters fc;
	struct ft_totals t;
	struct ftnl_error err;
	int fd, sv[2], i, status;
	pid_t child;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	stage = mmap(NULL, sizeof(*stage), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stage);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(0, ft_write_all(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_config(FTAGENT_MODE_STANDARD, 0, &err));
	ASSERT_EQ(0, set_flush_interval(0, &err))
	TH_LOG("SET_CONFIG flush interval: %s", err.msg);
	pin_to(1);
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pin_to(0);
		wait_stage(stage, 1);
		for (i = 0; i < 8; i++)
			if (pread(fd, buf, 100, 0) != 100)
				_exit(1);
		atomic_store(stage, 2);
		wait_stage(stage, 3);
		for (i = 0; i < 8; i++)
			if (lseek(fd, 0, SEEK_SET) || read(fd, buf, 100) != 100)
				_exit(2);
		for (i = 0; i < 50; i++)
			if (write(sv[0], buf, 10) != 10 ||
			    read(sv[1], buf, 10) != 10)
				_exit(3);
		_exit(0);
	}
	ASSERT_EQ(0, ft_collect(&fc)); /* a new generation starts */
	ft_counters_free(&fc);
	atomic_store(stage, 1);
	wait_stage(stage, 2);
	ASSERT_EQ(0, set_config(FTAGENT_MODE_MINIMAL, 0, &err))
	TH_LOG("SET_CONFIG mode: %s", err.msg);
	atomic_store(stage, 3);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, ft_collect_tgid(&fc, child));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(800, t.in_bytes); /* the preads only */
	EXPECT_EQ(8, t.in_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, sv[0]);
	EXPECT_EQ(500, t.out_bytes);
	EXPECT_EQ(50, t.out_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, sv[1]);
	EXPECT_EQ(500, t.in_bytes);
	EXPECT_EQ(50, t.in_calls);
	ft_counters_free(&fc);
	close(sv[0]);
	close(sv[1]);
	close(fd);
}

TEST(bad_values_are_refused_and_change_nothing)
{
	struct ftagent_resources before, after;
	struct ftnl_error err;

	ASSERT_EQ(0, ft_get_resources(&before));
	ASSERT_EQ(-1, set_config(7, 0, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ("MODE must be 1 (minimal) or 2 (standard)", err.msg);
	EXPECT_EQ(1, err.has_offset);
	ASSERT_EQ(-1, set_config(0, 9, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ("HOOKS must be 1 (ftrace) or 2 (kprobe)", err.msg);
	ASSERT_EQ(-1, set_config(0, 0, &err)); /* nothing to set */
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ("SET_CONFIG needs MODE, HOOKS, FLUSH_INTERVAL_MS or "
		     "RING_BUFFER_SIZE",
		     err.msg);
	ASSERT_EQ(0, ft_get_resources(&after));
	EXPECT_EQ(before.mode, after.mode);
	EXPECT_EQ(before.hooks, after.hooks);
	EXPECT_EQ(before.state, after.state);
	ftagent_resources_free(&before);
	ftagent_resources_free(&after);
}

TEST_HARNESS_MAIN
