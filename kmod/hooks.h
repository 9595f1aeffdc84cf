/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks on the traced system calls, attached by one of two drivers (the
 * ftrace set or the kprobe set), with a state, an error and hit counts
 * each.
 */
#ifndef _FTAGENT_HOOKS_H
#define _FTAGENT_HOOKS_H

#include <linux/nospec.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/thread_info.h>
#include <asm/unistd.h>
#include <linux/ftagent.h>

#include "calls.h"

struct ftagent_hook {
	const struct ftagent_call *call;
	unsigned int index;
	u8 state;		/* enum ftagent_hook_state */
	u8 kind;		/* enum ftagent_hook_set that attached it */
	bool seen;		/* fired since attach: the self-check */
	int error;		/* errno when state is FAILED */
	struct ftagent_kprobe *kprobe;	/* kprobe set: hooks_kprobe.c */
};

/* A way of attaching hooks: hooks_ftrace.c, hooks_kprobe.c. */
struct ftagent_hook_driver {
	unsigned int kind;	/* enum ftagent_hook_set */
	/* Attach @hook; 0 or a negative errno. Process context. */
	int (*attach)(struct ftagent_hook *hook);
	/*
	 * Detach the @n attached @hooks in one go (one grace period, not
	 * one per hook); returns after running handlers have finished.
	 */
	void (*detach)(struct ftagent_hook **hooks, unsigned int n);
	/* Calls the driver could not see, since attach. */
	u64 (*missed)(struct ftagent_hook *hook);
	/* Optional: once before the first and after the last hook. */
	int (*start)(void);
	void (*stop)(void);
	/* Optional: after attach() for every hook, make them live at once. */
	int (*commit)(void);
	/*
	 * Optional: at module exit, free what start() and attach() kept
	 * for reuse; @hooks are all @n hooks, all detached.
	 */
	void (*release)(struct ftagent_hook *hooks, unsigned int n);
	/* What the set holds now, besides the hooks' array (memory.h). */
	size_t (*memory)(void);
};

extern const struct ftagent_hook_driver ftagent_kprobe_driver;
extern const struct ftagent_hook_driver ftagent_ftrace_driver;

/*
 * A call that noted its descriptors at entry (callfiles.h) has this bit
 * of the task's syscall_work set until its return, whichever hook set
 * and return path took the note: the gate then knows in a few
 * instructions that a call noted nothing, and asks the hook set only
 * when it did. The kernel acts on syscall_work only through its
 * SYSCALL_WORK_ENTER and _EXIT masks (hooks_ftrace.c checks the bit is
 * outside both). Only the task sets and clears its own bit, atomically
 * (others set the kernel's bits of the same word). A bit left set, by a
 * call whose return no hook saw (the set detached, or ftrace turned off,
 * meanwhile), costs the task's gated calls a search that finds nothing
 * until its next traced call returns (and it is copied to a child forked
 * meanwhile, at the same cost); the exit work's start clears it on every
 * thread. A bit missing would let a sibling's dup2() move a charge, so it
 * is set before the body runs. On the exit work it also tells the
 * sys_exit probe to give the call's slot back (hooks_ftrace.c), and is
 * set for every call that holds a slot, noted or not.
 */
#define FTAGENT_EW_KEYS		BIT(BITS_PER_LONG - 2)

static __always_inline unsigned long *ftagent_syscall_work(void)
{
	return &current_thread_info()->syscall_work;
}

static __always_inline bool ftagent_call_may_have_noted(void)
{
	return READ_ONCE(*ftagent_syscall_work()) & FTAGENT_EW_KEYS;
}

/* The current call noted its descriptors (the kprobe set, the settle). */
static __always_inline void ftagent_call_noted(void)
{
	atomic_long_or(FTAGENT_EW_KEYS, (atomic_long_t *)ftagent_syscall_work());
}

/* The current call that noted its descriptors has returned. */
static __always_inline void ftagent_call_noted_done(void)
{
	if (READ_ONCE(*ftagent_syscall_work()) & FTAGENT_EW_KEYS)
		atomic_long_andnot(FTAGENT_EW_KEYS,
				   (atomic_long_t *)ftagent_syscall_work());
}

struct ftrace_ops;
struct tracepoint;
/* hooks_ftrace.c, shared with the lifecycle points (lifecycle.c). */
int ftagent_ftrace_filter(struct ftrace_ops *ops, const char *symbol);

/*
 * ftrace refused to take ops @what off (only a failed ftrace does): a
 * warning, and the module is pinned for good, with what the ops use.
 */
void ftagent_stuck(const char *what, int err);
/* Whether an ftrace hook stays for good (ftagent_stuck()): keep what it uses. */
bool ftagent_ftrace_is_stuck(void);
struct ftrace_ops;
int ftagent_ftrace_on(struct ftrace_ops *ops);
bool ftagent_ftrace_off(struct ftrace_ops *ops, const char *what);
struct tracepoint *ftagent_tracepoint(const char *name);
/* Whether the ftrace set is attached through direct calls right now. */
bool ftagent_ftrace_direct_on(void);
/* Whether the ftrace set sees returns through the syscall exit work. */
bool ftagent_ftrace_exit_work_on(void);
/* Whether direct calls may be used at all (the direct_calls parameter). */
bool ftagent_direct_calls_allowed(void);
#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
/* ops_func of a direct ops: it shares its functions with a livepatch. */
int ftagent_direct_ops_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd);
#endif

/*
 * hooks_ftrace.c: the direct-call trampolines (asm) and the functions
 * they call; declared here only to link the two.
 */
void ftagent_entry_tramp(void);
void ftagent_settle_tramp(void);
void ftagent_entry_direct(void);
void ftagent_settle_direct(void);
void ftagent_entry_ew_tramp(void);
void ftagent_entry_ew_direct(void);

int ftagent_hooks_init(void);
void ftagent_hooks_exit(void);
/*
 * Attach the hooks @mode needs with driver @set. A hook that fails is
 * reported by name and reason and the rest stay attached, unless @strict
 * or the failure is ENOMEM (ftagent_setup_fails()): then everything is
 * detached, the mode's hooks read FAILED, and the error is returned.
 */
int ftagent_hooks_attach(unsigned int mode, unsigned int set, bool strict);
void ftagent_hooks_detach(void);
enum ftagent_state ftagent_hooks_state(void);

/* hooks.c: hit counts, and the attached hooks by syscall number. */
extern u64 __percpu *ftagent_hook_hits;
extern struct ftagent_hook *ftagent_by_nr[NR_syscalls];
#ifdef CONFIG_IA32_EMULATION
extern struct ftagent_hook *ftagent_by_nr_ia32[IA32_NR_syscalls];
#endif
#ifdef CONFIG_X86_X32_ABI
/*
 * x32's own numbers (512 and up, __X32_SYSCALL_BIT aside): the calls
 * whose x32 structures differ from the 64-bit ones. Below 512 an x32
 * number is the 64-bit call's where the call is common to both; where
 * it is 64-bit only (readv's 19, recvfrom's 45, ...) the kernel runs
 * sys_ni_syscall, no entry hook sees it, and the lookup's hook is never
 * charged: every charge needs an entry's mark, and the body's mark in ax
 * (ftagent_in_body()) that only a hooked entry point writes.
 */
#define FTAGENT_X32_OWN_FIRST	512
#define FTAGENT_X32_OWN_NR	(X32_NR_syscalls - FTAGENT_X32_OWN_FIRST)
static_assert(NR_syscalls <= FTAGENT_X32_OWN_FIRST);
extern struct ftagent_hook *ftagent_by_nr_x32[FTAGENT_X32_OWN_NR];
#endif

/* Hot path: a hook saw a call (preemption off). */
static __always_inline void ftagent_hook_fired(struct ftagent_hook *hook)
{
	this_cpu_ptr(ftagent_hook_hits)[hook->index]++;
	if (unlikely(!READ_ONCE(hook->seen)))
		WRITE_ONCE(hook->seen, true);
}

/*
 * An x32 call's hook (@nr with __X32_SYSCALL_BIT), or NULL. The bit
 * means nothing where the kernel has no x32 ABI: it refuses such calls
 * (ENOSYS) before any entry point, so no hook saw them.
 */
static __always_inline struct ftagent_hook *ftagent_hook_by_x32_nr(u32 nr)
{
	if (!(nr & __X32_SYSCALL_BIT))
		return NULL;
	nr &= ~__X32_SYSCALL_BIT;
	if (nr < NR_syscalls)
		return READ_ONCE(ftagent_by_nr[array_index_nospec(nr,
								  NR_syscalls)]);
#ifdef CONFIG_X86_X32_ABI
	nr -= FTAGENT_X32_OWN_FIRST;
	if (nr < FTAGENT_X32_OWN_NR) {
		nr = array_index_nospec(nr, FTAGENT_X32_OWN_NR);
		return READ_ONCE(ftagent_by_nr_x32[nr]);
	}
#endif
	return NULL;
}

/*
 * Hot path: the attached hook for 64-bit (or x32) syscall @nr, or NULL.
 * @nr is the caller's (orig_ax), and the hook found is dereferenced next:
 * clamped under speculation as the kernel's own dispatch clamps it.
 */
static __always_inline struct ftagent_hook *ftagent_hook_by_nr(u32 nr)
{
	if (likely(nr < NR_syscalls))
		return READ_ONCE(ftagent_by_nr[array_index_nospec(nr,
								  NR_syscalls)]);
	return ftagent_hook_by_x32_nr(nr);
}

/*
 * Hot path: the attached hook for the call @regs returns from, whichever
 * entry it came through. x32 calls share the 64-bit table below 512 and
 * have their own above; ia32 calls (TS_COMPAT, set by the 32-bit entry
 * code) have their own table.
 */
static __always_inline struct ftagent_hook *
ftagent_hook_for(const struct pt_regs *regs)
{
#ifdef CONFIG_IA32_EMULATION
	if (unlikely(in_ia32_syscall())) {
		u32 nr = regs->orig_ax;

		if (nr >= IA32_NR_syscalls)
			return NULL;
		nr = array_index_nospec(nr, IA32_NR_syscalls);
		return READ_ONCE(ftagent_by_nr_ia32[nr]);
	}
#endif
	/*
	 * The kernel runs the call in orig_ax's low 32 bits (do_syscall_64()
	 * takes an int) and keeps the whole register: a number with its
	 * upper half set is the same call.
	 */
	return ftagent_hook_by_nr((u32)regs->orig_ax);
}

/*
 * The saved ax holds the entry code's -ENOSYS from system call entry
 * until the call returns, when the return value replaces it, and nothing
 * reads it in between. The entry hooks write this mark there instead, so
 * a probe inside the call knows two things: it runs in the body of a
 * call whose entry a hook saw, whose settle will therefore come (mmsg.c
 * keeps bytes only for those: a call that began while function tracing
 * was off, or before the hooks attached, must leave nothing behind); and
 * not in work the kernel runs on the task's way back to user mode, whose
 * orig_ax still names the call but whose ax is its return value by then.
 * -ENOSYS with bit 62 flipped: no traced call returns it (an lseek() on
 * /proc/PID/mem could, to that offset), and a tracer that wrote ax at
 * the syscall-entry stop is overwritten, by an entry the hook set saw
 * (ftagent_ftrace_call_seen()). No ptrace stop, core dump or signal code
 * reads ax inside the body; stack dumps of a task inside a traced call
 * (hung task, sysrq-t, an oops) and perf user registers show
 * "RAX: bfffffffffffffda" (or 9fffffffffffffda, below) where they showed
 * -ENOSYS.
 */
#define FTAGENT_BODY_MARK ((unsigned long)-ENOSYS ^ BIT(62))
/*
 * The same with bit 61 cleared as well: a body that keeps a decision for
 * the rest of its call (xfer.h). Every entry writes the first form, so a
 * kept decision never outlives its call; both are "in the body".
 */
#define FTAGENT_BODY_KEPT (FTAGENT_BODY_MARK & ~BIT(61))
static_assert(FTAGENT_BODY_MARK & BIT(61));

/*
 * Whether the hook set saw the current task's traced call begin, so that
 * its settle will come: the body mark alone does not prove it where an
 * entry can be missed (no free slot or kretprobe instance), as a tracer
 * may have written ax at the syscall-entry stop. Preemption off.
 */
bool ftagent_ftrace_call_seen(void);
bool ftagent_kprobe_call_seen(const struct ftagent_hook *hook);

static __always_inline void ftagent_body_begins(struct pt_regs *regs)
{
	regs->ax = FTAGENT_BODY_MARK;
}

static __always_inline bool ftagent_in_body(const struct pt_regs *regs)
{
	return (regs->ax | BIT(61)) == FTAGENT_BODY_MARK;
}

struct ftagent_hook_view {
	const char *name;
	u32 kind, state, error;
	u64 hits, missed;
};

unsigned int ftagent_hooks_count(void);
/* Caller holds the config lock (see config.h). */
void ftagent_hook_view(unsigned int i, struct ftagent_hook_view *v);

#endif /* _FTAGENT_HOOKS_H */
