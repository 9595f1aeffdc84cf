// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: the module's state, for the set and daemon sweeps. The
 * control and stats families' sockets, and snapshots of what a command
 * can change (configuration, filters, policy, budgets, counter
 * generations, excluded processes), taken unarmed before and after each
 * faulted request and compared.
 */
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/ftagent.h>

#include "../../tools/lib/counters.h"
#include "fail_nth.h"

struct ftnl ctl;
static struct ftnl stats;

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	struct snap *s = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		switch (mnl_attr_get_type(a)) {
		case FTAGENT_CTL_A_FLUSH_INTERVAL_MS:
			s->flush = mnl_attr_get_u32(a);
			break;
		case FTAGENT_CTL_A_STATE: s->state = mnl_attr_get_u32(a); break;
		}
	}
	return MNL_CB_OK;
}

void snap_free(struct snap *s)
{
	ftagent_filters_free(&s->f);
	ftagent_policy_spec_free(&s->p);
	ftagent_budget_set_free(&s->b);
	memset(s, 0, sizeof(*s));
}

int snap_take(struct snap *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftagent_resources res = {0};
	struct ftnl_error err;
	struct nlmsghdr *nlh;

	memset(s, 0, sizeof(*s));
	ftagent_filters_init(&s->f);
	ftagent_policy_spec_init(&s->p);
	nlh = ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);
	if (ftnl_transact(&ctl, nlh, status_cb, s, &err) < 0 ||
	    ftagent_get_resources(&stats, &res, &err) < 0 ||
	    ftagent_get_filters(&ctl, &s->f, &err) < 0 ||
	    ftagent_get_policy(&ctl, &s->p, &err) < 0 ||
	    ftagent_get_budgets(&ctl, &s->b, &err) < 0) {
		diag("state: %s", ftnl_format_error(&err, buf, sizeof(buf)));
		ftagent_resources_free(&res);
		return -1;
	}
	s->mode = res.mode;
	s->hooks = res.hooks;
	s->ring = res.ring_buffer_size;
	s->excluded = res.excluded_tgids;
	s->gen_seq = res.gen_seq;
	s->gen_acked = res.gen_acked;
	s->policy_gen = s->p.generation;
	ftagent_resources_free(&res);
	return 0;
}

/* "" when equal (generations and counter generations aside), else what differs. */
const char *snap_diff(const struct snap *a, const struct snap *b)
{
	static char why[128];

	why[0] = '\0';
	if (a->mode != b->mode)
		strcat(why, " mode");
	if (a->hooks != b->hooks)
		strcat(why, " hooks");
	if (a->ring != b->ring)
		strcat(why, " ring");
	if (a->flush != b->flush)
		strcat(why, " flush");
	if (a->state != b->state)
		strcat(why, " state");
	if (a->excluded != b->excluded)
		strcat(why, " excluded");
	if (!ftagent_filters_equal(&a->f, &b->f))
		strcat(why, " filters");
	if (!ftagent_policy_spec_equal(&a->p, &b->p))
		strcat(why, " policy");
	if (!ftagent_budget_set_equal(&a->b, &b->b))
		strcat(why, " budgets");
	return why;
}

int set_timeout(struct ftnl *nl)
{
	struct timeval tv = {.tv_sec = ACK_TIMEOUT_S};

	return setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVTIMEO,
			  &tv, sizeof(tv));
}

int open_families(void)
{
	struct ftnl_error err;
	char buf[300];
	int size = 1 << 20;

	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0 ||
	    ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
		diag("netlink: %s", ftnl_format_error(&err, buf, sizeof(buf)));
		return -1;
	}
	set_timeout(&ctl);
	set_timeout(&stats);
	setsockopt(mnl_socket_get_fd(ctl.sock), SOL_SOCKET, SO_RCVBUF, &size,
		   sizeof(size));
	return 0;
}
