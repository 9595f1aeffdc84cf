// SPDX-License-Identifier: GPL-2.0
/*
 * The control family: status now, configuration and rules later.
 *
 * Every operation carries GENL_ADMIN_PERM, so the genetlink core refuses
 * callers without CAP_NET_ADMIN (EPERM) before any handler runs. The family
 * leaves resv_start_op at zero, so every command is validated strictly:
 * unknown attributes, wrong types and reserved header bits get EINVAL and
 * an extended ACK.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "ftagent.h"

static struct genl_family ftagent_ctl_family;

static int ftagent_ctl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &ftagent_ctl_family, 0,
				FTAGENT_CTL_CMD_GET_STATUS);
	if (!hdr)
		goto err_size;

	if (nla_put_u32(msg, FTAGENT_CTL_A_ABI_MAJOR, FTAGENT_ABI_MAJOR) ||
	    nla_put_u32(msg, FTAGENT_CTL_A_ABI_MINOR, FTAGENT_ABI_MINOR) ||
	    nla_put_string(msg, FTAGENT_CTL_A_MODULE_VERSION,
			   FTAGENT_MODULE_VERSION) ||
	    nla_put_u32(msg, FTAGENT_CTL_A_STATE, ftagent_state()))
		goto err_size;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_size:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "status reply does not fit a message");
	return -EMSGSIZE;
}

/* One policy per command; this one refuses every attribute, saying why. */
static const struct nla_policy ftagent_ctl_no_attrs_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_ABI_MAJOR ... FTAGENT_CTL_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "GET_STATUS takes no attributes",
	},
};

static const struct genl_ops ftagent_ctl_ops[] = {
	{
		.cmd = FTAGENT_CTL_CMD_GET_STATUS,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.doit = ftagent_ctl_get_status,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family ftagent_ctl_family __ro_after_init = {
	.name = FTAGENT_GENL_CTL_NAME,
	.version = FTAGENT_GENL_CTL_VERSION,
	.maxattr = FTAGENT_CTL_A_MAX,
	.module = THIS_MODULE,
	.ops = ftagent_ctl_ops,
	.n_ops = ARRAY_SIZE(ftagent_ctl_ops),
	.parallel_ops = true,
};

int __init ftagent_genl_ctl_register(void)
{
	return genl_register_family(&ftagent_ctl_family);
}

void ftagent_genl_ctl_unregister(void)
{
	genl_unregister_family(&ftagent_ctl_family);
}
