// SPDX-License-Identifier: GPL-2.0
/*
 * mech.ko — a throwaway experiment, not part of ftagent.ko: what the
 * kernel's own hook mechanisms cost per traced call, measured with the
 * same ftbench loops as ftagent (tools/bench/experiments/README.md).
 *
 * One mechanism per load (mech=):
 *   floor   an ftrace_ops entry callback on __x64_sys_pread64 and
 *           __x64_sys_sendto that bumps a per-CPU counter: the least any
 *           ftrace hook can cost;
 *   fprobe  an fprobe (ftrace entry + rethook exit) on the same two
 *           functions: the entry handler keeps the descriptor in the
 *           entry data, the exit handler adds the return value (bytes)
 *           to per-CPU counters, which is what ftagent's entry hook and
 *           settle hook do between them;
 *   tp      the sock_send_length and sock_recv_length tracepoints (6.5+),
 *           a probe adding the byte count to per-CPU counters: socket
 *           byte counts without any syscall hook.
 *
 * The two return paths issue 16 weighs (docs/design/return-path.md), each
 * at its least: a direct call at the entry, the call's result added to
 * the same per-CPU counters, nothing else:
 *   ew      candidate 1, the kernel's syscall exit work: the direct call
 *           sets the task's SYSCALL_TRACEPOINT work bit and a bit of its
 *           own, a sys_exit tracepoint probe takes the result and clears
 *           both (no other user of the tracepoint is assumed: this is a
 *           floor, not ftagent's coexistence logic);
 *   ct      candidate 2, a call-through trampoline: the direct call calls
 *           the traced function's body, takes its result, and returns to
 *           the function's caller itself, as a BPF fexit trampoline does.
 *           Not unload-safe: a task blocked in a hooked call at rmmod
 *           would return into freed text (the design note says what
 *           that would take). The bench has none.
 *
 * The counts (hits, bytes) are read back through the module parameters,
 * so a hook that did not fire cannot look free.
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/fprobe.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/tracepoint.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/objtool.h>
#include <linux/thread_info.h>
#include <linux/entry-common.h>
#include <asm/nospec-branch.h>
#include <net/sock.h>

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

static char *mech = "floor";
module_param(mech, charp, 0444);
MODULE_PARM_DESC(mech, "floor | fprobe | tp | ew | ct");

static DEFINE_PER_CPU(unsigned long, hits);
static DEFINE_PER_CPU(unsigned long, bytes);

static unsigned long sum(unsigned long __percpu *v)
{
	unsigned long s = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		s += *per_cpu_ptr(v, cpu);
	return s;
}

static int get_hits(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", sum(&hits));
}

static int get_bytes(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", sum(&bytes));
}

static const struct kernel_param_ops hits_ops = { .get = get_hits };
static const struct kernel_param_ops bytes_ops = { .get = get_bytes };
module_param_cb(hits, &hits_ops, NULL, 0444);
module_param_cb(bytes, &bytes_ops, NULL, 0444);

static const char *const syms[] = { "__x64_sys_pread64", "__x64_sys_sendto" };

/* floor */
static void floor_cb(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	this_cpu_inc(hits);
}

static struct ftrace_ops floor_ops = {
	.func = floor_cb,
	/* The callback is recursion-safe: no ftrace recursion wrapper. */
	.flags = FTRACE_OPS_FL_RECURSION,
};

/* fprobe: the handlers' signature is 6.5's (ret_ip and entry data). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
/* register_fprobe_syms() sorts the array it is given: a writable copy. */
static const char *fprobe_syms[ARRAY_SIZE(syms)];

static int fp_entry(struct fprobe *fp, unsigned long entry_ip,
		    unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	/* __x64_sys_*(const struct pt_regs *uregs): the descriptor is di. */
	const struct pt_regs *uregs = (const struct pt_regs *)regs->di;

	*(unsigned long *)data = uregs->di;
	this_cpu_inc(hits);
	return 0;
}

static void fp_exit(struct fprobe *fp, unsigned long entry_ip,
		    unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	long ret = regs_return_value(regs);

	if (ret > 0 && *(unsigned long *)data < (1UL << 31))
		this_cpu_add(bytes, ret);
}

static struct fprobe fprobe = {
	.entry_handler = fp_entry,
	.exit_handler = fp_exit,
	.entry_data_size = sizeof(unsigned long),
};

#endif

/* ew and ct: one direct-call ops on the same two functions. */
static struct ftrace_ops direct_ops;

static int direct_register(unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return register_ftrace_direct(&direct_ops, addr);
#else
	return register_ftrace_direct_multi(&direct_ops, addr);
#endif
}

static void direct_unregister(unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	unregister_ftrace_direct(&direct_ops, addr, true);
#else
	unregister_ftrace_direct_multi(&direct_ops, addr);
#endif
}

/* ew: ftagent's own bit of syscall_work, outside the kernel's masks. */
#define EW_SEEN		BIT(BITS_PER_LONG - 1)
#define EW_MARK		(EW_SEEN | SYSCALL_WORK_SYSCALL_TRACEPOINT)
static_assert(!(EW_SEEN & (SYSCALL_WORK_ENTER | SYSCALL_WORK_EXIT)));

void ew_entry(void);
void ew_tramp(void);

/* The direct caller: the syscall wrapper's one argument (%rdi) is kept. */
asm("	.pushsection	.text, \"ax\", @progbits\n"
	"	.type	ew_tramp, @function\n"
	"ew_tramp:\n"
	ASM_ENDBR
	"	pushq	%rbp\n"
	"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
	"	pushq	%rdi\n"
	"	call	ew_entry\n"
	"	popq	%rdi\n"
	"	leave\n"
	ASM_RET
	"	.size	ew_tramp, .-ew_tramp\n"
	"	.popsection\n");

void notrace ew_entry(void)
{
	unsigned long *work = &current_thread_info()->syscall_work;

	if ((READ_ONCE(*work) & EW_MARK) != EW_MARK)
		atomic_long_or(EW_MARK, (atomic_long_t *)work);
}

static struct tracepoint *tp_sys_exit;

static void notrace ew_probe(void *data, struct pt_regs *regs, long ret)
{
	unsigned long *work = &current_thread_info()->syscall_work;

	if (READ_ONCE(*work) & EW_SEEN) {
		this_cpu_inc(hits);
		if (ret > 0)
			this_cpu_add(bytes, ret);
	}
	/* Also the bit the registration set on every thread: alone here. */
	atomic_long_andnot(EW_MARK, (atomic_long_t *)work);
}

/*
 * ct: called from the hooked function's first instruction, so the return
 * address at (%rsp) is its body, and the one above it the caller's. The
 * trampoline calls the body with the argument it was given, hands the
 * result to ct_exit(), then drops the body's address and returns to the
 * caller with the result. (BPF's trampoline calls the body with a direct
 * call it writes at attach time; this one calls it through a register,
 * a retpoline where the kernel has them on: a few instructions more.)
 */
void ct_exit(long ret);
void ct_tramp(void);

asm("	.pushsection	.text, \"ax\", @progbits\n"
	"	.type	ct_tramp, @function\n"
	"ct_tramp:\n"
	ASM_ENDBR
	"	pushq	%rbp\n"
	"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
	"	subq	$16, %rsp\n"
	"	movq	8(%rbp), %rax\n"
	"	call	__x86_indirect_thunk_rax\n"
	"	movq	%rax, -8(%rbp)\n"
	"	movq	%rax, %rdi\n"
	"	call	ct_exit\n"
	"	movq	-8(%rbp), %rax\n"
	"	leave\n"
	"	addq	$8, %rsp\n"
	ASM_RET
	"	.size	ct_tramp, .-ct_tramp\n"
	"	.popsection\n");

/*
 * Its last steps (drop a return address, then return) are not a frame
 * objtool knows, so it has no ORC data: a stack through it is not
 * reliably unwound. A real one would need unwind hints for that.
 */
STACK_FRAME_NON_STANDARD(ct_tramp);

void notrace ct_exit(long ret)
{
	this_cpu_inc(hits);
	if (ret > 0)
		this_cpu_add(bytes, ret);
}

static int direct_start(unsigned long tramp)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		ret = ftrace_set_filter(&direct_ops, (unsigned char *)syms[i],
					strlen(syms[i]), 0);
		if (ret)
			return ret;
	}
	return direct_register(tramp);
}

/* tp */
static struct tracepoint *tp_send, *tp_recv;

static void tp_probe(void *data, struct sock *sk, int ret, int flags)
{
	this_cpu_inc(hits);
	if (ret > 0)
		this_cpu_add(bytes, ret);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sock_send_length"))
		tp_send = tp;
	else if (!strcmp(tp->name, "sock_recv_length"))
		tp_recv = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		tp_sys_exit = tp;
}

static int __init mech_init(void)
{
	int i, ret;

	if (!strcmp(mech, "floor")) {
		for (i = 0; i < ARRAY_SIZE(syms); i++) {
			ret = ftrace_set_filter(&floor_ops, (unsigned char *)syms[i],
						strlen(syms[i]), 0);
			if (ret)
				return ret;
		}
		return register_ftrace_function(&floor_ops);
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	if (!strcmp(mech, "fprobe")) {
		memcpy(fprobe_syms, syms, sizeof(syms));
		return register_fprobe_syms(&fprobe, fprobe_syms,
					    ARRAY_SIZE(fprobe_syms));
	}
#endif
	if (!strcmp(mech, "ew")) {
		for_each_kernel_tracepoint(find_tp, NULL);
		if (!tp_sys_exit)
			return -ENOENT;
		ret = tracepoint_probe_register(tp_sys_exit, ew_probe, NULL);
		if (ret)
			return ret;
		ret = direct_start((unsigned long)ew_tramp);
		if (ret) {
			tracepoint_probe_unregister(tp_sys_exit, ew_probe, NULL);
			tracepoint_synchronize_unregister();
		}
		return ret;
	}
	if (!strcmp(mech, "ct"))
		return direct_start((unsigned long)ct_tramp);
	if (!strcmp(mech, "tp")) {
		for_each_kernel_tracepoint(find_tp, NULL);
		if (!tp_send || !tp_recv)
			return -ENOENT;
		ret = tracepoint_probe_register(tp_send, tp_probe, NULL);
		if (ret)
			return ret;
		ret = tracepoint_probe_register(tp_recv, tp_probe, NULL);
		if (ret)
			tracepoint_probe_unregister(tp_send, tp_probe, NULL);
		return ret;
	}
	return -EINVAL;
}

static void __exit mech_exit(void)
{
	if (!strcmp(mech, "floor")) {
		unregister_ftrace_function(&floor_ops);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	} else if (!strcmp(mech, "fprobe")) {
		unregister_fprobe(&fprobe);
#endif
	} else if (!strcmp(mech, "ew")) {
		direct_unregister((unsigned long)ew_tramp);
		tracepoint_probe_unregister(tp_sys_exit, ew_probe, NULL);
		tracepoint_synchronize_unregister();
	} else if (!strcmp(mech, "ct")) {
		direct_unregister((unsigned long)ct_tramp);
	} else {
		tracepoint_probe_unregister(tp_send, tp_probe, NULL);
		tracepoint_probe_unregister(tp_recv, tp_probe, NULL);
		tracepoint_synchronize_unregister();
	}
}

module_init(mech_init);
module_exit(mech_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ftagent bench experiment: per-call cost of hook mechanisms");
