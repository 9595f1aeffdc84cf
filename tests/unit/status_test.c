// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the status/version reply decoder: the happy path, fields a
 * newer module adds, and attributes of the wrong size or without a NUL.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/genetlink.h>

#include "genl_msg.h"

#include "../../tools/lib/status.h"

static void ctl_status_decodes(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	struct ftagent_status st = {0};

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_ABI_MAJOR, FTAGENT_ABI_MAJOR);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_ABI_MINOR, 7);
	mnl_attr_put_strz(nlh, FTAGENT_CTL_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_STATE, FTAGENT_STATE_READY);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_MAX + 5, 99); /* from the future */

	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_OK);
	assert_int_equal(st.abi_major, FTAGENT_ABI_MAJOR);
	assert_int_equal(st.abi_minor, 7);
	assert_string_equal(st.module_version, "1.2.3");
	assert_int_equal(st.state, FTAGENT_STATE_READY);
	assert_int_equal(st.present, FTAGENT_STATUS_HAVE_ABI |
					     FTAGENT_STATUS_HAVE_VERSION |
					     FTAGENT_STATUS_HAVE_STATE);
	assert_true(ftagent_abi_compatible(&st));
	assert_string_equal(ftagent_state_name(st.state), "ready");
}

static void stats_version_decodes(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_STATS_CMD_GET_VERSION);
	struct ftagent_status st = {0};

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_STATS_A_ABI_MAJOR, FTAGENT_ABI_MAJOR + 1);
	mnl_attr_put_strz(nlh, FTAGENT_STATS_A_MODULE_VERSION, "9.0.0");
	assert_int_equal(ftagent_status_parse(nlh, 1, &st), MNL_CB_OK);
	assert_int_equal(st.abi_major, FTAGENT_ABI_MAJOR + 1);
	assert_string_equal(st.module_version, "9.0.0");
	assert_false(ftagent_abi_compatible(&st));
	assert_false(st.present & FTAGENT_STATUS_HAVE_STATE);
}

/* The 0.5 and 0.7 flags are u8 and say they were present. */
static void return_path_flags_decode(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	struct ftagent_status st = {0};

	(void)state;
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_DIRECT_CALLS, 1);
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_EXIT_WORK, 1);
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_OK);
	assert_true(st.present & FTAGENT_STATUS_HAVE_DIRECT);
	assert_true(st.present & FTAGENT_STATUS_HAVE_EXIT_WORK);
	assert_int_equal(1, st.direct_calls);
	assert_int_equal(1, st.exit_work);

	/* A module before 0.7 sends no EXIT_WORK: not present, not 0. */
	memset(buf, 0, sizeof(buf));
	nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	memset(&st, 0, sizeof(st));
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_DIRECT_CALLS, 0);
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_OK);
	assert_false(st.present & FTAGENT_STATUS_HAVE_EXIT_WORK);

	/* A u32 where a u8 belongs is refused. */
	memset(buf, 0, sizeof(buf));
	nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_EXIT_WORK, 1);
	errno = 0;
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);

	/* 0.9: UNMARKED_SOCKETS is a u64; a u32 there is refused. */
	memset(buf, 0, sizeof(buf));
	nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	memset(&st, 0, sizeof(st));
	mnl_attr_put_u64(nlh, FTAGENT_CTL_A_ACCEPTS_REFUSED, 5000000000ull);
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_OK);
	assert_true(st.present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED);
	assert_true(st.accepts_refused == 5000000000ull);
	memset(buf, 0, sizeof(buf));
	nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_ACCEPTS_REFUSED, 1);
	errno = 0;
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
}

static void short_u32_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	struct ftagent_status st = {0};

	(void)state;
	mnl_attr_put_u16(nlh, FTAGENT_CTL_A_STATE, 1);
	errno = 0;
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
}

static void unterminated_version_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	struct ftagent_status st = {0};

	(void)state;
	mnl_attr_put(nlh, FTAGENT_CTL_A_MODULE_VERSION, 5, "1.2.3");
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
	assert_string_equal(st.module_version, "");
}

static void oversized_version_is_rejected(void **state)
{
	char buf[512] = {0};
	char big[FTAGENT_VERSION_STR_MAX + 8];
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_STATUS);
	struct ftagent_status st = {0};

	(void)state;
	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	mnl_attr_put_strz(nlh, FTAGENT_CTL_A_MODULE_VERSION, big);
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
}

static void missing_genl_header_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ftagent_status st = {0};

	(void)state;
	assert_int_equal(ftagent_status_parse(nlh, 0, &st), MNL_CB_ERROR);
}

static void unknown_state_has_a_name(void **state)
{
	(void)state;
	assert_string_equal(ftagent_state_name(FTAGENT_STATE_TRACING),
			    "tracing");
	assert_string_equal(ftagent_state_name(FTAGENT_STATE_DEGRADED),
			    "degraded");
	assert_string_equal(ftagent_state_name(0), "unknown");
	assert_string_equal(ftagent_state_name(__FTAGENT_STATE_MAX + 3),
			    "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ctl_status_decodes),
		cmocka_unit_test(stats_version_decodes),
		cmocka_unit_test(return_path_flags_decode),
		cmocka_unit_test(short_u32_is_rejected),
		cmocka_unit_test(unterminated_version_is_rejected),
		cmocka_unit_test(oversized_version_is_rejected),
		cmocka_unit_test(missing_genl_header_is_rejected),
		cmocka_unit_test(unknown_state_has_a_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
