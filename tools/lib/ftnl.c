// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink transport: socket set-up, family resolution and one
 * request/reply exchange with extended ACK decoding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "ftnl.h"

/*
 * Room for the largest message a dump sends (the kernel caps at 32 KiB).
 * A plain reply can be larger (GET_FILTERS with 64 paths of 1 KiB): its
 * size is peeked first and a larger buffer taken for it.
 */
#define FTNL_RECV_BUFFER 32768

static void set_errno_error(struct ftnl_error *err, int errnum,
			    const char *what)
{
	memset(err, 0, sizeof(*err));
	err->err = errnum;
	if (what)
		snprintf(err->msg, sizeof(err->msg), "%s", what);
}

struct nlmsghdr *ftnl_put_request(struct ftnl *nl, void *buf, uint8_t cmd,
				  uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = nl->family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = (uint8_t)nl->family_version;
	return nlh;
}

struct transact_ctx {
	struct ftnl_error *err;
	int ended; /* the ACK or the NLMSG_DONE that ends the exchange came */
};

static int on_error_msg(const struct nlmsghdr *nlh, void *data)
{
	struct transact_ctx *ctx = data;
	int rc = ftnl_parse_error(nlh, ctx->err);

	if (rc == 0) {
		ctx->ended = 1;
		return MNL_CB_STOP; /* the ACK that ends the exchange */
	}
	/*
	 * A refused request ends the exchange too, but for a dump whose first
	 * part the kernel had no memory for (__netlink_dump_start() answers
	 * ENOBUFS then, and keeps the dump running), and for one refused
	 * because another dump still runs on this socket (EBUSY).
	 */
	if (ctx->err->err != ENOBUFS && ctx->err->err != EBUSY)
		ctx->ended = 1;
	errno = ctx->err->err;
	return MNL_CB_ERROR;
}

/*
 * The end of a dump. It carries the dump's own errno: a dump callback that
 * failed half-way ends the dump early, and what came before is not all.
 */
static int on_done_msg(const struct nlmsghdr *nlh, void *data)
{
	struct transact_ctx *ctx = data;

	ctx->ended = 1;
	if (ftnl_parse_done(nlh, ctx->err) == 0)
		return MNL_CB_STOP;
	errno = ctx->err->err;
	return MNL_CB_ERROR;
}

struct reply_ctx {
	mnl_cb_t cb;
	void *data;
	struct transact_ctx tctx;
};

static int on_data_msg(const struct nlmsghdr *nlh, void *data)
{
	struct reply_ctx *rctx = data;

	return rctx->cb ? rctx->cb(nlh, rctx->data) : MNL_CB_OK;
}

static int on_ctl_msg(const struct nlmsghdr *nlh, void *data)
{
	struct reply_ctx *rctx = data;

	if (nlh->nlmsg_type == NLMSG_ERROR)
		return on_error_msg(nlh, &rctx->tctx);
	if (nlh->nlmsg_type == NLMSG_DONE)
		return on_done_msg(nlh, &rctx->tctx);
	return MNL_CB_OK;
}

static int is_dump(const struct nlmsghdr *req)
{
	return (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
}

/* Ask the kernel for an ACK of nothing (NLMSG_NOOP): see settle_dump(). */
static int send_noop(struct ftnl *nl, uint32_t *seq)
{
	char buf[MNL_NLMSG_HDRLEN];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = NLMSG_NOOP;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = *seq = ++nl->seq;
	return mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

static int read_out_dump(struct ftnl *nl, char *buf, size_t cap);

/* read_out_dump(), and whether the next request must try again. */
static void settle_dump(struct ftnl *nl, char *buf, size_t cap)
{
	nl->dump_pending = read_out_dump(nl, buf, cap) < 0;
}

/* Enough for a dump of every counter table, part by part, and its faults. */
#define FTNL_SETTLE_READS 4096

/*
 * Read out a dump this socket gave up on. The kernel may still be running
 * it: it makes a dump's next part only inside a read of this socket
 * (netlink_recvmsg() calls netlink_dump()), and refuses a new dump on it
 * (EBUSY) until the old one has ended. When it had no memory for a part,
 * it reported ENOBUFS, kept its place, and waits for a read with nothing
 * left to read. So: send a NOOP asking for an ACK, which puts something
 * in the queue, then read without waiting, dropping everything (each read
 * lets the kernel add the next part). The socket is settled when the ACK
 * was read and the queue is then empty with no error: a dump still running
 * would have queued its next part, or an ENOBUFS, within that very read.
 * Another ENOBUFS (a part, or the ACK, failed again) sends another NOOP.
 * 0, or -1 if it did not settle (the next dump may then meet EBUSY).
 */
static int read_out_dump(struct ftnl *nl, char *buf, size_t cap)
{
	int fd = mnl_socket_get_fd(nl->sock), acked = 0, reads;
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	uint32_t noop;
	ssize_t n;

	if (send_noop(nl, &noop) < 0)
		return -1;
	for (reads = 0; reads < FTNL_SETTLE_READS; reads++) {
		n = recv(fd, buf, cap, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (acked)
				return 0;
			/* The ACK is queued before sendto() returns. */
			return -1;
		}
		if (n < 0 && errno == ENOBUFS) {
			acked = 0;
			if (send_noop(nl, &noop) < 0)
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
		/* An ACK is a datagram of its own. */
		if (n >= (ssize_t)sizeof(*nlh) && nlh->nlmsg_seq == noop &&
		    nlh->nlmsg_type == NLMSG_ERROR)
			acked = 1;
	}
	return -1;
}

/*
 * mnl_cb_run2() with our control handling, but one difference: libmnl's
 * stops at the first message flagged NLM_F_DUMP_INTR (-1, EINTR) before
 * any callback sees it, which leaves the dump half-read and running in
 * the kernel, and the callers' "interrupted: ask again" never ran. Here
 * that message goes to @rctx's callback like any other.
 */
static int run_messages(const char *buf, size_t len, uint32_t seq,
			uint32_t portid, struct reply_ctx *rctx)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int rc = MNL_CB_OK, left = (int)len;

	while (mnl_nlmsg_ok(nlh, left)) {
		if (!mnl_nlmsg_portid_ok(nlh, portid)) {
			errno = ESRCH;
			return MNL_CB_ERROR;
		}
		if (!mnl_nlmsg_seq_ok(nlh, seq)) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			rc = on_data_msg(nlh, rctx);
		else if (nlh->nlmsg_type == NLMSG_ERROR ||
			 nlh->nlmsg_type == NLMSG_DONE)
			rc = on_ctl_msg(nlh, rctx);
		/* NLMSG_NOOP, NLMSG_OVERRUN and the reserved types: nothing. */
		if (rc <= MNL_CB_STOP)
			return rc;
		nlh = mnl_nlmsg_next(nlh, &left);
	}
	return rc;
}

int ftnl_transact(struct ftnl *nl, struct nlmsghdr *req, mnl_cb_t cb,
		  void *data, struct ftnl_error *err)
{
	char stack_buf[FTNL_RECV_BUFFER], *buf = stack_buf, *big = NULL;
	size_t cap = sizeof(stack_buf);
	struct reply_ctx rctx = {cb, data, {err, 0}};
	ssize_t n;
	int rc;

	memset(err, 0, sizeof(*err));
	/* A dump given up on earlier would answer this one EBUSY. */
	if (nl->dump_pending)
		settle_dump(nl, buf, cap);
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0) {
		set_errno_error(err, errno, "cannot send the request");
		return -1;
	}
	do {
		/* A message cut short is lost: learn its size first. */
		do {
			n = recv(mnl_socket_get_fd(nl->sock), NULL, 0,
				 MSG_PEEK | MSG_TRUNC);
		} while (n < 0 && errno == EINTR);
		/*
		 * An error here is the socket's pending one, which this call
		 * just cleared: ENOBUFS when the kernel dropped an answer
		 * (no memory for the ACK, or a full receive buffer), or had
		 * no memory for a dump's next part. Waiting on would wait for
		 * that answer for ever.
		 */
		if (n < 0) {
			set_errno_error(err, errno, "cannot receive the reply");
			goto fail;
		}
		if (n > (ssize_t)cap) {
			char *p = realloc(big, n);

			if (!p) {
				set_errno_error(err, ENOMEM,
						"cannot receive the reply");
				goto fail;
			}
			buf = big = p;
			cap = n;
		}
		n = mnl_socket_recvfrom(nl->sock, buf, cap);
		if (n < 0) {
			set_errno_error(err, errno, "cannot receive the reply");
			goto fail;
		}
		/*
		 * A late answer to an earlier request (one whose ACK was lost,
		 * so its caller gave up): not ours, drop it. A datagram holds
		 * the messages of one answer, so its first says whose it is.
		 * Sequence 0 (a notification) goes on to mnl_cb_run2() as
		 * before.
		 */
		if (n >= (ssize_t)sizeof(struct nlmsghdr) &&
		    ((struct nlmsghdr *)buf)->nlmsg_seq &&
		    ((struct nlmsghdr *)buf)->nlmsg_seq != req->nlmsg_seq) {
			rc = MNL_CB_OK;
			continue;
		}
		errno = 0;
		rc = run_messages(buf, (size_t)n, req->nlmsg_seq, nl->portid,
				  &rctx);
	} while (rc == MNL_CB_OK);

	if (rc != MNL_CB_ERROR) {
		/* A callback that stopped a dump early leaves it running. */
		if (is_dump(req) && !rctx.tctx.ended)
			settle_dump(nl, buf, cap);
		free(big);
		return 0;
	}
	/* Keep the kernel's message if on_error_msg filled one in. */
	if (!err->err)
		set_errno_error(err, errno ? errno : EPROTO,
				"malformed or unexpected reply");
fail:
	if (is_dump(req) && !rctx.tctx.ended)
		settle_dump(nl, buf, cap);
	free(big);
	return -1;
}

struct family_ctx {
	uint16_t id;
	uint32_t version;
};

static int family_attr(const struct nlattr *attr, void *data)
{
	struct family_ctx *fam = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
			fam->id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			fam->version = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int family_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr,
			      data);
}

int ftnl_open(struct ftnl *nl, const char *family, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct family_ctx fam = {0};
	struct nlmsghdr *req;
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		set_errno_error(err, errno, "cannot open a netlink socket");
		return -1;
	}
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		set_errno_error(err, errno, "cannot bind the netlink socket");
		goto err_close;
	}
	/* Ask for the kernel's reasons, and don't echo requests back. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t)time(NULL);

	nl->family_id = GENL_ID_CTRL;
	nl->family_version = 1;
	req = ftnl_put_request(nl, buf, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, family);
	if (ftnl_transact(nl, req, family_reply, &fam, err) < 0)
		goto err_close;
	if (!fam.id) {
		set_errno_error(err, EPROTO, "family reply without an id");
		goto err_close;
	}
	nl->family_id = fam.id;
	nl->family_version = fam.version;
	return 0;

err_close:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return -1;
}

struct listed_ctx {
	const char *name;
	int found;
};

static int listed_attr(const struct nlattr *attr, void *data)
{
	struct listed_ctx *ctx = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0 &&
	    !strcmp(mnl_attr_get_str(attr), ctx->name))
		ctx->found = 1;
	return MNL_CB_OK;
}

static int listed_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), listed_attr,
			      data);
}

int ftnl_family_listed(const char *family, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct listed_ctx ctx = {family, 0};
	struct ftnl nl;
	int rc;

	memset(&nl, 0, sizeof(nl));
	nl.sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl.sock || mnl_socket_bind(nl.sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		set_errno_error(err, errno, "cannot open a netlink socket");
		ftnl_close(&nl);
		return -1;
	}
	nl.portid = mnl_socket_get_portid(nl.sock);
	nl.family_id = GENL_ID_CTRL;
	nl.family_version = 1;
	rc = ftnl_transact(
		&nl, ftnl_put_request(&nl, buf, CTRL_CMD_GETFAMILY, NLM_F_DUMP),
		listed_reply, &ctx, err);
	ftnl_close(&nl);
	return rc < 0 ? -1 : ctx.found;
}

struct group_ctx {
	const char *name;
	uint32_t id;
	int found;
};

static int group_attr(const struct nlattr *attr, void *data)
{
	struct group_ctx *g = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == CTRL_ATTR_MCAST_GRP_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0 &&
	    !strcmp(mnl_attr_get_str(attr), g->name))
		g->found++;
	else if (type == CTRL_ATTR_MCAST_GRP_ID &&
		 mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		g->id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int group_list_attr(const struct nlattr *attr, void *data)
{
	struct group_ctx *g = data;
	struct group_ctx one = {g->name, 0, 0};

	if (mnl_attr_parse_nested(attr, group_attr, &one) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (one.found) {
		g->id = one.id;
		g->found = 1;
	}
	return MNL_CB_OK;
}

static int family_group_attr(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) != CTRL_ATTR_MCAST_GROUPS)
		return MNL_CB_OK;
	return mnl_attr_parse_nested(attr, group_list_attr, data);
}

static int family_group_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_group_attr,
			      data);
}

int ftnl_join_group(struct ftnl *nl, const char *family, const char *group,
		    struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct group_ctx g = {group, 0, 0};
	uint16_t id = nl->family_id;
	uint32_t version = nl->family_version;
	struct nlmsghdr *req;
	int rc;

	/* Ask the generic netlink controller on this very socket. */
	nl->family_id = GENL_ID_CTRL;
	nl->family_version = 1;
	req = ftnl_put_request(nl, buf, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, family);
	rc = ftnl_transact(nl, req, family_group_reply, &g, err);
	nl->family_id = id;
	nl->family_version = version;
	if (rc < 0)
		return -1;
	if (!g.found || !g.id) {
		set_errno_error(err, ENOENT, "no such multicast group");
		return -1;
	}
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &g.id,
				  sizeof(g.id)) < 0) {
		set_errno_error(err, errno, "cannot join the multicast group");
		return -1;
	}
	return 0;
}

void ftnl_close(struct ftnl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}
