// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel internals found by name at run time.
 *
 * The module hooks functions and tracepoints that are not exported and
 * whose names can change between kernels (acct_process, sock_close, the
 * exit-to-user functions the ftrace set settles in, the LSM functions the
 * gate sits on, kernel_sendpage up to 6.4). A missing one turns off the
 * one feature that needs it (enum ftagent_feature): the kernel log says
 * which, GET_STATUS reports it as DEGRADED with the names MISSING, and the
 * module goes on without it. strict=1 refuses the load instead.
 *
 * When each is looked up: tracepoints at load (a cheap walk of the
 * tracepoint list). Functions when they are first hooked, through
 * ftagent_symbol_filter(): the filter a hook sets anyway is the lookup
 * (by address, ftagent_ftrace_filter(); a name that is not found there
 * costs a scan of every traceable function, a fifth of a second under
 * TCG), and a separate lookup per name would cost a second one at every
 * load. So the lifecycle functions and the
 * ftrace set's settle points are known once the module has loaded with
 * hooks=ftrace, and the gate's LSM functions once a rule or budget set
 * first needs them. strict=1 looks every function up at load, to refuse
 * the load before anything runs without it.
 *
 * pretend_missing= names internals to treat as missing, so that the tests
 * can drive each degraded path on a kernel that has them all.
 *
 * The missing set only grows; bits are set atomically by whoever finds a
 * name missing (load, or a netlink request under the config mutex) and
 * read without a lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "callsites.h"
#include "compat/net.h"
#include "gate.h"
#include "hooks.h"
#include "iouring.h"
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
	{ "ptrace_notify", false, FTAGENT_FEATURE_FTRACE_SET,
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
	{ "security_bprm_check", false, FTAGENT_FEATURE_GATE_EXEC,
	  "exec rules and budgets" },
	{ "would_dump", false, FTAGENT_FEATURE_GATE_EXEC,
	  "exec rules and budgets (exec rules on ELF interpreters)" },
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
	{ "security_sctp_bind_connect", false, FTAGENT_FEATURE_GATE_SCTP,
	  "connect and bind rules on SCTP connectx and bindx" },
	/* One of two sets, by kernel: ftagent_iouring_needs() (iouring.c). */
	{ "io_req_complete_post", false, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "io_free_batch_list", false, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "io_recv", false, FTAGENT_FEATURE_IOURING, "io_uring counting" },
	{ "io_recvmsg", false, FTAGENT_FEATURE_IOURING, "io_uring counting" },
	{ "io_accept", false, FTAGENT_FEATURE_IOURING, "io_uring counting" },
	{ "io_splice", false, FTAGENT_FEATURE_IOURING, "io_uring counting" },
	{ "do_splice", false, FTAGENT_FEATURE_IOURING, "io_uring counting" },
	{ "io_req_cqe_overflow", false, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "__io_submit_flush_completions", false, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "io_req_post_cqe", false, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "io_uring_complete", true, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "io_uring_submit_req", true, FTAGENT_FEATURE_IOURING,
	  "io_uring counting" },
	{ "aio_prep_rw", false, FTAGENT_FEATURE_AIO, "Linux AIO counting" },
	{ "aio_complete_rw", false, FTAGENT_FEATURE_AIO,
	  "Linux AIO counting" },
	{ "security_socket_accept", false, FTAGENT_FEATURE_GATE_ACCEPT,
	  "rules and budgets on AF_SMC's accepted fallback connections" },
	/*
	 * mmsg.c hooks the *mmsg loops' entries and probes the calls these
	 * make (the receivers' only where there is no sock_recv_length).
	 */
	{ "__sys_sendmmsg", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "exact sendmmsg, recvmmsg and failed receive lengths" },
	{ "do_recvmmsg", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "exact sendmmsg, recvmmsg and failed receive lengths" },
	{ "____sys_recvmsg", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "exact sendmmsg, recvmmsg and failed receive lengths" },
	{ "__sys_recvfrom", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "exact sendmmsg, recvmmsg and failed receive lengths" },
	/*
	 * And the receive copies that fault: without these, the rest of the
	 * feature still works (mmsg.c: ftagent_mmsg_watch_faults()).
	 */
	{ "__skb_datagram_iter", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "receives whose copy faults" },
	{ "udp_recvmsg", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "receives whose copy faults" },
#if IS_BUILTIN(CONFIG_IPV6)
	{ "udpv6_recvmsg", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "receives whose copy faults" },
#endif
	{ "sock_read_iter", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "io_uring reads of a socket whose copy faults" },
	/* Its return in io_recvmsg (mmsg.c: ftagent_mmsg_probe_iour()). */
	{ "__sys_recvmsg_sock", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "io_uring RECVMSG requests that fail after receiving" },
#ifdef CONFIG_IO_URING
	{ "io_complete_rw", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "io_uring reads of a socket whose copy faults" },
#endif
	{ "skb_copy_and_csum_datagram_msg", false,
	  FTAGENT_FEATURE_MMSG_LENGTHS, "receives whose copy faults" },
	/* zerocopy.c's kretprobe: the bytes TCP_ZEROCOPY_RECEIVE takes */
	{ "tcp_zerocopy_receive", false, FTAGENT_FEATURE_MMSG_LENGTHS,
	  "TCP zero-copy receive counts" },
};

unsigned long ftagent_degraded;
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

/*
 * Whether ftrace's own scan of every traceable function matches @name:
 * 0, -ENOMEM, or the scan's error (-EINVAL: no match).
 */
static int ftagent_traceable_by_name(const char *name)
{
	struct ftrace_ops *scratch;
	int err;

	scratch = kzalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return -ENOMEM;
	err = ftrace_set_filter(scratch, (unsigned char *)name, strlen(name),
				0);
	ftrace_free_filter(scratch);
	kfree(scratch);
	return err;
}

/* Whether ftrace can hook @name: the filter every later hook sets. */
bool ftagent_traceable(const char *name)
{
	struct ftrace_ops *scratch;
	int err;

	/* Out of memory, it can't tell: the hook itself fails if need be. */
	scratch = kzalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return true;
	err = ftagent_ftrace_filter(scratch, name);
	ftrace_free_filter(scratch);
	kfree(scratch);
	return !err || err == -ENOMEM;
}

/* Say once that internal @i is missing, and turn its feature off. */
static void ftagent_symbol_gone(unsigned int i)
{
	const struct ftagent_internal *in = &ftagent_internals[i];

	set_bit(in->feature, &ftagent_degraded);
	if (test_and_set_bit(i, &ftagent_missing))
		return;
	pr_warn("%s %s not found on this kernel: running without %s\n",
		in->tracepoint ? "tracepoint" : "function", in->name,
		in->what);
}

static int ftagent_internal_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_internals); i++)
		if (ftagent_internals[i].name &&
		    !strcmp(ftagent_internals[i].name, name))
			return i;
	return -1;
}

void ftagent_symbol_unusable(const char *name)
{
	int i = ftagent_internal_index(name);

	if (WARN_ON_ONCE(i < 0))
		return;
	set_bit(ftagent_internals[i].feature, &ftagent_degraded);
	set_bit(i, &ftagent_missing);
}

bool ftagent_symbol_missing(const char *name)
{
	int i = ftagent_internal_index(name);

	return i >= 0 && test_bit(i, &ftagent_missing);
}

int ftagent_symbol_filter(struct ftrace_ops *ops, const char *name)
{
	int i = ftagent_internal_index(name);
	int err;

	if (i >= 0 && test_bit(i, &ftagent_missing))
		return -ENOENT;
	err = ftagent_ftrace_filter(ops, name);
	/* ftrace_set_filter() says EINVAL when no function matches. */
	if (err == -EINVAL && i >= 0) {
		ftagent_symbol_gone(i);
		return -ENOENT;
	}
	return err;
}

int ftagent_symbol_filter_at(struct ftrace_ops *ops, const char *name,
			     unsigned long *start, unsigned long *size)
{
	int i = ftagent_internal_index(name);
	int err;

	*start = 0;
	*size = 0;
	if (i >= 0 && test_bit(i, &ftagent_missing))
		return -ENOENT;
	err = ftagent_function_find(name, start, size);
	/*
	 * No kprobe found it (kprobes refuse some functions ftrace traces):
	 * not missing if the name matches a traceable function, but this
	 * hook cannot tell it apart. The caller's feature goes, said as a
	 * failure to attach; strict=1 refuses the load.
	 */
	if (err == -ENOENT) {
		err = ftagent_traceable_by_name(name);
		if (!err)
			return -EOPNOTSUPP;
		if (err == -ENOMEM)
			return err;
		err = -ENOENT;
	}
	if (!err)
		err = ftrace_set_filter_ip(ops, *start, 0, 0);
	if (err) {
		*start = 0;
		*size = 0;
	}
	/* Not there, or not traceable there (EINVAL). */
	if ((err == -ENOENT || err == -EINVAL) && i >= 0) {
		ftagent_symbol_gone(i);
		return -ENOENT;
	}
	return err;
}

int __init ftagent_symbols_init(bool strict)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(ftagent_internals) > BITS_PER_LONG);
	BUILD_BUG_ON(__FTAGENT_FEATURE_MAX > 32);
	BUILD_BUG_ON(FTAGENT_FEATURE_GATE_EXEC + FTAGENT_GATE_SENDPAGE !=
		     FTAGENT_FEATURE_GATE_SENDPAGE);
	BUILD_BUG_ON(FTAGENT_FEATURE_GATE_EXEC + FTAGENT_GATE_SCTP !=
		     FTAGENT_FEATURE_GATE_SCTP);
	if (ftagent_pretend_unknown()) {
		pr_err("pretend_missing: %s is not a function or tracepoint ftagent looks up on this kernel\n",
		       ftagent_pretend_unknown());
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ftagent_internals); i++) {
		struct ftagent_internal *in = &ftagent_internals[i];

		if (in->feature == FTAGENT_FEATURE_IOURING && in->name &&
		    !ftagent_iouring_needs(in->name))
			in->name = NULL;	/* the other mode's */
		if (!in->name)
			continue;
		if (ftagent_pretend_missing(in->name) ||
		    (in->tracepoint && !ftagent_tracepoint(in->name)) ||
		    (!in->tracepoint && strict && !ftagent_traceable(in->name)))
			ftagent_symbol_gone(i);
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

	if (!READ_ONCE(ftagent_missing))
		return 0;
	nest = nla_nest_start(msg, nest_type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(ftagent_internals); i++) {
		if (!test_bit(i, &ftagent_missing))
			continue;
		if (nla_put_string(msg, name_type, ftagent_internals[i].name)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}
