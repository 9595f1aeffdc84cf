/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning one returned system call into counter updates.
 */
#ifndef _FTAGENT_ACCOUNT_H
#define _FTAGENT_ACCOUNT_H

#include <linux/ptrace.h>

struct ftagent_call;

/*
 * Charge a call that returned @ret. @uregs is the task's saved user
 * registers: the syscall's arguments, unchanged by the call. Runs in hook
 * context with preemption disabled; never sleeps, never allocates.
 */
void ftagent_account(const struct ftagent_call *call,
		     const struct pt_regs *uregs, long ret);

/* The mode the accounting applies: enum ftagent_mode. */
void ftagent_account_set_mode(unsigned int mode);

#endif /* _FTAGENT_ACCOUNT_H */
