// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace hook set: ftrace_ops only, no kprobes, no return trampolines.
 *
 * By default a traced call's return is seen through the kernel's syscall
 * exit work (the sys_exit tracepoint; "The exit work" below). What
 * follows here is the settle that exit_work=0 keeps, and that the set
 * falls back to where the exit work cannot start.
 *
 * Entry: one ftrace_ops over the entry points of every traced syscall
 * marks the calling task as "in a traced call" in a preallocated table and
 * sets TIF_NOTIFY_RESUME on it. Setting that flag is harmless by design:
 * it only asks the exit path to run resume_user_mode_work(), whose parts
 * (task work, rseq fix-up, memcg and blkcg throttling) all check whether
 * they have anything to do.
 *
 * Settle: on the way back to user mode the exit loop calls
 * arch_do_signal_or_restart() when a signal is pending and
 * resume_user_mode_work() for the flag, which calls
 * blkcg_maybe_throttle_current(). A second ftrace_ops on those two
 * functions, and on ptrace_notify() (below), finds the task's mark,
 * clears it, and charges the call from current_pt_regs(): orig_ax is the
 * syscall number, the argument registers are unchanged, ax is the return
 * value. Signal delivery rewrites the registers for the handler frame,
 * hence the hook on its entry, which runs first.
 *
 * Why not return hooks: kretprobes cost ~400 instructions a call and each
 * call in flight holds an instance; a hook on the common syscall exit path
 * would tax every system call, traced or not. Here untraced calls pay
 * nothing. Unload stays safe while tasks sit blocked inside traced calls:
 * no task ever holds an address in this module; when such a task returns
 * after unload, its flag makes the exit path do a little idle work.
 *
 * Both hook sets are attached as direct calls when ftrace allows it: the
 * traced functions then call a small trampoline here instead of the
 * generic ftrace one, which saves the register frame and the recursion
 * lock (neither callback calls a function it traces, so neither can
 * recurse). A function has at most one direct caller, so when another
 * user (a BPF trampoline, say) holds one, the set falls back to plain
 * ftrace_ops with the same callbacks. Either way a task is only inside
 * this module while a callback runs, never across the traced call, and
 * unregistering waits for tasks preempted in a trampoline (RCU tasks).
 *
 * A mark must be cleared exactly once: the exit loop can run the settle
 * hooks again in the same return (rseq and throttling set the flag too),
 * and a task may die inside a call. The first settle clears the mark; a
 * sched_process_exit probe clears the mark of a task that never returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-cgroup.h>
#include <linux/entry-common.h>
#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/thread_info.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>
#include <asm/compat.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/unistd.h>

#include "account.h"
#include "callfiles.h"
#include "callsites.h"
#include "compat/ftrace.h"
#include "counters.h"
#include "hooks.h"
#include "memory.h"
#include "symbols.h"
#include "xfer.h"

/*
 * Tasks inside traced calls: 8-way buckets of task pointers, one cache
 * line each. Only the owning task sets or clears its slot (the exit probe
 * runs in the dying task's own context), so a cmpxchg to claim a free slot
 * and a plain store to release it are enough. A mark whose home bucket is
 * full spills over into the next buckets, and its home bucket's spill
 * count says so: only a return whose home bucket has spilled marks looks
 * further than it when it finds none there. With every bucket in reach
 * full the call is lost (counted as pending_table): 64K slots hold
 * 30,000 tasks blocked in traced calls with room to spare.
 */
#define FTAGENT_PENDING_BITS	16
#define FTAGENT_PENDING_WAYS	8
#define FTAGENT_PENDING_SLOTS	BIT(FTAGENT_PENDING_BITS)
#define FTAGENT_PENDING_BUCKETS	(FTAGENT_PENDING_SLOTS / FTAGENT_PENDING_WAYS)
#define FTAGENT_PENDING_REACH	8	/* buckets a mark may use */
static_assert(FTAGENT_PENDING_REACH <= FTAGENT_PENDING_BUCKETS);

static unsigned long *ftagent_pending __read_mostly;
/*
 * Per slot: what the descriptors of a call by a task with a shared
 * descriptor table (or an ia32 socketcall) named at entry (callfiles.h),
 * valid while the slot's mark says so. Only the slot's owner touches it.
 */
static struct ftagent_call_keys *ftagent_pending_keys __read_mostly;
/*
 * Per home bucket: its tasks' marks outside it. Each task changes only
 * its own contribution, and reads its own bucket's count after its own
 * increment (the scheduler's barriers cover a migration in between).
 */
static atomic_t *ftagent_pending_spills __read_mostly;
/* What the three tables above hold (memory.h); 0 while they are gone. */
static size_t ftagent_pending_bytes;

/*
 * The functions the settle ops hooks, all on the way out of a system
 * call. ptrace_notify(): a tracer that stops the task at syscall exit
 * may rewrite its registers (orig_ax, ax, the arguments) before the exit
 * loop runs, so a traced task's call is settled when the stop is
 * reported, before the tracer sees it.
 */
static const char * const ftagent_settle_points[] = {
	"ptrace_notify",
	"arch_do_signal_or_restart",
	"blkcg_maybe_throttle_current",
};

/*
 * Set once the set has started, cleared before the tables are freed: the
 * gate reads the notes from its own hooks, with preemption off, only
 * while it is set (ftagent_ftrace_call_keys()).
 */
static bool ftagent_pending_live;

static struct tracepoint *ftagent_exit_tp;
/* Entry points in the entry ops' filter; never register it with none. */
static unsigned int ftagent_entry_filters;

static __always_inline unsigned long ftagent_home(struct task_struct *t)
{
	return hash_ptr(t, ilog2(FTAGENT_PENDING_BUCKETS));
}

/* Bucket @n of the reach from home bucket @home: 0 is the home itself. */
static __always_inline unsigned long *ftagent_bucket_at(unsigned long home,
							unsigned int n)
{
	return &ftagent_pending[((home + n) & (FTAGENT_PENDING_BUCKETS - 1)) *
				FTAGENT_PENDING_WAYS];
}

/* Count a loss from a callback that may run with preemption enabled. */
static void ftagent_loss(enum ftagent_loss cause)
{
	preempt_disable_notrace();
	ftagent_count_loss(cause);
	preempt_enable_notrace();
}

/*
 * A mark is the task's pointer, with FTAGENT_MARK_KEYS set when its call
 * noted keys at entry (callfiles.h): a settle of a call that noted none
 * never reads the keys table.
 */
#define FTAGENT_MARK_KEYS	1UL
static_assert(__alignof__(struct task_struct) > 1);

static __always_inline bool ftagent_mark_is(unsigned long mark,
					    struct task_struct *t)
{
	return (mark & ~FTAGENT_MARK_KEYS) == (unsigned long)t;
}

/* The slot of @t's mark in its bucket, or -1: only @t sets or clears it. */
static __always_inline int ftagent_mark_of(const unsigned long *b,
					   struct task_struct *t)
{
	int i;

	for (i = 0; i < FTAGENT_PENDING_WAYS; i++)
		if (ftagent_mark_is(READ_ONCE(b[i]), t))
			return i;
	return -1;
}

/* @t's mark outside home bucket @home, or NULL. */
static noinline notrace unsigned long *ftagent_spilled_mark(struct task_struct *t,
							    unsigned long home)
{
	unsigned long *b;
	unsigned int n;
	int i;

	for (n = 1; n < FTAGENT_PENDING_REACH; n++) {
		b = ftagent_bucket_at(home, n);
		i = ftagent_mark_of(b, t);
		if (i >= 0)
			return &b[i];
	}
	return NULL;
}

/*
 * @t found its home bucket full: keep its own mark further on (a
 * restarted call), or claim a slot there. @t's slot now, or NULL.
 */
static noinline notrace unsigned long *ftagent_mark_slow(struct task_struct *t,
							 unsigned long home)
{
	unsigned long *b;
	unsigned int n;
	int i;

	if (atomic_read(&ftagent_pending_spills[home])) {
		b = ftagent_spilled_mark(t, home);
		if (b)
			return b;
	}
	for (n = 0; n < FTAGENT_PENDING_REACH; n++) {
		b = ftagent_bucket_at(home, n);
		for (i = 0; i < FTAGENT_PENDING_WAYS; i++) {
			if (READ_ONCE(b[i]) ||
			    cmpxchg(&b[i], 0UL, (unsigned long)t))
				continue;
			if (n)
				atomic_inc(&ftagent_pending_spills[home]);
			return &b[i];
		}
	}
	return NULL;
}

/*
 * The current task, marked in @slot, shares its descriptor table: note
 * what the call's descriptors name now, for its settle (callfiles.c). A
 * restarted call's keys are noted again. Preemption may be on (a direct
 * call).
 */
static __always_inline struct ftagent_call_keys *
ftagent_slot_keys(unsigned long *slot)
{
	return &ftagent_pending_keys[slot - ftagent_pending];
}

static noinline notrace void ftagent_note_keys(unsigned long *slot)
{
	struct pt_regs *uregs = task_pt_regs(current);
	struct ftagent_hook *hook = ftagent_hook_for(uregs);
	struct ftagent_call_keys *k = ftagent_slot_keys(slot);
	unsigned long mark = (unsigned long)current;

	if (hook) {
		ftagent_call_keys_fill(hook->call, uregs, k);
		if (ftagent_call_keys_any(k))
			mark |= FTAGENT_MARK_KEYS;
	}
	/* Only this task writes its own slot (a restarted call's too). */
	WRITE_ONCE(*slot, mark);
}

/* Give up @slot. */
static __always_inline void ftagent_release(unsigned long *slot)
{
	/* The reads of its keys come before another task may claim it. */
	smp_store_release(slot, 0UL);
}

/*
 * Entry of a traced call by the current task, user or kernel thread:
 * the first free slot of its home bucket, as cheap as it gets. A task
 * already marked (a restarted call) keeps its mark when that comes
 * first in the bucket or lies beyond it; no path re-enters a traced
 * call with its mark set today (every return to user mode settles), and
 * the exit probe clears every mark a task holds.
 */
static __always_inline unsigned long *ftagent_claim(struct task_struct *t)
{
	unsigned long home, *b, *slot, cur;
	int i;

	home = ftagent_home(t);
	b = ftagent_bucket_at(home, 0);
	for (i = 0; i < FTAGENT_PENDING_WAYS; i++) {
		cur = READ_ONCE(b[i]);
		if (ftagent_mark_is(cur, t) ||
		    (!cur && !cmpxchg(&b[i], 0UL, (unsigned long)t)))
			return &b[i];
	}
	slot = ftagent_mark_slow(t, home);
	if (!slot)
		ftagent_loss(FTAGENT_LOSS_PENDING_TABLE);
	return slot;
}

static __always_inline void ftagent_mark(struct task_struct *t)
{
	unsigned long *slot;

	if (unlikely(t->flags & PF_KTHREAD))
		return;
	slot = ftagent_claim(t);
	if (!slot)
		return;
	/* Only a marked call is settled: only its body may keep bytes. */
	ftagent_body_begins(task_pt_regs(t));
	/* And socketcall, whose descriptor is in user memory. */
	if (unlikely(ftagent_files_shared(t) ||
		     ftagent_in_socketcall(task_pt_regs(t)))) {
		ftagent_note_keys(slot);
		if (READ_ONCE(*slot) & FTAGENT_MARK_KEYS)
			ftagent_call_noted();
	} else if (unlikely(READ_ONCE(*slot) & FTAGENT_MARK_KEYS)) {
		/* A kept mark (above) must not lend this call its notes. */
		WRITE_ONCE(*slot, (unsigned long)t);
		ftagent_call_noted_done();
	}
	if (!test_thread_flag(TIF_NOTIFY_RESUME))
		set_thread_flag(TIF_NOTIFY_RESUME);
}

/*
 * @t's mark outside home bucket @home, or NULL. No longer counted as
 * spilled: only @t looks for its own mark, and it holds the slot until
 * ftagent_release().
 */
static noinline notrace unsigned long *
ftagent_unmark_spilled(struct task_struct *t, unsigned long home)
{
	unsigned long *slot = ftagent_spilled_mark(t, home);

	if (slot)
		atomic_dec(&ftagent_pending_spills[home]);
	return slot;
}

/*
 * @t's mark (a traced call to charge), or NULL. The slot stays @t's,
 * with what the call noted at entry, until ftagent_release().
 */
static __always_inline unsigned long *ftagent_unmark(struct task_struct *t)
{
	unsigned long home = ftagent_home(t);
	unsigned long *b = ftagent_bucket_at(home, 0);
	int i = ftagent_mark_of(b, t);

	if (likely(i >= 0))
		return &b[i];
	/* A return that ends no traced call, unless @t's mark spilled. */
	if (likely(!atomic_read(&ftagent_pending_spills[home])))
		return NULL;
	return ftagent_unmark_spilled(t, home);
}

/*
 * Charge the call the current task returns from, to what @keys says its
 * descriptors named at entry (NULL: to what they name now). Preemption
 * off.
 */
static __always_inline void
ftagent_settle_call(const struct ftagent_call_keys *keys)
{
	struct pt_regs *uregs = current_pt_regs();
	struct ftagent_hook *hook;

	hook = ftagent_hook_for(uregs);
	if (hook) {
		ftagent_hook_fired(hook);
		ftagent_account(hook->call, uregs, uregs->ax, keys);
	}
}

/* A call whose entry noted keys: off the fast path and its frame. */
static noinline notrace void ftagent_settle_noted(unsigned long *slot)
{
	struct ftagent_call_keys keys = *ftagent_slot_keys(slot);

	ftagent_release(slot);
	ftagent_settle_call(&keys);
}

/*
 * Settle the call marked in @slot, and give the slot up. The task's
 * noted bit goes whatever the call noted: one left by a settle that was
 * lost (below) goes with the next.
 */
static __always_inline void ftagent_settle_slot(unsigned long *slot)
{
	ftagent_call_noted_done();
	if (unlikely(READ_ONCE(*slot) & FTAGENT_MARK_KEYS)) {
		ftagent_settle_noted(slot);
		return;
	}
	ftagent_release(slot);
	ftagent_settle_call(NULL);
}

static void notrace ftagent_entry(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0)) {
		if (!(current->flags & PF_KTHREAD))
			ftagent_loss(FTAGENT_LOSS_RECURSION);
		return;
	}
	ftagent_mark(current);
	ftrace_test_recursion_unlock(bit);
}

static void notrace ftagent_settle(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	unsigned long *slot;
	int bit;

	slot = ftagent_unmark(current);
	if (!slot)
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0)) {
		ftagent_release(slot);
		ftagent_loss(FTAGENT_LOSS_RECURSION);
		/* A transfer's kept decision goes with its settle (xfer.h). */
		preempt_disable_notrace();
		ftagent_xfer_done();
		preempt_enable_notrace();
		return;
	}
	ftagent_settle_slot(slot);
	ftrace_test_recursion_unlock(bit);
}

/*
 * The direct callers: called from the traced function's first
 * instruction, before its frame exists, so the traced function's
 * arguments are live in their registers and must be kept. The entry
 * points take one (the syscall wrappers their pt_regs): %rdi. The settle
 * points take up to two (ptrace_notify(exit_code, message)): %rdi and
 * %rsi. The prototypes are checked below: a settle point that took
 * more arguments would have them clobbered.
 */
static_assert(__same_type(&ptrace_notify, int (*)(int, unsigned long)));
static_assert(__same_type(&arch_do_signal_or_restart,
			  void (*)(struct pt_regs *)));
static_assert(__same_type(&blkcg_maybe_throttle_current, void (*)(void)));
#define FTAGENT_TRAMP2(name, func)				\
	"	.pushsection	.text, \"ax\", @progbits\n"		\
	"	.type	" #name ", @function\n"			\
	#name ":\n"						\
	ASM_ENDBR						\
	"	pushq	%rbp\n"					\
	"	movq	%rsp, %rbp\n"					\
	CALL_DEPTH_ACCOUNT					\
	"	pushq	%rdi\n"					\
	"	pushq	%rsi\n"					\
	"	call	" #func "\n"					\
	"	popq	%rsi\n"					\
	"	popq	%rdi\n"					\
	"	leave\n"						\
	ASM_RET							\
	"	.size	" #name ", .-" #name "\n"			\
	"	.popsection\n"

#define FTAGENT_TRAMP(name, func)				\
	"	.pushsection	.text, \"ax\", @progbits\n"		\
	"	.type	" #name ", @function\n"			\
	#name ":\n"						\
	ASM_ENDBR						\
	"	pushq	%rbp\n"					\
	"	movq	%rsp, %rbp\n"					\
	CALL_DEPTH_ACCOUNT					\
	"	pushq	%rdi\n"					\
	"	call	" #func "\n"					\
	"	popq	%rdi\n"					\
	"	leave\n"						\
	ASM_RET							\
	"	.size	" #name ", .-" #name "\n"			\
	"	.popsection\n"

asm(FTAGENT_TRAMP(ftagent_entry_tramp, ftagent_entry_direct));
asm(FTAGENT_TRAMP2(ftagent_settle_tramp, ftagent_settle_direct));
asm(FTAGENT_TRAMP(ftagent_entry_ew_tramp, ftagent_entry_ew_direct));

void notrace ftagent_entry_direct(void)
{
	ftagent_mark(current);
}

void notrace ftagent_settle_direct(void)
{
	unsigned long *slot = ftagent_unmark(current);

	if (!slot)
		return;
	preempt_disable_notrace();
	ftagent_settle_slot(slot);
	preempt_enable_notrace();
}

/*
 * The exit work (the default; exit_work=0, or a kernel where it cannot
 * start, settles as above; docs/design/return-path.md): the entry marks
 * the call by setting the task's SYSCALL_TRACEPOINT work bit, so the
 * kernel's own syscall exit work (syscall_exit_work()) calls the sys_exit
 * tracepoint for this call, where ftagent_sys_exit() charges it from the
 * registers and the return value. No table.
 *
 * SYSCALL_TRACEPOINT alone does not say that ftagent saw the call begin:
 * the kernel sets it on every thread when the first sys_enter/sys_exit
 * probe comes (ftagent's own included), the bit walk below sets it for
 * other users, and a child inherits it. A call that blocked since before
 * the load, or that never ran (seccomp RET_ERRNO, an x32 number routed to
 * sys_ni_syscall) must not be charged. So the entry also sets a bit of
 * the same word that is ftagent's alone (FTAGENT_EW_SEEN): the kernel
 * tests syscall_work only through the SYSCALL_WORK_ENTER and _EXIT masks
 * (checked at build below), so a bit outside both is never acted on.
 * Only the task itself sets and clears it: the entry, and the probe on
 * the same call's way out. Start and stop clear it on every thread (a
 * task that was blocked in a traced call when the probe went returns
 * without it); a child forked meanwhile may keep a copy, which charges
 * nothing: its first return is from clone(), which is not traced, and
 * the fork probe clears it while the probe is on.
 *
 * A task whose descriptor table is shared (another thread may close or
 * replace a descriptor during the call), or in an ia32 socketcall, notes
 * at entry what its descriptors name, as the default path does, in a
 * slot of the same pending table, and sets FTAGENT_EW_KEYS, the next
 * bit: the probe then charges the call to those objects and gives the
 * slot back. A full table loses the note (counted as pending_table,
 * which here means "noted nothing", not "not charged" as on the default
 * path); the call is then charged to what its descriptors name at
 * return.
 */
#define FTAGENT_EW_SEEN_BIT	(BITS_PER_LONG - 1)
#define FTAGENT_EW_SEEN		BIT(FTAGENT_EW_SEEN_BIT)
/*
 * FTAGENT_EW_KEYS, the next bit, is in hooks.h: the gate tests it, and
 * the settle path and the kprobe set use it as well (hooks.h).
 */
static_assert(BIT(BITS_PER_LONG - 2) == FTAGENT_EW_KEYS);
#define FTAGENT_EW_OWN		(FTAGENT_EW_SEEN | FTAGENT_EW_KEYS)
#define FTAGENT_EW_MARK		(FTAGENT_EW_SEEN | SYSCALL_WORK_SYSCALL_TRACEPOINT)

static_assert(!(FTAGENT_EW_OWN & (SYSCALL_WORK_ENTER | SYSCALL_WORK_EXIT)));

/* Note the call's descriptors in a slot of @t's; false if none is free. */
static noinline notrace bool ftagent_ew_note(struct task_struct *t)
{
	unsigned long *slot = ftagent_claim(t);

	if (!slot)
		return false;
	ftagent_note_keys(slot);
	return true;
}

static __always_inline void ftagent_mark_ew(void)
{
	struct task_struct *t = current;
	unsigned long *work = ftagent_syscall_work();
	unsigned long want = FTAGENT_EW_MARK;

	if (unlikely(t->flags & PF_KTHREAD))
		return;
	ftagent_body_begins(task_pt_regs(t));
	if (unlikely(ftagent_files_shared(t) ||
		     ftagent_in_socketcall(task_pt_regs(t))) &&
	    ftagent_ew_note(t))
		want |= FTAGENT_EW_KEYS;
	/* Other CPUs set bits of the word (the walk): an atomic or. */
	if ((READ_ONCE(*work) & want) != want)
		atomic_long_or(want, (atomic_long_t *)work);
}

void notrace ftagent_entry_ew_direct(void)
{
	ftagent_mark_ew();
}

static void notrace ftagent_entry_ew(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	ftagent_mark_ew();
}

static struct ftrace_ops ftagent_entry_ops = {
	.func = ftagent_entry,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static struct ftrace_ops ftagent_settle_ops = {
	.func = ftagent_settle,
	.flags = FTRACE_OPS_FL_RECURSION,
};

/*
 * A kernel of this age allows one direct caller per function, so while
 * ftagent holds them a BPF fentry/fexit program (bpftrace kfunc:) on a
 * traced syscall or a settle point cannot attach (EBUSY). direct_calls=0
 * leaves them free, at about 80 more instructions per traced call.
 */
static bool exit_work = true;
module_param(exit_work, bool, 0444);
MODULE_PARM_DESC(exit_work,
		 "ftrace set: see a traced call's result from the syscall exit work (sys_exit tracepoint; default) rather than TIF_NOTIFY_RESUME (0; also the fallback when the exit work cannot start)");

/* The ftrace set started on the exit work (exit_work, and it could). */
static bool ftagent_ew_on;

static bool direct_calls = true;
module_param(direct_calls, bool, 0444);
MODULE_PARM_DESC(direct_calls,
		 "ftrace set and policy gate: hook through direct calls when free (cheaper; blocks BPF fentry on the same functions)");

/*
 * A set attached as direct calls. Its ftrace_ops are made afresh for
 * every attempt and wiped when they are detached: a failed registration
 * can leave an ops' func, flags and trampoline set (6.1), and such an ops
 * would take the slow path on every later attach. So the set keeps the
 * names (or the addresses) it must filter on, not filtered ops.
 */
#define FTAGENT_DIRECT_MAX	96

/*
 * At most this many functions go to ftrace in one direct registration.
 * Up to 6.7, register_ftrace_direct{,_multi}() grows the kernel's table
 * of direct calls as it adds to it, keeping only the last table it
 * replaced for freeing: a call that grows it twice leaks the table it
 * started from (576 bytes with 64 buckets, seen by kmemleak at every load
 * after the first, as unregistering leaves the emptied table allocated).
 * From an empty table the first add grows it to 32 buckets and the next
 * growth comes at the 66th add; from any other state (count at most
 * twice the buckets, 32 or more of them) a second growth takes more than
 * 64 adds, until the table's 4,096-bucket cap far above anything here.
 * So a set of more than this is attached as several ops, 48 leaving room
 * for a name that matches more than one function. Later kernels copy the
 * table once per call; the split costs them one more registration.
 */
#define FTAGENT_DIRECT_PER_OPS	48
#define FTAGENT_DIRECT_OPS	DIV_ROUND_UP(FTAGENT_DIRECT_MAX, \
					     FTAGENT_DIRECT_PER_OPS)

struct ftagent_direct_set {
	struct ftrace_ops ops[FTAGENT_DIRECT_OPS];
	unsigned int n_ops;	/* ops[0..n_ops) registered now */
	void (*tramp)(void);
	const char *symbols[FTAGENT_DIRECT_MAX];	/* filtered by name */
	unsigned int n;
	unsigned long ips[FTAGENT_DIRECT_MAX];		/* filtered by address */
	unsigned int n_ips;
	bool on;
	bool stuck;	/* ftrace refused to let go of it: never reused */
};

static struct ftagent_direct_set ftagent_entry_direct_set = {
	.tramp = ftagent_entry_tramp,
};

static struct ftagent_direct_set ftagent_settle_direct_set = {
	.tramp = ftagent_settle_tramp,
};

static void ftagent_direct_wipe(struct ftrace_ops *ops)
{
	ftrace_free_filter(ops);
	memset(ops, 0, sizeof(*ops));
}

bool ftagent_direct_calls_allowed(void)
{
	return direct_calls;
}

#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
/*
 * Share the traced functions with an IPMODIFY ops (a livepatch), in
 * either order: the trampolines never call the function they sit on, and
 * when both are attached ftrace_regs_caller puts the ip the livepatch
 * chose in the slot the trampoline returns to. Without this, ftrace
 * refuses a livepatch of any function ftagent holds (-EBUSY). The gate's
 * trampolines (gate.c) share the same way.
 */
int ftagent_direct_ops_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
{
	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
	case FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER:
		return 0;
	}
	return -EOPNOTSUPP;
}
#endif

/* Filter @d's ops @part on its share of the names, then of the addresses. */
static int ftagent_direct_filter_part(struct ftagent_direct_set *d,
				      unsigned int part)
{
	struct ftrace_ops *ops = &d->ops[part];
	unsigned int i = part * FTAGENT_DIRECT_PER_OPS;
	unsigned int end = min(i + FTAGENT_DIRECT_PER_OPS, d->n + d->n_ips);
	int err = 0;

	for (; i < end && i < d->n; i++) {
		err = ftagent_ftrace_filter(ops, d->symbols[i]);
		if (err)
			return err;
	}
	if (i < end)
		err = ftrace_set_filter_ips(ops, &d->ips[i - d->n], end - i,
					    0, 0);
	return err;
}

/*
 * Take @d's registered ops off, last first. One ftrace refuses to let go
 * of (only after ftrace itself failed) keeps its filter and may still be
 * called: the set is never reused and the module stays (ftagent_stuck()).
 * Returns once no task runs or is preempted in the trampoline.
 */
static void ftagent_direct_off(struct ftagent_direct_set *d)
{
	struct ftrace_ops *ops;
	int err;

	while (d->n_ops) {
		ops = &d->ops[--d->n_ops];
		err = ftagent_direct_unregister(ops, (unsigned long)d->tramp);
		if (!err) {
			ftagent_direct_wipe(ops);
			continue;
		}
		if (!d->stuck)
			ftagent_stuck("direct-call", err);
		d->stuck = true;
	}
}

/*
 * Try to attach @d as direct calls, all of it or none: 0 or why not (the
 * ops are left wiped, unless ftrace would not take one off again).
 */
static int ftagent_direct_try(struct ftagent_direct_set *d)
{
	unsigned int parts = DIV_ROUND_UP(d->n + d->n_ips,
					  FTAGENT_DIRECT_PER_OPS);
	struct ftrace_ops *ops;
	int err = 0;

	if (d->stuck)
		return -EBUSY;
	/* Never an ops without a filter: it would trace every function. */
	if (WARN_ON_ONCE(!parts || parts > FTAGENT_DIRECT_OPS))
		return -EINVAL;
	while (d->n_ops < parts) {
		ops = &d->ops[d->n_ops];
		memset(ops, 0, sizeof(*ops));
#ifdef FTAGENT_HAVE_FTRACE_OPS_FUNC
		ops->ops_func = ftagent_direct_ops_func;
#endif
		err = ftagent_direct_filter_part(d, d->n_ops);
		if (!err)
			err = ftagent_direct_register(ops,
						      (unsigned long)d->tramp);
		if (err) {
			/*
			 * A registration that failed late was linked into
			 * ftrace's list for a moment: walkers with preemption
			 * off may still look at its filter. Let them finish
			 * before freeing it.
			 */
			synchronize_rcu();
			ftagent_direct_wipe(ops);
			if (d->n_ops)
				pr_info("ftrace hooks: direct ops %u of %u refused (%d), taking the first %u off\n",
					d->n_ops + 1, parts, err, d->n_ops);
			ftagent_direct_off(d);
			break;
		}
		d->n_ops++;
	}
	d->on = !err;
	return err;
}

static bool ftagent_direct_has_ip(const struct ftagent_direct_set *d,
				  unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < d->n_ips; i++)
		if (d->ips[i] == ip)
			return true;
	return false;
}

/* Filter the plain form of a set on @symbol and note it for the direct. */
static int ftagent_filter_both(struct ftrace_ops *ops,
			       struct ftagent_direct_set *d,
			       const char *symbol)
{
	int err;

	if (d->n + d->n_ips == FTAGENT_DIRECT_MAX)
		return -ENOSPC;
	/* The settle points are internals: a missing one is noted. */
	err = ftagent_symbol_filter(ops, symbol);
	if (!err)
		d->symbols[d->n++] = symbol;
	return err;
}

/*
 * Make a set live: as direct calls to its trampoline if ftrace allows (no
 * other direct caller on any of its functions), else as the ftrace_ops
 * @ops with the same callbacks. Not for want of memory: the set would run
 * slower until the next load for a shortage that says nothing about the
 * kernel (ftagent_setup_fails()); the attach fails instead.
 */
static int ftagent_register(struct ftrace_ops *ops,
			    struct ftagent_direct_set *d)
{
	int err;

	d->on = false;
	if (!direct_calls)
		return register_ftrace_function(ops);
	err = ftagent_direct_try(d);
	/* A set ftrace holds as direct calls must not be traced twice. */
	if (!err || err == -ENOMEM || d->stuck)
		return err;
	pr_info("ftrace hooks: no direct calls (%d), using ftrace_ops\n", err);
	return register_ftrace_function(ops);
}

/*
 * ftrace refused to detach a set (it only does when ftrace itself has
 * failed): its ops and callbacks may still be called, so they and the
 * module stay for good.
 */
static bool ftagent_ftrace_stuck;

void ftagent_stuck(const char *what, int err)
{
	WARN(1, KBUILD_MODNAME ": ftrace cannot detach the %s hooks (%d): they stay, with what they use; reboot before unloading\n",
	     what, err);
	/* Holds off an unload that has not begun; one that has, can't be. */
	if (!ftagent_ftrace_stuck)
		__module_get(THIS_MODULE);
	WRITE_ONCE(ftagent_ftrace_stuck, true);
}

/*
 * register_ftrace_function(), and if it fails, a wait until nothing can
 * still look at @ops' filter, which the caller then frees: a registration
 * that fails late (an IPMODIFY conflict with a livepatch: EBUSY) was on
 * ftrace's list for a moment, where callbacks walk it with preemption
 * off. Process context.
 */
int ftagent_ftrace_on(struct ftrace_ops *ops)
{
	int err = register_ftrace_function(ops);

	if (err)
		synchronize_rcu();
	return err;
}

bool ftagent_ftrace_is_stuck(void)
{
	return READ_ONCE(ftagent_ftrace_stuck);
}

/*
 * Take @ops off and free its filter: true. If ftrace refuses (it only
 * does once it has failed itself), @ops may still be called: it keeps its
 * filter, and it and the module stay for good (ftagent_stuck()): false.
 */
bool ftagent_ftrace_off(struct ftrace_ops *ops, const char *what)
{
	int err = unregister_ftrace_function(ops);

	if (err) {
		ftagent_stuck(what, err);
		return false;
	}
	ftrace_free_filter(ops);
	return true;
}

static void ftagent_unregister(struct ftrace_ops *ops,
			       struct ftagent_direct_set *d)
{
	int err;

	/* Both return once no task runs or is preempted in a callback. */
	if (d->on) {
		ftagent_direct_off(d);
	} else {
		err = unregister_ftrace_function(ops);
		if (err)
			ftagent_stuck("ftrace_ops", err);
	}
	d->on = false;
}

/* Whether each set is attached as direct calls now (for the status). */
bool ftagent_ftrace_direct_on(void)
{
	return ftagent_entry_direct_set.on &&
	       (ftagent_ew_on || ftagent_settle_direct_set.on);
}

bool ftagent_ftrace_exit_work_on(void)
{
	return ftagent_ew_on;
}

static void notrace ftagent_task_exit(void *data, struct task_struct *p)
{
	unsigned long *slot;

	/* One mark at most; a second would outlive the task. */
	while ((slot = ftagent_unmark(p)))
		ftagent_release(slot);
}

struct ftagent_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void ftagent_tp_match(struct tracepoint *tp, void *priv)
{
	struct ftagent_tp_search *search = priv;

	if (!strcmp(tp->name, search->name))
		search->found = tp;
}

/* Tracepoints are not exported to modules: they are found by name. */
struct tracepoint *ftagent_tracepoint(const char *name)
{
	struct ftagent_tp_search search = { .name = name };

	for_each_kernel_tracepoint(ftagent_tp_match, &search);
	return search.found;
}

/*
 * Add function @symbol to @ops's filter. ftrace_set_filter() by name
 * matches every traceable function's name against it, through the symbol
 * table: three quarters of a load's time (a fifth of a second each under
 * TCG, a dozen at each load). The address is found first instead, as the
 * entry points' are (a kprobe's lookup, read back through the symbol
 * table, so it is @symbol's own start), and filtered by address; only if
 * that finds nothing (no kprobe support, a function kprobes refuse, none
 * by that name) does the scan by name decide, with its own errors (EINVAL
 * when no function matches). None of the names hooked this way has a
 * namesake on 6.1 or 6.12, which the scan would also have filtered.
 * Never after ENOMEM: the scan counts a record it could not add to the
 * hash as a match (match_records()), and an ops left with an empty
 * filter would trace every function in the kernel.
 */
int ftagent_ftrace_filter(struct ftrace_ops *ops, const char *symbol)
{
	unsigned long start, size;
	int err;

	err = ftagent_function_find(symbol, &start, &size);
	if (!err)
		err = ftrace_set_filter_ip(ops, start, 0, 0);
	if (!err || err == -ENOMEM)
		return err;
	return ftrace_set_filter(ops, (unsigned char *)symbol, strlen(symbol),
				 0);
}

/*
 * Empty a filter so the ops can be attached again later. Not
 * ftrace_free_filter(): it frees the hashes but leaves the ops pointing at
 * them, so it is only for an ops that is never used again (module exit).
 */
static void ftagent_reset_filter(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
}

/*
 * The exit work: the sys_exit tracepoint and the SYSCALL_TRACEPOINT bit are
 * shared with every other user of the syscall tracepoints (perf, ftrace's
 * syscall events, BPF raw tracepoints): while any of them has a probe on
 * sys_enter or sys_exit, every thread must keep the bit, and the kernel
 * only sets it on all threads when the first of those probes comes
 * (syscall_regfunc(), when no sys_enter/sys_exit key was on). ftagent's
 * own probe holds the sys_exit key, so a later user's probe would find
 * the bits unset. Hence:
 *
 *  - ftagent_sys_others counts the other users' probes: a snapshot at
 *    start, then an ftrace hook on the entry of the exported register and
 *    unregister functions (filtered on the two tracepoints). It is the
 *    size of a set of (tracepoint, probe, data): the kernel holds each
 *    such probe at most once (a second registration is -EEXIST), and a
 *    register function that calls another one (tracepoint_probe_register()
 *    becoming a jump to _prio()) reaches the hook twice for one probe;
 *    counted as calls, that probe would stay counted after it left;
 *  - on each of their registrations the hook counts it, then sets the bit
 *    on every thread (and a fork probe on children born meanwhile) before
 *    the probe goes live;
 *  - the bit is cleared only by the task itself on its way out of a call,
 *    and set back unless the count is 0 and ftagent's probe is alone on
 *    both tracepoints (clear, full barrier, read; against the hook's
 *    count, barrier, set);
 *  - a probe published that no hook counted (ftagent_sys_alone()) keeps
 *    every bit, and a repair walk sets those cleared before it came.
 *
 * A count too high only leaves bits set (calls pay the exit work, nobody
 * misses one); too low could drop a bit another user needs, so every
 * doubt counts up (a registration that fails stays counted).
 */
static struct tracepoint *ftagent_sys_enter_tp, *ftagent_sys_exit_tp;
static struct tracepoint *ftagent_fork_tp;
static atomic_t ftagent_sys_others;

/*
 * The other users' probes the count stands for. When the set is full, a
 * registration is counted without a place in it, so for good: the count
 * is then too high (bits stay set), never too low.
 */
#define FTAGENT_SYS_PROBES	256

struct ftagent_sys_probe {
	unsigned long tp, probe, data;
};

static struct ftagent_sys_probe ftagent_sys_probes[FTAGENT_SYS_PROBES];
static unsigned int ftagent_sys_nprobes;
static DEFINE_RAW_SPINLOCK(ftagent_sys_lock);

/*
 * Note one probe: whether it is to be counted (new, or past a full set),
 * false if it was noted already. Under ftagent_sys_lock.
 */
static notrace bool ftagent_sys_note(unsigned long tp, unsigned long probe,
				     unsigned long data)
{
	struct ftagent_sys_probe *p;
	unsigned int i;

	for (i = 0; i < ftagent_sys_nprobes; i++) {
		p = &ftagent_sys_probes[i];
		if (p->tp == tp && p->probe == probe && p->data == data)
			return false;
	}
	if (ftagent_sys_nprobes == FTAGENT_SYS_PROBES)
		return true;
	ftagent_sys_probes[ftagent_sys_nprobes++] =
		(struct ftagent_sys_probe){ .tp = tp, .probe = probe,
					    .data = data };
	return true;
}

/* Forget one probe; false if it was not noted. Under ftagent_sys_lock. */
static notrace bool ftagent_sys_forget(unsigned long tp,
				       unsigned long probe,
				       unsigned long data)
{
	struct ftagent_sys_probe *p;
	unsigned int i;

	for (i = 0; i < ftagent_sys_nprobes; i++) {
		p = &ftagent_sys_probes[i];
		if (p->tp == tp && p->probe == probe && p->data == data) {
			*p = ftagent_sys_probes[--ftagent_sys_nprobes];
			return true;
		}
	}
	return false;
}

static void ftagent_sys_exit(void *data, struct pt_regs *regs, long ret);

/*
 * No probe but ftagent's on either syscall tracepoint: the second check
 * behind the count, which the count needs. The unregister hook forgets a
 * probe before the kernel removes it, and a registration can pass the
 * hooked entry before the hooks are on and publish its probe after the
 * start's snapshot: in both cases the probe is published and uncounted,
 * and this keeps the bits. A task that cleared its bit before such a
 * probe was published is set again by the repair walk the exit probe
 * asks for (ftagent_sys_heal()), once per version of the probe arrays.
 * Until the first task meets the probe and the walk has run, a task
 * whose bit is clear is not seen by it: the kernel publishes a probe
 * after it sets the bits (syscall_regfunc()), which for such a probe it
 * did not do, ftagent's own probe holding its count above 0. The probe
 * arrays, not the static keys: a tracepoint publishes its array before
 * it enables its key. No array at all is alone too: ftagent's own probe
 * has gone (the stop), and the kernel has cleared every bit. A stub left
 * in an array by a removal that could not allocate keeps this false until
 * the array changes again (a cost: the bit stays set).
 */
static __always_inline bool ftagent_sys_alone(void)
{
	const struct tracepoint_func *f;

	if (rcu_dereference_sched(ftagent_sys_enter_tp->funcs))
		return false;
	f = rcu_dereference_sched(ftagent_sys_exit_tp->funcs);
	return !f || (f[0].func == (void *)ftagent_sys_exit && !f[1].func);
}

/*
 * A call whose entry noted its descriptors (FTAGENT_EW_KEYS): charge it
 * to them, and give the slot back. Off the fast path and its frame.
 */
static noinline notrace void ftagent_sys_exit_noted(struct ftagent_hook *hook,
						    struct pt_regs *regs,
						    long ret)
{
	unsigned long *slot = ftagent_unmark(current);
	struct ftagent_call_keys keys;
	bool noted = false;

	if (slot) {
		noted = READ_ONCE(*slot) & FTAGENT_MARK_KEYS;
		if (noted)
			keys = *ftagent_slot_keys(slot);
		ftagent_release(slot);
	}
	if (hook) {
		ftagent_hook_fired(hook);
		ftagent_account(hook->call, regs, ret, noted ? &keys : NULL);
	}
}

/*
 * The current task's mark, in its home bucket or spilled, or NULL; also
 * NULL before the tables are there. Unlike ftagent_unmark(), leaves the
 * spill count alone: the mark stays.
 */
static notrace unsigned long *ftagent_current_mark(void)
{
	struct task_struct *t = current;
	unsigned long home, *b;
	int i;

	/* Pairs with the start's release: the tables are there, zeroed. */
	if (!smp_load_acquire(&ftagent_pending_live))
		return NULL;
	home = ftagent_home(t);
	b = ftagent_bucket_at(home, 0);
	i = ftagent_mark_of(b, t);
	if (i >= 0)
		return &b[i];
	return atomic_read(&ftagent_pending_spills[home]) ?
		       ftagent_spilled_mark(t, home) : NULL;
}

struct ftagent_call_keys *ftagent_ftrace_call_keys(void)
{
	unsigned long *slot = ftagent_current_mark();

	if (!slot || !(READ_ONCE(*slot) & FTAGENT_MARK_KEYS))
		return NULL;
	return ftagent_slot_keys(slot);
}

/*
 * Whether this set saw the current task's call begin, so that its settle
 * will come: on the exit work the entry's own bit, else the task's mark
 * (which the entry makes only when it finds a slot).
 */
bool notrace ftagent_ftrace_call_seen(void)
{
	if (READ_ONCE(ftagent_ew_on))
		return READ_ONCE(*ftagent_syscall_work()) & FTAGENT_EW_SEEN;
	return ftagent_current_mark();
}

/*
 * Set the bit on every thread once after a probe no hook counted was
 * seen: tasks that cleared theirs before it was published would be
 * missed by it. Once per version of the probe arrays (below); the last
 * peer leaving asks for one too (the count drops before the kernel
 * removes its probe), a walk that costs each thread one exit work.
 */
static void ftagent_sys_repair(struct work_struct *work);
static DECLARE_WORK(ftagent_sys_repair_work, ftagent_sys_repair);
static bool ftagent_sys_stopping;
/*
 * The probe arrays (sys_enter's, sys_exit's) the last repair walk ran
 * for: each change of either is a new array, so one walk per version.
 * Compared, never followed.
 */
static const void *ftagent_sys_repaired[2];

static noinline notrace void ftagent_sys_heal(void)
{
	const void *enter = rcu_dereference_sched(ftagent_sys_enter_tp->funcs);
	const void *exit = rcu_dereference_sched(ftagent_sys_exit_tp->funcs);

	if (READ_ONCE(ftagent_sys_stopping) ||
	    (enter == READ_ONCE(ftagent_sys_repaired[0]) &&
	     exit == READ_ONCE(ftagent_sys_repaired[1])))
		return;
	schedule_work(&ftagent_sys_repair_work);
}

/* Another user needs the bit after all: keep it, and heal if uncounted. */
static noinline notrace void ftagent_sys_keep(void)
{
	set_syscall_work(SYSCALL_TRACEPOINT);
	if (!atomic_read(&ftagent_sys_others))
		ftagent_sys_heal();
}

static __always_inline void ftagent_sys_exit_work(struct pt_regs *regs,
						  long ret)
{
	unsigned long *work = ftagent_syscall_work();
	unsigned long own = READ_ONCE(*work) & FTAGENT_EW_OWN;
	struct ftagent_hook *hook;

	if (own & FTAGENT_EW_SEEN) {
		hook = ftagent_hook_for(regs);
		if (unlikely(own & FTAGENT_EW_KEYS)) {
			ftagent_sys_exit_noted(hook, regs, ret);
		} else if (hook) {
			ftagent_hook_fired(hook);
			ftagent_account(hook->call, regs, ret, NULL);
		}
	}
	/*
	 * Not a call of ftagent's, and another user's bit: leave it. (A
	 * call of ftagent's with another user present clears and sets the
	 * bit back below: two atomic operations there, to keep the test
	 * off the path of every traced call when ftagent is alone.)
	 */
	if (unlikely(!own) &&
	    (atomic_read(&ftagent_sys_others) || !ftagent_sys_alone())) {
		if (!atomic_read(&ftagent_sys_others))
			ftagent_sys_heal();
		return;
	}
	/*
	 * Clear, full barrier, then look. A registration counts its probe,
	 * then sets every thread's bit (ftagent_sys_reg(): count, barrier,
	 * set); a probe no hook counted is published before any repair walk
	 * for it. Either this sees the count or the probe, or the other side
	 * sets the bit after this cleared it.
	 */
	atomic_long_andnot(FTAGENT_EW_MARK | FTAGENT_EW_KEYS,
			   (atomic_long_t *)work);
	/*
	 * Pairs with ftagent_sys_reg()'s count, barrier, walk, and with the
	 * repair's read of the arrays before its walk.
	 */
	smp_mb__after_atomic();
	if (unlikely(atomic_read(&ftagent_sys_others) || !ftagent_sys_alone()))
		ftagent_sys_keep();
}

/*
 * 6.1 and 6.12 run syscall tracepoint probes with preemption off, which
 * the per-CPU counters and caches and the RCU-sched reads above rely on.
 * Later kernels may run them preemptible (faultable syscall
 * tracepoints), and no macro marks those reliably: turn it off here on
 * every kernel, nested where it is off already (three instructions).
 */
static void notrace ftagent_sys_exit(void *data, struct pt_regs *regs,
				     long ret)
{
	preempt_disable_notrace();
	ftagent_sys_exit_work(regs, ret);
	preempt_enable_notrace();
}

static notrace void ftagent_sys_bits_all(void)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t)
		set_task_syscall_work(t, SYSCALL_TRACEPOINT);
	rcu_read_unlock();
}

static void ftagent_sys_repair(struct work_struct *work)
{
	const void *enter, *exit;

	rcu_read_lock_sched();
	enter = rcu_dereference_sched(ftagent_sys_enter_tp->funcs);
	exit = rcu_dereference_sched(ftagent_sys_exit_tp->funcs);
	rcu_read_unlock_sched();
	/*
	 * Marked before the walk, so that exits meanwhile do not queue it
	 * again for the same version: a task that cleared its bit before
	 * this version was published is set by the walk below; one that
	 * clears later sees the version and keeps it. A version published
	 * since asks again. (An array freed and another allocated at the
	 * same address would look repaired: it takes an uncounted probe,
	 * which only the start's race makes, and that reuse at once.)
	 */
	WRITE_ONCE(ftagent_sys_repaired[0], enter);
	WRITE_ONCE(ftagent_sys_repaired[1], exit);
	/* The arrays read before any bit is set: pairs with the exit's. */
	smp_mb();
	ftagent_sys_bits_all();
}

/*
 * Clear every thread's FTAGENT_EW_SEEN and _KEYS, with no entry hook or
 * probe on: a task blocked in a traced call when they went kept them, and
 * its next calls must not look seen (or noted) to a later load.
 */
static void ftagent_ew_seen_clear_all(void)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t)
		atomic_long_andnot(FTAGENT_EW_OWN,
				   (atomic_long_t *)&task_thread_info(t)->syscall_work);
	rcu_read_unlock();
}

static notrace bool ftagent_sys_tp(unsigned long tp, unsigned long probe)
{
	return (tp == (unsigned long)ftagent_sys_enter_tp ||
		tp == (unsigned long)ftagent_sys_exit_tp) &&
	       probe != (unsigned long)ftagent_sys_exit;
}

#ifdef ftrace_regs_get_argument
#define FTAGENT_FARG(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define FTAGENT_FARG(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

static void notrace ftagent_sys_reg(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	unsigned long tp = FTAGENT_FARG(fregs, 0);
	unsigned long probe = FTAGENT_FARG(fregs, 1);
	bool noted, full;

	if (!ftagent_sys_tp(tp, probe))
		return;
	raw_spin_lock(&ftagent_sys_lock);
	noted = ftagent_sys_note(tp, probe, FTAGENT_FARG(fregs, 2));
	if (noted)
		atomic_inc(&ftagent_sys_others);
	full = ftagent_sys_nprobes == FTAGENT_SYS_PROBES;
	raw_spin_unlock(&ftagent_sys_lock);
	if (unlikely(full))
		pr_warn_once("exit work: %d syscall tracepoint probes or more: those past them stay counted until unload\n",
			     FTAGENT_SYS_PROBES);
	/*
	 * Noted already: the noting walked (a register function that calls
	 * another reaches this twice). Callbacks run with preemption off,
	 * so the walk is one non-preemptible pass over the threads.
	 */
	if (!noted)
		return;
	/* Pairs with the exit probe's clear, barrier, read of the count. */
	smp_mb();
	ftagent_sys_bits_all();
}

static void notrace ftagent_sys_unreg(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	unsigned long tp = FTAGENT_FARG(fregs, 0);
	unsigned long probe = FTAGENT_FARG(fregs, 1);

	if (!ftagent_sys_tp(tp, probe))
		return;
	/*
	 * Before the kernel removes the probe: until it does, the count is
	 * one short, and ftagent_sys_alone() (the probe still published)
	 * keeps the bits. Once it is gone, each task clears its own bit on
	 * its way out (ftagent's probe keeps the kernel's count of syscall
	 * tracepoint users above 0, so the kernel does not).
	 */
	raw_spin_lock(&ftagent_sys_lock);
	if (ftagent_sys_forget(tp, probe, FTAGENT_FARG(fregs, 2)))
		atomic_dec(&ftagent_sys_others);
	raw_spin_unlock(&ftagent_sys_lock);
}

/*
 * A child forked while the hook walked the threads may have missed it.
 * And the child starts with none of ftagent's own bits: it copied its
 * parent's word (arch_dup_task_struct()), and a walk that clears them
 * (ftagent_ew_seen_clear_all()) can miss a child being forked. The child
 * has not run yet.
 */
static void notrace ftagent_sys_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	atomic_long_andnot(FTAGENT_EW_OWN,
			   (atomic_long_t *)&task_thread_info(child)->syscall_work);
	/*
	 * The child is on the task list: pairs with ftagent_sys_reg(). A
	 * probe no hook counted: a repair walk may have passed before the
	 * child was linked, with the parent's bit (which it copied) clear.
	 */
	smp_mb();
	if (atomic_read(&ftagent_sys_others) || !ftagent_sys_alone())
		set_task_syscall_work(child, SYSCALL_TRACEPOINT);
}

/*
 * PERMANENT: kernel.ftrace_enabled=0 would silence them while peers come
 * and go, and a peer registered meanwhile would miss calls; with it set,
 * the sysctl is refused (EBUSY) while they are on, as for a livepatch.
 */
static struct ftrace_ops ftagent_sys_reg_ops = {
	.func = ftagent_sys_reg,
	.flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_PERMANENT,
};

static struct ftrace_ops ftagent_sys_unreg_ops = {
	.func = ftagent_sys_unreg,
	.flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_PERMANENT,
};

static const char * const ftagent_sys_reg_points[] = {
	"tracepoint_probe_register",
	"tracepoint_probe_register_prio",
	"tracepoint_probe_register_prio_may_exist",
};

/* Note the other users' probes on @tp now. */
static void ftagent_tp_other_probes(struct tracepoint *tp)
{
	struct tracepoint_func *f;

	rcu_read_lock_sched();
	raw_spin_lock(&ftagent_sys_lock);
	f = rcu_dereference_sched(tp->funcs);
	for (; f && f->func; f++)
		if (f->func != (void *)ftagent_sys_exit &&
		    ftagent_sys_note((unsigned long)tp, (unsigned long)f->func,
				     (unsigned long)f->data))
			atomic_inc(&ftagent_sys_others);
	raw_spin_unlock(&ftagent_sys_lock);
	rcu_read_unlock_sched();
}

/*
 * Take the counting ops off; one ftrace would not let go of stays, with
 * the module (ftagent_stuck()), as the default path's sets do.
 */
static void ftagent_ew_unregister(struct ftrace_ops *ops)
{
	int err = unregister_ftrace_function(ops);

	if (err)
		ftagent_stuck("tracepoint-counting", err);
	else
		ftagent_reset_filter(ops);
}

static void ftagent_ew_stop(void)
{
	bool alone;

	/*
	 * No repair walk after the probe goes: the kernel clears every
	 * thread's bit when the last syscall tracepoint probe leaves, and a
	 * walk after that would leave them set with no probe to clear them.
	 * The wait lets a probe past the flag finish asking.
	 */
	WRITE_ONCE(ftagent_sys_stopping, true);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&ftagent_sys_repair_work);
	/*
	 * The walk a cancelled repair would have made, made here while
	 * ftagent's probe still holds the kernel's count, whenever anyone
	 * else may be there: a peer published after some thread cleared its
	 * bit would otherwise miss that thread's calls until the kernel's
	 * count next drops to 0. If the peer leaves meanwhile, the kernel's
	 * own clearing walk comes after this one (ftagent's probe goes
	 * below), so no bit is left set with no probe.
	 */
	rcu_read_lock_sched();
	alone = ftagent_sys_alone();
	rcu_read_unlock_sched();
	if (!alone || atomic_read(&ftagent_sys_others))
		ftagent_sys_bits_all();
	tracepoint_probe_unregister(ftagent_sys_exit_tp, ftagent_sys_exit,
				    NULL);
	tracepoint_synchronize_unregister();
	ftagent_ew_unregister(&ftagent_sys_reg_ops);
	ftagent_ew_unregister(&ftagent_sys_unreg_ops);
	/* Last: a registration the ops counted may still be walking. */
	tracepoint_probe_unregister(ftagent_fork_tp, ftagent_sys_fork, NULL);
	tracepoint_synchronize_unregister();
	/* Entry hooks that ftrace would not take off may still mark. */
	if (!ftagent_ftrace_stuck)
		ftagent_ew_seen_clear_all();
}

static int ftagent_ew_start(void)
{
	unsigned int i;
	int err;

	/*
	 * The internals the set is declared to need (symbols.c) are those of
	 * the settle; kept as the condition here too so that the fallback to
	 * the kprobe set behaves alike in both modes.
	 */
	if (ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET))
		return -ENOENT;
	ftagent_sys_enter_tp = ftagent_tracepoint("sys_enter");
	ftagent_sys_exit_tp = ftagent_tracepoint("sys_exit");
	ftagent_fork_tp = ftagent_tracepoint("sched_process_fork");
	if (!ftagent_sys_enter_tp || !ftagent_sys_exit_tp || !ftagent_fork_tp)
		return -ENOENT;
	atomic_set(&ftagent_sys_others, 0);
	ftagent_sys_nprobes = 0;
	ftagent_sys_repaired[0] = NULL;
	ftagent_sys_repaired[1] = NULL;
	ftagent_sys_stopping = false;
	for (i = 0; i < ARRAY_SIZE(ftagent_sys_reg_points); i++) {
		err = ftagent_ftrace_filter(&ftagent_sys_reg_ops,
					    ftagent_sys_reg_points[i]);
		if (err)
			goto err_filter;
	}
	err = ftagent_ftrace_filter(&ftagent_sys_unreg_ops,
				    "tracepoint_probe_unregister");
	if (err)
		goto err_filter;
	/*
	 * The fork probe first: a registration the ops see walks the
	 * threads, and a child born meanwhile is left to the fork probe.
	 */
	err = tracepoint_probe_register(ftagent_fork_tp, ftagent_sys_fork,
					NULL);
	if (err)
		goto err_filter;
	/*
	 * No entry hook is on yet: whatever is set is not this load's. After
	 * the fork probe, which clears a child the walk misses.
	 */
	ftagent_ew_seen_clear_all();
	/* -EBUSY: PERMANENT ops, and kernel.ftrace_enabled is 0. */
	err = ftagent_ftrace_on(&ftagent_sys_reg_ops);
	if (err)
		goto err_fork;
	err = ftagent_ftrace_on(&ftagent_sys_unreg_ops);
	if (err)
		goto err_reg;
	/*
	 * The hooks are live: note what was there before them. A probe the
	 * hooks saw is noted once. One whose registration passed the hooked
	 * entry before the hooks were on, and is published after this, is
	 * counted by no one: ftagent_sys_alone() and the repair walk cover it.
	 */
	ftagent_tp_other_probes(ftagent_sys_enter_tp);
	ftagent_tp_other_probes(ftagent_sys_exit_tp);
	/*
	 * May run syscall_regfunc(), which sets the bit on every thread
	 * when no other user has: each clears its own on its next return.
	 */
	err = tracepoint_probe_register(ftagent_sys_exit_tp, ftagent_sys_exit,
					NULL);
	if (err)
		goto err_unreg;
	return 0;

	/*
	 * An ops ftrace would not take off keeps its filter (emptied, it
	 * would trace every function): ftagent_ew_unregister() resets only
	 * what it took off.
	 */
err_unreg:
	ftagent_ew_unregister(&ftagent_sys_unreg_ops);
	ftagent_ew_unregister(&ftagent_sys_reg_ops);
	goto err_fork_probe;
err_reg:
	ftagent_ew_unregister(&ftagent_sys_reg_ops);
	ftagent_reset_filter(&ftagent_sys_unreg_ops);
	goto err_fork_probe;
err_fork:
	ftagent_reset_filter(&ftagent_sys_reg_ops);
	ftagent_reset_filter(&ftagent_sys_unreg_ops);
err_fork_probe:
	tracepoint_probe_unregister(ftagent_fork_tp, ftagent_sys_fork, NULL);
	tracepoint_synchronize_unregister();
	return err;
err_filter:
	ftagent_reset_filter(&ftagent_sys_reg_ops);
	ftagent_reset_filter(&ftagent_sys_unreg_ops);
	return err;
}

/* The table and what its slots noted. No callback may run. */
static void ftagent_pending_free(void)
{
	/* The gate's readers (ftagent_ftrace_call_keys()) run no more. */
	if (READ_ONCE(ftagent_pending_live)) {
		WRITE_ONCE(ftagent_pending_live, false);
		synchronize_rcu();
	}
	kvfree(ftagent_pending);
	kvfree(ftagent_pending_spills);
	kvfree(ftagent_pending_keys);
	ftagent_pending = NULL;
	ftagent_pending_spills = NULL;
	ftagent_pending_keys = NULL;
	WRITE_ONCE(ftagent_pending_bytes, 0);
}

static int ftagent_ftrace_start(void)
{
	unsigned int i;
	int err;

	if (ftagent_ftrace_stuck)
		return -EBUSY;	/* the set that would not go is still there */
	ftagent_ew_on = false;
	/* The exit work uses the table for the calls that note descriptors. */
	ftagent_pending = kvcalloc(FTAGENT_PENDING_SLOTS, sizeof(long),
				   GFP_KERNEL);
	ftagent_pending_spills = kvcalloc(FTAGENT_PENDING_BUCKETS,
					  sizeof(*ftagent_pending_spills),
					  GFP_KERNEL);
	ftagent_pending_keys = kvcalloc(FTAGENT_PENDING_SLOTS,
					sizeof(*ftagent_pending_keys),
					GFP_KERNEL);
	if (!ftagent_pending || !ftagent_pending_spills ||
	    !ftagent_pending_keys) {
		ftagent_pending_free();
		return -ENOMEM;
	}
	WRITE_ONCE(ftagent_pending_bytes,
		   ftagent_kv_bytes(ftagent_pending,
				    FTAGENT_PENDING_SLOTS * sizeof(long)) +
		   ftagent_kv_bytes(ftagent_pending_spills,
				    FTAGENT_PENDING_BUCKETS *
				    sizeof(*ftagent_pending_spills)) +
		   ftagent_kv_bytes(ftagent_pending_keys,
				    FTAGENT_PENDING_SLOTS *
				    sizeof(*ftagent_pending_keys)));

	ftagent_exit_tp = ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET) ?
			  NULL : ftagent_tracepoint("sched_process_exit");
	if (!ftagent_exit_tp) {
		pr_err("ftrace hooks: no sched_process_exit tracepoint\n");
		err = -ENOENT;
		goto err_free;
	}
	err = tracepoint_probe_register(ftagent_exit_tp, ftagent_task_exit,
					NULL);
	if (err)
		goto err_free;
	if (exit_work) {
		err = ftagent_ew_start();
		if (!err) {
			ftagent_entry_ops.func = ftagent_entry_ew;
			ftagent_entry_direct_set.tramp = ftagent_entry_ew_tramp;
			ftagent_ew_on = true;
			/* The tables first: ftagent_ftrace_call_keys(). */
			smp_store_release(&ftagent_pending_live, true);
			return 0;
		}
		if (err == -ENOMEM || ftagent_ftrace_stuck)
			goto err_exit_tp;
		/*
		 * No syscall tracepoint to share, or kernel.ftrace_enabled
		 * is 0, which the exit work's PERMANENT ops need at 1. The
		 * settle below sees the same calls, for more per call; with
		 * the sysctl at 0 it sees none until it is set back (as
		 * every ftrace user), and stays the settle until the next
		 * attach.
		 */
		if (err == -EBUSY)
			pr_warn("ftrace hooks: kernel.ftrace_enabled is 0: nothing is seen until it is 1, then returns are settled through TIF_NOTIFY_RESUME until the next attach\n");
		else
			pr_info("ftrace hooks: exit work unavailable (%d), settling through TIF_NOTIFY_RESUME\n",
				err);
	}
	ftagent_entry_ops.func = ftagent_entry;
	ftagent_entry_direct_set.tramp = ftagent_entry_tramp;

	for (i = 0; i < ARRAY_SIZE(ftagent_settle_points); i++) {
		err = ftagent_filter_both(&ftagent_settle_ops,
					  &ftagent_settle_direct_set,
					  ftagent_settle_points[i]);
		if (err) {
			pr_err("ftrace hooks: cannot trace %s: %d\n",
			       ftagent_settle_points[i], err);
			goto err_filter;
		}
	}
	err = ftagent_register(&ftagent_settle_ops, &ftagent_settle_direct_set);
	if (err)
		goto err_filter;
	/* The tables first: ftagent_ftrace_call_keys(). */
	smp_store_release(&ftagent_pending_live, true);
	return 0;

err_filter:
	ftagent_reset_filter(&ftagent_settle_ops);
	ftagent_settle_direct_set.n = 0;
err_exit_tp:
	tracepoint_probe_unregister(ftagent_exit_tp, ftagent_task_exit, NULL);
	tracepoint_synchronize_unregister();
err_free:
	ftagent_pending_free();
	return err;
}

/*
 * The entry points' addresses, looked up once per module load. A filter
 * by name scans every traceable function in the kernel (a quarter of a
 * second under TCG), and each set is filtered twice (its plain and its
 * direct form): with the 58 entry points that made a load of the ftrace
 * set take 16 s in a TCG guest. A kprobe registered disabled is never
 * armed: registering it only looks the name up (kallsyms) and checks the
 * address, which ftrace_set_filter_ip() then takes without a scan. Where
 * that fails (no kprobes, a name kprobes refuse), the name is used.
 */
static unsigned long *ftagent_entry_ips;	/* [ftagent_nr_calls]; 0: none */
static bool ftagent_entry_ips_tried;

static int ftagent_resolve_entry_points(void)
{
#ifdef CONFIG_KPROBES
	struct kprobe *kps, **done;
	unsigned int i, n = 0;
	int err = 0;

	ftagent_entry_ips_tried = true;
	ftagent_entry_ips = kcalloc(ftagent_nr_calls, sizeof(*ftagent_entry_ips),
				    GFP_KERNEL);
	kps = kcalloc(ftagent_nr_calls, sizeof(*kps), GFP_KERNEL);
	done = kcalloc(ftagent_nr_calls, sizeof(*done), GFP_KERNEL);
	if (!ftagent_entry_ips || !kps || !done) {
		/*
		 * Tried again at the next attach, not by name for good; this
		 * attach fails whole (ftagent_setup_fails()).
		 */
		kfree(ftagent_entry_ips);
		ftagent_entry_ips = NULL;
		ftagent_entry_ips_tried = false;
		err = -ENOMEM;
	} else {
		for (i = 0; i < ftagent_nr_calls; i++) {
			kps[i].symbol_name = ftagent_calls[i].symbol;
			kps[i].flags = KPROBE_FLAG_DISABLED;
			if (register_kprobe(&kps[i]))
				continue;
			ftagent_entry_ips[i] = (unsigned long)kps[i].addr;
			done[n++] = &kps[i];
		}
		/* One grace period for all of them. */
		if (n)
			unregister_kprobes(done, n);
	}
	kfree(done);
	kfree(kps);
	return err;
#else
	ftagent_entry_ips_tried = true;
	return 0;
#endif
}

static int ftagent_ftrace_attach(struct ftagent_hook *hook)
{
	struct ftagent_direct_set *d = &ftagent_entry_direct_set;
	unsigned long ip;
	int err;

	if (!ftagent_entry_ips_tried) {
		err = ftagent_resolve_entry_points();
		if (err)
			return err;
	}
	ip = ftagent_entry_ips ? ftagent_entry_ips[hook->index] : 0;
	if (ip && d->n + d->n_ips < FTAGENT_DIRECT_MAX) {
		err = ftrace_set_filter_ip(&ftagent_entry_ops, ip, 0, 0);
		if (!err) {
			/*
			 * Once per direct set (the ops' filter is a set too):
			 * the same function in two of its ops would have the
			 * second refused, and the whole set on the slow path.
			 */
			if (!ftagent_direct_has_ip(d, ip))
				d->ips[d->n_ips++] = ip;
			ftagent_entry_filters++;
			return 0;
		}
		/* Out of memory is not "try the name": the attach fails. */
		if (err == -ENOMEM)
			return err;
	}
	err = ftagent_filter_both(&ftagent_entry_ops, d, hook->call->symbol);
	if (!err)
		ftagent_entry_filters++;
	return err;
}

static int ftagent_ftrace_commit(void)
{
	/* An ops without a filter would trace every function in the kernel. */
	if (!ftagent_entry_filters)
		return -ENOENT;
	return ftagent_register(&ftagent_entry_ops, &ftagent_entry_direct_set);
}

static void ftagent_ftrace_detach(struct ftagent_hook **hooks, unsigned int n)
{
	ftagent_unregister(&ftagent_entry_ops, &ftagent_entry_direct_set);
}

static void ftagent_ftrace_stop(void)
{
	if (ftagent_ew_on) {
		ftagent_ew_on = false;
		/*
		 * A set ftrace would not detach keeps its filter (emptied, it
		 * would trace every function). The probes do not depend on
		 * ftrace and use what the unload frees: off in any case.
		 */
		if (!ftagent_ftrace_stuck) {
			ftagent_reset_filter(&ftagent_entry_ops);
			ftagent_entry_direct_set.n = 0;
			ftagent_entry_direct_set.n_ips = 0;
			ftagent_entry_filters = 0;
		}
		ftagent_ew_stop();
		/* Stuck entry hooks may still claim slots: keep the table. */
		if (ftagent_ftrace_stuck)
			return;
		tracepoint_probe_unregister(ftagent_exit_tp, ftagent_task_exit,
					    NULL);
		tracepoint_synchronize_unregister();
		ftagent_pending_free();
		return;
	}
	ftagent_unregister(&ftagent_settle_ops, &ftagent_settle_direct_set);
	/*
	 * A set ftrace would not detach may still call the callbacks: leave
	 * them the table and the exit probe they use, for good.
	 */
	if (ftagent_ftrace_stuck)
		return;
	ftagent_reset_filter(&ftagent_entry_ops);
	ftagent_reset_filter(&ftagent_settle_ops);
	ftagent_entry_direct_set.n = 0;
	ftagent_entry_direct_set.n_ips = 0;
	ftagent_settle_direct_set.n = 0;
	ftagent_entry_filters = 0;
	tracepoint_probe_unregister(ftagent_exit_tp, ftagent_task_exit, NULL);
	tracepoint_synchronize_unregister();
	/* Calls still in flight are not settled by anyone now: forget them. */
	ftagent_pending_free();
}

/* Module exit: the ops are never used again. */
static void ftagent_ftrace_release(struct ftagent_hook *hooks,
				   unsigned int n)
{
	/* ftrace never saw this array: it goes whatever ftrace keeps. */
	kfree(ftagent_entry_ips);
	ftagent_entry_ips = NULL;
	if (ftagent_ftrace_stuck)
		return;
	ftrace_free_filter(&ftagent_entry_ops);
	ftrace_free_filter(&ftagent_settle_ops);
	ftrace_free_filter(&ftagent_sys_reg_ops);
	ftrace_free_filter(&ftagent_sys_unreg_ops);
}

/* The in-flight table while the set runs, and the entry addresses. */
static size_t ftagent_ftrace_memory(void)
{
	return READ_ONCE(ftagent_pending_bytes) +
	       (READ_ONCE(ftagent_entry_ips) ?
		kmalloc_size_roundup(ftagent_nr_calls *
				     sizeof(*ftagent_entry_ips)) : 0);
}

const struct ftagent_hook_driver ftagent_ftrace_driver = {
	.kind = FTAGENT_HOOKS_FTRACE,
	.memory = ftagent_ftrace_memory,
	.start = ftagent_ftrace_start,
	.attach = ftagent_ftrace_attach,
	.commit = ftagent_ftrace_commit,
	.detach = ftagent_ftrace_detach,
	.stop = ftagent_ftrace_stop,
	.release = ftagent_ftrace_release,
};
