// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: one control request sent with the N-th fault-injection
 * point failing, its fate (sent or not, its ACK, an extended-ACK
 * message, a generation in the reply), and the requests the set sweep
 * sends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/ftagent.h>

#include "fail_nth.h"

/* ---- one request under fail-nth ---- */

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sent *r = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		if (mnl_attr_get_type(a) == FTAGENT_CTL_A_GEN_SEQ ||
		    mnl_attr_get_type(a) == FTAGENT_CTL_A_POLICY_GENERATION)
			r->u64 = mnl_attr_get_u64(a);
	}
	return MNL_CB_OK;
}

/* Read up to the ACK of @seq on @nl. */
static void recv_ack(struct ftnl *nl, uint32_t seq, struct sent *r)
{
	char buf[65536];
	int fd = mnl_socket_get_fd(nl->sock);
	ssize_t n;

	for (;;) {
		struct nlmsghdr *nlh;
		int len;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			r->err = errno;
			r->how = errno == EAGAIN ? SENT_NO_ACK : SENT_ACK_LOST;
			return;
		}
		len = n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			struct ftnl_error e;

			if (nlh->nlmsg_seq != seq)
				continue; /* an earlier request's late answer */
			if (nlh->nlmsg_type != NLMSG_ERROR) {
				reply_cb(nlh, r);
				continue;
			}
			r->how = SENT_ACKED;
			if (ftnl_parse_error(nlh, &e) == 0) {
				r->err = 0;
				return;
			}
			r->err = e.err;
			r->has_msg = e.msg[0] != '\0';
			snprintf(r->msg, sizeof(r->msg), "%s", e.msg);
			return;
		}
	}
}

/* Send @nlh on @nl with the @nth-th point failing (0: none). */
void send_nth(struct ftnl *nl, struct nlmsghdr *nlh, unsigned int nth,
	      struct sent *r)
{
	int fd = mnl_socket_get_fd(nl->sock);
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t n;
	int e;

	memset(r, 0, sizeof(*r));
	if (nth && nth_arm(nth) < 0) {
		diag("arm fail-nth: %s", strerror(errno));
		exit(1);
	}
	n = sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to));
	e = n < 0 ? errno : 0;
	r->left = nth ? nth_disarm() : -1;
	if (n < 0) {
		r->how = SENT_SEND_FAILED;
		r->err = e;
		return;
	}
	recv_ack(nl, nlh->nlmsg_seq, r);
}

/* ---- the requests ---- */

struct nlmsghdr *req_config(char *buf, uint32_t mode, uint32_t hooks,
			    uint32_t ring, uint32_t flush)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_CONFIG, 0);

	if (mode)
		mnl_attr_put_u32(nlh, FTAGENT_CTL_A_MODE, mode);
	if (hooks)
		mnl_attr_put_u32(nlh, FTAGENT_CTL_A_HOOKS, hooks);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_RING_BUFFER_SIZE, ring);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_FLUSH_INTERVAL_MS, flush);
	return nlh;
}

struct nlmsghdr *req_filters(char *buf, int on)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_FILTERS, 0);
	struct nlattr *nest;

	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_NET_UDP, on);
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_FILE_TRACK_READ, on);
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EXCLUDE_PROCESSES);
	if (!on) {
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "ftfault-a");
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "ftfault-b");
	}
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EXCLUDE_PATHS);
	if (!on) {
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME,
				  "/nonexistent/ftfault/");
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "/var/tmp/ftfault");
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

struct nlmsghdr *req_policy(char *buf, int set)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_POLICY, 0);
	struct in_addr addr;
	struct nlattr *rule;

	if (!set)
		return nlh; /* the empty set: no gate */
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_POLICY_ENFORCE, 0);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_POLICY_DEFAULT,
			 FTAGENT_ACTION_ALLOW);
	rule = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, "ftfault-open");
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, 1u << FTAGENT_OP_OPEN);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, FTAGENT_ACTION_AUDIT);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_PATH_PREFIX,
			  "/nonexistent/ftfault/");
	mnl_attr_nest_end(nlh, rule);
	rule = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, "ftfault-connect");
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, 1u << FTAGENT_OP_CONNECT);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, FTAGENT_ACTION_DENY);
	inet_pton(AF_INET, "192.0.2.0", &addr);
	mnl_attr_put(nlh, FTAGENT_RULE_A_ADDR, 4, &addr);
	mnl_attr_put_u8(nlh, FTAGENT_RULE_A_PREFIX_LEN, 24);
	mnl_attr_put_u16(nlh, FTAGENT_RULE_A_PORT_MIN, 9);
	mnl_attr_nest_end(nlh, rule);
	return nlh;
}

struct nlmsghdr *req_budgets(char *buf, int set)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_BUDGETS, 0);
	struct nlattr *b;

	if (!set)
		return nlh;
	b = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_BUDGET);
	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_NAME, "ftfault-execs");
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_METRIC, FTAGENT_METRIC_EXECS);
	mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_LIMIT, 1000000);
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_WINDOW_MS, 60000);
	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_COMM, "ftfault-none");
	mnl_attr_nest_end(nlh, b);
	return nlh;
}
