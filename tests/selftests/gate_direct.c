// SPDX-License-Identifier: GPL-2.0
/*
 * How the gate holds its security functions (kmod/gate.c, "Direct
 * calls"), tried on security_socket_sendmsg with a send rule:
 *
 * - with the slot free, the function is hooked as a direct call to the
 *   gate's trampoline, and a denied send is refused through it, again and
 *   again, while an allowed one goes through;
 * - another direct caller there first (a BPF trampoline, which shares
 *   its function with IPMODIFY users: the holder module with share=1)
 *   makes the gate fall back to an IPMODIFY ftrace_ops, say so in the
 *   kernel log, and still refuse; once the gate lets go, the slot is
 *   free for others again, and the next rule set takes it; a direct
 *   caller that shares with nobody there first makes the rule set fail
 *   whole, with a message, as before direct calls;
 * - a livepatch of the function (an IPMODIFY ftrace_ops: the holder with
 *   ipmodify=1) and the gate share it, whichever came first: the gate
 *   still decides every send;
 * - with direct_calls=0 the gate is IPMODIFY itself, so a livepatch there
 *   excludes it: the rule set is refused whole with a message, and the
 *   old one (none) stays.
 *
 * The hook set does not matter here (the gate is the same with both):
 * run once. Reloads the module; leaves it loaded with the runner's
 * parameters.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "gate_test.h"
#include "holder_test.h"
#include "reload_test.h"
#include "../../tools/lib/policy.h"

#define GATED_FN     "security_socket_sendmsg"
#define GATE_TRAMP   "ftagent_gate_tramp_send"
#define DENIED_PORT  9 /* discard: nothing listens */
#define ALLOWED_PORT 7

/* SET_POLICY with one rule, "no-discard", denying UDP/TCP sends to port 9. */
static int deny_sends(struct ftnl_error *err)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	uint64_t gen;
	int rc;

	ftagent_policy_spec_init(&p);
	r = ftagent_policy_spec_add(&p);
	if (!r)
		abort();
	snprintf(r->name, sizeof(r->name), "no-discard");
	r->ops = 1u << FTAGENT_OP_SEND;
	r->action = FTAGENT_ACTION_DENY;
	r->set |= FTAGENT_RULE_SET_PORT;
	r->port_min = DENIED_PORT;
	r->port_max = DENIED_PORT;
	rc = ftagent_set_policy(ctl(), &p, &gen, err);
	ftagent_policy_spec_free(&p);
	return rc;
}

/* SET_POLICY with no rule: the gate lets go of its functions. */
static int no_rules(void)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	uint64_t gen;
	int rc;

	ftagent_policy_spec_init(&p);
	rc = ftagent_set_policy(ctl(), &p, &gen, &err);
	if (rc)
		fprintf(stderr, "# clear policy: %s\n", err.msg);
	ftagent_policy_spec_free(&p);
	return rc;
}

/* A UDP send of one byte to 127.0.0.1:@port: 0 or -errno. */
static int send_to(uint16_t port)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = sendto(fd, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1
		     ? 0
		     : -errno;
	close(fd);
	return rc;
}

/* @n denied sends refused with EPERM and @n allowed ones sent: true. */
static int gate_decides(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (send_to(DENIED_PORT) != -EPERM || send_to(ALLOWED_PORT))
			return 0;
	return 1;
}

/*
 * Whether enabled_functions shows GATED_FN called directly by the gate's
 * trampoline: its line, then a "\tdirect-->ftagent_gate_tramp_send"
 * continuation naming [ftagent].
 */
static int gate_is_direct(void)
{
	char line[512];
	int in_fn = 0, found = 0;
	FILE *f = ft_enabled_functions();

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '\t')
			in_fn = !strncmp(line, GATED_FN " ",
					 strlen(GATED_FN " "));
		else if (in_fn && strstr(line, "direct-->" GATE_TRAMP) &&
			 strstr(line, "[ftagent]"))
			found = 1;
	}
	fclose(f);
	return found;
}

#define DIRECT_HOLDER  "symbol=" GATED_FN
#define BPF_LIKE       "symbol=" GATED_FN " share=1"
#define LIVEPATCH_LIKE "symbol=" GATED_FN " ipmodify=1"

TEST_RELOADS(the_gate_refuses_through_its_direct_call)
{
	struct ftnl_error err;

	ASSERT_EQ(0, ft_reload_module(NULL));
	ctl_forget();
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	/* Nobody else can take the slot while the gate holds it... */
	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"));
	EXPECT_EQ(-EBUSY, holder_as(1, DIRECT_HOLDER));
	EXPECT_TRUE(gate_decides(10));
	/* ...and once the rules are gone, the slot is free again. */
	ASSERT_EQ(0, no_rules());
	EXPECT_EQ(0, gate_is_direct());
	EXPECT_EQ(0, send_to(DENIED_PORT));
	EXPECT_EQ(0, holder_as(1, DIRECT_HOLDER));
	EXPECT_EQ(0, holder_as(0, NULL));
}

TEST_RELOADS(another_direct_caller_first_makes_the_gate_fall_back)
{
	struct ftnl_error err;

	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"));
	ASSERT_EQ(0, ft_reload_module(NULL));
	ctl_forget();
	ASSERT_EQ(0, holder_as(1, BPF_LIKE));
	klog_clear();
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_TRUE(klog_has("gate: no direct call on " GATED_FN
			     " (-16), using ftrace_ops"));
	EXPECT_EQ(0, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	ASSERT_EQ(0, no_rules());
	EXPECT_EQ(0, send_to(DENIED_PORT));

	/* The slot is free: the next rule set takes it. */
	ASSERT_EQ(0, holder_as(0, NULL));
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	ASSERT_EQ(0, no_rules());

	/* A direct caller that shares with no IPMODIFY user: no gate. */
	ASSERT_EQ(0, holder_as(1, DIRECT_HOLDER));
	EXPECT_EQ(-1, deny_sends(&err));
	EXPECT_EQ(EBUSY, err.err);
	EXPECT_NE(NULL, strstr(err.msg, "cannot hook the gate"))
	TH_LOG("message: %s", err.msg);
	EXPECT_EQ(0, send_to(DENIED_PORT));
	EXPECT_EQ(0, holder_as(0, NULL));
}

TEST_RELOADS(a_livepatch_and_the_gate_share_a_function)
{
	struct ftnl_error err;

	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"));
	ASSERT_EQ(0, ft_reload_module(NULL));
	ctl_forget();

	/* The gate first, then the livepatch. */
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, holder_as(1, LIVEPATCH_LIKE));
	EXPECT_EQ(1, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	ASSERT_EQ(0, holder_as(0, NULL));
	EXPECT_TRUE(gate_decides(10));
	ASSERT_EQ(0, no_rules());

	/* The livepatch first, then the gate, which lets go first. */
	ASSERT_EQ(0, holder_as(1, LIVEPATCH_LIKE));
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	ASSERT_EQ(0, no_rules());
	EXPECT_EQ(0, send_to(DENIED_PORT));
	/* And the gate unloads while the livepatch stays. */
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, ft_unload_module());
	ctl_forget();
	EXPECT_EQ(0, send_to(DENIED_PORT));
	EXPECT_EQ(0, holder_as(0, NULL));
	EXPECT_EQ(0, ft_reload_module(NULL));
	ctl_forget();
}

TEST_RELOADS(without_direct_calls_a_livepatch_excludes_the_gate)
{
	struct ftnl_error err;

	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"));
	ASSERT_EQ(0, ft_reload_module("direct_calls=0"));
	ctl_forget();
	ASSERT_EQ(0, holder_as(1, LIVEPATCH_LIKE));
	EXPECT_EQ(-1, deny_sends(&err));
	EXPECT_EQ(EBUSY, err.err);
	EXPECT_NE(NULL, strstr(err.msg, "cannot hook the gate"))
	TH_LOG("message: %s", err.msg);
	/* The old set, none, stays: nothing is refused. */
	EXPECT_EQ(0, send_to(DENIED_PORT));
	ASSERT_EQ(0, holder_as(0, NULL));
	/* Without the livepatch the same set loads, as ftrace_ops. */
	ASSERT_EQ(0, deny_sends(&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, gate_is_direct());
	EXPECT_TRUE(gate_decides(100));
	ASSERT_EQ(0, no_rules());
	EXPECT_EQ(0, ft_reload_module(NULL));
	ctl_forget();
}

TEST_HARNESS_MAIN
