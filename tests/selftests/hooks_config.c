// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks and their configuration: every attached hook fires (the
 * self-check), the hook set and mode can be switched at run time through
 * SET_CONFIG with counting still exact afterwards, and bad values are
 * refused with a reason while the running configuration stays.
 *
 * Leaves the module configured as the runner loaded it.
 */

#include <sys/socket.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
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

static int resources(struct ftagent_resources *res)
{
	struct ftnl_error err;
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_STATS_NAME, &err) < 0)
		return -1;
	rc = ftagent_get_resources(&nl, res, &err);
	ftnl_close(&nl);
	return rc;
}

TEST(every_attached_hook_fires)
{
	unsigned int states[__FTAGENT_HOOK_STATE_MAX];
	struct ftagent_resources res;

	ftagent_call_every_traced_syscall();
	ASSERT_EQ(0, resources(&res));
	ftagent_hook_states(&res, states);
	/* Standard mode: every traced call attached, and each one fired. */
	/* 28 64-bit entry points, 30 ia32 ones (kmod/calls.c). */
	EXPECT_EQ(28 + 30, states[FTAGENT_HOOK_VERIFIED]);
	EXPECT_EQ(0, states[FTAGENT_HOOK_ATTACHED]);
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

	ASSERT_EQ(0, resources(&res));
	self->orig_hooks = res.hooks;
	ftagent_resources_free(&res);
}

FIXTURE_TEARDOWN(switched)
{
	struct ftnl_error err;

	EXPECT_EQ(0, set_config(FTAGENT_MODE_STANDARD, self->orig_hooks, &err))
	TH_LOG("putting the runner's load back: %s", err.msg);
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
	ASSERT_EQ(0, resources(&res));
	EXPECT_EQ((uint32_t)FTAGENT_MODE_MINIMAL, res.mode);
	ftagent_resources_free(&res);

	/* Back to how the runner loaded the module (again in the teardown). */
	ASSERT_EQ(0, set_config(FTAGENT_MODE_STANDARD, orig_hooks, &err));
	ASSERT_EQ(0, pread_counted(&bytes));
	EXPECT_EQ(4096, bytes);
}

TEST(bad_values_are_refused_and_change_nothing)
{
	struct ftagent_resources before, after;
	struct ftnl_error err;

	ASSERT_EQ(0, resources(&before));
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
	ASSERT_EQ(0, resources(&after));
	EXPECT_EQ(before.mode, after.mode);
	EXPECT_EQ(before.hooks, after.hooks);
	EXPECT_EQ(before.state, after.state);
	ftagent_resources_free(&before);
	ftagent_resources_free(&after);
}

TEST_HARNESS_MAIN
