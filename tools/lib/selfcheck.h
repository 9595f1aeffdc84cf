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
/* The same through the 32-bit entry points (int $0x80); part of the above. */
void ftagent_call_every_ia32_syscall(void);
/* The same through x32's own entry points, where x32 is on; part of it. */
void ftagent_call_every_x32_syscall(void);

struct ftagent_resources;
struct ftagent_hook_stats;
/*
 * 1 when hook @h's hit count grew since @before (the module's figures
 * taken before the calls above), found by name; 0 when it did not or
 * @before has no such hook. The module's "verified" state is no proof:
 * it is set by a hook's first hit and never cleared.
 */
int ftagent_hook_fired(const struct ftagent_resources *before,
		       const struct ftagent_hook_stats *h);
/*
 * 1 when hook @h cannot fire on this system, as the last call of the
 * ones above found: an ia32 entry point where int $0x80 is refused, an
 * x32 one where x32 calls are (ENOSYS).
 */
int ftagent_hook_not_applicable(const struct ftagent_hook_stats *h);

#endif /* FTAGENT_LIB_SELFCHECK_H */
