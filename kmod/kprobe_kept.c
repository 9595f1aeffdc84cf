// SPDX-License-Identifier: GPL-2.0
/*
 * Kretprobes the kernel keeps after unregistering them.
 *
 * unregister_kretprobes() gives up on a probe it cannot disarm, and says
 * so only by clearing the probe's address: on a function's ftrace site,
 * disarming asks ftrace for a filter without that address, which takes
 * an allocation (-ENOMEM; kernel/kprobes.c __disarm_kprobe_ftrace() warns
 * "Failed to disarm kprobe-ftrace", the first time in a boot), and fails
 * for good once ftrace itself has failed (-ENODEV). The probe stays in
 * the kernel's kprobe table, linked through its own memory, which must
 * then stay allocated for good; the kernel has freed its return-hook
 * state already.
 *
 * Nothing calls the kept probe's handlers once it is marked disabled,
 * so the module may still go: no lookup matches a probe without an
 * address, and the disabled flag makes an aggregate probe that shares
 * its address (aggr_pre_handler()) and the debugfs switch that arms or
 * disarms every probe skip it. Disabling each probe before unregistering
 * it (disable_kprobe()) is not used: a probe whose disarm failed would
 * still be armed and have to stay registered, handlers live, with the
 * module pinned until reboot, and a second attempt (at unload, where
 * nothing can be pinned) would decrement kprobes' count of armed ftrace
 * probes twice, which leaves later probes unarmed. For a probe alone at
 * its address, keeping the kernel's choice costs a leak only.
 *
 * A kept probe that shares its address with another probe is a child of
 * the kernel's aggregate probe, and what is left there is the kernel's:
 * until the mark, the aggregate may still call the child, whose
 * return-hook state the kernel has freed (the mark comes first, before
 * any logging, to keep that window short); the aggregate itself stays
 * armed for good, kprobes' count of armed ftrace probes already one
 * short, which the debugfs disarm-all switch would make two.
 *
 * kprobe_mutex is not exported: the mark is a plain store. The kernel
 * writes a probe's flags under that mutex, on a request for the probe
 * (none are left for a kept one) or when the module whose code holds the
 * address goes (kill_kprobe(), by the aggregate's address for a child):
 * the functions probed here are the core kernel's, which never goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "kprobe_kept.h"

bool ftagent_kretprobe_let_go(struct kretprobe *rp)
{
	if (likely(rp->kp.addr))
		return true;
	WRITE_ONCE(rp->kp.flags, rp->kp.flags | KPROBE_FLAG_DISABLED);
	return false;
}

void ftagent_kprobes_kept_say(unsigned int n, const char *first)
{
	/* The leak is on purpose: the kernel's table still points to it. */
	pr_err("the kernel kept %u kprobe%s it could not disarm (%s first): the memory stays allocated until reboot\n",
	       n, n > 1 ? "s" : "", first);
}
