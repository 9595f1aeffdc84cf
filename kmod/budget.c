// SPDX-License-Identifier: GPL-2.0
/*
 * Budgets. A budget is one allowance shared by everything its principal
 * matches: LIMIT per window of WINDOW_MS, the window opening at the
 * first charge after the previous one closed.
 *
 * Calls (connects, execs, opens) are counted at the gate, before they
 * run, and the one past the limit is refused with EDQUOT. Bytes are
 * charged when the call returns (what it really moved, as the counters
 * count it); the gate refuses the next call once the budget is used up,
 * so a principal overshoots by at most one call. Repeats are counted
 * when a program has been loaded (its arguments are in its memory then):
 * the run past the limit is killed before its first instruction.
 *
 * Each budget's window is guarded by its own raw spinlock, taken only by
 * calls its principal matches; the set itself is read under RCU like the
 * rule set, and a static key keeps all of this off the settle path while
 * no budget is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <linux/xxhash.h>
#include <net/netlink.h>

#include "budget.h"
#include "counters.h"
#include "gate.h"
#include "kill.h"
#include "memory.h"

struct ftagent_budgetset __rcu *ftagent_budgets;
DEFINE_STATIC_KEY_FALSE(ftagent_budgets_on);
static u64 ftagent_budgets_gen;

static const struct nla_policy ftagent_budget_policy[FTAGENT_BUDGET_A_MAX + 1] = {
	[FTAGENT_BUDGET_A_NAME] = { .type = NLA_NUL_STRING,
				    .len = FTAGENT_RULE_NAME_MAX },
	[FTAGENT_BUDGET_A_METRIC] = NLA_POLICY_MAX(NLA_U32,
						   __FTAGENT_METRIC_MAX - 1),
	[FTAGENT_BUDGET_A_LIMIT] = { .type = NLA_U64 },
	[FTAGENT_BUDGET_A_WINDOW_MS] = { .type = NLA_U32 },
	[FTAGENT_BUDGET_A_ALERT_AT] = { .type = NLA_U64 },
	[FTAGENT_BUDGET_A_ENFORCE] = NLA_POLICY_MAX(NLA_U8, 1),
	[FTAGENT_BUDGET_A_KILL] = NLA_POLICY_MAX(NLA_U8, 1),
	[FTAGENT_BUDGET_A_UID] = { .type = NLA_U32 },
	[FTAGENT_BUDGET_A_COMM] = { .type = NLA_NUL_STRING,
				    .len = FTAGENT_COMM_LEN - 1 },
	[FTAGENT_BUDGET_A_CGROUP_ID] = { .type = NLA_U64 },
	[FTAGENT_BUDGET_A_EXE_PREFIX] = { .type = NLA_NUL_STRING,
					  .len = FTAGENT_RULE_PREFIX_MAX },
	[FTAGENT_BUDGET_A_SUBTREE] = NLA_POLICY_MIN(NLA_U32, 1),
	[FTAGENT_BUDGET_A_USED] = { .type = NLA_REJECT },
	[FTAGENT_BUDGET_A_WINDOW_LEFT_MS] = { .type = NLA_REJECT },
	[FTAGENT_BUDGET_A_DENIED] = { .type = NLA_REJECT },
	[FTAGENT_BUDGET_A_ALERTS] = { .type = NLA_REJECT },
	[FTAGENT_BUDGET_A_PAD] = { .type = NLA_REJECT },
};

static const u16 ftagent_budget_strings[] = {
	FTAGENT_BUDGET_A_NAME, FTAGENT_BUDGET_A_COMM,
	FTAGENT_BUDGET_A_EXE_PREFIX,
};

static void *ftagent_budget_err(struct netlink_ext_ack *extack,
				const struct nlattr *attr, u32 index,
				const char *name, const char *why)
{
	/* @index and @name are what @attr's offset identifies. */
	return ftagent_set_err(extack, attr, why);
}

void ftagent_budgets_free(struct ftagent_budgetset *set)
{
	if (!set)
		return;
	kvfree(set->b);
	kvfree(set->strings);
	kfree(set);
}

static void *ftagent_budget_parse(struct ftagent_budgetset *set, u32 i,
				  const struct nlattr *nest, size_t *pool,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FTAGENT_BUDGET_A_MAX + 1];
	struct ftagent_budget *b = &set->b[i];
	struct ftagent_rule *who = &b->who;
	struct ftagent_principal_attrs principal;
	const struct nlattr *bad;
	const char *name, *why;
	u32 window_ms;
	int err;

	err = nla_parse_nested(tb, FTAGENT_BUDGET_A_MAX, nest,
			       ftagent_budget_policy, extack);
	if (err)
		return ftagent_budget_err(extack,
					  extack ? extack->bad_attr : nest, i,
					  NULL,
					  extack && extack->_msg ?
					  extack->_msg : "malformed attribute");
	bad = ftagent_strings_check(tb, ftagent_budget_strings,
				    ARRAY_SIZE(ftagent_budget_strings));
	if (bad)
		return ftagent_budget_err(extack, bad, i, NULL,
					  FTAGENT_STRING_TAIL_MSG);
	if (!tb[FTAGENT_BUDGET_A_NAME] ||
	    !*(char *)nla_data(tb[FTAGENT_BUDGET_A_NAME]))
		return ftagent_budget_err(extack, nest, i, NULL,
					  "NAME is required");
	who->name_off = ftagent_pool_add(set->strings, pool,
					 tb[FTAGENT_BUDGET_A_NAME], NULL);
	name = set->strings + who->name_off;
	if (!tb[FTAGENT_BUDGET_A_METRIC])
		return ftagent_budget_err(extack, nest, i, name,
					  "METRIC is required");
	b->metric = nla_get_u32(tb[FTAGENT_BUDGET_A_METRIC]);
	if (!tb[FTAGENT_BUDGET_A_LIMIT] ||
	    !nla_get_u64(tb[FTAGENT_BUDGET_A_LIMIT]))
		return ftagent_budget_err(extack,
					  tb[FTAGENT_BUDGET_A_LIMIT] ?: nest,
					  i, name,
					  "LIMIT is required and above 0");
	b->limit = nla_get_u64(tb[FTAGENT_BUDGET_A_LIMIT]);
	window_ms = tb[FTAGENT_BUDGET_A_WINDOW_MS] ?
		    nla_get_u32(tb[FTAGENT_BUDGET_A_WINDOW_MS]) : 0;
	if (!window_ms || window_ms > FTAGENT_BUDGET_WINDOW_MAX_MS)
		return ftagent_budget_err(extack,
					  tb[FTAGENT_BUDGET_A_WINDOW_MS] ?: nest,
					  i, name,
					  "WINDOW_MS is required, 1 ms to 7 days");
	b->window_ns = (u64)window_ms * NSEC_PER_MSEC;
	if (tb[FTAGENT_BUDGET_A_ALERT_AT]) {
		b->alert_at = nla_get_u64(tb[FTAGENT_BUDGET_A_ALERT_AT]);
		if (!b->alert_at || b->alert_at >= b->limit)
			return ftagent_budget_err(extack,
						  tb[FTAGENT_BUDGET_A_ALERT_AT],
						  i, name,
						  "ALERT_AT is above 0 and below LIMIT");
	}
	b->enforce = tb[FTAGENT_BUDGET_A_ENFORCE] ?
		     nla_get_u8(tb[FTAGENT_BUDGET_A_ENFORCE]) : true;
	b->kill = tb[FTAGENT_BUDGET_A_KILL] &&
		  nla_get_u8(tb[FTAGENT_BUDGET_A_KILL]);
	if (b->kill && !b->enforce)
		return ftagent_budget_err(extack, tb[FTAGENT_BUDGET_A_KILL],
					  i, name,
					  "KILL needs an enforced budget");
	principal = (struct ftagent_principal_attrs){
		.uid = tb[FTAGENT_BUDGET_A_UID],
		.comm = tb[FTAGENT_BUDGET_A_COMM],
		.cgroup_id = tb[FTAGENT_BUDGET_A_CGROUP_ID],
		.exe_prefix = tb[FTAGENT_BUDGET_A_EXE_PREFIX],
		.subtree = tb[FTAGENT_BUDGET_A_SUBTREE],
	};
	why = ftagent_principal_parse(who, &principal, set->strings, pool,
				      &bad);
	if (why)
		return ftagent_budget_err(extack, bad, i, name, why);
	raw_spin_lock_init(&b->lock);
	set->metrics |= BIT(b->metric);
	return NULL;
}

struct ftagent_budgetset *ftagent_budgets_parse(const struct nlattr *head,
						int len,
						struct netlink_ext_ack *extack)
{
	struct ftagent_budgetset *set;
	const struct nlattr *a, *s;
	size_t strings = 0, pool = 0;
	u32 n = 0, i = 0;
	void *err;
	int rem, srem;

	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) != FTAGENT_CTL_A_BUDGET)
			continue;
		if (++n > FTAGENT_BUDGETS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "more than FTAGENT_BUDGETS_MAX budgets");
			return ERR_PTR(-EINVAL);
		}
		nla_for_each_nested(s, a, srem)
			if (nla_type(s) == FTAGENT_BUDGET_A_NAME ||
			    nla_type(s) == FTAGENT_BUDGET_A_EXE_PREFIX)
				strings += nla_len(s) + 1;
	}
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->n = n;
	set->b = kvcalloc(n + 1, sizeof(*set->b), GFP_KERNEL);
	set->strings = kvmalloc(strings + 1, GFP_KERNEL);
	if (!set->b || !set->strings) {
		ftagent_budgets_free(set);
		return ERR_PTR(-ENOMEM);
	}
	set->bytes = kmalloc_size_roundup(sizeof(*set)) +
		     ftagent_kv_bytes(set->b, (n + 1) * sizeof(*set->b)) +
		     ftagent_kv_bytes(set->strings, strings + 1);
	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) != FTAGENT_CTL_A_BUDGET)
			continue;
		err = ftagent_budget_parse(set, i, a, &pool, extack);
		if (IS_ERR(err)) {
			ftagent_budgets_free(set);
			return err;
		}
		i++;
	}
	return set;
}

/* The budget set in force, read as the gate reads it. */
size_t ftagent_budget_memory(void)
{
	const struct ftagent_budgetset *set;
	size_t bytes;

	rcu_read_lock_sched();
	set = rcu_dereference_sched(ftagent_budgets);
	bytes = set ? set->bytes : 0;
	rcu_read_unlock_sched();
	return bytes;
}

u32 ftagent_budgets_gate_points(u32 metrics)
{
	u32 points = 0;

	if (metrics & BIT(FTAGENT_METRIC_CONNECTS))
		points |= BIT(FTAGENT_OP_CONNECT) | BIT(FTAGENT_OP_SEND) |
			  FTAGENT_GATE_WANT_TCP;
	if (metrics & BIT(FTAGENT_METRIC_EXECS))
		points |= BIT(FTAGENT_OP_EXEC);
	if (metrics & BIT(FTAGENT_METRIC_OPENS))
		points |= BIT(FTAGENT_OP_OPEN);
	if (metrics & BIT(FTAGENT_METRIC_BYTES_SENT))
		points |= BIT(FTAGENT_OP_SEND) | BIT(FTAGENT_GATE_PERM);
	if (metrics & BIT(FTAGENT_METRIC_BYTES_RECEIVED))
		points |= BIT(FTAGENT_GATE_RECV) | BIT(FTAGENT_GATE_PERM);
	if (metrics & (BIT(FTAGENT_METRIC_BYTES_READ) |
		       BIT(FTAGENT_METRIC_BYTES_WRITTEN)))
		points |= BIT(FTAGENT_GATE_PERM);
	return points;
}

int ftagent_budgets_install(struct ftagent_budgetset *set)
{
	struct ftagent_budgetset *old;
	int err;

	old = rcu_dereference_protected(ftagent_budgets, true);
	err = ftagent_gate_refresh(set ? ftagent_budgets_gate_points(set->metrics) :
				   0);
	if (err)
		return err;
	if (set) {
		set->generation = ++ftagent_budgets_gen;
		rcu_assign_pointer(ftagent_budgets, set);
		if (!static_key_enabled(&ftagent_budgets_on))
			static_branch_enable(&ftagent_budgets_on);
	} else {
		ftagent_budgets_gen++;
		if (static_key_enabled(&ftagent_budgets_on))
			static_branch_disable(&ftagent_budgets_on);
		RCU_INIT_POINTER(ftagent_budgets, NULL);
	}
	ftagent_gate_refresh(0);
	if (old) {
		synchronize_rcu();
		ftagent_budgets_free(old);
	}
	return 0;
}

u64 ftagent_budgets_generation(void)
{
	return ftagent_budgets_gen;
}

/* Open a new window if the last one closed. Lock held. */
static void ftagent_budget_window(struct ftagent_budget *b, u64 now)
{
	if (b->start_ns && now - b->start_ns < b->window_ns)
		return;
	b->start_ns = now;
	b->used = 0;
	b->alerted = false;
	memset(b->rep, 0, sizeof(b->rep));
}

/*
 * Record a verdict of budget @i for @c, or, with @as_tgid, for that
 * process's thread @as_pid (a Linux AIO request completed elsewhere).
 */
static void ftagent_budget_verdict_as(const struct ftagent_budgetset *set,
				      u32 i, u8 verdict, u64 used,
				      struct ftagent_gate_call *c,
				      pid_t as_tgid, pid_t as_pid)
{
	const struct ftagent_budget *b = &set->b[i];
	struct ftagent_verdict_info vi = {
		.generation = set->generation,
		.index = i,
		.name = set->strings + b->who.name_off,
		.action = FTAGENT_ACTION_DENY,
		.verdict = verdict,
		.source = FTAGENT_VERDICT_SRC_BUDGET,
		.error = verdict == FTAGENT_VERDICT_OVER_BUDGET ? -EDQUOT : 0,
		.metric = b->metric,
		.used = used,
		.limit = b->limit,
		.as_tgid = as_tgid,
		.as_pid = as_pid,
	};

	ftagent_verdict_emit(&vi, c);
}

static void ftagent_budget_verdict(const struct ftagent_budgetset *set,
				   u32 i, u8 verdict, u64 used,
				   struct ftagent_gate_call *c)
{
	ftagent_budget_verdict_as(set, i, verdict, used, c, 0, 0);
}

/*
 * Refuse the current call of budget @i: -EDQUOT, or FTAGENT_BUDGET_KILL
 * when the budget also kills. The signal is sent here, from the gate's
 * hook (on PREEMPT_RT by a task_work, kmod/kill.c), once per
 * call however many killing budgets are over (*@killed), and a kill
 * that could not be sent is not recorded as one.
 */
static int ftagent_budget_refuse(const struct ftagent_budgetset *set,
				 u32 i, u64 used, struct ftagent_gate_call *c,
				 bool *killed)
{
	struct ftagent_budget *b = &set->b[i];

	atomic64_inc(&b->denied);
	ftagent_budget_verdict(set, i, FTAGENT_VERDICT_OVER_BUDGET, used, c);
	/* Killing init panics the kernel: it is refused, never killed. */
	if (!b->kill || is_global_init(current))
		return -EDQUOT;
	if (!*killed)
		*killed = ftagent_kill_current();
	if (!*killed)
		return -EDQUOT;
	ftagent_budget_verdict(set, i, FTAGENT_VERDICT_KILLED, used, c);
	return FTAGENT_BUDGET_KILL;
}

/* Usage went from @before to @after: alert once per window on crossing. */
static bool ftagent_budget_crossed(struct ftagent_budget *b, u64 before,
				   u64 after)
{
	u64 mark = b->enforce ? b->alert_at : (b->alert_at ?: b->limit);

	if (b->alerted || !mark || before >= mark || after < mark)
		return false;
	b->alerted = true;
	return true;
}

int ftagent_budget_gate(struct ftagent_gate_call *c, unsigned int metric)
{
	const struct ftagent_budgetset *set;
	bool count = metric == FTAGENT_METRIC_CONNECTS ||
		     metric == FTAGENT_METRIC_EXECS ||
		     metric == FTAGENT_METRIC_OPENS;
	bool killed = false;
	unsigned long flags;
	int refused = 0;
	u32 i;

	set = rcu_dereference_sched(ftagent_budgets);
	if (!set || !(set->metrics & BIT(metric)))
		return 0;
	/*
	 * First every matching budget may refuse, each with its verdict (a
	 * budget that only refuses must not hide one that kills); only
	 * then, if none did, is the call charged.
	 */
	for (i = 0; i < set->n; i++) {
		struct ftagent_budget *b = &set->b[i];
		bool over;
		u64 used;

		if (b->metric != metric || !b->enforce ||
		    !ftagent_principal_matches(&b->who, set->strings, c))
			continue;
		raw_spin_lock_irqsave(&b->lock, flags);
		ftagent_budget_window(b, ktime_get_mono_fast_ns());
		used = b->used;
		over = used >= b->limit;
		raw_spin_unlock_irqrestore(&b->lock, flags);
		if (over) {
			int r = ftagent_budget_refuse(set, i, used, c,
						      &killed);

			if (r == FTAGENT_BUDGET_KILL || !refused)
				refused = r;
		}
	}
	if (refused)
		return refused;
	if (!count)
		return 0;	/* bytes are charged when the call returns */
	for (i = 0; i < set->n; i++) {
		struct ftagent_budget *b = &set->b[i];
		bool alert;
		u64 used;

		if (b->metric != metric ||
		    !ftagent_principal_matches(&b->who, set->strings, c))
			continue;
		raw_spin_lock_irqsave(&b->lock, flags);
		ftagent_budget_window(b, ktime_get_mono_fast_ns());
		alert = ftagent_budget_crossed(b, b->used, b->used + 1);
		used = ++b->used;
		raw_spin_unlock_irqrestore(&b->lock, flags);
		if (alert) {
			atomic64_inc(&b->alerts);
			ftagent_budget_verdict(set, i,
					       FTAGENT_VERDICT_BUDGET_ALERT,
					       used, c);
		}
	}
	return 0;
}

void ftagent_budget_charge_bytes(unsigned int kind, unsigned int family,
				 unsigned int dir, long bytes)
{
	ftagent_budget_charge_bytes_task(NULL, NULL, kind, family, dir, bytes);
}

/* The byte metric of a move in @dir on @kind/@family; false: none. */
static bool ftagent_bytes_metric(unsigned int kind, unsigned int family,
				 unsigned int dir, unsigned int *metric)
{
	if (kind == FTAGENT_OBJ_SOCKET &&
	    (family == AF_INET || family == AF_INET6 || family == AF_SMC))
		*metric = dir == FTAGENT_DIR_OUT ?
				  FTAGENT_METRIC_BYTES_SENT :
				  FTAGENT_METRIC_BYTES_RECEIVED;
	else if (kind == FTAGENT_OBJ_FILE)
		*metric = dir == FTAGENT_DIR_OUT ?
				  FTAGENT_METRIC_BYTES_WRITTEN :
				  FTAGENT_METRIC_BYTES_READ;
	else
		return false;
	return true;
}

/* Add @bytes to budget @i of @set, alerting on the crossing. */
static void ftagent_budget_add_bytes(const struct ftagent_budgetset *set,
				     u32 i, long bytes,
				     struct ftagent_gate_call *c,
				     pid_t as_tgid, pid_t as_pid)
{
	struct ftagent_budget *b = &set->b[i];
	unsigned long flags;
	bool alert;
	u64 used;

	raw_spin_lock_irqsave(&b->lock, flags);
	ftagent_budget_window(b, ktime_get_mono_fast_ns());
	alert = ftagent_budget_crossed(b, b->used, b->used + bytes);
	b->used += bytes;
	used = b->used;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	if (alert) {
		atomic64_inc(&b->alerts);
		ftagent_budget_verdict_as(set, i, FTAGENT_VERDICT_BUDGET_ALERT,
					  used, c, as_tgid, as_pid);
	}
}

void ftagent_budget_charge_bytes_task(struct task_struct *task,
				      const struct cred *cred,
				      unsigned int kind, unsigned int family,
				      unsigned int dir, long bytes)
{
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_NONE);
	const struct ftagent_budgetset *set;
	unsigned int metric;
	u32 i;

	if (bytes <= 0 || !ftagent_bytes_metric(kind, family, dir, &metric))
		return;
	set = rcu_dereference_sched(ftagent_budgets);
	if (!set || !(set->metrics & BIT(metric)))
		return;
	c.task = task;
	c.cred = cred;
	for (i = 0; i < set->n; i++)
		if (set->b[i].metric == metric &&
		    ftagent_principal_matches(&set->b[i].who, set->strings,
					      &c))
			ftagent_budget_add_bytes(set, i, bytes, &c, 0, 0);
}

unsigned int ftagent_budget_match_bytes(unsigned int kind, unsigned int family,
					unsigned int dir, u32 *gen, u16 *idx,
					unsigned int max)
{
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_NONE);
	const struct ftagent_budgetset *set;
	unsigned int metric, n = 0;
	u32 i;

	set = rcu_dereference_sched(ftagent_budgets);
	/* Generations start at 1: 0 stands for no set. */
	*gen = set ? (u32)set->generation : 0;
	if (!set || !ftagent_bytes_metric(kind, family, dir, &metric) ||
	    !(set->metrics & BIT(metric)))
		return 0;
	for (i = 0; i < set->n; i++) {
		if (set->b[i].metric != metric ||
		    !ftagent_principal_matches(&set->b[i].who, set->strings,
					       &c))
			continue;
		if (n == max)
			return max + 1;
		idx[n++] = i;
	}
	return n;
}

bool ftagent_budget_charge_matched(u32 gen, const u16 *idx, unsigned int n,
				   unsigned int kind, unsigned int family,
				   unsigned int dir, long bytes, pid_t tgid,
				   pid_t pid)
{
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_NONE);
	const struct ftagent_budgetset *set;
	unsigned int metric, k;

	if (bytes <= 0)
		return true;
	set = rcu_dereference_sched(ftagent_budgets);
	/* No budget on this metric now: nothing to charge. */
	if (!set || !ftagent_bytes_metric(kind, family, dir, &metric) ||
	    !(set->metrics & BIT(metric)))
		return true;
	/* Installed since: which of its budgets match cannot be told. */
	if ((u32)set->generation != gen)
		return false;
	for (k = 0; k < n; k++)
		if (idx[k] < set->n)
			ftagent_budget_add_bytes(set, idx[k], bytes, &c, tgid,
						 pid);
	return true;
}

/*
 * The command line just loaded, hashed: argv as /proc/PID/cmdline has it
 * (at most 4 KiB of it), read from the new program's own memory, where
 * exec has just written it (so the read cannot fault anything in).
 */
static bool ftagent_cmdline_hash(u64 *hash)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, len, off, n;
	struct xxh64_state st;
	char chunk[256];

	if (!mm)
		return false;
	start = mm->arg_start;
	len = min_t(unsigned long, mm->arg_end - start, 4096);
	xxh64_reset(&st, 0);
	for (off = 0; off < len; off += n) {
		n = min_t(unsigned long, len - off, sizeof(chunk));
		if (copy_from_user_nofault(chunk,
					   (const void __user *)(start + off),
					   n))
			return false;
		xxh64_update(&st, chunk, n);
	}
	*hash = xxh64_digest(&st);
	return true;
}

void ftagent_budget_exec(void)
{
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_EXEC);
	const struct ftagent_budgetset *set;
	bool have_hash = false;
	u64 hash = 0;
	u32 i, k;

	set = rcu_dereference_sched(ftagent_budgets);
	if (!set || !(set->metrics & BIT(FTAGENT_METRIC_REPEATS)))
		return;
	for (i = 0; i < set->n; i++) {
		struct ftagent_budget *b = &set->b[i];
		bool over = false, alert = false;
		unsigned long flags;
		u32 count = 0, slot = FTAGENT_REPEAT_SLOTS;

		if (b->metric != FTAGENT_METRIC_REPEATS ||
		    !ftagent_principal_matches(&b->who, set->strings, &c))
			continue;
		if (!have_hash && !ftagent_cmdline_hash(&hash))
			return;	/* unreadable: nothing to compare */
		have_hash = true;
		raw_spin_lock_irqsave(&b->lock, flags);
		ftagent_budget_window(b, ktime_get_mono_fast_ns());
		for (k = 0; k < FTAGENT_REPEAT_SLOTS; k++) {
			if (b->rep[k].count && b->rep[k].hash == hash) {
				slot = k;
				break;
			}
			/* A free slot, else the one run the fewest times. */
			if (slot == FTAGENT_REPEAT_SLOTS ||
			    b->rep[k].count < b->rep[slot].count)
				slot = k;
		}
		if (b->rep[slot].hash != hash) {
			b->rep[slot].hash = hash;
			b->rep[slot].count = 0;
		}
		count = b->rep[slot].count;
		over = b->enforce && count >= b->limit;
		if (!over) {
			alert = ftagent_budget_crossed(b, count, count + 1);
			b->rep[slot].count = ++count;
			if (count > b->used)
				b->used = count;
		}
		raw_spin_unlock_irqrestore(&b->lock, flags);
		if (over) {
			/*
			 * Loaded, not yet run: it dies before it starts (on
			 * RT, see kmod/kill.c). A kill that could not be
			 * queued is not recorded as one.
			 */
			atomic64_inc(&b->denied);
			ftagent_budget_verdict(set, i,
					       FTAGENT_VERDICT_OVER_BUDGET,
					       count, &c);
			if (ftagent_kill_current())
				ftagent_budget_verdict(set, i,
						       FTAGENT_VERDICT_KILLED,
						       count, &c);
			return;
		}
		if (alert) {
			atomic64_inc(&b->alerts);
			ftagent_budget_verdict(set, i,
					       FTAGENT_VERDICT_BUDGET_ALERT,
					       count, &c);
		}
	}
}

int ftagent_budget_put(struct sk_buff *msg,
		       const struct ftagent_budgetset *set, u32 i)
{
	struct ftagent_budget *b = &set->b[i];
	const struct ftagent_rule *w = &b->who;
	unsigned long flags;
	struct nlattr *nest;
	u64 used, start, now = ktime_get_mono_fast_ns();
	u32 left = 0;

	raw_spin_lock_irqsave(&b->lock, flags);
	used = b->used;
	start = b->start_ns;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	if (start && now - start < b->window_ns)
		left = div_u64(b->window_ns - (now - start), NSEC_PER_MSEC);
	else
		used = 0;	/* the window closed: the next charge opens one */
	nest = nla_nest_start(msg, FTAGENT_CTL_A_BUDGET);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, FTAGENT_BUDGET_A_NAME,
			   set->strings + w->name_off) ||
	    nla_put_u32(msg, FTAGENT_BUDGET_A_METRIC, b->metric) ||
	    nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_LIMIT, b->limit,
			      FTAGENT_BUDGET_A_PAD) ||
	    nla_put_u32(msg, FTAGENT_BUDGET_A_WINDOW_MS,
			div_u64(b->window_ns, NSEC_PER_MSEC)) ||
	    (b->alert_at &&
	     nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_ALERT_AT, b->alert_at,
			       FTAGENT_BUDGET_A_PAD)) ||
	    nla_put_u8(msg, FTAGENT_BUDGET_A_ENFORCE, b->enforce) ||
	    nla_put_u8(msg, FTAGENT_BUDGET_A_KILL, b->kill) ||
	    ((w->have & FTAGENT_RULE_HAVE_UID) &&
	     nla_put_u32(msg, FTAGENT_BUDGET_A_UID, w->uid)) ||
	    ((w->have & FTAGENT_RULE_HAVE_COMM) &&
	     nla_put_string(msg, FTAGENT_BUDGET_A_COMM, w->comm)) ||
	    ((w->have & FTAGENT_RULE_HAVE_CGROUP) &&
	     nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_CGROUP_ID, w->cgroup_id,
			       FTAGENT_BUDGET_A_PAD)) ||
	    ((w->have & FTAGENT_RULE_HAVE_EXE) &&
	     nla_put_string(msg, FTAGENT_BUDGET_A_EXE_PREFIX,
			    set->strings + w->exe_off)) ||
	    ((w->have & FTAGENT_RULE_HAVE_SUBTREE) &&
	     nla_put_u32(msg, FTAGENT_BUDGET_A_SUBTREE, w->subtree)) ||
	    nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_USED, used,
			      FTAGENT_BUDGET_A_PAD) ||
	    nla_put_u32(msg, FTAGENT_BUDGET_A_WINDOW_LEFT_MS, left) ||
	    nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_DENIED,
			      atomic64_read(&b->denied),
			      FTAGENT_BUDGET_A_PAD) ||
	    nla_put_u64_64bit(msg, FTAGENT_BUDGET_A_ALERTS,
			      atomic64_read(&b->alerts),
			      FTAGENT_BUDGET_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

void ftagent_budgets_exit(void)
{
	ftagent_budgets_install(NULL);
}
