/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects a traced call's descriptors named when it began.
 *
 * A call is charged at its settle, after it returned, by what its
 * descriptors name. Another thread (or a process sharing the descriptor
 * table) can close or reuse a descriptor while the call runs: the call
 * goes on with the file its fdget() took, and by the settle the number
 * names nothing, or something else. The bytes must still go to what the
 * call used, or a budget could be dodged by closing a descriptor under a
 * blocked recv().
 *
 * So a call by a task whose table is shared has the keys of its objects
 * noted at entry (the ftrace set in its pending slot, the kprobe set in
 * its kretprobe instance), and its settle charges those. Keys, not file
 * references: a reference would have to be dropped by someone if the
 * settle never comes (a kretprobe instance of a task still blocked when
 * the probe goes never returns to the module), and taking and dropping
 * one costs more than the key, which the settle then need not look up.
 * A task whose table is not shared pays one test: no one else can change
 * its descriptors, and the kernel's own fdget() relies on the same fact.
 * An ia32 socketcall is noted whatever the table: its descriptor is in
 * the caller's memory, which the call itself may overwrite (a recv into
 * its own argument block).
 *
 * What the entry notes is what the number named before the call's own
 * fdget(). A sibling that swaps objects under the number in that window
 * (dup2() in a loop, or during a slow fault on the memory sendfile's
 * offset or recvmmsg's timeout is read from first) makes the call use
 * one object and the charge go to the other. Where the gate hooks the
 * points the call passes with the object it resolved (byte budgets
 * hook security_file_permission(), and security_socket_recvmsg() and
 * _sendmsg() for their metrics), the gate puts that object in the note
 * instead (ftagent_call_keys_seen()), so the charge goes where the bytes
 * went and a budget cannot be dodged that way. Without them the window
 * stays: a limit docs/hooks.md states, with its measure.
 */
#ifndef _FTAGENT_CALLFILES_H
#define _FTAGENT_CALLFILES_H

#include <linux/fdtable.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/ftagent.h>
#include <asm/compat.h>
#include <asm/unistd.h>

#include "calls.h"

/* A call names at most two descriptors (sendfile, splice). */
#define FTAGENT_CALL_FDS	2

/* One descriptor's object: a struct ftagent_key without the process. */
struct ftagent_call_obj {
	u64 ino;
	u32 dev;
	u32 fd;
	u16 kind;		/* FTAGENT_OBJ_UNSPEC: no object */
	u16 family;
	u16 protocol;
	u16 seen;		/* the gate saw the call use it (below) */
};

/*
 * ia32 socketcall: its argument block could not be read at entry. The
 * settle reads it back and counts the doubt, whatever the call returned:
 * a failed call may still have moved bytes.
 */
#define FTAGENT_CALL_OBJ_UNREAD	0xffff

/* Packed from the first: obj[0].kind FTAGENT_OBJ_UNSPEC means none. */
struct ftagent_call_keys {
	struct ftagent_call_obj obj[FTAGENT_CALL_FDS];
};

/*
 * Only a task whose descriptor table is shared (another thread, or a
 * process cloned with CLONE_FILES) can lose a descriptor to someone else
 * during a call, and only then does the kernel's own fdget() take a
 * reference: the rest pay this test and nothing more.
 */
static __always_inline bool ftagent_files_shared(struct task_struct *t)
{
	struct files_struct *files = READ_ONCE(t->files);

	return files && atomic_read(&files->count) > 1;
}

/*
 * Whether the current task, whose saved registers are @uregs, is in an
 * ia32 socketcall: noted whatever its table (above).
 */
static __always_inline bool ftagent_in_socketcall(const struct pt_regs *uregs)
{
#ifdef CONFIG_IA32_EMULATION
	return unlikely(in_ia32_syscall()) &&
	       (u32)uregs->orig_ax == __NR_ia32_socketcall;
#else
	return false;
#endif
}

static __always_inline bool
ftagent_call_keys_any(const struct ftagent_call_keys *k)
{
	return k->obj[0].kind != FTAGENT_OBJ_UNSPEC;
}

/*
 * The descriptors @call takes, in the 64-bit calls' registers: the ia32
 * entry points pass the low halves of bx, cx, dx where those have di,
 * si, dx. Calls with no bytes to charge (bind, listen, the opens) and
 * socketcall (its descriptor is in the caller's memory) take none here.
 */
static __always_inline unsigned int
ftagent_call_fds(const struct ftagent_call *call, const struct pt_regs *uregs,
		 u32 fd[FTAGENT_CALL_FDS])
{
	unsigned long a0 = call->ia32 ? uregs->bx : uregs->di;
	unsigned long a1 = call->ia32 ? uregs->cx : uregs->si;

	/* A descriptor is the register's low 32 bits, as the kernel's. */
	switch (call->class) {
	case FTAGENT_CALL_READ:
	case FTAGENT_CALL_WRITE:
	case FTAGENT_CALL_RECV:
	case FTAGENT_CALL_RECVMMSG:
	case FTAGENT_CALL_SENDMMSG:
	case FTAGENT_CALL_CONNECT:
	case FTAGENT_CALL_ACCEPT:
		fd[0] = a0;
		return 1;
	case FTAGENT_CALL_SENDFILE:
		fd[0] = a0;
		fd[1] = a1;
		return 2;
	case FTAGENT_CALL_SPLICE:
	case FTAGENT_CALL_COPY:
		fd[0] = a0;
		fd[1] = uregs->dx;
		return 2;
	default:
		return 0;
	}
}

/*
 * Entry, by the calling task, preemption on or off: what @call's
 * descriptors (in @uregs) name now, into @k (account.c).
 */
void ftagent_call_keys_fill(const struct ftagent_call *call,
			    const struct pt_regs *uregs,
			    struct ftagent_call_keys *k);

/*
 * The gate, in a hook on a point where the current task's call uses
 * @file to move bytes in @dir (enum ftagent_dir): if the call is traced
 * and noted its descriptors at entry, make the note of that side name
 * @file, the object the kernel really uses. The first such point of a
 * side decides: a stacked filesystem (overlayfs) checks its backing file
 * after the call's own. Preemption off.
 */
void ftagent_call_keys_seen(struct file *file, unsigned int dir);

/*
 * The notes of the current task's traced call, per hook set, or NULL.
 * Asked only when the task's noted bit is set (hooks.h).
 */
struct ftagent_hook;
struct ftagent_call_keys *ftagent_ftrace_call_keys(void);
struct ftagent_call_keys *
ftagent_kprobe_call_keys(const struct ftagent_hook *hook);

#endif /* _FTAGENT_CALLFILES_H */
