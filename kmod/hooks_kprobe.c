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
 *
 * Each hook's kretprobe has memory of its own, kept from one attach to
 * the next, because the kernel may keep it: unregister_kretprobes()
 * leaves a probe it cannot disarm in its table (kprobe_kept.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "account.h"
#include "callfiles.h"
#include "callsites.h"
#include "hooks.h"
#include "kprobe_kept.h"
#include "memory.h"

/* A hook's kretprobe, and the hook its handlers work for. */
struct ftagent_kprobe {
	struct kretprobe rp;
	struct ftagent_hook *hook;
	size_t bytes;		/* what rp holds while registered */
};

static struct ftagent_hook *ftagent_kret_hook(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct ftagent_kprobe, rp)->hook;
}

static int ftagent_kret_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct ftagent_hook *hook = ftagent_kret_hook(ri);

	struct ftagent_call_keys *keys = (struct ftagent_call_keys *)ri->data;

	ftagent_hook_fired(hook);
	/* Kernel threads make no system calls of their own to count. */
	if (unlikely(current->flags & PF_KTHREAD))
		return 0;
	/* Whatever this call noted: a bit left by a lost return goes too. */
	ftagent_call_noted_done();
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
	struct ftagent_hook *hook = ftagent_kret_hook(ri);
	struct ftagent_call_keys *keys = (struct ftagent_call_keys *)ri->data;

	keys->obj[0].kind = FTAGENT_OBJ_UNSPEC;
	if (current->flags & PF_KTHREAD)
		return 0;
	ftagent_body_begins(task_pt_regs(current));
	if (unlikely(ftagent_files_shared(current) ||
		     ftagent_in_socketcall(task_pt_regs(current)))) {
		ftagent_call_keys_fill(hook->call, task_pt_regs(current), keys);
		if (ftagent_call_keys_any(keys))
			ftagent_call_noted();
	}
	return 0;
}

/*
 * The instance of @hook's probe for the call the current task is in: its
 * notes, or NULL. The instances of the task's calls in progress are on
 * its own list (current->rethooks), the latest first; a kretprobe of
 * someone else's on a function the call runs may be above it. Only the
 * task pushes and pops there, and an interrupt that does pops what it
 * pushed before it returns. The probe's rethook is compared, never
 * followed.
 */
static notrace struct kretprobe_instance *
ftagent_kprobe_instance(const struct ftagent_hook *hook)
{
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct ftagent_kprobe *k = READ_ONCE(hook->kprobe);
	struct kretprobe_instance *ri;
	struct rethook_node *node;
	struct llist_node *n;
	struct rethook *rh;
	unsigned int depth = 0;

	/*
	 * A detached hook's rethook is freed a grace period after
	 * unregister_kretprobes(), which comes after the state is set
	 * (hooks.c): a gate that still sees ATTACHED holds it off, and one
	 * that begins later sees DETACHED.
	 */
	if (READ_ONCE(hook->state) != FTAGENT_HOOK_ATTACHED)
		return NULL;
	rh = k ? READ_ONCE(k->rp.rh) : NULL;
	if (!rh)
		return NULL;
	for (n = READ_ONCE(current->rethooks.first); n && depth < 16;
	     n = READ_ONCE(n->next), depth++) {
		node = container_of(n, struct rethook_node, llist);
		if (READ_ONCE(node->rethook) != rh)
			continue;
		ri = container_of(node, struct kretprobe_instance, node);
		return ri;
	}
#endif
	return NULL;
}

struct ftagent_call_keys *
ftagent_kprobe_call_keys(const struct ftagent_hook *hook)
{
	struct kretprobe_instance *ri = ftagent_kprobe_instance(hook);

	return ri ? (struct ftagent_call_keys *)ri->data : NULL;
}

/*
 * An instance is taken at entry and given back at the return: without
 * one (all maxactive in use) the entry handler did not run.
 */
bool notrace ftagent_kprobe_call_seen(const struct ftagent_hook *hook)
{
	return ftagent_kprobe_instance(hook);
}

/*
 * What the registered probes hold (memory.h): register_kretprobe()
 * allocates their instances up front. Changed only under the config
 * lock, as every attach and detach; read by the stats request.
 */
static size_t ftagent_kprobe_bytes;
/*
 * struct ftagent_kprobe allocated: freed at exit, but one the kernel
 * kept never is (it stays counted).
 */
static unsigned int ftagent_kprobes_allocated;

static int ftagent_kprobe_attach(struct ftagent_hook *hook)
{
	struct ftagent_kprobe *k = hook->kprobe;
	int err;

	/* New for the first attach, and after the kernel kept the last. */
	if (!k) {
		k = kzalloc(sizeof(*k), GFP_KERNEL);
		if (!k)
			return -ENOMEM;
		hook->kprobe = k;
		WRITE_ONCE(ftagent_kprobes_allocated,
			   ftagent_kprobes_allocated + 1);
	}
	/* Not in the kernel's hands: never registered, or let go. */
	memset(&k->rp, 0, sizeof(k->rp));
	k->hook = hook;
	k->rp.kp.symbol_name = hook->call->symbol;
	k->rp.entry_handler = ftagent_kret_entry;
	k->rp.handler = ftagent_kret_handler;
	k->rp.maxactive = hook->call->maxactive;
	k->rp.data_size = sizeof(struct ftagent_call_keys);
	/* Not beside a parked lookup at the same start (callsites.h). */
	ftagent_lookups_flush();
	err = register_kretprobe(&k->rp);
	if (!err) {
		k->bytes = ftagent_kretprobe_bytes(&k->rp);
		WRITE_ONCE(ftagent_kprobe_bytes,
			   ftagent_kprobe_bytes + k->bytes);
	}
	return err;
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
	const char *first = NULL;
	unsigned int i, kept = 0;

	for (i = 0; i < n; i++)
		ftagent_rps[i] = &hooks[i]->kprobe->rp;
	unregister_kretprobes(ftagent_rps, n);
	for (i = 0; i < n; i++) {
		WRITE_ONCE(ftagent_kprobe_bytes,
			   ftagent_kprobe_bytes - hooks[i]->kprobe->bytes);
		if (ftagent_kretprobe_let_go(ftagent_rps[i]))
			continue;
		/* The kernel keeps this one; the next attach gets a new one. */
		if (!kept++)
			first = hooks[i]->call->symbol;
		hooks[i]->kprobe = NULL;
	}
	if (kept)
		ftagent_kprobes_kept_say(kept, first);
}

static u64 ftagent_kprobe_missed(struct ftagent_hook *hook)
{
	const struct kretprobe *rp = &hook->kprobe->rp;

	return READ_ONCE(rp->nmissed) + READ_ONCE(rp->kp.nmissed);
}

/* Module exit: the probes are off; their memory goes. */
static void ftagent_kprobe_release(struct ftagent_hook *hooks, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (hooks[i].kprobe)
			WRITE_ONCE(ftagent_kprobes_allocated,
				   ftagent_kprobes_allocated - 1);
		kfree(hooks[i].kprobe);
		hooks[i].kprobe = NULL;
	}
}

/*
 * The instances, the probes (kept between attaches, and for good when
 * the kernel kept one), and the batch of pointers while the set runs.
 */
static size_t ftagent_kprobe_memory(void)
{
	return READ_ONCE(ftagent_kprobe_bytes) +
	       READ_ONCE(ftagent_kprobes_allocated) *
	       kmalloc_size_roundup(sizeof(struct ftagent_kprobe)) +
	       (READ_ONCE(ftagent_rps) ?
		kmalloc_size_roundup(ftagent_nr_calls *
				     sizeof(*ftagent_rps)) : 0);
}

const struct ftagent_hook_driver ftagent_kprobe_driver = {
	.kind = FTAGENT_HOOKS_KPROBE,
	.memory = ftagent_kprobe_memory,
	.attach = ftagent_kprobe_attach,
	.detach = ftagent_kprobe_detach,
	.missed = ftagent_kprobe_missed,
	.start = ftagent_kprobe_start,
	.stop = ftagent_kprobe_stop,
	.release = ftagent_kprobe_release,
};
