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
 * Where it is kept: a small table hashed by task, each entry written by
 * its own task under a trylock and read under its sequence count, with
 * the task's pointer in it. Which call it belongs to: keeping switches
 * the body mark in the call's saved ax to its second form (hooks.h), and
 * every traced call's entry writes the first, so an entry left by an
 * earlier call of the same task is never taken. An entry another task
 * has overwritten since is a miss: the piece is decided again, as every
 * piece was before this existed. Calls no hook saw begin (the body mark
 * absent) keep nothing.
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
 * Whether that call kept a decision made on rule set @generation, for
 * @sk and @c's destination: then the piece goes undecided. Preemption
 * off.
 */
bool ftagent_xfer_kept(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation);

/* Keep the call's decision to let @c go (above). Preemption off. */
void ftagent_xfer_keep(struct pt_regs *uregs,
		       const struct ftagent_gate_call *c,
		       const struct sock *sk, u64 generation);

void ftagent_xfer_init(void);

#endif /* _FTAGENT_XFER_H */
