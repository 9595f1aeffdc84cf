// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics family: version, module resources and counter dumps.
 *
 * GET_VERSION is open to every user, so a client can check that it speaks
 * the module's ABI before it asks for privileges; the rest shows what
 * processes do and needs CAP_SYS_ADMIN in the initial user namespace
 * (GENL_ADMIN_PERM lets the core refuse callers without CAP_NET_ADMIN
 * early; the handler, or the dump's start, checks CAP_SYS_ADMIN before
 * it reads anything). The family leaves resv_start_op
 * at zero: every command is validated strictly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <net/genetlink.h>

#include "config.h"
#include "counters.h"
#include "events.h"
#include "filters.h"
#include "ftagent.h"
#include "hooks.h"
#include "memory.h"

static struct genl_family ftagent_stats_family;

static int ftagent_stats_get_version(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = ftagent_genl_reply_new(info, &ftagent_stats_family,
				     FTAGENT_STATS_CMD_GET_VERSION,
				     NLMSG_DEFAULT_SIZE, &hdr);
	if (!msg)
		return -ENOMEM;

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

static int ftagent_put_lost(struct sk_buff *msg, const u64 *lost)
{
	return nla_put_u64_64bit(msg, FTAGENT_CPU_A_LOST_COUNTER_TABLE,
				 lost[FTAGENT_LOSS_COUNTER_TABLE],
				 FTAGENT_CPU_A_PAD) ||
	       nla_put_u64_64bit(msg, FTAGENT_CPU_A_LOST_RECURSION,
				 lost[FTAGENT_LOSS_RECURSION],
				 FTAGENT_CPU_A_PAD) ||
	       nla_put_u64_64bit(msg, FTAGENT_CPU_A_LOST_USER_READ,
				 lost[FTAGENT_LOSS_USER_READ],
				 FTAGENT_CPU_A_PAD) ||
	       nla_put_u64_64bit(msg, FTAGENT_CPU_A_LOST_PENDING_TABLE,
				 lost[FTAGENT_LOSS_PENDING_TABLE],
				 FTAGENT_CPU_A_PAD) ||
	       nla_put_u64_64bit(msg, FTAGENT_CPU_A_LOST_IOURING,
				 lost[FTAGENT_LOSS_IOURING],
				 FTAGENT_CPU_A_PAD);
}

/* The event channel's figures for @cpu, cumulative since load. */
static int ftagent_put_cpu_events(struct sk_buff *msg, int cpu)
{
	struct ftagent_event_cpu_view ev;
	struct nlattr *nest;
	int k;

	ftagent_events_cpu_view(cpu, &ev);
	if (nla_put_u64_64bit(msg, FTAGENT_CPU_A_EV_EMITTED, ev.emitted,
			      FTAGENT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_CPU_A_EV_DELIVERED, ev.delivered,
			      FTAGENT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_CPU_A_EV_PEAK_BYTES, ev.peak_bytes,
			      FTAGENT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_CPU_A_EV_DISCARDED, ev.discarded,
			      FTAGENT_CPU_A_PAD))
		return -EMSGSIZE;
	nest = nla_nest_start(msg, FTAGENT_CPU_A_EV_LOST);
	if (!nest)
		return -EMSGSIZE;
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		if (nla_put_u64_64bit(msg, k + 1, ev.lost[k],
				      FTAGENT_CPU_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int ftagent_put_cpu(struct sk_buff *msg, int cpu,
			   const struct ftagent_cpu_view *v, bool dump)
{
	struct nlattr *nest = nla_nest_start(msg, FTAGENT_STATS_A_CPU);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, FTAGENT_CPU_A_ID, cpu) ||
	    (dump ? nla_put_u32(msg, FTAGENT_CPU_A_ENTRIES, v->entries) :
		    nla_put_u32(msg, FTAGENT_CPU_A_FILL, v->fill) ||
		    nla_put_u32(msg, FTAGENT_CPU_A_PEAK, v->peak) ||
		    ftagent_put_cpu_events(msg, cpu)) ||
	    ftagent_put_lost(msg, v->lost)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ftagent_put_hook(struct sk_buff *msg,
			    const struct ftagent_hook_view *v)
{
	struct nlattr *nest = nla_nest_start(msg, FTAGENT_STATS_A_HOOK);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, FTAGENT_HOOK_A_NAME, v->name) ||
	    nla_put_u32(msg, FTAGENT_HOOK_A_KIND, v->kind) ||
	    nla_put_u32(msg, FTAGENT_HOOK_A_STATE, v->state) ||
	    nla_put_u32(msg, FTAGENT_HOOK_A_ERROR, v->error) ||
	    nla_put_u64_64bit(msg, FTAGENT_HOOK_A_HITS, v->hits,
			      FTAGENT_HOOK_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_HOOK_A_MISSED, v->missed,
			      FTAGENT_HOOK_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * Everything the module allocated and holds now (memory.h), but not its
 * own image, which /proc/modules shows.
 */
static u64 ftagent_memory_held(void)
{
	return ftagent_counters_memory() + ftagent_events_memory() +
	       ftagent_filters_memory() + ftagent_hooks_memory() +
	       ftagent_mmsg_memory() + ftagent_iouring_memory() +
	       ftagent_policy_memory() + ftagent_budget_memory() +
	       ftagent_gate_memory() + ftagent_zerocopy_memory() +
	       ftagent_aio_memory() + ftagent_usersock_memory();
}

static int ftagent_put_resources(struct sk_buff *msg)
{
	const struct ftagent_config *cfg = ftagent_config_get();
	struct ftagent_events_geometry geo;
	struct ftagent_cpu_view cv;
	struct ftagent_hook_view hv;
	unsigned int i;
	bool acked;
	u64 seq;
	int cpu;

	seq = ftagent_counters_idle_seq(&acked);
	ftagent_events_geometry(&geo);
	if (nla_put_u32(msg, FTAGENT_STATS_A_MODE, cfg->mode) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_HOOKS, cfg->hooks) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_STATE, ftagent_hooks_state()) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_NR_CPUS, num_possible_cpus()) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_TABLE_CAPACITY,
			ftagent_counters_capacity()) ||
	    nla_put_u64_64bit(msg, FTAGENT_STATS_A_MEMORY_BYTES,
			      ftagent_memory_held(), FTAGENT_STATS_A_PAD) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_RING_BUFFER_SIZE,
			geo.ring_bytes) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_SUBBUF_SIZE, geo.subbuf_size) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_N_SUBBUFS, geo.n_subbufs) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_EXCLUDED_TGIDS,
			ftagent_excluded_count()) ||
	    nla_put_u64_64bit(msg, FTAGENT_STATS_A_EXCLUDE_MISSED,
			      ftagent_exclude_missed(), FTAGENT_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_STATS_A_FLUSH_COUNT,
			      ftagent_counters_flushes(), FTAGENT_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_STATS_A_GEN_SEQ, seq,
			      FTAGENT_STATS_A_PAD) ||
	    nla_put_u32(msg, FTAGENT_STATS_A_GEN_ACKED, acked))
		return -EMSGSIZE;
	for_each_possible_cpu(cpu) {
		ftagent_counters_cpu_totals(cpu, &cv);
		if (ftagent_put_cpu(msg, cpu, &cv, false))
			return -EMSGSIZE;
	}
	for (i = 0; i < ftagent_hooks_count(); i++) {
		ftagent_hook_view(i, &hv);
		if (ftagent_put_hook(msg, &hv))
			return -EMSGSIZE;
	}
	return 0;
}

static int ftagent_stats_get_resources(struct sk_buff *skb,
				       struct genl_info *info)
{
	size_t size = 1024 + num_possible_cpus() * 224 +
		      ftagent_hooks_count() * 128;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ftagent_genl_admin(skb, info->extack);
	if (err)
		return err;
	msg = ftagent_genl_reply_new(info, &ftagent_stats_family,
				     FTAGENT_STATS_CMD_GET_RESOURCES, size, &hdr);
	if (!msg)
		return -ENOMEM;
	ftagent_config_lock();
	err = ftagent_put_resources(msg);
	ftagent_config_unlock();
	if (err) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG(info->extack, "resources do not fit a message");
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * Dump state in cb->args: [0] CPU, [1] next slot, [2] whether that CPU's
 * nest was sent. Each call takes the generation lock only while it fills
 * one message; if the idle generation was swapped or acknowledged between
 * two messages, cb->seq changes and the core flags NLM_F_DUMP_INTR.
 */
enum { DUMP_CPU, DUMP_SLOT, DUMP_CPU_SENT };

static int ftagent_stats_dump_start(struct netlink_callback *cb)
{
	int err = ftagent_genl_admin(cb->skb, cb->extack);

	if (err)
		return err;
	cb->args[DUMP_CPU] = cpumask_first(cpu_possible_mask);
	return 0;
}

static int ftagent_dump_fill(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned int cpu = cb->args[DUMP_CPU];
	u32 slot = cb->args[DUMP_SLOT];
	struct ftagent_counter rec;
	struct ftagent_cpu_view cv;
	bool acked, any = false;
	u32 resume;
	u64 seq;
	void *hdr;

	seq = ftagent_counters_idle_seq_locked(&acked);
	cb->seq = (seq << 1) | acked;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ftagent_stats_family, NLM_F_MULTI,
			  FTAGENT_STATS_CMD_DUMP_COUNTERS);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u64_64bit(skb, FTAGENT_STATS_A_GEN_SEQ, seq,
			      FTAGENT_STATS_A_PAD) ||
	    nla_put_u32(skb, FTAGENT_STATS_A_GEN_ACKED, acked))
		goto cancel;

	while (cpu < nr_cpu_ids) {
		if (!cb->args[DUMP_CPU_SENT]) {
			ftagent_counters_cpu_idle(cpu, &cv);
			if (ftagent_put_cpu(skb, cpu, &cv, true))
				goto full;
			cb->args[DUMP_CPU_SENT] = 1;
			any = true;
		}
		for (;;) {
			resume = slot;
			if (!ftagent_counters_idle_next(cpu, &slot, &rec))
				break;
			if (nla_put(skb, FTAGENT_STATS_A_COUNTER, sizeof(rec),
				    &rec)) {
				slot = resume;
				goto full;
			}
			any = true;
		}
		cpu = cpumask_next(cpu, cpu_possible_mask);
		slot = 0;
		cb->args[DUMP_CPU_SENT] = 0;
	}
full:
	if (!any)
		goto cancel;
	cb->args[DUMP_CPU] = cpu;
	cb->args[DUMP_SLOT] = slot;
	genlmsg_end(skb, hdr);
	return skb->len;
cancel:
	genlmsg_cancel(skb, hdr);
	return cpu < nr_cpu_ids ? -EMSGSIZE : 0;
}

static int ftagent_stats_dump_counters(struct sk_buff *skb,
				       struct netlink_callback *cb)
{
	int ret;

	if (cb->args[DUMP_CPU] >= nr_cpu_ids)
		return 0;
	ftagent_counters_dump_lock();
	ret = ftagent_dump_fill(skb, cb);
	ftagent_counters_dump_unlock();
	return ret;
}

/* One policy per command; these take no attributes and say so. */
static const struct nla_policy ftagent_stats_no_attrs_policy[FTAGENT_STATS_A_MAX + 1] = {
	[FTAGENT_STATS_A_ABI_MAJOR ... FTAGENT_STATS_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "this command takes no attributes",
	},
};

static const struct genl_ops ftagent_stats_ops[] = {
	{
		.cmd = FTAGENT_STATS_CMD_GET_VERSION,
		.doit = ftagent_stats_get_version,
		.policy = ftagent_stats_no_attrs_policy,
		.maxattr = FTAGENT_STATS_A_MAX,
	},
	{
		.cmd = FTAGENT_STATS_CMD_GET_RESOURCES,
		.doit = ftagent_stats_get_resources,
		.policy = ftagent_stats_no_attrs_policy,
		.maxattr = FTAGENT_STATS_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FTAGENT_STATS_CMD_DUMP_COUNTERS,
		.start = ftagent_stats_dump_start,
		.dumpit = ftagent_stats_dump_counters,
		.policy = ftagent_stats_no_attrs_policy,
		.maxattr = FTAGENT_STATS_A_MAX,
		.flags = GENL_ADMIN_PERM,
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
