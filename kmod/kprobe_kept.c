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
 * disarms every probe skip it. Until the mark, the kernel itself may
 * still reach a kept probe that shares its address with another probe
 * (the aggregate's list), return-hook state freed: the window is the
 * kernel's; the mark comes first, before any logging, to keep it short.
 * Disabling each probe before unregistering it (disable_kprobe()) would
 * close it, at a price: a probe whose disarm failed is still armed and
 * must be left registered, handlers live, with the module pinned until
 * reboot, and a second attempt (at unload, where nothing can be pinned)
 * decrements kprobes' count of armed ftrace probes twice, which leaves
 * later probes unarmed. Keeping the kernel's choice costs a leak only.
 *
 * kprobe_mutex is not exported: the mark is a plain store. The kernel
 * writes a probe's flags under that mutex, on a request for the probe
 * (none are left for a kept one) or when a module whose code holds the
 * probe's address goes (never, without an address).
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
