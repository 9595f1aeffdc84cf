// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the filters client: GET_FILTERS replies laid out as the
 * kernel writes them (nla_nest_start sets NLA_F_NESTED), hostile bytes in
 * names, wrongly typed attributes, the defaults, and a list too long for
 * one netlink attribute, which must be refused rather than sent cut.
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

#include "../../tools/lib/filters.h"

static void put_list(struct nlmsghdr *nlh, uint16_t type,
		     const char *const *names, size_t n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	size_t i;

	for (i = 0; i < n; i++)
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, names[i]);
	mnl_attr_nest_end(nlh, nest);
}

static void reply_decodes(void **state)
{
	static const char *const comms[] = {"ftagentd", "\x01\xff odd"};
	static const char *const paths[] = {"/tmp/x"};
	char buf[1024] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_FILTERS);
	struct ftagent_filters f;
	int t;

	(void)state;
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		mnl_attr_put_u8(nlh, ftagent_filter_toggle_attr(t), t % 2);
	put_list(nlh, FTAGENT_CTL_A_EXCLUDE_PROCESSES, comms, 2);
	put_list(nlh, FTAGENT_CTL_A_EXCLUDE_PATHS, paths, 1);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_MAX + 3, 1); /* from the future */
	ftagent_filters_init(&f);
	assert_int_equal(ftagent_filters_parse(nlh, &f), MNL_CB_OK);
	assert_int_equal(f.toggles_set, (1u << __FTAGENT_FILTER_TOGGLES) - 1);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		assert_int_equal(f.toggle[t], t % 2);
	assert_int_equal(f.exclude_processes.n, 2);
	assert_string_equal(f.exclude_processes.name[1], comms[1]);
	assert_int_equal(f.exclude_paths.n, 1);
	assert_string_equal(f.exclude_paths.name[0], "/tmp/x");
	ftagent_filters_free(&f);
}

static void empty_nests_are_empty_lists(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_FILTERS);
	struct ftagent_filters f, want;
	int t;

	(void)state;
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		mnl_attr_put_u8(nlh, ftagent_filter_toggle_attr(t), 1);
	put_list(nlh, FTAGENT_CTL_A_EXCLUDE_PROCESSES, NULL, 0);
	put_list(nlh, FTAGENT_CTL_A_EXCLUDE_PATHS, NULL, 0);
	ftagent_filters_init(&f);
	assert_int_equal(ftagent_filters_parse(nlh, &f), MNL_CB_OK);
	assert_true(f.exclude_processes.set && f.exclude_paths.set);
	assert_int_equal(f.exclude_processes.n + f.exclude_paths.n, 0);
	/* The defaults: no name is excluded (the daemon uses EXCLUDE_SELF). */
	assert_int_equal(ftagent_filters_defaults(&want), 0);
	assert_int_equal(want.exclude_processes.n, 0);
	assert_true(ftagent_filters_equal(&f, &want));
	ftagent_filters_free(&want);
	ftagent_filters_init(&want);
	ftagent_filter_list_add(&want.exclude_processes, "ftagentd", 8);
	assert_false(ftagent_filters_equal(&f, &want));
	ftagent_filters_free(&f);
	ftagent_filters_free(&want);
}

static void wide_toggle_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_FILTERS);
	struct ftagent_filters f;

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_NET_TCP, 1);
	ftagent_filters_init(&f);
	errno = 0;
	assert_int_equal(ftagent_filters_parse(nlh, &f), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
	ftagent_filters_free(&f);
}

static void unterminated_name_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_GET_FILTERS);
	struct ftagent_filters f;
	struct nlattr *nest;

	(void)state;
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EXCLUDE_PATHS);
	mnl_attr_put(nlh, FTAGENT_CTL_A_NAME, 4, "/tmp");
	mnl_attr_nest_end(nlh, nest);
	ftagent_filters_init(&f);
	assert_int_equal(ftagent_filters_parse(nlh, &f), MNL_CB_ERROR);
	ftagent_filters_free(&f);
}

static void names_keep_their_bytes(void **state)
{
	struct ftagent_filter_list l = {0};
	char odd[3] = {'\x80', '\x01', '\xff'};

	(void)state;
	ftagent_filter_list_clear(&l);
	assert_true(l.set);
	assert_int_equal(ftagent_filter_list_add(&l, odd, 3), 0);
	assert_int_equal(ftagent_filter_list_add(&l, "", 0), 0);
	assert_int_equal(l.n, 2);
	assert_memory_equal(l.name[0], odd, 3);
	assert_int_equal(l.name[0][3], '\0');
	assert_string_equal(l.name[1], "");
	ftagent_filter_list_clear(&l);
	assert_int_equal(l.n, 0);
	assert_true(l.set);
}

static void oversized_list_is_not_sent(void **state)
{
	struct ftagent_filters f;
	struct ftnl_error err;
	struct ftnl nl = {0}; /* never used: refused before sending */
	char path[1025];
	int i;

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	ftagent_filters_init(&f);
	for (i = 0; i < 64; i++)
		ftagent_filter_list_add(&f.exclude_paths, path, 1024);
	assert_int_equal(ftagent_set_filters(&nl, &f, &err), -1);
	assert_int_equal(err.err, EMSGSIZE);
	ftagent_filters_free(&f);
}

static void toggle_names(void **state)
{
	(void)state;
	assert_string_equal(ftagent_filter_toggle_name(FTAGENT_FILTER_NET_TCP),
			    "net_tcp");
	assert_int_equal(
		ftagent_filter_toggle_attr(FTAGENT_FILTER_FILE_TRACK_SENDFILE),
		FTAGENT_CTL_A_FILE_TRACK_SENDFILE);
	assert_string_equal(
		ftagent_filter_toggle_name(__FTAGENT_FILTER_TOGGLES),
		"unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reply_decodes),
		cmocka_unit_test(empty_nests_are_empty_lists),
		cmocka_unit_test(wide_toggle_is_rejected),
		cmocka_unit_test(unterminated_name_is_rejected),
		cmocka_unit_test(names_keep_their_bytes),
		cmocka_unit_test(oversized_list_is_not_sent),
		cmocka_unit_test(toggle_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
