// SPDX-License-Identifier: GPL-2.0
/*
 * Raw IPv4 and packet sockets (CAP_NET_RAW). A raw socket's sendto names
 * its destination like UDP, and an address rule refuses it; but with
 * IP_HDRINCL the packet carries a header of the caller's own, whose
 * destination the gate never reads, and an AF_PACKET socket names no IP
 * address at all. Both are limits docs/policy.md states; these tests show
 * them, and that a send rule without an address still refuses them.
 */
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>

#include "kselftest_harness.h"
#include "evasion_test.h"

static const uint8_t one[4] = {127, 0, 0, 1};

static struct sockaddr_in to4(uint32_t addr, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET};

	s.sin_addr.s_addr = htonl(addr);
	s.sin_port = htons(port);
	return s;
}

/* A UDP socket on 127.0.0.1, non-blocking; its fd and port. */
static int udp_sink(uint16_t *port)
{
	struct sockaddr_in s = to4(INADDR_LOOPBACK, 0);
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    getsockname(fd, (struct sockaddr *)&s, &len))
		return -1;
	*port = ntohs(s.sin_port);
	return fd;
}

static uint16_t ip_csum(const void *hdr, size_t len)
{
	const uint16_t *w = hdr;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * A UDP datagram to 127.0.0.1:@port, IP header included (UDP checksum
 * 0: none; the IP one, which only a packet socket's send keeps).
 */
static size_t packet(uint8_t *buf, uint16_t port)
{
	struct iphdr *ip = (struct iphdr *)buf;
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	size_t len = sizeof(*ip) + sizeof(*udp) + 1;

	memset(buf, 0, len);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(len);
	ip->saddr = htonl(0xc0000201); /* 192.0.2.1: not local */
	ip->daddr = htonl(INADDR_LOOPBACK);
	udp->source = htons(9);
	udp->dest = htons(port);
	udp->len = htons(sizeof(*udp) + 1);
	buf[len - 1] = 'x';
	ip->check = ip_csum(ip, sizeof(*ip));
	return len;
}

static int arrived(int sink)
{
	char c;

	ev_sleep_ms(50);
	return recv(sink, &c, 1, 0) == 1;
}

FIXTURE(raw)
{
	int sink;
	uint16_t port;
};

FIXTURE_SETUP(raw)
{
	ASSERT_EQ(0, ev_clear_policy());
	self->sink = udp_sink(&self->port);
	ASSERT_GE(self->sink, 0);
}

FIXTURE_TEARDOWN(raw)
{
	EXPECT_EQ(0, ev_clear_policy());
	close(self->sink);
}

/*
 * Deny sends to 127.0.0.1 (@comm NULL), or every send of the processes
 * named @comm: not ours, whose netlink sends must go on.
 */
static void deny_send(struct __test_metadata *_metadata, const char *comm)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "no-send", 1u << FTAGENT_OP_SEND, FTAGENT_ACTION_DENY);
	if (comm) {
		r->set |= FTAGENT_RULE_SET_COMM;
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	} else {
		ev_cidr(r, one, 4, 32);
	}
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
}

struct pkt {
	int fd;
	struct sockaddr_ll ll;
	uint8_t buf[64];
	size_t len;
};

/* In a child named ftg-pkt: 0 if the send went, else its errno. */
static int pkt_send(void *arg)
{
	struct pkt *k = arg;

	prctl(PR_SET_NAME, "ftg-pkt");
	return sendto(k->fd, k->buf, k->len, 0, (struct sockaddr *)&k->ll,
		      sizeof(k->ll)) == (ssize_t)k->len
		       ? 0
		       : errno;
}

TEST_F(raw, a_raw_sendto_is_decided_by_its_address)
{
	struct sockaddr_in to = to4(INADDR_LOOPBACK, 0);
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	uint8_t buf[64];
	size_t len = packet(buf, self->port) - sizeof(struct iphdr);

	ASSERT_GE(fd, 0);
	deny_send(_metadata, NULL);
	/* Without IP_HDRINCL the kernel writes the header: to 127.0.0.1. */
	EXPECT_EQ(-1, sendto(fd, buf + sizeof(struct iphdr), len, 0,
			     (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	EXPECT_FALSE(arrived(self->sink));
	close(fd);
}

/* The limit: IP_HDRINCL's own header goes where it says. */
TEST_F(raw, hdrincl_carries_a_destination_the_gate_does_not_read)
{
	struct sockaddr_in via = to4(0x7f000002, 0);
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW), on = 1;
	uint8_t buf[64];
	size_t len = packet(buf, self->port);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)));
	deny_send(_metadata, NULL);
	/* Routed as to 127.0.0.2, delivered to 127.0.0.1's socket. */
	EXPECT_EQ((ssize_t)len, sendto(fd, buf, len, 0, (struct sockaddr *)&via,
				       sizeof(via)));
	EXPECT_TRUE(arrived(self->sink));
	/* Named as the destination, 127.0.0.1 is refused. */
	via = to4(INADDR_LOOPBACK, 0);
	EXPECT_EQ(-1, sendto(fd, buf, len, 0, (struct sockaddr *)&via,
			     sizeof(via)));
	EXPECT_EQ(EPERM, errno);
	close(fd);
}

static int set_localnet(const char *v)
{
	int fd = open("/proc/sys/net/ipv4/conf/lo/route_localnet", O_WRONLY),
	    rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, v, 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

/* AF_PACKET: no IP address to match; a rule without one refuses it. */
TEST_F(raw, a_packet_socket_names_no_ip_address)
{
	struct pkt k = {.ll = {.sll_family = AF_PACKET,
			       .sll_protocol = htons(ETH_P_IP),
			       .sll_halen = ETH_ALEN}};

	k.fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	ASSERT_GE(k.fd, 0);
	k.len = packet(k.buf, self->port);
	k.ll.sll_ifindex = if_nametoindex("lo");
	ASSERT_GT(k.ll.sll_ifindex, 0);
	/*
	 * A frame on lo carries no route: 127.0.0.1 is a martian to the
	 * input path unless route_localnet lets it in (and a local source
	 * would be one: the packet comes from 192.0.2.1).
	 */
	ASSERT_EQ(0, set_localnet("1"));
	deny_send(_metadata, NULL);
	EXPECT_EQ(0, ev_in_child(pkt_send, &k));
	EXPECT_TRUE(arrived(self->sink));
	deny_send(_metadata, "ftg-pkt");
	EXPECT_EQ(EPERM, ev_in_child(pkt_send, &k));
	EXPECT_FALSE(arrived(self->sink));
	EXPECT_EQ(0, set_localnet("0"));
	close(k.fd);
}

TEST_HARNESS_MAIN
