/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bytes of each sendmmsg/recvmmsg message, and of each recvfrom and
 * recvmsg, taken from the kernel as they move (mmsg.c).
 */
#ifndef _FTAGENT_MMSG_H
#define _FTAGENT_MMSG_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * Whether the kernel's counts are taken as the bytes move: the settle
 * then charges those, not the msg_len fields or (for a receive that
 * failed after its data arrived) nothing. Set once at load, before any
 * hook is attached, so a call sees one answer from entry to return.
 */
extern bool ftagent_mmsg_exact;

struct task_struct;

/*
 * The bytes @t's current call moved so far, which the settle charges:
 * taken, so the next call starts from 0. Only while ftagent_mmsg_exact.
 * Preemption disabled.
 */
long ftagent_mmsg_take(struct task_struct *t);
/*
 * Slots holding what a faulting receive copy had copied (mmsg.c): while
 * there are none, a read settle has nothing to take.
 */
extern atomic_t ftagent_mmsg_faults;

/*
 * The settle of a read(), readv() or preadv2() of @t that returned @ret:
 * gives @t's slot back, and returns what its receive copies that faulted
 * had put into the caller's buffer if the call failed with EFAULT (the
 * datagram is gone), else 0. Preemption disabled.
 */
long ftagent_mmsg_take_read(struct task_struct *t, long ret);

/*
 * Process context, before the syscall hooks are attached. A call site
 * that cannot be found or probed turns the feature off (DEGRADED, and
 * the lengths are read back from the caller's memory as before), or
 * with @strict fails the load.
 */
int ftagent_mmsg_init(bool strict);
/* After the syscall hooks are gone. */
void ftagent_mmsg_exit(void);

#endif /* _FTAGENT_MMSG_H */
