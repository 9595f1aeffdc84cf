/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests build netlink messages as the kernel lays them out: this
 * starts one, a generic netlink header with @cmd, on @buf.
 */
#ifndef FTAGENT_TEST_GENL_MSG_H
#define FTAGENT_TEST_GENL_MSG_H

#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

static inline struct nlmsghdr *genl_msg(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 0x20; /* any family id: the parsers don't look */
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

#endif /* FTAGENT_TEST_GENL_MSG_H */
