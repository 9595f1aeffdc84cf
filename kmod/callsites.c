// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the direct calls one kernel function makes to another.
 *
 * Some results the kernel keeps only in a register for an instant, as
 * the byte count each message of a *mmsg call returns (mmsg.c). A
 * kprobe on the instruction after the call sees them. The call sites
 * are found by scanning the caller's code, as the kernel's symbol table
 * bounds it, for E8 rel32 whose target the symbol table names as the
 * callee at offset 0 (or, for the retpoline thunks, anywhere in a
 * function of that name prefix). What a return site runs is compared
 * instruction by instruction with the code after another call
 * (ftagent_copy_rejoins()) where the compiler duplicated it. The code
 * read is the live text: another kprobe's int3, or a call site a
 * livepatch moved, hides a site, and the caller's users then see fewer
 * sites than they expect and go without (DEGRADED).
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "callsites.h"
#include "copy_walk.h"

#define FTAGENT_MAX_TEXT	32768	/* a caller larger is not scanned */
#define FTAGENT_CALL_REL32	0xe8

/*
 * A lookup is a kprobe registered disabled (never armed, so no handler
 * can run) and unregistered at once, and each unregister_kprobe() waits
 * for a grace period. The module looks up about fifty functions as it
 * loads: half a second of insmod on a quiet 2-vCPU guest, one grace
 * period each wherever they are slow. While a batch is held
 * (ftagent_lookups_hold()), a lookup's probe is parked instead, and the
 * batch's end unregisters them all with one grace period.
 *
 * Parked probes are gone before the module registers a probe of its own
 * at a function's start (ftagent_lookups_flush()): one at a parked
 * probe's address would share an aggregate probe with it, and the
 * aggregate's extra indirection would stay after the parked probe went.
 * Kprobes aggregate the other way round as well, which the module cannot
 * avoid: a lookup of a function where a probe is already on (another
 * tool's, or zerocopy.c's when the gate hooks the same function), or
 * another tool's probe put on a function while its lookup is parked
 * during a load, leaves that probe behind one more indirect call.
 */
#define FTAGENT_LOOKUPS_PARKED	128

/*
 * While a batch is held, each name found is also kept with its address,
 * until the outermost release. A load looks some up several times
 * (io_recvmsg six times on 6.1), and a lookup is a kprobe registration,
 * which waits for kprobe_mutex while the kprobe optimizer holds it
 * through a Tasks RCU grace period; the optimizer runs a few jiffies
 * after a probe inside a function is armed (mmsg.c), and each lookup
 * made meanwhile waits for that pass.
 */
#define FTAGENT_LOOKUPS_KEPT	128

struct ftagent_lookup_kept {
	char *name;
	unsigned long addr;
};

static DEFINE_MUTEX(ftagent_lookups_lock);
static struct kprobe *ftagent_lookups_parked[FTAGENT_LOOKUPS_PARKED];
static unsigned int ftagent_lookups_nr;
static unsigned int ftagent_lookups_held;
static struct ftagent_lookup_kept ftagent_lookups_kept[FTAGENT_LOOKUPS_KEPT];
static unsigned int ftagent_lookups_nr_kept;

/*
 * Under ftagent_lookups_lock, through a grace period: held by lookups
 * and flushes only, which do not wait for each other's grace periods
 * anywhere else.
 */
static void ftagent_lookups_unpark(void)
{
	unsigned int i;

	if (!ftagent_lookups_nr)
		return;
	unregister_kprobes(ftagent_lookups_parked, ftagent_lookups_nr);
	for (i = 0; i < ftagent_lookups_nr; i++)
		kfree(ftagent_lookups_parked[i]);
	ftagent_lookups_nr = 0;
}

void ftagent_lookups_hold(void)
{
	mutex_lock(&ftagent_lookups_lock);
	ftagent_lookups_held++;
	mutex_unlock(&ftagent_lookups_lock);
}

void ftagent_lookups_release(void)
{
	mutex_lock(&ftagent_lookups_lock);
	if (!WARN_ON_ONCE(!ftagent_lookups_held)) {
		ftagent_lookups_held--;
		if (!ftagent_lookups_held) {
			ftagent_lookups_unpark();
			while (ftagent_lookups_nr_kept)
				kfree(ftagent_lookups_kept[--ftagent_lookups_nr_kept].name);
		}
	}
	mutex_unlock(&ftagent_lookups_lock);
}

void ftagent_lookups_flush(void)
{
	mutex_lock(&ftagent_lookups_lock);
	ftagent_lookups_unpark();
	mutex_unlock(&ftagent_lookups_lock);
}

/* Under ftagent_lookups_lock: @name's address, if a held batch has it. */
static bool ftagent_lookups_known(const char *name, unsigned long *addr)
{
	unsigned int i;

	for (i = 0; i < ftagent_lookups_nr_kept; i++) {
		if (!strcmp(ftagent_lookups_kept[i].name, name)) {
			*addr = ftagent_lookups_kept[i].addr;
			return true;
		}
	}
	return false;
}

/* Under ftagent_lookups_lock, with a batch held. Full, it is not kept. */
static void ftagent_lookups_keep(const char *name, unsigned long addr)
{
	struct ftagent_lookup_kept *k;

	if (ftagent_lookups_nr_kept == FTAGENT_LOOKUPS_KEPT)
		return;
	k = &ftagent_lookups_kept[ftagent_lookups_nr_kept];
	k->name = kstrdup(name, GFP_KERNEL);
	if (!k->name)
		return;		/* looked up again next time */
	k->addr = addr;
	ftagent_lookups_nr_kept++;
}

int ftagent_symbol_addr(const char *name, unsigned long *addr)
{
	struct kprobe *kp;
	bool known;
	int err;

	mutex_lock(&ftagent_lookups_lock);
	known = ftagent_lookups_held && ftagent_lookups_known(name, addr);
	mutex_unlock(&ftagent_lookups_lock);
	if (known)
		return 0;
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->symbol_name = name;
	kp->flags = KPROBE_FLAG_DISABLED;
	err = register_kprobe(kp);
	if (err) {
		kfree(kp);
		return err;
	}
	*addr = (unsigned long)kp->addr;
	/* Only the address is used from here on: @name need not outlive it. */
	kp->symbol_name = NULL;
	mutex_lock(&ftagent_lookups_lock);
	if (ftagent_lookups_held) {
		ftagent_lookups_keep(name, *addr);
		/* A full batch goes first: one grace period per batch. */
		if (ftagent_lookups_nr == FTAGENT_LOOKUPS_PARKED)
			ftagent_lookups_unpark();
		ftagent_lookups_parked[ftagent_lookups_nr++] = kp;
		kp = NULL;
	}
	mutex_unlock(&ftagent_lookups_lock);
	if (kp) {
		unregister_kprobe(kp);
		kfree(kp);
	}
	return 0;
}

/*
 * Where function @name starts and how long it is, from the kernel's
 * symbol table ("name+0x4/0x210": kprobes may place a function's address
 * past its ENDBR). 0, -ENOENT if it is not there (or kprobes refuse it),
 * -ENOMEM if the lookup could not allocate: that says nothing about the
 * kernel, and callers must not take it for a missing function.
 */
int ftagent_function_find(const char *name, unsigned long *start,
			  unsigned long *size)
{
	size_t len = strlen(name);
	unsigned long addr, off;
	char *buf;
	int err;

	*start = 0;
	*size = 0;
	err = ftagent_symbol_addr(name, &addr);
	if (err)
		return err == -ENOMEM ? err : -ENOENT;
	/* Not on the stack: KSYM_SYMBOL_LEN is over 500 bytes. */
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	sprint_symbol(buf, addr);
	if (!strncmp(buf, name, len) && buf[len] == '+' &&
	    sscanf(buf + len + 1, "%lx/%lx", &off, size) == 2 && off <= addr &&
	    off < *size)
		*start = addr - off;
	else
		*size = 0;
	kfree(buf);
	return *start ? 0 : -ENOENT;
}

/*
 * Whether @target is the start of function @callee, or its call-depth
 * thunk: with call thunks (6.12 booted with retbleed=stuff) the kernel
 * points every direct call at accounting code in the padding before the
 * callee, which the symbol table names __pfx_<callee>.
 */
static bool ftagent_starts(unsigned long target, const char *callee,
			   char buf[KSYM_SYMBOL_LEN])
{
	size_t len = strlen(callee);
	const char *name = buf;

	sprint_symbol(buf, target);
	if (IS_ENABLED(CONFIG_CALL_THUNKS) && !strncmp(buf, "__pfx_", 6)) {
		name += 6;
		return !strncmp(name, callee, len) && name[len] == '+';
	}
	return !strncmp(name, callee, len) && !strncmp(name + len, "+0x0/", 5);
}

/*
 * Whether @target is in a function whose name begins with @prefix, at any
 * offset: the retpoline thunks are one array of per-register entries.
 */
static bool ftagent_in_prefixed(unsigned long target, const char *prefix,
				char buf[KSYM_SYMBOL_LEN])
{
	sprint_symbol(buf, target);
	return !strncmp(buf, prefix, strlen(prefix));
}

/*
 * ftagent_callsites(), and with @prefix the calls into any function whose
 * name begins with @callee.
 */
static int ftagent_scan_calls(const char *caller, const char *callee,
			      bool prefix, unsigned long *sites,
			      unsigned int max)
{
	unsigned long start, size, i;
	unsigned int n = 0;
	int err = 0;
	char *buf;
	u8 *text;

	err = ftagent_function_find(caller, &start, &size);
	if (err)
		return err;
	if (size < FTAGENT_CALL_LEN || size > FTAGENT_MAX_TEXT)
		return -ENOENT;
	text = kmalloc(size, GFP_KERNEL);
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!text || !buf) {
		err = -ENOMEM;
		goto out;
	}
	if (copy_from_kernel_nofault(text, (void *)start, size)) {
		err = -EFAULT;
		goto out;
	}
	for (i = 0; i + FTAGENT_CALL_LEN <= size; i++) {
		unsigned long ret_site = start + i + FTAGENT_CALL_LEN;
		s32 rel;

		if (text[i] != FTAGENT_CALL_REL32)
			continue;
		memcpy(&rel, text + i + 1, sizeof(rel));
		if (prefix ? !ftagent_in_prefixed(ret_site + rel, callee, buf) :
			     !ftagent_starts(ret_site + rel, callee, buf))
			continue;
		if (n == max) {
			err = -E2BIG;
			break;
		}
		sites[n++] = start + i;
	}
out:
	kfree(buf);
	kfree(text);
	return err ? err : n;
}

int ftagent_callsites(const char *caller, const char *callee,
		      unsigned long *sites, unsigned int max)
{
	return ftagent_scan_calls(caller, callee, false, sites, max);
}

int ftagent_thunk_callsites(const char *caller, unsigned long *sites,
			    unsigned int max)
{
	/*
	 * __x86_indirect_thunk_* (retpolines), __x86_indirect_call_thunk_*
	 * (call-depth tracking, 6.2 on). ITS thunks on affected CPUs are
	 * pages allocated at boot, with no symbol: none found there.
	 */
	return ftagent_scan_calls(caller, "__x86_indirect_", true, sites, max);
}

int ftagent_site_rejoins(unsigned long ret_site, unsigned long join)
{
	u8 insn[FTAGENT_JMP_REL32_LEN];
	unsigned long to;

	/* Its text may be the probe's own (an optimized kprobe). */
	if (ret_site == join)
		return 1;
	if (copy_from_kernel_nofault(insn, (void *)ret_site, sizeof(insn)))
		return -EFAULT;
	/* Another tracer's breakpoint hides the instruction. */
	if (insn[0] == FTAGENT_INT3)
		return -EBUSY;
	return ftagent_jump_at(insn, ret_site, &to) && to == join;
}

static int ftagent_text_read(void *ctx, unsigned long addr, u8 *buf,
			     unsigned int len)
{
	return copy_from_kernel_nofault(buf, (void *)addr, len) ? -EFAULT : 0;
}

int ftagent_copy_rejoins(unsigned long ret_site, unsigned long join,
			 const unsigned long *avoid, unsigned int n)
{
	return ftagent_copy_walk(ftagent_text_read, NULL, ret_site, join,
				 avoid, n);
}

int ftagent_calls_rejoin(const char *caller, const char *callee,
			 unsigned long join)
{
	unsigned long sites[8];
	int i, n, rejoins;

	n = ftagent_callsites(caller, callee, sites, ARRAY_SIZE(sites));
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		rejoins = ftagent_site_rejoins(sites[i] + FTAGENT_CALL_LEN,
					       join);
		if (rejoins <= 0)
			return rejoins ? rejoins : -EXDEV;
	}
	return n;
}
