/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A budget's kill action, from hook context (kmod/kill.c).
 */
#ifndef FTAGENT_KILL_H
#define FTAGENT_KILL_H

/* Before any hook is attached. */
void ftagent_kill_init(void);
/* SIGKILL the current task; hook context (preemption off) is fine. */
void ftagent_kill_current(void);
/* Unload, after every hook is gone: the kills still queued are sent. */
void ftagent_kill_exit(void);

#endif /* FTAGENT_KILL_H */
