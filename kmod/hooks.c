// SPDX-License-Identifier: GPL-2.0
/*
 * Hook bookkeeping, common to both drivers: which calls a mode needs,
 * per-hook state, hit counts and the self-check.
 *
 * The self-check: a hook is VERIFIED the first time it fires after being
 * attached, ATTACHED until then. Any call of the syscall verifies it;
 * `ftctl selfcheck` makes one harmless call of each (on a closed
 * descriptor) so the state is known right after load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <asm/unistd.h>

#include "hooks.h"
#include "memory.h"
#include "xfer.h"

static struct ftagent_hook *ftagent_hooks;
u64 __percpu *ftagent_hook_hits;	/* [ftagent_nr_calls] per CPU */
static const struct ftagent_hook_driver *ftagent_driver;
static struct ftagent_hook **ftagent_attached;	/* scratch for detach */
/* Attached hooks by syscall number, for drivers that learn the number. */
struct ftagent_hook *ftagent_by_nr[NR_syscalls];
#ifdef CONFIG_IA32_EMULATION
struct ftagent_hook *ftagent_by_nr_ia32[IA32_NR_syscalls];
#endif
#ifdef CONFIG_X86_X32_ABI
struct ftagent_hook *ftagent_by_nr_x32[FTAGENT_X32_OWN_NR];
#endif

/* Entry by entry, whole: the gate reads the map at any time. */
static void ftagent_by_nr_zero(struct ftagent_hook **map, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		WRITE_ONCE(map[i], NULL);
}

static void ftagent_by_nr_clear(void)
{
	ftagent_by_nr_zero(ftagent_by_nr, ARRAY_SIZE(ftagent_by_nr));
#ifdef CONFIG_IA32_EMULATION
	ftagent_by_nr_zero(ftagent_by_nr_ia32, ARRAY_SIZE(ftagent_by_nr_ia32));
#endif
#ifdef CONFIG_X86_X32_ABI
	ftagent_by_nr_zero(ftagent_by_nr_x32, ARRAY_SIZE(ftagent_by_nr_x32));
#endif
}

static void ftagent_by_nr_set(struct ftagent_hook *hook)
{
	const struct ftagent_call *call = hook->call;

	/*
	 * kmod/calls.c's numbers come from the kernel's own headers, so each
	 * is in its table's range; checked all the same, as a row that
	 * named the wrong table's number would write past it.
	 */
#ifdef CONFIG_IA32_EMULATION
	if (call->ia32) {
		if (!WARN_ON_ONCE(call->nr >= IA32_NR_syscalls))
			WRITE_ONCE(ftagent_by_nr_ia32[call->nr], hook);
		return;
	}
#endif
#ifdef CONFIG_X86_X32_ABI
	if (call->x32 || call->x32_nr) {
		/* kmod/calls.c's x32 rows: numbers from the x32 table. */
		unsigned int i = (call->x32 ? call->nr : call->x32_nr) -
				 FTAGENT_X32_OWN_FIRST;

		if (!WARN_ON_ONCE(i >= FTAGENT_X32_OWN_NR))
			WRITE_ONCE(ftagent_by_nr_x32[i], hook);
		if (call->x32)
			return;
	}
#endif
	if (!WARN_ON_ONCE(call->nr >= NR_syscalls))
		WRITE_ONCE(ftagent_by_nr[call->nr], hook);
}

static const struct ftagent_hook_driver *ftagent_driver_for(unsigned int set)
{
	return set == FTAGENT_HOOKS_KPROBE ? &ftagent_kprobe_driver :
					     &ftagent_ftrace_driver;
}

static void ftagent_hits_reset(unsigned int i)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(ftagent_hook_hits, cpu)[i] = 0;
}

/*
 * Take the attached hooks off and stop the driver. A FAILED hook keeps
 * its state and error, so that an attach that fails whole can still say
 * which hook failed and why.
 */
static void ftagent_hooks_release(void)
{
	const struct ftagent_hook_driver *drv = ftagent_driver;
	unsigned int i, n = 0;

	if (!drv)
		return;
	for (i = 0; i < ftagent_nr_calls; i++) {
		struct ftagent_hook *hook = &ftagent_hooks[i];

		if (hook->state != FTAGENT_HOOK_ATTACHED)
			continue;
		ftagent_attached[n++] = hook;
		/* Before the driver lets go: ftagent_kprobe_call_keys(). */
		WRITE_ONCE(hook->state, FTAGENT_HOOK_DETACHED);
	}
	if (n)
		drv->detach(ftagent_attached, n);
	if (drv->stop)
		drv->stop();
	/*
	 * The driver is gone. The gate still reads the map (callfiles.h),
	 * but every hook in it is DETACHED, and the ftrace set's tables are
	 * marked gone: what it finds leads nowhere.
	 */
	ftagent_by_nr_clear();
	ftagent_driver = NULL;
	/*
	 * Their settles will not come: no call may keep a decision. After
	 * stop() and detach(), which wait out every running hook, the
	 * gate's lookups find no hook, so no call keeps one from here on.
	 */
	ftagent_xfer_forget();
}

void ftagent_hooks_detach(void)
{
	unsigned int i;

	ftagent_hooks_release();
	for (i = 0; i < ftagent_nr_calls; i++) {
		ftagent_hooks[i].state = FTAGENT_HOOK_DETACHED;
		ftagent_hooks[i].error = 0;
	}
}

/*
 * None of @mode's hooks on after a failed attach: each is FAILED, with its
 * own error where it had one, else @err. If the caller cannot put the
 * previous set back either, the state then says DEGRADED, not READY.
 */
static void ftagent_hooks_fail(unsigned int mode, int err)
{
	unsigned int i;

	for (i = 0; i < ftagent_nr_calls; i++) {
		struct ftagent_hook *hook = &ftagent_hooks[i];

		if (!(hook->call->modes & BIT(mode)))
			continue;
		if (hook->state == FTAGENT_HOOK_FAILED && hook->error)
			continue;
		hook->state = FTAGENT_HOOK_FAILED;
		hook->error = -err;
	}
}

int ftagent_hooks_attach(unsigned int mode, unsigned int set, bool strict)
{
	const struct ftagent_hook_driver *drv = ftagent_driver_for(set);
	unsigned int i, failed = 0;
	int err, first_err = 0, nomem = 0;

	ftagent_hooks_detach();
	for (i = 0; i < ftagent_nr_calls; i++) {
		ftagent_hooks[i].kind = drv->kind;
		ftagent_hooks[i].seen = false;
		ftagent_hits_reset(i);
	}
	if (drv->start) {
		err = drv->start();
		if (err) {
			pr_err("%s hooks: cannot start: %d\n",
			       set == FTAGENT_HOOKS_KPROBE ? "kprobe" : "ftrace",
			       err);
			ftagent_hooks_fail(mode, err);
			return err;
		}
	}
	ftagent_driver = drv;

	for (i = 0; i < ftagent_nr_calls; i++) {
		struct ftagent_hook *hook = &ftagent_hooks[i];

		if (!(hook->call->modes & BIT(mode)))
			continue;
		err = drv->attach(hook);
		if (err) {
			hook->state = FTAGENT_HOOK_FAILED;
			hook->error = -err;
			pr_warn("cannot hook %s: %d\n", hook->call->symbol, err);
			failed++;
			if (!first_err)
				first_err = err;
			if (err == -ENOMEM)
				nomem = err;
			continue;
		}
		hook->state = FTAGENT_HOOK_ATTACHED;
		ftagent_by_nr_set(hook);
	}
	if (drv->commit) {
		err = drv->commit();
		if (err) {
			pr_err("cannot enable the hooks: %d\n", err);
			/* After a hook ran out of memory, say so (not ENOENT). */
			if (nomem)
				err = nomem;
			/* Nothing went live: report every hook as failed. */
			if (drv->stop)
				drv->stop();
			ftagent_by_nr_clear();
			ftagent_driver = NULL;
			ftagent_xfer_forget();
			ftagent_hooks_fail(mode, err);
			return err;
		}
	}
	/*
	 * A hook the kernel refuses leaves the set DEGRADED; one that
	 * failed for want of memory fails the whole attach, as strict=1
	 * makes any failure do (ftagent_setup_fails()).
	 */
	if (failed && (strict || nomem)) {
		err = nomem ?: first_err;
		ftagent_hooks_release();
		ftagent_hooks_fail(mode, err);
		return err;
	}
	return 0;
}

enum ftagent_state ftagent_hooks_state(void)
{
	unsigned int i, attached = 0, failed = 0;

	for (i = 0; i < ftagent_nr_calls; i++) {
		if (ftagent_hooks[i].state == FTAGENT_HOOK_FAILED)
			failed++;
		else if (ftagent_hooks[i].state != FTAGENT_HOOK_DETACHED)
			attached++;
	}
	if (failed)
		return FTAGENT_STATE_DEGRADED;
	return attached ? FTAGENT_STATE_TRACING : FTAGENT_STATE_READY;
}

unsigned int ftagent_hooks_count(void)
{
	return ftagent_nr_calls;
}

void ftagent_hook_view(unsigned int i, struct ftagent_hook_view *v)
{
	struct ftagent_hook *hook = &ftagent_hooks[i];
	int cpu;

	v->name = hook->call->symbol;
	v->kind = hook->kind;
	v->state = hook->state;
	if (hook->state == FTAGENT_HOOK_ATTACHED && READ_ONCE(hook->seen))
		v->state = FTAGENT_HOOK_VERIFIED;
	v->error = hook->error;
	v->hits = 0;
	for_each_possible_cpu(cpu)
		v->hits += per_cpu_ptr(ftagent_hook_hits, cpu)[i];
	v->missed = 0;
	if (ftagent_driver && v->state != FTAGENT_HOOK_DETACHED &&
	    v->state != FTAGENT_HOOK_FAILED && ftagent_driver->missed)
		v->missed = ftagent_driver->missed(hook);
}

size_t ftagent_hooks_memory(void)
{
	return kmalloc_size_roundup(ftagent_nr_calls *
				    sizeof(*ftagent_hooks)) +
	       kmalloc_size_roundup(ftagent_nr_calls *
				    sizeof(*ftagent_attached)) +
	       ftagent_percpu_bytes(sizeof(u64) * ftagent_nr_calls) +
	       ftagent_ftrace_driver.memory() + ftagent_kprobe_driver.memory();
}

int __init ftagent_hooks_init(void)
{
	unsigned int i;

	ftagent_hooks = kcalloc(ftagent_nr_calls, sizeof(*ftagent_hooks),
				GFP_KERNEL);
	if (!ftagent_hooks)
		return -ENOMEM;
	ftagent_attached = kcalloc(ftagent_nr_calls, sizeof(*ftagent_attached),
				   GFP_KERNEL);
	ftagent_hook_hits = __alloc_percpu(sizeof(u64) * ftagent_nr_calls,
					   sizeof(u64));
	if (!ftagent_hook_hits || !ftagent_attached) {
		free_percpu(ftagent_hook_hits);
		kfree(ftagent_attached);
		kfree(ftagent_hooks);
		return -ENOMEM;
	}
	for (i = 0; i < ftagent_nr_calls; i++) {
		ftagent_hooks[i].call = &ftagent_calls[i];
		ftagent_hooks[i].index = i;
	}
	return 0;
}

void ftagent_hooks_exit(void)
{
	ftagent_hooks_detach();
	if (ftagent_ftrace_driver.release)
		ftagent_ftrace_driver.release(ftagent_hooks, ftagent_nr_calls);
	if (ftagent_kprobe_driver.release)
		ftagent_kprobe_driver.release(ftagent_hooks, ftagent_nr_calls);
	free_percpu(ftagent_hook_hits);
	kfree(ftagent_attached);
	kfree(ftagent_hooks);
}
