// SPDX-License-Identifier: GPL-2.0
/*
 * sendfile and splice: the bytes are charged to both ends, and in standard
 * mode a file's bytes that sendfile sends straight to a socket are also a
 * transfer (file -> socket).
 */
#include <sys/sendfile.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

#define FILE_SIZE (64 * 1024 + 17)

static int make_file(char *path)
{
	char buf[4096];
	size_t left = FILE_SIZE;
	int fd;

	strcpy(path, "/tmp/ftct.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	memset(buf, 's', sizeof(buf));
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		if (ft_write_all(fd, buf, n))
			return -1;
		left -= n;
	}
	return fd;
}

/* Drain @fd until @want bytes arrived. */
static long drain(int fd, long want)
{
	char buf[8192];
	long got = 0;

	while (got < want) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			return -1;
		got += n;
	}
	return got;
}

TEST(sendfile_to_socket_is_a_transfer)
{
	struct ft_totals file, sock, xfer;
	struct ft_counters fc;
	uint32_t fdev, sdev;
	uint64_t fino, sino;
	char path[32];
	off_t off = 0;
	long sent = 0;
	int fd, sv[2];

	fd = make_file(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ft_fd_id(fd, &fdev, &fino);
	ft_fd_id(sv[0], &sdev, &sino);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	if (fork() == 0) {
		close(sv[0]);
		_exit(drain(sv[1], FILE_SIZE) == FILE_SIZE ? 0 : 1);
	}
	close(sv[1]);
	while (sent < FILE_SIZE) {
		ssize_t n = sendfile(sv[0], fd, &off, FILE_SIZE - sent);

		ASSERT_LT(0, n);
		sent += n;
	}
	ASSERT_EQ(0, ft_collect(&fc));
	file = ft_sum(&fc, FTAGENT_OBJ_FILE, fdev, fino, 0);
	sock = ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, sino, 0);
	xfer = ft_sum(&fc, FTAGENT_OBJ_TRANSFER, fdev, fino, sino);
	EXPECT_EQ(FILE_SIZE, file.in_bytes);
	EXPECT_EQ(FILE_SIZE, sock.out_bytes);
	EXPECT_EQ(FILE_SIZE, xfer.out_bytes);
	EXPECT_EQ(file.in_calls, xfer.out_calls);
	EXPECT_EQ(sock.out_calls, file.in_calls);
	ft_counters_free(&fc);
	unlink(path);
	close(fd);
	close(sv[0]);
}

TEST(splice_charges_both_ends)
{
	struct ft_totals file, pipe_t;
	struct ft_counters fc;
	char path[32];
	loff_t off = 0;
	long moved = 0;
	int fd, p[2];

	fd = make_file(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	/* file -> pipe, draining the pipe with read() in between. */
	while (moved < FILE_SIZE) {
		ssize_t n = splice(fd, &off, p[1], NULL, 16384, 0);

		ASSERT_LT(0, n);
		ASSERT_EQ(n, drain(p[0], n));
		moved += n;
	}
	ASSERT_EQ(0, ft_collect(&fc));
	file = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	pipe_t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, p[0]);
	EXPECT_EQ(FILE_SIZE, file.in_bytes);
	EXPECT_EQ(FILE_SIZE, pipe_t.out_bytes); /* spliced in */
	EXPECT_EQ(FILE_SIZE, pipe_t.in_bytes);	/* read out */
	EXPECT_EQ(file.in_calls, pipe_t.out_calls);
	ft_counters_free(&fc);
	unlink(path);
	close(fd);
}

TEST_HARNESS_MAIN
