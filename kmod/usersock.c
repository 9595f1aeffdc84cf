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
 * accept() then reach its kernel TCP socket directly. The connections
 * accepted there are clones of that socket, mark included, in files of
 * their own, as SunRPC's kernel sockets are.
 *
 * What tells them apart is where the file came from: an accepted socket
 * is grafted (sock_graft(), security_sock_graft()) onto the struct socket
 * that accept() made with its file, while a kernel_accept() one has no
 * file then, and a kernel socket given a file later (SunRPC's
 * sock_alloc_file()) is never grafted. So each kernel-marked socket
 * grafted with a file is remembered here, holding a reference on it,
 * until its file is released (sock_close(), the file's last reference):
 * after that no user call reaches it.
 *
 * Both hooks are in lifecycle.c's ftrace_ops, with preemption off, and
 * cannot allocate (nor, on PREEMPT_RT, take a sleeping lock): the marks
 * come from a fixed pool of FTAGENT_USERSOCK_MAX, under a raw spinlock,
 * looked up under RCU. A connection accepted when the pool is empty is
 * not marked, and counted (GET_STATUS UNMARKED_SOCKETS, ftctl stats):
 * the gate then takes its calls for the kernel's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/net.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <net/sock.h>

#include "usersock.h"

/* Open connections accepted this way at once, system-wide. */
#define FTAGENT_USERSOCK_MAX	4096
#define FTAGENT_USERSOCK_BITS	10

struct ftagent_usersock {
	struct hlist_node node;
	struct sock *sk;
	struct rcu_head rcu;
};

static struct ftagent_usersock ftagent_usersock_pool[FTAGENT_USERSOCK_MAX];
static struct hlist_head ftagent_usersock_hash[1 << FTAGENT_USERSOCK_BITS];
/* Free marks, each past a grace period since it was taken out. */
static struct hlist_head ftagent_usersock_free;
static unsigned int ftagent_usersock_unused = FTAGENT_USERSOCK_MAX;
/* Marks in the hash: read without the lock as a shortcut to "none". */
static unsigned int ftagent_usersock_count;
static DEFINE_RAW_SPINLOCK(ftagent_usersock_lock);
static bool ftagent_usersock_on;
static atomic64_t ftagent_usersock_misses = ATOMIC64_INIT(0);

static struct hlist_head *ftagent_usersock_bucket(const struct sock *sk)
{
	return &ftagent_usersock_hash[hash_ptr(sk, FTAGENT_USERSOCK_BITS)];
}

/* A free mark, or NULL; under the lock. */
static struct ftagent_usersock *ftagent_usersock_take(void)
{
	struct ftagent_usersock *u;

	if (!hlist_empty(&ftagent_usersock_free)) {
		u = hlist_entry(ftagent_usersock_free.first,
				struct ftagent_usersock, node);
		hlist_del(&u->node);
		return u;
	}
	if (!ftagent_usersock_unused)
		return NULL;
	return &ftagent_usersock_pool[--ftagent_usersock_unused];
}

void ftagent_usersock_graft(struct sock *sk, struct socket *parent)
{
	struct ftagent_usersock *u;
	unsigned long flags;

	/* accept() made @parent with its file; kernel_accept() without. */
	if (likely(!sk->sk_kern_sock) || !READ_ONCE(ftagent_usersock_on) ||
	    !parent || parent->sk != sk || !parent->file ||
	    file_inode(parent->file) != SOCK_INODE(parent))
		return;
	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	u = ftagent_usersock_take();
	if (u) {
		sock_hold(sk);
		u->sk = sk;
		hlist_add_head_rcu(&u->node, ftagent_usersock_bucket(sk));
		WRITE_ONCE(ftagent_usersock_count, ftagent_usersock_count + 1);
	}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
	if (!u)
		atomic64_inc(&ftagent_usersock_misses);
}

/* A mark back in the pool, once no reader can still be on it. */
static void ftagent_usersock_free_rcu(struct rcu_head *head)
{
	struct ftagent_usersock *u =
		container_of(head, struct ftagent_usersock, rcu);
	unsigned long flags;

	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	hlist_add_head(&u->node, &ftagent_usersock_free);
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
}

void ftagent_usersock_close(struct socket *sock)
{
	struct ftagent_usersock *u, *found = NULL;
	struct sock *sk = sock ? READ_ONCE(sock->sk) : NULL;
	unsigned long flags;

	if (likely(!READ_ONCE(ftagent_usersock_count)) || !sk ||
	    !sk->sk_kern_sock)
		return;
	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	hlist_for_each_entry(u, ftagent_usersock_bucket(sk), node)
		if (u->sk == sk) {
			found = u;
			hlist_del_rcu(&u->node);
			WRITE_ONCE(ftagent_usersock_count,
				   ftagent_usersock_count - 1);
			break;
		}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
	if (!found)
		return;
	/* The socket's own reference outlives this one: __sock_release(). */
	sock_put(sk);
	call_rcu(&found->rcu, ftagent_usersock_free_rcu);
}

bool ftagent_usersock_has(const struct sock *sk)
{
	struct ftagent_usersock *u;
	bool found = false;

	if (likely(!READ_ONCE(ftagent_usersock_count)))
		return false;
	rcu_read_lock();
	hlist_for_each_entry_rcu(u, ftagent_usersock_bucket(sk), node)
		if (READ_ONCE(u->sk) == sk) {
			found = true;
			break;
		}
	rcu_read_unlock();
	return found;
}

u64 ftagent_usersock_unmarked(void)
{
	return atomic64_read(&ftagent_usersock_misses);
}

void ftagent_usersock_enable(bool on)
{
	WRITE_ONCE(ftagent_usersock_on, on);
}

void ftagent_usersock_exit(void)
{
	struct ftagent_usersock *u;
	unsigned long flags;
	unsigned int i;

	WRITE_ONCE(ftagent_usersock_on, false);
	for (i = 0; i < ARRAY_SIZE(ftagent_usersock_hash); i++) {
		for (;;) {
			raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
			u = hlist_empty(&ftagent_usersock_hash[i]) ? NULL :
			    hlist_entry(ftagent_usersock_hash[i].first,
					struct ftagent_usersock, node);
			if (u) {
				hlist_del_rcu(&u->node);
				WRITE_ONCE(ftagent_usersock_count,
					   ftagent_usersock_count - 1);
			}
			raw_spin_unlock_irqrestore(&ftagent_usersock_lock,
						   flags);
			if (!u)
				break;
			/* Its file may be gone since sock_close was unhooked. */
			sock_put(u->sk);
			u->sk = NULL;
		}
	}
	/* The marks closes handed to RCU come back before the pool goes. */
	rcu_barrier();
	INIT_HLIST_HEAD(&ftagent_usersock_free);
	ftagent_usersock_unused = FTAGENT_USERSOCK_MAX;
}
