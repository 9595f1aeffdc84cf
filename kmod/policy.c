// SPDX-License-Identifier: GPL-2.0
/*
 * Policy rule sets: SET_POLICY is parsed into a new set, checked whole,
 * and only then swapped in; readers at the gate take the set under RCU
 * (preemption off) and never lock. A bad rule rejects the request with a
 * message naming the rule by index and name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "gate.h"
#include "policy.h"

struct ftagent_ruleset __rcu *ftagent_policy;
static u64 ftagent_policy_gen;

static const struct nla_policy ftagent_rule_policy[FTAGENT_RULE_A_MAX + 1] = {
	[FTAGENT_RULE_A_NAME] = { .type = NLA_NUL_STRING,
				  .len = FTAGENT_RULE_NAME_MAX },
	[FTAGENT_RULE_A_OPS] = NLA_POLICY_MASK(NLA_U32,
					       (1u << __FTAGENT_OP_MAX) - 1),
	[FTAGENT_RULE_A_ACTION] = NLA_POLICY_MAX(NLA_U32,
						 __FTAGENT_ACTION_MAX - 1),
	[FTAGENT_RULE_A_UID] = { .type = NLA_U32 },
	[FTAGENT_RULE_A_COMM] = { .type = NLA_NUL_STRING,
				  .len = FTAGENT_COMM_LEN - 1 },
	[FTAGENT_RULE_A_CGROUP_ID] = { .type = NLA_U64 },
	[FTAGENT_RULE_A_EXE_PREFIX] = { .type = NLA_NUL_STRING,
					.len = FTAGENT_RULE_PREFIX_MAX },
	[FTAGENT_RULE_A_SUBTREE] = NLA_POLICY_MIN(NLA_U32, 1),
	[FTAGENT_RULE_A_PATH_PREFIX] = { .type = NLA_NUL_STRING,
					 .len = FTAGENT_RULE_PREFIX_MAX },
	[FTAGENT_RULE_A_PORT_MIN] = { .type = NLA_U16 },
	[FTAGENT_RULE_A_PORT_MAX] = { .type = NLA_U16 },
	[FTAGENT_RULE_A_ADDR] = { .type = NLA_BINARY, .len = 16 },
	[FTAGENT_RULE_A_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[FTAGENT_RULE_A_HITS] = { .type = NLA_REJECT },
	[FTAGENT_RULE_A_PAD] = { .type = NLA_REJECT },
};

#define FTAGENT_NET_OPS	(BIT(FTAGENT_OP_CONNECT) | BIT(FTAGENT_OP_SEND) | \
			 BIT(FTAGENT_OP_BIND))
#define FTAGENT_PATH_OPS (BIT(FTAGENT_OP_EXEC) | BIT(FTAGENT_OP_OPEN))

/*
 * extack keeps only a pointer, and the ACK is built from it after the
 * handler returns, while other requests of this family run in parallel:
 * the message must be a literal (or in the core's own storage), never a
 * shared buffer. Which rule or budget it is about, the offset of bad_attr
 * says: the client knows what it put there.
 */
void *ftagent_set_err(struct netlink_ext_ack *extack,
		      const struct nlattr *attr, const char *why)
{
	if (extack) {
		extack->_msg = why;
		extack->bad_attr = attr;
	}
	return ERR_PTR(-EINVAL);
}

static void *ftagent_rule_err(struct netlink_ext_ack *extack,
			      const struct nlattr *attr, u32 index,
			      const char *name, const char *why)
{
	/* @index and @name are what @attr's offset identifies. */
	return ftagent_set_err(extack, attr, why);
}

void ftagent_policy_free(struct ftagent_ruleset *set)
{
	unsigned int op;

	if (!set)
		return;
	for (op = 0; op < __FTAGENT_OP_MAX; op++) {
		kvfree(set->general[op]);
		kvfree(set->bucket_rules[op]);
		kvfree(set->bucket_off[op]);
	}
	if (set->hits)
		for (op = 0; op < set->n_hit_chunks; op++)
			free_percpu(set->hits[op]);
	kfree(set->hits);
	kvfree(set->rules);
	kvfree(set->strings);
	kfree(set);
}

/* Bytes of strings a rule nest brings (for one pool allocation). */
static size_t ftagent_rule_strings(const struct nlattr *nest)
{
	const struct nlattr *a;
	size_t bytes = 0;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case FTAGENT_RULE_A_NAME:
		case FTAGENT_RULE_A_EXE_PREFIX:
		case FTAGENT_RULE_A_PATH_PREFIX:
			bytes += nla_len(a) + 1;
			break;
		}
	}
	return bytes;
}

u32 ftagent_pool_add(char *pool, size_t *used, const struct nlattr *a,
		     u16 *len)
{
	const char *s = nla_data(a);
	size_t n = strnlen(s, nla_len(a));
	u32 off = *used;

	memcpy(pool + off, s, n);
	pool[off + n] = '\0';
	*used += n + 1;
	if (len)
		*len = n;
	return off;
}

const char *ftagent_principal_parse(struct ftagent_rule *who,
				    const struct ftagent_principal_attrs *a,
				    char *pool, size_t *used,
				    const struct nlattr **bad)
{
	if (a->uid) {
		who->have |= FTAGENT_RULE_HAVE_UID;
		who->uid = nla_get_u32(a->uid);
	}
	if (a->comm) {
		who->have |= FTAGENT_RULE_HAVE_COMM;
		nla_strscpy(who->comm, a->comm, sizeof(who->comm));
		if (!who->comm[0]) {
			*bad = a->comm;
			return "COMM is empty";
		}
	}
	if (a->cgroup_id) {
		who->have |= FTAGENT_RULE_HAVE_CGROUP;
		who->cgroup_id = nla_get_u64(a->cgroup_id);
	}
	if (a->subtree) {
		who->have |= FTAGENT_RULE_HAVE_SUBTREE;
		who->subtree = nla_get_u32(a->subtree);
	}
	if (a->exe_prefix) {
		who->have |= FTAGENT_RULE_HAVE_EXE;
		who->exe_off = ftagent_pool_add(pool, used, a->exe_prefix,
						&who->exe_len);
		if (pool[who->exe_off] != '/') {
			*bad = a->exe_prefix;
			return "EXE_PREFIX must be an absolute path";
		}
	}
	return NULL;
}

static void *ftagent_rule_parse(struct ftagent_ruleset *set, u32 index,
				const struct nlattr *nest, size_t *pool,
				struct netlink_ext_ack *extack)
{
	struct ftagent_rule *r = &set->rules[index];
	struct nlattr *tb[FTAGENT_RULE_A_MAX + 1];
	struct ftagent_principal_attrs who;
	const struct nlattr *bad;
	const char *name = NULL, *why;
	const char *s;
	int err;

	err = nla_parse_nested(tb, FTAGENT_RULE_A_MAX, nest,
			       ftagent_rule_policy, extack);
	if (err) {
		/* Keep the core's reason, say which rule. */
		return ftagent_rule_err(extack, extack ? extack->bad_attr : nest,
					index, NULL,
					extack && extack->_msg ? extack->_msg :
					"malformed attribute");
	}
	if (!tb[FTAGENT_RULE_A_NAME] ||
	    !nla_len(tb[FTAGENT_RULE_A_NAME]) ||
	    !*(char *)nla_data(tb[FTAGENT_RULE_A_NAME]))
		return ftagent_rule_err(extack, nest, index, NULL,
					"NAME is required");
	r->name_off = ftagent_pool_add(set->strings, pool,
				       tb[FTAGENT_RULE_A_NAME], NULL);
	name = set->strings + r->name_off;
	if (!tb[FTAGENT_RULE_A_OPS] || !nla_get_u32(tb[FTAGENT_RULE_A_OPS]))
		return ftagent_rule_err(extack, tb[FTAGENT_RULE_A_OPS] ?: nest,
					index, name,
					"OPS is required and names at least one operation");
	r->ops = nla_get_u32(tb[FTAGENT_RULE_A_OPS]);
	if (!tb[FTAGENT_RULE_A_ACTION])
		return ftagent_rule_err(extack, nest, index, name,
					"ACTION is required");
	r->action = nla_get_u32(tb[FTAGENT_RULE_A_ACTION]);
	who = (struct ftagent_principal_attrs){
		.uid = tb[FTAGENT_RULE_A_UID],
		.comm = tb[FTAGENT_RULE_A_COMM],
		.cgroup_id = tb[FTAGENT_RULE_A_CGROUP_ID],
		.exe_prefix = tb[FTAGENT_RULE_A_EXE_PREFIX],
		.subtree = tb[FTAGENT_RULE_A_SUBTREE],
	};

	why = ftagent_principal_parse(r, &who, set->strings, pool, &bad);
	if (why)
		return ftagent_rule_err(extack, bad, index, name, why);
	if (tb[FTAGENT_RULE_A_PATH_PREFIX]) {
		r->have |= FTAGENT_RULE_HAVE_PATH;
		r->path_off = ftagent_pool_add(set->strings, pool,
					       tb[FTAGENT_RULE_A_PATH_PREFIX],
					       &r->path_len);
		s = set->strings + r->path_off;
		if (s[0] != '/')
			return ftagent_rule_err(extack,
						tb[FTAGENT_RULE_A_PATH_PREFIX],
						index, name,
						"PATH_PREFIX must be an absolute path");
		if (r->ops & ~FTAGENT_PATH_OPS)
			return ftagent_rule_err(extack,
						tb[FTAGENT_RULE_A_PATH_PREFIX],
						index, name,
						"PATH_PREFIX applies to exec and open only");
	}
	if (tb[FTAGENT_RULE_A_PORT_MAX] && !tb[FTAGENT_RULE_A_PORT_MIN])
		return ftagent_rule_err(extack, tb[FTAGENT_RULE_A_PORT_MAX],
					index, name, "PORT_MAX without PORT_MIN");
	if (tb[FTAGENT_RULE_A_PORT_MIN]) {
		r->have |= FTAGENT_RULE_HAVE_PORT;
		r->port_min = nla_get_u16(tb[FTAGENT_RULE_A_PORT_MIN]);
		r->port_max = tb[FTAGENT_RULE_A_PORT_MAX] ?
			      nla_get_u16(tb[FTAGENT_RULE_A_PORT_MAX]) :
			      r->port_min;
		if (r->port_max < r->port_min)
			return ftagent_rule_err(extack,
						tb[FTAGENT_RULE_A_PORT_MAX],
						index, name,
						"PORT_MAX is below PORT_MIN");
	}
	if (tb[FTAGENT_RULE_A_PREFIX_LEN] && !tb[FTAGENT_RULE_A_ADDR])
		return ftagent_rule_err(extack, tb[FTAGENT_RULE_A_PREFIX_LEN],
					index, name, "PREFIX_LEN without ADDR");
	if (tb[FTAGENT_RULE_A_ADDR]) {
		int alen = nla_len(tb[FTAGENT_RULE_A_ADDR]);

		if (alen != 4 && alen != 16)
			return ftagent_rule_err(extack, tb[FTAGENT_RULE_A_ADDR],
						index, name,
						"ADDR is 4 (IPv4) or 16 (IPv6) bytes");
		r->have |= FTAGENT_RULE_HAVE_ADDR;
		r->family = alen == 4 ? AF_INET : AF_INET6;
		memcpy(r->addr, nla_data(tb[FTAGENT_RULE_A_ADDR]), alen);
		r->prefix_len = tb[FTAGENT_RULE_A_PREFIX_LEN] ?
				nla_get_u8(tb[FTAGENT_RULE_A_PREFIX_LEN]) :
				alen * 8;
		if (r->prefix_len > alen * 8)
			return ftagent_rule_err(extack,
						tb[FTAGENT_RULE_A_PREFIX_LEN],
						index, name,
						"PREFIX_LEN is longer than the address");
	}
	if ((r->have & (FTAGENT_RULE_HAVE_PORT | FTAGENT_RULE_HAVE_ADDR)) &&
	    (r->ops & ~FTAGENT_NET_OPS))
		return ftagent_rule_err(extack, nest, index, name,
					"ports and addresses apply to connect, send and bind only");
	return NULL;
}

/* A rule the port buckets can hold: it names exactly one port. */
static bool ftagent_rule_one_port(const struct ftagent_rule *r, u32 op)
{
	return (BIT(op) & FTAGENT_NET_OPS) &&
	       (r->have & FTAGENT_RULE_HAVE_PORT) && r->port_min == r->port_max;
}

/* Build @op's general list and port buckets; -ENOMEM. */
static int ftagent_policy_index(struct ftagent_ruleset *set, u32 op)
{
	u32 i, k, n_general = 0, n_bucketed = 0, *fill;

	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)))
			continue;
		/* Only a rule that does more than allow needs the gate. */
		if (r->action != FTAGENT_ACTION_ALLOW)
			set->gated_ops |= BIT(op);
		if (ftagent_rule_one_port(r, op))
			n_bucketed++;
		else
			n_general++;
	}
	if (n_general) {
		set->general[op] = kvcalloc(n_general, sizeof(u32), GFP_KERNEL);
		if (!set->general[op])
			return -ENOMEM;
	}
	if (n_bucketed) {
		set->bucket_rules[op] = kvcalloc(n_bucketed, sizeof(u32),
						 GFP_KERNEL);
		set->bucket_off[op] = kvcalloc(FTAGENT_PORT_BUCKETS + 1,
					       sizeof(u32), GFP_KERNEL);
		if (!set->bucket_rules[op] || !set->bucket_off[op])
			return -ENOMEM;
	}
	/* Count per bucket, turn counts into offsets, then place in order. */
	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)))
			continue;
		if (ftagent_rule_one_port(r, op))
			set->bucket_off[op][r->port_min % FTAGENT_PORT_BUCKETS + 1]++;
		else
			set->general[op][set->n_general[op]++] = i;
	}
	if (!n_bucketed)
		return 0;
	for (k = 0; k < FTAGENT_PORT_BUCKETS; k++)
		set->bucket_off[op][k + 1] += set->bucket_off[op][k];
	fill = kcalloc(FTAGENT_PORT_BUCKETS, sizeof(u32), GFP_KERNEL);
	if (!fill)
		return -ENOMEM;
	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)) || !ftagent_rule_one_port(r, op))
			continue;
		k = r->port_min % FTAGENT_PORT_BUCKETS;
		set->bucket_rules[op][set->bucket_off[op][k] + fill[k]++] = i;
	}
	kfree(fill);
	return 0;
}

struct ftagent_ruleset *ftagent_policy_parse(struct nlattr **attrs,
					     const struct nlattr *head,
					     int len,
					     struct netlink_ext_ack *extack)
{
	struct ftagent_ruleset *set;
	const struct nlattr *a;
	size_t strings = 0, pool = 0;
	u32 n = 0, i, op;
	void *err;
	int rem;

	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) != FTAGENT_CTL_A_POLICY_RULE)
			continue;
		if (++n > FTAGENT_POLICY_RULES_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "more than FTAGENT_POLICY_RULES_MAX rules");
			return ERR_PTR(-EINVAL);
		}
		strings += ftagent_rule_strings(a);
	}
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->enforce = true;
	if (attrs[FTAGENT_CTL_A_POLICY_ENFORCE])
		set->enforce = nla_get_u8(attrs[FTAGENT_CTL_A_POLICY_ENFORCE]);
	if (attrs[FTAGENT_CTL_A_POLICY_DEFAULT])
		set->default_action =
			nla_get_u32(attrs[FTAGENT_CTL_A_POLICY_DEFAULT]);
	set->n = n;
	set->rules = kvcalloc(n + 1, sizeof(*set->rules), GFP_KERNEL);
	set->strings = kvmalloc(strings + 1, GFP_KERNEL);
	set->n_hit_chunks = DIV_ROUND_UP(n + 1, FTAGENT_HITS_PER_CHUNK);
	set->hits = kcalloc(set->n_hit_chunks, sizeof(*set->hits), GFP_KERNEL);
	if (!set->rules || !set->strings || !set->hits)
		goto nomem;
	for (i = 0; i < set->n_hit_chunks; i++) {
		set->hits[i] = __alloc_percpu(sizeof(u64) *
					      FTAGENT_HITS_PER_CHUNK,
					      sizeof(u64));
		if (!set->hits[i])
			goto nomem;
	}
	i = 0;
	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) != FTAGENT_CTL_A_POLICY_RULE)
			continue;
		err = ftagent_rule_parse(set, i, a, &pool, extack);
		if (IS_ERR(err)) {
			ftagent_policy_free(set);
			return err;
		}
		i++;
	}
	for (op = 0; op < __FTAGENT_OP_MAX; op++)
		if (ftagent_policy_index(set, op))
			goto nomem;
	if (set->default_action != FTAGENT_ACTION_ALLOW)
		set->gated_ops = BIT(__FTAGENT_OP_MAX) - 1;
	return set;
nomem:
	ftagent_policy_free(set);
	return ERR_PTR(-ENOMEM);
}

int ftagent_policy_install(struct ftagent_ruleset *set)
{
	struct ftagent_ruleset *old;
	u32 gated = set ? set->gated_ops : 0;
	int err;

	if (set)
		set->generation = ftagent_policy_gen + 1;
	/*
	 * Hooks for the new set's operations go on first (they find the old
	 * set until the swap), the ones it no longer needs come off after.
	 */
	old = rcu_dereference_protected(ftagent_policy, true);
	err = ftagent_gate_refresh(gated);
	if (err)
		return err;
	rcu_assign_pointer(ftagent_policy, set);
	ftagent_policy_gen++;
	ftagent_gate_refresh(0);
	if (old) {
		/* Gate callbacks run with preemption off: an RCU reader. */
		synchronize_rcu();
		ftagent_policy_free(old);
	}
	return 0;
}

u64 ftagent_policy_generation(void)
{
	return ftagent_policy_gen;
}

u64 ftagent_policy_hits(const struct ftagent_ruleset *set, u32 i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(set->hits[i / FTAGENT_HITS_PER_CHUNK],
				   cpu)[i % FTAGENT_HITS_PER_CHUNK];
	return sum;
}

const char *ftagent_rule_name(const struct ftagent_ruleset *set, u32 i)
{
	return set->strings + set->rules[i].name_off;
}

int ftagent_policy_put_rule(struct sk_buff *msg,
			    const struct ftagent_ruleset *set, u32 i)
{
	const struct ftagent_rule *r = &set->rules[i];
	struct nlattr *nest;

	nest = nla_nest_start(msg, FTAGENT_CTL_A_POLICY_RULE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, FTAGENT_RULE_A_NAME, ftagent_rule_name(set, i)) ||
	    nla_put_u32(msg, FTAGENT_RULE_A_OPS, r->ops) ||
	    nla_put_u32(msg, FTAGENT_RULE_A_ACTION, r->action) ||
	    ((r->have & FTAGENT_RULE_HAVE_UID) &&
	     nla_put_u32(msg, FTAGENT_RULE_A_UID, r->uid)) ||
	    ((r->have & FTAGENT_RULE_HAVE_COMM) &&
	     nla_put_string(msg, FTAGENT_RULE_A_COMM, r->comm)) ||
	    ((r->have & FTAGENT_RULE_HAVE_CGROUP) &&
	     nla_put_u64_64bit(msg, FTAGENT_RULE_A_CGROUP_ID, r->cgroup_id,
			       FTAGENT_RULE_A_PAD)) ||
	    ((r->have & FTAGENT_RULE_HAVE_EXE) &&
	     nla_put_string(msg, FTAGENT_RULE_A_EXE_PREFIX,
			    set->strings + r->exe_off)) ||
	    ((r->have & FTAGENT_RULE_HAVE_SUBTREE) &&
	     nla_put_u32(msg, FTAGENT_RULE_A_SUBTREE, r->subtree)) ||
	    ((r->have & FTAGENT_RULE_HAVE_PATH) &&
	     nla_put_string(msg, FTAGENT_RULE_A_PATH_PREFIX,
			    set->strings + r->path_off)) ||
	    ((r->have & FTAGENT_RULE_HAVE_PORT) &&
	     (nla_put_u16(msg, FTAGENT_RULE_A_PORT_MIN, r->port_min) ||
	      nla_put_u16(msg, FTAGENT_RULE_A_PORT_MAX, r->port_max))) ||
	    ((r->have & FTAGENT_RULE_HAVE_ADDR) &&
	     (nla_put(msg, FTAGENT_RULE_A_ADDR,
		      r->family == AF_INET ? 4 : 16, r->addr) ||
	      nla_put_u8(msg, FTAGENT_RULE_A_PREFIX_LEN, r->prefix_len))) ||
	    nla_put_u64_64bit(msg, FTAGENT_RULE_A_HITS,
			      ftagent_policy_hits(set, i), FTAGENT_RULE_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

void ftagent_policy_exit(void)
{
	struct ftagent_ruleset *old;

	old = rcu_dereference_protected(ftagent_policy, true);
	RCU_INIT_POINTER(ftagent_policy, NULL);
	ftagent_gate_refresh(0);
	synchronize_rcu();
	ftagent_policy_free(old);
}
