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
 * The accept hook runs with preemption off and cannot allocate (nor, on
 * PREEMPT_RT, take a sleeping lock): the marks come from a pool of
 * accept_marks (a module parameter) made at load, under a raw spinlock,
 * looked up under RCU. When the pool is spent the accept is refused
 * (ENOBUFS), never let through unmarked, and counted (GET_STATUS
 * ACCEPTS_REFUSED). Without either hook (FTAGENT_FEATURE_GATE_ACCEPT
 * off) nothing is marked, and the gate takes such connections for the
 * kernel's, as before this file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#include "compat/ftrace.h"
#include "hooks.h"
#include "memory.h"
#include "symbols.h"
#include "usersock.h"

#define FTAGENT_USERSOCK_SYMBOL	"security_socket_accept"
#define FTAGENT_USERSOCK_BITS	10

static unsigned int accept_marks = 4096;
module_param(accept_marks, uint, 0444);
MODULE_PARM_DESC(accept_marks,
		 "connections accepted on AF_SMC's fallen-back kernel socket open at once (default 4096, 16..1048576); past it such accepts get ENOBUFS");

struct ftagent_usersock {
	struct hlist_node node;
	const struct socket *sock;
	struct rcu_head rcu;
};

static struct ftagent_usersock *ftagent_usersock_pool;
static unsigned int ftagent_usersock_size;
static struct hlist_head ftagent_usersock_hash[1 << FTAGENT_USERSOCK_BITS];
/* Free marks, each past a grace period since it was taken out. */
static struct hlist_head ftagent_usersock_free;
static unsigned int ftagent_usersock_unused;
/* Marks in the hash: read without the lock as a shortcut to "none". */
static unsigned int ftagent_usersock_count;
static DEFINE_RAW_SPINLOCK(ftagent_usersock_lock);
static atomic64_t ftagent_usersock_refusals = ATOMIC64_INIT(0);
static bool ftagent_usersock_hooked;

static struct hlist_head *ftagent_usersock_bucket(const struct socket *sock)
{
	return &ftagent_usersock_hash[hash_ptr(sock, FTAGENT_USERSOCK_BITS)];
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

/* Whether @newsock got a mark; under no lock. */
static bool ftagent_usersock_mark(const struct socket *newsock)
{
	struct ftagent_usersock *u;
	unsigned long flags;

	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	u = ftagent_usersock_take();
	if (u) {
		u->sock = newsock;
		hlist_add_head_rcu(&u->node, ftagent_usersock_bucket(newsock));
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
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0))
		return;
	if (!ftagent_usersock_mark(newsock)) {
		atomic64_inc(&ftagent_usersock_refusals);
		ftagent_fregs_set_ip(fregs,
				     (unsigned long)ftagent_usersock_no_mark);
	}
	ftrace_test_recursion_unlock(bit);
}

/*
 * PERMANENT: kernel.ftrace_enabled=0 would stop sock_close's hook too,
 * and a mark would outlive its socket.
 */
static struct ftrace_ops ftagent_usersock_ops = {
	.func = ftagent_usersock_accept_hook,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT,
};

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

void ftagent_usersock_close(const struct socket *sock)
{
	struct ftagent_usersock *u, *found = NULL;
	unsigned long flags;

	if (likely(!READ_ONCE(ftagent_usersock_count)))
		return;
	raw_spin_lock_irqsave(&ftagent_usersock_lock, flags);
	hlist_for_each_entry(u, ftagent_usersock_bucket(sock), node)
		if (u->sock == sock) {
			found = u;
			hlist_del_rcu(&u->node);
			WRITE_ONCE(ftagent_usersock_count,
				   ftagent_usersock_count - 1);
			break;
		}
	raw_spin_unlock_irqrestore(&ftagent_usersock_lock, flags);
	if (found)
		call_rcu(&found->rcu, ftagent_usersock_free_rcu);
}

bool ftagent_usersock_has(const struct socket *sock)
{
	struct ftagent_usersock *u;
	bool found = false;

	if (likely(!READ_ONCE(ftagent_usersock_count)))
		return false;
	rcu_read_lock();
	hlist_for_each_entry_rcu(u, ftagent_usersock_bucket(sock), node)
		if (READ_ONCE(u->sock) == sock) {
			found = true;
			break;
		}
	rcu_read_unlock();
	return found;
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

int ftagent_usersock_init(bool close_hooked, bool strict)
{
	int err;

	if (!close_hooked)
		return ftagent_usersock_off("sock_close is not hooked",
					    -ENOENT, strict);
	ftagent_usersock_size = clamp(accept_marks, 16U, 1U << 20);
	ftagent_usersock_pool = kvcalloc(ftagent_usersock_size,
					 sizeof(*ftagent_usersock_pool),
					 GFP_KERNEL);
	if (!ftagent_usersock_pool)
		return ftagent_usersock_off("no memory for the accept marks",
					    -ENOMEM, strict);
	ftagent_usersock_unused = ftagent_usersock_size;
	err = ftagent_symbol_filter(&ftagent_usersock_ops,
				    FTAGENT_USERSOCK_SYMBOL);
	if (!err)
		err = ftagent_ftrace_on(&ftagent_usersock_ops);
	if (err) {
		ftrace_free_filter(&ftagent_usersock_ops);
		kvfree(ftagent_usersock_pool);
		ftagent_usersock_pool = NULL;
		return ftagent_usersock_off("cannot hook " FTAGENT_USERSOCK_SYMBOL,
					    err, strict);
	}
	ftagent_usersock_hooked = true;
	return 0;
}

/*
 * After lifecycle.c's sock_close hook is off (ftagent_lifecycle_exit())
 * and the gate's are (no lookups), with nothing stuck: the pool goes.
 */
void ftagent_usersock_exit(void)
{
	if (ftagent_usersock_hooked &&
	    !ftagent_ftrace_off(&ftagent_usersock_ops, FTAGENT_USERSOCK_SYMBOL))
		return;	/* refused: it stays, and the pool with it */
	ftagent_usersock_hooked = false;
	if (!ftagent_usersock_pool || ftagent_ftrace_is_stuck())
		return;
	/* The marks closes handed to RCU come back before the pool goes. */
	rcu_barrier();
	kvfree(ftagent_usersock_pool);
	ftagent_usersock_pool = NULL;
	hash_init(ftagent_usersock_hash);
	INIT_HLIST_HEAD(&ftagent_usersock_free);
	WRITE_ONCE(ftagent_usersock_count, 0);
}

size_t ftagent_usersock_memory(void)
{
	return ftagent_usersock_pool ?
	       (size_t)ftagent_usersock_size * sizeof(*ftagent_usersock_pool) :
	       0;
}
