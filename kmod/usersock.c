// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel sockets a user accepted.
 *
 * The gate never refuses or charges the kernel's own socket work done in
 * a user task (gate.c, ftagent_kernel_sock()): a socket marked as the
 * kernel's (sk_kern_sock) is taken for the kernel's unless a user's file
 * reaches it. One kind of socket has the mark, a file of its own, and is
 * the user's all the same: AF_SMC falls back to TCP before it listens
 * (a Fast Open option in its first state), and the user's listen() and
 * accept() then reach its kernel TCP socket directly, through the user's
 * AF_SMC file. The connections accepted there are clones of that socket,
 * mark included, in files of their own, as SunRPC's kernel sockets are.
 *
 * The accept tells them apart: security_socket_accept(sock, newsock) is
 * passed by every accept() (the system call, io_uring's, with fixed
 * descriptors too: do_accept()) and by no kernel_accept(), with the
 * listener and the struct socket the connection will be grafted onto,
 * whose file is already made. A listener that is a kernel socket in
 * another socket's file is one of these; each struct socket accepted on
 * it is remembered here until its file is released (sock_close(), which
 * lifecycle.c hooks for its close records: the file's last reference,
 * on success and on every failure after the file was made). The key is
 * the struct socket, which lives exactly as long as that file: no
 * reference is held.
 *
 * The hooks run in ftrace callbacks, sock_close's with preemption off,
 * and must not allocate (nor, on PREEMPT_RT, take a sleeping lock): the
 * marks come from a pool of
 * accept_marks (a module parameter) made at load, under a raw spinlock,
 * looked up under RCU. Each is held by an open connection or an accept
 * in progress (one that fails gives it back at its file's release, on
 * its way to user space). When the pool is spent the accept is refused
 * (ENOBUFS), never let through unmarked, and counted (GET_STATUS
 * ACCEPTS_REFUSED). Without either hook (FTAGENT_FEATURE_GATE_ACCEPT
 * off) nothing is marked, and the gate takes such connections for the
 * kernel's, as before this file.
 *
 * The hook stays on from load to unload, rules or none: a budget set
 * later applies to the connections accepted before it. Connections
 * accepted before the module loaded (or reloaded) have no mark, and
 * stay the kernel's to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/log2.h>
#include <linux/rculist_nulls.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#include "compat/ftrace.h"
#include "hooks.h"
#include "memory.h"
#include "symbols.h"
#include "usersock.h"

#define FTAGENT_USERSOCK_SYMBOL	"security_socket_accept"

static unsigned int accept_marks = 4096;
module_param(accept_marks, uint, 0444);
MODULE_PARM_DESC(accept_marks,
		 "connections accepted on AF_SMC's fallen-back kernel socket open at once (default 4096, 16..1048576); past it such accepts get ENOBUFS");

/*
 * A mark goes back to the pool as soon as its socket's file is released,
 * and may be taken again at once: a lookup that follows a mark moved to
 * another bucket ends at that bucket's nulls value and starts again (as
 * TCP's established hash does), and one that finds its socket in a mark
 * found it marked. So a refused or failed accept gives its mark back
 * before the task returns to user space (its file's release).
 */
struct ftagent_usersock {
	struct hlist_nulls_node node;
	const struct socket *sock;
	/*
	 * The socket inode's number, checked too: should a release ever go
	 * unseen, a new socket at the same address is still not taken for
	 * the marked one.
	 */
	unsigned long ino;
};

/* Lookups that restart this often under churn take the lock instead. */
#define FTAGENT_USERSOCK_RESTARTS	4

static struct ftagent_usersock *ftagent_usersock_pool;
static u32 *ftagent_usersock_free;	/* indices of free marks, a stack */
static unsigned int ftagent_usersock_nfree;
static struct hlist_nulls_head *ftagent_usersock_hash;
static unsigned int ftagent_usersock_bits;
/* Marks in the hash: read without the lock as a shortcut to "none". */
static unsigned int ftagent_usersock_count;
static DEFINE_RAW_SPINLOCK(ftagent_usersock_lock);
static atomic64_t ftagent_usersock_refusals = ATOMIC64_INIT(0);
static bool ftagent_usersock_hooked;
static unsigned int ftagent_usersock_size;

static notrace unsigned int ftagent_usersock_slot(const struct socket *sock)
{
	return hash_ptr(sock, ftagent_usersock_bits);
}

/* Whether @newsock got a mark. */
static notrace bool ftagent_usersock_mark(const struct socket *newsock)
{
	struct ftagent_usersock *u = NULL;
	struct hlist_nulls_head *head;
	unsigned long flags;

	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	if (ftagent_usersock_nfree) {
		u = &ftagent_usersock_pool
			[ftagent_usersock_free[--ftagent_usersock_nfree]];
		/* Before it is linked: rcu_assign_pointer() orders it. */
		WRITE_ONCE(u->ino, SOCK_INODE((struct socket *)newsock)->i_ino);
		WRITE_ONCE(u->sock, newsock);
		head = &ftagent_usersock_hash[ftagent_usersock_slot(newsock)];
		hlist_nulls_add_head_rcu(&u->node, head);
		WRITE_ONCE(ftagent_usersock_count, ftagent_usersock_count + 1);
	}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
	return u;
}

/* Returns in security_socket_accept()'s place. */
static noinline int ftagent_usersock_no_mark(struct socket *sock,
					     struct socket *newsock)
{
	return -ENOBUFS;
}

/*
 * security_socket_accept(sock, newsock): a listener that is a kernel
 * socket in another socket's file (ftagent_kernel_sock()'s test) is
 * AF_SMC's fallen-back TCP socket, accepting for the user.
 */
static void notrace ftagent_usersock_accept_hook(unsigned long ip,
						 unsigned long parent_ip,
						 struct ftrace_ops *ops,
						 struct ftrace_regs *fregs)
{
	struct pt_regs *args = ftagent_fregs_args(fregs);
	const struct socket *sock = (const struct socket *)args->di;
	const struct socket *newsock = (const struct socket *)args->si;
	const struct sock *sk = sock ? READ_ONCE(sock->sk) : NULL;
	const struct file *file;
	int bit;

	if (likely(!sk || !sk->sk_kern_sock) || !newsock)
		return;
	file = READ_ONCE(sock->file);
	if (!file || file_inode(file) == SOCK_INODE((struct socket *)sock))
		return;
	/* Never let through unmarked: inside another hook, it is refused. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0) || !ftagent_usersock_mark(newsock)) {
		atomic64_inc(&ftagent_usersock_refusals);
		ftagent_fregs_set_ip(fregs,
				     (unsigned long)ftagent_usersock_no_mark);
	}
	if (likely(bit >= 0))
		ftrace_test_recursion_unlock(bit);
}

/*
 * Not PERMANENT: kernel.ftrace_enabled=0 stays allowed, as it is for the
 * gate's hooks. While it is 0 nothing is marked (the gate is off), and
 * a connection accepted then stays the kernel's to the gate, exempt,
 * until it is closed (docs/policy.md). A mark whose release goes unseen
 * meanwhile stays in the pool until a socket at the same address is
 * closed, or unload; the inode number keeps it from matching that one.
 */
static struct ftrace_ops ftagent_usersock_ops = {
	.func = ftagent_usersock_accept_hook,
	.flags = FTRACE_OPS_FL_IPMODIFY,
};

/* @ino 0: any mark of @sock's address (its release clears them all). */
static notrace bool ftagent_usersock_is(const struct ftagent_usersock *u,
					const struct socket *sock,
					unsigned long ino)
{
	return READ_ONCE(u->sock) == sock && (!ino || READ_ONCE(u->ino) == ino);
}

/* The same walk under the lock, where nothing moves. */
static notrace bool ftagent_usersock_has_locked(const struct socket *sock,
						unsigned long ino)
{
	struct hlist_nulls_head *head;
	struct ftagent_usersock *u;
	struct hlist_nulls_node *pos;
	unsigned long flags;
	bool found = false;

	head = &ftagent_usersock_hash[ftagent_usersock_slot(sock)];
	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	hlist_nulls_for_each_entry(u, pos, head, node)
		if (ftagent_usersock_is(u, sock, ino)) {
			found = true;
			break;
		}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
	return found;
}

static notrace bool ftagent_usersock_find(const struct socket *sock,
					  unsigned long ino)
{
	unsigned int slot, restarts = 0;
	struct ftagent_usersock *u;
	struct hlist_nulls_node *pos;
	bool found = false;

	if (likely(!READ_ONCE(ftagent_usersock_count)))
		return false;
	slot = ftagent_usersock_slot(sock);
	rcu_read_lock();
again:
	hlist_nulls_for_each_entry_rcu(u, pos, &ftagent_usersock_hash[slot],
				       node)
		if (ftagent_usersock_is(u, sock, ino)) {
			found = true;
			break;
		}
	/* Ended in another bucket: a mark moved under us. */
	if (!found && get_nulls_value(pos) != slot) {
		if (++restarts < FTAGENT_USERSOCK_RESTARTS)
			goto again;
		rcu_read_unlock();
		return ftagent_usersock_has_locked(sock, ino);
	}
	rcu_read_unlock();
	return found;
}

bool notrace ftagent_usersock_has(const struct socket *sock)
{
	/* get_next_ino() never gives 0. */
	return ftagent_usersock_find(sock,
				     SOCK_INODE((struct socket *)sock)->i_ino);
}

void notrace ftagent_usersock_close(const struct socket *sock)
{
	struct ftagent_usersock *u;
	struct hlist_nulls_head *head;
	struct hlist_nulls_node *pos;
	unsigned long flags;

	/* Every socket's close passes here: the lock only for a mark. */
	if (likely(!ftagent_usersock_find(sock, 0)))
		return;
	head = &ftagent_usersock_hash[ftagent_usersock_slot(sock)];
	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	/* Every mark of its address: a stale one too (struct's ino). */
	hlist_nulls_for_each_entry(u, pos, head, node)
		if (u->sock == sock) {
			/* Its next stays: the walk goes on past it. */
			hlist_nulls_del_rcu(&u->node);
			WRITE_ONCE(u->sock, NULL);
			ftagent_usersock_free[ftagent_usersock_nfree++] =
				u - ftagent_usersock_pool;
			WRITE_ONCE(ftagent_usersock_count,
				   ftagent_usersock_count - 1);
		}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
}

u64 ftagent_usersock_refused(void)
{
	return atomic64_read(&ftagent_usersock_refusals);
}

/* The feature goes (DEGRADED), or the load fails (strict=1, no memory). */
static int ftagent_usersock_off(const char *why, int err, bool strict)
{
	if (ftagent_setup_fails(err, strict)) {
		pr_err("gate: %s (%d): %s\n", why, err,
		       ftagent_setup_why(err, strict));
		return err;
	}
	pr_warn("gate: %s (%d): connections accepted on AF_SMC's fallen-back TCP socket are taken for the kernel's\n",
		why, err);
	set_bit(FTAGENT_FEATURE_GATE_ACCEPT, &ftagent_degraded);
	return 0;
}

static void ftagent_usersock_free_all(void)
{
	kvfree(ftagent_usersock_pool);
	kvfree(ftagent_usersock_free);
	kvfree(ftagent_usersock_hash);
	ftagent_usersock_pool = NULL;
	ftagent_usersock_free = NULL;
	ftagent_usersock_hash = NULL;
	ftagent_usersock_nfree = 0;
	WRITE_ONCE(ftagent_usersock_count, 0);
}

int ftagent_usersock_init(bool close_hooked, bool strict)
{
	unsigned int i, nhash;
	int err;

	if (!close_hooked)
		return ftagent_usersock_off("sock_close is not hooked",
					    -ENOENT, strict);
	ftagent_usersock_size = clamp(accept_marks, 16U, 1U << 20);
	/* About four marks a bucket when the pool is full. */
	nhash = roundup_pow_of_two(max(ftagent_usersock_size / 4, 64U));
	ftagent_usersock_bits = ilog2(nhash);
	ftagent_usersock_pool = kvcalloc(ftagent_usersock_size,
					 sizeof(*ftagent_usersock_pool),
					 GFP_KERNEL);
	ftagent_usersock_free = kvcalloc(ftagent_usersock_size,
					 sizeof(*ftagent_usersock_free),
					 GFP_KERNEL);
	ftagent_usersock_hash = kvcalloc(nhash, sizeof(*ftagent_usersock_hash),
					 GFP_KERNEL);
	if (!ftagent_usersock_pool || !ftagent_usersock_free ||
	    !ftagent_usersock_hash) {
		ftagent_usersock_free_all();
		return ftagent_usersock_off("no memory for the accept marks",
					    -ENOMEM, strict);
	}
	for (i = 0; i < nhash; i++)
		INIT_HLIST_NULLS_HEAD(&ftagent_usersock_hash[i], i);
	for (i = 0; i < ftagent_usersock_size; i++)
		ftagent_usersock_free[i] = ftagent_usersock_size - 1 - i;
	ftagent_usersock_nfree = ftagent_usersock_size;
	err = ftagent_symbol_filter(&ftagent_usersock_ops,
				    FTAGENT_USERSOCK_SYMBOL);
	if (!err)
		err = ftagent_ftrace_on(&ftagent_usersock_ops);
	if (err) {
		/*
		 * A registration that fails late may have run the hook for
		 * a moment (hooks_ftrace.c): its marks are real, and
		 * sock_close's hook may be reading them. The pool stays
		 * until the module goes (ftagent_usersock_exit()).
		 */
		ftrace_free_filter(&ftagent_usersock_ops);
		return ftagent_usersock_off("cannot hook " FTAGENT_USERSOCK_SYMBOL,
					    err, strict);
	}
	ftagent_usersock_hooked = true;
	return 0;
}

/*
 * Before lifecycle.c's sock_close hook goes: no mark is taken that no
 * release would give back. Refused (ftagent_stuck()): it stays, and the
 * module with it.
 */
void ftagent_usersock_unhook(void)
{
	if (ftagent_usersock_hooked)
		ftagent_ftrace_off(&ftagent_usersock_ops,
				   FTAGENT_USERSOCK_SYMBOL);
	ftagent_usersock_hooked = false;
}

/*
 * After lifecycle.c's sock_close hook is off (ftagent_lifecycle_exit())
 * and the gate's are (no lookups), with nothing stuck: the pool goes.
 */
void ftagent_usersock_exit(void)
{
	if (ftagent_ftrace_is_stuck())
		return;
	ftagent_usersock_free_all();
}

size_t ftagent_usersock_memory(void)
{
	if (!ftagent_usersock_pool)
		return 0;
	return (size_t)ftagent_usersock_size *
		       (sizeof(*ftagent_usersock_pool) +
			sizeof(*ftagent_usersock_free)) +
	       ((size_t)sizeof(*ftagent_usersock_hash) << ftagent_usersock_bits);
}
