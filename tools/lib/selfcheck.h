/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The self-check's probe: one harmless call of each traced system call.
 */
#ifndef FTAGENT_LIB_SELFCHECK_H
#define FTAGENT_LIB_SELFCHECK_H

/*
 * Call every system call the module hooks once, on a descriptor that is
 * not open: each fails with EBADF before doing anything, and each goes
 * through its hook. Keep in step with kmod/calls.c.
 */
void ftagent_call_every_traced_syscall(void);

#endif /* FTAGENT_LIB_SELFCHECK_H */
