/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where one kernel function calls another (callsites.c): for kprobes on a
 * call and on its return site, where the callee's arguments and its
 * result are in registers.
 */
#ifndef _FTAGENT_CALLSITES_H
#define _FTAGENT_CALLSITES_H

#include <linux/types.h>

/* The length of a direct call (E8 rel32): call site to return site. */
#define FTAGENT_CALL_LEN	5

/*
 * The addresses of the direct calls function @caller makes to the start
 * of function @callee, at most @max of them into @sites: how many were
 * found, or -ENOENT (no @caller, or one too large to scan), -E2BIG (more
 * than @max), -ENOMEM, -EFAULT. An address is a byte that decodes as such
 * a call; the kprobe core, which decodes @caller from its start, refuses
 * one that is not an instruction boundary (-EILSEQ). Process context.
 */
int ftagent_callsites(const char *caller, const char *callee,
		      unsigned long *sites, unsigned int max);

/*
 * Whether every direct call function @caller makes to @callee returns to
 * a jump to @join (or to @join itself): the compiler merged what follows
 * those calls with what follows another, so a probe at @join sees their
 * results too. The number of such calls (0: none), -EXDEV if one does
 * not, -EBUSY if another tracer's breakpoint hides one, or what
 * ftagent_callsites() failed with. Process context.
 */
int ftagent_calls_rejoin(const char *caller, const char *callee,
			 unsigned long join);

/*
 * The addresses of the direct calls function @caller makes to a
 * retpoline thunk (an indirect call, as the compiler emitted it), as
 * ftagent_callsites() finds them. None where the kernel has patched them
 * into plain indirect calls (a CPU with enhanced IBRS) or was built
 * without retpolines. Process context.
 */
int ftagent_thunk_callsites(const char *caller, unsigned long *sites,
			    unsigned int max);

/*
 * Whether the code at return site @ret_site goes on at @join: it is
 * @join, or a jump to it. 1 or 0, -EBUSY if another tracer's breakpoint
 * hides the instruction, -EFAULT if it cannot be read. Process context.
 */
int ftagent_site_rejoins(unsigned long ret_site, unsigned long join);

/*
 * Whether the code at return site @ret_site only reaches @join, or runs
 * a copy of the code at @join and goes on past it: the compiler
 * duplicated what follows one call after another (tail duplication),
 * and the first instructions after @ret_site are those at @join, plain
 * register and memory moves equal byte for byte (copy_walk.h), up to a
 * jump to the point of @join's code after them (possibly through other
 * stretches of the copy). 1: @ret_site reaches @join itself through
 * jumps only (a probe at @join sees the call's result); 0: a copy that
 * never runs @join's first instruction (a probe at @ret_site sees the
 * result and the one at @join does not); -EXDEV: neither, or the path
 * passes one of the @n addresses @avoid (other probed sites) or @join's
 * first byte after a copied stretch; -EBUSY: a breakpoint hides an
 * instruction; -EFAULT. Process context.
 */
int ftagent_copy_rejoins(unsigned long ret_site, unsigned long join,
			 const unsigned long *avoid, unsigned int n);

/*
 * Where function @name starts (a static one too), as a pointer to it
 * would hold it, and its length: 0, or -ENOENT if the symbol table has no
 * such function or kprobes refuse it (@start and @size 0), or -ENOMEM if
 * the lookup could not allocate. Process context.
 */
int ftagent_function_find(const char *name, unsigned long *start,
			  unsigned long *size);

/*
 * Where function @name's code starts, as kprobes place it (past an
 * ENDBR): a kprobe registered disabled, then parked while a batch is
 * held (below) or unregistered; while a batch is held, a name found
 * before is answered from the batch. 0, -ENOMEM, or register_kprobe()'s
 * error as it is (-ENOENT: no such symbol; others: kprobes refuse it,
 * or cannot).
 * Process context.
 */
int ftagent_symbol_addr(const char *name, unsigned long *addr);

/*
 * A batch of lookups (ftagent_function_find() and the callers of
 * ftagent_callsites()): from hold to release, the lookups' kprobes are
 * unregistered together, with one grace period, not one each, and each
 * name is looked up once. Batches nest; the outermost release
 * unregisters and forgets the names. ftagent_lookups_flush()
 * unregisters the parked ones now: before the module registers a kprobe
 * of its own. Process context; they sleep.
 */
void ftagent_lookups_hold(void);
void ftagent_lookups_release(void);
void ftagent_lookups_flush(void);

#endif /* _FTAGENT_CALLSITES_H */
