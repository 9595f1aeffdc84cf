/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy rule set: parsed and checked whole from SET_POLICY, swapped
 * in under RCU, matched lock-free at the gate (gate.c).
 */
#ifndef _FTAGENT_POLICY_H
#define _FTAGENT_POLICY_H

#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/ftagent.h>

/* Which principal and object attributes a rule has. */
#define FTAGENT_RULE_HAVE_UID		BIT(0)
#define FTAGENT_RULE_HAVE_COMM		BIT(1)
#define FTAGENT_RULE_HAVE_CGROUP	BIT(2)
#define FTAGENT_RULE_HAVE_EXE		BIT(3)
#define FTAGENT_RULE_HAVE_SUBTREE	BIT(4)
#define FTAGENT_RULE_HAVE_PATH		BIT(5)
#define FTAGENT_RULE_HAVE_PORT		BIT(6)
#define FTAGENT_RULE_HAVE_ADDR		BIT(7)

struct ftagent_rule {
	u32 have;		/* FTAGENT_RULE_HAVE_* */
	u32 ops;		/* bits (1 << enum ftagent_op) */
	u8 action;		/* enum ftagent_action */
	u8 family;		/* HAVE_ADDR: AF_INET or AF_INET6 */
	u8 prefix_len;
	u16 port_min, port_max;
	u32 uid;
	u32 subtree;
	u64 cgroup_id;
	u8 addr[16];
	char comm[FTAGENT_COMM_LEN];
	/* Offsets into the set's string pool, and lengths. */
	u32 name_off, exe_off, path_off;
	u16 exe_len, path_len;
};

/* Ends every rule list of the indexes below (no rule has this index). */
#define FTAGENT_RULE_END	U32_MAX

/*
 * The rules that name one port: an open-addressing hash (linear probing,
 * at most half full) of the ports, each slot pointing at its port's
 * rule indexes in rules[].
 */
struct ftagent_port_slot {
	u32 port;		/* the port + 1; 0: an empty slot */
	u32 off;		/* its list in rules[] */
};

struct ftagent_port_index {
	u32 bits;		/* log2 of the slots; no slots: no index */
	u32 mask;		/* the slots - 1 */
	struct ftagent_port_slot *slots;
	u32 *rules;
};

/*
 * Big-endian numbers at any alignment (asm/unaligned.h became
 * linux/unaligned.h in 6.12: memcpy compiles to a plain load on both).
 */
static inline u32 ftagent_be32_at(const u8 *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 ftagent_be64_at(const u8 *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

/* An IPv6 address as a number, most significant half first. */
struct ftagent_addr128 {
	u64 hi, lo;
};

/*
 * The rules with an address, of one family: the address space cut into
 * disjoint intervals at every prefix's first address and after its
 * last, each interval holding the rules whose prefix covers it. start[k]
 * is where interval k begins (start[0] is 0; it ends where k + 1 begins,
 * the last one at the end of the space); off[k] its list in rules[].
 * Found by binary search; for IPv4, only among the intervals of the
 * address's /16: bucket4[b] is the interval holding address b << 16,
 * with FTAGENT_BUCKET_ONE when the whole /16 lies inside it (then no
 * search); busy4 has a bit for each /16 that any rule's prefix covers
 * part of, so that the gate's shortcut tests one bit for the others.
 */
struct ftagent_addr_index {
	u32 n;			/* intervals; 0: no index */
	u32 *start4;		/* AF_INET, host order */
	u32 *bucket4;		/* AF_INET: BIT(16) entries */
	unsigned long *busy4;	/* AF_INET: BIT(16) bits */
	struct ftagent_addr128 *start6;	/* AF_INET6 */
	u32 *off;
	u32 *rules;
	u32 n_rules;		/* entries in rules, the ENDs included */
};

/*
 * At most this many entries in one address index (a rule counts once per
 * interval it covers): beyond, that operation's address rules are tried
 * in the general list instead. Prefixes that differ nest at most 33 (IPv4)
 * or 129 (IPv6) deep, so only many rules with the same prefixes nested
 * in each other come near it.
 */
#define FTAGENT_ADDR_INDEX_MAX	BIT(22)

/* In bucket4[b]: the /16 b lies inside one interval (below: its index). */
#define FTAGENT_BUCKET_ONE	BIT(31)

struct ftagent_ruleset {
	u64 generation;
	size_t bytes;		/* what the set holds (memory.h) */
	bool enforce;
	u8 default_action;
	u32 gated_ops;		/* ops whose calls the gate must see */
	u32 n;
	struct ftagent_rule *rules;
	/*
	 * For each op, the indexes of the rules that name it, in rule order,
	 * filed in one of three places so that a call looks only at the
	 * rules that can match it: a rule with an address in the address
	 * index of its family (an IPv4 rule in the IPv6 one as well, as its
	 * IPv4-mapped prefix), one with exactly one port and no address in
	 * the port index, all others in the general list. Each list ends
	 * with FTAGENT_RULE_END. The gate merges the general list, the
	 * call's port list and its address interval's list in rule order and
	 * tries each rule whole, so the first match is the one a scan of
	 * every rule finds.
	 */
	u32 *general[__FTAGENT_OP_MAX];
	struct ftagent_port_index ports[__FTAGENT_OP_MAX];
	struct ftagent_addr_index addr4[__FTAGENT_OP_MAX];
	struct ftagent_addr_index addr6[__FTAGENT_OP_MAX];
	/*
	 * n + 1 hit counters (the last is the default's), per CPU, in chunks:
	 * one per-CPU allocation may not exceed 32 KiB.
	 */
	u64 __percpu **hits;
	u32 n_hit_chunks;
	u64 __percpu *default_hit;	/* hits' last counter */
	/*
	 * The gate's shortcut (gate.c, ftagent_gate_by_default()): the gated
	 * ops whose rules are all in an index (none in the general list), and
	 * of those with one-port rules, a bit per port that has some. A call
	 * of such an op that names no address, or a port without its bit
	 * and an address in an interval without rules, is decided by the
	 * default without the merge: no rule can match it.
	 */
	u32 indexed_ops;
	u32 addr4_ops, addr6_ops;	/* ops with an index of that family */
	unsigned long *port_bits[__FTAGENT_OP_MAX];
	char *strings;
};

/*
 * Shared by rule and budget sets. ftagent_set_err() refuses a set with
 * the literal @why (never a formatted buffer: parallel requests would
 * share it) and points at @attr; it returns ERR_PTR(-EINVAL).
 * ftagent_pool_add() copies a string attribute into a set's string pool.
 */
void *ftagent_set_err(struct netlink_ext_ack *extack,
		      const struct nlattr *attr, const char *why);
u32 ftagent_pool_add(char *pool, size_t *used, const struct nlattr *a,
		     u16 *len);

/*
 * The first of the string attributes @types[0..@n) in @tb with anything
 * but NULs after its first NUL; NULL if none. Refused with the message
 * below.
 */
const struct nlattr *ftagent_strings_check(struct nlattr **tb,
					   const u16 *types, unsigned int n);
#define FTAGENT_STRING_TAIL_MSG "a string attribute has bytes after its NUL"

/* The principal attributes of a rule or a budget (NULL: absent). */
struct ftagent_principal_attrs {
	const struct nlattr *uid, *comm, *cgroup_id, *exe_prefix, *subtree;
};

/* Fill @who's principal; NULL, or why it is refused with *@bad set. */
const char *ftagent_principal_parse(struct ftagent_rule *who,
				    const struct ftagent_principal_attrs *a,
				    char *pool, size_t *used,
				    const struct nlattr **bad);

/* The set in force; NULL: no gate. Read with preemption off. */
extern struct ftagent_ruleset __rcu *ftagent_policy;

/*
 * Build a rule set from a SET_POLICY request; NULL with @extack set (an
 * ERR_PTR) on any bad rule. Process context.
 */
struct ftagent_ruleset *ftagent_policy_parse(struct nlattr **attrs,
					     const struct nlattr *head,
					     int len,
					     struct netlink_ext_ack *extack);
void ftagent_policy_free(struct ftagent_ruleset *set);

/* Swap @set in (NULL: none) and make the gate follow. Config lock held. */
int ftagent_policy_install(struct ftagent_ruleset *set);
/* Current generation (0 before the first set). */
u64 ftagent_policy_generation(void);

/* Put a rule's attributes in a nest of @msg (for GET_POLICY). */
int ftagent_policy_put_rule(struct sk_buff *msg,
			    const struct ftagent_ruleset *set, u32 i);
#define FTAGENT_HITS_PER_CHUNK	2048

u64 ftagent_policy_hits(const struct ftagent_ruleset *set, u32 i);

/* Hot path, preemption off: count a decision of rule @i (n: the default). */
static inline void ftagent_policy_hit(const struct ftagent_ruleset *set, u32 i)
{
	this_cpu_ptr(set->hits[i / FTAGENT_HITS_PER_CHUNK])
		[i % FTAGENT_HITS_PER_CHUNK]++;
}

const char *ftagent_rule_name(const struct ftagent_ruleset *set, u32 i);

void ftagent_policy_exit(void);

#endif /* _FTAGENT_POLICY_H */
