// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast alerts: join the group, wait for the next message, decode it
 * strictly (a wrongly typed attribute fails it).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>

#include "alerts.h"
#include "counters.h"

int ftagent_alerts_open(struct ftnl *nl, struct ftnl_error *err)
{
	if (ftnl_open(nl, FTAGENT_GENL_CTL_NAME, err) < 0)
		return -1;
	if (ftnl_join_group(nl, FTAGENT_GENL_CTL_NAME,
			    FTAGENT_GENL_ALERTS_GROUP, err) < 0) {
		ftnl_close(nl);
		return -1;
	}
	return 0;
}

static int alert_attr(const struct nlattr *a, void *data)
{
	struct ftagent_alert *al = data;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_CTL_A_ALERT_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		al->kind = mnl_attr_get_u32(a);
		return MNL_CB_OK;
	case FTAGENT_CTL_A_EV_LOST:
		if (ftagent_ev_lost_parse(a, al->ev_lost) < 0)
			return MNL_CB_ERROR;
		al->has_lost = 1;
		return MNL_CB_OK;
	case FTAGENT_CTL_A_EV_LOST_TOTAL:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		al->ev_lost_total = mnl_attr_get_u64(a);
		al->has_total = 1;
		return MNL_CB_OK;
	}
	return MNL_CB_OK; /* newer minor ABI */
}

int ftagent_alert_parse(const struct nlmsghdr *nlh, struct ftagent_alert *a)
{
	memset(a, 0, sizeof(*a));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), alert_attr, a) !=
		    MNL_CB_OK) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

uint64_t ftagent_alert_lost(const struct ftagent_alert *a)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		n += a->ev_lost[k];
	return n;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fail(struct ftnl_error *err, int errnum, const char *msg)
{
	memset(err, 0, sizeof(*err));
	err->err = errnum;
	strcpy(err->msg, msg);
}

/* The ALERT in one datagram, if it holds one: 1, 0, or -1. */
static int take_alert(struct ftnl *nl, const char *buf, size_t size,
		      struct ftagent_alert *a)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct genlmsghdr *genl;
	int len = (int)size;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_type != nl->family_id ||
		    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
			continue;
		genl = mnl_nlmsg_get_payload(nlh);
		if (genl->cmd != FTAGENT_CTL_CMD_ALERT)
			continue;
		/* One alert a datagram: the kernel multicasts each alone. */
		return ftagent_alert_parse(nlh, a) == MNL_CB_OK ? 1 : -1;
	}
	return 0;
}

int ftagent_alert_recv(struct ftnl *nl, struct ftagent_alert *a, int timeout_ms,
		       struct ftnl_error *err)
{
	int64_t deadline = now_ms() + timeout_ms;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct pollfd pfd = {mnl_socket_get_fd(nl->sock), POLLIN, 0};

	for (;;) {
		int64_t left = deadline - now_ms();
		ssize_t n;
		int rc;

		if (left < 0)
			left = 0;
		rc = poll(&pfd, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			fail(err, errno, "cannot wait for alerts");
			return -1;
		}
		if (rc == 0)
			return 0;
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0) {
			fail(err, errno,
			     errno == ENOBUFS ? "alerts were dropped"
					      : "cannot receive alerts");
			return -1;
		}
		rc = take_alert(nl, buf, n, a);
		if (rc < 0) {
			fail(err, EBADMSG, "malformed alert");
			return -1;
		}
		if (rc)
			return 1;
	}
}
