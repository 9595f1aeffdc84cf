/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces main.c calls in its init ladder, and the module's
 * version. Each .c file owns one job; see its header comment.
 */
#ifndef _FTAGENT_H
#define _FTAGENT_H

#include <linux/ftagent.h>
#include <net/genetlink.h>

/* The module's release; dkms.conf carries the same string. */
#define FTAGENT_MODULE_VERSION	"0.4.0"

/*
 * A reply to @info from @family for @cmd, room for @size bytes of
 * attributes; NULL if out of memory. *@hdr is for genlmsg_end().
 */
static inline struct sk_buff *
ftagent_genl_reply_new(struct genl_info *info, const struct genl_family *family,
		       u8 cmd, size_t size, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Whether the sender of @skb may steer the module or see other users'
 * activity: CAP_SYS_ADMIN in the initial user namespace, held both by
 * whoever opened the socket and by the task sending (netlink_capable()).
 * The families' GENL_ADMIN_PERM only asks for CAP_NET_ADMIN, which
 * network daemons and host-network containers hold routinely. 0, or
 * -EPERM with an extended ACK.
 */
static inline int ftagent_genl_admin(const struct sk_buff *skb,
				     struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "needs CAP_SYS_ADMIN in the initial user namespace");
	return -EPERM;
}

/* genl_ctl.c: the control family (CAP_SYS_ADMIN only). */
int ftagent_genl_ctl_register(void);
void ftagent_genl_ctl_unregister(void);
/*
 * Multicast a loss alert: @n counts by enum ftagent_event_loss since the
 * previous alert, @total since load. 0 if sent (or nobody listens).
 */
int ftagent_genl_loss_alert(const u64 *lost, unsigned int n, u64 total);
/* Multicast a verdict alert: @n counts by enum ftagent_verdict. */
int ftagent_genl_verdict_alert(const u64 *counts, unsigned int n);

/* genl_stats.c: the statistics family. */
int ftagent_genl_stats_register(void);
void ftagent_genl_stats_unregister(void);

#endif /* _FTAGENT_H */
