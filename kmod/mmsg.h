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
 * The same for a recvfrom or recvmsg: the bytes its messages reported
 * (or, for one that failed with EFAULT, what its copy had put into the
 * caller's buffer), and in *@dropped what copies of datagrams discarded
 * for a bad checksum put there, which the call is charged whatever it
 * returned.
 */
long ftagent_mmsg_take_recv(struct task_struct *t, long *dropped);
/*
 * Slots holding what a faulting receive copy had copied (mmsg.c): while
 * there are none, a read settle has nothing to take.
 */
extern atomic_t ftagent_mmsg_faults;

/*
 * The settle of a read(), readv() or preadv2() of @t that returned @ret:
 * gives @t's slot back, and returns what its receive copies put into the
 * caller's buffer beyond @ret: of a datagram discarded for a bad
 * checksum, and, if the call failed with EFAULT, of one whose copy
 * faulted. Preemption disabled.
 */
long ftagent_mmsg_take_read(struct task_struct *t, long ret);

/*
 * An io_uring request @req is about to receive from a socket in the
 * current task: the fault state of its copies (a copy that faulted, a
 * datagram discarded for a bad checksum) is kept in the task's slot and
 * filed under @req as each sock_recvmsg() returns
 * (ftagent_iouring_landed()), until the task begins another. Fault state
 * no return took is counted as lost here. Preemption disabled.
 */
void ftagent_mmsg_iour_begin(unsigned long req);

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
