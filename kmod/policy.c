// SPDX-License-Identifier: GPL-2.0
/*
 * Policy rule sets: SET_POLICY is parsed into a new set, checked whole,
 * and only then swapped in; readers at the gate take the set under RCU
 * (preemption off) and never lock. A bad rule rejects the request with a
 * message naming the rule by index and name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "gate.h"
#include "memory.h"
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

static const u16 ftagent_rule_string_types[] = {
	FTAGENT_RULE_A_NAME, FTAGENT_RULE_A_COMM, FTAGENT_RULE_A_EXE_PREFIX,
	FTAGENT_RULE_A_PATH_PREFIX,
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

/* What a built index holds (memory.h); 0 for none. */
static size_t ftagent_addr_index_bytes(const struct ftagent_addr_index *ai)
{
	size_t n = ai->n;

	if (!n)
		return 0;
	return ftagent_kv_bytes(ai->off, n * sizeof(u32)) +
	       ftagent_kv_bytes(ai->rules, ai->n_rules * sizeof(u32)) +
	       ftagent_kv_bytes(ai->start4, n * sizeof(u32)) +
	       ftagent_kv_bytes(ai->bucket4, BIT(16) * sizeof(u32)) +
	       (ai->busy4 ? kmalloc_size_roundup(BITS_TO_LONGS(BIT(16)) *
						 sizeof(long)) : 0) +
	       ftagent_kv_bytes(ai->start6, n * sizeof(*ai->start6));
}

static void ftagent_addr_index_free(struct ftagent_addr_index *ai)
{
	kvfree(ai->start4);
	kvfree(ai->bucket4);
	bitmap_free(ai->busy4);
	kvfree(ai->start6);
	kvfree(ai->off);
	kvfree(ai->rules);
	memset(ai, 0, sizeof(*ai));
}

void ftagent_policy_free(struct ftagent_ruleset *set)
{
	unsigned int op;

	if (!set)
		return;
	for (op = 0; op < __FTAGENT_OP_MAX; op++) {
		kvfree(set->general[op]);
		kvfree(set->ports[op].slots);
		kvfree(set->ports[op].rules);
		bitmap_free(set->port_bits[op]);
		ftagent_addr_index_free(&set->addr4[op]);
		ftagent_addr_index_free(&set->addr6[op]);
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

/*
 * NLA_NUL_STRING only asks for a NUL somewhere in the payload; whatever
 * follows it would be dropped without a word ("/etc/\0/home" would read
 * as "/etc/"). Only NUL padding may follow the first NUL.
 */
const struct nlattr *ftagent_strings_check(struct nlattr **tb,
					   const u16 *types, unsigned int n)
{
	const struct nlattr *a;
	unsigned int i;
	size_t len;

	for (i = 0; i < n; i++) {
		a = tb[types[i]];
		if (!a)
			continue;
		len = strnlen(nla_data(a), nla_len(a));
		if (memchr_inv((const char *)nla_data(a) + len, 0,
			       nla_len(a) - len))
			return a;
	}
	return NULL;
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
	bad = ftagent_strings_check(tb, ftagent_rule_string_types,
				    ARRAY_SIZE(ftagent_rule_string_types));
	if (bad)
		return ftagent_rule_err(extack, bad, index, NULL,
					FTAGENT_STRING_TAIL_MSG);
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

/* Where a rule naming an op is filed for it (struct ftagent_ruleset). */
enum ftagent_rule_file {
	FTAGENT_FILE_GENERAL,
	FTAGENT_FILE_PORT,
	FTAGENT_FILE_ADDR,
};

static enum ftagent_rule_file ftagent_rule_file(const struct ftagent_rule *r,
						u32 op, bool addr_index)
{
	if (!(BIT(op) & FTAGENT_NET_OPS))
		return FTAGENT_FILE_GENERAL;
	if (addr_index && (r->have & FTAGENT_RULE_HAVE_ADDR))
		return FTAGENT_FILE_ADDR;
	if ((r->have & (FTAGENT_RULE_HAVE_PORT | FTAGENT_RULE_HAVE_ADDR)) ==
	    FTAGENT_RULE_HAVE_PORT && r->port_min == r->port_max)
		return FTAGENT_FILE_PORT;
	return FTAGENT_FILE_GENERAL;
}

static int ftagent_a128_cmp(const struct ftagent_addr128 *a,
			    const struct ftagent_addr128 *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int ftagent_a128_sort_cmp(const void *a, const void *b)
{
	return ftagent_a128_cmp(a, b);
}

/* An address rule's prefix as a range [first, last] of its family's table. */
struct ftagent_addr_range {
	u32 rule;
	struct ftagent_addr128 first, last;
};

/* @bits leading ones of a 64-bit half (0 to 64). */
static u64 ftagent_mask64(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : bits ? ~0ULL << (64 - bits) : 0;
}

/*
 * @r's prefix in the table of @family: an IPv4 rule is 32-bit numbers in
 * the IPv4 table and ::ffff:a.b.c.d/96+len in the IPv6 one.
 */
static void ftagent_addr_range(const struct ftagent_rule *r, u16 family,
			       struct ftagent_addr_range *e)
{
	struct ftagent_addr128 a;
	unsigned int len = r->prefix_len;
	u64 mhi, mlo;

	if (r->family == AF_INET6) {
		a.hi = ftagent_be64_at(r->addr);
		a.lo = ftagent_be64_at(r->addr + 8);
	} else if (family == AF_INET) {
		a.hi = 0;
		a.lo = ftagent_be32_at(r->addr);
		len += 96;
	} else {
		a.hi = 0;
		a.lo = 0xffff00000000ULL | ftagent_be32_at(r->addr);
		len += 96;
	}
	mhi = ftagent_mask64(len);
	mlo = ftagent_mask64(len > 64 ? len - 64 : 0);
	if (family == AF_INET)
		mhi = ~0ULL;	/* IPv4: the high half stays 0 */
	e->first.hi = a.hi & mhi;
	e->first.lo = a.lo & mlo;
	e->last.hi = a.hi | ~mhi;
	e->last.lo = family == AF_INET ? (a.lo | ~mlo) & 0xffffffffULL :
					 a.lo | ~mlo;
}

/* The interval that begins at @x (one does: @x is a boundary). */
static u32 ftagent_interval_of(const struct ftagent_addr128 *start, u32 n,
			       const struct ftagent_addr128 *x)
{
	u32 lo = 0, hi = n;

	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (ftagent_a128_cmp(&start[mid], x) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * For each /16 of an IPv4 index: the intervals from the one holding its
 * first address (start4[0] is 0) to the one holding its last; whether
 * that is one interval; whether any of them has rules.
 */
static void ftagent_addr4_buckets(struct ftagent_addr_index *ai)
{
	u32 b, k = 0, last, j;

	for (b = 0; b < BIT(16); b++) {
		while (k + 1 < ai->n && ai->start4[k + 1] <= b << 16)
			k++;
		for (last = k; last + 1 < ai->n &&
		     ai->start4[last + 1] <= (b << 16 | 0xffff); last++)
			;
		ai->bucket4[b] = k | (last == k ? FTAGENT_BUCKET_ONE : 0);
		for (j = k; j <= last; j++)
			if (ai->rules[ai->off[j]] != FTAGENT_RULE_END) {
				__set_bit(b, ai->busy4);
				break;
			}
	}
}

/*
 * Build the index of @family's address rules for @op; -ENOMEM, or -E2BIG
 * when it would hold more than FTAGENT_ADDR_INDEX_MAX entries.
 */
static int ftagent_addr_index_build(struct ftagent_ruleset *set, u32 op,
				    u16 family, struct ftagent_addr_index *ai)
{
	const struct ftagent_addr128 end = {
		.hi = family == AF_INET ? 0 : ~0ULL,
		.lo = family == AF_INET ? 0xffffffffULL : ~0ULL,
	};
	struct ftagent_addr_range *e = NULL;
	struct ftagent_addr128 *b = NULL;
	u32 *cnt = NULL, *first = NULL, *last = NULL;
	u32 m = 0, nb, i, j, k;
	u64 total = 0;
	int err = -ENOMEM;

	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if ((r->ops & BIT(op)) && (r->have & FTAGENT_RULE_HAVE_ADDR) &&
		    (r->family == family || family == AF_INET6))
			m++;
	}
	if (!m)
		return 0;
	e = kvcalloc(m, sizeof(*e), GFP_KERNEL);
	b = kvcalloc(2 * m + 1, sizeof(*b), GFP_KERNEL);
	first = kvcalloc(m, sizeof(u32), GFP_KERNEL);
	last = kvcalloc(m, sizeof(u32), GFP_KERNEL);
	if (!e || !b || !first || !last)
		goto out;
	/* Every first address, and the one after every last: the cuts. */
	nb = 0;
	b[nb++] = (struct ftagent_addr128){ 0, 0 };
	for (i = 0, j = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)) || !(r->have & FTAGENT_RULE_HAVE_ADDR) ||
		    (r->family != family && family != AF_INET6))
			continue;
		e[j].rule = i;
		ftagent_addr_range(r, family, &e[j]);
		b[nb++] = e[j].first;
		if (ftagent_a128_cmp(&e[j].last, &end)) {
			b[nb] = e[j].last;
			if (!++b[nb].lo)
				b[nb].hi++;
			nb++;
		}
		j++;
	}
	sort(b, nb, sizeof(*b), ftagent_a128_sort_cmp, NULL);
	for (i = 1, k = 1; i < nb; i++)
		if (ftagent_a128_cmp(&b[i], &b[k - 1]))
			b[k++] = b[i];
	nb = k;
	/* Each rule covers the intervals first[j] to last[j] - 1. */
	cnt = kvcalloc(nb + 1, sizeof(u32), GFP_KERNEL);
	if (!cnt)
		goto out;
	for (j = 0; j < m; j++) {
		struct ftagent_addr128 after = e[j].last;

		first[j] = ftagent_interval_of(b, nb, &e[j].first);
		if (ftagent_a128_cmp(&after, &end)) {
			if (!++after.lo)
				after.hi++;
			last[j] = ftagent_interval_of(b, nb, &after);
		} else {
			last[j] = nb;
		}
		total += last[j] - first[j];
		if (total > FTAGENT_ADDR_INDEX_MAX) {
			err = -E2BIG;
			goto out;
		}
		cnt[first[j]]++;
		cnt[last[j]]--;
	}
	ai->n = nb;
	ai->off = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
	ai->rules = kvcalloc(total + nb, sizeof(u32), GFP_KERNEL);
	if (family == AF_INET) {
		ai->start4 = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
		ai->bucket4 = kvmalloc_array(BIT(16), sizeof(u32), GFP_KERNEL);
		ai->busy4 = bitmap_zalloc(BIT(16), GFP_KERNEL);
	} else {
		ai->start6 = kvcalloc(nb, sizeof(*ai->start6), GFP_KERNEL);
	}
	if (!ai->off || !ai->rules ||
	    (family == AF_INET ? !ai->start4 || !ai->bucket4 || !ai->busy4 :
				 !ai->start6))
		goto out;
	ai->n_rules = total + nb;
	/* Counts from the differences; each list then ends with END. */
	for (k = 1; k < nb; k++)
		cnt[k] += cnt[k - 1];
	for (k = 0, i = 0; k < nb; k++) {
		ai->off[k] = i;
		i += cnt[k] + 1;
		ai->rules[i - 1] = FTAGENT_RULE_END;
		cnt[k] = 0;
		if (family == AF_INET)
			ai->start4[k] = b[k].lo;
		else
			ai->start6[k] = b[k];
	}
	/* In rule order, so each interval's list is sorted. */
	for (j = 0; j < m; j++)
		for (k = first[j]; k < last[j]; k++)
			ai->rules[ai->off[k] + cnt[k]++] = e[j].rule;
	if (family == AF_INET)
		ftagent_addr4_buckets(ai);
	err = 0;
out:
	if (err)
		ftagent_addr_index_free(ai);
	kvfree(cnt);
	kvfree(first);
	kvfree(last);
	kvfree(b);
	kvfree(e);
	return err;
}

/*
 * Build @op's port index from its one-port rules, and the shortcut's
 * port bits when all of @op's rules are @indexed; -ENOMEM.
 */
static int ftagent_port_index_build(struct ftagent_ruleset *set, u32 op,
				    bool addr_index, u32 n_port, bool indexed)
{
	struct ftagent_port_index *pi = &set->ports[op];
	u32 *cnt, i, h, mask, used = 0;
	int err = -ENOMEM;

	if (!n_port)
		return 0;
	pi->bits = ilog2(roundup_pow_of_two(2 * n_port));
	mask = BIT(pi->bits) - 1;
	pi->mask = mask;
	pi->slots = kvcalloc(mask + 1, sizeof(*pi->slots), GFP_KERNEL);
	cnt = kvcalloc(mask + 1, sizeof(u32), GFP_KERNEL);
	if (!pi->slots || !cnt)
		goto out;
	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)) ||
		    ftagent_rule_file(r, op, addr_index) != FTAGENT_FILE_PORT)
			continue;
		for (h = hash_32(r->port_min, pi->bits);
		     pi->slots[h].port && pi->slots[h].port != r->port_min + 1;
		     h = (h + 1) & mask)
			;
		if (!pi->slots[h].port)
			used++;
		pi->slots[h].port = r->port_min + 1;
		cnt[h]++;
	}
	pi->rules = kvcalloc(n_port + used, sizeof(u32), GFP_KERNEL);
	/* The shortcut's bits, for an op with all its rules indexed. */
	if (indexed)
		set->port_bits[op] = bitmap_zalloc(BIT(16), GFP_KERNEL);
	if (!pi->rules || (indexed && !set->port_bits[op]))
		goto out;
	set->bytes += ftagent_kv_bytes(pi->slots,
				       (mask + 1) * sizeof(*pi->slots)) +
		      ftagent_kv_bytes(pi->rules,
				       (n_port + used) * sizeof(u32));
	if (indexed)
		set->bytes += kmalloc_size_roundup(BITS_TO_LONGS(BIT(16)) *
						   sizeof(long));
	for (h = 0, i = 0; h <= mask; h++) {
		if (!pi->slots[h].port)
			continue;
		pi->slots[h].off = i;
		i += cnt[h] + 1;
		pi->rules[i - 1] = FTAGENT_RULE_END;
		cnt[h] = 0;
	}
	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)) ||
		    ftagent_rule_file(r, op, addr_index) != FTAGENT_FILE_PORT)
			continue;
		for (h = hash_32(r->port_min, pi->bits);
		     pi->slots[h].port != r->port_min + 1; h = (h + 1) & mask)
			;
		pi->rules[pi->slots[h].off + cnt[h]++] = i;
		if (indexed)
			__set_bit(r->port_min, set->port_bits[op]);
	}
	err = 0;
out:
	kvfree(cnt);
	return err;
}

/* Build @op's indexes and general list; -ENOMEM. */
static int ftagent_policy_index(struct ftagent_ruleset *set, u32 op)
{
	u32 i, n_general = 0, n_port = 0, k = 0;
	bool addr_index = true;
	int err;

	err = ftagent_addr_index_build(set, op, AF_INET, &set->addr4[op]);
	if (!err)
		err = ftagent_addr_index_build(set, op, AF_INET6,
					       &set->addr6[op]);
	if (err == -E2BIG) {
		/* Too many nested alike: these rules go to the general list. */
		ftagent_addr_index_free(&set->addr4[op]);
		ftagent_addr_index_free(&set->addr6[op]);
		addr_index = false;
	} else if (err) {
		return err;
	}
	for (i = 0; i < set->n; i++) {
		const struct ftagent_rule *r = &set->rules[i];

		if (!(r->ops & BIT(op)))
			continue;
		/* Only a rule that does more than allow needs the gate. */
		if (r->action != FTAGENT_ACTION_ALLOW)
			set->gated_ops |= BIT(op);
		switch (ftagent_rule_file(r, op, addr_index)) {
		case FTAGENT_FILE_GENERAL:
			n_general++;
			break;
		case FTAGENT_FILE_PORT:
			n_port++;
			break;
		case FTAGENT_FILE_ADDR:
			break;
		}
	}
	set->general[op] = kvcalloc(n_general + 1, sizeof(u32), GFP_KERNEL);
	if (!set->general[op])
		return -ENOMEM;
	/* The address indexes as kept (none, after -E2BIG) and the list. */
	set->bytes += ftagent_addr_index_bytes(&set->addr4[op]) +
		      ftagent_addr_index_bytes(&set->addr6[op]) +
		      ftagent_kv_bytes(set->general[op],
				       (n_general + 1) * sizeof(u32));
	for (i = 0; i < set->n; i++)
		if ((set->rules[i].ops & BIT(op)) &&
		    ftagent_rule_file(&set->rules[i], op, addr_index) ==
		    FTAGENT_FILE_GENERAL)
			set->general[op][k++] = i;
	set->general[op][k] = FTAGENT_RULE_END;
	if (!n_general)
		set->indexed_ops |= BIT(op);
	if (set->addr4[op].n)
		set->addr4_ops |= BIT(op);
	if (set->addr6[op].n)
		set->addr6_ops |= BIT(op);
	return ftagent_port_index_build(set, op, addr_index, n_port,
					!n_general);
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
	set->default_hit = set->hits[n / FTAGENT_HITS_PER_CHUNK] +
			   n % FTAGENT_HITS_PER_CHUNK;
	set->bytes = kmalloc_size_roundup(sizeof(*set)) +
		     ftagent_kv_bytes(set->rules,
				      (n + 1) * sizeof(*set->rules)) +
		     ftagent_kv_bytes(set->strings, strings + 1) +
		     kmalloc_size_roundup(set->n_hit_chunks *
					  sizeof(*set->hits)) +
		     set->n_hit_chunks *
		     ftagent_percpu_bytes(sizeof(u64) *
					  FTAGENT_HITS_PER_CHUNK);
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
	set->indexed_ops &= set->gated_ops;
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

/* The rule set in force, read as the gate reads it. */
size_t ftagent_policy_memory(void)
{
	const struct ftagent_ruleset *set;
	size_t bytes;

	rcu_read_lock_sched();
	set = rcu_dereference_sched(ftagent_policy);
	bytes = set ? set->bytes : 0;
	rcu_read_unlock_sched();
	return bytes;
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
