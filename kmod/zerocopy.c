// SPDX-License-Identifier: GPL-2.0
/*
 * TCP zero-copy receive: getsockopt(TCP_ZEROCOPY_RECEIVE), counted and
 * charged as a receive.
 *
 * The call maps received pages into the caller's memory (an mmap() of
 * the socket), and copies what cannot be mapped into a buffer it names;
 * it returns 0 and tells the caller how much in the struct
 * tcp_zerocopy_receive it writes back. That struct is user memory a
 * sibling thread can rewrite, so the count is taken from the socket
 * instead: tcp_zerocopy_receive() runs with the socket locked and
 * advances tp->copied_seq past everything it consumed, mapped or
 * copied, and nothing else can move copied_seq while the lock is held.
 * A kretprobe notes copied_seq at entry and charges the difference at
 * return, still under the lock (its copies run MSG_DONTWAIT and never
 * let it go): exact, whatever the call then returns to the caller. A
 * failed write-back (EFAULT) still took the bytes off the queue and left
 * them in the caller's memory: charged as received, a successful call.
 * An urgent byte the copy steps over also advances copied_seq, and
 * counts as received here as well as in the recv(MSG_OOB) that reads it.
 *
 * A call that moved nothing is charged its error, or 0 (the queue held
 * less than a page and no copy buffer was given: the caller is told to
 * receive it another way), as a receive that returned those is. A copy
 * into the copy buffer that faults part-way leaves what it copied there
 * uncharged (as a TCP recv() that faults before its first byte does).
 *
 * Only a user's getsockopt() reaches the function: directly, or through
 * an AF_SMC socket, which passes SOL_TCP options to the TCP socket it
 * made underneath with sock_create_kern(). That one is counted too, as
 * an object of its own (its inode), and charged to the caller.
 *
 * Budgets: charged here like any receive; refused before the call runs
 * by the gate's recv point (gate.c), which hooks tcp_zerocopy_receive()
 * too while a bytes_received budget exists.
 *
 * Cost: only zero-copy receives pay (a kretprobe, about 400 instructions,
 * against at least a page mapped). A call that finds no free instance
 * (more than maxactive inside at once, each waiting for the mmap lock or
 * a page fault) is missed by the kprobe core, neither counted nor
 * charged: the misses are counted as pending_table losses at the next
 * zero-copy return or counter flush.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "account.h"
#include "callsites.h"
#include "counters.h"
#include "kprobe_kept.h"
#include "memory.h"
#include "symbols.h"
#include "zerocopy.h"

#define FTAGENT_ZC_SYMBOL	"tcp_zerocopy_receive"

struct ftagent_zc_call {
	struct sock *sk;
	u32 copied_seq;
};

/*
 * In memory of its own, which the kernel may keep for good
 * (kprobe_kept.c); freed by ftagent_zerocopy_release() once
 * nothing can count the probe's misses any more.
 */
static struct kretprobe *ftagent_zc_probe;
static bool ftagent_zc_kept;	/* by the kernel: not ours to free */
static bool ftagent_zc_on;
/* The probe's misses already counted as lost. */
static atomic_long_t ftagent_zc_missed_seen;

/* Entry: tcp_zerocopy_receive(sk, zc, tss), the socket locked. */
static int ftagent_zc_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct ftagent_zc_call *c = (struct ftagent_zc_call *)ri->data;
	struct sock *sk = (struct sock *)regs->di;

	/*
	 * Only a user's getsockopt() reaches the function, directly or
	 * through AF_SMC, which passes SOL_TCP options to the TCP socket it
	 * made with sock_create_kern(): so a kernel socket is counted too,
	 * as its own object. A kernel thread has no process to charge.
	 */
	if (unlikely(current->flags & PF_KTHREAD))
		return 1;	/* no return handler for this call */
	c->sk = sk;
	c->copied_seq = READ_ONCE(tcp_sk(sk)->copied_seq);
	return 0;
}

/* What the kprobe core counted as missed (recursion, or no instance). */
static unsigned long ftagent_zc_missed(void)
{
	const struct kretprobe *rp = ftagent_zc_probe;

	return (unsigned int)READ_ONCE(rp->nmissed) + READ_ONCE(rp->kp.nmissed);
}

void ftagent_zerocopy_count_missed(void)
{
	long seen = atomic_long_read(&ftagent_zc_missed_seen);
	unsigned long missed;

	/*
	 * Set after the probe's memory is. What keeps that memory for a
	 * caller past this test is the teardown's order: the families go
	 * before the config, the counters' flush work is cancelled, and
	 * only then does ftagent_zerocopy_release() free it.
	 */
	if (!smp_load_acquire(&ftagent_zc_on))
		return;
	missed = ftagent_zc_missed();
	/* Newer than what another CPU already counted, or nothing. */
	while ((long)(missed - seen) > 0) {
		if (atomic_long_try_cmpxchg(&ftagent_zc_missed_seen, &seen,
					    missed)) {
			ftagent_count_losses(FTAGENT_LOSS_PENDING_TABLE,
					     missed - seen);
			break;
		}
	}
}

/* Return: still under the socket lock, which the caller releases. */
static int ftagent_zc_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct ftagent_zc_call *c = (struct ftagent_zc_call *)ri->data;
	u32 moved = READ_ONCE(tcp_sk(c->sk)->copied_seq) - c->copied_seq;
	long ret = (int)regs_return_value(regs);
	struct socket *sock = READ_ONCE(c->sk->sk_socket);

	if (unlikely(ftagent_zc_missed() !=
		     atomic_long_read(&ftagent_zc_missed_seen)))
		ftagent_zerocopy_count_missed();
	if (!sock)
		return 0;
	if (moved)
		ret = moved;
	ftagent_account_socket(current, sock, FTAGENT_DIR_IN, ret);
	return 0;
}

static int ftagent_zc_maxactive(void)
{
	return max_t(int, 1024, 16 * num_possible_cpus());
}

/* What the probe held when it registered (memory.h); 0 while it is off. */
static size_t ftagent_zc_bytes;

size_t ftagent_zerocopy_memory(void)
{
	return READ_ONCE(ftagent_zc_on) ? READ_ONCE(ftagent_zc_bytes) : 0;
}

int ftagent_zerocopy_init(bool strict)
{
	struct kretprobe *rp;
	int err;

	if (ftagent_symbol_missing(FTAGENT_ZC_SYMBOL))
		return 0;	/* pretend_missing=: said at load */
	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp) {
		err = -ENOMEM;
		goto refused;
	}
	ftagent_zc_probe = rp;
	rp->kp.symbol_name = FTAGENT_ZC_SYMBOL;
	rp->entry_handler = ftagent_zc_entry;
	rp->handler = ftagent_zc_return;
	rp->data_size = sizeof(struct ftagent_zc_call);
	/*
	 * One per call inside at once. Each holds its own socket's lock, so
	 * that is one per socket being received from; a call can stay
	 * inside while its copy waits on a page fault or the mmap lock. An
	 * instance is under 100 bytes.
	 */
	rp->maxactive = ftagent_zc_maxactive();
	atomic_long_set(&ftagent_zc_missed_seen, 0);
	/* Not beside a parked lookup at the same start (callsites.h). */
	ftagent_lookups_flush();
	err = register_kretprobe(rp);
	if (!err) {
		WRITE_ONCE(ftagent_zc_bytes,
			   kmalloc_size_roundup(sizeof(*rp)) +
			   ftagent_kretprobe_bytes(rp));
		/* The probe's memory, to ftagent_zerocopy_count_missed(). */
		smp_store_release(&ftagent_zc_on, true);
		return 0;
	}
	/* A probe that did not register is not in the kernel's table. */
	kfree(rp);
	ftagent_zc_probe = NULL;
refused:
	if (ftagent_setup_fails(err, strict)) {
		pr_err("cannot probe %s (%d): %s\n", FTAGENT_ZC_SYMBOL, err,
		       ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("cannot probe %s (%d): TCP zero-copy receives are not counted\n",
		FTAGENT_ZC_SYMBOL, err);
	ftagent_symbol_unusable(FTAGENT_ZC_SYMBOL);
	return 0;
}

void ftagent_zerocopy_exit(void)
{
	if (!ftagent_zc_on)
		return;
	unregister_kretprobe(ftagent_zc_probe);
	ftagent_zc_kept = !ftagent_kretprobe_let_go(ftagent_zc_probe);
	ftagent_zerocopy_count_missed();
	WRITE_ONCE(ftagent_zc_on, false);
	if (ftagent_zc_kept)
		ftagent_kprobes_kept_say(1, FTAGENT_ZC_SYMBOL);
}

void ftagent_zerocopy_release(void)
{
	if (!ftagent_zc_kept)
		kfree(ftagent_zc_probe);
	ftagent_zc_probe = NULL;
	ftagent_zc_kept = false;
}
