// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics family: version now, counter dumps and resources later.
 *
 * GET_VERSION is open to every user, so a client can check that it speaks
 * the module's ABI before it asks for privileges. The family leaves
 * resv_start_op at zero: every command is validated strictly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "ftagent.h"

static struct genl_family ftagent_stats_family;

static int ftagent_stats_get_version(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &ftagent_stats_family, 0,
				FTAGENT_STATS_CMD_GET_VERSION);
	if (!hdr)
		goto err_size;

	if (nla_put_u32(msg, FTAGENT_STATS_A_ABI_MAJOR, FTAGENT_ABI_MAJOR) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_ABI_MINOR, FTAGENT_ABI_MINOR) ||
	    nla_put_string(msg, FTAGENT_STATS_A_MODULE_VERSION,
			   FTAGENT_MODULE_VERSION))
		goto err_size;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_size:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "version reply does not fit a message");
	return -EMSGSIZE;
}

/* One policy per command; this one refuses every attribute, saying why. */
static const struct nla_policy ftagent_stats_no_attrs_policy[FTAGENT_STATS_A_MAX + 1] = {
	[FTAGENT_STATS_A_ABI_MAJOR ... FTAGENT_STATS_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "GET_VERSION takes no attributes",
	},
};

static const struct genl_ops ftagent_stats_ops[] = {
	{
		.cmd = FTAGENT_STATS_CMD_GET_VERSION,
		.policy = ftagent_stats_no_attrs_policy,
		.maxattr = FTAGENT_STATS_A_MAX,
		.doit = ftagent_stats_get_version,
	},
};

static struct genl_family ftagent_stats_family __ro_after_init = {
	.name = FTAGENT_GENL_STATS_NAME,
	.version = FTAGENT_GENL_STATS_VERSION,
	.maxattr = FTAGENT_STATS_A_MAX,
	.module = THIS_MODULE,
	.ops = ftagent_stats_ops,
	.n_ops = ARRAY_SIZE(ftagent_stats_ops),
	.parallel_ops = true,
};

int __init ftagent_genl_stats_register(void)
{
	return genl_register_family(&ftagent_stats_family);
}

void ftagent_genl_stats_unregister(void)
{
	genl_unregister_family(&ftagent_stats_family);
}
