// SPDX-License-Identifier: GPL-2.0
/*
 * Status and version replies: strict decoding (a wrong-sized attribute is
 * an error, not a guess) and the two queries that use it.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "status.h"

struct parse_ctx {
	struct ftagent_status *st;
	int stats;
	int bad;
};

/* The two families number the shared fields differently; map them here. */
enum field {
	F_NONE,
	F_MAJOR,
	F_MINOR,
	F_VERSION,
	F_STATE,
	F_DEGRADED,
	F_MISSING,
	F_DIRECT,
	F_EXIT_WORK,
	F_ACCEPTS_REFUSED
};

static enum field field_of(int stats, uint16_t type)
{
	if (stats) {
		switch (type) {
		case FTAGENT_STATS_A_ABI_MAJOR: return F_MAJOR;
		case FTAGENT_STATS_A_ABI_MINOR: return F_MINOR;
		case FTAGENT_STATS_A_MODULE_VERSION: return F_VERSION;
		}
		return F_NONE;
	}
	switch (type) {
	case FTAGENT_CTL_A_ABI_MAJOR: return F_MAJOR;
	case FTAGENT_CTL_A_ABI_MINOR: return F_MINOR;
	case FTAGENT_CTL_A_MODULE_VERSION: return F_VERSION;
	case FTAGENT_CTL_A_STATE: return F_STATE;
	case FTAGENT_CTL_A_DEGRADED: return F_DEGRADED;
	case FTAGENT_CTL_A_MISSING: return F_MISSING;
	case FTAGENT_CTL_A_DIRECT_CALLS: return F_DIRECT;
	case FTAGENT_CTL_A_EXIT_WORK: return F_EXIT_WORK;
	case FTAGENT_CTL_A_ACCEPTS_REFUSED: return F_ACCEPTS_REFUSED;
	}
	return F_NONE;
}

/* One name in a MISSING nest. */
static int missing_attr(const struct nlattr *attr, void *data)
{
	struct ftagent_status *st = data;

	if (mnl_attr_get_type(attr) != FTAGENT_CTL_A_NAME ||
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
	    mnl_attr_get_payload_len(attr) > FTAGENT_MISSING_NAME_MAX) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (st->n_missing < FTAGENT_MISSING_MAX)
		strcpy(st->missing[st->n_missing], mnl_attr_get_str(attr));
	st->n_missing++;
	return MNL_CB_OK;
}

static int status_attr(const struct nlattr *attr, void *data)
{
	struct parse_ctx *ctx = data;
	struct ftagent_status *st = ctx->st;
	enum field f = field_of(ctx->stats, mnl_attr_get_type(attr));

	if (f == F_VERSION) {
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(attr) > sizeof(st->module_version))
			goto bad;
		strcpy(st->module_version, mnl_attr_get_str(attr));
		st->present |= FTAGENT_STATUS_HAVE_VERSION;
		return MNL_CB_OK;
	}
	if (f == F_NONE)
		return MNL_CB_OK; /* added by a newer minor ABI */
	if (f == F_MISSING) {
		if (mnl_attr_parse_nested(attr, missing_attr, st) != MNL_CB_OK)
			goto bad;
		return MNL_CB_OK;
	}
	if (f == F_DIRECT) {
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			goto bad;
		st->direct_calls = mnl_attr_get_u8(attr);
		st->present |= FTAGENT_STATUS_HAVE_DIRECT;
		return MNL_CB_OK;
	}
	if (f == F_EXIT_WORK) {
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			goto bad;
		st->exit_work = mnl_attr_get_u8(attr);
		st->present |= FTAGENT_STATUS_HAVE_EXIT_WORK;
		return MNL_CB_OK;
	}
	if (f == F_ACCEPTS_REFUSED) {
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			goto bad;
		st->accepts_refused = mnl_attr_get_u64(attr);
		st->present |= FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED;
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		goto bad;
	switch (f) {
	case F_MAJOR:
		st->abi_major = mnl_attr_get_u32(attr);
		st->present |= FTAGENT_STATUS_HAVE_ABI;
		break;
	case F_MINOR: st->abi_minor = mnl_attr_get_u32(attr); break;
	case F_DEGRADED:
		st->degraded = mnl_attr_get_u32(attr);
		st->present |= FTAGENT_STATUS_HAVE_DEGRADED;
		break;
	case F_STATE:
		st->state = mnl_attr_get_u32(attr);
		st->present |= FTAGENT_STATUS_HAVE_STATE;
		break;
	default: break;
	}
	return MNL_CB_OK;
bad:
	ctx->bad = 1;
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

int ftagent_status_parse(const struct nlmsghdr *nlh, int stats,
			 struct ftagent_status *st)
{
	struct parse_ctx ctx = {st, stats, 0};

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), status_attr, &ctx) !=
		    MNL_CB_OK ||
	    ctx.bad) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

const char *ftagent_feature_name(unsigned int feature)
{
	static const char *const names[] = {
		[FTAGENT_FEATURE_FTRACE_SET] = "the ftrace hook set",
		[FTAGENT_FEATURE_EXIT_RECORDS] = "process exit records",
		[FTAGENT_FEATURE_CLOSE_RECORDS] = "socket close records",
		[FTAGENT_FEATURE_FORK_RECORDS] = "fork records",
		[FTAGENT_FEATURE_EXEC_RECORDS] = "exec records",
		[FTAGENT_FEATURE_RENAMES] = "names after a rename",
		[FTAGENT_FEATURE_GATE_EXEC] = "exec rules and budgets",
		[FTAGENT_FEATURE_GATE_CONNECT] = "connect rules and budgets",
		[FTAGENT_FEATURE_GATE_OPEN] = "open rules and budgets",
		[FTAGENT_FEATURE_GATE_SEND] = "send rules and budgets",
		[FTAGENT_FEATURE_GATE_BIND] = "bind rules",
		[FTAGENT_FEATURE_GATE_RECV] = "receive budgets",
		[FTAGENT_FEATURE_GATE_RW] = "read and write budgets",
		[FTAGENT_FEATURE_GATE_SENDPAGE] =
			"send rules and budgets on sendfile and splice",
		[FTAGENT_FEATURE_GATE_SCTP] =
			"connect and bind rules on SCTP connectx and bindx",
		[FTAGENT_FEATURE_IOURING] = "io_uring counting",
		[FTAGENT_FEATURE_MMSG_LENGTHS] =
			"*mmsg and failed receive lengths from the kernel",
		[FTAGENT_FEATURE_AIO] = "Linux AIO counting",
		[FTAGENT_FEATURE_GATE_ACCEPT] =
			"rules on AF_SMC accepted sockets",
	};

	if (feature < sizeof(names) / sizeof(names[0]))
		return names[feature];
	return NULL;
}

const char *ftagent_state_name(uint32_t state)
{
	static const char *const names[] = {
		[FTAGENT_STATE_READY] = "ready",
		[FTAGENT_STATE_TRACING] = "tracing",
		[FTAGENT_STATE_DEGRADED] = "degraded",
	};

	if (state < sizeof(names) / sizeof(names[0]) && names[state])
		return names[state];
	return "unknown";
}

int ftagent_abi_compatible(const struct ftagent_status *st)
{
	return (st->present & FTAGENT_STATUS_HAVE_ABI) &&
	       st->abi_major == FTAGENT_ABI_MAJOR;
}

static int ctl_reply(const struct nlmsghdr *nlh, void *data)
{
	return ftagent_status_parse(nlh, 0, data);
}

static int stats_reply(const struct nlmsghdr *nlh, void *data)
{
	return ftagent_status_parse(nlh, 1, data);
}

static int query(const char *family, uint8_t cmd, mnl_cb_t cb,
		 struct ftagent_status *st, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftnl nl;
	int rc;

	memset(st, 0, sizeof(*st));
	if (ftnl_open(&nl, family, err) < 0)
		return -1;
	rc = ftnl_transact(&nl, ftnl_put_request(&nl, buf, cmd, 0), cb, st,
			   err);
	ftnl_close(&nl);
	return rc;
}

int ftagent_query_status(struct ftagent_status *st, struct ftnl_error *err)
{
	return query(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_GET_STATUS,
		     ctl_reply, st, err);
}

int ftagent_query_version(struct ftagent_status *st, struct ftnl_error *err)
{
	return query(FTAGENT_GENL_STATS_NAME, FTAGENT_STATS_CMD_GET_VERSION,
		     stats_reply, st, err);
}
