// SPDX-License-Identifier: GPL-2.0
/*
 * Who may steer the module: CAP_SYS_ADMIN in the initial user namespace.
 *
 * Three callers that must not: an unprivileged user (nobody), root inside
 * a user namespace (a container's root), and a process that holds only
 * CAP_NET_ADMIN (what NetworkManager, systemd-networkd and host-network
 * containers hold; genetlink's GENL_ADMIN_PERM lets it through). Each
 * gets EPERM from every control command and every statistics command but
 * GET_VERSION, cannot join the alerts group, cannot open the event files,
 * and what root set up before is unchanged afterwards.
 *
 * And the module is not loaded by a family lookup: with ftagent.ko
 * installed where modprobe finds it, an unprivileged lookup of the family
 * leaves it unloaded (no MODULE_ALIAS_GENL_FAMILY).
 *
 * Runs in the guest as root with ftagent.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/ftagent.h>
#include <linux/genetlink.h>

#include "kselftest_harness.h"
#include "../../tools/lib/budgets.h"
#include "../../tools/lib/filters.h"
#include "../../tools/lib/ftnl.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/status.h"
#include "ftagent_test.h"

#define NOBODY	 65534
#define MSG_PERM "needs CAP_SYS_ADMIN in the initial user namespace"

enum caller { NOBODY_USER, USERNS_ROOT, NET_ADMIN_ONLY };

/*
 * A child's exit status when no user namespace can be made here (a
 * chrooted root, as in the test guest, or user.max_user_namespaces=0):
 * the test is skipped, not passed.
 */
#define NO_USERNS 99

/* One request an unprivileged caller sends; attributes as a root would. */
struct req {
	const char *family;
	uint8_t cmd;
	uint16_t flags;
	int attr;  /* 0: none */
	int width; /* 1, 4 or 8 bytes */
	uint64_t value;
};

#define REQ(fam, c)                                                            \
	{                                                                      \
		fam, c, 0, 0, 0, 0                                             \
	}
#define DUMP(fam, c)                                                           \
	{                                                                      \
		fam, c, NLM_F_DUMP, 0, 0, 0                                    \
	}

static const struct req reqs[] = {
	REQ(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_GET_STATUS),
	{FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_SET_CONFIG, 0,
	 FTAGENT_CTL_A_FLUSH_INTERVAL_MS, 4, 4321},
	REQ(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_FLUSH),
	{FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_ACK_GENERATION, 0,
	 FTAGENT_CTL_A_GEN_SEQ, 8, 1},
	{FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_SET_FILTERS, 0,
	 FTAGENT_CTL_A_NET_TCP, 1, 0},
	REQ(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_GET_FILTERS),
	/* Monitor mode, default deny: would bump the generation. */
	{FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_SET_POLICY, 0,
	 FTAGENT_CTL_A_POLICY_ENFORCE, 1, 0},
	DUMP(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_GET_POLICY),
	/* No budget at all: would clear root's budget. */
	REQ(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_SET_BUDGETS),
	DUMP(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_GET_BUDGETS),
	/* Would hide the caller from counters and events. */
	REQ(FTAGENT_GENL_CTL_NAME, FTAGENT_CTL_CMD_EXCLUDE_SELF),
	REQ(FTAGENT_GENL_STATS_NAME, FTAGENT_STATS_CMD_GET_RESOURCES),
	DUMP(FTAGENT_GENL_STATS_NAME, FTAGENT_STATS_CMD_DUMP_COUNTERS),
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = ft_write_all(fd, text, strlen(text));
	close(fd);
	return rc;
}

/*
 * Root of a new user namespace whose uid and gid 0 are nobody outside
 * (what a container's root is). A helper that stays root in the initial
 * namespace writes the maps, as newuidmap would.
 */
static int become_userns_root(void)
{
	char path[64], c = 0;
	int p[2], status;
	pid_t me = getpid(), helper;

	if (pipe(p))
		return -1;
	helper = fork();
	if (helper == 0) {
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", me);
		if (write_file(path, "0 65534 1"))
			_exit(2);
		snprintf(path, sizeof(path), "/proc/%d/setgroups", me);
		if (write_file(path, "deny"))
			_exit(3);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", me);
		_exit(write_file(path, "0 65534 1") ? 4 : 0);
	}
	if (helper < 0)
		return -1;
	if (unshare(CLONE_NEWUSER))
		return NO_USERNS;
	if (write(p[1], &c, 1) != 1 || waitpid(helper, &status, 0) != helper ||
	    status)
		return -1;
	return setresgid(0, 0, 0) || setresuid(0, 0, 0) ? -1 : 0;
}

/* Become @who. 0, or -1 if the setup itself failed. */
static int become(enum caller who)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {{0}};

	switch (who) {
	case NOBODY_USER:
		return setgroups(0, NULL) ||
				       setresgid(NOBODY, NOBODY, NOBODY) ||
				       setresuid(NOBODY, NOBODY, NOBODY)
			       ? -1
			       : 0;
	case USERNS_ROOT: return become_userns_root();
	case NET_ADMIN_ONLY:
		/* Still uid 0 (so the files' owner), one capability. */
		data[0].effective = 1u << CAP_NET_ADMIN;
		data[0].permitted = 1u << CAP_NET_ADMIN;
		if (syscall(SYS_capset, &hdr, data))
			return -1;
		memset(data, 0, sizeof(data));
		if (syscall(SYS_capget, &hdr, data) ||
		    data[0].effective != 1u << CAP_NET_ADMIN ||
		    data[1].effective)
			return -1;
		return 0;
	}
	return -1;
}

static int send_req(const struct req *r, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, r->family, err) < 0)
		return -1;
	nlh = ftnl_put_request(&nl, buf, r->cmd, r->flags);
	if (r->attr == 0)
		;
	else if (r->width == 1)
		mnl_attr_put_u8(nlh, r->attr, (uint8_t)r->value);
	else if (r->width == 4)
		mnl_attr_put_u32(nlh, r->attr, (uint32_t)r->value);
	else
		mnl_attr_put_u64(nlh, r->attr, r->value);
	rc = ftnl_transact(&nl, nlh, NULL, NULL, err);
	ftnl_close(&nl);
	return rc;
}

/*
 * In the child, as @who: exit 0 if every request was refused with EPERM
 * and the module's message, else 10 + the index of the first that was not
 * (20 + index when the message was missing). GET_VERSION must work.
 */
static int child_requests(enum caller who)
{
	struct ftnl_error err;
	size_t i;
	int rc;

	rc = become(who);
	if (rc)
		return rc == NO_USERNS ? NO_USERNS : 1;
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (send_req(&reqs[i], &err) == 0 || err.err != EPERM)
			return 10 + (int)i;
		/*
		 * GENL_ADMIN_PERM's own refusal has no message; nor has a
		 * dump's: 6.1's genetlink gives a dump's start no extack.
		 */
		if (who == NET_ADMIN_ONLY && !(reqs[i].flags & NLM_F_DUMP) &&
		    strcmp(err.msg, MSG_PERM))
			return 40 + (int)i;
	}
	{
		struct req v = REQ(FTAGENT_GENL_STATS_NAME,
				   FTAGENT_STATS_CMD_GET_VERSION);

		if (send_req(&v, &err))
			return 2;
	}
	return 0;
}

/* As @who: 0 if joining the alerts group is refused with EPERM. */
static int child_alerts(enum caller who)
{
	struct ftnl_error err;
	struct ftnl nl;
	int rc;

	rc = become(who);
	if (rc)
		return rc == NO_USERNS ? NO_USERNS : 1;
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return 2;
	rc = ftnl_join_group(&nl, FTAGENT_GENL_CTL_NAME,
			     FTAGENT_GENL_ALERTS_GROUP, &err);
	ftnl_close(&nl);
	if (rc == 0)
		return 3;
	return err.err == EPERM ? 0 : 4;
}

/*
 * As @who: 0 if no event file opens. The files are root's and 0400, so
 * nobody and the namespace's root get EACCES from the permission bits;
 * uid 0 with only CAP_NET_ADMIN passes those and must get EPERM.
 */
static int child_events(enum caller who)
{
	char path[64];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s0", FTAGENT_FS_MOUNTPOINT,
		 FTAGENT_EVENTS_FILE);
	rc = become(who);
	if (rc)
		return rc == NO_USERNS ? NO_USERNS : 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return 3;
	if (who == NET_ADMIN_ONLY)
		return errno == EPERM ? 0 : 4;
	return errno == EACCES || errno == EPERM ? 0 : 5;
}

static int run_child(int (*fn)(enum caller), enum caller who)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(who));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The guest runs tests as the root of its own mount namespace, not in a
 * chroot (tools/guest/init), so a user namespace can always be made: not
 * making one is a failure, never a skip.
 */
#define FAIL_NO_USERNS(rc)                                                     \
	ASSERT_NE(NO_USERNS, (rc)) TH_LOG("no user namespace could be made")

struct state {
	uint32_t flush_interval_ms;
	struct ftagent_filters f;
	struct ftagent_policy_spec p;
	struct ftagent_budget_set b;
};

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh,
			  GENL_HDRLEN) if (mnl_attr_get_type(a) ==
					   FTAGENT_CTL_A_FLUSH_INTERVAL_MS) *
		(uint32_t *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int take_state(struct state *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftnl_error err;
	struct ftnl nl;
	int rc;

	memset(s, 0, sizeof(*s));
	ftagent_filters_init(&s->f);
	ftagent_policy_spec_init(&s->p);
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err))
		return -1;
	s->flush_interval_ms = UINT32_MAX;
	rc = ftnl_transact(
		     &nl,
		     ftnl_put_request(&nl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0),
		     status_cb, &s->flush_interval_ms, &err) ||
	     s->flush_interval_ms == UINT32_MAX ||
	     ftagent_get_filters(&nl, &s->f, &err) ||
	     ftagent_get_policy(&nl, &s->p, &err) ||
	     ftagent_get_budgets(&nl, &s->b, &err);
	ftnl_close(&nl);
	return rc ? -1 : 0;
}

static void free_state(struct state *s)
{
	ftagent_filters_free(&s->f);
	ftagent_policy_spec_free(&s->p);
	ftagent_budget_set_free(&s->b);
}

FIXTURE(privileges)
{
	int mounted;
};

FIXTURE_VARIANT(privileges)
{
	enum caller who;
};

FIXTURE_VARIANT_ADD(privileges, nobody){NOBODY_USER};
FIXTURE_VARIANT_ADD(privileges, userns_root){USERNS_ROOT};
FIXTURE_VARIANT_ADD(privileges, net_admin_only){NET_ADMIN_ONLY};

FIXTURE_SETUP(privileges)
{
	struct ftagent_budget_set b = {0};
	struct ftagent_budget_spec *spec;
	struct ftnl_error err;
	uint64_t gen;
	struct ftnl nl;

	/* Root's state, which the callers try to change: one budget. */
	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	spec = ftagent_budget_set_add(&b);
	ASSERT_NE(NULL, spec);
	snprintf(spec->name, sizeof(spec->name), "roots");
	spec->metric = FTAGENT_METRIC_EXECS;
	spec->limit = 1000000;
	spec->window_ms = 60000;
	spec->enforce = 0;
	spec->set = FTAGENT_RULE_SET_UID;
	spec->uid = 4242;
	ASSERT_EQ(0, ftagent_set_budgets(&nl, &b, &gen, &err))
	TH_LOG("SET_BUDGETS: %s", err.msg);
	ftagent_budget_set_free(&b);
	ftnl_close(&nl);
	mkdir(FTAGENT_FS_MOUNTPOINT, 0755);
	self->mounted = !mount("ftagentfs", FTAGENT_FS_MOUNTPOINT,
			       FTAGENT_FS_TYPE, 0, NULL);
}

FIXTURE_TEARDOWN(privileges)
{
	struct ftagent_budget_set b = {0};
	struct ftnl_error err;
	uint64_t gen;
	struct ftnl nl;

	if (self->mounted)
		umount2(FTAGENT_FS_MOUNTPOINT, 0);
	if (!ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err)) {
		ftagent_set_budgets(&nl, &b, &gen, &err);
		ftnl_close(&nl);
	}
}

TEST_F(privileges, every_command_is_refused_and_nothing_changes)
{
	struct state before, after;
	int rc;

	ASSERT_EQ(0, take_state(&before));
	ASSERT_EQ(1, (int)before.b.n);
	rc = run_child(child_requests, variant->who);
	FAIL_NO_USERNS(rc);
	EXPECT_EQ(0, rc)
	{
		if (rc >= 40)
			TH_LOG("request %d: EPERM without the module's message",
			       rc - 40);
		else if (rc >= 10)
			TH_LOG("request %d (cmd %u) was not refused with EPERM",
			       rc - 10, reqs[rc - 10].cmd);
	}
	ASSERT_EQ(0, take_state(&after));
	EXPECT_EQ(before.flush_interval_ms, after.flush_interval_ms);
	EXPECT_TRUE(ftagent_filters_equal(&before.f, &after.f));
	EXPECT_EQ(before.p.generation, after.p.generation);
	EXPECT_EQ(before.p.enforce, after.p.enforce);
	EXPECT_EQ(before.b.n, after.b.n);
	free_state(&before);
	free_state(&after);
}

TEST_F(privileges, alerts_group_refuses_the_subscriber)
{
	int rc = run_child(child_alerts, variant->who);

	FAIL_NO_USERNS(rc);
	EXPECT_EQ(0, rc);
}

TEST_F(privileges, event_files_do_not_open)
{
	int rc;

	ASSERT_TRUE(self->mounted || errno == EBUSY);
	rc = run_child(child_events, variant->who);
	FAIL_NO_USERNS(rc);
	EXPECT_EQ(0, rc);
}

/* As nobody: look the control family up; 0 if it was not found. */
static int lookup_as_nobody(enum caller who)
{
	struct ftnl_error err;
	struct ftnl nl;

	(void)who;
	if (become(NOBODY_USER))
		return 1;
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) == 0) {
		ftnl_close(&nl);
		return 2;
	}
	return err.err == ENOENT ? 0 : 3;
}

/*
 * Install the module where modprobe looks (a copy of this kernel's
 * module tree, with depmod run over it, bound over the real one), unload
 * it, and look the family up as nobody: genetlink asks modprobe for
 * "net-pf-16-proto-16-family-ftagent_ctl", which must name nothing.
 */
TEST(family_lookup_does_not_load_the_module)
{
	const char *ko = getenv("FTAGENT_KO");
	char cmd[1024];
	struct stat st;
	int rc;

	ASSERT_NE(NULL, ko);
	/*
	 * A kernel with no module tree of its own (the debug kernel tier's,
	 * everything built in) gets one: the copy is bound over /lib/modules.
	 */
	snprintf(cmd, sizeof(cmd),
		 "set -e; r=$(uname -r); t=$(mktemp -d);"
		 "mount -t tmpfs none $t; mkdir -p $t/lib/modules/$r/extra;"
		 "for f in /lib/modules/$r/modules.order "
		 "/lib/modules/$r/modules.builtin*; do"
		 " [ ! -e $f ] || cp $f $t/lib/modules/$r/; done;"
		 "cp %s $t/lib/modules/$r/extra/;"
		 "depmod -b $t $r;"
		 "modprobe -n -q -d $t ftagent;"
		 "m=/lib/modules; [ ! -d $m/$r ] || m=$m/$r;"
		 "mount --bind $t$m $m; echo $t >/tmp/privileges.tree;"
		 "echo $m >/tmp/privileges.mnt",
		 ko);
	ASSERT_EQ(0, system(cmd));
	/* The set-up works: modprobe would load it by its own name. */
	ASSERT_EQ(0, system("modprobe -n -q ftagent"));
	ASSERT_EQ(0, ft_unload_module());
	rc = run_child(lookup_as_nobody, NOBODY_USER);
	EXPECT_EQ(0, rc);
	EXPECT_NE(0, stat("/sys/module/ftagent", &st))
	TH_LOG("an unprivileged family lookup loaded the module");
	system("umount $(cat /tmp/privileges.mnt);"
	       "t=$(cat /tmp/privileges.tree); umount $t; rmdir $t");
	ft_unload_module();
	ASSERT_EQ(0, ft_reload_module(NULL));
}

TEST_HARNESS_MAIN
