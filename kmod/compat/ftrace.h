/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace interfaces that changed under the module:
 *
 * - direct calls: register_ftrace_direct_multi(ops, addr) up to 6.4;
 *   register_ftrace_direct(ops, addr) and unregister_ftrace_direct(ops,
 *   addr, free_filters) from 6.5, when the per-ip API went away;
 * - the saved argument registers: a public pt_regs member of struct
 *   ftrace_regs up to 6.6, an opaque struct behind arch_ftrace_regs()
 *   from then on (setting the instruction pointer was renamed with it);
 * - CALL_DEPTH_ACCOUNT, which hand-written trampolines must emit from
 *   6.2 on when call depth tracking (retbleed) is configured.
 *
 * Checked on Debian's 6.1.0-57 (6.1.192) and 6.12.117+deb12, generic,
 * -rt and -cloud flavours.
 */
#ifndef _FTAGENT_COMPAT_FTRACE_H
#define _FTAGENT_COMPAT_FTRACE_H

#include <linux/ftrace.h>
#include <asm/nospec-branch.h>
#include "features.h"

/*
 * The probe every hook needs; without it the probes themselves are broken
 * (see features.h's probes.log), and no choice below can be trusted.
 */
#ifndef FTAGENT_HAVE_FTRACE_OPS_FREGS
#error "ftagent: no ftrace_ops with struct ftrace_regs (kernels before 5.11)"
#endif

#if defined(FTAGENT_HAVE_FTRACE_DIRECT_OPS)
static inline int ftagent_direct_register(struct ftrace_ops *ops,
					  unsigned long addr)
{
	return register_ftrace_direct(ops, addr);
}

/* Leaves the filters: the caller frees them when the ops is retired. */
static inline int ftagent_direct_unregister(struct ftrace_ops *ops,
					    unsigned long addr)
{
	return unregister_ftrace_direct(ops, addr, false);
}
#elif defined(FTAGENT_HAVE_FTRACE_DIRECT_MULTI)
static inline int ftagent_direct_register(struct ftrace_ops *ops,
					  unsigned long addr)
{
	return register_ftrace_direct_multi(ops, addr);
}

static inline int ftagent_direct_unregister(struct ftrace_ops *ops,
					    unsigned long addr)
{
	return unregister_ftrace_direct_multi(ops, addr);
}
#else
/* No multi-function direct calls: the hooks use plain ftrace_ops. */
static inline int ftagent_direct_register(struct ftrace_ops *ops,
					  unsigned long addr)
{
	return -EOPNOTSUPP;
}

static inline int ftagent_direct_unregister(struct ftrace_ops *ops,
					    unsigned long addr)
{
	return 0;
}
#endif

/*
 * The traced function's argument registers as ftrace saved them
 * (x86-64: di, si, dx, ...). Only these and the instruction pointer are
 * meaningful in an ops without FTRACE_OPS_FL_SAVE_REGS.
 */
static __always_inline struct pt_regs *
ftagent_fregs_args(struct ftrace_regs *fregs)
{
#if defined(FTAGENT_HAVE_FTRACE_REGS_ARCH)
	return &arch_ftrace_regs(fregs)->regs;
#elif defined(FTAGENT_HAVE_FTRACE_REGS_PT_REGS)
	return &fregs->regs;
#else
#error "ftagent: this kernel's struct ftrace_regs is not known (see kmod/compat/probes/)"
#endif
}

/* Resume at @ip instead of the traced function (an IPMODIFY ops). */
static __always_inline void ftagent_fregs_set_ip(struct ftrace_regs *fregs,
						 unsigned long ip)
{
#if defined(FTAGENT_HAVE_FTRACE_REGS_ARCH)
	ftrace_regs_set_instruction_pointer(fregs, ip);
#else
	ftrace_instruction_pointer_set(fregs, ip);
#endif
}

/* Defined by asm/nospec-branch.h from 6.2 on; before, nothing to emit. */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

#endif /* _FTAGENT_COMPAT_FTRACE_H */
