// SPDX-License-Identifier: GPL-2.0
/*
 * File counters: every read-family and write-family call on a regular file
 * is charged to that file, exactly, on tmpfs and on ext4, and the totals
 * agree with the kernel's own rchar/wchar in /proc/self/io.
 */
#include <sys/mount.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

#define CHUNK 4096

FIXTURE(file)
{
	char dir[64];
	char img[64];
	int mounted;
};

FIXTURE_VARIANT(file)
{
	const char *fs;
};

FIXTURE_VARIANT_ADD(file, tmpfs){
	.fs = "tmpfs",
};

FIXTURE_VARIANT_ADD(file, ext4){
	.fs = "ext4",
};

FIXTURE_SETUP(file)
{
	char cmd[512];

	strcpy(self->dir, "/tmp/ftcf.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	if (strcmp(variant->fs, "ext4"))
		return;
	snprintf(self->img, sizeof(self->img), "%s.img", self->dir);
	/*
	 * modprobe only where they are modules: a kernel with both built in
	 * and no modules directory (the debug kernel tier) fails it, and the
	 * mount is what must work.
	 */
	snprintf(cmd, sizeof(cmd),
		 "{ grep -qw ext4 /proc/filesystems || modprobe -q ext4; } && "
		 "{ test -e /dev/loop-control || modprobe -q loop; } && "
		 "truncate -s 32M %s && mkfs.ext4 -q -F %s && "
		 "mount -o loop %s %s",
		 self->img, self->img, self->img, self->dir);
	ASSERT_EQ(0, system(cmd));
	self->mounted = 1;
}

FIXTURE_TEARDOWN(file)
{
	if (self->mounted)
		umount(self->dir);
	if (self->img[0])
		unlink(self->img);
}

static int make_file(const char *dir, const char *name, size_t size, char *path,
		     size_t pathlen)
{
	char buf[CHUNK];
	int fd;

	snprintf(path, pathlen, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (; size >= CHUNK; size -= CHUNK)
		if (ft_write_all(fd, buf, CHUNK))
			return -1;
	if (size && ft_write_all(fd, buf, size))
		return -1;
	return fd;
}

TEST_F(file, reads_are_charged_exactly)
{
	char path[128], buf[3 * CHUNK];
	struct iovec iov[3] = {
		{buf, 100},
		{buf + 100, 1000},
		{buf + 1100, CHUNK},
	};
	uint64_t r0, r1, w0, w1, expect = 0, calls = 0;
	struct ft_counters fc;
	struct ft_totals t;
	ssize_t proc0;
	int fd, wfd, i;

	/* 10 chunks and 123 bytes: reads near the end come back short. */
	fd = make_file(self->dir, "r", 10 * CHUNK + 123, path, sizeof(path));
	ASSERT_LE(0, fd);
	wfd = open(path, O_WRONLY);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);
	ASSERT_EQ(0, (int)lseek(fd, 0, SEEK_SET));
	for (i = 0; i < 3; i++, calls++)
		expect += read(fd, buf, CHUNK);
	expect += pread(fd, buf, CHUNK, 5 * CHUNK), calls++;
	expect += pread(fd, buf, sizeof(buf), 9 * CHUNK), calls++; /* short */
	expect += readv(fd, iov, 3), calls++;
	expect += preadv(fd, iov, 3, 2 * CHUNK), calls++;
	expect += preadv2(fd, iov, 2, 7 * CHUNK, 0), calls++;
	expect += pread(fd, buf, CHUNK, 20 * CHUNK), calls++; /* at EOF: 0 */
	ASSERT_EQ(-1, read(wfd, buf, 1)); /* EBADF: an error, no bytes */
	calls++;
	ASSERT_EQ(0, (int)ft_proc_io(&r1, &w1) < 0);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(expect, t.in_bytes);
	EXPECT_EQ(calls, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	EXPECT_EQ(0, t.out_calls);
	/* The kernel's rchar saw the same bytes (plus its own first read). */
	EXPECT_EQ(expect, r1 - r0 - (uint64_t)proc0);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
	ft_counters_free(&fc);
	close(wfd);
	close(fd);
}

TEST_F(file, writes_are_charged_exactly)
{
	char path[128], buf[2 * CHUNK];
	struct iovec iov[2] = {{buf, 10}, {buf + 10, 2 * CHUNK - 10}};
	uint64_t r0, r1, w0, w1, expect = 0, calls = 0;
	struct ft_counters fc;
	struct ft_totals t;
	int fd, rfd;

	fd = make_file(self->dir, "w", 0, path, sizeof(path));
	ASSERT_LE(0, fd);
	rfd = open(path, O_RDONLY);
	ASSERT_LE(0, rfd);
	memset(buf, 'y', sizeof(buf));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	ASSERT_LT(0, ft_proc_io(&r0, &w0));
	expect += write(fd, buf, 1234), calls++;
	expect += pwrite(fd, buf, CHUNK, 3 * CHUNK), calls++;
	expect += writev(fd, iov, 2), calls++;
	expect += pwritev(fd, iov, 2, 10 * CHUNK), calls++;
	expect += pwritev2(fd, iov, 1, 20 * CHUNK, 0), calls++;
	ASSERT_EQ(-1, write(rfd, buf, 1)); /* EBADF */
	calls++;
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(1234 + CHUNK + 2 * CHUNK + 2 * CHUNK + 10, expect);
	EXPECT_EQ(expect, t.out_bytes);
	EXPECT_EQ(calls, t.out_calls);
	EXPECT_EQ(1, t.out_errors);
	EXPECT_EQ(expect, w1 - w0);
	ft_counters_free(&fc);
	close(rfd);
	close(fd);
}

/* Pipes are counted by kind, on their own inode, in both directions. */
TEST(pipe_bytes_are_charged_to_the_pipe)
{
	struct ft_counters fc;
	struct ft_totals t;
	char buf[1000];
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	memset(buf, 'p', sizeof(buf));
	ASSERT_EQ(1000, write(p[1], buf, 1000));
	ASSERT_EQ(600, read(p[0], buf, 600));
	ASSERT_EQ(400, read(p[0], buf, 1000));
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, p[0]);
	EXPECT_EQ(1000, t.in_bytes);
	EXPECT_EQ(2, t.in_calls);
	EXPECT_EQ(1000, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	ft_counters_free(&fc);
}

/* A process that lives far less than a flush interval is still counted. */
TEST(short_lived_process_totals_survive_its_exit)
{
	struct ft_counters fc;
	struct ft_totals t;
	int p[2], status;
	char buf[64];
	pid_t kid;

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	kid = fork();
	if (!kid)
		_exit(write(p[1], "0123456789", 10) == 10 ? 0 : 1);
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(10, read(p[0], buf, sizeof(buf)));
	/* The child is gone; its counters are not. */
	ASSERT_EQ(0, ft_collect_tgid(&fc, kid));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, p[1]);
	EXPECT_EQ(10, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	ft_counters_free(&fc);
}

TEST_HARNESS_MAIN
