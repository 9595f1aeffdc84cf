// SPDX-License-Identifier: GPL-2.0
/*
 * copy_file_range() moves a file's bytes into another file inside the
 * kernel, with no read() or write() for the module to see. Each copy is
 * charged as a read of the source and a write of the destination,
 * exactly as the kernel's own rchar and wchar count it, and the byte
 * budgets on files are charged for it as for read() and write(): a
 * process cannot copy its way past a budget, under its own name or an
 * excluded one.
 */
#include <fcntl.h>
#include <sys/prctl.h>

#include "kselftest_harness.h"
#include "budget_test.h"

#define CHUNK 4096

/* A file of @size bytes in @dir, open read-write; -1 on error. */
static int data_file(const char *dir, const char *name, size_t size)
{
	char path[128], buf[CHUNK];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 'c', sizeof(buf));
	for (; size >= CHUNK; size -= CHUNK)
		if (ft_write_all(fd, buf, CHUNK))
			return -1;
	if (size && ft_write_all(fd, buf, size))
		return -1;
	return fd;
}

static ssize_t copy(int in, loff_t *off_in, int out, loff_t *off_out,
		    size_t len)
{
	return syscall(SYS_copy_file_range, in, off_in, out, off_out, len, 0);
}

FIXTURE(copy)
{
	char dir[64];
	int src, dst;
};

FIXTURE_SETUP(copy)
{
	strcpy(self->dir, "/tmp/ftcopy.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* 10 chunks and 123 bytes: copies near the end come back short. */
	self->src = data_file(self->dir, "src", 10 * CHUNK + 123);
	ASSERT_LE(0, self->src);
	self->dst = data_file(self->dir, "dst", 0);
	ASSERT_LE(0, self->dst);
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(copy)
{
	char cmd[128];

	EXPECT_EQ(0, clear_budgets());
	close(self->src);
	close(self->dst);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(copy, copies_are_charged_to_both_files_exactly)
{
	uint64_t r0, r1, w0, w1, expect = 0, calls = 0;
	loff_t in_off, out_off;
	struct ft_counters fc;
	struct ft_totals in, out;
	char path[128];
	ssize_t proc0, n;
	int rdonly;

	snprintf(path, sizeof(path), "%s/dst", self->dir);
	rdonly = open(path, O_RDONLY);
	ASSERT_LE(0, rdonly);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);
	ASSERT_EQ(0, (int)lseek(self->src, 0, SEEK_SET));
	/* From the file positions, then at given offsets, then short. */
	n = copy(self->src, NULL, self->dst, NULL, 5000);
	ASSERT_EQ(5000, n);
	expect += n, calls++;
	n = copy(self->src, NULL, self->dst, NULL, 3 * CHUNK);
	ASSERT_EQ(3 * CHUNK, n);
	expect += n, calls++;
	in_off = 2 * CHUNK, out_off = 20 * CHUNK;
	n = copy(self->src, &in_off, self->dst, &out_off, CHUNK + 7);
	ASSERT_EQ(CHUNK + 7, n);
	expect += n, calls++;
	in_off = 9 * CHUNK;
	n = copy(self->src, &in_off, self->dst, &out_off, 4 * CHUNK);
	ASSERT_EQ(CHUNK + 123, n); /* short: the source ends */
	expect += n, calls++;
	n = copy(self->src, &in_off, self->dst, &out_off, CHUNK);
	ASSERT_EQ(0, n); /* at the end: no bytes, still a call */
	calls++;
	/* A destination open for reading only: EBADF, an error at both ends. */
	ASSERT_EQ(-1, copy(self->src, NULL, rdonly, NULL, 10));
	ASSERT_EQ(EBADF, errno);
	calls++;
	ASSERT_LT(0, ft_proc_io(&r1, &w1));

	ASSERT_EQ(0, ft_collect(&fc));
	in = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->src);
	out = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->dst);
	EXPECT_EQ(5000 + 4 * CHUNK + 7 + CHUNK + 123, expect);
	EXPECT_EQ(expect, in.in_bytes);
	EXPECT_EQ(calls, in.in_calls);
	EXPECT_EQ(1, in.in_errors);
	EXPECT_EQ(0, in.out_calls);
	/* dst and rdonly are the same file: its writes and the failed one. */
	EXPECT_EQ(expect, out.out_bytes);
	EXPECT_EQ(calls, out.out_calls);
	EXPECT_EQ(1, out.out_errors);
	EXPECT_EQ(0, out.in_calls);
	/* The kernel's rchar and wchar saw the same bytes. */
	EXPECT_EQ(expect, r1 - r0 - (uint64_t)proc0);
	EXPECT_EQ(expect, w1 - w0);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
	ft_counters_free(&fc);
	close(rdonly);
}

/* Copies of @len until one is refused: the errno, and the copies made. */
static int copy_until_refused(int src, int dst, size_t len, int *copies)
{
	loff_t in_off;
	int i;

	for (i = 0; i < 100; i++) {
		in_off = 0;
		if (copy(src, &in_off, dst, NULL, len) < 0) {
			*copies = i;
			return errno;
		}
	}
	*copies = i;
	return 0;
}

TEST_F(copy, a_written_bytes_budget_is_charged_for_copies)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int copies = -1;

	budget(&s, "copy-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000,
	       60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	/* 5 copies of 1000 reach the limit; the 6th is refused. */
	EXPECT_EQ(EDQUOT,
		  copy_until_refused(self->src, self->dst, 1000, &copies));
	EXPECT_EQ(5, copies);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);
	EXPECT_EQ(1, got.denied);
	ftagent_budget_set_free(&s);
}

/* Exclusion is by name, which anyone can take: the budget still holds. */
TEST_F(copy, an_excluded_name_is_charged_for_copies_read)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct ftnl_error err;
	int copies = -1, e;

	budget(&s, "copy-read-3000", FTAGENT_METRIC_BYTES_READ, 3000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ev_exclude(0, "ftcopy_excl"));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "ftcopy_excl"));
	e = copy_until_refused(self->src, self->dst, 1000, &copies);
	prctl(PR_SET_NAME, "evasion_copy");
	EXPECT_EQ(0, ev_reset_filters());
	EXPECT_EQ(EDQUOT, e);
	EXPECT_EQ(3, copies);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(3000, got.used);
	ftagent_budget_set_free(&s);
}

TEST_HARNESS_MAIN
