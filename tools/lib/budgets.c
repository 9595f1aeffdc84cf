// SPDX-License-Identifier: GPL-2.0
/* SET_BUDGETS and GET_BUDGETS; see budgets.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "budgets.h"

static const char *const metric_names[__FTAGENT_METRIC_MAX] = {
	[FTAGENT_METRIC_BYTES_SENT] = "bytes_sent",
	[FTAGENT_METRIC_BYTES_RECEIVED] = "bytes_received",
	[FTAGENT_METRIC_BYTES_READ] = "bytes_read",
	[FTAGENT_METRIC_BYTES_WRITTEN] = "bytes_written",
	[FTAGENT_METRIC_CONNECTS] = "connects",
	[FTAGENT_METRIC_EXECS] = "execs",
	[FTAGENT_METRIC_OPENS] = "opens",
	[FTAGENT_METRIC_REPEATS] = "repeats",
};

int ftagent_metric_is_bytes(unsigned int metric)
{
	return metric <= FTAGENT_METRIC_BYTES_WRITTEN;
}

const char *ftagent_metric_name(unsigned int metric)
{
	return metric < __FTAGENT_METRIC_MAX ? metric_names[metric] : "unknown";
}

void ftagent_budget_set_free(struct ftagent_budget_set *s)
{
	free(s->b);
	memset(s, 0, sizeof(*s));
}

struct ftagent_budget_spec *ftagent_budget_set_add(struct ftagent_budget_set *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct ftagent_budget_spec *b = realloc(s->b, cap * sizeof(*b));

		if (!b)
			return NULL;
		s->b = b;
		s->cap = cap;
	}
	memset(&s->b[s->n], 0, sizeof(s->b[0]));
	s->b[s->n].enforce = 1;
	return &s->b[s->n++];
}

static void put_budget(struct nlmsghdr *nlh,
		       const struct ftagent_budget_spec *b)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_BUDGET);

	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_NAME, b->name);
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_METRIC, b->metric);
	mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_LIMIT, b->limit);
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_WINDOW_MS, b->window_ms);
	if (b->alert_at)
		mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_ALERT_AT, b->alert_at);
	mnl_attr_put_u8(nlh, FTAGENT_BUDGET_A_ENFORCE, !!b->enforce);
	mnl_attr_put_u8(nlh, FTAGENT_BUDGET_A_KILL, !!b->kill);
	if (b->set & FTAGENT_RULE_SET_UID)
		mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_UID, b->uid);
	if (b->set & FTAGENT_RULE_SET_COMM)
		mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_COMM, b->comm);
	if (b->set & FTAGENT_RULE_SET_CGROUP)
		mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_CGROUP_ID, b->cgroup_id);
	if (b->set & FTAGENT_RULE_SET_EXE)
		mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_EXE_PREFIX,
				  b->exe_prefix);
	if (b->set & FTAGENT_RULE_SET_SUBTREE)
		mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_SUBTREE, b->subtree);
	mnl_attr_nest_end(nlh, nest);
}

size_t ftagent_budgets_msg_size(const struct ftagent_budget_set *s)
{
	return MNL_SOCKET_BUFFER_SIZE + s->n * 512;
}

void ftagent_budgets_put(struct nlmsghdr *req,
			 const struct ftagent_budget_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		put_budget(req, &s->b[i]);
}

int ftagent_set_budgets(struct ftnl *ctl, const struct ftagent_budget_set *s,
			uint64_t *generation, struct ftnl_error *err)
{
	struct nlmsghdr *req;
	char *buf = calloc(1, ftagent_budgets_msg_size(s));
	int rc;

	if (!buf) {
		err->err = ENOMEM;
		err->msg[0] = '\0';
		return -1;
	}
	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_SET_BUDGETS, 0);
	ftagent_budgets_put(req, s);
	rc = ftagent_set_transact(ctl, req, generation, err);
	free(buf);
	return rc;
}

static int get_u(const struct nlattr *a, uint64_t *v, enum mnl_attr_data_type t)
{
	if (mnl_attr_validate(a, t) < 0)
		return MNL_CB_ERROR;
	*v = t == MNL_TYPE_U64	 ? mnl_attr_get_u64(a)
	     : t == MNL_TYPE_U32 ? mnl_attr_get_u32(a)
				 : mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static int budget_attr(const struct nlattr *a, void *data)
{
	struct ftagent_budget_spec *b = data;
	uint64_t v = 0;
	int rc = MNL_CB_OK;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_BUDGET_A_NAME:
		return ftagent_attr_str(a, b->name, sizeof(b->name));
	case FTAGENT_BUDGET_A_COMM:
		b->set |= FTAGENT_RULE_SET_COMM;
		return ftagent_attr_str(a, b->comm, sizeof(b->comm));
	case FTAGENT_BUDGET_A_EXE_PREFIX:
		b->set |= FTAGENT_RULE_SET_EXE;
		return ftagent_attr_str(a, b->exe_prefix,
					sizeof(b->exe_prefix));
	case FTAGENT_BUDGET_A_METRIC:
		rc = get_u(a, &v, MNL_TYPE_U32);
		b->metric = (uint32_t)v;
		break;
	case FTAGENT_BUDGET_A_LIMIT:
		rc = get_u(a, &b->limit, MNL_TYPE_U64);
		break;
	case FTAGENT_BUDGET_A_WINDOW_MS:
		rc = get_u(a, &v, MNL_TYPE_U32);
		b->window_ms = (uint32_t)v;
		break;
	case FTAGENT_BUDGET_A_ALERT_AT:
		rc = get_u(a, &b->alert_at, MNL_TYPE_U64);
		break;
	case FTAGENT_BUDGET_A_ENFORCE:
		rc = get_u(a, &v, MNL_TYPE_U8);
		b->enforce = (int)v;
		break;
	case FTAGENT_BUDGET_A_KILL:
		rc = get_u(a, &v, MNL_TYPE_U8);
		b->kill = (int)v;
		break;
	case FTAGENT_BUDGET_A_UID:
		rc = get_u(a, &v, MNL_TYPE_U32);
		b->uid = (uint32_t)v;
		b->set |= FTAGENT_RULE_SET_UID;
		break;
	case FTAGENT_BUDGET_A_SUBTREE:
		rc = get_u(a, &v, MNL_TYPE_U32);
		b->subtree = (uint32_t)v;
		b->set |= FTAGENT_RULE_SET_SUBTREE;
		break;
	case FTAGENT_BUDGET_A_CGROUP_ID:
		rc = get_u(a, &b->cgroup_id, MNL_TYPE_U64);
		b->set |= FTAGENT_RULE_SET_CGROUP;
		break;
	case FTAGENT_BUDGET_A_USED:
		rc = get_u(a, &b->used, MNL_TYPE_U64);
		break;
	case FTAGENT_BUDGET_A_WINDOW_LEFT_MS:
		rc = get_u(a, &v, MNL_TYPE_U32);
		b->window_left_ms = (uint32_t)v;
		break;
	case FTAGENT_BUDGET_A_DENIED:
		rc = get_u(a, &b->denied, MNL_TYPE_U64);
		break;
	case FTAGENT_BUDGET_A_ALERTS:
		rc = get_u(a, &b->alerts, MNL_TYPE_U64);
		break;
	}
	return rc;
}

static int set_attr(const struct nlattr *a, void *data)
{
	struct ftagent_budget_spec *b;

	if (mnl_attr_get_type(a) != FTAGENT_CTL_A_BUDGET)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	b = ftagent_budget_set_add(data);
	if (!b)
		return MNL_CB_ERROR;
	return mnl_attr_parse_nested(a, budget_attr, b);
}

int ftagent_budgets_parse(const struct nlmsghdr *nlh,
			  struct ftagent_budget_set *s)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), set_attr, s);
}

struct dump_ctx {
	struct ftagent_budget_set *s;
	int interrupted;
};

static int budgets_reply(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		ctx->interrupted = 1;
	return ftagent_budgets_parse(nlh, ctx->s);
}

int ftagent_get_budgets(struct ftnl *ctl, struct ftagent_budget_set *s,
			struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_ctx ctx = {.s = s};
	int tries;

	for (tries = 0; tries < 8; tries++) {
		ftagent_budget_set_free(s);
		ctx.interrupted = 0;
		if (ftnl_transact(ctl,
				  ftnl_put_request(ctl, buf,
						   FTAGENT_CTL_CMD_GET_BUDGETS,
						   NLM_F_DUMP),
				  budgets_reply, &ctx, err) < 0)
			return -1;
		if (!ctx.interrupted)
			return 0;
	}
	err->err = EAGAIN;
	strcpy(err->msg, "the budgets kept changing during the dump");
	return -1;
}

static int budget_equal(const struct ftagent_budget_spec *a,
			const struct ftagent_budget_spec *b)
{
	if (strcmp(a->name, b->name) || a->metric != b->metric ||
	    a->limit != b->limit || a->alert_at != b->alert_at ||
	    a->window_ms != b->window_ms || !a->enforce != !b->enforce ||
	    !a->kill != !b->kill || a->set != b->set)
		return 0;
	if ((a->set & FTAGENT_RULE_SET_UID) && a->uid != b->uid)
		return 0;
	if ((a->set & FTAGENT_RULE_SET_SUBTREE) && a->subtree != b->subtree)
		return 0;
	if ((a->set & FTAGENT_RULE_SET_COMM) &&
	    strncmp(a->comm, b->comm, sizeof(a->comm)))
		return 0;
	if ((a->set & FTAGENT_RULE_SET_CGROUP) && a->cgroup_id != b->cgroup_id)
		return 0;
	if ((a->set & FTAGENT_RULE_SET_EXE) &&
	    strcmp(a->exe_prefix, b->exe_prefix))
		return 0;
	return 1;
}

int ftagent_budget_set_equal(const struct ftagent_budget_set *a,
			     const struct ftagent_budget_set *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!budget_equal(&a->b[i], &b->b[i]))
			return 0;
	return 1;
}
