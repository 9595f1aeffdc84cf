// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel internals found by name at run time, checked once at load.
 *
 * The module hooks functions and tracepoints that are not exported and
 * whose names can change between kernels (acct_process, sock_close, the
 * exit-to-user functions the ftrace set settles in, the LSM functions the
 * gate sits on, kernel_sendpage up to 6.4). Rather than fail somewhere in
 * the middle of attaching, every one is looked up here first: a function
 * must be traceable (ftrace_set_filter() on a scratch ops finds it, which
 * is what every later hook needs), a tracepoint must be registered.
 *
 * A missing one turns off the one feature that needs it (enum
 * ftagent_feature): the kernel log says which, GET_STATUS reports it as
 * DEGRADED with the names MISSING, and the load goes on. strict=1 refuses
 * the load instead.
 *
 * pretend_missing= names internals to treat as missing, so that the tests
 * can drive each degraded path on a kernel that has them all.
 *
 * Written once at load, before any hook is attached, and only read after.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "compat/net.h"
#include "gate.h"
#include "hooks.h"
#include "symbols.h"

static char *pretend_missing;
module_param(pretend_missing, charp, 0444);
MODULE_PARM_DESC(pretend_missing,
		 "for tests: comma-separated kernel functions or tracepoints to treat as missing");

struct ftagent_internal {
	const char *name;	/* NULL: not needed on this kernel */
	bool tracepoint;
	unsigned int feature;	/* enum ftagent_feature */
	const char *what;	/* the feature, for the log */
};

static struct ftagent_internal ftagent_internals[] = {
	{ "arch_do_signal_or_restart", false, FTAGENT_FEATURE_FTRACE_SET,
	  "the ftrace hook set (hooks=ftrace falls back to kprobe)" },
	{ "blkcg_maybe_throttle_current", false, FTAGENT_FEATURE_FTRACE_SET,
	  "the ftrace hook set (hooks=ftrace falls back to kprobe)" },
	{ "sched_process_exit", true, FTAGENT_FEATURE_FTRACE_SET,
	  "the ftrace hook set (hooks=ftrace falls back to kprobe)" },
	{ "acct_process", false, FTAGENT_FEATURE_EXIT_RECORDS,
	  "process exit records" },
	{ "sock_close", false, FTAGENT_FEATURE_CLOSE_RECORDS,
	  "socket close records" },
	{ "sched_process_fork", true, FTAGENT_FEATURE_FORK_RECORDS,
	  "fork records" },
	{ "sched_process_exec", true, FTAGENT_FEATURE_EXEC_RECORDS,
	  "exec records" },
	{ "task_rename", true, FTAGENT_FEATURE_RENAMES,
	  "process names after a rename" },
	{ "security_bprm_creds_for_exec", false, FTAGENT_FEATURE_GATE_EXEC,
	  "exec rules and budgets" },
	{ "security_socket_connect", false, FTAGENT_FEATURE_GATE_CONNECT,
	  "connect rules and budgets" },
	{ "security_file_open", false, FTAGENT_FEATURE_GATE_OPEN,
	  "open rules and budgets" },
	{ "security_socket_sendmsg", false, FTAGENT_FEATURE_GATE_SEND,
	  "send rules and bytes_sent budgets" },
	{ "security_socket_bind", false, FTAGENT_FEATURE_GATE_BIND,
	  "bind rules" },
	{ "security_socket_recvmsg", false, FTAGENT_FEATURE_GATE_RECV,
	  "bytes_received budgets on receives" },
	{ "security_file_permission", false, FTAGENT_FEATURE_GATE_RW,
	  "byte budgets on reads and writes" },
	{ FTAGENT_SENDPAGE_SYMBOL, false, FTAGENT_FEATURE_GATE_SENDPAGE,
	  "send rules and budgets on sendfile and splice to a socket" },
};

u32 ftagent_degraded;
static unsigned long ftagent_missing;	/* bits: ftagent_internals[] */

/* A name in pretend_missing= that is none of ours: a typo in a test. */
static const char *ftagent_pretend_unknown(void)
{
	static char bad[64];
	const char *p = pretend_missing;
	unsigned int i;

	while (p && *p) {
		const char *end = strchrnul(p, ',');
		bool known = false;

		for (i = 0; i < ARRAY_SIZE(ftagent_internals) && !known; i++) {
			const char *name = ftagent_internals[i].name;

			known = name && strlen(name) == end - p &&
				!strncmp(p, name, end - p);
		}
		if (!known) {
			strscpy(bad, p, min_t(size_t, end - p + 1,
					      sizeof(bad)));
			return bad;
		}
		p = *end ? end + 1 : end;
	}
	return NULL;
}

static bool ftagent_pretend_missing(const char *name)
{
	const char *p = pretend_missing;
	size_t len = strlen(name);

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if (end - p == len && !strncmp(p, name, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* Whether ftrace can hook @name: the filter every later hook sets. */
static bool ftagent_traceable(const char *name)
{
	struct ftrace_ops *scratch;
	bool found;

	scratch = kzalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return true;	/* can't tell: let the hook itself fail */
	found = !ftagent_ftrace_filter(scratch, name);
	ftrace_free_filter(scratch);
	kfree(scratch);
	return found;
}

int __init ftagent_symbols_init(bool strict)
{
	unsigned int i;
	bool found;

	BUILD_BUG_ON(ARRAY_SIZE(ftagent_internals) > BITS_PER_LONG);
	BUILD_BUG_ON(__FTAGENT_FEATURE_MAX > 32);
	BUILD_BUG_ON(FTAGENT_FEATURE_GATE_EXEC + FTAGENT_GATE_SENDPAGE !=
		     FTAGENT_FEATURE_GATE_SENDPAGE);
	if (ftagent_pretend_unknown()) {
		pr_err("pretend_missing: %s is not a function or tracepoint ftagent looks up on this kernel\n",
		       ftagent_pretend_unknown());
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ftagent_internals); i++) {
		const struct ftagent_internal *in = &ftagent_internals[i];

		if (!in->name)
			continue;
		if (ftagent_pretend_missing(in->name))
			found = false;
		else if (in->tracepoint)
			found = !!ftagent_tracepoint(in->name);
		else
			found = ftagent_traceable(in->name);
		if (found)
			continue;
		ftagent_missing |= BIT(i);
		ftagent_degraded |= BIT(in->feature);
		pr_warn("%s %s not found on this kernel: %s %s\n",
			in->tracepoint ? "tracepoint" : "function", in->name,
			strict ? "needed for" : "running without", in->what);
	}
	if (strict && ftagent_missing) {
		pr_err("strict=1: refusing to load without every feature\n");
		return -ENOENT;
	}
	return 0;
}

int ftagent_symbols_put_missing(struct sk_buff *msg, int nest_type,
				int name_type)
{
	struct nlattr *nest;
	unsigned int i;

	if (!ftagent_missing)
		return 0;
	nest = nla_nest_start(msg, nest_type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(ftagent_internals); i++) {
		if (!(ftagent_missing & BIT(i)))
			continue;
		if (nla_put_string(msg, name_type, ftagent_internals[i].name)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}
