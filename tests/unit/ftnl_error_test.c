// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the NLMSG_ERROR / NLMSG_DONE / extended ACK decoder, on
 * messages built by hand the way the kernel lays them out
 * (net/netlink/af_netlink.c: netlink_ack(), netlink_dump_done()),
 * including truncated and hostile ones.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/lib/ftnl.h"

/* An error reply: nlmsgerr, optionally the echoed request, then TLVs. */
static struct nlmsghdr *build_error(char *buf, int error, int capped,
				    const char *msg, int with_offs,
				    uint32_t offs)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = error;
	e->msg.nlmsg_len = MNL_NLMSG_HDRLEN + 8; /* the echoed request */
	e->msg.nlmsg_type = 0x20;
	if (capped) {
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	} else {
		/* 8 bytes of request payload echoed back. */
		memset(mnl_nlmsg_put_extra_header(nlh, 8), 0xab, 8);
	}
	if (msg || with_offs)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (with_offs)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, offs);
	return nlh;
}

static void ack_is_not_an_error(void **state)
{
	char buf[512] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_error(build_error(buf, 0, 1, NULL, 0, 0), &e), 0);
	assert_int_equal(e.err, 0);
	assert_string_equal(e.msg, "");
}

static void plain_errno_without_tlvs(void **state)
{
	char buf[512] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_error(build_error(buf, -EPERM, 1, NULL, 0, 0), &e),
		1);
	assert_int_equal(e.err, EPERM);
	assert_string_equal(e.msg, "");
	assert_int_equal(e.has_offset, 0);
}

static void message_and_offset_capped(void **state)
{
	char buf[512] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_error(build_error(buf, -EINVAL, 1,
					     "Unsupported attribute", 1, 20),
				 &e),
		1);
	assert_int_equal(e.err, EINVAL);
	assert_string_equal(e.msg, "Unsupported attribute");
	assert_int_equal(e.has_offset, 1);
	assert_int_equal(e.offset, 20);
}

static void message_after_echoed_request(void **state)
{
	char buf[512] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_error(build_error(buf, -EINVAL, 0, "bad port", 0, 0),
				 &e),
		1);
	assert_int_equal(e.err, EINVAL);
	assert_string_equal(e.msg, "bad port");
}

static void truncated_header_is_malformed(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = build_error(buf, -EINVAL, 1, NULL, 0, 0);
	struct ftnl_error e;

	(void)state;
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 4; /* half a struct nlmsgerr */
	assert_int_equal(ftnl_parse_error(nlh, &e), -1);
	assert_int_equal(e.err, EBADMSG);
}

static void positive_error_is_malformed(void **state)
{
	char buf[512] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_error(build_error(buf, 5, 1, NULL, 0, 0), &e), -1);
	assert_int_equal(e.err, EBADMSG);
}

static void unterminated_message_is_ignored(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = build_error(buf, -EINVAL, 1, NULL, 0, 0);
	struct nlattr *attr;
	struct ftnl_error e;

	(void)state;
	/* A MSG attribute whose payload has no NUL: must not be read. */
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	attr = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put(nlh, NLMSGERR_ATTR_MSG, 4, "abcd");
	assert_non_null(attr);
	assert_int_equal(ftnl_parse_error(nlh, &e), 1);
	assert_int_equal(e.err, EINVAL);
	assert_string_equal(e.msg, "");
}

static void echoed_length_beyond_message_is_ignored(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = build_error(buf, -EINVAL, 0, "x", 0, 0);
	struct nlmsgerr *e_hdr = mnl_nlmsg_get_payload(nlh);
	struct ftnl_error e;

	(void)state;
	e_hdr->msg.nlmsg_len = 4096; /* claims more than was sent */
	assert_int_equal(ftnl_parse_error(nlh, &e), 1);
	assert_int_equal(e.err, EINVAL);
	assert_string_equal(e.msg, "");
}

static void long_message_is_truncated_safely(void **state)
{
	char buf[1024] = {0};
	char msg[400];
	struct ftnl_error e;

	(void)state;
	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	assert_int_equal(
		ftnl_parse_error(build_error(buf, -EINVAL, 1, msg, 0, 0), &e),
		1);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
}

static void format_includes_kernel_message(void **state)
{
	struct ftnl_error e = {.err = EINVAL,
			       .msg = "Unknown attribute type",
			       .has_offset = 1,
			       .offset = 20};
	char out[256];

	(void)state;
	assert_string_equal(ftnl_format_error(&e, out, sizeof(out)),
			    "Invalid argument: Unknown attribute type (at byte "
			    "20 of the request)");
	e.has_offset = 0;
	assert_string_equal(ftnl_format_error(&e, out, sizeof(out)),
			    "Invalid argument: Unknown attribute type");
	e.msg[0] = '\0';
	assert_string_equal(ftnl_format_error(&e, out, sizeof(out)),
			    "Invalid argument");
}

/* An NLMSG_DONE as netlink_dump_done() lays it out: errno, then TLVs. */
static struct nlmsghdr *build_done(char *buf, int error, const char *msg)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int32_t *e;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	*e = error;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	return nlh;
}

static void done_without_error_ends_the_dump(void **state)
{
	char buf[256] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(ftnl_parse_done(build_done(buf, 0, NULL), &e), 0);
	assert_int_equal(e.err, 0);
}

static void done_without_payload_ends_the_dump(void **state)
{
	char buf[256] = {0};
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ftnl_error e;

	(void)state;
	nlh->nlmsg_type = NLMSG_DONE;
	assert_int_equal(ftnl_parse_done(nlh, &e), 0);
}

static void done_with_errno_is_an_error(void **state)
{
	char buf[256] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(ftnl_parse_done(build_done(buf, -EMSGSIZE, NULL), &e),
			 1);
	assert_int_equal(e.err, EMSGSIZE);
	assert_string_equal(e.msg, "");
}

static void done_with_errno_keeps_the_message(void **state)
{
	char buf[256] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(
		ftnl_parse_done(
			build_done(buf, -ENOMEM, "no memory for a rule"), &e),
		1);
	assert_int_equal(e.err, ENOMEM);
	assert_string_equal(e.msg, "no memory for a rule");
}

static void done_with_impossible_errno_is_malformed(void **state)
{
	char buf[256] = {0};
	struct ftnl_error e;

	(void)state;
	assert_int_equal(ftnl_parse_done(build_done(buf, 5, NULL), &e), -1);
	assert_int_equal(e.err, EBADMSG);
	assert_int_equal(ftnl_parse_done(build_done(buf, -100000, NULL), &e),
			 -1);
	assert_int_equal(e.err, EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ack_is_not_an_error),
		cmocka_unit_test(done_without_error_ends_the_dump),
		cmocka_unit_test(done_without_payload_ends_the_dump),
		cmocka_unit_test(done_with_errno_is_an_error),
		cmocka_unit_test(done_with_errno_keeps_the_message),
		cmocka_unit_test(done_with_impossible_errno_is_malformed),
		cmocka_unit_test(plain_errno_without_tlvs),
		cmocka_unit_test(message_and_offset_capped),
		cmocka_unit_test(message_after_echoed_request),
		cmocka_unit_test(truncated_header_is_malformed),
		cmocka_unit_test(positive_error_is_malformed),
		cmocka_unit_test(unterminated_message_is_ignored),
		cmocka_unit_test(echoed_length_beyond_message_is_ignored),
		cmocka_unit_test(long_message_is_truncated_safely),
		cmocka_unit_test(format_includes_kernel_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
