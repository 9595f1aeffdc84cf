// SPDX-License-Identifier: GPL-2.0
/*
 * Socket byte counts as the kernel counts them: each message of a
 * sendmmsg or recvmmsg, and what a recvfrom or recvmsg received.
 *
 * A *mmsg call returns how many messages moved; each message's byte
 * count goes only into the caller's msg_len field. Reading those back at
 * return would let a sibling thread zero them, or unmap the vector,
 * between the kernel's write and the read. And a recvfrom or recvmsg
 * can fail with EFAULT after its data arrived, when the kernel cannot
 * store the sender's address, msg_flags or the control length: the data
 * is in the caller's buffer, the return value says nothing of it, and a
 * bytes_received budget would never see it. So the counts are taken
 * from the kernel instead:
 *
 * - sent: __sys_sendmmsg() moves each message with a call to
 *   ___sys_sendmsg(), whose return value is that message's count;
 * - received: every recvfrom, recvmsg and recvmmsg message comes from
 *   sock_recvmsg() (or its security-check-free twin, which recvmmsg uses
 *   after the first message). Where the kernel has the sock_recv_length
 *   tracepoint (6.3 on), a probe on it has the count; before that, a
 *   kprobe on the instruction after __sys_recvfrom()'s and
 *   ____sys_recvmsg()'s call to sock_recvmsg() finds it in %eax. The
 *   inlined calls of the twin return to that same instruction on
 *   Debian's builds; where they return through copies of the code after
 *   it, each of their return sites is probed too (ftagent_mmsg_twins()).
 *
 * Each count is added to the calling task's slot in a table; the settle
 * of the call takes the sum (ftagent_mmsg_take()) and charges it as the
 * call's bytes, even when the call then failed with EFAULT.
 *
 * The kprobes run from int3, which the kernel handles in NMI context
 * (a jump-optimized kprobe runs with preemption off instead, as does a
 * tracepoint probe), at a fixed point where the task holds no lock. So
 * the handler only adds to the table: plain stores to the task's own
 * slot and one cmpxchg to claim it; counters, budgets and events stay
 * in the settle, in the task's ordinary context. It adds only inside the
 * body of a traced call of the matching kind (an io_uring request, a
 * read() of a socket, a kernel thread's receive, or work run on the way
 * back to user mode is not one), so the sum is one call's.
 *
 * A receive can also fault inside the data copy: a datagram socket
 * (UDP, Unix datagram, raw, packet) then drops the datagram and returns
 * EFAULT from sock_recvmsg() itself, with what it copied into the
 * caller's buffer up to the fault, and the message's iterator reverted,
 * so nothing says how much that was. Except the revert: every such copy
 * is __skb_datagram_iter(), or for a linear UDP datagram the inlined
 * copy_linear_skb() in udp_recvmsg() and udpv6_recvmsg(), whose fault
 * path calls iov_iter_revert() with the bytes the copy advanced over. A
 * kprobe on that call (on no other path of those functions; IPv6 built
 * as a module is not probed) adds them to the task's slot as "faulted"
 * (added: a fragment list reverts once per nested copy). A copy that
 * verifies the checksum as it goes (skb_copy_and_csum_datagram_msg())
 * advances only over whole segments, so its revert says nothing of the
 * segment it was writing when it faulted: an ftrace hook on its entry
 * notes the datagram's length, and a fault inside it counts that whole
 * length, the most that can have landed. The message's return probe
 * adds the faulted bytes to the call's if that message failed with
 * EFAULT and drops them otherwise (a stream that faults after copying
 * some returns those, the rest still queued). read(), readv() and
 * preadv2() (offset -1) of a socket have no return probe: their settle
 * takes the faulted bytes when the call failed with EFAULT, and drops
 * them otherwise (ftagent_mmsg_take_read()); it looks only while some
 * slot holds a fault (ftagent_mmsg_faults), so other reads pay one
 * load. A stream socket that faults before copying anything also fails
 * with EFAULT, its data still queued: what landed in the buffer is
 * charged then, and again when it is read, as a MSG_PEEK is
 * (docs/hooks.md).
 *
 * Slots: 8-way buckets, a task's own or, when full, one of the next 7
 * (its home bucket's spill count says so); with every one of those taken
 * the message's bytes are lost (counted as pending_table: too many calls
 * in flight). A task that dies inside a call gives its slot back at
 * exit. An ftrace hook on the entry of __sys_sendmmsg() and
 * do_recvmmsg() clears a slot a task still holds from a call no settle
 * ended (marked on entry, then function tracing was turned off, or the
 * hooks detached or the module reloaded, before its return): those bytes
 * are counted lost, never charged to the next call. A call whose entry
 * no hook marked (in flight when the module first loaded, or begun with
 * tracing off) keeps no bytes at all (ftagent_mmsg_wanted()). A
 * recvfrom or recvmsg that succeeded returned its own count, so its
 * settle counts anything more in the slot lost in the same way.
 *
 * The call sites are found at load (callsites.c), and the kprobe core
 * accepts only an address on an instruction boundary. __sys_sendmmsg()
 * calls once for native and once for compat messages, the receivers
 * once each; fewer sites than that means the compiler inlined one: the
 * feature is then off (DEGRADED, with the caller as MISSING) and the
 * settle reads the *mmsg lengths back from the caller's memory, as
 * before, and charges a failed receive nothing. The kprobes cost
 * nothing outside the functions they sit in; the tracepoint costs every
 * sock_recvmsg() on the system a call to a probe that returns at once
 * unless the task is in a traced receive.
 *
 * The probes are registered before the syscall hooks attach and taken
 * off after they are gone, and a probe adds only for a call the hooks
 * trace, so a call is charged by one scheme from entry to return.
 *
 * io_uring receives run outside any traced call. Their entry (io_recv,
 * io_recvmsg; sock_read_iter for a read) notes the request in the task's
 * slot, the fault probes keep its fault state there as for a call, and
 * each sock_recvmsg() return outside a traced call (the tracepoint, or on
 * 6.1 probes on the returns in io_recv, io_recvmsg, sock_read_iter and
 * ____sys_recvmsg) files what landed under the request for its
 * completion to charge (iouring.c). No byte counts are kept for them:
 * their completion has the result, except for the one thing it leaves
 * out: the last message of a single-shot RECVMSG that failed after
 * receiving it (a probe on io_recvmsg's return from
 * __sys_recvmsg_sock() files it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/unistd.h>

#include "calls.h"
#include "callsites.h"
#include "compat/ftrace.h"
#include "counters.h"
#include "hooks.h"
#include "iouring.h"
#include "memory.h"
#include "mmsg.h"
#include "symbols.h"

struct sock;

/*
 * Sites per caller: the native and the compat branch; or the main call
 * and the return sites of its inlined twin's calls (ftagent_mmsg_twins()).
 */
#define FTAGENT_MMSG_SITES	6

struct ftagent_mmsg_caller {
	const char *caller;	/* the loop over the messages, or the call */
	const char *callee;	/* what moves one message */
	/* A received count, which sock_recv_length has where there is one */
	bool recv;
	bool compat_twice;	/* a second call for compat messages */
	bool at_call;		/* probe the call (its arguments), not its return */
	/*
	 * An io_uring receive's return from sock_recvmsg(), where there is
	 * no sock_recv_length: probed with the fault watch, each on its own
	 * (a site not found loses that path's faults, said as missing).
	 */
	bool iour;
	/*
	 * io_uring RECVMSG's own call, probed at its return on every
	 * kernel: what the request's result leaves out (iour_recvd).
	 */
	bool iour_result;
	/*
	 * One of several ways to see the same result, tried in order (the
	 * first whose calls are found is the one probed): a multishot
	 * RECVMSG's receive is its own function on one build, inlined
	 * into io_recvmsg on another.
	 */
	bool alternative;
	/*
	 * Only if @caller makes exactly one call to @callee: a callee as
	 * common as _copy_to_user() is the header copy only if it is the
	 * one copy out there (6.1's io_recvmsg); more, and another build
	 * may have inlined other copies whose faults are not the header's.
	 */
	bool one_site;
	/* Its name in symbols.c's table when its site is missing, or none */
	const char *report;
	/*
	 * Callees of an inlined twin of @callee (NULL-terminated) whose
	 * calls come back through the probed return site, or through copies
	 * of the code after it that get probes of their own, or the
	 * feature is off (ftagent_mmsg_twins()).
	 */
	const char *const *twins;
	kprobe_pre_handler_t handler;
	struct kprobe kps[FTAGENT_MMSG_SITES];
	unsigned int nr_kps;	/* registered */
};

struct ftagent_mmsg_slot {
	unsigned long task;	/* 0: free; else only this task writes it */
	long bytes;
	/*
	 * The message being received: what its copies that faulted had
	 * copied, not yet in @bytes; and the length of a datagram whose
	 * copy checks its checksum as it goes. A message is at most
	 * MAX_RW_COUNT bytes.
	 */
	u32 faulted, csum_len;
	/*
	 * What copies put into the caller's buffer of datagrams the kernel
	 * then discarded for a bad checksum: charged whatever the call
	 * returns.
	 */
	u32 dropped;
	/*
	 * Outside a traced call, what the io_uring request's (below) last
	 * sock_recvmsg() returned, if bytes: a RECVMSG that then cannot
	 * write the message's name, flags or control length back fails with
	 * EFAULT, and its result leaves them out although they are in the
	 * caller's buffer. (Here it fills what would be padding.)
	 */
	u32 iour_recvd;
	/*
	 * Outside a traced call: the io_uring request whose receive the
	 * task last began (its entry hook notes it, ftagent_mmsg_iour_begin()).
	 * The fields above then hold its copies' fault state, which each
	 * sock_recvmsg() return turns into bytes filed under the request
	 * (iouring.c), charged when it completes. An address only, never
	 * followed: the request may be gone.
	 */
	unsigned long iour_req;
};

/* FTAGENT_MMSG_BITS's arithmetic, and iour_recvd in what was padding. */
static_assert(sizeof(struct ftagent_mmsg_slot) == 40);

#define FTAGENT_MMSG_BITS	16	/* 64K slots of 40 bytes, 2.5 MB */
#define FTAGENT_MMSG_WAYS	8
#define FTAGENT_MMSG_BUCKETS	(BIT(FTAGENT_MMSG_BITS) / FTAGENT_MMSG_WAYS)
#define FTAGENT_MMSG_REACH	8	/* buckets a task may use */
static_assert(FTAGENT_MMSG_REACH <= FTAGENT_MMSG_BUCKETS);

static struct ftagent_mmsg_slot *ftagent_mmsg_slots;
/* Per home bucket: its tasks' slots outside it (as hooks_ftrace.c). */
static atomic_t *ftagent_mmsg_spills;
/* Slots with faulted, csum_len or dropped set: read settles look then. */
atomic_t ftagent_mmsg_faults = ATOMIC_INIT(0);
/* The fault probes are on: io_uring receives note their request. */
static bool ftagent_mmsg_iour_watch;

static unsigned long ftagent_mmsg_home(struct task_struct *t)
{
	return hash_ptr(t, ilog2(FTAGENT_MMSG_BUCKETS));
}

static struct ftagent_mmsg_slot *ftagent_mmsg_bucket(unsigned long home,
						     unsigned int n)
{
	return &ftagent_mmsg_slots[((home + n) & (FTAGENT_MMSG_BUCKETS - 1)) *
				   FTAGENT_MMSG_WAYS];
}

/* @t's slot, or NULL; *@spilled: outside its home bucket. */
static __always_inline struct ftagent_mmsg_slot *
ftagent_mmsg_find(struct task_struct *t, bool *spilled)
{
	unsigned long home = ftagent_mmsg_home(t);
	unsigned int n, reach = 1, i;
	struct ftagent_mmsg_slot *b;

	if (atomic_read(&ftagent_mmsg_spills[home]))
		reach = FTAGENT_MMSG_REACH;
	for (n = 0; n < reach; n++) {
		b = ftagent_mmsg_bucket(home, n);
		for (i = 0; i < FTAGENT_MMSG_WAYS; i++) {
			if (READ_ONCE(b[i].task) == (unsigned long)t) {
				*spilled = n;
				return &b[i];
			}
		}
	}
	return NULL;
}

/* The call in @nr takes its bytes from here (for @recv, or sent ones). */
static __always_inline bool ftagent_mmsg_call(u32 nr, bool recv)
{
#ifdef CONFIG_IA32_EMULATION
	if (in_ia32_syscall())
		return nr == __NR_ia32_socketcall ||
		       (recv ? nr == __NR_ia32_recvfrom ||
			       nr == __NR_ia32_recvmsg ||
			       nr == __NR_ia32_recvmmsg ||
			       nr == __NR_ia32_recvmmsg_time64 :
			       nr == __NR_ia32_sendmmsg);
#endif
#ifdef CONFIG_X86_X32_ABI
	if (nr & __X32_SYSCALL_BIT) {
		nr &= ~__X32_SYSCALL_BIT;
		/* x32's own entry points for these (structures of its own). */
		if (recv && (nr == __NR_x32_recvfrom ||
			     nr == __NR_x32_recvmsg ||
			     nr == __NR_x32_recvmmsg))
			return true;
		if (!recv && nr == __NR_x32_sendmmsg)
			return true;
	}
#endif
	nr &= ~__X32_SYSCALL_BIT;
	return recv ? nr == __NR_recvfrom || nr == __NR_recvmsg ||
		      nr == __NR_recvmmsg :
		      nr == __NR_sendmmsg;
}

/*
 * read(), readv() and preadv2() (an offset of -1 makes it readv()): of a
 * socket, they receive through sock_recvmsg(), and their settle takes
 * what a faulting copy had copied when they fail with EFAULT. pread64
 * and preadv do not reach a socket (ESPIPE).
 */
static bool ftagent_mmsg_read_call(u32 nr)
{
#ifdef CONFIG_IA32_EMULATION
	if (in_ia32_syscall())
		return nr == __NR_ia32_read || nr == __NR_ia32_readv ||
		       nr == __NR_ia32_preadv2;
#endif
#ifdef CONFIG_X86_X32_ABI
	if ((nr & __X32_SYSCALL_BIT) &&
	    ((nr & ~__X32_SYSCALL_BIT) == __NR_x32_readv ||
	     (nr & ~__X32_SYSCALL_BIT) == __NR_x32_preadv2))
		return true;
#endif
	nr &= ~__X32_SYSCALL_BIT;
	return nr == __NR_read || nr == __NR_readv || nr == __NR_preadv2;
}

/*
 * Is the current task inside the body of a traced call? Its number in
 * *@nr, if so.
 *
 * - Not an io thread or a kernel thread (they start with zeroed
 *   registers, and orig_ax 0 is read()), nor a dying task, whose slot
 *   the exit probe has already given back.
 * - The call is picked by its number; its hook is only tested for NULL
 *   (the unload frees the hooks while this may run).
 * - The body of a call whose entry a hook marked (hooks.h:
 *   ftagent_in_body()), so its settle will take the bytes: not a call
 *   that began while function tracing was off, nor work the kernel runs
 *   on the way back to user mode, such as an io_uring receive run as
 *   task work after the settle of a recvfrom, whose orig_ax still says
 *   so.
 */
static __always_inline bool ftagent_mmsg_in_body(u32 *nr)
{
	struct pt_regs *regs = current_pt_regs();

	if (current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING))
		return false;
	if (!ftagent_in_body(regs))
		return false;
	/* Only calls the hooks trace: their settle takes the sum. */
	if (!ftagent_hook_for(regs))
		return false;
	*nr = (u32)regs->orig_ax;
	return true;
}

/* Inside a traced call whose settle takes the sum, of @recv bytes? */
static __always_inline bool ftagent_mmsg_wanted(bool recv)
{
	u32 nr;

	return ftagent_mmsg_in_body(&nr) && ftagent_mmsg_call(nr, recv);
}

/*
 * The current task's slot, claimed if it has none; NULL when every slot
 * it may use is taken: what it would have held is lost, and counted.
 */
static __always_inline struct ftagent_mmsg_slot *ftagent_mmsg_claim(void)
{
	struct task_struct *t = current;
	unsigned long home = ftagent_mmsg_home(t);
	struct ftagent_mmsg_slot *s, *b;
	unsigned int n, i;
	bool spilled;

	s = ftagent_mmsg_find(t, &spilled);
	if (s)
		return s;
	for (n = 0; n < FTAGENT_MMSG_REACH; n++) {
		b = ftagent_mmsg_bucket(home, n);
		for (i = 0; i < FTAGENT_MMSG_WAYS; i++) {
			if (READ_ONCE(b[i].task) ||
			    cmpxchg(&b[i].task, 0UL, (unsigned long)t))
				continue;
			/* A slot is given back with no fault state. */
			WRITE_ONCE(b[i].bytes, 0);
			WRITE_ONCE(b[i].iour_req, 0UL);
			WRITE_ONCE(b[i].iour_recvd, 0);
			if (n)
				atomic_inc(&ftagent_mmsg_spills[home]);
			return &b[i];
		}
	}
	ftagent_count_loss(FTAGENT_LOSS_PENDING_TABLE);
	return NULL;
}

/* An ia32 socketcall() that receives. */
static bool ftagent_mmsg_socketcall_receives(const struct pt_regs *regs)
{
	u32 call = regs->bx;

	return call == SYS_RECV || call == SYS_RECVFROM ||
	       call == SYS_RECVMSG || call == SYS_RECVMMSG;
}

/*
 * Inside a traced call whose receive copies are watched for faults: a
 * receive, or a read of what may be a socket, not a softirq that
 * interrupted it. (From int3 the kernel is in NMI context, so in_task()
 * cannot say; the softirq bits are the interrupted context's.)
 */
static bool ftagent_mmsg_fault_wanted(void)
{
	u32 nr;

	if (in_serving_softirq() || !ftagent_mmsg_in_body(&nr))
		return false;
#ifdef CONFIG_IA32_EMULATION
	if (in_ia32_syscall() && nr == __NR_ia32_socketcall)
		return ftagent_mmsg_socketcall_receives(current_pt_regs());
#endif
	return ftagent_mmsg_call(nr, true) || ftagent_mmsg_read_call(nr);
}

/*
 * Outside any traced call, the current task's slot if an io_uring
 * receive of the task noted its request there (ftagent_mmsg_iour_begin()),
 * else NULL. Not a softirq, not a kernel thread or a dying task (an io
 * thread is none of these). What else copies to user memory there (an
 * io_uring read of a tun device, a receive begun before the module
 * loaded) may find the request of the task's last io_uring receive: its
 * bytes are filed under that address, which no completion of another
 * process can take (iouring.c).
 */
static __always_inline struct ftagent_mmsg_slot *ftagent_mmsg_iour_slot(void)
{
	struct ftagent_mmsg_slot *s;
	bool spilled;

	if (!READ_ONCE(ftagent_mmsg_iour_watch) || in_serving_softirq() ||
	    (current->flags & (PF_KTHREAD | PF_EXITING)) ||
	    ftagent_in_body(current_pt_regs()))
		return NULL;
	s = ftagent_mmsg_find(current, &spilled);
	return s && READ_ONCE(s->iour_req) ? s : NULL;
}

/*
 * The slot a receive copy's fault state goes into: the task's own,
 * claimed, inside a traced call whose copies are watched; outside any,
 * the slot an io_uring receive noted its request in. NULL: neither.
 */
static __always_inline struct ftagent_mmsg_slot *ftagent_mmsg_fault_slot(void)
{
	if (ftagent_mmsg_fault_wanted())
		return ftagent_mmsg_claim();
	return ftagent_mmsg_iour_slot();
}

/* Whether @s holds fault state: a faulted copy, a checksummed length, a discard. */
static __always_inline bool ftagent_mmsg_has_fault(const struct ftagent_mmsg_slot *s)
{
	return s->faulted || s->csum_len || s->dropped;
}

/*
 * Set @s's fault state, keeping ftagent_mmsg_faults the number of slots
 * that have one. Only @s's task calls this, from its own context.
 */
static void ftagent_mmsg_set_fault(struct ftagent_mmsg_slot *s, u32 faulted,
				   u32 csum_len, u32 dropped)
{
	bool had = ftagent_mmsg_has_fault(s);
	bool has = faulted || csum_len || dropped;

	WRITE_ONCE(s->faulted, faulted);
	WRITE_ONCE(s->csum_len, csum_len);
	WRITE_ONCE(s->dropped, dropped);
	if (had && !has)
		atomic_dec(&ftagent_mmsg_faults);
	else if (!had && has)
		atomic_inc(&ftagent_mmsg_faults);
}

/*
 * The current task's call moved @bytes in one message. NMI context from
 * an int3, with IRQs on from a jump-optimized probe, preemption off from
 * a tracepoint; always synchronous at the probed site, in the task's own
 * context, where it holds no lock. No interrupt handler runs ftagent
 * code, so the per-CPU loss count, which preemption being off keeps to
 * this task, is safe too.
 */
static void ftagent_mmsg_add(long bytes, bool recv)
{
	struct ftagent_mmsg_slot *s;

	if (!ftagent_mmsg_wanted(recv))
		return;
	s = ftagent_mmsg_claim();
	if (s)
		WRITE_ONCE(s->bytes, s->bytes + bytes);
}

void notrace ftagent_mmsg_iour_begin(unsigned long req)
{
	struct ftagent_mmsg_slot *s;

	/* A kernel worker runs a dying task's requests: no slot kept. */
	if (!READ_ONCE(ftagent_mmsg_iour_watch) ||
	    (current->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	s = ftagent_mmsg_claim();
	if (!s)
		return;
	/*
	 * Fault state no sock_recvmsg() return took (a copy outside any
	 * receive, or a return this kernel's probes do not see): lost.
	 */
	if (unlikely(ftagent_mmsg_has_fault(s))) {
		if (s->faulted || s->dropped)
			ftagent_count_loss(FTAGENT_LOSS_IOURING);
		ftagent_mmsg_set_fault(s, 0, 0, 0);
	}
	WRITE_ONCE(s->iour_req, req);
	WRITE_ONCE(s->iour_recvd, 0);
}

/*
 * Outside a traced call, a sock_recvmsg() returned @ret: what its copies
 * left in the caller's buffer beyond @ret (a discarded datagram's bytes,
 * and if it failed with EFAULT what a faulting copy had copied) is filed
 * under the io_uring request the task noted, for its completion to
 * charge. Decided per return: a request that goes on after a failed
 * message (MSG_WAITALL on a SOCK_SEQPACKET, a multishot receive) reports
 * a result that says nothing of it.
 */
static void ftagent_mmsg_iour_returned(int ret)
{
	struct ftagent_mmsg_slot *s = ftagent_mmsg_iour_slot();
	u32 landed;

	if (!s)
		return;
	WRITE_ONCE(s->iour_recvd, ret > 0 ? ret : 0);
	if (likely(!ftagent_mmsg_has_fault(s)))
		return;
	landed = s->dropped + (ret == -EFAULT ? s->faulted : 0);
	ftagent_mmsg_set_fault(s, 0, 0, 0);
	if (landed)
		ftagent_iouring_landed(READ_ONCE(s->iour_req), landed);
}

/*
 * io_recvmsg()'s call of __sys_recvmsg_sock() returned (its result in
 * ax). Failed after sock_recvmsg() gave bytes (____sys_recvmsg() could
 * not write the name, the flags or the control length back: EFAULT), it
 * still put them in the caller's buffer, and the request's result leaves
 * them out: they are filed under the request, beyond its result, as a
 * recvmsg() system call's are charged whatever it returns.
 */
static int ftagent_mmsg_iour_recvmsg_done(struct kprobe *p,
					  struct pt_regs *regs)
{
	struct ftagent_mmsg_slot *s = ftagent_mmsg_iour_slot();
	u32 recvd;

	if (!s)
		return 0;
	recvd = READ_ONCE(s->iour_recvd);
	WRITE_ONCE(s->iour_recvd, 0);
	if (recvd && (long)regs->ax < 0)
		ftagent_iouring_landed(READ_ONCE(s->iour_req), recvd);
	return 0;
}

/*
 * A multishot RECVMSG's message: sock_recvmsg() gave its bytes, then the
 * io_uring_recvmsg_out header is copied to the start of the provided
 * buffer. That copy can fault (the buffer's first page read-only), and
 * the request then ends with EFAULT: its result leaves out the payload
 * that landed after the header. 6.12 keeps the receive in its own
 * function (a negative return), 6.1 inlines it into io_recvmsg, where
 * the header's copy is its one _copy_to_user() (bytes not copied).
 */
static void ftagent_mmsg_iour_multishot_done(bool failed)
{
	struct ftagent_mmsg_slot *s = ftagent_mmsg_iour_slot();
	u32 recvd;

	if (!s)
		return;
	recvd = READ_ONCE(s->iour_recvd);
	WRITE_ONCE(s->iour_recvd, 0);
	if (recvd && failed)
		ftagent_iouring_landed(READ_ONCE(s->iour_req), recvd);
}

static int ftagent_mmsg_iour_multishot_returned(struct kprobe *p,
						struct pt_regs *regs)
{
	ftagent_mmsg_iour_multishot_done((int)regs->ax < 0);
	return 0;
}

static int ftagent_mmsg_iour_header_copied(struct kprobe *p,
					   struct pt_regs *regs)
{
	ftagent_mmsg_iour_multishot_done(regs->ax != 0);
	return 0;
}

/*
 * A message of the current task's receive came back with @ret: bytes,
 * or an errno. The same context as ftagent_mmsg_add(). A copy that
 * faulted in it counts only if the message then failed with EFAULT: a
 * stream that faults after copying some returns those, and keeps the
 * rest queued.
 */
static void ftagent_mmsg_returned(int ret)
{
	struct ftagent_mmsg_slot *s;
	bool spilled;

	if (!ftagent_mmsg_wanted(true)) {
		ftagent_mmsg_iour_returned(ret);
		return;
	}
	if (ret > 0) {
		s = ftagent_mmsg_claim();
		if (s)
			WRITE_ONCE(s->bytes, s->bytes + ret);
	} else {
		s = ftagent_mmsg_find(current, &spilled);
		if (s && ret == -EFAULT)
			WRITE_ONCE(s->bytes, s->bytes + s->faulted);
	}
	/* What a discarded datagram left stays for the settle. */
	if (s && unlikely(s->faulted || s->csum_len))
		ftagent_mmsg_set_fault(s, 0, 0, s->dropped);
}

/*
 * Give @t's slot back, its fault state cleared: its bytes, in *@faulted
 * what its faulting copies had copied, and in *@dropped what discarded
 * datagrams left in the buffer.
 */
static __always_inline long
ftagent_mmsg_release(struct task_struct *t, u32 *faulted, u32 *dropped)
{
	struct ftagent_mmsg_slot *s;
	bool spilled;
	long bytes;

	*faulted = 0;
	*dropped = 0;
	s = ftagent_mmsg_find(t, &spilled);
	if (!s)
		return 0;
	bytes = READ_ONCE(s->bytes);
	*faulted = READ_ONCE(s->faulted);
	*dropped = READ_ONCE(s->dropped);
	if (unlikely(ftagent_mmsg_has_fault(s)))
		ftagent_mmsg_set_fault(s, 0, 0, 0);
	/* Release: the slot's bytes are read before another task claims it. */
	smp_store_release(&s->task, 0UL);
	if (spilled)
		atomic_dec(&ftagent_mmsg_spills[ftagent_mmsg_home(t)]);
	return bytes;
}

long ftagent_mmsg_take(struct task_struct *t)
{
	u32 faulted, dropped;

	return ftagent_mmsg_release(t, &faulted, &dropped) + dropped;
}

long ftagent_mmsg_take_recv(struct task_struct *t, long *dropped)
{
	u32 faulted, discarded;
	long bytes = ftagent_mmsg_release(t, &faulted, &discarded);

	*dropped = discarded;
	return bytes;
}

long ftagent_mmsg_take_read(struct task_struct *t, long ret)
{
	u32 faulted, dropped;

	/* A read adds no bytes: any are a call's that no settle ended. */
	if (ftagent_mmsg_release(t, &faulted, &dropped))
		ftagent_count_loss(FTAGENT_LOSS_PENDING_TABLE);
	return (ret == -EFAULT ? faulted : 0) + dropped;
}

/* A task that dies inside a counted call: its bytes are lost. */
static void notrace ftagent_mmsg_task_exit(void *data, struct task_struct *p)
{
	if (ftagent_mmsg_take(p))
		ftagent_count_loss(FTAGENT_LOSS_PENDING_TABLE);
}

/* ___sys_sendmsg() returned: int bytes, or an errno. */
static int ftagent_mmsg_sent(struct kprobe *p, struct pt_regs *regs)
{
	int ret = (int)regs->ax;

	if (ret > 0)
		ftagent_mmsg_add(ret, false);
	return 0;
}

/* sock_recvmsg() returned: int bytes, or an errno. */
static int ftagent_mmsg_received(struct kprobe *p, struct pt_regs *regs)
{
	ftagent_mmsg_returned((int)regs->ax);
	return 0;
}

/* The same, from the sock_recv_length tracepoint where there is one. */
static void notrace ftagent_mmsg_recv_length(void *data, struct sock *sk,
					     int ret, int flags)
{
	ftagent_mmsg_returned(ret);
}

/*
 * __skb_datagram_iter() (or UDP's linear copy) is about to revert the
 * iterator of a copy that faulted: its second argument is how far the
 * copy had advanced it. Kept for the receive's return (or, for read(),
 * readv() and preadv2(), its settle) to charge if the call failed with
 * EFAULT. Inside a copy that checks the checksum as it goes, which
 * advances only over whole segments, the datagram's length instead.
 */
static int ftagent_mmsg_faulted(struct kprobe *p, struct pt_regs *regs)
{
	struct ftagent_mmsg_slot *s;
	u32 faulted;

	s = ftagent_mmsg_fault_slot();
	if (!s)
		return 0;
	faulted = s->csum_len ? s->csum_len :
				s->faulted + (u32)min_t(unsigned long, regs->si,
							MAX_RW_COUNT);
	ftagent_mmsg_set_fault(s, faulted, s->csum_len, s->dropped);
	return 0;
}

/*
 * skb_copy_and_csum_datagram_msg() copied a whole datagram, found its
 * checksum bad, and is about to revert the iterator by its length (the
 * second argument) before the datagram is discarded: those bytes are in
 * the caller's buffer all the same, whatever the receive then returns
 * (the next datagram, or EAGAIN). A sender anywhere can make them.
 */
static int ftagent_mmsg_discarded(struct kprobe *p, struct pt_regs *regs)
{
	struct ftagent_mmsg_slot *s = ftagent_mmsg_fault_slot();

	if (s)
		ftagent_mmsg_set_fault(s, s->faulted, 0,
				       s->dropped +
				       (u32)min_t(unsigned long, regs->si,
						  MAX_RW_COUNT));
	return 0;
}

/*
 * Entry of skb_copy_and_csum_datagram_msg(skb, hlen, msg): a datagram
 * whose checksum is checked as it is copied (a software checksum: a
 * sender that used MSG_MORE or UDP_CORK, UDP-Lite, a reassembled or
 * unverified datagram). When the buffer holds it whole, that is the copy
 * that runs, and a fault inside it may have written up to the whole
 * payload; otherwise the plain copy runs, which the revert measures.
 */
static void notrace ftagent_mmsg_csum_entry(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	const struct sk_buff *skb = (const struct sk_buff *)args->di;
	struct msghdr *msg = (struct msghdr *)args->dx;
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);
	struct ftagent_mmsg_slot *s;
	bool spilled, whole;
	long len;

	if (bit < 0)
		return;
	len = (long)skb->len - (int)args->si;
	whole = len > 0 && msg_data_left(msg) >= len;
	if (ftagent_mmsg_fault_wanted())
		s = whole ? ftagent_mmsg_claim() :
			    ftagent_mmsg_find(current, &spilled);
	else
		s = ftagent_mmsg_iour_slot();
	if (!s)
		goto out;
	if (whole)
		ftagent_mmsg_set_fault(s, s->faulted, len, s->dropped);
	else if (s->csum_len)
		ftagent_mmsg_set_fault(s, s->faulted, 0, s->dropped);
out:
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ftagent_mmsg_csum_ops = {
	.func = ftagent_mmsg_csum_entry,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool ftagent_mmsg_csum_on;

/*
 * recvmmsg's messages after the first skip the security check:
 * ____sys_recvmsg() then calls sock_recvmsg_nosec(), inlined, which calls
 * the protocol's recvmsg (INDIRECT_CALL_INET: these two directly). Debian's
 * build jumps back from each to the instruction after its call to
 * sock_recvmsg(), where the probe is; another build (the debug
 * kernel's, with KASAN) does not, and those messages would go unseen
 * there without probes of their own: ftagent_mmsg_twins().
 */
static const char *const ftagent_mmsg_nosec_calls[] = {
	"inet_recvmsg", "inet6_recvmsg", NULL,
};

static struct ftagent_mmsg_caller ftagent_mmsg_callers[] = {
	{ .caller = "__sys_sendmmsg", .callee = "___sys_sendmsg",
	  .compat_twice = true, .handler = ftagent_mmsg_sent },
	/* recvmsg and each recvmmsg message */
	{ .caller = "____sys_recvmsg", .callee = "sock_recvmsg", .recv = true,
	  .twins = ftagent_mmsg_nosec_calls,
	  .handler = ftagent_mmsg_received },
	{ .caller = "__sys_recvfrom", .callee = "sock_recvmsg", .recv = true,
	  .handler = ftagent_mmsg_received },
	/*
	 * Only the fault paths: what a faulting copy had copied. UDP copies
	 * a linear datagram itself (copy_linear_skb(), inlined).
	 */
	{ .caller = "__skb_datagram_iter", .callee = "iov_iter_revert",
	  .at_call = true, .handler = ftagent_mmsg_faulted },
	{ .caller = "udp_recvmsg", .callee = "iov_iter_revert",
	  .at_call = true, .handler = ftagent_mmsg_faulted },
#if IS_BUILTIN(CONFIG_IPV6)
	{ .caller = "udpv6_recvmsg", .callee = "iov_iter_revert",
	  .at_call = true, .handler = ftagent_mmsg_faulted },
#endif
	/* Its one revert: a whole datagram copied, then a bad checksum. */
	{ .caller = "skb_copy_and_csum_datagram_msg",
	  .callee = "iov_iter_revert", .at_call = true,
	  .handler = ftagent_mmsg_discarded },
	/*
	 * io_uring's own calls (RECVMSG's other one is ____sys_recvmsg's,
	 * above; a multishot RECVMSG's is inlined into io_recvmsg), and a
	 * READ of a socket's.
	 */
	{ .caller = "io_recv", .callee = "sock_recvmsg", .iour = true,
	  .handler = ftagent_mmsg_received },
	{ .caller = "io_recvmsg", .callee = "sock_recvmsg", .iour = true,
	  .handler = ftagent_mmsg_received },
	{ .caller = "sock_read_iter", .callee = "sock_recvmsg", .iour = true,
	  .report = "sock_read_iter", .handler = ftagent_mmsg_received },
	/* A single-shot RECVMSG's result (a multishot one's is inlined). */
	{ .caller = "io_recvmsg", .callee = "__sys_recvmsg_sock",
	  .iour_result = true, .report = "__sys_recvmsg_sock",
	  .handler = ftagent_mmsg_iour_recvmsg_done },
	/* A multishot RECVMSG's header copy: 6.12's way, then 6.1's. */
	{ .caller = "io_recvmsg", .callee = "io_recvmsg_multishot",
	  .iour_result = true, .alternative = true,
	  .handler = ftagent_mmsg_iour_multishot_returned },
	{ .caller = "io_recvmsg", .callee = "io_recvmsg_multishot.constprop.0",
	  .iour_result = true, .alternative = true,
	  .handler = ftagent_mmsg_iour_multishot_returned },
	{ .caller = "io_recvmsg", .callee = "_copy_to_user",
	  .iour_result = true, .alternative = true, .one_site = true,
	  .report = "__sys_recvmsg_sock",
	  .handler = ftagent_mmsg_iour_header_copied },
};

/* sock_recv_length, when the kernel has it and its probe is on. */
static struct tracepoint *ftagent_mmsg_recv_tp;

bool ftagent_mmsg_exact;

/*
 * Entry of __sys_sendmmsg() or do_recvmmsg(): a slot the task still
 * holds belongs to a call no settle ended (marked on entry, then function
 * tracing was turned off, or the hooks detached or the module reloaded,
 * before it returned): its bytes are lost, counted, not charged to this
 * call.
 */
static void notrace ftagent_mmsg_entry(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	if (ftagent_mmsg_take(current))
		ftagent_count_loss(FTAGENT_LOSS_PENDING_TABLE);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ftagent_mmsg_entry_ops = {
	.func = ftagent_mmsg_entry,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool ftagent_mmsg_entry_on;

/*
 * The *mmsg loops themselves: every path reaches them, where
 * __sys_recvmmsg() is inlined into the syscall and would never be
 * entered. recvfrom and recvmsg need no entry hook: their settle knows
 * their own count.
 */
static const char *const ftagent_mmsg_loops[] = {
	"__sys_sendmmsg", "do_recvmmsg",
};

static int ftagent_mmsg_entry_start(void)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_loops) && !err; i++)
		err = ftagent_ftrace_filter(&ftagent_mmsg_entry_ops,
					    ftagent_mmsg_loops[i]);
	if (!err)
		err = ftagent_ftrace_on(&ftagent_mmsg_entry_ops);
	if (err) {
		ftrace_free_filter(&ftagent_mmsg_entry_ops);
		return err;
	}
	ftagent_mmsg_entry_on = true;
	return 0;
}

static void ftagent_mmsg_entry_stop(void)
{
	if (!ftagent_mmsg_entry_on)
		return;
	ftagent_ftrace_off(&ftagent_mmsg_entry_ops, "mmsg entry");
	ftagent_mmsg_entry_on = false;
}

/* The checksumming copy's entry hook (ftagent_mmsg_csum_entry()). */
static int ftagent_mmsg_csum_start(void)
{
	int err = ftagent_ftrace_filter(&ftagent_mmsg_csum_ops,
					"skb_copy_and_csum_datagram_msg");

	if (!err)
		err = ftagent_ftrace_on(&ftagent_mmsg_csum_ops);
	if (err) {
		ftrace_free_filter(&ftagent_mmsg_csum_ops);
		return err;
	}
	ftagent_mmsg_csum_on = true;
	return 0;
}

static void ftagent_mmsg_csum_stop(void)
{
	if (!ftagent_mmsg_csum_on)
		return;
	ftagent_ftrace_off(&ftagent_mmsg_csum_ops, "receive checksum copy");
	ftagent_mmsg_csum_on = false;
}

/*
 * Register a probe of @c's handler at @addr, disabled: armed with the
 * others once all are found (ftagent_mmsg_arm()). 0, -E2BIG when @c has
 * no room left, or register_kprobe()'s error (then not counted).
 *
 * No ftagent_lookups_flush(): parked lookups sit at a function's start
 * (past its ENDBR), and a call or return site is inside its caller, past
 * the caller's start; a return site could only be the next function's
 * start after a call that never returns, and these callees return.
 */
static int ftagent_mmsg_add_probe(struct ftagent_mmsg_caller *c,
				  unsigned long addr)
{
	struct kprobe *kp;
	int err;

	if (c->nr_kps == FTAGENT_MMSG_SITES)
		return -E2BIG;
	kp = &c->kps[c->nr_kps];
	memset(kp, 0, sizeof(*kp));
	kp->addr = (kprobe_opcode_t *)addr;
	kp->pre_handler = c->handler;
	kp->flags = KPROBE_FLAG_DISABLED;
	err = register_kprobe(kp);
	if (!err)
		c->nr_kps++;
	return err;
}

/*
 * Probe each of the @n return sites @rets that runs a copy of the code at
 * @join rather than reaching it (ftagent_copy_rejoins()), with @c's
 * handler: 0, or the error that turns the feature off.
 */
static int ftagent_mmsg_probe_copies(struct ftagent_mmsg_caller *c,
				     const unsigned long *rets, unsigned int n,
				     unsigned long join)
{
	unsigned int i;
	int rejoins, err;

	for (i = 0; i < n; i++) {
		rejoins = ftagent_copy_rejoins(rets[i], join, rets, n);
		if (rejoins < 0)
			return rejoins;
		if (rejoins)
			continue;	/* the probe at @join sees it */
		err = ftagent_mmsg_add_probe(c, rets[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The return sites of @c's calls to @callee (a retpoline thunk with
 * NULL: exactly one such call), appended to @rets, *@n of them so far,
 * at most @max: 0, or an error.
 */
static int ftagent_mmsg_add_rets(const struct ftagent_mmsg_caller *c,
				 const char *callee, unsigned long *rets,
				 unsigned int *n, unsigned int max)
{
	int i, found;

	found = callee ? ftagent_callsites(c->caller, callee, rets + *n,
					   max - *n) :
			 ftagent_thunk_callsites(c->caller, rets + *n, max - *n);
	if (found < 0)
		return found;
	if (!callee && found != 1)
		return found ? -E2BIG : -ENOENT;
	for (i = 0; i < found; i++)
		rets[*n + i] += FTAGENT_CALL_LEN;
	*n += found;
	return 0;
}

/*
 * Whether the results of @c's inlined twin are seen: 0, or an error (said
 * in the log) that turns the feature off. Each twin is an
 * INDIRECT_CALL_INET() candidate, a direct call only with retpolines;
 * without them there is nothing to check, so nothing is trusted. The
 * first (inet_recvmsg) must be there; the other (inet6_recvmsg) only with
 * IPv6 built in. The indirect call for the other protocols is the
 * caller's one call through a retpoline thunk.
 *
 * Debian's builds jump back from each of those calls to the probed
 * return site. Another build (the debug kernel's, with KASAN) returns
 * from each through a copy of the instructions after the probed site,
 * which joins the main path further on: there each call whose return
 * site runs such a copy gets a probe of its own, and a message, which
 * goes through one call, is seen by one probe. Where the thunk call is
 * not found (patched into a plain indirect call at boot: enhanced IBRS,
 * retpolines off, ITS thunks), it is trusted to go where the twins go
 * if they jump back, and the feature is off if they do not. What is not
 * looked for, as on Debian's builds for the join itself: another path
 * of the caller jumping to a probed return site (the copies are tails,
 * entered from their call only).
 */
static int ftagent_mmsg_twins(struct ftagent_mmsg_caller *c)
{
	unsigned long join = (unsigned long)c->kps[0].addr;
	unsigned long rets[FTAGENT_MMSG_SITES];
	unsigned int i, n = 0, probed = c->nr_kps;
	const char *what;
	bool apart = false;
	int found, err;

	if (!IS_ENABLED(CONFIG_RETPOLINE) &&
	    !IS_ENABLED(CONFIG_MITIGATION_RETPOLINE)) {
		pr_warn("%s: no retpolines: cannot check that its inlined calls return through the probed site\n",
			c->caller);
		return -EOPNOTSUPP;
	}
	/* One main site, the join: another would be on no path checked. */
	if (c->nr_kps != 1) {
		pr_warn("%s: %u calls to %s where one was expected\n",
			c->caller, c->nr_kps, c->callee);
		return -E2BIG;
	}
	for (i = 0; c->twins[i]; i++) {
		bool needed = i == 0 || IS_BUILTIN(CONFIG_IPV6);

		found = ftagent_calls_rejoin(c->caller, c->twins[i], join);
		if (found == -EXDEV)
			apart = true;
		if (found > 0 || found == -EXDEV || (found == 0 && !needed))
			continue;
		pr_warn("%s: cannot find where its calls to %s return (%d)\n",
			c->caller, c->twins[i], found ? found : -ENOENT);
		return found ? found : -ENOENT;
	}
	what = "the protocol's recvmsg through a retpoline thunk";
	err = ftagent_mmsg_add_rets(c, NULL, rets, &n, ARRAY_SIZE(rets));
	if (!apart) {
		/* Not found: trusted as above. Found: checked like a twin. */
		if (err == -ENOENT ||
		    (!err && ftagent_site_rejoins(rets[0], join) == 1))
			return 0;
	}
	for (i = 0; !err && c->twins[i]; i++) {
		what = c->twins[i];
		err = ftagent_mmsg_add_rets(c, what, rets, &n,
					    ARRAY_SIZE(rets));
	}
	if (!err) {
		what = "the protocols";
		err = ftagent_mmsg_probe_copies(c, rets, n, join);
	}
	if (!err) {
		pr_info("%s: its inlined calls return apart: %u more return sites probed\n",
			c->caller, c->nr_kps - probed);
		return 0;
	}
	pr_warn("%s: its calls to %s do not return through the probed site, and cannot be probed where they return (%d)\n",
		c->caller, what, err);
	return err;
}

/*
 * Probe the return site of every call @c->caller makes to @c->callee, or
 * with @c->at_call the call itself.
 */
static int ftagent_mmsg_probe(struct ftagent_mmsg_caller *c)
{
	unsigned int expect = c->compat_twice && IS_ENABLED(CONFIG_COMPAT) ?
			      2 : 1;
	unsigned long sites[FTAGENT_MMSG_SITES];
	int i, n, err = 0;

	n = ftagent_callsites(c->caller, c->callee, sites, ARRAY_SIZE(sites));
	if (n < 0)
		return n;
	if (c->one_site && n != 1)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		err = ftagent_mmsg_add_probe(c, sites[i] +
					     (c->at_call ? 0 : FTAGENT_CALL_LEN));
		/* Not an instruction boundary: bytes inside another one. */
		if (err && err != -EILSEQ)
			return err;
	}
	if (c->nr_kps < expect)
		return -ENOENT;
	return c->twins ? ftagent_mmsg_twins(c) : 0;
}

/* Take off the probes of the callers @which picks (all, with NULL). */
static void
ftagent_mmsg_unprobe(bool (*which)(const struct ftagent_mmsg_caller *c))
{
	/* Static: too large for the stack; load and unload only. */
	static struct kprobe *kps[ARRAY_SIZE(ftagent_mmsg_callers) *
				  FTAGENT_MMSG_SITES];
	unsigned int i, j, n = 0;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		if (which && !which(c))
			continue;
		for (j = 0; j < c->nr_kps; j++)
			if (c->kps[j].addr)	/* NULL: not registered */
				kps[n++] = &c->kps[j];
		c->nr_kps = 0;
	}
	/*
	 * One grace period for all: no handler runs after this. These sit
	 * inside functions, never on an ftrace site, and the kernel can
	 * always take such a probe out (breakpoint or optimized jump): none
	 * is kept as kprobe_kept.c describes, and static memory will do.
	 */
	if (n)
		unregister_kprobes(kps, n);
}

/* Take off what a caller whose probing failed half-way put on. */
static void ftagent_mmsg_unprobe_one(struct ftagent_mmsg_caller *c)
{
	struct kprobe *kps[FTAGENT_MMSG_SITES];
	unsigned int j, n = 0;

	for (j = 0; j < c->nr_kps; j++)
		if (c->kps[j].addr)	/* NULL: not registered */
			kps[n++] = &c->kps[j];
	if (n)
		unregister_kprobes(kps, n);
	c->nr_kps = 0;
}

static bool ftagent_mmsg_watches_faults(const struct ftagent_mmsg_caller *c)
{
	return c->at_call || c->iour || c->iour_result;
}

/*
 * The io_uring receives' own probes. 6.1: the returns they take from
 * sock_recvmsg() (6.12's tracepoint sees those); one not found leaves
 * that path's faulting copies to be counted as lost when the task's next
 * io_uring receive begins (said as missing). Every kernel: RECVMSG's
 * result; not found, a RECVMSG that fails after receiving is charged
 * nothing for what it received (DEGRADED, __sys_recvmsg_sock MISSING;
 * with @strict the load fails).
 */
static int ftagent_mmsg_probe_iour(bool strict)
{
	bool found_alternative = false;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		if (c->iour_result) {
			/* An alternative after one that is on: not needed. */
			if (c->alternative && found_alternative)
				continue;
			err = ftagent_mmsg_probe(c);
			if (c->alternative && !err)
				found_alternative = true;
			if (!err)
				continue;
			/* Not this way: the next alternative, if any. */
			if (c->alternative && !c->report && err != -ENOMEM) {
				ftagent_mmsg_unprobe_one(c);
				continue;
			}
			/* Never half on: the sites it did probe come off. */
			ftagent_mmsg_unprobe_one(c);
			if (ftagent_setup_fails(err, strict)) {
				pr_err("cannot probe the calls %s makes to %s (%d): %s\n",
				       c->caller, c->callee, err,
				       ftagent_setup_why(err, strict));
				return err;
			}
			/* DEGRADED, the callee MISSING: a bypass is shown. */
			pr_warn("cannot probe the calls %s makes to %s (%d): io_uring RECVMSG requests that fail after receiving are charged nothing for it\n",
				c->caller, c->callee, err);
			ftagent_symbol_unusable(c->report);
			continue;
		}
		/* The tracepoint, where there is one, sees every return. */
		if (!c->iour || ftagent_mmsg_recv_tp)
			continue;
		err = ftagent_mmsg_probe(c);
		if (!err)
			continue;
		ftagent_mmsg_unprobe_one(c);
		if (err == -ENOMEM) {
			pr_err("cannot probe the calls %s makes to %s (%d): %s\n",
			       c->caller, c->callee, err,
			       ftagent_setup_why(err, strict));
			return err;
		}
		pr_warn("cannot probe the calls %s makes to %s (%d): io_uring receives there whose copy faults are counted as lost\n",
			c->caller, c->callee, err);
		/*
		 * io_recv and io_recvmsg are io_uring counting's names:
		 * marked, they would turn all of it off. The log says it.
		 */
		if (c->report)
			ftagent_symbol_unusable(c->report);
	}
	return 0;
}

/*
 * The probes that see a receive's copy fault, and the checksumming
 * copy's entry hook: without them the rest still counts exactly, and a
 * receive whose copy faults is charged nothing, as before they were
 * there (DEGRADED, with the function as MISSING); with @strict the load
 * fails.
 */
static int ftagent_mmsg_watch_faults(bool strict)
{
	const char *missing = "skb_copy_and_csum_datagram_msg";
	unsigned int i;
	int err;

	err = ftagent_mmsg_csum_start();
	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers) && !err; i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		if (!c->at_call)
			continue;
		err = ftagent_mmsg_probe(c);
		if (err)
			missing = c->caller;
	}
	if (!err) {
		/* Fails only with @strict, having said why. */
		err = ftagent_mmsg_probe_iour(strict);
		if (!err) {
			WRITE_ONCE(ftagent_mmsg_iour_watch, true);
			return 0;
		}
		ftagent_mmsg_unprobe(ftagent_mmsg_watches_faults);
		ftagent_mmsg_csum_stop();
		return err;
	}
	ftagent_mmsg_unprobe(ftagent_mmsg_watches_faults);
	ftagent_mmsg_csum_stop();
	if (ftagent_setup_fails(err, strict)) {
		pr_err("cannot watch %s for receive copies that fault (%d): %s\n",
		       missing, err, ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("cannot watch %s for receive copies that fault (%d): a receive whose copy faults, and an io_uring RECVMSG that fails after receiving, are charged nothing\n",
		missing, err);
	ftagent_symbol_unusable(missing);
	return 0;
}

/*
 * The *mmsg lengths go whole (DEGRADED, their functions MISSING). Not
 * io_uring's receives: marked, those names would turn all of io_uring
 * counting off (ftagent_mmsg_probe_iour()).
 */
static void ftagent_mmsg_unusable(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		const struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		if (!c->iour && !c->iour_result)
			ftagent_symbol_unusable(c->caller);
		else if (c->report)
			ftagent_symbol_unusable(c->report);
	}
	ftagent_symbol_unusable("do_recvmmsg");
}

/*
 * The *mmsg lengths' set-up failed with @err (@why says where): the load
 * fails (strict=1, or out of memory), or they go whole and the module
 * reads the lengths from the caller's memory.
 */
static int ftagent_mmsg_off(const char *why, int err, bool strict)
{
	ftagent_mmsg_exit();
	if (ftagent_setup_fails(err, strict)) {
		pr_err("socket byte counts: %s (%d): %s\n", why, err,
		       ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("socket byte counts: %s (%d): *mmsg lengths are read from the caller's memory, failed receives charge no bytes\n",
		why, err);
	ftagent_mmsg_unusable();
	return 0;
}

/*
 * Arm one probe registered disabled: 0 once it is seen armed (its first
 * byte is no longer the instruction's: a breakpoint, or already the
 * optimizer's jump), or registered again enabled. enable_kprobe() cannot
 * arm anything while root has every kprobe disarmed (debugfs
 * kprobes/enabled 0), and then leaves the optimizer's aggregate around
 * the probe disabled, which root's re-arm skips: the probe would stay
 * dead until a reload. A probe registered enabled is armed by the re-arm.
 * Another probe's breakpoint, or a jump, already there is taken the same
 * slower way.
 */
static int ftagent_mmsg_arm_one(struct kprobe *kp, bool *unarmed)
{
	u8 before, after;
	int err;

	if (copy_from_kernel_nofault(&before, kp->addr, 1))
		return -EFAULT;
	err = enable_kprobe(kp);
	if (err)
		return err;
	if (!copy_from_kernel_nofault(&after, kp->addr, 1) && after != before)
		return 0;
	unregister_kprobe(kp);
	kp->flags = 0;
	err = register_kprobe(kp);
	if (err) {
		kp->addr = NULL;	/* not registered: not unregistered */
		return err;
	}
	/* Still not armed: root has every kprobe disarmed (said below). */
	if (copy_from_kernel_nofault(&after, kp->addr, 1) || after == before)
		*unarmed = true;
	return 0;
}

/*
 * Arm every probe the load registered. They are registered disabled: an
 * armed probe inside a function is queued for the kprobe optimizer, which
 * runs a few jiffies later and holds kprobe_mutex through a Tasks RCU
 * grace period, and every lookup the load makes meanwhile (a kprobe
 * registered, callsites.c) waits for it. Armed one by one among those
 * lookups they made the optimizer run six times in one load on 6.1;
 * armed together, about once. Before the hooks are attached, as before,
 * so a traced call sees the probes all on or all off.
 */
static int ftagent_mmsg_arm(void)
{
	bool unarmed = false;
	unsigned int i, j;
	int err;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		for (j = 0; j < c->nr_kps; j++) {
			err = ftagent_mmsg_arm_one(&c->kps[j], &unarmed);
			if (err) {
				pr_warn("cannot arm the probe on %s (%d)\n",
					c->caller, err);
				return err;
			}
		}
	}
	if (unarmed)
		pr_warn("kprobes are disarmed (debugfs kprobes/enabled): the bytes these probes see go uncounted until they are armed again\n");
	return 0;
}

static struct tracepoint *ftagent_mmsg_exit_tp;

/* The slots and their spill counts, while they are there. */
size_t ftagent_mmsg_memory(void)
{
	return ftagent_kv_bytes(READ_ONCE(ftagent_mmsg_slots),
				BIT(FTAGENT_MMSG_BITS) *
				sizeof(*ftagent_mmsg_slots)) +
	       ftagent_kv_bytes(READ_ONCE(ftagent_mmsg_spills),
				FTAGENT_MMSG_BUCKETS *
				sizeof(*ftagent_mmsg_spills));
}

int ftagent_mmsg_init(bool strict)
{
	unsigned int i;
	int err;

	if (ftagent_feature_off(FTAGENT_FEATURE_MMSG_LENGTHS))
		return 0;	/* pretend_missing=: said at load */
	ftagent_mmsg_slots = kvcalloc(BIT(FTAGENT_MMSG_BITS),
				      sizeof(*ftagent_mmsg_slots), GFP_KERNEL);
	ftagent_mmsg_spills = kvcalloc(FTAGENT_MMSG_BUCKETS,
				       sizeof(*ftagent_mmsg_spills),
				       GFP_KERNEL);
	ftagent_mmsg_exit_tp = ftagent_tracepoint("sched_process_exit");
	err = ftagent_mmsg_slots && ftagent_mmsg_spills ? 0 : -ENOMEM;
	if (!err && !ftagent_mmsg_exit_tp)
		err = -ENOENT;
	if (!err)
		err = tracepoint_probe_register(ftagent_mmsg_exit_tp,
						ftagent_mmsg_task_exit, NULL);
	if (err)
		ftagent_mmsg_exit_tp = NULL;
	if (!err)
		err = ftagent_mmsg_entry_start();
	if (err)
		return ftagent_mmsg_off("no table or entry hook", err, strict);
	/* Received bytes: the tracepoint if there is one, else kprobes. */
	ftagent_mmsg_recv_tp = ftagent_tracepoint("sock_recv_length");
	err = ftagent_mmsg_recv_tp ?
	      tracepoint_probe_register(ftagent_mmsg_recv_tp,
					ftagent_mmsg_recv_length, NULL) : 0;
	if (err)
		ftagent_mmsg_recv_tp = NULL;
	if (err == -ENOMEM) {
		ftagent_mmsg_exit();
		pr_err("socket byte counts: no probe on sock_recv_length (%d): %s\n",
		       err, ftagent_setup_why(err, strict));
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		if ((c->recv && ftagent_mmsg_recv_tp) ||
		    ftagent_mmsg_watches_faults(c))
			continue;
		err = ftagent_mmsg_probe(c);
		if (!err)
			continue;
		ftagent_mmsg_exit();
		if (ftagent_setup_fails(err, strict)) {
			pr_err("cannot probe the calls %s makes to %s (%d): %s\n",
			       c->caller, c->callee, err,
			       ftagent_setup_why(err, strict));
			return err;
		}
		pr_warn("cannot probe the calls %s makes to %s (%d): *mmsg lengths are read from the caller's memory, failed receives charge no bytes\n",
			c->caller, c->callee, err);
		ftagent_symbol_unusable(c->caller);
		return 0;
	}
	err = ftagent_mmsg_watch_faults(strict);
	if (err) {
		ftagent_mmsg_exit();
		return err;
	}
	err = ftagent_mmsg_arm();
	if (err)
		return ftagent_mmsg_off("probes not armed", err, strict);
	WRITE_ONCE(ftagent_mmsg_exact, true);
	return 0;
}

void ftagent_mmsg_exit(void)
{
	bool tps = ftagent_mmsg_exit_tp || ftagent_mmsg_recv_tp;

	WRITE_ONCE(ftagent_mmsg_exact, false);
	WRITE_ONCE(ftagent_mmsg_iour_watch, false);
	ftagent_mmsg_unprobe(NULL);
	ftagent_mmsg_csum_stop();
	ftagent_mmsg_entry_stop();
	if (ftagent_mmsg_recv_tp)
		tracepoint_probe_unregister(ftagent_mmsg_recv_tp,
					    ftagent_mmsg_recv_length, NULL);
	if (ftagent_mmsg_exit_tp)
		tracepoint_probe_unregister(ftagent_mmsg_exit_tp,
					    ftagent_mmsg_task_exit, NULL);
	/* No probe runs, or uses the table, after this. */
	if (tps)
		tracepoint_synchronize_unregister();
	ftagent_mmsg_recv_tp = NULL;
	ftagent_mmsg_exit_tp = NULL;
	/* A hook ftrace would not take off may still use the table. */
	if (ftagent_ftrace_is_stuck())
		return;
	kvfree(ftagent_mmsg_slots);
	kvfree(ftagent_mmsg_spills);
	ftagent_mmsg_slots = NULL;
	ftagent_mmsg_spills = NULL;
	atomic_set(&ftagent_mmsg_faults, 0);
}
