// SPDX-License-Identifier: GPL-2.0
/*
 * The policy gate. One ftrace_ops per operation, on the security hook the
 * kernel calls once it holds its own copy of the call's arguments:
 *
 *   exec     security_bprm_check(bprm)            the executable is open,
 *                                                 and each interpreter
 *                                                 (#!, binfmt_misc) it names
 *   connect  security_socket_connect(sock, addr, len)
 *   open     security_file_open(file)
 *   send     security_socket_sendmsg(sock, msg, size)
 *   bind     security_socket_bind(sock, addr, len)
 *
 * and, for budgets on bytes only, where reads and receives start:
 *
 *   recv     security_socket_recvmsg(sock, msg, size, flags)
 *            and tcp_zerocopy_receive(sk, zc, tss), which TCP's
 *            zero-copy receive takes instead
 *   rw       security_file_permission(file, mask)  every read and write
 *
 * and, for connects budgets, where a TCP connection really starts:
 * tcp_v4_connect(sk, uaddr, len) and tcp_v6_connect() ("TCP connects").
 *
 * SCTP's connectx and bindx (setsockopt) and the association a sendmsg
 * opens pass none of those but security_sctp_bind_connect(sk, optname,
 * addrs, len), hooked whenever connect or bind is: each address is
 * decided as a connect or a bind, and a connects budget is charged once
 * a call.
 *
 * So a rule judges what the call will really use (no re-read of user
 * memory after the check), and calls made through io_uring are gated as
 * well. An operation is hooked only while a rule set or a budget set
 * needs it.
 *
 * What the kernel does by itself is never refused, charged or killed:
 * kernel threads, exec reading the binary, kernel sockets used from a
 * user task (ftagent_gate_kernel_work()).
 *
 * Each function is hooked as a direct call to a trampoline of the gate's
 * when its slot is free, else by an IPMODIFY ftrace_ops ("Direct calls",
 * below). To refuse, the hook makes ftagent_gate_refuse() (a rule:
 * -EPERM) or ftagent_gate_over_budget() (-EDQUOT) return in the security
 * function's place: the trampoline through its own return address, the
 * ops through the saved instruction pointer. The caller sees the security
 * hook fail, exactly as with an LSM denial, and unwinds normally. The
 * gate (with its zero-copy receive and TCP connect hooks, below) is the
 * one place ftagent redirects; observing hooks never do. A livepatch of
 * one of these security functions shares it with a direct call, and
 * excludes the ops (IPMODIFY: the rule set that needs it is refused).
 *
 * Every decision runs with preemption off (the recursion guard, or the
 * handler's own), which is also the RCU read side the rule set is freed
 * after. Nothing sleeps and nothing is allocated: paths are resolved into
 * per-CPU buffers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sctp.h>
#include <linux/security.h>
#include <linux/socket.h>
#include <linux/tcp.h>
#include <linux/trace_recursion.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/mptcp.h>
#include <net/sock.h>

#include "budget.h"
#include "callfiles.h"
#include "callsites.h"
#include "compat/fs.h"
#include "compat/ftrace.h"
#include "compat/net.h"
#include "counters.h"
#include "events.h"
#include "ftagent.h"
#include "gate.h"
#include "hooks.h"
#include "kill.h"
#include "memory.h"
#include "policy.h"
#include "symbols.h"
#include "xfer.h"
#include "usersock.h"

struct ftagent_gate_buf {
	char obj[FTAGENT_REC_PATH_MAX];
	char exe[FTAGENT_REC_PATH_MAX];
};

static struct ftagent_gate_buf __percpu *ftagent_gate_bufs;
static DEFINE_PER_CPU(u64[__FTAGENT_VERDICT_MAX], ftagent_verdict_count);
static u64 ftagent_verdict_sent[__FTAGENT_VERDICT_MAX];
static void ftagent_verdict_alert_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ftagent_verdict_alert_work,
			    ftagent_verdict_alert_fn);
static bool ftagent_gate_live;

/* Return in the security hook's place: the call fails with EPERM. */
static noinline int ftagent_gate_refuse(void)
{
	return -EPERM;
}

/* The same for a used-up budget: EDQUOT. */
static noinline int ftagent_gate_over_budget(void)
{
	return -EDQUOT;
}

static const char *ftagent_gate_obj(struct ftagent_gate_call *c)
{
	char *p;

	if (c->obj_len == -1) {
		p = d_path(c->path, this_cpu_ptr(ftagent_gate_bufs)->obj,
			   FTAGENT_REC_PATH_MAX);
		c->obj_len = IS_ERR(p) ? -2 : strlen(p);
		c->obj = IS_ERR(p) ? NULL : p;
	}
	return c->obj;
}

/* The task whose principal is matched: current, or a request's submitter. */
static struct task_struct *ftagent_call_task(const struct ftagent_gate_call *c)
{
	return c->task ? c->task : current;
}

#define FTAGENT_EXE_TRIES	4

/*
 * The executable of @t, another process's task (an io_uring request's
 * submitter, completed elsewhere), or NULL. Its mm is read under its
 * task lock, which exit_mm() takes to clear it; only tried, a few times,
 * since hooks run in atomic context and the lock sleeps on PREEMPT_RT.
 */
static struct file *ftagent_foreign_exe(struct task_struct *t)
{
	struct file *exe = NULL;
	int tries;

	for (tries = 0; tries < FTAGENT_EXE_TRIES; tries++) {
		if (spin_trylock(&t->alloc_lock)) {
			rcu_read_lock();
			if (t->mm)
				exe = ftagent_get_file_rcu(&t->mm->exe_file);
			rcu_read_unlock();
			spin_unlock(&t->alloc_lock);
			return exe;
		}
		cpu_relax();
	}
	return NULL;
}

static const char *ftagent_gate_exe(struct ftagent_gate_call *c)
{
	struct task_struct *t = ftagent_call_task(c);
	struct mm_struct *mm = current->mm;
	struct file *exe;
	char *p = ERR_PTR(-ENOENT);

	if (c->exe_len != -1)
		return c->exe;
	rcu_read_lock();
	/* A thread of this process shares its mm: read it without a lock. */
	if (same_thread_group(t, current)) {
		exe = mm ? ftagent_get_file_rcu(&mm->exe_file) : NULL;
	} else {
		exe = ftagent_foreign_exe(t);
		/* exe budgets miss this charge: say so. */
		if (!exe)
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
	}
	if (exe) {
		rcu_read_unlock();
		p = d_path(&exe->f_path, this_cpu_ptr(ftagent_gate_bufs)->exe,
			   FTAGENT_REC_PATH_MAX);
		fput(exe);
	} else {
		rcu_read_unlock();
	}
	c->exe_len = IS_ERR(p) ? -2 : strlen(p);
	c->exe = IS_ERR(p) ? NULL : p;
	return c->exe;
}

static bool ftagent_prefix(const char *s, int len, const char *prefix,
			   u16 plen)
{
	return s && len >= plen && !memcmp(s, prefix, plen);
}

static bool ftagent_in_cgroup(struct task_struct *t, u64 id)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp;
	bool found = false;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(t); cgrp; cgrp = cgroup_parent(cgrp))
		if (cgroup_id(cgrp) == id) {
			found = true;
			break;
		}
	rcu_read_unlock();
	return found;
#else
	return false;
#endif
}

/*
 * Where a subtree walk starts from @t, under rcu_read_lock(). A thread
 * that has exited and been released (an io_uring request's submitter,
 * its request completed afterwards) keeps its task_struct while the
 * request holds it, but not a valid real_parent: its process's leader
 * stands in, if that is still the same live process. NULL if none.
 */
static struct task_struct *ftagent_subtree_start(struct task_struct *t)
{
	struct task_struct *leader;

	if (pid_alive(t))
		return t;
	leader = pid_task(find_pid_ns(t->tgid, &init_pid_ns), PIDTYPE_PID);
	if (leader && leader->signal == t->signal && pid_alive(leader))
		return leader;
	return NULL;
}

static bool ftagent_in_subtree(struct task_struct *t, u32 tgid)
{
	bool found = false;

	if (tgid == 1)
		return true;
	rcu_read_lock();
	t = ftagent_subtree_start(t);
	if (!t) {
		/* The whole process is gone: no subtree to match, counted. */
		rcu_read_unlock();
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
		return false;
	}
	for (; t->pid > 1; t = rcu_dereference(t->real_parent))
		if (t->tgid == tgid) {
			found = true;
			break;
		}
	rcu_read_unlock();
	return found;
}

static bool ftagent_addr_match(const struct ftagent_rule *r,
			       const struct ftagent_gate_call *c)
{
	const u8 *a = c->addr;
	unsigned int bits = r->prefix_len, bytes = bits / 8;
	u16 family = c->family;

	/* An IPv4-mapped IPv6 address is the IPv4 address. */
	if (family == AF_INET6 && r->family == AF_INET &&
	    ipv6_addr_v4mapped((const struct in6_addr *)a)) {
		family = AF_INET;
		a += 12;
	}
	if (family != r->family)
		return false;
	if (memcmp(a, r->addr, bytes))
		return false;
	bits %= 8;
	return !bits || !((a[bytes] ^ r->addr[bytes]) & (0xff00 >> bits));
}

/*
 * The name a comm rule matches: the task's own, except in an io_uring
 * worker (iou-wrk-N) or SQPOLL thread (iou-sqp-N), which does its
 * process's I/O and is matched by the process's name, so that submitting
 * with IOSQE_ASYNC or through SQPOLL does not step around a comm rule.
 */
static const char *ftagent_principal_comm(struct task_struct *t)
{
	if (unlikely(t->flags & PF_IO_WORKER))
		return t->group_leader->comm;
	return t->comm;
}

/* The uid a rule matches: the credentials the call runs under. */
static uid_t ftagent_principal_uid(const struct ftagent_gate_call *c)
{
	kuid_t uid;

	if (c->cred)
		uid = c->cred->uid;
	else if (c->task)
		uid = task_uid(c->task);
	else
		uid = current_uid();
	return from_kuid_munged(&init_user_ns, uid);
}

bool ftagent_principal_matches(const struct ftagent_rule *r,
			       const char *strings,
			       struct ftagent_gate_call *c)
{
	struct task_struct *t = ftagent_call_task(c);
	u32 have = r->have;

	if ((have & FTAGENT_RULE_HAVE_UID) &&
	    ftagent_principal_uid(c) != r->uid)
		return false;
	if ((have & FTAGENT_RULE_HAVE_COMM) &&
	    strncmp(ftagent_principal_comm(t), r->comm, FTAGENT_COMM_LEN))
		return false;
	if ((have & FTAGENT_RULE_HAVE_SUBTREE) &&
	    !ftagent_in_subtree(t, r->subtree))
		return false;
	if ((have & FTAGENT_RULE_HAVE_CGROUP) &&
	    !ftagent_in_cgroup(t, r->cgroup_id))
		return false;
	if (have & FTAGENT_RULE_HAVE_EXE) {
		const char *exe = ftagent_gate_exe(c);

		if (!ftagent_prefix(exe, c->exe_len, strings + r->exe_off,
				    r->exe_len))
			return false;
	}
	return true;
}

static bool ftagent_rule_matches(const struct ftagent_ruleset *set,
				 const struct ftagent_rule *r,
				 struct ftagent_gate_call *c)
{
	u32 have = r->have;

	if ((have & FTAGENT_RULE_HAVE_PORT) &&
	    (!c->have_addr || c->port < r->port_min || c->port > r->port_max))
		return false;
	if ((have & FTAGENT_RULE_HAVE_ADDR) &&
	    (!c->have_addr || !ftagent_addr_match(r, c)))
		return false;
	/*
	 * Resolve first: argument evaluation order is unspecified. A path
	 * that can't be resolved (longer than PATH_MAX) matches every deny
	 * and audit rule and no allow rule: the gate fails closed.
	 */
	if (have & FTAGENT_RULE_HAVE_PATH) {
		const char *obj = ftagent_gate_obj(c);

		if (!obj && c->obj_len == -2)
			return r->action != FTAGENT_ACTION_ALLOW &&
			       ftagent_principal_matches(r, set->strings, c);
		if (!ftagent_prefix(obj, c->obj_len,
				    set->strings + r->path_off, r->path_len))
			return false;
	}
	return ftagent_principal_matches(r, set->strings, c);
}

static void ftagent_verdict_alert_soon(void)
{
	if (!delayed_work_pending(&ftagent_verdict_alert_work))
		schedule_delayed_work(&ftagent_verdict_alert_work,
				      msecs_to_jiffies(FTAGENT_ALERT_INTERVAL_MS));
}

void ftagent_verdict_emit(const struct ftagent_verdict_info *vi,
			  struct ftagent_gate_call *c)
{
	struct ftagent_rec_verdict *v;
	struct ftagent_rec_hdr *hdr;
	size_t size;

	this_cpu_inc(ftagent_verdict_count[vi->verdict]);
	ftagent_verdict_alert_soon();
	hdr = ftagent_event_begin(FTAGENT_REC_VERDICT);
	if (!hdr)
		return;
	/*
	 * A Linux AIO request (by number) or an io_uring request (by task)
	 * completed elsewhere: its submitter's.
	 */
	if (vi->as_tgid) {
		hdr->tgid = vi->as_tgid;
		hdr->pid = vi->as_pid;
	} else if (c->task) {
		hdr->tgid = c->task->tgid;
		hdr->pid = c->task->pid;
	}
	v = (struct ftagent_rec_verdict *)(hdr + 1);
	memset(v, 0, sizeof(*v));
	hdr->body_size = sizeof(*v);
	size = sizeof(*hdr) + sizeof(*v);
	v->policy_generation = vi->generation;
	v->rule = vi->index;
	v->op = c->op;
	v->action = vi->action;
	v->verdict = vi->verdict;
	v->source = vi->source;
	v->error = vi->error;
	v->metric = vi->metric;
	v->used = vi->used;
	v->limit = vi->limit;
	/*
	 * Only the bytes the family uses: an IPv4 address leaves the rest of
	 * c->addr unwritten (ftagent_gate_call_init()); v was cleared.
	 */
	if (c->have_addr) {
		v->family = c->family;
		v->port = c->port;
		memcpy(v->addr, c->addr, c->family == AF_INET ? 4 : 16);
	}
	strscpy(v->rule_name, vi->name, sizeof(v->rule_name));
	if (c->path && ftagent_gate_obj(c))
		v->path_len = ftagent_event_put_str(hdr, &size, c->obj,
						    c->obj_len,
						    FTAGENT_REC_PATH_MAX,
						    FTAGENT_REC_F_STR0_TRUNCATED);
	else if (c->path)
		hdr->flags |= FTAGENT_REC_F_STR0_UNREADABLE;
	ftagent_event_commit(hdr, size);
}

static const u32 ftagent_no_rules[1] = { FTAGENT_RULE_END };

/* The rules for @c's port (ending with FTAGENT_RULE_END). */
static __always_inline const u32 *
ftagent_port_rules(const struct ftagent_port_index *pi, u16 port)
{
	u32 h = hash_32(port, pi->bits);

	for (;; h = (h + 1) & pi->mask) {
		if (pi->slots[h].port == port + 1u)
			return pi->rules + pi->slots[h].off;
		if (!pi->slots[h].port)
			return ftagent_no_rules;
	}
}

/*
 * The IPv4 interval holding @a, from @lo (which holds the first address
 * of @a's /16) to the one holding the next /16's first address (or the
 * last interval).
 */
static noinline u32 ftagent_addr4_search(const struct ftagent_addr_index *ai,
					 u32 a, u32 lo)
{
	u32 b = a >> 16, mid, hi;

	hi = b == 0xffff ? ai->n :
	     (ai->bucket4[b + 1] & ~FTAGENT_BUCKET_ONE) + 1;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (ai->start4[mid] <= a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The rules whose IPv4 prefix covers @a, of an index (ai->n): no search
 * when @a's /16 lies inside one interval.
 */
static __always_inline const u32 *
ftagent_addr4_rules(const struct ftagent_addr_index *ai, u32 a)
{
	u32 lo = ai->bucket4[a >> 16];

	if (lo & FTAGENT_BUCKET_ONE)
		lo &= ~FTAGENT_BUCKET_ONE;
	else
		lo = ftagent_addr4_search(ai, a, lo);
	return ai->rules + ai->off[lo];
}

/* The rules whose prefix covers @c's address. */
static const u32 *ftagent_addr_rules(const struct ftagent_ruleset *set,
				     const struct ftagent_gate_call *c)
{
	const struct ftagent_addr_index *ai;
	u64 ah, al;
	u32 lo = 0, hi, mid;

	if (c->family == AF_INET) {
		ai = &set->addr4[c->op];
		if (!ai->n)
			return ftagent_no_rules;
		return ftagent_addr4_rules(ai, ftagent_be32_at(c->addr));
	}
	ai = &set->addr6[c->op];
	if (!ai->n)
		return ftagent_no_rules;
	ah = ftagent_be64_at(c->addr);
	al = ftagent_be64_at(c->addr + 8);
	for (hi = ai->n; hi - lo > 1;) {
		const struct ftagent_addr128 *s;

		mid = (lo + hi) / 2;
		s = &ai->start6[mid];
		if (s->hi < ah || (s->hi == ah && s->lo <= al))
			lo = mid;
		else
			hi = mid;
	}
	return ai->rules + ai->off[lo];
}

/*
 * The first rule for @c's operation that matches, or FTAGENT_RULE_DEFAULT:
 * the general list, the call's port list and its address interval's
 * list, merged in rule order (each is sorted and ends with
 * FTAGENT_RULE_END, which is above every rule index).
 */
static __always_inline u32
ftagent_first_match(const struct ftagent_ruleset *set,
		    struct ftagent_gate_call *c)
{
	const u32 *g = set->general[c->op];
	const u32 *p = ftagent_no_rules, *a = ftagent_no_rules;
	u32 idx;

	if (c->have_addr) {
		if (set->ports[c->op].slots)
			p = ftagent_port_rules(&set->ports[c->op], c->port);
		if (set->addr4[c->op].n || set->addr6[c->op].n)
			a = ftagent_addr_rules(set, c);
	}
	for (;;) {
		idx = min3(*g, *p, *a);
		if (idx == FTAGENT_RULE_END)
			return FTAGENT_RULE_DEFAULT;
		g += *g == idx;
		p += *p == idx;
		a += *a == idx;
		if (ftagent_rule_matches(set, &set->rules[idx], c))
			return idx;
	}
}

/*
 * A decision other than allow: its verdict record; true when the call
 * must be refused. Out of line, so that an allowed call does not pay
 * for its frame.
 */
static noinline bool ftagent_gate_verdict(const struct ftagent_ruleset *set,
					  u32 idx, u8 action,
					  struct ftagent_gate_call *c)
{
	u8 verdict;

	if (action == FTAGENT_ACTION_AUDIT)
		verdict = FTAGENT_VERDICT_AUDITED;
	else if (set->enforce)
		verdict = FTAGENT_VERDICT_DENIED;
	else
		verdict = FTAGENT_VERDICT_WOULD_DENY;
	{
		struct ftagent_verdict_info vi = {
			.generation = set->generation,
			.index = idx,
			.name = idx == FTAGENT_RULE_DEFAULT ?
				"default" : ftagent_rule_name(set, idx),
			.action = action,
			.verdict = verdict,
			.source = FTAGENT_VERDICT_SRC_RULE,
			.error = verdict == FTAGENT_VERDICT_DENIED ? -EPERM : 0,
		};

		ftagent_verdict_emit(&vi, c);
	}
	return verdict == FTAGENT_VERDICT_DENIED;
}

/*
 * Whether no rule can match @c, of an operation whose rules are all in
 * the port and address indexes (or that has none; indexed_ops), so that
 * the default decides it without the merge: it names no address, or a
 * port none of them names and an address in an interval that has no
 * rules. The usual port or address policy: a bit test, and if there
 * are address rules a table look-up (IPv4, ftagent_addr4_rules()) or a
 * binary search (IPv6). @op is c->op, a constant where the handlers
 * inline this.
 */
static __always_inline bool
ftagent_gate_by_default(const struct ftagent_ruleset *set,
			struct ftagent_gate_call *c, unsigned int op)
{
	const unsigned long *bits = set->port_bits[op];

	if (!c->have_addr)
		return true;
	if (bits && test_bit(c->port, bits))
		return false;
	if (c->family == AF_INET) {
		const struct ftagent_addr_index *ai = &set->addr4[op];
		u32 a = ftagent_be32_at(c->addr);

		return !(set->addr4_ops & BIT(op)) ||
		       !test_bit(a >> 16, ai->busy4) ||
		       *ftagent_addr4_rules(ai, a) == FTAGENT_RULE_END;
	}
	return !(set->addr6_ops & BIT(op)) ||
	       *ftagent_addr_rules(set, c) == FTAGENT_RULE_END;
}

/*
 * The first matching rule's decision, counted; true when the call must
 * be refused. Out of line: the handlers inline only the shortcut.
 */
static noinline bool ftagent_gate_by_rules(const struct ftagent_ruleset *set,
					   struct ftagent_gate_call *c)
{
	u32 idx = ftagent_first_match(set, c);
	u8 action;

	action = idx == FTAGENT_RULE_DEFAULT ? set->default_action :
					       set->rules[idx].action;
	ftagent_policy_hit(set, idx == FTAGENT_RULE_DEFAULT ? set->n : idx);
	if (likely(action == FTAGENT_ACTION_ALLOW))
		return false;
	return ftagent_gate_verdict(set, idx, action, c);
}

/* What __ftagent_gate_decide() found. */
enum ftagent_gate_decision {
	FTAGENT_GATE_PASS,	/* allowed, the call's description untouched */
	FTAGENT_GATE_ALLOW,	/* allowed, the description completed */
	FTAGENT_GATE_REFUSE,
};

/*
 * Decide @c, of operation @op (c->op: a constant in the handlers, which
 * inline this). There, @c is set up only as far as
 * ftagent_gate_call_init() (@partial): the rest is set before the rules
 * or a verdict read it, and the result says whether it was. Out of line
 * for the rarer decisions.
 */
static __always_inline enum ftagent_gate_decision
__ftagent_gate_decide(struct ftagent_gate_call *c, unsigned int op,
		      bool partial)
{
	const struct ftagent_ruleset *set;
	bool by_default, refuse;

	set = rcu_dereference_sched(ftagent_policy);
	if (!set)
		return FTAGENT_GATE_PASS;
	if (likely(set->indexed_ops & BIT(op)))
		by_default = ftagent_gate_by_default(set, c, op);
	else if (set->gated_ops & BIT(op))
		by_default = false;
	else
		return FTAGENT_GATE_PASS;
	if (likely(by_default)) {
		this_cpu_inc(*set->default_hit);
		if (likely(set->default_action == FTAGENT_ACTION_ALLOW))
			return FTAGENT_GATE_PASS;
	}
	if (partial)
		ftagent_gate_call_who(c);
	if (!by_default)
		refuse = ftagent_gate_by_rules(set, c);
	else
		refuse = ftagent_gate_verdict(set, FTAGENT_RULE_DEFAULT,
					      set->default_action, c);
	return refuse ? FTAGENT_GATE_REFUSE : FTAGENT_GATE_ALLOW;
}

/* A whole description's decision: true when the call must be refused. */
static noinline bool ftagent_gate_decide(struct ftagent_gate_call *c)
{
	return __ftagent_gate_decide(c, c->op, false) == FTAGENT_GATE_REFUSE;
}

/*
 * A piece of a sendfile or splice to a socket (xfer.h) that its call has
 * not decided yet, or whose decision no longer holds: decide it, and keep
 * what lets it go for the call's later pieces.
 */
static noinline enum ftagent_gate_decision
ftagent_gate_xfer_decide(struct ftagent_gate_call *c, const struct sock *sk)
{
	const struct ftagent_ruleset *set = rcu_dereference_sched(ftagent_policy);
	struct pt_regs *uregs = task_pt_regs(current);
	enum ftagent_gate_decision decision;

	if (!set || !(set->gated_ops & BIT(FTAGENT_OP_SEND)))
		return FTAGENT_GATE_PASS;
	decision = __ftagent_gate_decide(c, FTAGENT_OP_SEND, true);
	/*
	 * Kept with the generation of the set read above: a set swapped in
	 * since decided it, and the next piece, finding the new one, is
	 * decided again.
	 */
	if (decision != FTAGENT_GATE_REFUSE && ftagent_xfer_call(uregs))
		ftagent_xfer_keep(uregs, c, sk, set->generation);
	return decision;
}

/*
 * A connect or send to the unspecified address reaches this host: the
 * kernel routes 0.0.0.0 to the socket's bound IPv4 address or else to
 * 127.0.0.1 (ip_route_output_key_hash_rcu()), and :: to ::1, or to
 * ::ffff:127.0.0.1 when an IPv6 socket connects or sends bound to an
 * IPv4-mapped address (tcp_v6_connect(), ip6_datagram_connect() test
 * sk_v6_rcv_saddr; udpv6_sendmsg() the source, np->saddr: ":: means
 * loopback"). ::ffff:0.0.0.0 is 0.0.0.0 sent the IPv4 way. The
 * rules judge the address the call will reach, so rewrite it here (a
 * bind's unspecified address is "any", and stays).
 */
static void ftagent_gate_this_host(struct ftagent_gate_call *c,
				   const struct sock *sk)
{
	struct in6_addr *a6 = (struct in6_addr *)c->addr;
	bool inet = sk && (sk->sk_family == AF_INET ||
			   sk->sk_family == AF_INET6);
	__be32 *a4 = NULL;

	if (c->family == AF_INET)
		a4 = (__be32 *)c->addr;
	else if (ipv6_addr_v4mapped(a6))
		a4 = &a6->s6_addr32[3];
	if (a4 && !*a4) {
		*a4 = inet ? READ_ONCE(inet_sk(sk)->inet_saddr) : 0;
		if (!*a4)
			*a4 = htonl(INADDR_LOOPBACK);
	} else if (!a4 && ipv6_addr_any(a6)) {
#if IS_ENABLED(CONFIG_IPV6)
		const struct ipv6_pinfo *np = NULL;

		if (inet && sk->sk_family == AF_INET6)
			np = inet6_sk(sk);
		if (np && (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr) ||
			   ipv6_addr_v4mapped(&np->saddr))) {
			ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK), a6);
			return;
		}
#endif
		*a6 = in6addr_loopback;
	}
}

/*
 * The address a bind, connect or send names. IPv4 sockets also take
 * family 0 (AF_UNSPEC) with an IPv4 address in bind and in UDP and raw
 * sends, and use it as AF_INET: so does the gate. A connect to family 0
 * is a disconnect, and names no address.
 */
static void ftagent_gate_sockaddr(struct ftagent_gate_call *c,
				  const struct sock *sk,
				  const struct sockaddr *sa, int len)
{
	sa_family_t family;

	/* Shorter than a family (sendto's addrlen 0): names nothing. */
	if (!sa || len < (int)sizeof(sa_family_t))
		return;
	family = sa->sa_family;
	if (family == AF_UNSPEC && sk && sk->sk_family == AF_INET &&
	    c->op != FTAGENT_OP_CONNECT)
		family = AF_INET;
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		c->have_addr = true;
		c->family = AF_INET;
		c->port = ntohs(in->sin_port);
		memcpy(c->addr, &in->sin_addr, 4);
	} else if (family == AF_INET6 && len >= SIN6_LEN_RFC2133) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		c->have_addr = true;
		c->family = AF_INET6;
		c->port = ntohs(in6->sin6_port);
		memcpy(c->addr, &in6->sin6_addr, 16);
	}
	if (c->have_addr && c->op != FTAGENT_OP_BIND)
		ftagent_gate_this_host(c, sk);
}

/* The connected peer of an IPv4/IPv6 socket sending without an address. */
static __always_inline void ftagent_gate_peer(struct ftagent_gate_call *c,
					      const struct sock *sk)
{
	if (!sk)
		return;
	if (sk->sk_family == AF_INET) {
		__be32 daddr = READ_ONCE(inet_sk(sk)->inet_daddr);

		c->family = AF_INET;
		memcpy(c->addr, &daddr, 4);
	}
#if IS_ENABLED(CONFIG_IPV6)
	else if (sk->sk_family == AF_INET6) {
		c->family = AF_INET6;
		memcpy(c->addr, &sk->sk_v6_daddr, 16);
	}
#endif
	else
		return;
	c->have_addr = true;
	c->port = ntohs(READ_ONCE(inet_sk(sk)->inet_dport));
}

#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif

/*
 * An SMC socket: AF_SMC, or (6.11 on) AF_INET/AF_INET6 with IPPROTO_SMC.
 * It falls back to TCP on a TCP socket of the kernel's underneath.
 */
static __always_inline bool ftagent_smc(const struct sock *sk)
{
	return sk->sk_family == AF_SMC ||
	       ((sk->sk_family == AF_INET || sk->sk_family == AF_INET6) &&
		sk->sk_type == SOCK_STREAM && sk->sk_protocol == IPPROTO_SMC);
}

/* What ftagent_gate_send() found, besides a refusal (-1) or nothing (0). */
#define FTAGENT_SEND_FASTOPEN	1
#define FTAGENT_SEND_SPLICED	2

/*
 * A send's destination: the connected peer for a stream socket (TCP
 * ignores the address given) and whenever none is given, else the
 * address given; an IPv6 socket given family 0 sends to its peer. A TCP,
 * MPTCP or AF_SMC Fast Open send connects inside the send, past
 * security_socket_connect: it is decided as a connect first. Returns
 * -1 when that connect must be refused, FTAGENT_SEND_FASTOPEN for a Fast
 * Open connect that may go, FTAGENT_SEND_SPLICED for a piece of a
 * sendfile or splice, else 0.
 */
static __always_inline int ftagent_gate_send(struct ftagent_gate_call *c,
					     const struct sock *sk,
					     const struct msghdr *msg)
{
	const struct sockaddr *name = NULL;
	bool stream, tcp;

	/*
	 * A name shorter than its family is no name: sendto() with addrlen
	 * 0 leaves msg_name at an uninitialised buffer.
	 */
	if (msg && msg->msg_name &&
	    msg->msg_namelen >= (int)sizeof(sa_family_t))
		name = msg->msg_name;
	if (!name) {
		ftagent_gate_peer(c, sk);
#ifdef MSG_SPLICE_PAGES
		/* splice_to_socket()'s (sendfile, splice): a user cannot set it. */
		if (msg && (msg->msg_flags & MSG_SPLICE_PAGES))
			return FTAGENT_SEND_SPLICED;
#endif
		return 0;
	}
	stream = sk && sk->sk_type == SOCK_STREAM;
	/*
	 * AF_SMC's Fast Open send falls back to TCP and sends on its kernel
	 * TCP socket underneath, which connects past every hook of ours.
	 */
	tcp = sk && (((sk->sk_family == AF_INET || sk->sk_family == AF_INET6) &&
		      (sk->sk_protocol == IPPROTO_TCP ||
		       sk->sk_protocol == IPPROTO_MPTCP)) ||
		     ftagent_smc(sk));
	/*
	 * Every Fast Open send naming an address, whatever the socket's
	 * state: that is read here without the socket lock, and a connected
	 * socket's Fast Open fails anyway (EISCONN).
	 */
	if (tcp && (msg->msg_flags & MSG_FASTOPEN)) {
		struct ftagent_gate_call conn =
			FTAGENT_GATE_CALL_INIT(FTAGENT_OP_CONNECT);

		ftagent_gate_sockaddr(&conn, sk, name, msg->msg_namelen);
		if (ftagent_gate_decide(&conn))
			return -1;
		*c = conn;
		c->op = FTAGENT_OP_SEND;
		return FTAGENT_SEND_FASTOPEN;
	}
	if (!stream &&
	    !(name->sa_family == AF_UNSPEC && sk &&
	      sk->sk_family == AF_INET6))
		ftagent_gate_sockaddr(c, sk, name, msg->msg_namelen);
	else
		ftagent_gate_peer(c, sk);
	return 0;
}

/* The addresses one SCTP call may name; above, it is refused whole. */
#define FTAGENT_GATE_SCTP_MAX_ADDRS 64

/*
 * The size of the packed address at @off of @addrs (@len bytes), or 0
 * where the list ends: what the kernel refuses itself (EINVAL) ends it.
 */
static int ftagent_gate_sctp_next(const u8 *p, int off, int len)
{
	const struct sockaddr *sa = (const void *)(p + off);
	int size;

	if (off + (int)sizeof(sa_family_t) > len)
		return 0;
	size = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
	       sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
	return off + size > len ? 0 : size;
}

/*
 * A list longer than FTAGENT_GATE_SCTP_MAX_ADDRS: refused whole (in
 * enforcing mode), with one verdict and no rule walk, as connectx may
 * name some 262000 addresses, each a walk with preemption off.
 */
static bool ftagent_gate_sctp_too_many(const struct ftagent_ruleset *set,
				       struct ftagent_gate_call *c)
{
	u8 verdict = set->enforce ? FTAGENT_VERDICT_DENIED :
				    FTAGENT_VERDICT_WOULD_DENY;
	struct ftagent_verdict_info vi = {
		.generation = set->generation,
		.index = FTAGENT_RULE_DEFAULT,
		.name = "sctp-too-many-addresses",
		.action = FTAGENT_ACTION_DENY,
		.verdict = verdict,
		.source = FTAGENT_VERDICT_SRC_RULE,
		.error = verdict == FTAGENT_VERDICT_DENIED ? -EPERM : 0,
	};

	ftagent_verdict_emit(&vi, c);
	return verdict == FTAGENT_VERDICT_DENIED;
}

/*
 * SCTP (security_sctp_bind_connect): connectx and the association a
 * sendmsg opens are connects, bindx a bind, each to every address of
 * the packed list (sockaddr_in and sockaddr_in6 back to back, as
 * sctp_connect_new_asoc() and sctp_bindx_add() walk it). True when one
 * is refused. The other options come from the peer's ASCONF, in
 * softirq (SCTP_PARAM_ADD_IP, SCTP_PARAM_SET_PRIMARY, with
 * net.sctp.addip_enable), or name addresses of an association already
 * decided (SCTP_PRIMARY_ADDR, SCTP_SET_PEER_PRIMARY_ADDR): not decided
 * (docs/policy.md).
 */
/* The SCTP options that open an association: a connect. */
static bool ftagent_gate_sctp_connects(int optname)
{
	return optname == SCTP_SOCKOPT_CONNECTX ||
	       optname == SCTP_SENDMSG_CONNECT;
}

static bool ftagent_gate_sctp(const struct sock *sk, int optname,
			      const struct sockaddr *addrs, int len)
{
	const struct ftagent_ruleset *set;
	struct ftagent_gate_call c;
	const u8 *p = (const u8 *)addrs;
	int off, size, n = 0;
	u8 op;

	switch (optname) {
	case SCTP_SOCKOPT_CONNECTX:
	case SCTP_SENDMSG_CONNECT:
		op = FTAGENT_OP_CONNECT;
		break;
	case SCTP_SOCKOPT_BINDX_ADD:
		op = FTAGENT_OP_BIND;
		break;
	default:
		return false;
	}
	set = rcu_dereference_sched(ftagent_policy);
	if (!addrs || !set || !(set->gated_ops & BIT(op)))
		return false;
	/* The principal (exe path) is worked out once, for every address. */
	c = (struct ftagent_gate_call)FTAGENT_GATE_CALL_INIT(op);
	for (off = 0; (size = ftagent_gate_sctp_next(p, off, len)); off += size)
		if (++n > FTAGENT_GATE_SCTP_MAX_ADDRS)
			return ftagent_gate_sctp_too_many(set, &c);
	for (off = 0; (size = ftagent_gate_sctp_next(p, off, len));
	     off += size) {
		c.have_addr = false;
		c.family = 0;
		c.port = 0;
		memset(c.addr, 0, sizeof(c.addr));
		ftagent_gate_sockaddr(&c, sk, (const void *)(p + off), size);
		/*
		 * A bindx port 0 binds the endpoint's port (sctp_do_bind()),
		 * which the socket lock, held here, keeps.
		 */
		if (op == FTAGENT_OP_BIND && c.have_addr && !c.port)
			c.port = READ_ONCE(inet_sk(sk)->inet_num);
		if (ftagent_gate_decide(&c))
			return true;
	}
	return false;
}

/*
 * A kernel socket is the kernel's own work, unless a user's file reaches
 * it: AF_SMC's fallback to TCP puts its kernel TCP socket in the user's
 * AF_SMC file (smc_switch_to_fallback()), and the user's calls then
 * reach that socket directly; and the connections a user accepts on
 * such a socket, when it fell back before it listened, are clones of it
 * in files of their own, marked at accept (usersock.c). Any other
 * kernel socket with a file of its own (SunRPC's, sock_alloc_file()) is
 * still the kernel's; an MPTCP subflow, grafted onto its MPTCP socket's
 * struct socket, is not that socket's own sk. Read in a call on the
 * socket, which holds it.
 */
static __always_inline bool ftagent_kernel_sock(const struct sock *sk)
{
	const struct socket *sock;
	const struct file *file;

	if (!sk->sk_kern_sock)
		return false;
	sock = READ_ONCE(sk->sk_socket);
	if (!sock || READ_ONCE(sock->sk) != sk)
		return true;
	file = READ_ONCE(sock->file);
	if (!file)
		return true;
	if (file_inode(file) != SOCK_INODE((struct socket *)sock))
		return false;
	return !ftagent_usersock_has(sock);
}

/*
 * Byte budgets are about the network: IPv4, IPv6 and AF_SMC sockets (an
 * SMC connection is TCP, or RDMA or ISM to a network peer).
 */
static bool ftagent_inet(const struct sock *sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6 ||
		      sk->sk_family == AF_SMC);
}

/*
 * Whether tcp_v4_connect() and tcp_v6_connect() are hooked ("TCP
 * connects", below): set once both are, cleared before they go.
 */
static bool ftagent_gate_tcp_on;

/*
 * Whether a connects budget charges @sk's connect at tcp_v4_connect() or
 * tcp_v6_connect(), where a connection really starts, rather than at the
 * security hook: a TCP socket of the user's, while those are hooked.
 * MPTCP is not: its subflow is a kernel socket, which they pass by.
 */
static __always_inline bool ftagent_gate_tcp_charges(const struct sock *sk)
{
	return READ_ONCE(ftagent_gate_tcp_on) && ftagent_inet(sk) &&
	       sk->sk_type == SOCK_STREAM && sk->sk_protocol == IPPROTO_TCP;
}

/*
 * The gated function's first arguments, as the hook found them in their
 * registers (di, si, dx, cx): the same for an ftrace_ops and a direct call.
 */
struct ftagent_gate_args {
	unsigned long di, si, dx, cx;
};

/*
 * Whether the exec at security_bprm_check(bprm) is of an interpreter: a
 * binfmt that hands the exec on to one (a #! script, binfmt_misc) names
 * it through bprm_change_interp(), which replaces bprm->interp, until
 * then the very string of bprm->filename. The executable's own check
 * comes first, with the two the same.
 */
static __always_inline bool
ftagent_gate_interpreter(const struct ftagent_gate_args *regs)
{
	const struct linux_binprm *bprm = (const struct linux_binprm *)regs->di;

	return READ_ONCE(bprm->interp) != READ_ONCE(bprm->filename);
}

/*
 * The budget metric a call at @point counts against, or -1; @sk its
 * socket (ftagent_gate_sk()).
 */
static __always_inline int
ftagent_gate_metric(unsigned int point, const struct ftagent_gate_args *regs,
		    const struct sock *sk)
{
	const struct socket *sock;
	struct file *file;
	umode_t mode;
	int mask;

	switch (point) {
	case FTAGENT_OP_EXEC:
		/* One execve, one exec: its interpreters are not charged. */
		return ftagent_gate_interpreter(regs) ? -1 :
							 FTAGENT_METRIC_EXECS;
	case FTAGENT_OP_CONNECT:
		/*
		 * TCP's is charged where its connection starts, if it does.
		 * SMC's here: it connects its TCP socket underneath with
		 * kernel_connect(), a kernel socket's, which TCP's hook
		 * passes by.
		 */
		return ftagent_inet(sk) && !ftagent_gate_tcp_charges(sk) ?
			       FTAGENT_METRIC_CONNECTS : -1;
	case FTAGENT_GATE_SCTP:
		/*
		 * connectx and the association a one-to-many sendmsg opens:
		 * one connect each, however many addresses they name.
		 */
		return ftagent_gate_sctp_connects((int)regs->si) &&
			       ftagent_inet(sk) ? FTAGENT_METRIC_CONNECTS : -1;
	case FTAGENT_OP_OPEN: return FTAGENT_METRIC_OPENS;
	case FTAGENT_OP_SEND:
		return ftagent_inet(sk) ? FTAGENT_METRIC_BYTES_SENT : -1;
	case FTAGENT_GATE_RECV:
		return ftagent_inet(sk) ? FTAGENT_METRIC_BYTES_RECEIVED : -1;
	case FTAGENT_GATE_SENDPAGE:
		return ftagent_inet(sk) ? FTAGENT_METRIC_BYTES_SENT : -1;
	case FTAGENT_GATE_PERM:
		/* Every read and write: sockets and regular files count. */
		file = (struct file *)regs->di;
		mask = (int)regs->si;
		mode = file_inode(file)->i_mode;
		sock = S_ISSOCK(mode) ? sock_from_file(file) : NULL;
		if (sock && ftagent_inet(READ_ONCE(sock->sk)))
			return mask & MAY_WRITE ? FTAGENT_METRIC_BYTES_SENT :
			       mask & MAY_READ	? FTAGENT_METRIC_BYTES_RECEIVED :
						  -1;
		if (S_ISREG(mode))
			return mask & MAY_WRITE ? FTAGENT_METRIC_BYTES_WRITTEN :
			       mask & MAY_READ	? FTAGENT_METRIC_BYTES_READ :
						  -1;
		return -1;
	}
	return -1;
}

/*
 * Whether the call at @point is the kernel's own work done in a user
 * task, which is never refused, charged or killed; only what the process
 * asked for is. Two kinds:
 *  - exec opening and reading the binary and its interpreter
 *    (open_exec() reaches security_file_open(), kernel_read()
 *    security_file_permission()): such a file is opened with
 *    __FMODE_EXEC, which no user open can set. The open is exempt (exec
 *    rules decide the exec); a read only while in_execve is set, as a
 *    binfmt_misc 'O' interpreter is handed that file to read itself.
 *    Nothing else is exempt during an exec: io_uring work or sends that
 *    run inside execve() are the process's own;
 *  - kernel sockets (sk_kern_sock: SunRPC, NFS, CIFS, in-kernel TLS
 *    handshakes ...), whose sends and receives run in whichever task holds
 *    the transport, for other users' requests, but not one in a user's
 *    file (ftagent_kernel_sock(): AF_SMC's after its fallback to TCP,
 *    which the user's calls reach directly); and nbd's sends and
 *    receives on a user's socket, under PF_MEMALLOC with a memalloc
 *    socket, likewise.
 */
static __always_inline bool
ftagent_gate_kernel_work(unsigned int point,
			 const struct ftagent_gate_args *regs,
			 const struct sock *sk)
{
	const struct socket *sock;
	struct file *file;

	switch (point) {
	case FTAGENT_OP_OPEN:
		file = (struct file *)regs->di;
		return file->f_flags & __FMODE_EXEC;
	case FTAGENT_GATE_PERM:
		file = (struct file *)regs->di;
		if ((file->f_flags & __FMODE_EXEC) && current->in_execve)
			return true;
		/* A kernel socket's own file: SunRPC's (ftagent_kernel_sock()). */
		if (!S_ISSOCK(file_inode(file)->i_mode))
			return false;
		sock = sock_from_file(file);
		sk = sock ? READ_ONCE(sock->sk) : NULL;
		break;
	}
	if (!sk)
		return false;
	if (ftagent_kernel_sock(sk))
		return true;
	/*
	 * nbd sends and receives on a socket a user handed it, under
	 * memalloc_noreclaim_save(), in whichever task's page fault or
	 * write-back issued the block I/O: not that task's traffic. Both
	 * marks are the kernel's to set: PF_MEMALLOC on the task (reclaim,
	 * a memalloc socket's receive) and __GFP_MEMALLOC in the socket's
	 * allocation (nbd before each transfer, sk_set_memalloc() for swap
	 * over the network); no user sets either.
	 */
	return (point == FTAGENT_OP_SEND || point == FTAGENT_GATE_RECV ||
		point == FTAGENT_GATE_SENDPAGE) &&
	       unlikely(current->flags & PF_MEMALLOC) &&
	       (READ_ONCE(sk->sk_allocation) & __GFP_MEMALLOC);
}

/*
 * The socket of a call at a socket point (read once: the rules and the
 * kernel-work test judge the same one), else NULL.
 */
static __always_inline const struct sock *
ftagent_gate_sk(unsigned int point, const struct ftagent_gate_args *regs)
{
	const struct socket *sock;

	switch (point) {
	case FTAGENT_OP_CONNECT:
	case FTAGENT_OP_BIND:
	case FTAGENT_OP_SEND:
	case FTAGENT_GATE_RECV:
	case FTAGENT_GATE_SENDPAGE:
		sock = (const struct socket *)regs->di;
		return sock ? READ_ONCE(sock->sk) : NULL;
	case FTAGENT_GATE_SCTP:
		return (const struct sock *)regs->di;
	}
	return NULL;
}

/*
 * A traced call passes the points below with the object its own fdget()
 * took: the note its charge goes by is made to name that one, not the
 * one its descriptor named at entry (callfiles.h: a sibling's dup2() in
 * between would send the bytes to another budget). Whether the call
 * noted anything is asked of the hook set, not of the table: the table
 * may have stopped being shared since the entry (the sibling exited).
 */
static __always_inline void
ftagent_gate_seen(unsigned int point, const struct ftagent_gate_args *regs)
{
	const struct socket *sock;
	struct file *file;
	unsigned int dir;
	int mask;

	if (point != FTAGENT_GATE_PERM && point != FTAGENT_GATE_RECV &&
	    point != FTAGENT_OP_SEND)
		return;
	/* Two loads and a test on the way of every gated call. */
	if (likely(!ftagent_call_may_have_noted()))
		return;
	switch (point) {
	case FTAGENT_GATE_PERM:
		file = (struct file *)regs->di;
		mask = (int)regs->si;
		if (mask & MAY_WRITE)
			dir = FTAGENT_DIR_OUT;
		else if (mask & MAY_READ)
			dir = FTAGENT_DIR_IN;
		else
			return;
		break;
	case FTAGENT_GATE_RECV:
	case FTAGENT_OP_SEND:
		sock = (const struct socket *)regs->di;
		file = sock ? READ_ONCE(sock->file) : NULL;
		dir = point == FTAGENT_GATE_RECV ? FTAGENT_DIR_IN :
						   FTAGENT_DIR_OUT;
		break;
	default:
		return;
	}
	if (file)
		ftagent_call_keys_seen(file, dir);
}

/*
 * Charge @c to the budgets of the metrics in @charge (bits), a Fast Open
 * send's connect first: 0, or the refusal when one is over. A budget
 * that kills has sent the signal already, from the hook
 * (ftagent_budget_gate()), not from a stub of ours the refused call
 * returns through: another IPMODIFY user or an fmod_ret program on the
 * same function can keep a stub from running.
 */
static noinline unsigned long ftagent_gate_charge(struct ftagent_gate_call *c,
						  u32 charge)
{
	unsigned long rest = charge & ~BIT(FTAGENT_METRIC_CONNECTS);
	unsigned int metric;

	if ((charge & BIT(FTAGENT_METRIC_CONNECTS)) &&
	    ftagent_budget_gate(c, FTAGENT_METRIC_CONNECTS))
		return (unsigned long)ftagent_gate_over_budget;
	for_each_set_bit(metric, &rest, __FTAGENT_METRIC_MAX)
		if (ftagent_budget_gate(c, metric))
			return (unsigned long)ftagent_gate_over_budget;
	return 0;
}

/*
 * Decide the call at @point, whose arguments are @regs: 0 to let it run,
 * else the function to return through in its place (the refusal). With
 * preemption off: the RCU read side of the rule and budget sets.
 */
static __always_inline unsigned long
ftagent_gate_point(unsigned int point, const struct ftagent_gate_args *regs)
{
	/*
	 * Not cleared by INIT_STACK_ALL_ZERO: ftagent_gate_call_init() and
	 * ftagent_gate_call_who().
	 */
	struct ftagent_gate_call c __uninitialized;
	const struct sock *sk = ftagent_gate_sk(point, regs);
	/* The operation the rules decide here (a constant in the handlers). */
	const unsigned int op = point < __FTAGENT_OP_MAX ? point :
				point == FTAGENT_GATE_SENDPAGE ?
				FTAGENT_OP_SEND : FTAGENT_OP_NONE;
	unsigned long refuse = 0;
	int metric, send_kind = 0;
	enum ftagent_gate_decision decision = FTAGENT_GATE_PASS;
	u32 charge = 0;

	if (ftagent_gate_kernel_work(point, regs, sk))
		return 0;
	ftagent_gate_seen(point, regs);
	ftagent_gate_call_init(&c, op);
	switch (point) {
	case FTAGENT_OP_EXEC:
		c.path = &((struct linux_binprm *)regs->di)->file->f_path;
		break;
	case FTAGENT_OP_OPEN:
		c.path = &((struct file *)regs->di)->f_path;
		break;
	case FTAGENT_OP_CONNECT:
	case FTAGENT_OP_BIND:
		ftagent_gate_sockaddr(&c, sk,
				      (const struct sockaddr *)regs->si,
				      (int)regs->dx);
		break;
	case FTAGENT_OP_SEND:
		send_kind = ftagent_gate_send(&c, sk,
					      (const struct msghdr *)regs->si);
		if (send_kind < 0)
			refuse = (unsigned long)ftagent_gate_refuse;
		break;
	case FTAGENT_GATE_SENDPAGE:
		/* sendfile and splice to a socket: the connected peer. */
		ftagent_gate_peer(&c, sk);
		break;
	case FTAGENT_GATE_SCTP:
		if (ftagent_gate_sctp(sk, (int)regs->si,
				      (const struct sockaddr *)regs->dx,
				      (int)regs->cx))
			refuse = (unsigned long)ftagent_gate_refuse;
		break;
	}
	/*
	 * The metrics to charge, worked out before the decision so that the
	 * arguments need not be kept across it.
	 */
	if (!refuse && static_branch_unlikely(&ftagent_budgets_on)) {
		metric = ftagent_gate_metric(point, regs, sk);
		if (metric >= 0)
			charge = BIT(metric);
		/*
		 * A Fast Open send is a connect as well: TCP's charged where
		 * the connection starts, and AF_SMC's, which falls back to
		 * TCP (its TCP socket in the user's file) before it connects
		 * inside the send; MPTCP's here.
		 */
		if (send_kind == FTAGENT_SEND_FASTOPEN &&
		    !ftagent_gate_tcp_charges(sk) &&
		    !(ftagent_smc(sk) && READ_ONCE(ftagent_gate_tcp_on)))
			charge |= BIT(FTAGENT_METRIC_CONNECTS);
	}
	/*
	 * A Fast Open send's description is a connect's, with op SEND (its
	 * rules' verdicts; a TCP one's budget verdict comes from
	 * tcp_v4_connect()'s hook, with op CONNECT).
	 */
	if (!refuse && op != FTAGENT_OP_NONE) {
		if (point == FTAGENT_GATE_SENDPAGE ||
		    (point == FTAGENT_OP_SEND &&
		     send_kind == FTAGENT_SEND_SPLICED))
			decision = ftagent_xfer_kept(&c, sk) ?
					   FTAGENT_GATE_PASS :
					   ftagent_gate_xfer_decide(&c, sk);
		else
			decision = __ftagent_gate_decide(&c, op, true);
	}
	if (decision == FTAGENT_GATE_REFUSE)
		refuse = (unsigned long)ftagent_gate_refuse;
	/* A refused call is not charged to any budget. */
	if (!refuse && charge) {
		/* Completed once: the rules may have resolved its strings. */
		if (decision == FTAGENT_GATE_PASS)
			ftagent_gate_call_who(&c);
		refuse = ftagent_gate_charge(&c, charge);
	}
	return refuse;
}

/*
 * The ftrace callback. The recursion lock is taken here rather than by
 * ftrace (FTRACE_OPS_FL_RECURSION), which would call through a helper
 * and an indirect call on every gated call; it also turns preemption
 * off, the RCU read side the sets are read in.
 */
static void notrace ftagent_gate_hook(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftagent_fregs_args(fregs);
	struct ftagent_gate_args args = {
		regs->di, regs->si, regs->dx, regs->cx
	};
	unsigned long refuse;
	int bit;

	if (unlikely(current->flags & PF_KTHREAD))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0))
		return;
	refuse = ftagent_gate_point((unsigned long)ops->private, &args);
	if (refuse)
		ftagent_fregs_set_ip(fregs, refuse);
	ftrace_test_recursion_unlock(bit);
}

/*
 * Direct calls. Unless direct_calls=0 or another direct caller (a BPF
 * trampoline) holds the function, a point's function calls its own
 * trampoline from its first instruction, instead of ftrace's
 * register-saving one and the ops above: about 60 instructions less per
 * gated call (docs/overhead.md). The trampoline keeps the argument
 * registers its function takes, calls the point's
 * ftagent_gate_direct_*() with the first four, and when that returns a
 * refusal, makes it the address the trampoline returns to: the refusal
 * then runs in the function's place, with its arguments, and returns to
 * its caller, as it does from the ops' saved instruction pointer. With a
 * livepatch of the same function (both attached: ftrace_regs_caller
 * returns to the trampoline with the livepatch's address in that slot),
 * an allowed call goes where the livepatch sends it, a refused one to the
 * refusal. The handlers call no function the gate hooks, so they need no
 * recursion guard; the preemption they turn off is the RCU read side of
 * the rule and budget sets.
 */
#define FTAGENT_GATE_TRAMP(name, func, save, restore)		\
	"	.pushsection	.text, \"ax\", @progbits\n"		\
	"	.type	" #name ", @function\n"			\
	#name ":\n"						\
	ASM_ENDBR						\
	"	pushq	%rbp\n"					\
	"	movq	%rsp, %rbp\n"					\
	CALL_DEPTH_ACCOUNT					\
	save							\
	"	call	" #func "\n"					\
	"	testq	%rax, %rax\n"					\
	"	jz	1f\n"						\
	"	movq	%rax, 8(%rbp)\n"				\
	"1:\n"							\
	restore							\
	"	leave\n"						\
	ASM_RET							\
	"	.size	" #name ", .-" #name "\n"			\
	"	.popsection\n"

/*
 * The argument registers of a function of one to five arguments, kept
 * across the handler; no other register is live at its first instruction.
 */
#define FTAGENT_SAVE1		"	pushq	%rdi\n"
#define FTAGENT_SAVE2		FTAGENT_SAVE1 "	pushq	%rsi\n"
#define FTAGENT_SAVE3		FTAGENT_SAVE2 "	pushq	%rdx\n"
#define FTAGENT_SAVE4		FTAGENT_SAVE3 "	pushq	%rcx\n"
#define FTAGENT_SAVE5		FTAGENT_SAVE4 "	pushq	%r8\n"
#define FTAGENT_RESTORE1	"	popq	%rdi\n"
#define FTAGENT_RESTORE2	"	popq	%rsi\n" FTAGENT_RESTORE1
#define FTAGENT_RESTORE3	"	popq	%rdx\n" FTAGENT_RESTORE2
#define FTAGENT_RESTORE4	"	popq	%rcx\n" FTAGENT_RESTORE3
#define FTAGENT_RESTORE5	"	popq	%r8\n" FTAGENT_RESTORE4

static __always_inline unsigned long
ftagent_gate_direct(unsigned int point, unsigned long di, unsigned long si,
		    unsigned long dx, unsigned long cx)
{
	struct ftagent_gate_args args = { di, si, dx, cx };
	unsigned long refuse;

	if (unlikely(current->flags & PF_KTHREAD))
		return 0;
	preempt_disable_notrace();
	refuse = ftagent_gate_point(point, &args);
	preempt_enable_notrace();
	return refuse;
}

/*
 * One trampoline and handler per point, for a function of @nargs
 * arguments (declared in gate.h): each handler decides its point inline.
 * Without a stack canary, which would cost every gated call about ten
 * instructions: the handler's only array is the call's address, which
 * is written whole, 4 or 16 bytes by its family, never by a length
 * that comes from the call (gate.h). Kernels before 6.3 whose stable
 * headers lack the attribute keep the canary.
 */
#ifndef __no_stack_protector
#define __no_stack_protector
#endif
#define FTAGENT_GATE_DIRECT(name, point, nargs)				\
	__visible unsigned long notrace __no_stack_protector		\
	ftagent_gate_direct_##name(unsigned long di, unsigned long si,	\
				   unsigned long dx, unsigned long cx)	\
	{								\
		return ftagent_gate_direct(point, di, si, dx, cx);	\
	}								\
	asm(FTAGENT_GATE_TRAMP(ftagent_gate_tramp_##name,		\
			       ftagent_gate_direct_##name,		\
			       FTAGENT_SAVE##nargs, FTAGENT_RESTORE##nargs))

FTAGENT_GATE_DIRECT(exec, FTAGENT_OP_EXEC, 1);
FTAGENT_GATE_DIRECT(connect, FTAGENT_OP_CONNECT, 3);
FTAGENT_GATE_DIRECT(open, FTAGENT_OP_OPEN, 1);
FTAGENT_GATE_DIRECT(send, FTAGENT_OP_SEND, 3);
FTAGENT_GATE_DIRECT(bind, FTAGENT_OP_BIND, 3);
FTAGENT_GATE_DIRECT(recv, FTAGENT_GATE_RECV, 4);
FTAGENT_GATE_DIRECT(perm, FTAGENT_GATE_PERM, 2);
/* kernel_sendpage(sock, page, offset, size, flags), where there is one. */
FTAGENT_GATE_DIRECT(sendpage, FTAGENT_GATE_SENDPAGE, 5);
FTAGENT_GATE_DIRECT(sctp, FTAGENT_GATE_SCTP, 4);

static void (*const ftagent_gate_tramps[__FTAGENT_GATE_MAX])(void) = {
	[FTAGENT_OP_EXEC] = ftagent_gate_tramp_exec,
	[FTAGENT_OP_CONNECT] = ftagent_gate_tramp_connect,
	[FTAGENT_OP_OPEN] = ftagent_gate_tramp_open,
	[FTAGENT_OP_SEND] = ftagent_gate_tramp_send,
	[FTAGENT_OP_BIND] = ftagent_gate_tramp_bind,
	[FTAGENT_GATE_RECV] = ftagent_gate_tramp_recv,
	[FTAGENT_GATE_PERM] = ftagent_gate_tramp_perm,
	[FTAGENT_GATE_SENDPAGE] = ftagent_gate_tramp_sendpage,
	[FTAGENT_GATE_SCTP] = ftagent_gate_tramp_sctp,
};

/*
 * The hooked functions' prototypes: each trampoline keeps exactly the
 * argument registers its function takes (FTAGENT_GATE_DIRECT()'s @nargs)
 * and passes on the first four, all any decision reads.
 */
static_assert(__same_type(&security_bprm_check,
			  int (*)(struct linux_binprm *)));
static_assert(__same_type(&security_socket_connect,
			  int (*)(struct socket *, struct sockaddr *, int)));
static_assert(__same_type(&security_file_open, int (*)(struct file *)));
static_assert(__same_type(&security_socket_sendmsg,
			  int (*)(struct socket *, struct msghdr *, int)));
static_assert(__same_type(&security_socket_bind,
			  int (*)(struct socket *, struct sockaddr *, int)));
static_assert(__same_type(&security_socket_recvmsg,
			  int (*)(struct socket *, struct msghdr *, int, int)));
static_assert(__same_type(&security_file_permission,
			  int (*)(struct file *, int)));
static_assert(__same_type(&security_sctp_bind_connect,
			  int (*)(struct sock *, int, struct sockaddr *, int)));
#ifdef FTAGENT_HAVE_KERNEL_SENDPAGE
static_assert(__same_type(&kernel_sendpage,
			  int (*)(struct socket *, struct page *, int, size_t,
				  int)));
#endif

/*
 * TCP_ZEROCOPY_RECEIVE takes bytes off a TCP socket's queue without
 * security_socket_recvmsg(): its function, tcp_zerocopy_receive(sk, zc,
 * tss), is hooked with the recv point, for bytes_received budgets (it is
 * counted and charged by zerocopy.c). It runs with the socket locked and
 * returns int, so the refusal stub returns in its place as in the
 * security hook's.
 */
#define FTAGENT_GATE_ZC_SYMBOL	"tcp_zerocopy_receive"

/*
 * Returns in tcp_zerocopy_receive()'s place, with its arguments. It
 * clears what the function would, for do_tcp_getsockopt() to read after a
 * failure: no msg_flags, which would otherwise keep the caller's
 * TCP_CMSG_TS and have the timestamps of a @tss nothing wrote put into
 * the caller's control buffer; and no lengths, nothing mapped or copied,
 * should a cgroup getsockopt program turn the failure into a success.
 */
static noinline int
ftagent_gate_zc_over_budget(struct sock *sk, struct tcp_zerocopy_receive *zc,
			    struct scm_timestamping_internal *tss)
{
	zc->length = 0;
	zc->recv_skip_hint = 0;
	zc->copybuf_len = 0;
	zc->msg_flags = 0;
	return -EDQUOT;
}

static void notrace ftagent_gate_zc_hook(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_NONE);
	int bit;

	/*
	 * Only a user's getsockopt() gets here; the socket can be a kernel
	 * one, AF_SMC's TCP socket underneath (zerocopy.c), and is still
	 * the caller's receive.
	 */
	if (unlikely(current->flags & PF_KTHREAD) ||
	    !static_branch_unlikely(&ftagent_budgets_on))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0))
		return;
	if (ftagent_budget_gate(&c, FTAGENT_METRIC_BYTES_RECEIVED))
		ftagent_fregs_set_ip(fregs,
				     (unsigned long)ftagent_gate_zc_over_budget);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ftagent_gate_zc_ops;
static bool ftagent_gate_zc_on;
/* A zerocopy ops ftrace would not take off (ftagent_stuck()): not reused. */
static bool ftagent_gate_zc_stuck;

/*
 * With the recv point. A kernel without the function has no zero-copy
 * receive to count or refuse (said once, in the log and the status:
 * symbols.c). One that has it but will not let it be hooked (another
 * IPMODIFY user, such as a livepatch of it) fails the recv point, as a
 * security hook that will not hook does: a budget set that needs it is
 * refused rather than held halfway.
 */
static int ftagent_gate_zc_hook_on(void)
{
	struct ftrace_ops *o = &ftagent_gate_zc_ops;
	int err;

	if (ftagent_gate_zc_stuck)
		return -EBUSY;
	memset(o, 0, sizeof(*o));
	o->func = ftagent_gate_zc_hook;
	o->flags = FTRACE_OPS_FL_IPMODIFY;
	err = ftagent_symbol_filter(o, FTAGENT_GATE_ZC_SYMBOL);
	if (!err)
		err = ftagent_ftrace_on(o);
	if (err) {
		ftrace_free_filter(o);
		if (err == -ENOENT)
			return 0;
		pr_err("gate: cannot hook %s: %d\n", FTAGENT_GATE_ZC_SYMBOL,
		       err);
		return err;
	}
	ftagent_gate_zc_on = true;
	return 0;
}

static void ftagent_gate_zc_hook_off(void)
{
	if (!ftagent_gate_zc_on)
		return;
	if (!ftagent_ftrace_off(&ftagent_gate_zc_ops, FTAGENT_GATE_ZC_SYMBOL))
		ftagent_gate_zc_stuck = true;
	ftagent_gate_zc_on = false;
}

/*
 * TCP connects. A connects budget charges a TCP socket's connect() where
 * a connection really starts: tcp_v4_connect(sk, uaddr, len) and
 * tcp_v6_connect(), which __inet_stream_connect() calls with the socket
 * locked, only for a socket that is not connecting or connected already
 * (and a Fast Open send, through the same function). At the security
 * hook, before the lock, the socket's state is no answer: a connect()
 * that polls a non-blocking connect (EALREADY, EISCONN), or io_uring
 * trying an in-progress CONNECT again, started nothing and was charged
 * each time; skipping those there let a second thread's reset of the
 * socket in between start connections nobody charged. A refusal
 * returns -EDQUOT in the function's place, before it does anything: the
 * socket stays unconnected, as after a refusal at the security hook.
 *
 * Passed by: kernel sockets (in-kernel users; AF_SMC's TCP socket
 * underneath until its fallback puts it in the user's file, its connect
 * charged at the AF_SMC socket's security hook), MPTCP subflows,
 * tcp_v4_connect() of an IPv6 socket (tcp_v6_connect() calls it for a
 * v4-mapped address it was charged for), and what the function refuses
 * before it does anything (a Fast Open send() without an address).
 * Charged, and counted by the kernel as no connection (ActiveOpens): a
 * connect that fails further on, for want of a route or a local port.
 * Rules still decide every connect at the security hook.
 *
 * Hooked while a connects budget is held (with the connect point). If
 * either function cannot be hooked, neither is, and TCP connects are
 * charged at the security hook as other sockets' are (the overcharge
 * above, said in the log).
 */
#define FTAGENT_GATE_TCP4_SYMBOL "tcp_v4_connect"
#define FTAGENT_GATE_TCP6_SYMBOL "tcp_v6_connect"

/* Returns in tcp_v4_connect()'s or tcp_v6_connect()'s place. */
static noinline int ftagent_gate_tcp_over_budget(struct sock *sk,
						 struct sockaddr *uaddr,
						 int addr_len)
{
	return -EDQUOT;
}

static void notrace ftagent_gate_tcp_hook(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *ops,
					  struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	const struct sock *sk = (const struct sock *)args->di;
	struct ftagent_gate_call c = FTAGENT_GATE_CALL_INIT(FTAGENT_OP_CONNECT);
	int bit;

	const struct sockaddr *uaddr = (const struct sockaddr *)args->si;
	int len = (int)args->dx;

	/*
	 * Not while off: an ops ftrace would not take off, or one being
	 * put on or taken off, must not charge what the security hook does.
	 */
	if (unlikely(current->flags & PF_KTHREAD) ||
	    !READ_ONCE(ftagent_gate_tcp_on) || !sk || sk_is_mptcp(sk) ||
	    ftagent_kernel_sock(sk) || sk->sk_family != (unsigned long)ops->private ||
	    sk->sk_type != SOCK_STREAM)
		return;
	/*
	 * What the function refuses before it does anything (EINVAL,
	 * EAFNOSUPPORT) starts nothing: a Fast Open send() without an
	 * address calls it with none.
	 */
	if (!uaddr || uaddr->sa_family != sk->sk_family ||
	    len < (sk->sk_family == AF_INET ? (int)sizeof(struct sockaddr_in) :
					      SIN6_LEN_RFC2133))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0))
		return;
	/* The kernel's copy of the address (move_addr_to_kernel()). */
	ftagent_gate_sockaddr(&c, sk, uaddr, len);
	if (ftagent_budget_gate(&c, FTAGENT_METRIC_CONNECTS))
		ftagent_fregs_set_ip(fregs,
				     (unsigned long)ftagent_gate_tcp_over_budget);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ftagent_gate_tcp_ops[2];
static const char *const ftagent_gate_tcp_symbols[2] = {
	FTAGENT_GATE_TCP4_SYMBOL, FTAGENT_GATE_TCP6_SYMBOL
};

static const unsigned long ftagent_gate_tcp_family[2] = { AF_INET, AF_INET6 };
static u8 ftagent_gate_tcp_hooked;	/* bit per ops registered */
static u8 ftagent_gate_tcp_stuck;	/* bit per ops ftrace kept */
/*
 * They would not go on: not tried again while a connects budget is held
 * (a success then would switch where TCP is charged under a live budget).
 */
static bool ftagent_gate_tcp_failed;

static void ftagent_gate_tcp_hook_off(void)
{
	int i;

	WRITE_ONCE(ftagent_gate_tcp_on, false);
	for (i = 0; i < 2; i++) {
		if (!(ftagent_gate_tcp_hooked & BIT(i)))
			continue;
		/* Off for good: it returns at once, tcp_on being false. */
		if (!ftagent_ftrace_off(&ftagent_gate_tcp_ops[i],
					ftagent_gate_tcp_symbols[i]))
			ftagent_gate_tcp_stuck |= BIT(i);
		ftagent_gate_tcp_hooked &= ~BIT(i);
	}
}

/* Both, or neither and TCP is charged at the security hook: never fails. */
static void ftagent_gate_tcp_hook_on(void)
{
	int i, err = 0;

	if (ftagent_gate_tcp_on || ftagent_gate_tcp_stuck ||
	    ftagent_gate_tcp_failed)
		return;
	for (i = 0; i < 2 && !err; i++) {
		struct ftrace_ops *o = &ftagent_gate_tcp_ops[i];

		memset(o, 0, sizeof(*o));
		o->func = ftagent_gate_tcp_hook;
		o->flags = FTRACE_OPS_FL_IPMODIFY;
		o->private = (void *)ftagent_gate_tcp_family[i];
		err = ftagent_ftrace_filter(o, ftagent_gate_tcp_symbols[i]);
		if (!err)
			err = ftagent_ftrace_on(o);
		if (err) {
			ftrace_free_filter(o);
			pr_info("gate: cannot hook %s (%d): TCP connects charged at the security hook\n",
				ftagent_gate_tcp_symbols[i], err);
			break;
		}
		ftagent_gate_tcp_hooked |= BIT(i);
	}
	if (err) {
		ftagent_gate_tcp_failed = true;
		ftagent_gate_tcp_hook_off();
		return;
	}
	WRITE_ONCE(ftagent_gate_tcp_on, true);
}

/*
 * An ELF program's interpreter (PT_INTERP): load_elf_binary() opens it
 * with open_exec() and maps it itself, past security_bprm_check(), where
 * exec rules decide the program and every #! interpreter. Before it maps
 * it, it calls would_dump(bprm, interpreter), which the execve() also
 * passes for its program (bprm->file) and, from binfmt_misc, the file it
 * runs (bprm->executable): decided here are the other files, the
 * interpreters. would_dump() returns nothing the caller checks, so a
 * refusal cannot be an error: the task is sent SIGKILL, which it takes
 * before the new program's first instruction (the exec goes on to its
 * point of no return and the task dies on its way to user space). The
 * verdict names the interpreter. Not an execs budget charge: one execve
 * is one exec.
 */
#define FTAGENT_GATE_INTERP_SYMBOL "would_dump"

static void notrace ftagent_gate_interp_hook(unsigned long ip,
					     unsigned long parent_ip,
					     struct ftrace_ops *ops,
					     struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	const struct linux_binprm *bprm = (const struct linux_binprm *)args->di;
	struct file *file = (struct file *)args->si;
	struct ftagent_gate_call c __uninitialized;

	if (unlikely(current->flags & PF_KTHREAD) || !bprm || !file ||
	    file == READ_ONCE(bprm->file) ||
	    file == READ_ONCE(bprm->executable))
		return;
	/* The RCU read side of the rule set. */
	preempt_disable_notrace();
	ftagent_gate_call_init(&c, FTAGENT_OP_EXEC);
	c.path = &file->f_path;
	if (__ftagent_gate_decide(&c, FTAGENT_OP_EXEC, true) ==
	    FTAGENT_GATE_REFUSE)
		ftagent_kill_current();
	preempt_enable_notrace();
}

static struct ftrace_ops ftagent_gate_interp_ops;
static bool ftagent_gate_interp_on;
/* An interpreter ops ftrace would not take off: not reused. */
static bool ftagent_gate_interp_stuck;

/*
 * The hook sees an ELF program's interpreter only through the loader's
 * own call. A compiler that inlined would_dump() there, or that calls a
 * clone of it (would_dump.constprop.0, as LTO or a later GCC may make),
 * leaves the function in place and the hook silent: interpreters would
 * then pass undecided while the status says exec rules hold. So the
 * loader's code is searched for a direct call to the function (to its
 * start, or to its call-depth thunk: callsites.c), once, before the exec
 * point is first hooked; with none the exec point is treated as missing,
 * as on a kernel without the function (DEGRADED, exec rules refused).
 * One load_elf_binary() is searched, the symbol table's first: with
 * CONFIG_COMPAT_BINFMT_ELF there are two (native and ia32, the same
 * source built by the same compiler: a whole-program optimiser could
 * treat them differently, not GCC without LTO), and it may be either. A
 * search that could not read the code, or ran out of memory, says
 * nothing about the kernel: the set is refused (-EBUSY, -ENOMEM) and the
 * next one searches again. Another tracer's kprobe on the call itself
 * hides it, and the exec point is then missing until the next load.
 */
#define FTAGENT_GATE_INTERP_CALLER "load_elf_binary"

int ftagent_gate_interp_check(void)
{
	static bool found;
	unsigned long sites[4];
	int n;

	if (found)
		return 0;
	n = ftagent_callsites(FTAGENT_GATE_INTERP_CALLER,
			      FTAGENT_GATE_INTERP_SYMBOL, sites,
			      ARRAY_SIZE(sites));
	if (n > 0 || n == -E2BIG) {
		found = true;
		return 0;
	}
	if (n == -ENOMEM)
		return n;
	if (n == -EFAULT) {
		pr_warn("gate: cannot read %s to look for its call to %s\n",
			FTAGENT_GATE_INTERP_CALLER, FTAGENT_GATE_INTERP_SYMBOL);
		return -EBUSY;
	}
	pr_warn("gate: %s has no direct call to %s (%d): running without exec rules and budgets\n",
		FTAGENT_GATE_INTERP_CALLER, FTAGENT_GATE_INTERP_SYMBOL, n);
	ftagent_symbol_unusable(FTAGENT_GATE_INTERP_SYMBOL);
	return -ENOENT;
}

/* With the exec point; a kernel without the function: symbols.c. */
static int ftagent_gate_interp_hook_on(void)
{
	struct ftrace_ops *o = &ftagent_gate_interp_ops;
	int err;

	if (ftagent_gate_interp_stuck)
		return -EBUSY;
	memset(o, 0, sizeof(*o));
	o->func = ftagent_gate_interp_hook;
	o->flags = FTRACE_OPS_FL_RECURSION;
	err = ftagent_symbol_filter(o, FTAGENT_GATE_INTERP_SYMBOL);
	if (!err)
		err = ftagent_ftrace_on(o);
	if (err) {
		ftrace_free_filter(o);
		pr_err("gate: cannot hook %s: %d\n", FTAGENT_GATE_INTERP_SYMBOL,
		       err);
		return err;
	}
	ftagent_gate_interp_on = true;
	return 0;
}

static void ftagent_gate_interp_hook_off(void)
{
	if (!ftagent_gate_interp_on)
		return;
	if (!ftagent_ftrace_off(&ftagent_gate_interp_ops,
				FTAGENT_GATE_INTERP_SYMBOL))
		ftagent_gate_interp_stuck = true;
	ftagent_gate_interp_on = false;
}

static const char *const ftagent_gate_symbols[__FTAGENT_GATE_MAX] = {
	[FTAGENT_OP_EXEC] = "security_bprm_check",
	[FTAGENT_OP_CONNECT] = "security_socket_connect",
	[FTAGENT_OP_OPEN] = "security_file_open",
	[FTAGENT_OP_SEND] = "security_socket_sendmsg",
	[FTAGENT_OP_BIND] = "security_socket_bind",
	[FTAGENT_GATE_RECV] = "security_socket_recvmsg",
	[FTAGENT_GATE_PERM] = "security_file_permission",
	[FTAGENT_GATE_SENDPAGE] = FTAGENT_SENDPAGE_SYMBOL,
	[FTAGENT_GATE_SCTP] = "security_sctp_bind_connect",
};

static struct ftrace_ops ftagent_gate_ops[__FTAGENT_GATE_MAX];
/* Each made afresh for every attempt, as the hook sets' (hooks_ftrace.c). */
static struct ftrace_ops ftagent_gate_direct_ops[__FTAGENT_GATE_MAX];
static u32 ftagent_gate_on;	/* points registered now */
static u32 ftagent_gate_on_direct; /* of those, the ones on direct calls */
static u32 ftagent_gate_stuck;	/* points ftrace would not take off */

/*
 * Hook @point's function (@name) with a direct call: 0, or why not (the
 * ops is left wiped): -ENOENT when this kernel lacks the function, -EBUSY
 * when another direct caller holds it, -EOPNOTSUPP with direct_calls=0.
 */
static int ftagent_gate_direct_on(unsigned int point, const char *name)
{
	struct ftrace_ops *o = &ftagent_gate_direct_ops[point];
	int err;

	if (!ftagent_direct_calls_allowed())
		return -EOPNOTSUPP;
	memset(o, 0, sizeof(*o));
#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
	o->ops_func = ftagent_direct_ops_func;
#endif
	err = ftagent_symbol_filter(o, name);
	if (!err) {
		err = ftagent_direct_register(o, (unsigned long)
					      ftagent_gate_tramps[point]);
		/*
		 * A registration that failed late was on ftrace's list for a
		 * moment: let its walkers finish before the filter goes.
		 */
		if (err)
			synchronize_rcu();
	}
	if (err) {
		ftrace_free_filter(o);
		memset(o, 0, sizeof(*o));
		return err;
	}
	ftagent_gate_on_direct |= BIT(point);
	return 0;
}

static void ftagent_gate_unhook_fn(unsigned int point);

/* Hook @point's function (@name); -ENOENT when this kernel lacks it. */
static int ftagent_gate_hook_one(unsigned int point, const char *name)
{
	struct ftrace_ops *o = &ftagent_gate_ops[point];
	int err;

	/* An ops ftrace would not take off is still live: not reused. */
	if (ftagent_gate_stuck & BIT(point))
		return -EBUSY;
	err = ftagent_gate_direct_on(point, name);
	/* Not for want of memory: the gate would run slower until reload. */
	if (err == -ENOENT || err == -ENOMEM)
		return err;
	if (!err)
		goto hooked;
	if (err != -EOPNOTSUPP)
		pr_info("gate: no direct call on %s (%d), using ftrace_ops\n",
			name, err);
	memset(o, 0, sizeof(*o));

	o->func = ftagent_gate_hook;
	o->flags = FTRACE_OPS_FL_IPMODIFY;
	o->private = (void *)(unsigned long)point;
	err = ftagent_symbol_filter(o, name);
	if (err == -ENOENT) {
		/* Not on this kernel (said once, in the status too). */
		ftrace_free_filter(o);
		return err;
	}
	if (!err)
		err = ftagent_ftrace_on(o);
	if (err) {
		ftrace_free_filter(o);
		pr_err("gate: cannot hook %s: %d\n", name, err);
		return err;
	}
hooked:
	if (point == FTAGENT_GATE_RECV) {
		err = ftagent_gate_zc_hook_on();
		if (err)
			ftagent_gate_unhook_fn(point);
	}
	if (point == FTAGENT_OP_EXEC) {
		err = ftagent_gate_interp_hook_on();
		if (err)
			ftagent_gate_unhook_fn(point);
	}
	return err;
}

/* Take @point's function's hook off, direct call or ops. */
static void ftagent_gate_unhook_fn(unsigned int point)
{
	struct ftrace_ops *o = &ftagent_gate_direct_ops[point];
	int err;

	if (!(ftagent_gate_on_direct & BIT(point))) {
		if (!ftagent_ftrace_off(&ftagent_gate_ops[point],
					ftagent_gate_symbols[point]))
			ftagent_gate_stuck |= BIT(point);
		return;
	}
	ftagent_gate_on_direct &= ~BIT(point);
	/* Returns once no task runs or is preempted in the trampoline. */
	err = ftagent_direct_unregister(o, (unsigned long)
					ftagent_gate_tramps[point]);
	if (err) {
		ftagent_stuck("gate direct-call", err);
		ftagent_gate_stuck |= BIT(point);
		return;
	}
	ftrace_free_filter(o);
	memset(o, 0, sizeof(*o));
}

static void ftagent_gate_unhook_one(unsigned int point)
{
	if (point == FTAGENT_GATE_RECV)
		ftagent_gate_zc_hook_off();
	if (point == FTAGENT_OP_EXEC)
		ftagent_gate_interp_hook_off();
	if (point == FTAGENT_OP_CONNECT)
		ftagent_gate_tcp_hook_off();
	ftagent_gate_unhook_fn(point);
}

static int ftagent_gate_attach(u32 want)
{
	unsigned int point;
	int err;

	for (point = 0; point < __FTAGENT_GATE_MAX; point++) {
		bool on = ftagent_gate_on & BIT(point);

		if (!!(want & BIT(point)) == on)
			continue;
		if (on) {
			ftagent_gate_unhook_one(point);
			ftagent_gate_on &= ~BIT(point);
			continue;
		}
		err = ftagent_gate_hook_one(point, ftagent_gate_symbols[point]);
		/* No sendpage or SCTP point: degraded, the rest still holds. */
		if (err == -ENOENT && (point == FTAGENT_GATE_SENDPAGE ||
				       point == FTAGENT_GATE_SCTP))
			continue;
		if (err == -ENOENT)
			return -EOPNOTSUPP;
		if (err)
			return err;
		ftagent_gate_on |= BIT(point);
	}
	return 0;
}

int ftagent_gate_refresh(u32 extra)
{
	const struct ftagent_ruleset *set;
	const struct ftagent_budgetset *b;
	u32 want = extra, missing;
	bool tcp;
	int err;

	set = rcu_dereference_protected(ftagent_policy, true);
	b = rcu_dereference_protected(ftagent_budgets, true);
	if (set)
		want |= set->gated_ops;
	/*
	 * Where sendfile and splice reach sockets without
	 * security_socket_sendmsg (compat/net.h), hook that path too.
	 */
	if ((want & BIT(FTAGENT_OP_SEND)) &&
	    ftagent_gate_symbols[FTAGENT_GATE_SENDPAGE])
		want |= BIT(FTAGENT_GATE_SENDPAGE);
	if (b)
		want |= ftagent_budgets_gate_points(b->metrics);
	/* Not a point: the TCP connects hooks, with the connect point. */
	tcp = want & FTAGENT_GATE_WANT_TCP;
	want &= ~FTAGENT_GATE_WANT_TCP;
	/*
	 * SCTP connects and binds by a way of its own, for connect rules
	 * and connects budgets alike.
	 */
	if (want & (BIT(FTAGENT_OP_CONNECT) | BIT(FTAGENT_OP_BIND)))
		want |= BIT(FTAGENT_GATE_SCTP);
	/*
	 * Before the exec point is first hooked: whether the ELF loader
	 * calls the interpreter hook's function (-ENOENT: it does not, and
	 * the point is missing from now on, below).
	 */
	if ((want & BIT(FTAGENT_OP_EXEC)) &&
	    !(ftagent_gate_on & BIT(FTAGENT_OP_EXEC))) {
		err = ftagent_gate_interp_check();

		if (err && err != -ENOENT)
			return err;
	}
	/* The gate features are one bit per point, in point order, last. */
	BUILD_BUG_ON(FTAGENT_FEATURE_GATE_EXEC + __FTAGENT_GATE_MAX !=
		     FTAGENT_FEATURE_IOURING);
	missing = (READ_ONCE(ftagent_degraded) >> FTAGENT_FEATURE_GATE_EXEC) &
		  (BIT(__FTAGENT_GATE_MAX) - 1);
	/*
	 * A TCP or MPTCP Fast Open sendto connects inside the send, past
	 * security_socket_connect: connect rules and budgets need the send
	 * point too (its other sends then pass undecided, as no send rule
	 * asks for them).
	 */
	if ((want & BIT(FTAGENT_OP_CONNECT)) &&
	    !(missing & BIT(FTAGENT_OP_SEND)))
		want |= BIT(FTAGENT_OP_SEND);
	/*
	 * A point this kernel lacks (symbols.c): refuse a set that needs it,
	 * but sendfile/splice sends and SCTP's connectx and bindx just go
	 * ungated, as the status says.
	 */
	want &= ~(missing & (BIT(FTAGENT_GATE_SENDPAGE) |
			     BIT(FTAGENT_GATE_SCTP)));
	if (want & missing)
		return -EOPNOTSUPP;
	err = ftagent_gate_attach(want);
	if (err)
		return err;
	/*
	 * Only while a connects budget is held: IPMODIFY ops on the two
	 * functions keep a livepatch of them out.
	 */
	if (tcp && (ftagent_gate_on & BIT(FTAGENT_OP_CONNECT))) {
		ftagent_gate_tcp_hook_on();
	} else {
		ftagent_gate_tcp_hook_off();
		ftagent_gate_tcp_failed = false;
	}
	return 0;
}

void ftagent_gate_verdicts(u64 counts[__FTAGENT_VERDICT_MAX])
{
	int cpu, v;

	memset(counts, 0, sizeof(u64) * __FTAGENT_VERDICT_MAX);
	for_each_possible_cpu(cpu)
		for (v = 0; v < __FTAGENT_VERDICT_MAX; v++)
			counts[v] += per_cpu(ftagent_verdict_count, cpu)[v];
}

/* At most one alert a second: the verdicts since the last one. */
static void ftagent_verdict_alert_fn(struct work_struct *work)
{
	u64 now[__FTAGENT_VERDICT_MAX], delta[__FTAGENT_VERDICT_MAX];
	int v;

	if (!READ_ONCE(ftagent_gate_live))
		return;
	ftagent_gate_verdicts(now);
	for (v = 0; v < __FTAGENT_VERDICT_MAX; v++) {
		delta[v] = now[v] - ftagent_verdict_sent[v];
		ftagent_verdict_sent[v] = now[v];
	}
	ftagent_genl_verdict_alert(delta, __FTAGENT_VERDICT_MAX);
}

/* The paths being resolved, one buffer pair per CPU. */
size_t ftagent_gate_memory(void)
{
	return READ_ONCE(ftagent_gate_bufs) ?
	       ftagent_percpu_bytes(sizeof(struct ftagent_gate_buf)) : 0;
}

int ftagent_gate_init(void)
{
	ftagent_gate_bufs = alloc_percpu(struct ftagent_gate_buf);
	if (!ftagent_gate_bufs)
		return -ENOMEM;
	WRITE_ONCE(ftagent_gate_live, true);
	return 0;
}

void ftagent_gate_exit(void)
{
	ftagent_gate_attach(0);
	WRITE_ONCE(ftagent_gate_live, false);
	cancel_delayed_work_sync(&ftagent_verdict_alert_work);
	/* A hook ftrace would not take off may still write to them. */
	if (!ftagent_gate_stuck && !ftagent_gate_zc_stuck &&
	    !ftagent_gate_interp_stuck && !ftagent_gate_tcp_stuck)
		free_percpu(ftagent_gate_bufs);
	ftagent_gate_bufs = NULL;
}
