/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel internals the module finds by name at load (symbols.c), and
 * the features that go without them.
 */
#ifndef _FTAGENT_SYMBOLS_H
#define _FTAGENT_SYMBOLS_H

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/ftagent.h>

struct sk_buff;

struct ftrace_ops;

/*
 * At load: pretend_missing= and the tracepoints, and with @strict every
 * function too; 0, or -ENOENT under strict=1 when one is missing, or
 * -EINVAL for a pretend_missing= name that is none of ours.
 */
int ftagent_symbols_init(bool strict);

/*
 * Filter @ops on the internal @name: 0, -ENOENT when this kernel lacks it
 * (its feature is then off, and the log says so once), or another error.
 */
int ftagent_symbol_filter(struct ftrace_ops *ops, const char *name);

/*
 * The same, by address only, and where @name's code is: @start and @size
 * (0 and 0 on any error), for an ops shared by several functions whose
 * callback tells them apart by the address it is called from. The
 * address comes from a kprobe lookup, and there is no by-name fallback:
 * a function ftrace traces but kprobes refuse (a kernel without
 * CONFIG_KPROBES, a blacklisted function, another name at its address)
 * gives -EOPNOTSUPP, and its feature goes (strict=1: the load fails).
 * Debian's kernels have none of these for the functions filtered so.
 * Under memory pressure the by-name check behind that answer can take an
 * allocation failure for a match, and say -EOPNOTSUPP for -ENOMEM.
 */
int ftagent_symbol_filter_at(struct ftrace_ops *ops, const char *name,
			     unsigned long *start, unsigned long *size);

/* Where a function's code is, as filter_at found it (0 and 0: nowhere). */
struct ftagent_code {
	unsigned long start;
	unsigned long size;
};

/* Whether @ip, an ops callback's address, is inside @code. */
static inline bool ftagent_code_has(const struct ftagent_code *code,
				    unsigned long ip)
{
	return ip - code->start < code->size;
}

/*
 * Internal @name is there but cannot be used as its feature needs (the
 * caller has said why in the log): its feature is off and GET_STATUS
 * names it MISSING.
 */
void ftagent_symbol_unusable(const char *name);

/* Whether internal @name is known to be missing (or pretend_missing=). */
bool ftagent_symbol_missing(const char *name);

/*
 * Whether ftrace can hook function @name (a scan of every traceable
 * function: a quarter of a second under TCG). Process context.
 */
bool ftagent_traceable(const char *name);

/*
 * Whether a feature whose set-up failed with @err fails the load (or the
 * request) instead of leaving the module DEGRADED without it: with
 * strict=1 always, and whenever the kernel was only short of memory.
 * DEGRADED is for what this kernel lacks or refuses, which a reload does
 * not change. A failed allocation says nothing about the kernel: a module
 * that ran on without the feature would stay without it until reloaded,
 * and name as MISSING a function that is there. A failed load says why,
 * and modprobe, the unit or the operator can retry.
 */
static inline bool ftagent_setup_fails(int err, bool strict)
{
	return strict || err == -ENOMEM;
}

/* The end of the log line of a set-up that fails: why it does. */
static inline const char *ftagent_setup_why(int err, bool strict)
{
	return err == -ENOMEM ? "out of memory, the load fails" :
				"strict=1 refuses the load";
}

/* Bits of enum ftagent_feature found off on this kernel so far. */
extern unsigned long ftagent_degraded;

static inline bool ftagent_feature_off(unsigned int feature)
{
	return test_bit(feature, &ftagent_degraded);
}

/* Put the names of the missing internals as a nest of @type NAME attrs. */
int ftagent_symbols_put_missing(struct sk_buff *msg, int nest_type,
				int name_type);

#endif /* _FTAGENT_SYMBOLS_H */
