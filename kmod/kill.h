/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A budget's kill, from hook context (kmod/kill.c).
 */
#ifndef FTAGENT_KILL_H
#define FTAGENT_KILL_H

#include <linux/types.h>

/* Before any budget can be set: 0 or -errno (the RT kill thread). */
int ftagent_kill_init(void);
/*
 * SIGKILL the current process (its whole thread group) from hook context
 * (preemption off): at once, or on PREEMPT_RT by a task_work the task
 * runs on its way back to user space (the kill thread if none is free).
 * False when it could not be sent or queued (said in the kernel log).
 */
bool ftagent_kill_current(void);
/* Unload, after every hook is gone: sends what is queued. */
void ftagent_kill_exit(void);

#endif /* FTAGENT_KILL_H */
