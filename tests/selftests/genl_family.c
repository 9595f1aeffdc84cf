// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink families: they resolve (through our client and
 * through libnl's genl-ctrl-list, which we didn't write), answer with the
 * version the module carries, refuse unprivileged callers on the control
 * family, and reject malformed requests with EINVAL and an extended ACK.
 *
 * Runs in the guest as root with ftagent.ko loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "kselftest_harness.h"
#include "../../tools/lib/budgets.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/status.h"

#define NOBODY 65534

/* The version string the kernel itself records for the loaded module. */
static void sysfs_module_version(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/ftagent/version", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Run @fn in a child that has dropped to nobody with no capabilities. */
static int as_nobody(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(100);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Send @req on a fresh socket for @family; return the error, 0 on success. */
static int send_raw(const char *family,
		    struct nlmsghdr *(*build)(struct ftnl *, char *),
		    struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, family, err) < 0)
		return -1;
	rc = ftnl_transact(&nl, build(&nl, buf), NULL, NULL, err);
	ftnl_close(&nl);
	return rc < 0 ? err->err : 0;
}

TEST(ctl_family_resolves)
{
	struct ftnl_error err;
	struct ftnl nl;

	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err))
	TH_LOG("resolve %s: %s", FTAGENT_GENL_CTL_NAME, err.msg);
	EXPECT_EQ((uint32_t)FTAGENT_GENL_CTL_VERSION, nl.family_version);
	EXPECT_NE(0, nl.family_id);
	ftnl_close(&nl);
}

TEST(stats_family_resolves)
{
	struct ftnl_error err;
	struct ftnl nl;

	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_STATS_NAME, &err))
	TH_LOG("resolve %s: %s", FTAGENT_GENL_STATS_NAME, err.msg);
	EXPECT_EQ((uint32_t)FTAGENT_GENL_STATS_VERSION, nl.family_version);
	ftnl_close(&nl);
}

TEST(ctl_status_reports_version_and_state)
{
	struct ftagent_status st;
	struct ftnl_error err;
	char sysfs[64];

	ASSERT_EQ(0, ftagent_query_status(&st, &err))
	TH_LOG("GET_STATUS: errno %d %s", err.err, err.msg);
	sysfs_module_version(sysfs, sizeof(sysfs));
	ASSERT_NE('\0', sysfs[0]);
	EXPECT_STREQ(sysfs, st.module_version);
	EXPECT_EQ((uint32_t)FTAGENT_ABI_MAJOR, st.abi_major);
	EXPECT_EQ((uint32_t)FTAGENT_ABI_MINOR, st.abi_minor);
	/* Every hook of the mode attached. */
	EXPECT_EQ((uint32_t)FTAGENT_STATE_TRACING, st.state);
}

static int query_version_ok(void)
{
	struct ftagent_status st;
	struct ftnl_error err;
	char sysfs[64];

	if (ftagent_query_version(&st, &err) < 0)
		return 10 + (err.err & 0x3f);
	sysfs_module_version(sysfs, sizeof(sysfs));
	return strcmp(sysfs, st.module_version) ? 2 : 0;
}

TEST(stats_version_answers_any_user)
{
	EXPECT_EQ(0, as_nobody(query_version_ok));
}

static int query_status_errno(void)
{
	struct ftagent_status st;
	struct ftnl_error err;

	if (ftagent_query_status(&st, &err) == 0)
		return 0;
	return err.err;
}

TEST(ctl_refuses_unprivileged_caller)
{
	EXPECT_EQ(EPERM, as_nobody(query_status_errno));
}

static struct nlmsghdr *status_with_attr(struct ftnl *nl, char *buf)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);

	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_STATE, FTAGENT_STATE_READY);
	return nlh;
}

TEST(attribute_on_status_is_rejected_with_reason)
{
	struct ftnl_error err;

	ASSERT_EQ(EINVAL,
		  send_raw(FTAGENT_GENL_CTL_NAME, status_with_attr, &err));
	EXPECT_STREQ("this command takes no attributes", err.msg);
	/* The kernel points at the attribute, right after the headers. */
	EXPECT_EQ(1, err.has_offset);
	EXPECT_EQ((uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN), err.offset);
}

static struct nlmsghdr *status_with_unknown_attr(struct ftnl *nl, char *buf)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);

	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_MAX + 1, 1);
	return nlh;
}

TEST(unknown_attribute_is_rejected_with_reason)
{
	struct ftnl_error err;

	ASSERT_EQ(EINVAL, send_raw(FTAGENT_GENL_CTL_NAME,
				   status_with_unknown_attr, &err));
	EXPECT_STREQ("Unknown attribute type", err.msg);
}

static struct nlmsghdr *version_with_attr(struct ftnl *nl, char *buf)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_STATS_CMD_GET_VERSION, 0);

	mnl_attr_put_strz(nlh, FTAGENT_STATS_A_MODULE_VERSION, "x");
	return nlh;
}

TEST(attribute_on_version_is_rejected_with_reason)
{
	struct ftnl_error err;

	ASSERT_EQ(EINVAL,
		  send_raw(FTAGENT_GENL_STATS_NAME, version_with_attr, &err));
	EXPECT_STREQ("this command takes no attributes", err.msg);
}

/*
 * A rule's or a budget's string with bytes after its NUL: the core's
 * NLA_NUL_STRING check passes it ("/etc/\0/home" has its NUL), and the
 * tail would be dropped without a word. Only NUL padding may follow.
 */
static const char path_with_tail[] = "/etc/\0/home";   /* 12 bytes */
static const char path_with_padding[] = "/etc/\0\0\0"; /* 8 bytes */
static const char *rule_path;
static size_t rule_path_len;
static unsigned int rule_path_offset;

static struct nlmsghdr *empty_policy(struct ftnl *nl, char *buf)
{
	return ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_SET_POLICY, 0);
}

static struct nlmsghdr *policy_with_path(struct ftnl *nl, char *buf)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_SET_POLICY, 0);
	struct nlattr *rule;

	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_POLICY_ENFORCE, 0);
	rule = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, "tail");
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, 1u << FTAGENT_OP_OPEN);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, FTAGENT_ACTION_AUDIT);
	rule_path_offset =
		(char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)nlh;
	mnl_attr_put(nlh, FTAGENT_RULE_A_PATH_PREFIX, rule_path_len, rule_path);
	mnl_attr_nest_end(nlh, rule);
	return nlh;
}

static uint64_t policy_generation(struct __test_metadata *_metadata)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	struct ftnl nl;
	uint64_t gen;

	ftagent_policy_spec_init(&p);
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0 ||
	    ftagent_get_policy(&nl, &p, &err) < 0) {
		TH_LOG("GET_POLICY: %s", err.msg);
		return UINT64_MAX;
	}
	ftnl_close(&nl);
	gen = p.generation;
	ftagent_policy_spec_free(&p);
	return gen;
}

TEST(rule_string_with_bytes_after_its_nul_is_rejected)
{
	struct ftnl_error err;
	uint64_t gen = policy_generation(_metadata);

	ASSERT_NE(UINT64_MAX, gen);
	rule_path = path_with_tail;
	rule_path_len = sizeof(path_with_tail);
	ASSERT_EQ(EINVAL,
		  send_raw(FTAGENT_GENL_CTL_NAME, policy_with_path, &err));
	EXPECT_STREQ("a string attribute has bytes after its NUL", err.msg);
	EXPECT_EQ(1, err.has_offset);
	EXPECT_EQ(rule_path_offset, err.offset);
	/* Refused whole: the set in force did not change. */
	EXPECT_EQ(gen, policy_generation(_metadata));

	/* NUL padding after the NUL is no tail. */
	rule_path = path_with_padding;
	rule_path_len = sizeof(path_with_padding);
	ASSERT_EQ(0, send_raw(FTAGENT_GENL_CTL_NAME, policy_with_path, &err))
	TH_LOG("%s", err.msg);
	EXPECT_EQ(gen + 1, policy_generation(_metadata));
	rule_path = NULL;
	ASSERT_EQ(0, send_raw(FTAGENT_GENL_CTL_NAME, empty_policy, &err));
}

static struct nlmsghdr *budget_with_comm_tail(struct ftnl *nl, char *buf)
{
	static const char comm[] = "cat\0x";
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_SET_BUDGETS, 0);
	struct nlattr *b;

	b = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_BUDGET);
	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_NAME, "tail");
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_METRIC,
			 FTAGENT_METRIC_BYTES_READ);
	mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_LIMIT, 1 << 20);
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_WINDOW_MS, 1000);
	mnl_attr_put_u8(nlh, FTAGENT_BUDGET_A_ENFORCE, 0);
	mnl_attr_put(nlh, FTAGENT_BUDGET_A_COMM, sizeof(comm), comm);
	mnl_attr_nest_end(nlh, b);
	return nlh;
}

TEST(budget_string_with_bytes_after_its_nul_is_rejected)
{
	struct ftagent_budget_set before = {0}, after = {0};
	struct ftnl_error err;
	struct ftnl nl;

	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	ASSERT_EQ(0, ftagent_get_budgets(&nl, &before, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(EINVAL,
		  send_raw(FTAGENT_GENL_CTL_NAME, budget_with_comm_tail, &err));
	EXPECT_STREQ("a string attribute has bytes after its NUL", err.msg);
	EXPECT_EQ(1, err.has_offset);
	/* Refused whole: the set in force did not change. */
	ASSERT_EQ(0, ftagent_get_budgets(&nl, &after, &err))
	TH_LOG("%s", err.msg);
	EXPECT_TRUE(ftagent_budget_set_equal(&before, &after));
	ftagent_budget_set_free(&before);
	ftagent_budget_set_free(&after);
	ftnl_close(&nl);
}

static struct nlmsghdr *status_reserved_set(struct ftnl *nl, char *buf)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);
	struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	g->reserved = 1;
	return nlh;
}

TEST(reserved_header_bits_are_rejected)
{
	struct ftnl_error err;

	ASSERT_EQ(EINVAL,
		  send_raw(FTAGENT_GENL_CTL_NAME, status_reserved_set, &err));
	EXPECT_NE('\0', err.msg[0]);
}

static struct nlmsghdr *unknown_command(struct ftnl *nl, char *buf)
{
	return ftnl_put_request(nl, buf, FTAGENT_CTL_CMD_MAX + 1, 0);
}

TEST(unknown_command_is_not_supported)
{
	struct ftnl_error err;

	EXPECT_EQ(EOPNOTSUPP,
		  send_raw(FTAGENT_GENL_CTL_NAME, unknown_command, &err));
}

/*
 * libnl's genl-ctrl-list is a client we didn't write: both families must be
 * listed under their names with their versions.
 */
TEST(genl_ctrl_list_lists_both_families)
{
	char line[512], want_ctl[128], want_stats[128];
	int seen_ctl = 0, seen_stats = 0;
	FILE *p;

	snprintf(want_ctl, sizeof(want_ctl), " %s version %d",
		 FTAGENT_GENL_CTL_NAME, FTAGENT_GENL_CTL_VERSION);
	snprintf(want_stats, sizeof(want_stats), " %s version %d",
		 FTAGENT_GENL_STATS_NAME, FTAGENT_GENL_STATS_VERSION);
	p = popen("genl-ctrl-list 2>&1", "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, want_ctl))
			seen_ctl = 1;
		if (strstr(line, want_stats))
			seen_stats = 1;
	}
	EXPECT_EQ(0, pclose(p));
	EXPECT_EQ(1, seen_ctl);
	EXPECT_EQ(1, seen_stats);
}

TEST_HARNESS_MAIN
