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
#include <net/sock.h>

static char *mech = "floor";
module_param(mech, charp, 0444);
MODULE_PARM_DESC(mech, "floor | fprobe | tp");

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
/* register_fprobe_syms() sorts the array it is given: a writable copy. */
static const char *fprobe_syms[ARRAY_SIZE(syms)];

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

/* fprobe */
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
	if (!strcmp(mech, "fprobe"))
	{
		memcpy(fprobe_syms, syms, sizeof(syms));
		return register_fprobe_syms(&fprobe, fprobe_syms,
					    ARRAY_SIZE(fprobe_syms));
	}
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
	} else if (!strcmp(mech, "fprobe")) {
		unregister_fprobe(&fprobe);
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
