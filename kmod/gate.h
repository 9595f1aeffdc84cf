/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate: where the policy rule set and the budgets decide, before the
 * call runs (gate.c), and what they share: the call as the rules see it,
 * principal matching, verdict records.
 */
#ifndef _FTAGENT_GATE_H
#define _FTAGENT_GATE_H

#include <linux/path.h>
#include <linux/types.h>
#include <linux/ftagent.h>

struct ftagent_rule;

/* Where the gate hooks: the policy's operations, then budget-only points. */
enum ftagent_gate_point {
	FTAGENT_GATE_RECV = __FTAGENT_OP_MAX,	/* security_socket_recvmsg */
	FTAGENT_GATE_PERM,			/* security_file_permission */
	FTAGENT_GATE_SENDPAGE,			/* kernel_sendpage: sendfile, splice */
	FTAGENT_GATE_SCTP,			/* security_sctp_bind_connect */
	__FTAGENT_GATE_MAX
};

/*
 * Not a point: in the masks ftagent_gate_refresh() takes, that a
 * connects budget wants TCP connects charged where they start (gate.c,
 * "TCP connects"), with the connect point.
 */
#define FTAGENT_GATE_WANT_TCP BIT(31)

struct cred;
struct task_struct;

/* What one call offers the rules, worked out only when a rule asks. */
struct ftagent_gate_call {
	u8 op;				/* enum ftagent_op or FTAGENT_OP_NONE */
	/*
	 * Whose principal: NULL for current; else an io_uring request's
	 * submitting task (held by the request), and the credentials it
	 * ran under when it has its own (NULL: the task's).
	 */
	struct task_struct *task;
	const struct cred *cred;
	const struct path *path;	/* exec, open */
	const char *obj;		/* its text, once resolved */
	int obj_len;			/* -1: not yet; -2: unreadable */
	const char *exe;
	int exe_len;
	bool have_addr;
	u16 family, port;
	/*
	 * Read as __be32 and struct in6_addr (ipv6_addr_any(): longs).
	 * Written only whole, 4 or 16 bytes by the family, never by a
	 * length from the call: the gate's handlers carry no stack canary
	 * (gate.c, "Direct calls").
	 */
	u8 addr[16] __aligned(8);
};

#define FTAGENT_GATE_CALL_INIT(o) { .op = (o), .obj_len = -1, .exe_len = -1 }

/*
 * The same, for the hot path, on a variable declared __uninitialized (so
 * that INIT_STACK_ALL_ZERO does not clear its 88 bytes first), in two
 * steps: ftagent_gate_call_init() sets what a decision by the default
 * reads (gate.c, ftagent_gate_by_default()) but the destination, which
 * the gate point sets after it; ftagent_gate_call_who() the rest, before
 * the call goes to the rules, a verdict or the budgets.
 * Never the address: read only with have_addr, and then only the bytes
 * its family uses (an IPv4 one writes 4 of the 16). Nor the resolved
 * strings: read only once their length is set.
 */
static __always_inline void ftagent_gate_call_init(struct ftagent_gate_call *c,
						   u8 op)
{
	c->op = op;
	c->path = NULL;
	c->have_addr = false;
}

/* Current's call (c->task NULL), its strings not resolved yet. */
static __always_inline void ftagent_gate_call_who(struct ftagent_gate_call *c)
{
	c->task = NULL;
	c->cred = NULL;
	c->obj_len = -1;
	c->exe_len = -1;
}

/* Whether @r's principal attributes match the call's task (current). */
bool ftagent_principal_matches(const struct ftagent_rule *r,
			       const char *strings,
			       struct ftagent_gate_call *c);

struct ftagent_verdict_info {
	u64 generation;
	u32 index;
	const char *name;
	u8 action, verdict, source;
	int error;
	u16 metric;
	u64 used, limit;
	/* Non-zero: the record is this process's thread's, not @c's. */
	pid_t as_tgid, as_pid;
};

/* Write a verdict record and count it for the next alert. */
void ftagent_verdict_emit(const struct ftagent_verdict_info *vi,
			  struct ftagent_gate_call *c);

/*
 * gate.c's direct-call trampolines (asm), and the handlers they call, one
 * per gate point.
 */
#define FTAGENT_GATE_DIRECT_DECLARE(name)				\
	void ftagent_gate_tramp_##name(void);				\
	unsigned long ftagent_gate_direct_##name(unsigned long di,	\
						 unsigned long si,	\
						 unsigned long dx,	\
						 unsigned long cx)
FTAGENT_GATE_DIRECT_DECLARE(exec);
FTAGENT_GATE_DIRECT_DECLARE(connect);
FTAGENT_GATE_DIRECT_DECLARE(open);
FTAGENT_GATE_DIRECT_DECLARE(send);
FTAGENT_GATE_DIRECT_DECLARE(bind);
FTAGENT_GATE_DIRECT_DECLARE(recv);
FTAGENT_GATE_DIRECT_DECLARE(perm);
FTAGENT_GATE_DIRECT_DECLARE(sendpage);
FTAGENT_GATE_DIRECT_DECLARE(sctp);

int ftagent_gate_init(void);
void ftagent_gate_exit(void);
/*
 * Whether the ELF loader calls the exec point's interpreter hook itself:
 * 0; -ENOENT when it does not (the exec point is then missing, said in
 * the log and the status); -ENOMEM or -EBUSY when it could not tell.
 * Process context, config lock held.
 */
int ftagent_gate_interp_check(void);
/*
 * Hook exactly the points the rule set and the budgets need (@extra
 * added, for a swap in progress). Process context, config lock held.
 * 0 or -errno (the hooks in place are kept on failure).
 */
int ftagent_gate_refresh(u32 extra);
/* Verdicts since load, by enum ftagent_verdict. */
void ftagent_gate_verdicts(u64 counts[__FTAGENT_VERDICT_MAX]);

#endif /* _FTAGENT_GATE_H */
