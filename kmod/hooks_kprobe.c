// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe hook set: one kretprobe per traced syscall entry point, for
 * kernels where the ftrace set can't attach.
 *
 * The arguments are still in the task's saved user registers when the
 * call returns. What the call's descriptors named at entry travels in
 * the instance, for a task whose descriptor table is shared (another
 * thread may close or reuse one meanwhile: callfiles.c). The return trampoline is core kernel
 * code: unregistering waits out running handlers, and a task that is
 * still blocked inside the call when the module goes returns through the
 * trampoline without touching module code. Each call in flight holds an
 * instance (maxactive per hook); a call that finds none is missed and
 * counted (kretprobe nmissed).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "account.h"
#include "callfiles.h"
#include "hooks.h"

static int ftagent_kret_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct ftagent_hook *hook =
		container_of(get_kretprobe(ri), struct ftagent_hook, rp);

	struct ftagent_call_keys *keys = (struct ftagent_call_keys *)ri->data;

	ftagent_hook_fired(hook);
	/* Kernel threads make no system calls of their own to count. */
	if (unlikely(current->flags & PF_KTHREAD))
		return 0;
	ftagent_account(hook->call, task_pt_regs(current),
			regs_return_value(regs),
			ftagent_call_keys_any(keys) ? keys : NULL);
	return 0;
}

/*
 * The call's body begins (hooks.h: ftagent_body_begins()); what its
 * descriptors name, if someone else could change them meanwhile.
 */
static int ftagent_kret_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct ftagent_hook *hook =
		container_of(get_kretprobe(ri), struct ftagent_hook, rp);
	struct ftagent_call_keys *keys = (struct ftagent_call_keys *)ri->data;

	keys->obj[0].kind = FTAGENT_OBJ_UNSPEC;
	if (current->flags & PF_KTHREAD)
		return 0;
	ftagent_body_begins(task_pt_regs(current));
	if (unlikely(ftagent_files_shared(current) ||
		     ftagent_in_socketcall(task_pt_regs(current))))
		ftagent_call_keys_fill(hook->call, task_pt_regs(current), keys);
	return 0;
}

static int ftagent_kprobe_attach(struct ftagent_hook *hook)
{
	memset(&hook->rp, 0, sizeof(hook->rp));
	hook->rp.kp.symbol_name = hook->call->symbol;
	hook->rp.entry_handler = ftagent_kret_entry;
	hook->rp.handler = ftagent_kret_handler;
	hook->rp.maxactive = hook->call->maxactive;
	hook->rp.data_size = sizeof(struct ftagent_call_keys);
	return register_kretprobe(&hook->rp);
}

/* Pointers for unregister_kretprobes(), which takes them in one batch. */
static struct kretprobe **ftagent_rps;

static int ftagent_kprobe_start(void)
{
	ftagent_rps = kcalloc(ftagent_nr_calls, sizeof(*ftagent_rps),
			      GFP_KERNEL);
	return ftagent_rps ? 0 : -ENOMEM;
}

static void ftagent_kprobe_stop(void)
{
	kfree(ftagent_rps);
	ftagent_rps = NULL;
}

static void ftagent_kprobe_detach(struct ftagent_hook **hooks, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ftagent_rps[i] = &hooks[i]->rp;
	unregister_kretprobes(ftagent_rps, n);
}

static u64 ftagent_kprobe_missed(struct ftagent_hook *hook)
{
	return hook->rp.nmissed + hook->rp.kp.nmissed;
}

const struct ftagent_hook_driver ftagent_kprobe_driver = {
	.kind = FTAGENT_HOOKS_KPROBE,
	.attach = ftagent_kprobe_attach,
	.detach = ftagent_kprobe_detach,
	.missed = ftagent_kprobe_missed,
	.start = ftagent_kprobe_start,
	.stop = ftagent_kprobe_stop,
};
