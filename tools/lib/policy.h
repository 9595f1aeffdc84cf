/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's policy rule set (SET_POLICY, GET_POLICY), as plain
 * structs. Like filters.h, the client checks nothing itself: the module
 * validates every rule and names the one it refuses.
 */
#ifndef FTAGENT_LIB_POLICY_H
#define FTAGENT_LIB_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"

/* Which optional fields of a rule are set. */
#define FTAGENT_RULE_SET_UID	    (1u << 0)
#define FTAGENT_RULE_SET_COMM	    (1u << 1)
#define FTAGENT_RULE_SET_CGROUP	    (1u << 2)
#define FTAGENT_RULE_SET_EXE	    (1u << 3)
#define FTAGENT_RULE_SET_SUBTREE    (1u << 4)
#define FTAGENT_RULE_SET_PATH	    (1u << 5)
#define FTAGENT_RULE_SET_PORT	    (1u << 6)
#define FTAGENT_RULE_SET_ADDR	    (1u << 7)
#define FTAGENT_RULE_SET_PREFIX_LEN (1u << 8)
#define FTAGENT_RULE_SET_ACTION	    (1u << 9) /* said, not defaulted */

struct ftagent_rule_spec {
	char name[FTAGENT_RULE_NAME_MAX + 1];
	uint32_t ops;	  /* bits (1 << enum ftagent_op) */
	uint32_t action;  /* enum ftagent_action */
	unsigned int set; /* FTAGENT_RULE_SET_* */
	uint32_t uid, subtree;
	char comm[FTAGENT_COMM_LEN];
	uint64_t cgroup_id;
	char exe_prefix[FTAGENT_RULE_PREFIX_MAX + 1];
	char path_prefix[FTAGENT_RULE_PREFIX_MAX + 1];
	uint16_t port_min, port_max;
	uint8_t addr[16];
	uint8_t addr_len; /* 4 or 16 */
	uint8_t prefix_len;
	uint64_t hits; /* GET_POLICY */
};

struct ftagent_policy_spec {
	int enforce;		 /* 1: refuse; 0: monitor */
	uint32_t default_action; /* enum ftagent_action */
	struct ftagent_rule_spec *rules;
	size_t n, cap;
	uint64_t generation, default_hits; /* GET_POLICY */
};

void ftagent_policy_spec_init(struct ftagent_policy_spec *p);
void ftagent_policy_spec_free(struct ftagent_policy_spec *p);
/* A new zeroed rule at the end, or NULL when memory ran out. */
struct ftagent_rule_spec *ftagent_policy_spec_add(
	struct ftagent_policy_spec *p);

/* SET_POLICY. 0 and *@generation, or -1 with @err (the module's reason). */
int ftagent_set_policy(struct ftnl *ctl, const struct ftagent_policy_spec *p,
		       uint64_t *generation, struct ftnl_error *err);
/*
 * The SET_POLICY request's attributes, as ftagent_set_policy() sends
 * them, into @req (a header already put) in a buffer of at least
 * ftagent_policy_msg_size(@p) bytes. ftagent_policy_parse() reads a
 * message's attributes back into @p (initialised); MNL_CB_*.
 */
size_t ftagent_policy_msg_size(const struct ftagent_policy_spec *p);
void ftagent_policy_put(struct nlmsghdr *req,
			const struct ftagent_policy_spec *p);
int ftagent_policy_parse(const struct nlmsghdr *nlh,
			 struct ftagent_policy_spec *p);
/*
 * 1 when @a and @b decide alike: the same mode, default and rules in the
 * same order, each with the same fields (hit counts aside). A set read
 * back with GET_POLICY compares equal to the one that was pushed.
 */
int ftagent_policy_spec_equal(const struct ftagent_policy_spec *a,
			      const struct ftagent_policy_spec *b);
/* GET_POLICY into @p (initialised). 0, or -1 with @err. */
int ftagent_get_policy(struct ftnl *ctl, struct ftagent_policy_spec *p,
		       struct ftnl_error *err);

/*
 * Shared with budgets.c. ftagent_set_transact(): send a SET_POLICY or
 * SET_BUDGETS request, raising the socket's send buffer to its size, and
 * read back the generation now in force. ftagent_attr_str(): copy a
 * NUL-terminated string attribute of at most @size bytes; MNL_CB_*.
 */
int ftagent_set_transact(struct ftnl *ctl, struct nlmsghdr *req,
			 uint64_t *generation, struct ftnl_error *err);
int ftagent_attr_str(const struct nlattr *a, char *out, size_t size);

/* Names: "exec", "deny", "denied"; "unknown" when out of range. */
const char *ftagent_op_name(unsigned int op);
const char *ftagent_action_name(unsigned int action);
const char *ftagent_verdict_name(unsigned int verdict);

#endif /* FTAGENT_LIB_POLICY_H */
