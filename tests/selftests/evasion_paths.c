// SPDX-License-Identifier: GPL-2.0
/*
 * Path rules against other ways to a denied file. An open rule judges
 * the opened file's path as d_path() names it from the process's root:
 * a symlink, an O_PATH descriptor reopened through /proc/self/fd,
 * openat2 with RESOLVE_* flags and open_by_handle_at all end in
 * security_file_open with the real path, and are refused. A hard link,
 * a bind mount, a chroot, and a bind mount made in a process's own user
 * and mount namespace give the same file another path: those are the
 * limits docs/policy.md names, and the tests show them.
 */
#include <linux/openat2.h>
#include <sched.h>
#include <sys/mount.h>

#include "kselftest_harness.h"
#include "evasion_test.h"

#define DIR_   "/tmp/ftg-ev"
#define SECRET DIR_ "/secret"
#define KEY    SECRET "/key"

/* 0 if @path opens for reading, else -errno. */
static int try_open(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int open_errno(void *arg)
{
	return -try_open(arg);
}

FIXTURE(paths)
{
	int unused;
};

FIXTURE_SETUP(paths)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	int fd;

	ASSERT_EQ(0, ev_clear_policy());
	mkdir(DIR_, 0755);
	mkdir(SECRET, 0755);
	mkdir(DIR_ "/mnt", 0755);
	fd = open(KEY, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(1, write(fd, "k", 1));
	close(fd);
	ftagent_policy_spec_init(&p);
	ev_path(ev_rule(&p, "secret", 1u << FTAGENT_OP_OPEN,
			FTAGENT_ACTION_DENY),
		SECRET "/");
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	ASSERT_EQ(-EPERM, try_open(KEY));
}

FIXTURE_TEARDOWN(paths)
{
	EXPECT_EQ(0, ev_clear_policy());
	umount2(DIR_ "/mnt", MNT_DETACH);
	unlink(DIR_ "/link");
	unlink(DIR_ "/dirlink");
	unlink(DIR_ "/hard");
	unlink(KEY);
	rmdir(SECRET);
	rmdir(DIR_ "/mnt");
	rmdir(DIR_);
}

TEST_F(paths, a_symlink_is_followed)
{
	ASSERT_EQ(0, symlink(KEY, DIR_ "/link"));
	ASSERT_EQ(0, symlink("secret", DIR_ "/dirlink"));
	EXPECT_EQ(-EPERM, try_open(DIR_ "/link"));
	EXPECT_EQ(-EPERM, try_open(DIR_ "/dirlink/key"));
}

TEST_F(paths, o_path_then_proc_self_fd_is_refused)
{
	char proc[64];
	int fd = open(KEY, O_PATH);

	/* O_PATH opens nothing to read: no security_file_open, no verdict. */
	ASSERT_GE(fd, 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	EXPECT_EQ(-EPERM, try_open(proc));
	close(fd);
}

TEST_F(paths, openat2_resolve_flags_are_refused)
{
	uint64_t flags[] = {0,
			    RESOLVE_BENEATH,
			    RESOLVE_IN_ROOT,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
			    RESOLVE_NO_XDEV,
			    RESOLVE_CACHED};
	struct open_how how = {.flags = O_RDONLY};
	int dir = open(DIR_, O_PATH | O_DIRECTORY), fd;
	size_t i;

	ASSERT_GE(dir, 0);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		how.resolve = flags[i];
		fd = syscall(SYS_openat2, dir, "secret/key", &how, sizeof(how));
		/* RESOLVE_CACHED may ask to retry uncached: EAGAIN. */
		if (fd < 0 && errno == EAGAIN)
			continue;
		EXPECT_EQ(-1, fd)
		TH_LOG("resolve %#llx", (unsigned long long)flags[i]);
		EXPECT_EQ(EPERM, errno);
		if (fd >= 0)
			close(fd);
	}
	close(dir);
}

/* CAP_DAC_READ_SEARCH only (root's); the file's own path decides. */
TEST_F(paths, open_by_handle_at_is_refused)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = {.fh.handle_bytes = MAX_HANDLE_SZ};
	int mount_id, mfd, fd;

	if (name_to_handle_at(AT_FDCWD, KEY, &h.fh, &mount_id, 0))
		SKIP(return, "no file handles on " DIR_ ": %s",
			   strerror(errno));
	mfd = open(DIR_, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(mfd, 0);
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EPERM, errno);
	if (fd >= 0)
		close(fd);
	close(mfd);
}

/* Limit: a hard link is another path to the same inode. */
TEST_F(paths, limit_a_hard_link_is_another_path)
{
	ASSERT_EQ(0, link(KEY, DIR_ "/hard"));
	EXPECT_EQ(0, try_open(DIR_ "/hard"));
}

/* Limit: so is a bind mount of the denied directory. */
TEST_F(paths, limit_a_bind_mount_is_another_path)
{
	ASSERT_EQ(0, mount(SECRET, DIR_ "/mnt", NULL, MS_BIND, NULL));
	EXPECT_EQ(0, try_open(DIR_ "/mnt/key"));
}

static int chrooted_open(void *arg)
{
	if (chroot(DIR_) || chdir("/"))
		return 100;
	return -try_open("/secret/key");
}

/* Limit: paths are from the process's root; a chroot moves it. */
TEST_F(paths, limit_a_chroot_moves_the_root)
{
	EXPECT_EQ(0, ev_in_child(chrooted_open, NULL));
	EXPECT_EQ(EPERM, ev_in_child(open_errno, KEY));
}

static int userns_bind_open(void *arg)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 100;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 101;
	if (mount(SECRET, DIR_ "/mnt", NULL, MS_BIND, NULL))
		return 102;
	return -try_open(DIR_ "/mnt/key");
}

/* Limit: anyone who may make a user namespace can do the same. */
TEST_F(paths, limit_own_user_and_mount_namespace)
{
	int rc = ev_in_child(userns_bind_open, NULL);

	if (rc == 100)
		SKIP(return, "no user namespaces here");
	EXPECT_EQ(0, rc);
}

TEST_HARNESS_MAIN
