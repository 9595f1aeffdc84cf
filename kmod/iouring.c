// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring requests, counted and charged when they complete.
 *
 * io_uring moves bytes without passing any traced system call: the
 * submitting thread, an io-wq worker (iou-wrk-N) or the SQPOLL thread
 * (iou-sqp-N) calls the file's and the socket's methods directly. So each
 * request is charged from the request itself when it completes: its
 * opcode, its result (req->cqe.res, the whole request's byte count with
 * io_uring's own retries added in), its file (held by the request until
 * it is freed) and its task (the thread that submitted it, or the SQPOLL
 * thread, which belongs to the process that set the ring up).
 *
 * "Every completion once" takes different hooks on different kernels,
 * because of inlining (docs/design/io_uring.md has the evidence):
 *
 *  - FUNNELS (6.1): every completion, whether its CQE is written,
 *    overflowed or skipped (IOSQE_CQE_SKIP_SUCCESS), passes exactly one of
 *    io_req_complete_post(req) and io_free_batch_list(ctx, node), once.
 *  - TRACEPOINT (6.12, where those two are inlined): the io_uring_complete
 *    tracepoint for each CQE written, io_req_cqe_overflow(req) for each
 *    one sent to the overflow list, and for requests submitted with
 *    IOSQE_CQE_SKIP_SUCCESS, which pass neither when they succeed: the
 *    io_uring_submit_req tracepoint files them in a table of pending
 *    skipped requests, and __io_submit_flush_completions(), which every
 *    one of them passes on its way to be freed, charges those it finds
 *    there. A full table counts the request as lost.
 *
 * The extra CQEs of multishot requests (a receive's chunks, a multishot
 * accept's connections; on 6.12 also read-multishot and send bundles)
 * carry no request. The handler about to post them is hooked (6.1:
 * io_recv, io_recvmsg, io_accept; 6.12: io_req_post_cqe) and leaves a
 * per-CPU snapshot of what its request would be charged to: the CQE that
 * follows on the same CPU, from the same task, for the same ring and
 * user_data, is charged to it. A task moved off its CPU in between, or a
 * snapshot another task overwrote, leaves the CQE unmatched: counted as
 * lost (FTAGENT_LOSS_IOURING), as are a multishot poll's events, which
 * cannot be told apart from them, so that count is an upper bound.
 *
 * The input end of an io_uring splice is not held by the request: a hook
 * on do_splice(), called from io_splice(), notes its key under the
 * request (ftagent_splice_notes).
 *
 * A receive can also put bytes into the caller's buffer that its result
 * does not count (a copy that faulted, a datagram discarded for a bad
 * checksum, a RECVMSG message whose name or flags could not be written
 * back): the request's receive entry notes it in the task's mmsg
 * slot (ftagent_mmsg_iour_begin()), mmsg.c files those bytes under it
 * as each sock_recvmsg() returns, and its completion charges them (the
 * landed table below).
 *
 * The mode is chosen at load by whether io_req_complete_post can be found
 * (symbols.c asks ftagent_iouring_needs()); a missing name of the chosen
 * mode turns FTAGENT_FEATURE_IOURING off, never counts wrongly.
 *
 * Budgets: the bytes are charged to the principal of the submitting task
 * (req->task), under the credentials the request ran with (req->creds,
 * when it has its own), whoever completes it: its own thread, an io-wq
 * worker, the SQPOLL thread, another process sharing the ring, or a
 * kernel worker at ring teardown. An io thread is matched by its
 * process's name (gate.c), as the gate matches it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/io_uring.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>

#include "account.h"
#include "compat/ftrace.h"
#include "counters.h"
#include "filters.h"
#include "hooks.h"
#include "callsites.h"
#include "iouring.h"
#include "lifecycle.h"
#include "memory.h"
#include "mmsg.h"
#include "symbols.h"
#include "features.h"

#ifdef CONFIG_IO_URING
#include <linux/io_uring_types.h>

/* What a completed request of each opcode moved. */
enum ftagent_iouring_class {
	FTAGENT_IOUR_NONE,
	FTAGENT_IOUR_IN,	/* bytes in on req->file */
	FTAGENT_IOUR_OUT,	/* bytes out on req->file */
	FTAGENT_IOUR_SPLICE,	/* bytes out on req->file, in on a note's */
	FTAGENT_IOUR_CONNECT,	/* a call out on the socket, no bytes */
	FTAGENT_IOUR_ACCEPT,	/* a call in on the listening socket */
};

static const u8 ftagent_iouring_class[IORING_OP_LAST] = {
	[IORING_OP_READV] = FTAGENT_IOUR_IN,
	[IORING_OP_READ_FIXED] = FTAGENT_IOUR_IN,
	[IORING_OP_READ] = FTAGENT_IOUR_IN,
	[IORING_OP_RECVMSG] = FTAGENT_IOUR_IN,
	[IORING_OP_RECV] = FTAGENT_IOUR_IN,
	[IORING_OP_WRITEV] = FTAGENT_IOUR_OUT,
	[IORING_OP_WRITE_FIXED] = FTAGENT_IOUR_OUT,
	[IORING_OP_WRITE] = FTAGENT_IOUR_OUT,
	[IORING_OP_SENDMSG] = FTAGENT_IOUR_OUT,
	[IORING_OP_SEND] = FTAGENT_IOUR_OUT,
	/* Its notification CQE belongs to a NOP request: counted once. */
	[IORING_OP_SEND_ZC] = FTAGENT_IOUR_OUT,
	[IORING_OP_SENDMSG_ZC] = FTAGENT_IOUR_OUT,
	[IORING_OP_SPLICE] = FTAGENT_IOUR_SPLICE,
	[IORING_OP_CONNECT] = FTAGENT_IOUR_CONNECT,
	[IORING_OP_ACCEPT] = FTAGENT_IOUR_ACCEPT,
#ifdef FTAGENT_HAVE_IO_URING_READ_MULTISHOT
	[IORING_OP_READ_MULTISHOT] = FTAGENT_IOUR_IN,
#endif
};

/* Set at load, before any hook: which completion hooks are in use. */
static bool ftagent_iouring_funnel_mode;

static unsigned int ftagent_iouring_class_of(const struct io_kiocb *req)
{
	unsigned int op = READ_ONCE(req->opcode);

	return op < ARRAY_SIZE(ftagent_iouring_class) ?
	       ftagent_iouring_class[op] : FTAGENT_IOUR_NONE;
}

/* What a request of @class that returned @res charges: bytes or a call. */
static long ftagent_iouring_ret(unsigned int class, long res)
{
	if (class == FTAGENT_IOUR_CONNECT || class == FTAGENT_IOUR_ACCEPT)
		return res < 0 ? res : 0;
	return res;
}

static enum ftagent_dir ftagent_iouring_dir(unsigned int class)
{
	return class == FTAGENT_IOUR_IN || class == FTAGENT_IOUR_ACCEPT ?
	       FTAGENT_DIR_IN : FTAGENT_DIR_OUT;
}

/*
 * What receives run for requests put into their callers' buffers beyond
 * their results, filed by request address (ftagent_iouring_landed())
 * until the request completes: a set-associative table of 4,096 entries
 * (128 KB, static: the fault probes that fill it outlive the io_uring
 * hooks at unload). An entry is made only when bytes landed (a copy that
 * faulted in a message that failed with EFAULT, a datagram discarded for
 * a bad checksum), and lives until the request's completion, which a
 * batch of inline requests defers to its end and a receive that polls
 * for its next datagram defers until one comes: a full set is counted as
 * lost (docs/hooks.md).
 *
 * Each entry moves FREE -> BUSY (claimed by cmpxchg) -> the request's
 * address (published with release, its fields written) -> BUSY (taken by
 * cmpxchg, read, zeroed) -> FREE; the issuing task adds to it through
 * BUSY too, so an entry is only ever written by whoever holds it BUSY.
 * The issuing task's process is kept: a request is issued by its
 * submitter, an io-wq worker or the SQPOLL thread, all threads of the
 * process of the request's task, kept as its tgid and start time (a
 * tgid alone is reused). An entry the completion finds under another
 * process (a request at the same address after one whose completion was
 * not seen, or bytes filed under an old address) is dropped, counted as
 * lost, never charged.
 */
#define FTAGENT_LANDED_BITS	10
#define FTAGENT_LANDED_WAYS	4
#define FTAGENT_LANDED_BUSY	1UL	/* no request is at an odd address */

struct ftagent_landed {
	unsigned long req;	/* 0: free, BUSY, or the request's address */
	u32 tgid;
	u64 born;		/* its process's start: a tgid is reused */
	u64 bytes;		/* a polled receive may gather many */
};

/* When @t's process started: with its tgid, a process no other will be. */
static __always_inline u64 ftagent_landed_born(const struct task_struct *t)
{
	return READ_ONCE(t->group_leader)->start_boottime;
}

static struct ftagent_landed
	ftagent_landed_table[1 << FTAGENT_LANDED_BITS][FTAGENT_LANDED_WAYS];
static atomic_t ftagent_landed_count = ATOMIC_INIT(0);

static struct ftagent_landed *ftagent_landed_set_of(unsigned long req)
{
	return ftagent_landed_table[hash_long(req, FTAGENT_LANDED_BITS)];
}

void notrace ftagent_iouring_landed(unsigned long req, u32 bytes)
{
	struct ftagent_landed *set = ftagent_landed_set_of(req);
	u64 born = ftagent_landed_born(current);
	u32 tgid = current->tgid;
	int i;

	for (i = 0; i < FTAGENT_LANDED_WAYS; i++) {
		struct ftagent_landed *e = &set[i];

		/*
		 * Held BUSY while adding: an entry at this address that a
		 * completion takes (one whose issue this task's note
		 * outlived) is not written after it is given back.
		 */
		if (READ_ONCE(e->req) != req ||
		    cmpxchg(&e->req, req, FTAGENT_LANDED_BUSY) != req)
			continue;
		if (READ_ONCE(e->tgid) == tgid && READ_ONCE(e->born) == born) {
			WRITE_ONCE(e->bytes, e->bytes + bytes);
			/* Republished after the add, as a claim publishes. */
			smp_store_release(&e->req, req);
			return;
		}
		/* Not ours: back as it was, for its own completion. */
		smp_store_release(&e->req, req);
	}
	for (i = 0; i < FTAGENT_LANDED_WAYS; i++) {
		struct ftagent_landed *e = &set[i];

		if (READ_ONCE(e->req) ||
		    cmpxchg(&e->req, 0UL, FTAGENT_LANDED_BUSY))
			continue;
		WRITE_ONCE(e->tgid, tgid);
		WRITE_ONCE(e->born, born);
		WRITE_ONCE(e->bytes, bytes);
		atomic_inc(&ftagent_landed_count);
		/* Published with its fields: see the lookup above. */
		smp_store_release(&e->req, req);
		return;
	}
	ftagent_count_loss(FTAGENT_LOSS_IOURING);
}

/* @req of @task's process completed: what its receives left, taken. */
static long notrace ftagent_landed_take(struct io_kiocb *req,
					struct task_struct *task)
{
	struct ftagent_landed *set = ftagent_landed_set_of((unsigned long)req);
	long landed = 0;
	u64 bytes;
	bool ours;
	int i;

	for (i = 0; i < FTAGENT_LANDED_WAYS; i++) {
		struct ftagent_landed *e = &set[i];

		if (READ_ONCE(e->req) != (unsigned long)req ||
		    cmpxchg(&e->req, (unsigned long)req,
			    FTAGENT_LANDED_BUSY) != (unsigned long)req)
			continue;
		ours = READ_ONCE(e->tgid) == task->tgid &&
		       READ_ONCE(e->born) == ftagent_landed_born(task);
		bytes = READ_ONCE(e->bytes);
		WRITE_ONCE(e->bytes, 0);
		WRITE_ONCE(e->tgid, 0);
		atomic_dec(&ftagent_landed_count);
		/* Zeroed before the next claim can see the entry free. */
		smp_store_release(&e->req, 0UL);
		if (ours)
			landed += min_t(u64, bytes, LONG_MAX - landed);
		else
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
	}
	return landed;
}

/*
 * The input end of a SPLICE. The request holds only its output (req->file):
 * io_splice() gets the input itself (from the descriptor in the request,
 * or the ring's registered file with SPLICE_F_FD_IN_FIXED), passes it to
 * do_splice(in, ..., out, ...) and drops it before the request
 * completes. So two hooks take the input from do_splice() itself, where
 * the file is the one the bytes come from, held:
 *
 *  - io_splice(req, issue_flags), in the task that issues the request (the
 *    submitter, an io-wq worker or the SQPOLL thread), links that task to
 *    the request (ftagent_splice_links), and drops any note left at the
 *    request's address by an earlier request whose completion was missed;
 *  - do_splice(in, ...), when io_splice() called it (its return address
 *    in io_splice()'s range), takes the task's link and notes the key of
 *    @in for the request's process (tgid and start, as the landed table
 *    keeps them) under the request's address (ftagent_splice_notes).
 *
 * The completion takes the note and charges the input end with the
 * request's result, as a splice() call charges both ends. A task may
 * sleep between the two hooks (the ring's lock, for a registered input),
 * so the link is the task's, not the CPU's.
 *
 * Notes: 256 sets of 4 notes of 48 bytes; links: 64 sets of 4; both
 * static, as the landed table. A note lives from the request's issue to
 * its completion, which a splice waiting for its input can hold off: a
 * set that is full gives its notes up in turn, and a request whose note
 * (or link) is gone has its input's bytes counted as lost.
 */
#define FTAGENT_SPLICE_BITS	8
#define FTAGENT_SPLICE_LINK_BITS	6
#define FTAGENT_SPLICE_WAYS	4

struct ftagent_splice_note {
	const void *req;	/* NULL: a free slot */
	u64 born;
	struct ftagent_key key;	/* key.tgid: the request's process */
};

static_assert(sizeof(struct ftagent_splice_note) == 48);

static struct ftagent_splice_set {
	raw_spinlock_t lock;
	u8 turn;
	struct ftagent_splice_note note[FTAGENT_SPLICE_WAYS];
} ____cacheline_aligned_in_smp ftagent_splice_notes[1 << FTAGENT_SPLICE_BITS];

/*
 * A link also keeps the output and length io_splice() passes on: a
 * do_splice() with others is not the linked request's, and the request is
 * not read before they match (a link left by a request that never called
 * do_splice() may outlive it).
 */
static struct ftagent_splice_link_set {
	raw_spinlock_t lock;
	u8 turn;
	struct {
		const struct task_struct *task;	/* NULL: a free slot */
		struct io_kiocb *req;
		const struct file *out;
		u64 len;
	} link[FTAGENT_SPLICE_WAYS];
} ____cacheline_aligned_in_smp
ftagent_splice_links[1 << FTAGENT_SPLICE_LINK_BITS];

/*
 * The head of io_splice's command, as io_uring/splice.c lays it out in
 * 6.1 and 6.12 (which add fields after these).
 */
struct ftagent_io_splice {
	struct file *file_out;
	loff_t off_out;
	loff_t off_in;
	u64 len;
};

/* io_splice()'s text: a do_splice() called from there is a request's. */
static unsigned long ftagent_splice_caller_start, ftagent_splice_caller_size;

static struct ftagent_splice_set *ftagent_splice_set_of(const void *req)
{
	return &ftagent_splice_notes[hash_ptr(req, FTAGENT_SPLICE_BITS)];
}

static struct ftagent_splice_link_set *
ftagent_splice_links_of(const struct task_struct *task)
{
	return &ftagent_splice_links[hash_ptr(task, FTAGENT_SPLICE_LINK_BITS)];
}

/* Take the note of @req into @note (its req NULL if there is none). */
static void notrace ftagent_splice_take(const void *req,
					struct ftagent_splice_note *note)
{
	struct ftagent_splice_set *set = ftagent_splice_set_of(req);
	unsigned long flags;
	int i;

	note->req = NULL;
	raw_spin_lock_irqsave(&set->lock, flags);
	for (i = 0; i < FTAGENT_SPLICE_WAYS; i++) {
		if (set->note[i].req == req) {
			*note = set->note[i];
			set->note[i].req = NULL;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&set->lock, flags);
}

/* io_splice(req, issue_flags): link the issuing task to @req. */
static void notrace ftagent_iouring_splice_hook(unsigned long ip,
						unsigned long parent_ip,
						struct ftrace_ops *op,
						struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	struct io_kiocb *req = (struct io_kiocb *)args->di;
	const struct ftagent_io_splice *sp =
		io_kiocb_to_cmd(req, struct ftagent_io_splice);
	struct ftagent_splice_link_set *set;
	struct ftagent_splice_note stale;
	unsigned long flags;
	int i, slot = -1;
	u64 len;

	/* Its nonblocking try returns -EAGAIN before anything else. */
	if ((unsigned int)args->si & IO_URING_F_NONBLOCK)
		return;
	preempt_disable_notrace();
	ftagent_splice_take(req, &stale);
	len = READ_ONCE(sp->len);
	if (!len)
		goto out;	/* no do_splice(): nothing moves */
	set = ftagent_splice_links_of(current);
	raw_spin_lock_irqsave(&set->lock, flags);
	for (i = 0; i < FTAGENT_SPLICE_WAYS && slot < 0; i++)
		if (set->link[i].task == current)
			slot = i;
	for (i = 0; i < FTAGENT_SPLICE_WAYS && slot < 0; i++)
		if (!set->link[i].task)
			slot = i;
	if (slot < 0) {
		slot = set->turn;
		set->turn = (set->turn + 1) % FTAGENT_SPLICE_WAYS;
	}
	set->link[slot].task = current;
	set->link[slot].req = req;
	set->link[slot].out = READ_ONCE(sp->file_out);
	set->link[slot].len = len;
	raw_spin_unlock_irqrestore(&set->lock, flags);
out:
	preempt_enable_notrace();
}

/*
 * The request the current task links to (taken), if its output and length
 * are @out and @len, or NULL.
 */
static struct io_kiocb *notrace
ftagent_splice_link_take(const struct file *out, u64 len)
{
	struct ftagent_splice_link_set *set = ftagent_splice_links_of(current);
	struct io_kiocb *req = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&set->lock, flags);
	for (i = 0; i < FTAGENT_SPLICE_WAYS; i++) {
		if (set->link[i].task == current) {
			if (set->link[i].out == out && set->link[i].len == len)
				req = set->link[i].req;
			set->link[i].task = NULL;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&set->lock, flags);
	return req;
}

/*
 * do_splice(in, off_in, out, off_out, len, flags), from io_splice() only:
 * note the key of @in, which io_splice() holds, for the linked request.
 */
static void notrace ftagent_iouring_do_splice_hook(unsigned long ip,
						   unsigned long parent_ip,
						   struct ftrace_ops *op,
						   struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	struct file *in = (struct file *)args->di;
	struct ftagent_splice_note note, *slot = NULL;
	struct ftagent_splice_set *set;
	struct task_struct *task;
	struct io_kiocb *req;
	unsigned long flags;
	int i;

	if (parent_ip - ftagent_splice_caller_start >=
	    ftagent_splice_caller_size)
		return;		/* splice() itself, or another caller */
	preempt_disable_notrace();
	req = ftagent_splice_link_take((const struct file *)args->dx,
				       (u64)args->r8);
	if (!req)
		goto out;	/* its link given up: lost at completion */
	task = READ_ONCE(req->task);
	if (!task || !in || !ftagent_account_key(in, task->tgid, &note.key))
		goto out;
	note.req = req;
	note.born = ftagent_landed_born(task);
	set = ftagent_splice_set_of(req);
	raw_spin_lock_irqsave(&set->lock, flags);
	for (i = 0; i < FTAGENT_SPLICE_WAYS && !slot; i++)
		if (!set->note[i].req)
			slot = &set->note[i];
	if (!slot) {
		slot = &set->note[set->turn];
		set->turn = (set->turn + 1) % FTAGENT_SPLICE_WAYS;
	}
	*slot = note;
	raw_spin_unlock_irqrestore(&set->lock, flags);
out:
	preempt_enable_notrace();
}

/*
 * Charge the input end of the SPLICE @req of @task's process that
 * returned @res, from its note; its bytes are lost without one.
 */
static void notrace ftagent_iouring_splice_in(struct io_kiocb *req,
					      struct task_struct *task,
					      const struct cred *cred,
					      long res)
{
	struct ftagent_splice_note note;

	ftagent_splice_take(req, &note);
	if (note.req && note.key.tgid == task->tgid &&
	    note.born == ftagent_landed_born(task)) {
		ftagent_account_key_charge(task, cred, &note.key,
					   FTAGENT_DIR_IN, res, true);
		return;
	}
	if (res > 0)
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
}

/*
 * Charge one completed request. Preemption is off; the request, its file,
 * its credentials and its task stay valid until the completion path
 * frees them, after the hook has run.
 */
static void notrace ftagent_iouring_charge(struct io_kiocb *req)
{
	unsigned int class = ftagent_iouring_class_of(req);
	const struct cred *cred = NULL;
	struct task_struct *task;
	struct file *file;
	long res, landed;

	if (class == FTAGENT_IOUR_NONE)
		return;
	task = READ_ONCE(req->task);
	file = READ_ONCE(req->file);
	if (!task || !file)
		return;		/* failed before it had a file: nothing ran */
	/* Punted to io-wq, or a registered personality: what it ran as. */
	if (READ_ONCE(req->flags) & REQ_F_CREDS)
		cred = READ_ONCE(req->creds);
	res = READ_ONCE(req->cqe.res);
	if (class == FTAGENT_IOUR_IN &&
	    unlikely(atomic_read(&ftagent_landed_count))) {
		landed = ftagent_landed_take(req, task);
		if (landed) {
			ftagent_account_file_landed(task, cred, file, res,
						    landed);
			return;
		}
	}
	ftagent_account_file(task, cred, file, ftagent_iouring_dir(class),
			     ftagent_iouring_ret(class, res),
			     class == FTAGENT_IOUR_SPLICE);
	if (class == FTAGENT_IOUR_SPLICE)
		ftagent_iouring_splice_in(req, task, cred, res);
	/*
	 * Its record, as connect() writes at return: the request holds it.
	 * Only while its process runs it: a connect still pending when its
	 * task exited completes later in a kernel worker, and that tgid and
	 * pid may name another process by then (nor is its exclusion kept).
	 */
	if (class == FTAGENT_IOUR_CONNECT && same_thread_group(current, task) &&
	    !(READ_ONCE(task->flags) & PF_EXITING))
		ftagent_event_sock_file_as(task, FTAGENT_REC_CONNECT, file, res,
					   0);
}

/*
 * A multishot request about to post extra CQEs: what they are charged
 * to, by value. The task, ring and tag are only compared, never followed,
 * so a snapshot outliving its request is harmless.
 */
struct ftagent_iouring_snap {
	struct task_struct *task;
	void *ctx;
	u64 user_data;
	u8 class;
	/*
	 * 6.12: io_req_post_cqe(req, res, cflags) posts at most one CQE,
	 * with these: the note serves that one only, and is dropped by the
	 * next CQE without a request from this task and ring either way.
	 */
	bool once;
	int res;
	u32 cflags;
	struct ftagent_key key;
};

static DEFINE_PER_CPU(struct ftagent_iouring_snap, ftagent_iouring_snap);

static void notrace ftagent_iouring_snapshot(struct io_kiocb *req, bool once,
					     int res, u32 cflags)
{
	struct ftagent_iouring_snap *snap = this_cpu_ptr(&ftagent_iouring_snap);
	unsigned int class = ftagent_iouring_class_of(req);
	struct task_struct *task = READ_ONCE(req->task);
	struct file *file = READ_ONCE(req->file);

	snap->task = NULL;
	if (class == FTAGENT_IOUR_NONE || class == FTAGENT_IOUR_SPLICE ||
	    !task || !file ||
	    !ftagent_account_key(file, task->tgid, &snap->key))
		return;
	snap->ctx = READ_ONCE(req->ctx);
	snap->user_data = READ_ONCE(req->cqe.user_data);
	snap->class = class;
	snap->once = once;
	snap->res = res;
	snap->cflags = cflags;
	snap->task = current;
}

/* An extra CQE was written: charge it to the snapshot it matches. */
static void notrace ftagent_iouring_extra_cqe(void *ctx, u64 user_data,
					      int res, unsigned int cflags)
{
	struct ftagent_iouring_snap *snap = this_cpu_ptr(&ftagent_iouring_snap);

	/*
	 * A multishot request's extra CQEs say there is more to come; a
	 * MSG_RING CQE another ring sends does not (6.1), and on 6.12, where
	 * it may, the note serves one CQE only: no one can post CQEs that
	 * are charged to a socket of someone else's choosing.
	 */
	if (snap->task == current && snap->ctx == ctx && snap->once) {
		snap->task = NULL;
		if (snap->user_data != user_data || snap->res != res ||
		    snap->cflags != cflags)
			goto unmatched;
	} else if (snap->task != current || snap->ctx != ctx ||
		   snap->user_data != user_data) {
		goto unmatched;
	}
	if (cflags & IORING_CQE_F_MORE) {
		/*
		 * Posted by the handler, in the submitter's context and
		 * under the request's credentials: its own principal.
		 */
		ftagent_account_key_charge(current, current_cred(), &snap->key,
					   ftagent_iouring_dir(snap->class),
					   ftagent_iouring_ret(snap->class,
							       res),
					   false);
		return;
	}
unmatched:
	if (res > 0 && (cflags & IORING_CQE_F_MORE))
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
}

/*
 * FUNNELS: io_accept (req, issue_flags), and io_recv and io_recvmsg by
 * way of the hook below: the handlers that post a multishot request's
 * extra CQEs on 6.1.
 */
static void notrace ftagent_iouring_handler_hook(unsigned long ip,
						 unsigned long parent_ip,
						 struct ftrace_ops *op,
						 struct ftrace_regs *fregs)
{
	struct io_kiocb *req = (struct io_kiocb *)ftagent_fregs_args(fregs)->di;

	if (!(READ_ONCE(req->flags) & REQ_F_APOLL_MULTISHOT))
		return;
	preempt_disable_notrace();
	ftagent_iouring_snapshot(req, false, 0, 0);
	preempt_enable_notrace();
}

/*
 * Both modes: io_recv and io_recvmsg (req, issue_flags), about to
 * receive from the request's socket: the task notes the request. Its
 * copies that fault, and its datagrams discarded for a bad checksum, are
 * filed under it when each sock_recvmsg() returns
 * (ftagent_iouring_landed()).
 */
static void notrace ftagent_iouring_recv_hook(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	struct io_kiocb *req = (struct io_kiocb *)ftagent_fregs_args(fregs)->di;

	if (READ_ONCE(ftagent_iouring_funnel_mode))
		ftagent_iouring_handler_hook(ip, parent_ip, op, fregs);
	preempt_disable_notrace();
	ftagent_mmsg_iour_begin((unsigned long)req);
	preempt_enable_notrace();
}

/*
 * io_uring's completion for reads and writes (io_complete_rw(), static
 * in io_uring/rw.c), found at load: only a request's own kiocb carries
 * it, and a request's kiocb is where the request starts.
 */
static void *ftagent_io_complete_rw;

/*
 * Both modes: sock_read_iter(iocb, to), a read of a socket. For an
 * io_uring READ, READV or READ_MULTISHOT (its kiocb completes through
 * io_complete_rw()), the task notes the request, as above. Hooked here
 * rather than on io_read(): reads of files, the common io_uring read,
 * pay nothing; every read of a socket (read(), readv(), aio) pays an
 * ftrace call and a compare.
 */
static void notrace ftagent_iouring_sock_read_hook(unsigned long ip,
						   unsigned long parent_ip,
						   struct ftrace_ops *op,
						   struct ftrace_regs *fregs)
{
	struct kiocb *iocb = (struct kiocb *)ftagent_fregs_args(fregs)->di;
	void *done = READ_ONCE(ftagent_io_complete_rw);

	if (!done || (void *)READ_ONCE(iocb->ki_complete) != done)
		return;
	preempt_disable_notrace();
	ftagent_mmsg_iour_begin((unsigned long)iocb -
				offsetof(struct io_kiocb, cmd));
	preempt_enable_notrace();
}

/* TRACEPOINT: io_req_post_cqe(req, res, cflags): an extra CQE, next. */
static void notrace ftagent_iouring_post_cqe_hook(unsigned long ip,
						  unsigned long parent_ip,
						  struct ftrace_ops *op,
						  struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);

	preempt_disable_notrace();
	ftagent_iouring_snapshot((struct io_kiocb *)args->di, true,
				 (int)args->si, (u32)args->dx);
	preempt_enable_notrace();
}

/*
 * TRACEPOINT: requests submitted with IOSQE_CQE_SKIP_SUCCESS and not yet
 * charged, by address: a set-associative table of 16K slots, allocated
 * at load in this mode only, each slot claimed and released by cmpxchg,
 * so that no lock is shared by every ring. A request that finds its set
 * full is counted as lost, not charged: a process that keeps enough
 * skipped requests pending (an idle receive each) can fill sets, which
 * docs/hooks.md states as a limit. A request is taken out when it is
 * charged, and, since a freed request's memory is reused for new ones,
 * when its address is submitted again.
 */
#define FTAGENT_SKIP_BITS	12
#define FTAGENT_SKIP_WAYS	4

/* Sets of FTAGENT_SKIP_WAYS slots. */
static void *(*ftagent_skip_table)[FTAGENT_SKIP_WAYS];
static atomic_t ftagent_skip_count = ATOMIC_INIT(0);

static void **ftagent_skip_set_of(void *req)
{
	return ftagent_skip_table[hash_ptr(req, FTAGENT_SKIP_BITS)];
}

static bool ftagent_skip_insert(void *req)
{
	void **set = ftagent_skip_set_of(req);
	int i;

	for (i = 0; i < FTAGENT_SKIP_WAYS; i++)
		if (READ_ONCE(set[i]) == req)
			return true;	/* a stale entry at this address */
	for (i = 0; i < FTAGENT_SKIP_WAYS; i++)
		if (!cmpxchg(&set[i], NULL, req)) {
			atomic_inc(&ftagent_skip_count);
			return true;
		}
	return false;
}

/* Whether @req was in the table; it is not any more. */
static bool ftagent_skip_take(void *req)
{
	void **set;
	int i;

	if (!atomic_read(&ftagent_skip_count))
		return false;
	set = ftagent_skip_set_of(req);
	for (i = 0; i < FTAGENT_SKIP_WAYS; i++)
		if (READ_ONCE(set[i]) == req &&
		    cmpxchg(&set[i], req, NULL) == req) {
			atomic_dec(&ftagent_skip_count);
			return true;
		}
	return false;
}

/* FUNNELS: io_req_complete_post(req). */
static void notrace ftagent_iouring_post_hook(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	struct io_kiocb *req = (struct io_kiocb *)ftagent_fregs_args(fregs)->di;

	preempt_disable_notrace();
	ftagent_iouring_charge(req);
	preempt_enable_notrace();
}

/*
 * FUNNELS: io_free_batch_list(ctx, node): the completed requests of a
 * batch, chained through comp_list, under the ring's uring_lock.
 */
static void notrace ftagent_iouring_batch_hook(unsigned long ip,
					       unsigned long parent_ip,
					       struct ftrace_ops *op,
					       struct ftrace_regs *fregs)
{
	struct io_wq_work_node *node =
		(struct io_wq_work_node *)ftagent_fregs_args(fregs)->si;

	preempt_disable_notrace();
	for (; node; node = READ_ONCE(node->next))
		ftagent_iouring_charge(container_of(node, struct io_kiocb,
						    comp_list));
	preempt_enable_notrace();
}

/*
 * TRACEPOINT: io_req_cqe_overflow(req): a CQE that found the ring full.
 * (A skipped request that failed posts one: it leaves the skip table.)
 */
static void notrace ftagent_iouring_overflow_hook(unsigned long ip,
						  unsigned long parent_ip,
						  struct ftrace_ops *op,
						  struct ftrace_regs *fregs)
{
	struct io_kiocb *req = (struct io_kiocb *)ftagent_fregs_args(fregs)->di;

	preempt_disable_notrace();
	ftagent_skip_take(req);
	ftagent_iouring_charge(req);
	preempt_enable_notrace();
}

/*
 * TRACEPOINT: __io_submit_flush_completions(ctx), under the ring's
 * uring_lock: the batch about to be posted and freed. Every request
 * passes here on its way to be freed, a skipped one too (6.12 sends even
 * io-wq's through it); those still in the skip table are charged.
 */
static void notrace ftagent_iouring_flush_hook(unsigned long ip,
					       unsigned long parent_ip,
					       struct ftrace_ops *op,
					       struct ftrace_regs *fregs)
{
	struct io_ring_ctx *ctx =
		(struct io_ring_ctx *)ftagent_fregs_args(fregs)->di;
	struct io_wq_work_node *node;

	if (!atomic_read(&ftagent_skip_count))
		return;
	preempt_disable_notrace();
	for (node = READ_ONCE(ctx->submit_state.compl_reqs.first); node;
	     node = READ_ONCE(node->next)) {
		struct io_kiocb *req =
			container_of(node, struct io_kiocb, comp_list);

		if ((READ_ONCE(req->flags) & REQ_F_CQE_SKIP) &&
		    ftagent_skip_take(req))
			ftagent_iouring_charge(req);
	}
	preempt_enable_notrace();
}

/*
 * io_uring_complete: a CQE written to the ring. With a request: charged
 * here in TRACEPOINT mode (FUNNELS charges it at its funnel). Without
 * one: an extra CQE of a multishot request.
 */
static void notrace ftagent_iouring_complete_probe(void *data, void *ctx,
						   void *req, u64 user_data,
						   int res, unsigned int cflags,
						   u64 extra1, u64 extra2)
{
	if (!req) {
		ftagent_iouring_extra_cqe(ctx, user_data, res, cflags);
		return;
	}
	if (!READ_ONCE(ftagent_iouring_funnel_mode)) {
		/* A skipped request that failed posts its CQE. */
		ftagent_skip_take(req);
		ftagent_iouring_charge(req);
	}
}

/*
 * TRACEPOINT: io_uring_submit_req, in the submitting task: a request
 * asking not to post its CQE on success is filed in the skip table. Any
 * other takes out what a freed request at the same address left there.
 */
static void notrace ftagent_iouring_submit_probe(void *data,
						 struct io_kiocb *req)
{
	if (!(READ_ONCE(req->flags) & REQ_F_CQE_SKIP) ||
	    ftagent_iouring_class_of(req) == FTAGENT_IOUR_NONE) {
		ftagent_skip_take(req);
		return;
	}
	if (!ftagent_skip_insert(req))
		ftagent_count_loss(FTAGENT_LOSS_IOURING);
}

/*
 * The functions io_uring's counting hooks, on one ftrace_ops whose
 * callback finds each call's function by its address. One ops, not one
 * each: taking an ops off waits for two RCU-tasks grace periods, and the
 * eight a 6.1 kernel needs were a third of an unload (a tenth of a second
 * each on a quiet 2-vCPU guest, more on a busy host).
 */
enum ftagent_iouring_hook {
	/* 0 is none: a table entry that forgot its hook is refused. */
	FTAGENT_IOUR_HOOK_POST = 1,
	FTAGENT_IOUR_HOOK_BATCH,
	FTAGENT_IOUR_HOOK_FLUSH,
	FTAGENT_IOUR_HOOK_POST_CQE,
	FTAGENT_IOUR_HOOK_RECV,
	FTAGENT_IOUR_HOOK_SOCK_READ,
	FTAGENT_IOUR_HOOK_SPLICE,
	FTAGENT_IOUR_HOOK_DO_SPLICE,
	FTAGENT_IOUR_HOOK_HANDLER,
	FTAGENT_IOUR_HOOK_OVERFLOW,
};

struct ftagent_iouring_fn {
	const char *symbol;
	enum ftagent_iouring_hook hook;
	bool funnel;		/* FUNNELS mode, else TRACEPOINT mode */
	bool both;		/* either mode */
	/* Missing (said at load), it costs only its faulting copies */
	bool optional;
};

/*
 * The busiest first, as the callback looks them up in the order they
 * are filtered: sock_read_iter() runs for every read of a socket and
 * do_splice() for every splice(), io_uring or not.
 */
static const struct ftagent_iouring_fn ftagent_iouring_fns[] = {
	{ .symbol = "sock_read_iter", .both = true, .optional = true,
	  .hook = FTAGENT_IOUR_HOOK_SOCK_READ },
	{ .symbol = "do_splice", .both = true,
	  .hook = FTAGENT_IOUR_HOOK_DO_SPLICE },
	{ .symbol = "io_req_complete_post", .funnel = true,
	  .hook = FTAGENT_IOUR_HOOK_POST },
	{ .symbol = "__io_submit_flush_completions", .funnel = false,
	  .hook = FTAGENT_IOUR_HOOK_FLUSH },
	{ .symbol = "io_free_batch_list", .funnel = true,
	  .hook = FTAGENT_IOUR_HOOK_BATCH },
	{ .symbol = "io_req_post_cqe", .funnel = false,
	  .hook = FTAGENT_IOUR_HOOK_POST_CQE },
	{ .symbol = "io_recv", .both = true,
	  .hook = FTAGENT_IOUR_HOOK_RECV },
	{ .symbol = "io_recvmsg", .both = true,
	  .hook = FTAGENT_IOUR_HOOK_RECV },
	{ .symbol = "io_splice", .both = true,
	  .hook = FTAGENT_IOUR_HOOK_SPLICE },
	{ .symbol = "io_accept", .funnel = true,
	  .hook = FTAGENT_IOUR_HOOK_HANDLER },
	{ .symbol = "io_req_cqe_overflow", .funnel = false,
	  .hook = FTAGENT_IOUR_HOOK_OVERFLOW },
};

/*
 * Where each filtered function's code is, in the order above: written
 * before the ops goes on, never while it may be called (the ops is put
 * on once, and a stuck one keeps them for good).
 */
struct ftagent_iouring_range {
	unsigned long start;
	unsigned long size;
	enum ftagent_iouring_hook hook;
};

static struct ftagent_iouring_range
	ftagent_iouring_ranges[ARRAY_SIZE(ftagent_iouring_fns)];
static unsigned int ftagent_iouring_nr_ranges;

/*
 * The ops's callback: the function @ip is in, then its hook, called
 * directly (a switch, not a pointer: no indirect call on this path).
 */
static void notrace ftagent_iouring_dispatch(unsigned long ip,
					     unsigned long parent_ip,
					     struct ftrace_ops *op,
					     struct ftrace_regs *fregs)
{
	const struct ftagent_iouring_range *r = ftagent_iouring_ranges;
	const struct ftagent_iouring_range *end = r + ftagent_iouring_nr_ranges;

	while (r < end && ip - r->start >= r->size)
		r++;
	if (r == end)
		return;
	switch (r->hook) {
	case FTAGENT_IOUR_HOOK_POST:
		ftagent_iouring_post_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_BATCH:
		ftagent_iouring_batch_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_FLUSH:
		ftagent_iouring_flush_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_POST_CQE:
		ftagent_iouring_post_cqe_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_RECV:
		ftagent_iouring_recv_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_SOCK_READ:
		ftagent_iouring_sock_read_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_SPLICE:
		ftagent_iouring_splice_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_DO_SPLICE:
		ftagent_iouring_do_splice_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_HANDLER:
		ftagent_iouring_handler_hook(ip, parent_ip, op, fregs);
		break;
	case FTAGENT_IOUR_HOOK_OVERFLOW:
		ftagent_iouring_overflow_hook(ip, parent_ip, op, fregs);
		break;
	}
}

static struct ftrace_ops ftagent_iouring_ops = {
	.func = ftagent_iouring_dispatch,
	.flags = FTRACE_OPS_FL_RECURSION,
};

/* A filter was set: freed once, at exit. */
static bool ftagent_iouring_ops_filtered;
static bool ftagent_iouring_ops_registered;

struct ftagent_iouring_tp {
	const char *name;
	bool funnel_too;	/* needed in FUNNELS mode as well */
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

static struct ftagent_iouring_tp ftagent_iouring_tps[] = {
	{ .name = "io_uring_complete", .funnel_too = true,
	  .probe = ftagent_iouring_complete_probe },
	{ .name = "io_uring_submit_req", .funnel_too = false,
	  .probe = ftagent_iouring_submit_probe },
};

/*
 * Whether this kernel keeps io_req_complete_post out of line. A kprobe
 * registered disabled finds a function by name without arming anything,
 * and is cheap; -ENOENT means the name is not there (inlined). Any other
 * answer (no kprobes, a name kprobes refuse) is settled by ftrace itself,
 * at the cost of a scan of every traceable function. A function that
 * exists but cannot be traced then turns the feature off (it is looked
 * up again, and reported, when hooked), never on halfway.
 */
static bool ftagent_iouring_funnels(void)
{
	static int funnels = -1;
	unsigned long addr;
	int err;

	if (funnels >= 0)
		return funnels;
	err = ftagent_symbol_addr("io_req_complete_post", &addr);
	if (!err || err == -ENOENT)
		funnels = !err;
	else
		funnels = ftagent_traceable("io_req_complete_post");
	return funnels;
}

bool ftagent_iouring_needs(const char *name)
{
	unsigned int i;
	bool funnels = ftagent_iouring_funnels();

	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_fns); i++)
		if (!strcmp(ftagent_iouring_fns[i].symbol, name))
			return ftagent_iouring_fns[i].both ||
			       ftagent_iouring_fns[i].funnel == funnels;
	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_tps); i++)
		if (!strcmp(ftagent_iouring_tps[i].name, name))
			return ftagent_iouring_tps[i].funnel_too || !funnels;
	return true;
}

/* Whether @r's function is one already filtered. */
static bool ftagent_iouring_overlaps(const struct ftagent_iouring_range *r)
{
	unsigned int i;

	for (i = 0; i < ftagent_iouring_nr_ranges; i++) {
		const struct ftagent_iouring_range *o =
			&ftagent_iouring_ranges[i];

		if (r->start < o->start + o->size &&
		    o->start < r->start + r->size)
			return true;
	}
	return false;
}

/* Take every hook off; the filters stay until exit. */
static void ftagent_iouring_unhook(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_tps); i++) {
		struct ftagent_iouring_tp *t = &ftagent_iouring_tps[i];

		if (t->registered)
			tracepoint_probe_unregister(t->tp, t->probe, NULL);
		t->registered = false;
	}
	/*
	 * All the functions at once, in one ftrace update. Refused, the ops
	 * may still be called: its filter and the functions' places stay,
	 * for good (ftagent_stuck()). No order among them either way (one
	 * text_poke batch): do_splice()'s hook may run without io_splice()'s
	 * for a moment, and ftagent_splice_link_take() checks the task, the
	 * output and the length, so a stale link is never used.
	 */
	if (ftagent_iouring_ops_registered) {
		int err = unregister_ftrace_function(&ftagent_iouring_ops);

		if (err) {
			ftagent_stuck("io_uring", err);
			ftagent_iouring_ops_filtered = false;
		}
	}
	ftagent_iouring_ops_registered = false;
	ftagent_iouring_install_stop();
	tracepoint_synchronize_unregister();
}

void ftagent_iouring_exit(void)
{
	ftagent_iouring_unhook();
	/*
	 * Once: ftrace_free_filter() leaves the ops pointing at the hashes it
	 * freed, so a second call would free them again.
	 */
	if (ftagent_iouring_ops_filtered)
		ftrace_free_filter(&ftagent_iouring_ops);
	ftagent_iouring_ops_filtered = false;
	/* A hook ftrace would not take off may still use the table. */
	if (ftagent_ftrace_is_stuck())
		return;
	kvfree(ftagent_skip_table);
	ftagent_skip_table = NULL;
}

/*
 * A hook that would not attach: io_uring goes uncounted, said in the
 * log and in GET_STATUS (DEGRADED), and the rest of the module loads;
 * unless strict=1 or memory ran out (ftagent_setup_fails()): the load
 * fails, and ftagent_iouring_exit() frees the rest.
 */
static int ftagent_iouring_off(const char *what, const char *name, int err,
			       bool strict)
{
	ftagent_iouring_unhook();
	if (ftagent_setup_fails(err, strict)) {
		pr_err("io_uring: cannot attach %s %s (%d): %s\n", what, name,
		       err, ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("io_uring: cannot attach %s %s (%d): running without io_uring counting\n",
		what, name, err);
	set_bit(FTAGENT_FEATURE_IOURING, &ftagent_degraded);
	return 0;
}

/* The table of skipped requests, where there is one. */
size_t ftagent_iouring_memory(void)
{
	return ftagent_kv_bytes(READ_ONCE(ftagent_skip_table),
				(1 << FTAGENT_SKIP_BITS) *
				sizeof(*ftagent_skip_table));
}

int ftagent_iouring_init(bool strict)
{
	bool funnels = ftagent_iouring_funnels();
	unsigned long start, size;
	unsigned int i;
	int err;

	WRITE_ONCE(ftagent_iouring_funnel_mode, funnels);
	if (ftagent_feature_off(FTAGENT_FEATURE_IOURING))
		return 0;	/* a tracepoint is missing: said at load */
	for (i = 0; i < ARRAY_SIZE(ftagent_splice_notes); i++)
		raw_spin_lock_init(&ftagent_splice_notes[i].lock);
	for (i = 0; i < ARRAY_SIZE(ftagent_splice_links); i++)
		raw_spin_lock_init(&ftagent_splice_links[i].lock);
	err = ftagent_function_find("io_splice", &ftagent_splice_caller_start,
				    &ftagent_splice_caller_size);
	if (err)
		return ftagent_iouring_off("function", "io_splice", err,
					   strict);
	if (!funnels) {
		ftagent_skip_table = kvcalloc(1 << FTAGENT_SKIP_BITS,
					      sizeof(*ftagent_skip_table),
					      GFP_KERNEL);
		if (!ftagent_skip_table)
			return ftagent_iouring_off("its table", "of skipped requests",
						   -ENOMEM, strict);
		atomic_set(&ftagent_skip_count, 0);
	}
	/* Missing, io_uring reads of a socket keep no note: no hook. */
	err = ftagent_function_find("io_complete_rw", &start, &size);
	if (err == -ENOMEM)
		return ftagent_iouring_off("the hook of", "io_complete_rw", err,
					   strict);
	ftagent_io_complete_rw = (void *)start;
	if (!ftagent_io_complete_rw) {
		pr_warn("io_uring: io_complete_rw not found: io_uring reads of a socket whose copy faults are not charged what landed\n");
		ftagent_symbol_unusable("io_complete_rw");
	}
	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_fns); i++) {
		const struct ftagent_iouring_fn *f = &ftagent_iouring_fns[i];
		struct ftagent_iouring_range *r =
			&ftagent_iouring_ranges[ftagent_iouring_nr_ranges];

		if (!f->both && f->funnel != funnels)
			continue;
		if (WARN_ON_ONCE(!f->hook))
			return ftagent_iouring_off("function", f->symbol,
						   -EINVAL, strict);
		if (f->hook == FTAGENT_IOUR_HOOK_SOCK_READ &&
		    !ftagent_io_complete_rw)
			continue;
		err = ftagent_symbol_filter_at(&ftagent_iouring_ops, f->symbol,
					       &r->start, &r->size);
		ftagent_iouring_ops_filtered = true;
		if (err == -ENOENT && f->optional)
			continue;
		/* Optional, and no kprobe finds it: only its own work goes. */
		if (err == -EOPNOTSUPP && f->optional && !strict) {
			pr_warn("io_uring: cannot attach function %s (%d): its work goes uncounted\n",
				f->symbol, err);
			ftagent_symbol_unusable(f->symbol);
			continue;
		}
		if (err == -ENOENT) {
			/*
			 * Said once (symbols.c), and the feature is off: count
			 * nothing rather than half. Exit frees the filter.
			 */
			ftagent_iouring_unhook();
			return 0;
		}
		/* Two names for one function: one of the hooks would not run. */
		if (!err && ftagent_iouring_overlaps(r))
			err = -EINVAL;
		if (err)
			return ftagent_iouring_off("function", f->symbol, err,
						   strict);
		r->hook = f->hook;
		ftagent_iouring_nr_ranges++;
	}
	/* Every mode needs functions that are not optional. */
	if (WARN_ON_ONCE(!ftagent_iouring_nr_ranges))
		return ftagent_iouring_off("functions", "of io_uring", -EINVAL,
					   strict);
	err = ftagent_ftrace_on(&ftagent_iouring_ops);
	if (err)
		return ftagent_iouring_off("functions", "of io_uring", err,
					   strict);
	ftagent_iouring_ops_registered = true;
	for (i = 0; i < ARRAY_SIZE(ftagent_iouring_tps); i++) {
		struct ftagent_iouring_tp *t = &ftagent_iouring_tps[i];

		if (!t->funnel_too && funnels)
			continue;
		t->tp = ftagent_tracepoint(t->name);
		err = t->tp ? tracepoint_probe_register(t->tp, t->probe, NULL) :
			      -ENOENT;
		if (err)
			return ftagent_iouring_off("tracepoint", t->name, err,
						   strict);
		t->registered = true;
	}
	/*
	 * Records only (said in the log if not): after the counting. Fails
	 * only when out of memory.
	 */
	err = ftagent_iouring_install_start();
	if (err)
		return ftagent_iouring_off("the records hook", "fd_install", err,
					   strict);
	return 0;
}

#else /* !CONFIG_IO_URING: nothing to count */

void ftagent_iouring_landed(unsigned long req, u32 bytes)
{
}

bool ftagent_iouring_needs(const char *name)
{
	return false;
}

int ftagent_iouring_init(bool strict)
{
	return 0;
}

void ftagent_iouring_exit(void)
{
}

size_t ftagent_iouring_memory(void)
{
	return 0;
}

#endif
