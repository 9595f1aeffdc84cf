// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of NLMSG_ERROR replies, the errno that ends a dump (NLMSG_DONE)
 * and their extended ACK attributes. Kept
 * apart from the socket code so that it can be tested on crafted buffers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ftnl.h"

struct ext_ack {
	const struct nlattr *msg;
	const struct nlattr *offs;
};

static int ext_ack_attr(const struct nlattr *attr, void *data)
{
	struct ext_ack *ack = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			ack->msg = attr;
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			ack->offs = attr;
		break;
	default:
		/* Newer kernels add attributes; ignoring them is safe. */
		break;
	}
	return MNL_CB_OK;
}

int ftnl_parse_error(const struct nlmsghdr *nlh, struct ftnl_error *out)
{
	const struct nlmsgerr *nlerr;
	struct ext_ack ack = {0};
	size_t payload, skip;

	memset(out, 0, sizeof(*out));
	payload = mnl_nlmsg_get_payload_len(nlh);
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || payload < sizeof(*nlerr)) {
		out->err = EBADMSG;
		return -1;
	}
	nlerr = mnl_nlmsg_get_payload(nlh);
	if (nlerr->error == 0)
		return 0;
	/* error is a negative errno; anything else is not from a kernel. */
	if (nlerr->error > 0 || nlerr->error < -4095) {
		out->err = EBADMSG;
		return -1;
	}
	out->err = -nlerr->error;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 1;

	/* The echoed request sits between nlmsgerr and the TLVs unless capped. */
	skip = sizeof(*nlerr);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (nlerr->msg.nlmsg_len < MNL_NLMSG_HDRLEN ||
		    nlerr->msg.nlmsg_len - MNL_NLMSG_HDRLEN > payload - skip)
			return 1;
		skip += MNL_ALIGN(nlerr->msg.nlmsg_len - MNL_NLMSG_HDRLEN);
	}
	if (skip >= payload)
		return 1;
	if (mnl_attr_parse(nlh, skip, ext_ack_attr, &ack) != MNL_CB_OK)
		return 1;

	if (ack.msg)
		snprintf(out->msg, sizeof(out->msg), "%s",
			 mnl_attr_get_str(ack.msg));
	if (ack.offs) {
		out->has_offset = 1;
		out->offset = mnl_attr_get_u32(ack.offs);
	}
	return 1;
}

int ftnl_parse_done(const struct nlmsghdr *nlh, struct ftnl_error *out)
{
	struct ext_ack ack = {0};
	size_t payload;
	int32_t error;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN) {
		out->err = EBADMSG;
		return -1;
	}
	payload = mnl_nlmsg_get_payload_len(nlh);
	/* Kernels before 2.6.x sent no payload: nothing to report. */
	if (payload < sizeof(error))
		return 0;
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	if (error == 0)
		return 0;
	if (error > 0 || error < -4095) {
		out->err = EBADMSG;
		return -1;
	}
	out->err = -error;
	/* The attributes follow the errno, as netlink_dump_done() puts them. */
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    payload > MNL_ALIGN(sizeof(error)) &&
	    mnl_attr_parse(nlh, MNL_ALIGN(sizeof(error)), ext_ack_attr, &ack) ==
		    MNL_CB_OK &&
	    ack.msg)
		snprintf(out->msg, sizeof(out->msg), "%s",
			 mnl_attr_get_str(ack.msg));
	return 1;
}

const char *ftnl_format_error(const struct ftnl_error *e, char *buf, size_t len)
{
	if (e->msg[0] && e->has_offset)
		snprintf(buf, len, "%s: %s (at byte %u of the request)",
			 strerror(e->err), e->msg, e->offset);
	else if (e->msg[0])
		snprintf(buf, len, "%s: %s", strerror(e->err), e->msg);
	else
		snprintf(buf, len, "%s", strerror(e->err));
	return buf;
}
