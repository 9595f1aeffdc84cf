// SPDX-License-Identifier: GPL-2.0
/*
 * The control family: status, configuration and counter generations.
 *
 * Every operation carries GENL_ADMIN_PERM, so the genetlink core refuses
 * callers without CAP_NET_ADMIN (EPERM) before any handler runs. The family
 * leaves resv_start_op at zero, so every command is validated strictly:
 * unknown attributes, wrong types and reserved header bits get EINVAL and
 * an extended ACK. Ranges live in the policies, not in the handlers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "config.h"
#include "counters.h"
#include "ftagent.h"
#include "hooks.h"

static struct genl_family ftagent_ctl_family;

static int ftagent_ctl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	const struct ftagent_config *cfg;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = ftagent_genl_reply_new(info, &ftagent_ctl_family,
				     FTAGENT_CTL_CMD_GET_STATUS,
				     NLMSG_DEFAULT_SIZE, &hdr);
	if (!msg)
		return -ENOMEM;

	ftagent_config_lock();
	cfg = ftagent_config_get();
	err = nla_put_u32(msg, FTAGENT_CTL_A_ABI_MAJOR, FTAGENT_ABI_MAJOR) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_ABI_MINOR, FTAGENT_ABI_MINOR) ||
	      nla_put_string(msg, FTAGENT_CTL_A_MODULE_VERSION,
			     FTAGENT_MODULE_VERSION) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_STATE, ftagent_hooks_state()) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_MODE, cfg->mode) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_HOOKS, cfg->hooks) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_FLUSH_INTERVAL_MS,
			  cfg->flush_interval_ms);
	ftagent_config_unlock();
	if (err) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG(info->extack, "status reply does not fit a message");
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int ftagent_ctl_set_config(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct ftagent_config next;
	int err;

	if (!tb[FTAGENT_CTL_A_MODE] && !tb[FTAGENT_CTL_A_HOOKS] &&
	    !tb[FTAGENT_CTL_A_FLUSH_INTERVAL_MS]) {
		NL_SET_ERR_MSG(info->extack,
			       "SET_CONFIG needs MODE, HOOKS or FLUSH_INTERVAL_MS");
		return -EINVAL;
	}
	ftagent_config_lock();
	next = *ftagent_config_get();
	if (tb[FTAGENT_CTL_A_MODE])
		next.mode = nla_get_u32(tb[FTAGENT_CTL_A_MODE]);
	if (tb[FTAGENT_CTL_A_HOOKS])
		next.hooks = nla_get_u32(tb[FTAGENT_CTL_A_HOOKS]);
	if (tb[FTAGENT_CTL_A_FLUSH_INTERVAL_MS])
		next.flush_interval_ms =
			nla_get_u32(tb[FTAGENT_CTL_A_FLUSH_INTERVAL_MS]);
	err = ftagent_config_apply(&next, info->extack);
	ftagent_config_unlock();
	return err;
}

static int ftagent_ctl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	u64 idle_seq;
	void *hdr;
	int err;

	err = ftagent_counters_flush(&idle_seq);
	if (err == -EBUSY) {
		NL_SET_ERR_MSG(info->extack,
			       "the idle generation is not acknowledged yet");
		return err;
	}
	msg = ftagent_genl_reply_new(info, &ftagent_ctl_family,
				     FTAGENT_CTL_CMD_FLUSH, NLMSG_DEFAULT_SIZE,
				     &hdr);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u64_64bit(msg, FTAGENT_CTL_A_GEN_SEQ, idle_seq,
			      FTAGENT_CTL_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int ftagent_ctl_ack_generation(struct sk_buff *skb,
				      struct genl_info *info)
{
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FTAGENT_CTL_A_GEN_SEQ))
		return -EINVAL;
	err = ftagent_counters_ack(nla_get_u64(info->attrs[FTAGENT_CTL_A_GEN_SEQ]));
	if (err == -ESTALE)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[FTAGENT_CTL_A_GEN_SEQ],
				    "not the idle generation, or already acknowledged");
	return err;
}

/* One policy per command; those taking nothing refuse every attribute. */
static const struct nla_policy ftagent_ctl_no_attrs_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_ABI_MAJOR ... FTAGENT_CTL_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "this command takes no attributes",
	},
};

/*
 * Value checks in the policy. A range policy would answer ERANGE; a bad
 * value is a malformed request (EINVAL), and the message says what fits.
 */
static bool ftagent_u32_in(const struct nlattr *attr, u32 min, u32 max)
{
	u32 v = nla_get_u32(attr);

	return v >= min && v <= max;
}

static int ftagent_check_mode(const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	if (ftagent_u32_in(attr, FTAGENT_MODE_MINIMAL, FTAGENT_MODE_STANDARD))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "MODE must be 1 (minimal) or 2 (standard)");
	return -EINVAL;
}

static int ftagent_check_hooks(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (ftagent_u32_in(attr, FTAGENT_HOOKS_FTRACE, FTAGENT_HOOKS_KPROBE))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "HOOKS must be 1 (ftrace) or 2 (kprobe)");
	return -EINVAL;
}

static int ftagent_check_interval(const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (ftagent_u32_in(attr, 0, FTAGENT_FLUSH_INTERVAL_MAX_MS))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "FLUSH_INTERVAL_MS must be 0..60000");
	return -EINVAL;
}

static const struct nla_policy ftagent_ctl_set_config_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_MODE] = NLA_POLICY_VALIDATE_FN(NLA_U32,
						      ftagent_check_mode),
	[FTAGENT_CTL_A_HOOKS] = NLA_POLICY_VALIDATE_FN(NLA_U32,
						       ftagent_check_hooks),
	[FTAGENT_CTL_A_FLUSH_INTERVAL_MS] =
		NLA_POLICY_VALIDATE_FN(NLA_U32, ftagent_check_interval),
};

static const struct nla_policy ftagent_ctl_ack_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_GEN_SEQ] = { .type = NLA_U64 },
};

static const struct genl_ops ftagent_ctl_ops[] = {
	{
		.cmd = FTAGENT_CTL_CMD_GET_STATUS,
		.doit = ftagent_ctl_get_status,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_SET_CONFIG,
		.doit = ftagent_ctl_set_config,
		.policy = ftagent_ctl_set_config_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_FLUSH,
		.doit = ftagent_ctl_flush,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_ACK_GENERATION,
		.doit = ftagent_ctl_ack_generation,
		.policy = ftagent_ctl_ack_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
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
