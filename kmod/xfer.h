/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One decision per transfer call.
 *
 * sendfile() and splice() hand a socket their data in pieces, and each
 * piece passes a point the gate decides: up to 6.4 one kernel_sendpage()
 * per page, from 6.5 one sock_sendmsg() per pipe-full. The call is
 * decided once: its first piece's decision is kept, with what it was
 * made on (the rule set's generation, the socket, the destination), and
 * a later piece of the same call that finds all three unchanged goes on
 * without asking the rules again (no second hit, no second event). A
 * piece that finds the socket connected elsewhere meanwhile, or another
 * rule set, is decided anew: the destination is read at every piece, as
 * the pages go where the socket sends them then. Refusals are not kept:
 * a refused piece ends the call.
 *
 * The decision is the sender's as it was then, except that a change of
 * its credentials or cgroup (a move into a cgroup a rule names) has the
 * next piece decided again too. Its name, its executable (the same task
 * cannot exec inside the call) and its place in the process tree are
 * taken as they were at the first piece.
 *
 * Where it is kept: a small table hashed by task, each entry written by
 * its own task under its lock and read under its sequence count, with
 * the task's pointer in it. Which call it belongs to: keeping switches
 * the body mark in the call's saved ax to its second form (hooks.h),
 * every traced call's entry writes the first, and the call's settle
 * clears the entry while a rule set is loaded (detaching the hooks
 * clears them all); one left behind is taken by no later call, whose
 * entry writes the first form. A call keeps
 * and takes a decision only if it is a sendfile or splice that its hook
 * set saw begin: one no hook saw may hold the second form where a
 * tracer wrote it at the syscall-entry stop. An entry another task has
 * overwritten since is a miss: the piece is decided again, as every
 * piece was before this existed.
 */
#ifndef _FTAGENT_XFER_H
#define _FTAGENT_XFER_H

#include <linux/types.h>

struct ftagent_gate_call;
struct pt_regs;
struct sock;

/*
 * Whether the current task is in the body of a traced sendfile or
 * splice call, whose pieces share one decision.
 */
bool ftagent_xfer_call(const struct pt_regs *uregs);

/*
 * Whether the current task's call kept a decision made on the rule set
 * in force, by the same sender, for @sk and @c's destination: then the
 * piece goes undecided. Preemption off (the set's read side).
 */
bool ftagent_xfer_kept(const struct ftagent_gate_call *c,
		       const struct sock *sk);

/* Keep the call's decision to let @c go (above). Preemption off. */
void ftagent_xfer_keep(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation);

/* The current task's transfer call settles: its decision goes. */
void ftagent_xfer_done(void);

/* The hooks are gone: settles may be lost, every decision goes. */
void ftagent_xfer_forget(void);

void ftagent_xfer_init(void);

#endif /* _FTAGENT_XFER_H */
