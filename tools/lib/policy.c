// SPDX-License-Identifier: GPL-2.0
/*
 * SET_POLICY and GET_POLICY. A rule set can be large (16384 rules of up to
 * ~600 bytes), more than a netlink socket sends by default, so the request
 * is built in a buffer of its own size and the socket's send buffer is
 * raised to match (SO_SNDBUFFORCE: the caller has CAP_NET_ADMIN anyway).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "policy.h"

static const char *const op_names[__FTAGENT_OP_MAX] = {
	[FTAGENT_OP_EXEC] = "exec", [FTAGENT_OP_CONNECT] = "connect",
	[FTAGENT_OP_OPEN] = "open", [FTAGENT_OP_SEND] = "send",
	[FTAGENT_OP_BIND] = "bind",
};

static const char *const action_names[__FTAGENT_ACTION_MAX] = {
	[FTAGENT_ACTION_ALLOW] = "allow",
	[FTAGENT_ACTION_DENY] = "deny",
	[FTAGENT_ACTION_AUDIT] = "audit",
};

static const char *const verdict_names[__FTAGENT_VERDICT_MAX] = {
	[FTAGENT_VERDICT_DENIED] = "denied",
	[FTAGENT_VERDICT_WOULD_DENY] = "would_deny",
	[FTAGENT_VERDICT_AUDITED] = "audited",
	[FTAGENT_VERDICT_OVER_BUDGET] = "over_budget",
	[FTAGENT_VERDICT_BUDGET_ALERT] = "budget_alert",
	[FTAGENT_VERDICT_KILLED] = "killed",
};

const char *ftagent_op_name(unsigned int op)
{
	return op < __FTAGENT_OP_MAX ? op_names[op] : "unknown";
}

const char *ftagent_action_name(unsigned int action)
{
	return action < __FTAGENT_ACTION_MAX ? action_names[action] : "unknown";
}

const char *ftagent_verdict_name(unsigned int verdict)
{
	return verdict < __FTAGENT_VERDICT_MAX ? verdict_names[verdict]
					       : "unknown";
}

void ftagent_policy_spec_init(struct ftagent_policy_spec *p)
{
	memset(p, 0, sizeof(*p));
	p->enforce = 1;
}

void ftagent_policy_spec_free(struct ftagent_policy_spec *p)
{
	free(p->rules);
	ftagent_policy_spec_init(p);
}

struct ftagent_rule_spec *ftagent_policy_spec_add(struct ftagent_policy_spec *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct ftagent_rule_spec *r =
			realloc(p->rules, cap * sizeof(*r));

		if (!r)
			return NULL;
		p->rules = r;
		p->cap = cap;
	}
	memset(&p->rules[p->n], 0, sizeof(p->rules[0]));
	return &p->rules[p->n++];
}

static void put_rule(struct nlmsghdr *nlh, const struct ftagent_rule_spec *r)
{
	struct nlattr *nest =
		mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);

	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, r->name);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, r->ops);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, r->action);
	if (r->set & FTAGENT_RULE_SET_UID)
		mnl_attr_put_u32(nlh, FTAGENT_RULE_A_UID, r->uid);
	if (r->set & FTAGENT_RULE_SET_COMM)
		mnl_attr_put_strz(nlh, FTAGENT_RULE_A_COMM, r->comm);
	if (r->set & FTAGENT_RULE_SET_CGROUP)
		mnl_attr_put_u64(nlh, FTAGENT_RULE_A_CGROUP_ID, r->cgroup_id);
	if (r->set & FTAGENT_RULE_SET_EXE)
		mnl_attr_put_strz(nlh, FTAGENT_RULE_A_EXE_PREFIX,
				  r->exe_prefix);
	if (r->set & FTAGENT_RULE_SET_SUBTREE)
		mnl_attr_put_u32(nlh, FTAGENT_RULE_A_SUBTREE, r->subtree);
	if (r->set & FTAGENT_RULE_SET_PATH)
		mnl_attr_put_strz(nlh, FTAGENT_RULE_A_PATH_PREFIX,
				  r->path_prefix);
	if (r->set & FTAGENT_RULE_SET_PORT) {
		mnl_attr_put_u16(nlh, FTAGENT_RULE_A_PORT_MIN, r->port_min);
		mnl_attr_put_u16(nlh, FTAGENT_RULE_A_PORT_MAX, r->port_max);
	}
	if (r->set & FTAGENT_RULE_SET_ADDR)
		mnl_attr_put(nlh, FTAGENT_RULE_A_ADDR, r->addr_len, r->addr);
	if (r->set & FTAGENT_RULE_SET_PREFIX_LEN)
		mnl_attr_put_u8(nlh, FTAGENT_RULE_A_PREFIX_LEN, r->prefix_len);
	mnl_attr_nest_end(nlh, nest);
}

static int u64_attr(const struct nlattr *a, uint64_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return -1;
	*v = mnl_attr_get_u64(a);
	return 0;
}

static int generation_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == FTAGENT_CTL_A_POLICY_GENERATION)
		return u64_attr(a, data) ? MNL_CB_ERROR : MNL_CB_OK;
	return MNL_CB_OK;
}

static int generation_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), generation_attr,
			      data);
}

int ftagent_set_transact(struct ftnl *ctl, struct nlmsghdr *req,
			 uint64_t *generation, struct ftnl_error *err)
{
	int sndbuf = (int)req->nlmsg_len + 65536;

	/* SO_SNDBUFFORCE needs CAP_NET_ADMIN, which SET_* need anyway. */
	if (setsockopt(mnl_socket_get_fd(ctl->sock), SOL_SOCKET, SO_SNDBUFFORCE,
		       &sndbuf, sizeof(sndbuf)) < 0)
		setsockopt(mnl_socket_get_fd(ctl->sock), SOL_SOCKET, SO_SNDBUF,
			   &sndbuf, sizeof(sndbuf));
	*generation = 0;
	return ftnl_transact(ctl, req, generation_reply, generation, err);
}

size_t ftagent_policy_msg_size(const struct ftagent_policy_spec *p)
{
	return MNL_SOCKET_BUFFER_SIZE +
	       p->n * (sizeof(struct ftagent_rule_spec) + 128);
}

void ftagent_policy_put(struct nlmsghdr *req,
			const struct ftagent_policy_spec *p)
{
	size_t i;

	mnl_attr_put_u8(req, FTAGENT_CTL_A_POLICY_ENFORCE, !!p->enforce);
	mnl_attr_put_u32(req, FTAGENT_CTL_A_POLICY_DEFAULT, p->default_action);
	for (i = 0; i < p->n; i++)
		put_rule(req, &p->rules[i]);
}

int ftagent_set_policy(struct ftnl *ctl, const struct ftagent_policy_spec *p,
		       uint64_t *generation, struct ftnl_error *err)
{
	struct nlmsghdr *req;
	char *buf;
	int rc;

	buf = calloc(1, ftagent_policy_msg_size(p));
	if (!buf) {
		err->err = ENOMEM;
		err->msg[0] = '\0';
		return -1;
	}
	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_SET_POLICY, 0);
	ftagent_policy_put(req, p);
	rc = ftagent_set_transact(ctl, req, generation, err);
	free(buf);
	return rc;
}

int ftagent_attr_str(const struct nlattr *a, char *out, size_t size)
{
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
	    mnl_attr_get_payload_len(a) > size)
		return MNL_CB_ERROR;
	strcpy(out, mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int rule_attr(const struct nlattr *a, void *data)
{
	struct ftagent_rule_spec *r = data;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_RULE_A_NAME:
		return ftagent_attr_str(a, r->name, sizeof(r->name));
	case FTAGENT_RULE_A_OPS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		r->ops = mnl_attr_get_u32(a);
		return MNL_CB_OK;
	case FTAGENT_RULE_A_ACTION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		r->action = mnl_attr_get_u32(a);
		return MNL_CB_OK;
	case FTAGENT_RULE_A_UID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		r->uid = mnl_attr_get_u32(a);
		r->set |= FTAGENT_RULE_SET_UID;
		return MNL_CB_OK;
	case FTAGENT_RULE_A_COMM:
		r->set |= FTAGENT_RULE_SET_COMM;
		return ftagent_attr_str(a, r->comm, sizeof(r->comm));
	case FTAGENT_RULE_A_CGROUP_ID:
		r->set |= FTAGENT_RULE_SET_CGROUP;
		return u64_attr(a, &r->cgroup_id) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_RULE_A_EXE_PREFIX:
		r->set |= FTAGENT_RULE_SET_EXE;
		return ftagent_attr_str(a, r->exe_prefix,
					sizeof(r->exe_prefix));
	case FTAGENT_RULE_A_SUBTREE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		r->subtree = mnl_attr_get_u32(a);
		r->set |= FTAGENT_RULE_SET_SUBTREE;
		return MNL_CB_OK;
	case FTAGENT_RULE_A_PATH_PREFIX:
		r->set |= FTAGENT_RULE_SET_PATH;
		return ftagent_attr_str(a, r->path_prefix,
					sizeof(r->path_prefix));
	case FTAGENT_RULE_A_PORT_MIN:
	case FTAGENT_RULE_A_PORT_MAX:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		if (mnl_attr_get_type(a) == FTAGENT_RULE_A_PORT_MIN)
			r->port_min = mnl_attr_get_u16(a);
		else
			r->port_max = mnl_attr_get_u16(a);
		r->set |= FTAGENT_RULE_SET_PORT;
		return MNL_CB_OK;
	case FTAGENT_RULE_A_ADDR: {
		uint16_t len = mnl_attr_get_payload_len(a);

		if (len != 4 && len != 16)
			return MNL_CB_ERROR;
		memcpy(r->addr, mnl_attr_get_payload(a), len);
		r->addr_len = (uint8_t)len;
		r->set |= FTAGENT_RULE_SET_ADDR;
		return MNL_CB_OK;
	}
	case FTAGENT_RULE_A_PREFIX_LEN:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		r->prefix_len = mnl_attr_get_u8(a);
		r->set |= FTAGENT_RULE_SET_PREFIX_LEN;
		return MNL_CB_OK;
	case FTAGENT_RULE_A_HITS:
		return u64_attr(a, &r->hits) ? MNL_CB_ERROR : MNL_CB_OK;
	}
	return MNL_CB_OK; /* a newer minor ABI's attribute */
}

static int policy_attr(const struct nlattr *a, void *data)
{
	struct ftagent_policy_spec *p = data;
	struct ftagent_rule_spec *r;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_CTL_A_POLICY_GENERATION:
		return u64_attr(a, &p->generation) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CTL_A_POLICY_DEFAULT_HITS:
		return u64_attr(a, &p->default_hits) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CTL_A_POLICY_ENFORCE:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		p->enforce = mnl_attr_get_u8(a);
		return MNL_CB_OK;
	case FTAGENT_CTL_A_POLICY_DEFAULT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		p->default_action = mnl_attr_get_u32(a);
		return MNL_CB_OK;
	case FTAGENT_CTL_A_POLICY_RULE:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		r = ftagent_policy_spec_add(p);
		if (!r)
			return MNL_CB_ERROR;
		return mnl_attr_parse_nested(a, rule_attr, r);
	}
	return MNL_CB_OK;
}

int ftagent_policy_parse(const struct nlmsghdr *nlh,
			 struct ftagent_policy_spec *p)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), policy_attr, p);
}

struct dump_ctx {
	struct ftagent_policy_spec *p;
	int interrupted;
};

static int policy_reply(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		ctx->interrupted = 1;
	return ftagent_policy_parse(nlh, ctx->p);
}

int ftagent_get_policy(struct ftnl *ctl, struct ftagent_policy_spec *p,
		       struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_ctx ctx = {.p = p};
	int tries;

	for (tries = 0; tries < 8; tries++) {
		ftagent_policy_spec_free(p);
		ctx.interrupted = 0;
		if (ftnl_transact(ctl,
				  ftnl_put_request(ctl, buf,
						   FTAGENT_CTL_CMD_GET_POLICY,
						   NLM_F_DUMP),
				  policy_reply, &ctx, err) < 0)
			return -1;
		if (!ctx.interrupted)
			return 0;
	}
	err->err = EAGAIN;
	strcpy(err->msg, "the rule set kept changing during the dump");
	return -1;
}

static int rule_equal(const struct ftagent_rule_spec *a,
		      const struct ftagent_rule_spec *b)
{
	unsigned int set = a->set & ~FTAGENT_RULE_SET_ACTION;

	if (strcmp(a->name, b->name) || a->ops != b->ops ||
	    a->action != b->action ||
	    set != (b->set & ~FTAGENT_RULE_SET_ACTION))
		return 0;
	if ((set & FTAGENT_RULE_SET_UID) && a->uid != b->uid)
		return 0;
	if ((set & FTAGENT_RULE_SET_SUBTREE) && a->subtree != b->subtree)
		return 0;
	if ((set & FTAGENT_RULE_SET_COMM) &&
	    strncmp(a->comm, b->comm, sizeof(a->comm)))
		return 0;
	if ((set & FTAGENT_RULE_SET_CGROUP) && a->cgroup_id != b->cgroup_id)
		return 0;
	if ((set & FTAGENT_RULE_SET_EXE) &&
	    strcmp(a->exe_prefix, b->exe_prefix))
		return 0;
	if ((set & FTAGENT_RULE_SET_PATH) &&
	    strcmp(a->path_prefix, b->path_prefix))
		return 0;
	if ((set & FTAGENT_RULE_SET_PORT) &&
	    (a->port_min != b->port_min || a->port_max != b->port_max))
		return 0;
	if ((set & FTAGENT_RULE_SET_ADDR) &&
	    (a->addr_len != b->addr_len ||
	     memcmp(a->addr, b->addr, a->addr_len)))
		return 0;
	if ((set & FTAGENT_RULE_SET_PREFIX_LEN) &&
	    a->prefix_len != b->prefix_len)
		return 0;
	return 1;
}

int ftagent_policy_spec_equal(const struct ftagent_policy_spec *a,
			      const struct ftagent_policy_spec *b)
{
	size_t i;

	if (!a->enforce != !b->enforce ||
	    a->default_action != b->default_action || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!rule_equal(&a->rules[i], &b->rules[i]))
			return 0;
	return 1;
}
