// SPDX-License-Identifier: GPL-2.0
/*
 * Tracking toggles: with TCP, UDP, IPv4 or IPv6 off, those sockets give
 * neither records nor counters while the others still give both; with
 * file reads off, a file's reads are not counted although /proc/self/io
 * shows they happened, while its writes and a socket's receives still are.
 */
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "events_test.h"

FIXTURE(toggles)
{
	struct ev_log log;
};

FIXTURE_VARIANT(toggles)
{
	int family, type, other_family;
	enum ftagent_filter_toggle proto, fam;
};

FIXTURE_VARIANT_ADD(toggles, tcp4){AF_INET, SOCK_STREAM, AF_INET6,
				   FTAGENT_FILTER_NET_TCP,
				   FTAGENT_FILTER_NET_IPV4};
FIXTURE_VARIANT_ADD(toggles, tcp6){AF_INET6, SOCK_STREAM, AF_INET,
				   FTAGENT_FILTER_NET_TCP,
				   FTAGENT_FILTER_NET_IPV6};
FIXTURE_VARIANT_ADD(toggles, udp4){AF_INET, SOCK_DGRAM, AF_INET6,
				   FTAGENT_FILTER_NET_UDP,
				   FTAGENT_FILTER_NET_IPV4};
FIXTURE_VARIANT_ADD(toggles, udp6){AF_INET6, SOCK_DGRAM, AF_INET,
				   FTAGENT_FILTER_NET_UDP,
				   FTAGENT_FILTER_NET_IPV6};

FIXTURE_SETUP(toggles)
{
	ASSERT_EQ(0, ev_reset_filters());
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(toggles)
{
	EXPECT_EQ(0, ev_reset_filters());
	ev_close(&self->log);
}

/*
 * A whole exchange on @family/@type, 10 bytes from the client (fds[1]):
 * the inodes of its sockets into @ino. 0/-1.
 */
static int exchange(int family, int type, uint64_t ino[3])
{
	struct sockaddr_storage ss;
	socklen_t len = ev_loopback(family, &ss);
	int fds[3] = {-1, -1, -1}, i, ok = 0;
	char buf[10] = "0123456789";
	uint32_t dev;

	if (type == SOCK_STREAM) {
		ok = ev_tcp_pair(family, fds) == 0;
	} else {
		fds[0] = socket(family, SOCK_DGRAM, 0);
		fds[1] = socket(family, SOCK_DGRAM, 0);
		ok = fds[0] >= 0 && fds[1] >= 0 &&
		     !bind(fds[0], (struct sockaddr *)&ss, len) &&
		     !getsockname(fds[0], (struct sockaddr *)&ss, &len) &&
		     !connect(fds[1], (struct sockaddr *)&ss, len);
		fds[2] = fds[0];
	}
	ok = ok && send(fds[1], buf, 10, 0) == 10 &&
	     recv(fds[2], buf, 10, 0) == 10;
	for (i = 0; i < 3; i++) {
		ft_fd_id(fds[i], &dev, &ino[i]);
		if (fds[i] >= 0 && (i < 2 || fds[2] != fds[0]))
			close(fds[i]);
	}
	return ok ? 0 : -1;
}

/* Records and counter keys about the sockets @ino[3]. */
static size_t seen(struct ev_log *l, const struct ft_counters *fc,
		   const uint64_t ino[3])
{
	size_t n = 0;
	int i;

	for (i = 0; i < 3; i++) {
		n += ev_count_sock(l, ino[i]);
		n += ft_sum(fc, FTAGENT_OBJ_SOCKET, 0, ino[i], 0).records;
	}
	return n;
}

static void toggled_off(struct __test_metadata *_metadata,
			const FIXTURE_VARIANT(toggles) * variant,
			struct ev_log *l, enum ftagent_filter_toggle off,
			int other_family, int other_type)
{
	uint64_t mine[3], other[3];
	struct ft_counters fc;

	ASSERT_EQ(0, ev_set_toggle(off, 0));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	ASSERT_EQ(0, exchange(variant->family, variant->type, mine));
	ASSERT_EQ(0, exchange(other_family, other_type, other));
	ASSERT_LE(0, ev_drain(l));
	ASSERT_EQ(0, ft_collect(&fc));
	EXPECT_EQ(0, seen(l, &fc, mine));
	/* Still tracked: bind, connect, close (and listen, accept); sends. */
	EXPECT_LE(4, seen(l, &fc, other));
	EXPECT_EQ(10,
		  ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, other[1], 0).out_bytes);
	ft_counters_free(&fc);
}

TEST_F(toggles, protocol_off_gives_nothing)
{
	toggled_off(_metadata, variant, &self->log, variant->proto,
		    variant->family,
		    variant->type == SOCK_STREAM ? SOCK_DGRAM : SOCK_STREAM);
}

TEST_F(toggles, family_off_gives_nothing)
{
	toggled_off(_metadata, variant, &self->log, variant->fam,
		    variant->other_family, variant->type);
}

FIXTURE(reads)
{
	int unused;
};

FIXTURE_SETUP(reads)
{
	ASSERT_EQ(0, ev_reset_filters());
}

FIXTURE_TEARDOWN(reads)
{
	EXPECT_EQ(0, ev_reset_filters());
}

TEST_F(reads, file_reads_off_are_not_counted)
{
	char path[] = "/tmp/ftet.XXXXXX", buf[4096] = {0};
	uint64_t r0, r1, w0, w1, ino[3];
	struct iovec iov = {buf, 100};
	struct ft_counters fc;
	struct ft_totals t;
	ssize_t proc0;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(0, ft_write_all(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, ev_set_toggle(FTAGENT_FILTER_FILE_TRACK_READ, 0));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	proc0 = ft_proc_io(&r0, &w0);
	ASSERT_LT(0, proc0);
	ASSERT_EQ(1000, pread(fd, buf, 1000, 0));
	ASSERT_EQ(100, preadv(fd, &iov, 1, 0));
	ASSERT_EQ(300, pwrite(fd, buf, 300, 0));
	ASSERT_LT(0, ft_proc_io(&r1, &w1));
	ASSERT_EQ(0, exchange(AF_INET, SOCK_STREAM, ino));
	ASSERT_EQ(0, ft_collect(&fc));
	/* The kernel saw the reads; the module, as told, did not count. */
	EXPECT_EQ(1100, r1 - r0 - (uint64_t)proc0);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(0, t.in_calls);
	EXPECT_EQ(0, t.in_bytes);
	EXPECT_EQ(300, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(10, ft_sum(&fc, FTAGENT_OBJ_SOCKET, 0, ino[2], 0).in_bytes);
	ft_counters_free(&fc);
	close(fd);
}

TEST_HARNESS_MAIN
