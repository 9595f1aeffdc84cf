// SPDX-License-Identifier: GPL-2.0
/*
 * Network counters: TCP and UDP over loopback, IPv4 and IPv6, with every
 * send and receive call (send, sendto, sendmsg, sendmmsg, write, writev,
 * recv, recvfrom, recvmsg, recvmmsg, read, readv). Each socket's counters
 * must equal the bytes moved and the calls made, exactly, and for TCP the
 * kernel's own TCP_INFO byte counts (what `ss -ti` shows).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/membarrier.h>
#include <linux/tcp.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

FIXTURE(net)
{
	int tx, rx;
};

FIXTURE_VARIANT(net)
{
	int family;
	int type;
};

FIXTURE_VARIANT_ADD(net, tcp4){.family = AF_INET, .type = SOCK_STREAM};
FIXTURE_VARIANT_ADD(net, tcp6){.family = AF_INET6, .type = SOCK_STREAM};
FIXTURE_VARIANT_ADD(net, udp4){.family = AF_INET, .type = SOCK_DGRAM};
FIXTURE_VARIANT_ADD(net, udp6){.family = AF_INET6, .type = SOCK_DGRAM};

/* 127.0.0.1, port 0. */
static socklen_t loopback4(struct sockaddr_in *in)
{
	memset(in, 0, sizeof(*in));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*in);
}

static socklen_t loopback(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET)
		return loopback4((struct sockaddr_in *)ss);
	((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
	((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	return sizeof(struct sockaddr_in6);
}

FIXTURE_SETUP(net)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(variant->family, &ss);
	int lfd;

	lfd = socket(variant->family, variant->type, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&ss, &len));
	self->tx = socket(variant->family, variant->type, 0);
	ASSERT_LE(0, self->tx);
	if (variant->type == SOCK_STREAM) {
		ASSERT_EQ(0, listen(lfd, 1));
		ASSERT_EQ(0, connect(self->tx, (struct sockaddr *)&ss, len));
		self->rx = accept(lfd, NULL, NULL);
		ASSERT_LE(0, self->rx);
		close(lfd);
	} else {
		ASSERT_EQ(0, connect(self->tx, (struct sockaddr *)&ss, len));
		self->rx = lfd;
	}
}

FIXTURE_TEARDOWN(net)
{
	close(self->tx);
	close(self->rx);
}

/* Send with every call; returns bytes sent, adds the calls made. */
static long send_all_ways(int fd, char *buf, uint64_t *calls)
{
	struct iovec iov[2] = {{buf, 300}, {buf + 300, 700}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	struct mmsghdr mm[3] = {
		{.msg_hdr = {.msg_iov = &iov[0], .msg_iovlen = 1}},
		{.msg_hdr = {.msg_iov = &iov[1], .msg_iovlen = 1}},
		{.msg_hdr = {.msg_iov = iov, .msg_iovlen = 2}},
	};
	long sent = 0;

	sent += send(fd, buf, 1024, 0);
	sent += sendto(fd, buf, 512, 0, NULL, 0);
	sent += sendmsg(fd, &msg, 0);
	if (sendmmsg(fd, mm, 3, 0) == 3)
		sent += mm[0].msg_len + mm[1].msg_len + mm[2].msg_len;
	sent += write(fd, buf, 100);
	sent += writev(fd, iov, 2);
	*calls += 6;
	return sent;
}

/* Receive @want bytes cycling through every call; adds calls made. */
static long recv_all_ways(int fd, char *buf, long want, uint64_t *calls)
{
	/* Every way takes up to 1024 bytes: no datagram is truncated. */
	struct iovec iov[2] = {{buf, 200}, {buf + 200, 824}};
	struct iovec whole = {buf, 1024};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	struct mmsghdr mm[1] = {
		{.msg_hdr = {.msg_iov = &whole, .msg_iovlen = 1}},
	};
	long got = 0, n;
	int way = 0;

	while (got < want) {
		switch (way++ % 6) {
		case 0: n = recv(fd, buf, 1024, 0); break;
		case 1: n = recvfrom(fd, buf, 1024, 0, NULL, NULL); break;
		case 2: n = recvmsg(fd, &msg, 0); break;
		case 3:
			n = recvmmsg(fd, mm, 1, 0, NULL);
			n = n == 1 ? (long)mm[0].msg_len : -1;
			break;
		case 4: n = read(fd, buf, 1024); break;
		default: n = readv(fd, iov, 2); break;
		}
		(*calls)++;
		if (n <= 0)
			return -1;
		got += n;
	}
	return got;
}

static int tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len);
}

TEST_F(net, sends_and_receives_are_charged_exactly)
{
	uint64_t tx_calls = 0, rx_calls = 0;
	struct ft_counters fc;
	struct ft_totals tx, rx;
	struct tcp_info ti;
	long sent, got;
	char buf[4096];
	int proto = variant->type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	size_t i;

	memset(buf, 'n', sizeof(buf));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	sent = send_all_ways(self->tx, buf, &tx_calls);
	ASSERT_EQ(1024 + 512 + 1000 + 300 + 700 + 1000 + 100 + 1000, sent);
	got = recv_all_ways(self->rx, buf, sent, &rx_calls);
	ASSERT_EQ(sent, got);

	ASSERT_EQ(0, ft_collect(&fc));
	tx = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->tx);
	rx = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(sent, tx.out_bytes);
	EXPECT_EQ(tx_calls, tx.out_calls);
	EXPECT_EQ(0, tx.out_errors);
	EXPECT_EQ(got, rx.in_bytes);
	EXPECT_EQ(rx_calls, rx.in_calls);
	EXPECT_EQ(0, rx.in_errors);
	for (i = 0; i < fc.n; i++) {
		uint32_t dev;
		uint64_t ino;

		ft_fd_id(self->tx, &dev, &ino);
		if (fc.c[i].kind == FTAGENT_OBJ_SOCKET && fc.c[i].ino == ino) {
			EXPECT_EQ(variant->family, fc.c[i].family);
			EXPECT_EQ(proto, fc.c[i].protocol);
		}
	}
	if (proto == IPPROTO_TCP) {
		/* The kernel's own counts, as `ss -ti` reports them. */
		ASSERT_EQ(0, tcp_info(self->tx, &ti));
		EXPECT_EQ((uint64_t)sent, ti.tcpi_bytes_sent);
		ASSERT_EQ(0, tcp_info(self->rx, &ti));
		EXPECT_EQ((uint64_t)got, ti.tcpi_bytes_received);
	}
	ft_counters_free(&fc);
}

TEST_F(net, failed_calls_count_as_errors)
{
	struct ft_counters fc;
	struct ft_totals rx;
	char buf[16];

	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	/* Nothing queued: a non-blocking receive fails with EAGAIN. */
	ASSERT_EQ(-1, recv(self->rx, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, ft_collect(&fc));
	rx = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, self->rx);
	EXPECT_EQ(1, rx.in_calls);
	EXPECT_EQ(1, rx.in_errors);
	EXPECT_EQ(0, rx.in_bytes);
	ft_counters_free(&fc);
}

/* This process's bytes sent on socket @ino as a @family/@proto socket. */
static uint64_t sent_as(const struct ft_counters *fc, uint64_t ino, int family,
			int proto, uint64_t *calls)
{
	uint64_t bytes = 0;
	size_t i;

	*calls = 0;
	for (i = 0; i < fc->n; i++) {
		const struct ftagent_counter *c = &fc->c[i];

		if (c->kind == FTAGENT_OBJ_SOCKET && c->ino == ino &&
		    c->family == family && c->protocol == proto) {
			bytes += c->out.bytes;
			*calls += c->out.calls;
		}
	}
	return bytes;
}

/*
 * IPV6_ADDRFORM turns a connected IPv6 socket whose peer is a v4-mapped
 * address into an IPv4 one: same descriptor, same inode, new family. The
 * sends before it are IPv6 bytes, the sends after it IPv4 bytes, however
 * often the socket was used before (the family is not kept stale).
 */
TEST(a_socket_turned_ipv4_by_addrform_is_charged_as_ipv4)
{
	static const int types[] = {SOCK_DGRAM, SOCK_STREAM};
	struct sockaddr_in6 to6 = {.sin6_family = AF_INET6};
	struct sockaddr_in in4;
	socklen_t len = sizeof(in4);
	uint64_t calls, ino;
	struct ft_counters fc;
	char buf[700];
	uint32_t dev;
	int t, i, lfd, tx, rx, v4 = AF_INET;

	memset(buf, 'a', sizeof(buf));
	for (t = 0; t < 2; t++) {
		int proto = types[t] == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;

		TH_LOG("%s", proto == IPPROTO_TCP ? "tcp" : "udp");
		lfd = socket(AF_INET, types[t], 0);
		ASSERT_LE(0, lfd);
		len = loopback4(&in4);
		ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&in4, len));
		ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&in4, &len));
		if (types[t] == SOCK_STREAM)
			ASSERT_EQ(0, listen(lfd, 1));
		/* ::ffff:127.0.0.1 */
		to6.sin6_port = in4.sin_port;
		to6.sin6_addr.s6_addr[10] = 0xff;
		to6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&to6.sin6_addr.s6_addr[12], &in4.sin_addr, 4);
		tx = socket(AF_INET6, types[t], 0);
		ASSERT_LE(0, tx);
		ASSERT_EQ(0, connect(tx, (struct sockaddr *)&to6, sizeof(to6)));
		rx = types[t] == SOCK_STREAM ? accept(lfd, NULL, NULL) : lfd;
		ASSERT_LE(0, rx);
		ft_fd_id(tx, &dev, &ino);
		ASSERT_EQ(0, ft_collect(&fc));
		ft_counters_free(&fc);

		/* Many sends: the socket is this CPU's last one by now. */
		for (i = 0; i < 8; i++) {
			ASSERT_EQ(100, send(tx, buf, 100, 0));
			ASSERT_EQ(100, recv(rx, buf, 100, MSG_WAITALL));
		}
		ASSERT_EQ(0, setsockopt(tx, IPPROTO_IPV6, IPV6_ADDRFORM, &v4,
					sizeof(v4)));
		for (i = 0; i < 8; i++) {
			ASSERT_EQ(300, send(tx, buf, 300, 0));
			ASSERT_EQ(300, recv(rx, buf, 300, MSG_WAITALL));
		}
		ASSERT_EQ(0, ft_collect(&fc));
		EXPECT_EQ(800, sent_as(&fc, ino, AF_INET6, proto, &calls));
		EXPECT_EQ(8, calls);
		EXPECT_EQ(2400, sent_as(&fc, ino, AF_INET, proto, &calls));
		EXPECT_EQ(8, calls);
		ft_counters_free(&fc);
		close(tx);
		if (rx != lfd)
			close(rx);
		close(lfd);
	}
}

/*
 * Sockets of different families opened and closed in turn under the same
 * descriptor number (and, as allocators go, often at a freed one's
 * addresses): each one's bytes carry its own family and protocol.
 */
TEST(a_new_socket_at_an_old_ones_descriptor_has_its_own_family)
{
	struct sockaddr_in sink;
	socklen_t len = sizeof(sink);
	struct ft_counters fc;
	uint64_t ino[64], calls;
	int i, fd, pair[2], rx;
	uint32_t dev;
	char buf[128];

	memset(buf, 'b', sizeof(buf));
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, rx);
	loopback4(&sink);
	ASSERT_EQ(0, bind(rx, (struct sockaddr *)&sink, sizeof(sink)));
	ASSERT_EQ(0, getsockname(rx, (struct sockaddr *)&sink, &len));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	for (i = 0; i < 64; i++) {
		if (i % 2) {
			ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, pair));
			fd = pair[0];
		} else {
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			ASSERT_LE(0, fd);
			ASSERT_EQ(0, connect(fd, (struct sockaddr *)&sink,
					     sizeof(sink)));
			pair[1] = -1;
		}
		ft_fd_id(fd, &dev, &ino[i]);
		ASSERT_EQ(10 + i, send(fd, buf, 10 + i, 0));
		ASSERT_EQ(10 + i, send(fd, buf, 10 + i, 0));
		if (pair[1] < 0) {
			ASSERT_EQ(10 + i, recv(rx, buf, sizeof(buf), 0));
			ASSERT_EQ(10 + i, recv(rx, buf, sizeof(buf), 0));
		} else {
			close(pair[1]);
		}
		close(fd);
		/*
		 * Socket inodes are freed after a grace period: wait for one
		 * (twice, for the callbacks queued before it), so the next
		 * socket may well be allocated where this one was.
		 */
		syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
		syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	for (i = 0; i < 64; i++) {
		int family = i % 2 ? AF_UNIX : AF_INET;
		int proto = i % 2 ? 0 : IPPROTO_UDP;

		EXPECT_EQ(2 * (10 + i),
			  sent_as(&fc, ino[i], family, proto, &calls))
		TH_LOG("socket %d", i);
		/* An IPv4 socket's connect() is one more (empty) call. */
		EXPECT_EQ(i % 2 ? 2 : 3, calls);
	}
	ft_counters_free(&fc);
	close(rx);
}

TEST_HARNESS_MAIN
