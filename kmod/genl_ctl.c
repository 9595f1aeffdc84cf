// SPDX-License-Identifier: GPL-2.0
/*
 * The control family: status, configuration and counter generations.
 *
 * Every operation needs CAP_SYS_ADMIN in the initial user namespace: each
 * carries GENL_ADMIN_PERM, so the genetlink core refuses callers without
 * CAP_NET_ADMIN before parsing, and each handler (or a dump's start)
 * checks CAP_SYS_ADMIN first, before it looks at or changes anything
 * (ftagent_genl_admin()). The alerts group needs CAP_SYS_ADMIN to join
 * (GENL_MCAST_CAP_SYS_ADMIN, which genl_bind() checks). The family
 * leaves resv_start_op at zero, so every command is validated strictly:
 * unknown attributes, wrong types and reserved header bits get EINVAL and
 * an extended ACK. Types and lengths live in the policies; the values
 * the policies cannot check safely, ftagent_ctl_check_values() checks
 * first thing in each handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "compat/net.h"
#include "config.h"
#include "counters.h"
#include "events.h"
#include "budget.h"
#include "filters.h"
#include "policy.h"
#include "ftagent.h"
#include "hooks.h"
#include "symbols.h"
#include "usersock.h"

static struct genl_family ftagent_ctl_family;
static int ftagent_ctl_check_values(struct nlattr **tb,
				    struct netlink_ext_ack *extack);

/* Alerts go out only while the family is registered. */
static DEFINE_MUTEX(ftagent_alerts_lock);
static bool ftagent_alerts_on;

static int ftagent_ctl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	const struct ftagent_config *cfg;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
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
			  cfg->flush_interval_ms) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_RING_BUFFER_SIZE,
			  ftagent_config_ring_bytes(cfg)) ||
	      nla_put_u32(msg, FTAGENT_CTL_A_DEGRADED,
			  (u32)READ_ONCE(ftagent_degraded)) ||
	      ftagent_symbols_put_missing(msg, FTAGENT_CTL_A_MISSING,
					  FTAGENT_CTL_A_NAME) ||
	      nla_put_u8(msg, FTAGENT_CTL_A_DIRECT_CALLS,
			 cfg->hooks == FTAGENT_HOOKS_FTRACE &&
			 ftagent_ftrace_direct_on()) ||
	      nla_put_u8(msg, FTAGENT_CTL_A_EXIT_WORK,
			 cfg->hooks == FTAGENT_HOOKS_FTRACE &&
			 ftagent_ftrace_exit_work_on()) ||
	      nla_put_u64_64bit(msg, FTAGENT_CTL_A_ACCEPTS_REFUSED,
				ftagent_usersock_refused(), FTAGENT_CTL_A_PAD);
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

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	err = ftagent_ctl_check_values(tb, info->extack);
	if (err)
		return err;
	if (!tb[FTAGENT_CTL_A_MODE] && !tb[FTAGENT_CTL_A_HOOKS] &&
	    !tb[FTAGENT_CTL_A_FLUSH_INTERVAL_MS] &&
	    !tb[FTAGENT_CTL_A_RING_BUFFER_SIZE]) {
		NL_SET_ERR_MSG(info->extack,
			       "SET_CONFIG needs MODE, HOOKS, FLUSH_INTERVAL_MS or RING_BUFFER_SIZE");
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
	if (tb[FTAGENT_CTL_A_RING_BUFFER_SIZE])
		next.ring_buffer_size =
			nla_get_u32(tb[FTAGENT_CTL_A_RING_BUFFER_SIZE]);
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

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	/* The reply first: a swap must not be answered with an error. */
	msg = ftagent_genl_reply_new(info, &ftagent_ctl_family,
				     FTAGENT_CTL_CMD_FLUSH, NLMSG_DEFAULT_SIZE,
				     &hdr);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		return -ENOMEM;
	}
	err = ftagent_counters_flush(&idle_seq);
	if (err == -EBUSY) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG(info->extack,
			       "the idle generation is not acknowledged yet");
		return err;
	}
	if (nla_put_u64_64bit(msg, FTAGENT_CTL_A_GEN_SEQ, idle_seq,
			      FTAGENT_CTL_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	/* The swap is made: a lost reply must not be an error ACK for it. */
	genlmsg_reply(msg, info);
	return 0;
}

static int ftagent_ctl_ack_generation(struct sk_buff *skb,
				      struct genl_info *info)
{
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	/* MISS_TYPE names the attribute; the message is for people. */
	if (GENL_REQ_ATTR_CHECK(info, FTAGENT_CTL_A_GEN_SEQ)) {
		NL_SET_ERR_MSG(info->extack, "ACK_GENERATION needs GEN_SEQ");
		return -EINVAL;
	}
	err = ftagent_counters_ack(nla_get_u64(info->attrs[FTAGENT_CTL_A_GEN_SEQ]));
	if (err == -ESTALE)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[FTAGENT_CTL_A_GEN_SEQ],
				    "not the idle generation, or already acknowledged");
	return err;
}

static const struct {
	int attr;
	u32 bit;
} ftagent_toggles[] = {
	{ FTAGENT_CTL_A_NET_TCP, FTAGENT_TRACK_TCP },
	{ FTAGENT_CTL_A_NET_UDP, FTAGENT_TRACK_UDP },
	{ FTAGENT_CTL_A_NET_IPV4, FTAGENT_TRACK_IPV4 },
	{ FTAGENT_CTL_A_NET_IPV6, FTAGENT_TRACK_IPV6 },
	{ FTAGENT_CTL_A_FILE_TRACK_READ, FTAGENT_TRACK_READ },
	{ FTAGENT_CTL_A_FILE_TRACK_SENDFILE, FTAGENT_TRACK_SENDFILE },
};

/*
 * The length of a NAME entry's text, without a final NUL; 0 (refused as
 * empty) if a NUL sits inside it, which would silently cut the name.
 */
static size_t ftagent_name_len(const struct nlattr *a)
{
	size_t n = nla_len(a), len = strnlen(nla_data(a), n);

	if (len + 1 < n)
		return 0;
	return len;
}

static int ftagent_parse_comms(struct ftagent_filters *f,
			       const struct nlattr *nest,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	unsigned int n = 0;
	size_t len;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		len = ftagent_name_len(a);
		if (!len || len >= FTAGENT_COMM_LEN) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "a process name is 1 to 15 bytes, no NUL inside");
			return -EINVAL;
		}
		if (n == FTAGENT_EXCLUDE_PROCESSES_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "at most 64 exclude_processes");
			return -EINVAL;
		}
		memset(f->comms[n], 0, FTAGENT_COMM_LEN);
		memcpy(f->comms[n++], nla_data(a), len);
	}
	f->n_comms = n;
	return 0;
}

static int ftagent_parse_paths(struct ftagent_filters *f,
			       const struct nlattr *nest,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	size_t len, blob = 0, nest_len = 0;
	unsigned int n = 0;
	char *p;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		len = ftagent_name_len(a);
		if (!len || len > FTAGENT_EXCLUDE_PATH_LEN_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "a path prefix is 1 to 1024 bytes, no NUL inside");
			return -EINVAL;
		}
		if (n++ == FTAGENT_EXCLUDE_PATHS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "at most 64 exclude_paths");
			return -EINVAL;
		}
		blob += len + 1;
		/* What GET_FILTERS will send back must fit its nest. */
		nest_len += nla_total_size(len + 1);
		if (nest_len > FTAGENT_EXCLUDE_PATHS_NEST_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "exclude_paths together exceed one netlink nest (FTAGENT_EXCLUDE_PATHS_NEST_MAX)");
			return -EINVAL;
		}
	}
	kfree(f->path_blob);
	f->path_blob = blob ? kmalloc(blob, GFP_KERNEL) : NULL;
	f->n_paths = 0;
	if (blob && !f->path_blob) {
		NL_SET_ERR_MSG(extack, "no memory for exclude_paths");
		return -ENOMEM;
	}
	p = f->path_blob;
	nla_for_each_nested(a, nest, rem) {
		len = ftagent_name_len(a);
		memcpy(p, nla_data(a), len);
		p[len] = '\0';
		f->paths[f->n_paths] = p;
		f->path_len[f->n_paths++] = len;
		p += len + 1;
	}
	return 0;
}

static int ftagent_ctl_set_filters(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct ftagent_filters *f;
	bool any = false;
	unsigned int i;
	int err = 0;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	err = ftagent_ctl_check_values(tb, info->extack);
	if (err)
		return err;
	ftagent_config_lock();
	f = ftagent_filters_copy();
	if (!f) {
		NL_SET_ERR_MSG(info->extack, "no memory to copy the filters");
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(ftagent_toggles); i++) {
		const struct nlattr *a = tb[ftagent_toggles[i].attr];

		if (!a)
			continue;
		any = true;
		if (nla_get_u8(a))
			f->flags |= ftagent_toggles[i].bit;
		else
			f->flags &= ~ftagent_toggles[i].bit;
	}
	if (tb[FTAGENT_CTL_A_EXCLUDE_PROCESSES]) {
		any = true;
		err = ftagent_parse_comms(f, tb[FTAGENT_CTL_A_EXCLUDE_PROCESSES],
					  info->extack);
	}
	if (!err && tb[FTAGENT_CTL_A_EXCLUDE_PATHS]) {
		any = true;
		err = ftagent_parse_paths(f, tb[FTAGENT_CTL_A_EXCLUDE_PATHS],
					  info->extack);
	}
	if (!err && !any) {
		NL_SET_ERR_MSG(info->extack,
			       "SET_FILTERS needs a toggle, EXCLUDE_PROCESSES or EXCLUDE_PATHS");
		err = -EINVAL;
	}
	if (err) {
		ftagent_filters_free(f);
		goto out;
	}
	err = ftagent_filters_replace(f);
	if (err)
		NL_SET_ERR_MSG(info->extack, "no memory to rebuild the exclusions");
out:
	ftagent_config_unlock();
	return err;
}

/*
 * EXCLUDE_SELF: the caller's process, for as long as the socket that
 * asked stays open (filters.c; the release is seen by the notifier below).
 * A doit runs in the sending task, so current is the caller.
 */
static int ftagent_ctl_exclude_self(struct sk_buff *skb,
				    struct genl_info *info)
{
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	ftagent_config_lock();
	err = ftagent_filters_exclude_self(task_tgid(current),
					   genl_info_net(info),
					   info->snd_portid,
					   NETLINK_CB(skb).sk);
	ftagent_config_unlock();
	if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack,
			       "this socket holds another process's exclusion");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG(info->extack,
			       "FTAGENT_EXCLUDE_SELF_MAX sockets hold an exclusion");
	else if (err == -EAGAIN)
		NL_SET_ERR_MSG(info->extack,
			       "a closed socket with this port id is still being released; try again");
	else if (err)
		NL_SET_ERR_MSG(info->extack, "no memory to rebuild the exclusions");
	return err;
}

/* A netlink socket is released: the exclusion it holds, if any, ends. */
static int ftagent_ctl_netlink_event(struct notifier_block *nb,
				     unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !ftagent_filters_may_hold(n->net, n->portid))
		return NOTIFY_DONE;
	ftagent_config_lock();
	ftagent_filters_socket_released(n->net, n->portid);
	ftagent_config_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block ftagent_ctl_netlink_nb = {
	.notifier_call = ftagent_ctl_netlink_event,
};

static int ftagent_put_filters(struct sk_buff *msg,
			       const struct ftagent_filters *f)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_toggles); i++)
		if (nla_put_u8(msg, ftagent_toggles[i].attr,
			       !!(f->flags & ftagent_toggles[i].bit)))
			return -EMSGSIZE;
	nest = nla_nest_start(msg, FTAGENT_CTL_A_EXCLUDE_PROCESSES);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < f->n_comms; i++)
		if (nla_put_string(msg, FTAGENT_CTL_A_NAME, f->comms[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, FTAGENT_CTL_A_EXCLUDE_PATHS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < f->n_paths; i++)
		if (nla_put_string(msg, FTAGENT_CTL_A_NAME, f->paths[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int ftagent_ctl_get_filters(struct sk_buff *skb, struct genl_info *info)
{
	struct ftagent_filters *f;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	ftagent_config_lock();
	f = ftagent_filters_copy();
	ftagent_config_unlock();
	if (!f)
		return -ENOMEM;
	/* 64 paths of 1 KiB and 64 names fit in 80 KiB. */
	msg = ftagent_genl_reply_new(info, &ftagent_ctl_family,
				     FTAGENT_CTL_CMD_GET_FILTERS, 80 << 10, &hdr);
	if (!msg) {
		ftagent_filters_free(f);
		return -ENOMEM;
	}
	err = ftagent_put_filters(msg, f);
	ftagent_filters_free(f);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The reply to SET_POLICY and SET_BUDGETS, the generation now in force:
 * allocated before the set is installed, so an installed set is never
 * answered with an error, and sent after.
 */
static struct sk_buff *ftagent_ctl_generation_new(struct genl_info *info,
						  u8 cmd, void **hdr)
{
	struct sk_buff *msg;

	msg = ftagent_genl_reply_new(info, &ftagent_ctl_family, cmd,
				     NLMSG_DEFAULT_SIZE, hdr);
	if (!msg)
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
	return msg;
}

static int ftagent_ctl_generation_send(struct genl_info *info,
				       struct sk_buff *msg, void *hdr,
				       u64 generation)
{
	if (nla_put_u64_64bit(msg, FTAGENT_CTL_A_POLICY_GENERATION, generation,
			      FTAGENT_CTL_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	/*
	 * The set is in force: a reply lost to a full receive buffer must
	 * not turn into an error ACK for a change that took effect.
	 */
	genlmsg_reply(msg, info);
	return 0;
}

/* A set the gate's hooks could not be attached for: say why. */
static void ftagent_gate_hook_msg(struct netlink_ext_ack *extack, int err)
{
	if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG(extack,
			       "this kernel lacks a function the set needs (GET_STATUS MISSING)");
	else if (err == -ENOMEM)
		NL_SET_ERR_MSG(extack,
			       "no memory to hook the gate's security functions");
	else
		NL_SET_ERR_MSG(extack,
			       "cannot hook the gate's security functions (livepatched?)");
}

static int ftagent_ctl_set_policy(struct sk_buff *skb, struct genl_info *info)
{
	struct ftagent_ruleset *set;
	struct sk_buff *msg;
	u64 generation;
	void *hdr;
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	err = ftagent_ctl_check_values(info->attrs, info->extack);
	if (err)
		return err;
	set = ftagent_policy_parse(info->attrs,
				   nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
				   nlmsg_attrlen(info->nlhdr, GENL_HDRLEN),
				   info->extack);
	if (IS_ERR(set)) {
		if (PTR_ERR(set) == -ENOMEM)
			NL_SET_ERR_MSG(info->extack, "no memory for the rule set");
		return PTR_ERR(set);
	}
	/* No rule and the default allow: nothing to decide, no gate. */
	if (!set->n && set->default_action == FTAGENT_ACTION_ALLOW &&
	    set->enforce) {
		ftagent_policy_free(set);
		set = NULL;
	}
	msg = ftagent_ctl_generation_new(info, FTAGENT_CTL_CMD_SET_POLICY, &hdr);
	if (!msg) {
		ftagent_policy_free(set);
		return -ENOMEM;
	}
	ftagent_config_lock();
	err = ftagent_policy_install(set);
	generation = ftagent_policy_generation();
	ftagent_config_unlock();
	if (err) {
		nlmsg_free(msg);
		ftagent_policy_free(set);
		ftagent_gate_hook_msg(info->extack, err);
		return err;
	}
	return ftagent_ctl_generation_send(info, msg, hdr, generation);
}

/*
 * GET_POLICY dump: cb->args[0] is the next rule (0: the header message
 * first), cb->seq the generation, so a set swapped mid-dump flags
 * NLM_F_DUMP_INTR and the caller dumps again.
 */
/* Dumps check the caller once, before the first message. */
static int ftagent_ctl_dump_start(struct netlink_callback *cb)
{
	return ftagent_genl_admin(cb->skb, cb->extack);
}

static int ftagent_ctl_get_policy(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	const struct ftagent_ruleset *set;
	long next = cb->args[0];
	void *hdr;
	int err = 0;

	ftagent_config_lock();
	set = rcu_dereference_protected(ftagent_policy, true);
	cb->seq = ftagent_policy_generation() + 1;
	for (;;) {
		if (next > 0 && (!set || next > set->n))
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ftagent_ctl_family,
				  NLM_F_MULTI, FTAGENT_CTL_CMD_GET_POLICY);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		if (next == 0)
			err = nla_put_u64_64bit(skb,
						FTAGENT_CTL_A_POLICY_GENERATION,
						ftagent_policy_generation(),
						FTAGENT_CTL_A_PAD) ||
			      nla_put_u8(skb, FTAGENT_CTL_A_POLICY_ENFORCE,
					 set ? set->enforce : 1) ||
			      nla_put_u32(skb, FTAGENT_CTL_A_POLICY_DEFAULT,
					  set ? set->default_action :
						FTAGENT_ACTION_ALLOW) ||
			      nla_put_u64_64bit(skb,
						FTAGENT_CTL_A_POLICY_DEFAULT_HITS,
						set ? ftagent_policy_hits(set,
									  set->n) :
						      0,
						FTAGENT_CTL_A_PAD) ?
				      -EMSGSIZE :
				      0;
		else
			err = ftagent_policy_put_rule(skb, set, next - 1);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		next++;
	}
	ftagent_config_unlock();
	cb->args[0] = next;
	/* A full message: come back for the rest; else the dump is done. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int ftagent_ctl_set_budgets(struct sk_buff *skb, struct genl_info *info)
{
	struct ftagent_budgetset *set;
	struct sk_buff *msg;
	u64 generation;
	void *hdr;
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	set = ftagent_budgets_parse(nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
				    nlmsg_attrlen(info->nlhdr, GENL_HDRLEN),
				    info->extack);
	if (IS_ERR(set)) {
		if (PTR_ERR(set) == -ENOMEM)
			NL_SET_ERR_MSG(info->extack,
				       "no memory for the budget set");
		return PTR_ERR(set);
	}
	if (!set->n) {
		ftagent_budgets_free(set);
		set = NULL;
	}
	msg = ftagent_ctl_generation_new(info, FTAGENT_CTL_CMD_SET_BUDGETS,
					 &hdr);
	if (!msg) {
		ftagent_budgets_free(set);
		return -ENOMEM;
	}
	ftagent_config_lock();
	err = ftagent_budgets_install(set);
	generation = ftagent_budgets_generation();
	ftagent_config_unlock();
	if (err) {
		nlmsg_free(msg);
		ftagent_budgets_free(set);
		ftagent_gate_hook_msg(info->extack, err);
		return err;
	}
	return ftagent_ctl_generation_send(info, msg, hdr, generation);
}

/* GET_BUDGETS dump: cb->args[0] is the next budget; cb->seq the set. */
static int ftagent_ctl_get_budgets(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	const struct ftagent_budgetset *set;
	long next = cb->args[0];
	void *hdr;
	int err = 0;

	ftagent_config_lock();
	set = rcu_dereference_protected(ftagent_budgets, true);
	cb->seq = ftagent_budgets_generation() + 1;
	while (set && next < set->n) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ftagent_ctl_family,
				  NLM_F_MULTI, FTAGENT_CTL_CMD_GET_BUDGETS);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		err = ftagent_budget_put(skb, set, next);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		next++;
	}
	ftagent_config_unlock();
	cb->args[0] = next;
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* One policy per command; those taking nothing refuse every attribute. */
static const struct nla_policy ftagent_ctl_no_attrs_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_ABI_MAJOR ... FTAGENT_CTL_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "this command takes no attributes",
	},
};

/*
 * Value checks, run by the handlers before they change anything. A range
 * policy would answer ERANGE; a bad value is a malformed request (EINVAL),
 * and the message says what fits. Not NLA_POLICY_VALIDATE_FN: on an
 * integer of the wrong length the core puts the attribute's policy in the
 * ACK, and 6.1's nla_get_range_unsigned() reads a validation function's
 * pointer through the range's min and max union and WARNs (a crash under
 * panic_on_warn, reachable before the CAP_SYS_ADMIN check).
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

static int ftagent_check_ring(const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	const char *why;
	u32 v = nla_get_u32(attr);

	why = v ? ftagent_events_size_invalid(v) : NULL;
	if (!why)
		return 0;
	/* The macros want a literal; @why is one of events.c's literals. */
	if (extack) {
		extack->_msg = why;
		extack->bad_attr = attr;
	}
	return -EINVAL;
}

static int ftagent_check_action(const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (ftagent_u32_in(attr, 0, __FTAGENT_ACTION_MAX - 1))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "POLICY_DEFAULT must be 0 (allow), 1 (deny) or 2 (audit)");
	return -EINVAL;
}

static int ftagent_check_bool(const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	if (nla_get_u8(attr) <= 1)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "a toggle is 0 (off) or 1 (on)");
	return -EINVAL;
}

static const struct {
	int attr;
	int (*check)(const struct nlattr *attr, struct netlink_ext_ack *extack);
} ftagent_ctl_checks[] = {
	{ FTAGENT_CTL_A_MODE, ftagent_check_mode },
	{ FTAGENT_CTL_A_HOOKS, ftagent_check_hooks },
	{ FTAGENT_CTL_A_FLUSH_INTERVAL_MS, ftagent_check_interval },
	{ FTAGENT_CTL_A_RING_BUFFER_SIZE, ftagent_check_ring },
	{ FTAGENT_CTL_A_NET_TCP, ftagent_check_bool },
	{ FTAGENT_CTL_A_NET_UDP, ftagent_check_bool },
	{ FTAGENT_CTL_A_NET_IPV4, ftagent_check_bool },
	{ FTAGENT_CTL_A_NET_IPV6, ftagent_check_bool },
	{ FTAGENT_CTL_A_FILE_TRACK_READ, ftagent_check_bool },
	{ FTAGENT_CTL_A_FILE_TRACK_SENDFILE, ftagent_check_bool },
	{ FTAGENT_CTL_A_POLICY_ENFORCE, ftagent_check_bool },
	{ FTAGENT_CTL_A_POLICY_DEFAULT, ftagent_check_action },
};

/* @tb holds only what the command's policy lets through. */
static int ftagent_ctl_check_values(struct nlattr **tb,
				    struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ftagent_ctl_checks); i++) {
		a = tb[ftagent_ctl_checks[i].attr];
		if (!a)
			continue;
		err = ftagent_ctl_checks[i].check(a, extack);
		if (err)
			return err;
	}
	return 0;
}

static const struct nla_policy ftagent_ctl_name_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_NAME] = { .type = NLA_STRING },
};

static const struct nla_policy ftagent_ctl_set_filters_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_NET_TCP ... FTAGENT_CTL_A_FILE_TRACK_SENDFILE] = {
		.type = NLA_U8 },
	[FTAGENT_CTL_A_EXCLUDE_PROCESSES] =
		NLA_POLICY_NESTED(ftagent_ctl_name_policy),
	[FTAGENT_CTL_A_EXCLUDE_PATHS] =
		NLA_POLICY_NESTED(ftagent_ctl_name_policy),
};

static const struct nla_policy ftagent_ctl_set_config_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_RING_BUFFER_SIZE] = { .type = NLA_U32 },
	[FTAGENT_CTL_A_MODE] = { .type = NLA_U32 },
	[FTAGENT_CTL_A_HOOKS] = { .type = NLA_U32 },
	[FTAGENT_CTL_A_FLUSH_INTERVAL_MS] = { .type = NLA_U32 },
};

static const struct nla_policy ftagent_ctl_set_policy_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_POLICY_ENFORCE] = { .type = NLA_U8 },
	[FTAGENT_CTL_A_POLICY_DEFAULT] = { .type = NLA_U32 },
	[FTAGENT_CTL_A_POLICY_RULE] = { .type = NLA_NESTED },
};

static const struct nla_policy ftagent_ctl_set_budgets_policy[FTAGENT_CTL_A_MAX + 1] = {
	[FTAGENT_CTL_A_BUDGET] = { .type = NLA_NESTED },
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
	{
		.cmd = FTAGENT_CTL_CMD_SET_FILTERS,
		.doit = ftagent_ctl_set_filters,
		.policy = ftagent_ctl_set_filters_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_GET_FILTERS,
		.doit = ftagent_ctl_get_filters,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_SET_POLICY,
		.doit = ftagent_ctl_set_policy,
		.policy = ftagent_ctl_set_policy_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_GET_POLICY,
		.start = ftagent_ctl_dump_start,
		.dumpit = ftagent_ctl_get_policy,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_SET_BUDGETS,
		.doit = ftagent_ctl_set_budgets,
		.policy = ftagent_ctl_set_budgets_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_GET_BUDGETS,
		.start = ftagent_ctl_dump_start,
		.dumpit = ftagent_ctl_get_budgets,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_CTL_CMD_EXCLUDE_SELF,
		.doit = ftagent_ctl_exclude_self,
		.policy = ftagent_ctl_no_attrs_policy,
		.maxattr = FTAGENT_CTL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group ftagent_ctl_mcgrps[] = {
	{ .name = FTAGENT_GENL_ALERTS_GROUP, .flags = GENL_MCAST_CAP_SYS_ADMIN },
};

static struct genl_family ftagent_ctl_family __ro_after_init = {
	.name = FTAGENT_GENL_CTL_NAME,
	.version = FTAGENT_GENL_CTL_VERSION,
	.maxattr = FTAGENT_CTL_A_MAX,
	.module = THIS_MODULE,
	.ops = ftagent_ctl_ops,
	.n_ops = ARRAY_SIZE(ftagent_ctl_ops),
	.mcgrps = ftagent_ctl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ftagent_ctl_mcgrps),
	.parallel_ops = true,
};

static int ftagent_put_loss_alert(struct sk_buff *msg, const u64 *lost,
				  unsigned int n, u64 total)
{
	struct nlattr *nest;
	unsigned int k;

	if (nla_put_u32(msg, FTAGENT_CTL_A_ALERT_KIND,
			FTAGENT_ALERT_EVENT_LOSS) ||
	    nla_put_u64_64bit(msg, FTAGENT_CTL_A_EV_LOST_TOTAL, total,
			      FTAGENT_CTL_A_PAD))
		return -EMSGSIZE;
	nest = nla_nest_start(msg, FTAGENT_CTL_A_EV_LOST);
	if (!nest)
		return -EMSGSIZE;
	for (k = 0; k < n; k++)
		if (nla_put_u64_64bit(msg, k + 1, lost[k], FTAGENT_CTL_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int ftagent_genl_loss_alert(const u64 *lost, unsigned int n, u64 total)
{
	struct sk_buff *msg;
	void *hdr;
	int err = -ESRCH;

	mutex_lock(&ftagent_alerts_lock);
	if (!ftagent_alerts_on ||
	    !genl_has_listeners(&ftagent_ctl_family, &init_net, 0))
		goto out;	/* kept for the first alert someone hears */
	err = -ENOMEM;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put(msg, 0, 0, &ftagent_ctl_family, 0,
			  FTAGENT_CTL_CMD_ALERT);
	if (!hdr || ftagent_put_loss_alert(msg, lost, n, total)) {
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_multicast(&ftagent_ctl_family, msg, 0, 0, GFP_KERNEL);
out:
	mutex_unlock(&ftagent_alerts_lock);
	return err;
}

int ftagent_genl_verdict_alert(const u64 *counts, unsigned int n)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	unsigned int k;
	void *hdr;
	int err = -ESRCH;

	mutex_lock(&ftagent_alerts_lock);
	if (!ftagent_alerts_on ||
	    !genl_has_listeners(&ftagent_ctl_family, &init_net, 0))
		goto out;
	err = -ENOMEM;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	err = -EMSGSIZE;
	hdr = genlmsg_put(msg, 0, 0, &ftagent_ctl_family, 0,
			  FTAGENT_CTL_CMD_ALERT);
	if (!hdr || nla_put_u32(msg, FTAGENT_CTL_A_ALERT_KIND,
				FTAGENT_ALERT_VERDICT))
		goto free;
	nest = nla_nest_start(msg, FTAGENT_CTL_A_VERDICTS);
	if (!nest)
		goto free;
	for (k = 0; k < n; k++)
		if (nla_put_u64_64bit(msg, k + 1, counts[k], FTAGENT_CTL_A_PAD))
			goto free;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	err = genlmsg_multicast(&ftagent_ctl_family, msg, 0, 0, GFP_KERNEL);
	goto out;
free:
	nlmsg_free(msg);
out:
	mutex_unlock(&ftagent_alerts_lock);
	return err;
}

int __init ftagent_genl_ctl_register(void)
{
	int err;

	/* Before the family: no EXCLUDE_SELF without its end in sight. */
	err = netlink_register_notifier(&ftagent_ctl_netlink_nb);
	if (err)
		return err;
	err = genl_register_family(&ftagent_ctl_family);
	if (err) {
		netlink_unregister_notifier(&ftagent_ctl_netlink_nb);
		return err;
	}
	mutex_lock(&ftagent_alerts_lock);
	ftagent_alerts_on = true;
	mutex_unlock(&ftagent_alerts_lock);
	return 0;
}

void ftagent_genl_ctl_unregister(void)
{
	mutex_lock(&ftagent_alerts_lock);
	ftagent_alerts_on = false;
	mutex_unlock(&ftagent_alerts_lock);
	genl_unregister_family(&ftagent_ctl_family);
	/* Waits for a running release; ftagent_filters_exit() puts the rest. */
	netlink_unregister_notifier(&ftagent_ctl_netlink_nb);
}
