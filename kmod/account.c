// SPDX-License-Identifier: GPL-2.0
/*
 * Accounting of returned calls.
 *
 * Everything is derived when the call returns, from the task's saved user
 * registers (the arguments) and the return value, so a hook needs no
 * per-call state between entry and return. A call is attributed by what
 * its descriptor is when it returns: a socket's bytes are network bytes of
 * that socket, a regular file's are file bytes of that file. Minimal mode
 * charges sockets only.
 *
 * If another thread closes or reuses the descriptor while the call runs,
 * the bytes go to whatever the descriptor names at return (or to nothing
 * if it is closed); the call itself still happened.
 *
 * The filters apply here: excluded processes are not charged at all, and
 * the network and file toggles decide which objects are.
 *
 * Calls that open, bind, listen, connect or accept also raise their
 * lifecycle event from here (lifecycle.c).
 */
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/nospec.h>
#include <linux/rcupdate.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#ifdef CONFIG_COMPAT
#include <net/compat.h>
#endif

#include "account.h"
#include "compat/fs.h"
#include "budget.h"
#include "calls.h"
#include "callfiles.h"
#include "counters.h"
#include "filters.h"
#include "hooks.h"
#include "lifecycle.h"
#include "mmsg.h"
#include "xfer.h"

#ifdef CONFIG_COMPAT
#define FTAGENT_MMSG32_SIZE	sizeof(struct compat_mmsghdr)
#define FTAGENT_MMSG32_LEN	offsetof(struct compat_mmsghdr, msg_len)
#else
#define FTAGENT_MMSG32_SIZE	sizeof(struct mmsghdr)
#define FTAGENT_MMSG32_LEN	offsetof(struct mmsghdr, msg_len)
#endif

static unsigned int ftagent_account_mode = FTAGENT_MODE_STANDARD;

void ftagent_account_set_mode(unsigned int mode)
{
	WRITE_ONCE(ftagent_account_mode, mode);
}

/* The kind of object a descriptor on an inode of @mode is, sockets aside. */
static __always_inline u16 ftagent_inode_kind(umode_t mode)
{
	return S_ISREG(mode) ? FTAGENT_OBJ_FILE :
	       S_ISFIFO(mode) ? FTAGENT_OBJ_PIPE : FTAGENT_OBJ_OTHER;
}

/*
 * The socket whose family and protocol this CPU read last, and what
 * identified it then. Reading them costs a reference on the file (below);
 * a socket used again and again (the common case) is recognised from
 * pointers instead, none of them followed: the socket file's f_op (so
 * private_data is a struct socket), the inode and its number, the
 * socket's proto_ops, type and struct sock. The family changes only with
 * the proto_ops (IPV6_ADDRFORM replaces both), and the protocol never
 * without a new struct sock: a socket whose ops or sock changed, or a
 * new socket at a freed one's addresses (it has another inode number),
 * is read again.
 *
 * Inode numbers are 32-bit and shared by every pseudo filesystem, so a
 * user can wrap them: a new socket could then match a freed one on all
 * six. Only sockets whose proto_ops and type leave one protocol to
 * choose are remembered, so such a twin would have the same family and
 * protocol anyway: TCP, UDP (UDP-Lite has the same ops and type, but its
 * socks come from another slab cache, so its sk cannot be at a UDP
 * sock's address while that slab page is UDP's), ICMP ping, SCTP, MPTCP
 * and AF_UNIX; not raw, AF_PACKET or AF_NETLINK sockets, whose ops and
 * type serve any protocol.
 *
 * Written and read by hooks with preemption off, never from
 * interrupts: no two writers on one CPU.
 */
struct ftagent_sock_seen {
	const struct file_operations *f_op;
	const struct inode *inode;
	unsigned long ino;
	const struct proto_ops *ops;
	const struct sock *sk;
	u16 family, protocol;
	short type;
};

static DEFINE_PER_CPU(struct ftagent_sock_seen, ftagent_sock_seen);

/*
 * The family and protocol (family | protocol << 16) of this CPU's last
 * socket if @file (read from the descriptor table under RCU) is that
 * socket's, else 0 (no socket of family 0 is remembered). Only pointers
 * are compared: the struct socket and its inode are one allocation
 * freed after a grace period, so its ops and sk fields can be read while
 * preemption is off, but what sk points to cannot.
 */
static __always_inline u32 ftagent_sock_family_seen(const struct file *file,
						    const struct inode *inode)
{
	const struct ftagent_sock_seen *seen = this_cpu_ptr(&ftagent_sock_seen);
	struct socket *sock;

	if (READ_ONCE(file->f_op) != seen->f_op || inode != seen->inode)
		return 0;
	sock = READ_ONCE(file->private_data);
	/* 6.7+ may reuse @file meanwhile: the socket must be @inode's. */
	if (!sock || SOCK_INODE(sock) != inode ||
	    READ_ONCE(inode->i_ino) != seen->ino ||
	    READ_ONCE(sock->ops) != seen->ops ||
	    READ_ONCE(sock->sk) != seen->sk ||
	    READ_ONCE(sock->type) != seen->type)
		return 0;
	return seen->family | (u32)seen->protocol << 16;
}

/* Whether a @family socket of @type has one protocol for its ops (above). */
static bool ftagent_sock_one_protocol(unsigned int family, short type)
{
	switch (family) {
	case AF_UNIX:
		return true;
	case AF_INET:
	case AF_INET6:
		return type == SOCK_STREAM || type == SOCK_DGRAM ||
		       type == SOCK_SEQPACKET;
	default:
		return false;
	}
}

/*
 * A socket's family and protocol. Preemption off keeps the inode (the
 * struct socket) from being freed, but not the struct sock of
 * AF_UNIX, AF_PACKET or AF_NETLINK sockets, which a close on another CPU
 * frees without waiting for RCU. So read them holding a reference on the
 * file, as lifecycle.c does with fget(): while it is held, sock_close()
 * cannot run. Only if the descriptor still names @seen, the inode the
 * key already holds: if it was closed (and perhaps reused)
 * meanwhile, they stay 0 rather than mix two sockets in one key.
 */
static noinline notrace void ftagent_sock_family(unsigned int fd,
						 const struct inode *seen,
						 struct ftagent_key *key)
{
	struct ftagent_sock_seen *last;
	const struct proto_ops *ops;
	struct socket *sock;
	struct file *file;
	struct sock *sk;

	/*
	 * The kernel's own lookup: it takes rcu_read_lock() and re-reads the
	 * descriptor table on each try. A slot read once from a table
	 * another thread has since replaced can keep pointing at a file
	 * whose last reference is gone, and 6.7's get_file_rcu() would spin
	 * on it (with preemption off) until the slab object is reused.
	 */
	lockdep_assert_preemption_disabled();	/* the per-CPU entry */
	if (fd > INT_MAX)
		return;
	file = fget_raw(fd);
	if (!file)
		return;
	/*
	 * The same inode: on 6.7 and later struct file is SLAB_TYPESAFE_BY_RCU
	 * and may be reused at once for a new socket, so the file's address
	 * proves nothing; socket inodes are freed after a grace period, and
	 * hooks run with preemption off, so the inode's does.
	 */
	sock = file_inode(file) == seen ? sock_from_file(file) : NULL;
	ops = sock ? READ_ONCE(sock->ops) : NULL;
	sk = sock ? READ_ONCE(sock->sk) : NULL;
	if (sk) {
		key->family = READ_ONCE(sk->sk_family);
		key->protocol = READ_ONCE(sk->sk_protocol);
		/*
		 * Remembered only if the ops say the same family: in the
		 * middle of an IPV6_ADDRFORM one of the two is new and the
		 * other not yet (plain stores, either order), and that pair
		 * must not be kept. Family 0 would read as "not remembered".
		 * Not while AF_SMC's fallback has put another socket in
		 * private_data: the lookup could never match it.
		 */
		if (ops && ops->family == key->family && key->family &&
		    SOCK_INODE(sock) == seen &&
		    ftagent_sock_one_protocol(key->family, sock->type)) {
			last = this_cpu_ptr(&ftagent_sock_seen);
			last->f_op = file->f_op;
			last->inode = seen;
			last->ino = seen->i_ino;
			last->ops = ops;
			last->sk = sk;
			last->family = key->family;
			last->protocol = key->protocol;
			last->type = sock->type;
		}
	}
	/* The last reference (a close raced): the release is deferred. */
	fput(file);
}

/*
 * The file @fd names in the current task's table and, in @inode, its
 * inode; NULL if there is none or the file has no inode yet, and then
 * @inode means nothing. Preemption off: see ftagent_key_for_fd() for
 * why the table, the file and the inode can be read so.
 */
static __always_inline struct file *ftagent_fd_file(unsigned int fd,
						    struct inode **inode)
{
	struct file *file;

	if (fd > INT_MAX)
		return NULL;
	file = files_lookup_fd_raw(current->files, fd);
	if (!file)
		return NULL;
	*inode = READ_ONCE(file->f_inode);
	if (unlikely(!*inode))
		return NULL;
	return file;
}

/*
 * Fill @key for the object @fd names; false (and a zero kind) if there is
 * none. @fd is unsigned int because the kernel's own descriptor
 * arguments are (int or unsigned int): a register's upper half never
 * reaches the call, so it must not change what is charged either.
 * Every field is written: the key is hashed and compared as words.
 * Hooks run with preemption disabled, which is an RCU read-side critical
 * section: the descriptor table and any inode stay valid. The file does
 * only up to 6.6: from 6.7 on struct file is SLAB_TYPESAFE_BY_RCU, so a
 * file another thread closed meanwhile may already be reused for an
 * open still in progress, whose f_inode is NULL until its path walk
 * ends. Such a call is lost rather than followed into NULL.
 */
static __always_inline bool ftagent_key_for_fd(unsigned int fd,
					       struct ftagent_key *key)
{
	struct file *file;
	struct inode *inode;
	umode_t mode;
	u32 seen;

	key->kind = FTAGENT_OBJ_UNSPEC;
	file = ftagent_fd_file(fd, &inode);
	if (!file)
		return false;
	mode = inode->i_mode;
	key->tgid = current->tgid;
	key->family = 0;
	key->protocol = 0;
	key->pad = 0;
	key->ino = inode->i_ino;
	key->peer_ino = 0;
	if (S_ISSOCK(mode)) {
		key->kind = FTAGENT_OBJ_SOCKET;
		key->dev = 0;
		seen = ftagent_sock_family_seen(file, inode);
		if (seen) {
			key->family = (u16)seen;
			key->protocol = seen >> 16;
		} else {
			ftagent_sock_family(fd, inode, key);
		}
	} else {
		key->kind = ftagent_inode_kind(mode);
		key->dev = inode->i_sb->s_dev;
	}
	return true;
}

/*
 * Fill @key for @file, which the caller holds a reference to (an io_uring
 * request's file), on behalf of process @tgid. Holding the file keeps
 * sock_close() from running, so a socket's struct sock is read directly.
 */
static bool ftagent_key_for_file(struct file *file, u32 tgid,
				 struct ftagent_key *key)
{
	struct inode *inode = READ_ONCE(file->f_inode);
	struct socket *sock;
	struct sock *sk;
	umode_t mode;

	key->kind = FTAGENT_OBJ_UNSPEC;
	if (unlikely(!inode))
		return false;
	mode = inode->i_mode;
	key->tgid = tgid;
	key->family = 0;
	key->protocol = 0;
	key->pad = 0;
	key->ino = inode->i_ino;
	key->peer_ino = 0;
	if (S_ISSOCK(mode)) {
		key->kind = FTAGENT_OBJ_SOCKET;
		key->dev = 0;
		sock = sock_from_file(file);
		sk = sock ? READ_ONCE(sock->sk) : NULL;
		if (sk) {
			key->family = READ_ONCE(sk->sk_family);
			key->protocol = READ_ONCE(sk->sk_protocol);
		}
	} else {
		key->kind = ftagent_inode_kind(mode);
		key->dev = inode->i_sb->s_dev;
	}
	return true;
}

/*
 * The key of what @fd names for the call being settled: what it named
 * when the call began, if the entry noted it (callfiles.c: the
 * descriptor may have been closed or reused meanwhile), else what it
 * names now.
 */
static __always_inline bool
ftagent_key_for_call_fd(unsigned int fd, const struct ftagent_call_keys *keys,
			struct ftagent_key *key)
{
	const struct ftagent_call_obj *o;
	unsigned int i;

	if (unlikely(keys)) {
		for (i = 0; i < FTAGENT_CALL_FDS; i++) {
			o = &keys->obj[i];
			if (o->kind == FTAGENT_OBJ_UNSPEC)
				break;
			if (o->fd != fd || o->kind == FTAGENT_CALL_OBJ_UNREAD)
				continue;
			key->tgid = current->tgid;
			key->kind = o->kind;
			key->family = o->family;
			key->dev = o->dev;
			key->protocol = o->protocol;
			key->pad = 0;
			key->ino = o->ino;
			key->peer_ino = 0;
			return true;
		}
	}
	return ftagent_key_for_fd(fd, key);
}

#ifdef CONFIG_IA32_EMULATION
/* The class of socketcall @call, or -1 for those that move nothing counted. */
static int ftagent_socketcall_class(u32 call)
{
	switch (call) {
	case SYS_BIND:
		return FTAGENT_CALL_BIND;
	case SYS_CONNECT:
		return FTAGENT_CALL_CONNECT;
	case SYS_LISTEN:
		return FTAGENT_CALL_LISTEN;
	case SYS_ACCEPT:
	case SYS_ACCEPT4:
		return FTAGENT_CALL_ACCEPT;
	case SYS_SEND:
	case SYS_SENDTO:
	case SYS_SENDMSG:
		return FTAGENT_CALL_WRITE;
	case SYS_SENDMMSG:
		return FTAGENT_CALL_SENDMMSG;
	case SYS_RECVMMSG:
		return FTAGENT_CALL_RECVMMSG;
	case SYS_RECV:
	case SYS_RECVFROM:
	case SYS_RECVMSG:
		return FTAGENT_CALL_RECV;
	default:
		return -1;
	}
}
#endif

/* Note @key as what @fd names; @seen: the gate saw the call use it. */
static void ftagent_call_obj_set(struct ftagent_call_obj *o, u32 fd,
				 const struct ftagent_key *key, u16 seen)
{
	o->ino = key->ino;
	o->dev = key->dev;
	o->fd = fd;
	o->family = key->family;
	o->protocol = key->protocol;
	o->seen = seen;
	/* Last: an entry past the packed ones is valid only once filled. */
	WRITE_ONCE(o->kind, key->kind);
}

void ftagent_call_keys_fill(const struct ftagent_call *call,
			    const struct pt_regs *uregs,
			    struct ftagent_call_keys *k)
{
	struct ftagent_key key __uninitialized;
	u32 fd[FTAGENT_CALL_FDS] __uninitialized;
	unsigned int i, n, held = 0;

	/* An ia32 call of a task whose table is not shared: socketcall's. */
	n = ftagent_files_shared(current) ? ftagent_call_fds(call, uregs, fd) :
					    0;
#ifdef CONFIG_IA32_EMULATION
	/*
	 * socketcall(call, args): the descriptor is the first word of the
	 * block, which the kernel copies at entry and the caller may then
	 * rewrite (even a receive into the block itself), so it is read
	 * now. This cannot fault here (no sleeping in module text a task
	 * could be preempted in at unload): a block not in memory is
	 * marked, and its settle reads it again and counts the doubt.
	 */
	if (call->class == FTAGENT_CALL_SOCKETCALL &&
	    ftagent_socketcall_class((u32)uregs->bx) >= 0) {
		if (copy_from_user_nofault(&fd[0], (const void __user *)
					   (unsigned long)(u32)uregs->cx,
					   sizeof(fd[0]))) {
			k->obj[0].fd = U32_MAX;
			k->obj[0].kind = FTAGENT_CALL_OBJ_UNREAD;
			held = 1;
		} else {
			n = 1;
		}
	}
#endif
	/*
	 * The lookup's RCU read side (preemption off, as in a hook): a
	 * direct call's entry runs preemptible.
	 */
	preempt_disable_notrace();
	for (i = 0; i < n; i++) {
		struct ftagent_call_obj *o = &k->obj[held];

		if (!ftagent_key_for_fd(fd[i], &key))
			continue;
		ftagent_call_obj_set(o, fd[i], &key, 0);
		held++;
	}
	preempt_enable_notrace();
	for (i = held; i < FTAGENT_CALL_FDS; i++)
		k->obj[i].kind = FTAGENT_OBJ_UNSPEC;
}

/*
 * Which of the descriptors ftagent_call_fds() returns for @class moves
 * bytes in @dir, or -1.
 */
static int ftagent_call_side(unsigned int class, unsigned int dir)
{
	switch (class) {
	case FTAGENT_CALL_READ:
	case FTAGENT_CALL_RECV:
	case FTAGENT_CALL_RECVMMSG:
		return dir == FTAGENT_DIR_IN ? 0 : -1;
	case FTAGENT_CALL_WRITE:
	case FTAGENT_CALL_SENDMMSG:
		return dir == FTAGENT_DIR_OUT ? 0 : -1;
	case FTAGENT_CALL_SENDFILE:
		return dir == FTAGENT_DIR_OUT ? 0 : 1;
	case FTAGENT_CALL_SPLICE:
	case FTAGENT_CALL_COPY:
		return dir == FTAGENT_DIR_IN ? 0 : 1;
	default:
		return -1;
	}
}

void ftagent_call_keys_seen(struct file *file, unsigned int dir)
{
	struct pt_regs *uregs = task_pt_regs(current);
	u32 fd[FTAGENT_CALL_FDS] __uninitialized;
	struct ftagent_key key __uninitialized;
	struct ftagent_call_keys *k;
	struct ftagent_call_obj *o;
	struct files_struct *files;
	struct ftagent_hook *hook;
	unsigned int class, i;
	int side;

	/*
	 * Only inside the call's body: not in task work, a signal or a
	 * ptrace stop on its way out, whose orig_ax still names the call
	 * (io_uring task work passes these points with files of its own).
	 */
	if ((current->flags & PF_KTHREAD) || !ftagent_in_body(uregs))
		return;
	hook = ftagent_hook_for(uregs);
	if (!hook)
		return;
	/* The caller saw the task's noted bit (hooks.h): look the note up. */
	k = hook->kind == FTAGENT_HOOKS_KPROBE ? ftagent_kprobe_call_keys(hook) :
						 ftagent_ftrace_call_keys();
	if (!k || !ftagent_call_keys_any(k))
		return;
	class = hook->call->class;
#ifdef CONFIG_IA32_EMULATION
	if (class == FTAGENT_CALL_SOCKETCALL) {
		side = ftagent_socketcall_class((u32)uregs->bx);
		if (side < 0)
			return;
		class = side;
	}
#endif
	side = ftagent_call_side(class, dir);
	if (side < 0)
		return;
	/* socketcall's one descriptor is in its block, noted at entry. */
	if (hook->call->class == FTAGENT_CALL_SOCKETCALL) {
		if (k->obj[0].kind == FTAGENT_CALL_OBJ_UNREAD)
			return;
		fd[0] = k->obj[0].fd;
	} else if (side >= ftagent_call_fds(hook->call, uregs, fd)) {
		return;
	}
	for (i = 0; i < FTAGENT_CALL_FDS; i++) {
		o = &k->obj[i];
		if (o->kind == FTAGENT_OBJ_UNSPEC || o->fd == fd[side])
			break;
	}
	if (i == FTAGENT_CALL_FDS || (o->kind != FTAGENT_OBJ_UNSPEC && o->seen))
		return;
	if (!ftagent_key_for_file(file, current->tgid, &key))
		return;
	/* What takes only sockets uses a socket: a receive, a send. */
	if (key.kind != FTAGENT_OBJ_SOCKET &&
	    (class == FTAGENT_CALL_RECV || class == FTAGENT_CALL_RECVMMSG ||
	     class == FTAGENT_CALL_SENDMMSG ||
	     hook->call->class == FTAGENT_CALL_SOCKETCALL))
		return;
	/*
	 * Any other file only if the number names it now: a page fault in
	 * the call's own copy from user memory, before its check, can pass
	 * security_file_permission() with a file of the kernel's (ecryptfs
	 * reading its lower file for the faulting page), which no
	 * descriptor names; never with a socket (a kernel socket's, and
	 * nbd's transfers on a user's socket under PF_MEMALLOC, are not
	 * brought here: ftagent_gate_kernel_work()). A socket is taken
	 * whatever the number names by then: a sibling may have swapped it
	 * back while the call copied its message header or its iovec.
	 */
	files = READ_ONCE(current->files);
	if (key.kind != FTAGENT_OBJ_SOCKET &&
	    (fd[side] > INT_MAX || !files ||
	     files_lookup_fd_raw(files, fd[side]) != file))
		return;
	ftagent_call_obj_set(o, fd[side], &key, 1);
}

static __always_inline bool ftagent_standard_mode(void)
{
	return READ_ONCE(ftagent_account_mode) == FTAGENT_MODE_STANDARD;
}

bool ftagent_account_opens_recorded(void)
{
	return ftagent_standard_mode();
}

/* Whether @key is charged in this mode under the toggles @flags. */
static __always_inline bool
ftagent_key_counted(const struct ftagent_key *key, enum ftagent_dir dir,
		    u32 flags)
{
	if (key->kind == FTAGENT_OBJ_SOCKET)
		return ftagent_sock_tracked(flags, key->family, key->protocol);
	if (dir == FTAGENT_DIR_IN && !(flags & FTAGENT_TRACK_READ))
		return false;
	return ftagent_standard_mode();
}

static __always_inline void ftagent_charge_fd(unsigned int fd,
					      enum ftagent_dir dir, long ret,
					      const struct ftagent_call_keys *keys,
					      struct ftagent_key *key)
{
	if (ftagent_key_for_call_fd(fd, keys, key) &&
	    ftagent_key_counted(key, dir, READ_ONCE(ftagent_filter_flags)))
		ftagent_counter_charge(key, dir, ret);
}

/*
 * A socket call that returned @ret after moving @bytes: one call with
 * those bytes, or a failed one whose bytes still count (a sendmmsg that
 * sent its first message but could not store its msg_len, or a recvfrom
 * whose data arrived but whose sender address could not be stored, fails
 * with EFAULT).
 */
static void ftagent_charge_moved(unsigned int fd, enum ftagent_dir dir,
				 long ret, long bytes,
				 const struct ftagent_call_keys *keys,
				 struct ftagent_key *key)
{
	if (ret >= 0) {
		ftagent_charge_fd(fd, dir, bytes, keys, key);
		return;
	}
	ftagent_charge_fd(fd, dir, ret, keys, key);
	if (bytes > 0 && key->kind != FTAGENT_OBJ_UNSPEC &&
	    ftagent_key_counted(key, dir, READ_ONCE(ftagent_filter_flags))) {
		if (static_branch_unlikely(&ftagent_budgets_on))
			ftagent_counter_budget(key, dir, bytes);
		ftagent_counter_bytes(key, dir, bytes);
	}
}

/*
 * sendfile and splice with track_sendfile off: only the socket side,
 * which is network traffic whatever fed it, is charged.
 */
static void ftagent_charge_transfer_end(unsigned int fd, enum ftagent_dir dir,
					long ret,
					const struct ftagent_call_keys *keys,
					struct ftagent_key *key)
{
	if (READ_ONCE(ftagent_filter_flags) & FTAGENT_TRACK_SENDFILE) {
		ftagent_charge_fd(fd, dir, ret, keys, key);
		return;
	}
	if (ftagent_key_for_call_fd(fd, keys, key) && key->kind == FTAGENT_OBJ_SOCKET &&
	    ftagent_key_counted(key, dir, READ_ONCE(ftagent_filter_flags)))
		ftagent_counter_charge(key, dir, ret);
}

/*
 * The O_* flags an open call was given, from its saved registers. For
 * openat2 they are in the caller's struct open_how, which a sibling
 * thread may rewrite before the call returns: FTAGENT_OPEN_FLAGS_FILE
 * has the record take them from the file opened instead.
 */
static u32 ftagent_open_flags(u8 class, const struct pt_regs *uregs)
{
	switch (class) {
	case FTAGENT_CALL_OPEN:
		return uregs->si;
	case FTAGENT_CALL_OPENAT:
		return uregs->dx;
	case FTAGENT_CALL_CREAT:
		return O_CREAT | O_WRONLY | O_TRUNC;
	default:
		return FTAGENT_OPEN_FLAGS_FILE;
	}
}

/*
 * sendmmsg/recvmmsg return how many messages moved; the kernel has
 * written each one's byte count into the caller's msg_len fields, so the
 * bytes are their sum. Read without faulting: the kernel just wrote them.
 * Only where the messages could not be charged as they moved (mmsg.c),
 * since a sibling thread can rewrite the fields first.
 */
static long ftagent_mmsg_read_back(unsigned long uvec, long nmsgs,
				   bool compat)
{
	/* struct mmsghdr, or struct compat_mmsghdr (an ia32 or x32 call). */
	size_t size = compat ? FTAGENT_MMSG32_SIZE : sizeof(struct mmsghdr);
	size_t off = compat ? FTAGENT_MMSG32_LEN :
			    offsetof(struct mmsghdr, msg_len);
	unsigned int len;
	long i, bytes = 0;

	for (i = 0; i < nmsgs && i < UIO_MAXIOV; i++) {
		const void __user *p = (const void __user *)(uvec + i * size +
							     off);

		if (copy_from_user_nofault(&len, p, sizeof(len))) {
			ftagent_count_loss(FTAGENT_LOSS_USER_READ);
			break;
		}
		bytes += len;
	}
	return bytes;
}

/*
 * The bytes a *mmsg call that returned @ret moved: what the kernel said
 * for each message (mmsg.c), or else the msg_len fields read back. Once
 * per settle: the kernel's figure is taken.
 */
static long ftagent_mmsg_bytes(unsigned long uvec, long ret, bool compat)
{
	if (READ_ONCE(ftagent_mmsg_exact))
		return ftagent_mmsg_take(current);
	return ret > 0 ? ftagent_mmsg_read_back(uvec, ret, compat) : 0;
}

/*
 * The bytes a recvfrom or recvmsg that returned @ret received. It can
 * fail after its data arrived (EFAULT storing the sender's address, the
 * msg_flags or the control length), so the socket layer's own count
 * (mmsg.c) says how much did. A call that succeeded returned its count
 * itself; anything more in the task's slot came from a call no settle
 * ended (in flight when the hooks attached, or its mark lost), and is
 * counted lost, not charged.
 */
static long ftagent_recv_bytes(long ret)
{
	long arrived, dropped;

	if (!READ_ONCE(ftagent_mmsg_exact))
		return ret;
	arrived = ftagent_mmsg_take_recv(current, &dropped);
	if (ret < 0)
		return arrived + dropped;
	if (arrived > ret)
		ftagent_count_loss(FTAGENT_LOSS_PENDING_TABLE);
	return ret + dropped;
}

/*
 * A read(), readv() or preadv2() while some task's receive copy has
 * faulted or met a bad checksum (mmsg.c): of a datagram socket, its copy
 * may have put bytes into the caller's buffer that the return value does
 * not count. Only then does the settle look, so other reads pay a load.
 */
static __always_inline bool ftagent_read_faults(u8 class)
{
	return class == FTAGENT_CALL_READ &&
	       unlikely(atomic_read(&ftagent_mmsg_faults)) &&
	       READ_ONCE(ftagent_mmsg_exact);
}

static void ftagent_budget_fd(unsigned int fd, enum ftagent_dir dir,
			      long bytes, const struct ftagent_call_keys *keys)
{
	struct ftagent_key key __uninitialized;

	if (ftagent_key_for_call_fd(fd, keys, &key))
		ftagent_budget_charge_bytes(key.kind, key.family, dir, bytes);
}

/*
 * An excluded process is not counted, but its bytes still use up its
 * budgets: exclusion is by name, which any process can take.
 */
static void ftagent_budget_only(u8 class, bool compat,
				const struct pt_regs *uregs, long ret,
				const struct ftagent_call_keys *keys)
{
	long bytes = ret;

	switch (class) {
	case FTAGENT_CALL_READ:
		if (ftagent_read_faults(class))
			bytes = ftagent_mmsg_take_read(current, ret) +
				(ret > 0 ? ret : 0);
		ftagent_budget_fd(uregs->di, FTAGENT_DIR_IN,
				  bytes > 0 ? bytes : ret, keys);
		break;
	case FTAGENT_CALL_WRITE:
		ftagent_budget_fd(uregs->di, FTAGENT_DIR_OUT, ret, keys);
		break;
	case FTAGENT_CALL_RECV:
		/* A failed call may still have received (EFAULT). */
		bytes = ftagent_recv_bytes(ret);
		ftagent_budget_fd(uregs->di, FTAGENT_DIR_IN,
				  bytes > 0 || ret >= 0 ? bytes : ret, keys);
		break;
	case FTAGENT_CALL_RECVMMSG:
	case FTAGENT_CALL_SENDMMSG:
		/* A failed call may still have sent a message (EFAULT). */
		bytes = ftagent_mmsg_bytes(uregs->si, ret, compat);
		ftagent_budget_fd(uregs->di,
				  class == FTAGENT_CALL_RECVMMSG ?
				  FTAGENT_DIR_IN : FTAGENT_DIR_OUT,
				  bytes > 0 || ret >= 0 ? bytes : ret, keys);
		break;
	case FTAGENT_CALL_SENDFILE:
		ftagent_budget_fd(uregs->si, FTAGENT_DIR_IN, ret, keys);
		ftagent_budget_fd(uregs->di, FTAGENT_DIR_OUT, ret, keys);
		break;
	case FTAGENT_CALL_SPLICE:
	case FTAGENT_CALL_COPY:
		ftagent_budget_fd(uregs->di, FTAGENT_DIR_IN, ret, keys);
		ftagent_budget_fd(uregs->dx, FTAGENT_DIR_OUT, ret, keys);
		break;
	default:
		break;
	}
}

/*
 * Charge a call of @class whose arguments are in @uregs' di, si and dx,
 * as the 64-bit entry points have them; @compat: the caller's structures
 * are the 32-bit (compat) ones, as for an ia32 or an x32 call.
 */
static __always_inline void
ftagent_account_class(u8 class, bool compat, const struct pt_regs *uregs,
		      long ret, const struct ftagent_call_keys *keys)
{
	/* Every field is written before use: no zeroing on each call. */
	struct ftagent_key key __uninitialized, peer __uninitialized;

	if (ftagent_tgid_excluded(current->tgid)) {
		if (class == FTAGENT_CALL_SENDFILE ||
		    class == FTAGENT_CALL_SPLICE)
			ftagent_xfer_done();
		if (static_branch_unlikely(&ftagent_budgets_on))
			ftagent_budget_only(class, compat, uregs, ret, keys);
		else if ((class == FTAGENT_CALL_RECV ||
			  class == FTAGENT_CALL_RECVMMSG ||
			  class == FTAGENT_CALL_SENDMMSG) &&
			 READ_ONCE(ftagent_mmsg_exact))
			ftagent_mmsg_take(current);	/* the slot goes back */
		else if (ftagent_read_faults(class))
			ftagent_mmsg_take_read(current, ret);
		return;
	}
	/* The common calls first. */
	if (likely(class == FTAGENT_CALL_READ ||
		   class == FTAGENT_CALL_WRITE)) {
		if (ftagent_read_faults(class)) {
			long landed = ftagent_mmsg_take_read(current, ret);

			ftagent_charge_moved(uregs->di, FTAGENT_DIR_IN, ret,
					     landed + (ret > 0 ? ret : 0),
					     keys, &key);
			return;
		}
		ftagent_charge_fd(uregs->di, class == FTAGENT_CALL_READ ?
				  FTAGENT_DIR_IN : FTAGENT_DIR_OUT, ret, keys, &key);
		return;
	}
	switch (class) {
	case FTAGENT_CALL_RECV:
		ftagent_charge_moved(uregs->di, FTAGENT_DIR_IN, ret,
				     ftagent_recv_bytes(ret), keys, &key);
		break;
	case FTAGENT_CALL_RECVMMSG:
	case FTAGENT_CALL_SENDMMSG:
		ftagent_charge_moved(uregs->di, class == FTAGENT_CALL_RECVMMSG ?
				     FTAGENT_DIR_IN : FTAGENT_DIR_OUT, ret,
				     ftagent_mmsg_bytes(uregs->si, ret, compat),
				     keys, &key);
		break;
	case FTAGENT_CALL_SENDFILE:
		ftagent_xfer_done();
		ftagent_charge_transfer_end(uregs->si, FTAGENT_DIR_IN, ret, keys,
					    &key);
		ftagent_charge_transfer_end(uregs->di, FTAGENT_DIR_OUT, ret,
					    keys, &peer);
		/* A file's bytes sent straight to a socket: a transfer. */
		if (key.kind == FTAGENT_OBJ_FILE &&
		    peer.kind == FTAGENT_OBJ_SOCKET && ftagent_standard_mode() &&
		    (READ_ONCE(ftagent_filter_flags) & FTAGENT_TRACK_SENDFILE)) {
			key.kind = FTAGENT_OBJ_TRANSFER;
			key.peer_ino = peer.ino;
			ftagent_counter_charge(&key, FTAGENT_DIR_OUT, ret);
		}
		break;
	case FTAGENT_CALL_SPLICE:
		ftagent_xfer_done();
		ftagent_charge_transfer_end(uregs->di, FTAGENT_DIR_IN, ret, keys,
					    &key);
		ftagent_charge_transfer_end(uregs->dx, FTAGENT_DIR_OUT, ret,
					    keys, &key);
		break;
	case FTAGENT_CALL_COPY:
		/*
		 * copy_file_range: the bytes read from one file and written
		 * to the other, as read() and write() would charge them; the
		 * kernel's rchar and wchar count them the same way.
		 */
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_IN, ret, keys, &key);
		ftagent_charge_fd(uregs->dx, FTAGENT_DIR_OUT, ret, keys, &peer);
		break;
	case FTAGENT_CALL_CONNECT:
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_OUT, ret < 0 ? ret : 0,
				  keys, &key);
		ftagent_event_sock_fd(FTAGENT_REC_CONNECT, uregs->di, ret, 0);
		break;
	case FTAGENT_CALL_ACCEPT:
		/* Success: the new socket; failure: the listening one. */
		ftagent_charge_fd(ret < 0 ? uregs->di : ret, FTAGENT_DIR_IN,
				  ret < 0 ? ret : 0, ret < 0 ? keys : NULL,
				  &key);
		if (ret >= 0)
			ftagent_event_sock_fd(FTAGENT_REC_ACCEPT, ret, ret, 0);
		break;
	case FTAGENT_CALL_BIND:
		if (!ret)
			ftagent_event_sock_fd(FTAGENT_REC_BIND, uregs->di, 0, 0);
		break;
	case FTAGENT_CALL_LISTEN:
		if (!ret)
			ftagent_event_sock_fd(FTAGENT_REC_LISTEN, uregs->di, 0,
					      uregs->si);
		break;
	case FTAGENT_CALL_OPEN:
	case FTAGENT_CALL_OPENAT:
	case FTAGENT_CALL_OPENAT2:
	case FTAGENT_CALL_CREAT:
		if (ret >= 0 && ftagent_standard_mode())
			ftagent_event_open_fd(ret, ftagent_open_flags(class, uregs));
		break;
	}
}

#ifdef CONFIG_IA32_EMULATION
/*
 * ia32 socketcall(call, args): its first two arguments, copied to @args'
 * di and si, by class (-1 for the calls that move nothing we count).
 * The descriptor is the one the block held at entry, when the kernel
 * read it too (ftagent_call_keys_fill()), if the entry could read it:
 * else, and for the *mmsg vector, the block is read back from the
 * caller's memory, which a caller may have rewritten during the call (a
 * sibling thread, or a receive into the block itself): a limit
 * docs/hooks.md states.
 */
static int ftagent_socketcall(const struct pt_regs *uregs,
			      struct pt_regs *args, long ret,
			      const struct ftagent_call_keys *keys)
{
	const void __user *block =
		(const void __user *)(unsigned long)(u32)uregs->cx;
	int class = ftagent_socketcall_class((u32)uregs->bx);
	bool doubt = false;
	u32 a[2];

	if (class < 0)
		return -1;
	args->dx = 0;
	/* The block was not in memory at entry: read it back, below. */
	if (keys && keys->obj[0].kind == FTAGENT_CALL_OBJ_UNREAD) {
		doubt = true;
		keys = NULL;
	}
	if (keys) {
		args->di = keys->obj[0].fd;
		args->si = 0;
		/* Only a read-back of *mmsg lengths needs the vector. */
		if ((class == FTAGENT_CALL_SENDMMSG ||
		     class == FTAGENT_CALL_RECVMMSG) &&
		    !READ_ONCE(ftagent_mmsg_exact) &&
		    !copy_from_user_nofault(a, block, sizeof(a)))
			args->si = a[1];
		return class;
	}
	if (copy_from_user_nofault(a, block, sizeof(a))) {
		/* A call that failed may have failed on this very block. */
		if (ret >= 0)
			ftagent_count_loss(FTAGENT_LOSS_USER_READ);
		return -1;
	}
	/*
	 * Charged to what the block says now, which may not be what the
	 * call used: the doubt is counted, whatever the call returned (a
	 * failed one may still have moved bytes). A block unreadable now
	 * too (the self-check's socketcall has none) charges nothing.
	 */
	if (doubt)
		ftagent_count_loss(FTAGENT_LOSS_USER_READ);
	args->di = a[0];
	args->si = a[1];
	return class;
}

/* A socketcall whose bytes the socket layer counts (mmsg.c). */
static bool ftagent_socketcall_moves_msgs(u32 call)
{
	return call == SYS_SENDMMSG || call == SYS_RECVMMSG ||
	       call == SYS_RECV || call == SYS_RECVFROM ||
	       call == SYS_RECVMSG;
}

/*
 * An ia32 call: its arguments are in bx, cx and dx, of which the entry
 * code passes only the low 32 bits on; moved to where the 64-bit calls
 * have them.
 */
static noinline void ftagent_account_ia32(const struct ftagent_call *call,
					  const struct pt_regs *uregs,
					  long ret,
					  const struct ftagent_call_keys *keys)
{
	struct pt_regs args __uninitialized;
	int class = call->class;

	if (class == FTAGENT_CALL_SOCKETCALL) {
		class = ftagent_socketcall(uregs, &args, ret, keys);
		if (keys && keys->obj[0].kind == FTAGENT_CALL_OBJ_UNREAD)
			keys = NULL;
		if (class < 0) {
			/*
			 * An unreadable block: no descriptor to charge the
			 * bytes the socket layer counted to; lost, and said.
			 */
			if (ftagent_socketcall_moves_msgs((u32)uregs->bx) &&
			    READ_ONCE(ftagent_mmsg_exact) &&
			    ftagent_mmsg_take(current) > 0 && ret < 0)
				ftagent_count_loss(FTAGENT_LOSS_USER_READ);
			return;
		}
	} else {
		args.di = (u32)uregs->bx;
		args.si = (u32)uregs->cx;
		args.dx = (u32)uregs->dx;
	}
	ftagent_account_class(class, true, &args, ret, keys);
}
#endif

/*
 * The key's first two words as ftagent_key_equal() reads them, built in
 * registers: the fast path below never puts a key in memory.
 */
#ifdef __BIG_ENDIAN
#error "ftagent: the key words below are laid out for a little-endian CPU"
#endif
static_assert(offsetof(struct ftagent_key, tgid) == 0 &&
	      offsetof(struct ftagent_key, kind) == 4 &&
	      offsetof(struct ftagent_key, family) == 6 &&
	      offsetof(struct ftagent_key, dev) == 8 &&
	      offsetof(struct ftagent_key, protocol) == 12 &&
	      offsetof(struct ftagent_key, pad) == 14 &&
	      offsetof(struct ftagent_key, ino) == 16 &&
	      offsetof(struct ftagent_key, peer_ino) == 24 &&
	      sizeof(struct ftagent_key) == 32);
#define FTAGENT_KEY_W0(tgid, kind, family)				\
	((u64)(u32)(tgid) | (u64)(u16)(kind) << 32 | (u64)(u16)(family) << 48)
#define FTAGENT_KEY_W1(dev, protocol)					\
	((u64)(u32)(dev) | (u64)(u16)(protocol) << 32)

/*
 * The common case in full, or false to leave it to ftagent_account_class()
 * (which then does all of it again): a 64-bit read or write class call
 * (read, write, their vector and positioned forms, sendto, sendmsg) on a
 * descriptor whose object this CPU charged last, with every object tracked, no
 * process excluded, no budget and no read fault pending. In minimal mode
 * only a socket is charged (as the standard mode charges it); any other
 * object is not, even if it is this CPU's last slot from before a switch
 * of mode. It is what
 * ftagent_charge_fd() and ftagent_counter_count() do for that call, in
 * fewer instructions: the key stays in registers and is compared with
 * the last slot's in place, so there is no key on the stack (and no
 * stack protector), and no slow path shares the frame.
 */
static __always_inline bool
ftagent_account_fast(const struct ftagent_call *call,
		     const struct pt_regs *uregs, long ret)
{
	const u64 *slot_key;
	struct ftagent_last *last;
	struct ftagent_slot *slot;
	struct inode *inode;
	struct file *file;
	unsigned int fd = uregs->di;
	u32 dev = 0, seen = 0;
	umode_t mode;
	u16 kind;

	if ((call->class != FTAGENT_CALL_READ &&
	     call->class != FTAGENT_CALL_WRITE) || call->ia32 ||
	    static_branch_unlikely(&ftagent_exclusions_on) ||
	    static_branch_unlikely(&ftagent_budgets_on) ||
	    READ_ONCE(ftagent_filter_flags) != FTAGENT_TRACK_ALL ||
	    ftagent_read_faults(call->class))
		return false;
	/* As ftagent_key_for_fd(), which see. */
	file = ftagent_fd_file(fd, &inode);
	if (!file)
		return false;
	mode = inode->i_mode;
	if (S_ISSOCK(mode)) {
		seen = ftagent_sock_family_seen(file, inode);
		if (!seen)
			return false;
		kind = FTAGENT_OBJ_SOCKET;
	} else {
		/*
		 * Minimal mode charges no other object, and under the
		 * conditions above the full path would do nothing else for
		 * it: done.
		 */
		if (!ftagent_standard_mode())
			return true;
		kind = ftagent_inode_kind(mode);
		dev = inode->i_sb->s_dev;
	}
	/* As ftagent_counter_add(), on the last slot only. */
	last = this_cpu_ptr(&ftagent_last);
	slot = last->slot;
	if (unlikely(last->seq != READ_ONCE(ftagent_gen_seq) || !slot))
		return false;
	slot_key = (const u64 *)&slot->key;
	if ((slot_key[0] ^ FTAGENT_KEY_W0(current->tgid, kind, (u16)seen)) |
	    (slot_key[1] ^ FTAGENT_KEY_W1(dev, seen >> 16)) |
	    (slot_key[2] ^ inode->i_ino) | slot_key[3])
		return false;
	ftagent_slot_add(slot, call->class == FTAGENT_CALL_READ ?
			 FTAGENT_DIR_IN : FTAGENT_DIR_OUT, ret, 1);
	return true;
}

static noinline void ftagent_account_slow(const struct ftagent_call *call,
					  const struct pt_regs *uregs,
					  long ret,
					  const struct ftagent_call_keys *keys)
{
#ifdef CONFIG_IA32_EMULATION
	if (unlikely(call->ia32)) {
		ftagent_account_ia32(call, uregs, ret, keys);
		return;
	}
#endif
	/*
	 * x32's own entry points (call->x32): 64-bit registers, compat
	 * structures (the *mmsg headers read back). Not call->x32_nr: a
	 * CALL_X32 row (readv, writev) is the 64-bit entry point, whose x32
	 * number only finds the row, and whose charge is its return value:
	 * no structure of its caller is read back.
	 */
	ftagent_account_class(call->class, call->x32, uregs, ret, keys);
}

/*
 * A miss on the fast path (a process moving between descriptors) pays
 * the descriptor lookup twice: about 20 instructions, against the 20 a
 * hit saves.
 */
void ftagent_account(const struct ftagent_call *call,
		     const struct pt_regs *uregs, long ret,
		     const struct ftagent_call_keys *keys)
{
	lockdep_assert_preemption_disabled();	/* per-CPU slots and caches */
	if (likely(!keys) && ftagent_account_fast(call, uregs, ret))
		return;
	ftagent_account_slow(call, uregs, ret, keys);
}

bool ftagent_account_key(struct file *file, u32 tgid, struct ftagent_key *key)
{
	return ftagent_key_for_file(file, tgid, key);
}

/*
 * Whether @key is counted (1), left out with its budgets (0), or only
 * charged (-1): an excluded process is not counted but charged; a splice
 * end with track_sendfile off only if it is a socket.
 */
static int ftagent_key_wanted(const struct ftagent_key *key,
			      enum ftagent_dir dir, bool transfer)
{
	u32 flags = READ_ONCE(ftagent_filter_flags);

	if (ftagent_tgid_excluded(key->tgid))
		return -1;
	if (transfer && !(flags & FTAGENT_TRACK_SENDFILE) &&
	    key->kind != FTAGENT_OBJ_SOCKET)
		return 0;
	return ftagent_key_counted(key, dir, flags);
}

bool ftagent_account_key_count(const struct ftagent_key *key,
			       enum ftagent_dir dir, long ret, bool transfer)
{
	int wanted = ftagent_key_wanted(key, dir, transfer);

	if (wanted > 0)
		ftagent_counter_count(key, dir, ret);
	return wanted != 0;
}

int ftagent_account_key_wanted(const struct ftagent_key *key,
			       enum ftagent_dir dir)
{
	return ftagent_key_wanted(key, dir, false);
}

void ftagent_account_key_charge(struct task_struct *task,
				const struct cred *cred,
				const struct ftagent_key *key,
				enum ftagent_dir dir, long ret, bool transfer)
{
	if (!ftagent_account_key_count(key, dir, ret, transfer))
		return;
	if (static_branch_unlikely(&ftagent_budgets_on))
		ftagent_budget_charge_bytes_task(task, cred, key->kind,
						 key->family, dir, ret);
}

void ftagent_account_file(struct task_struct *task, const struct cred *cred,
			  struct file *file, enum ftagent_dir dir, long ret,
			  bool transfer)
{
	struct ftagent_key key __uninitialized;

	if (ftagent_key_for_file(file, task->tgid, &key))
		ftagent_account_key_charge(task, cred, &key, dir, ret,
					   transfer);
}

void ftagent_account_socket(struct task_struct *task, struct socket *sock,
			    enum ftagent_dir dir, long ret)
{
	struct ftagent_key key __uninitialized;
	struct sock *sk = READ_ONCE(sock->sk);

	/* As ftagent_key_for_file() fills it for the socket's file. */
	key.tgid = task->tgid;
	key.kind = FTAGENT_OBJ_SOCKET;
	key.family = sk ? READ_ONCE(sk->sk_family) : 0;
	key.dev = 0;
	key.protocol = sk ? READ_ONCE(sk->sk_protocol) : 0;
	key.pad = 0;
	key.ino = SOCK_INODE(sock)->i_ino;
	key.peer_ino = 0;
	ftagent_account_key_charge(task, NULL, &key, dir, ret, false);
}

void ftagent_account_file_landed(struct task_struct *task,
				 const struct cred *cred, struct file *file,
				 long ret, long landed)
{
	struct ftagent_key key __uninitialized;

	if (!ftagent_key_for_file(file, task->tgid, &key))
		return;
	if (ret >= 0) {
		ftagent_account_key_charge(task, cred, &key, FTAGENT_DIR_IN,
					   ret + landed, false);
		return;
	}
	/*
	 * The failed call, then the bytes it left in the buffer, as
	 * ftagent_account_key_charge() would have charged them: an excluded
	 * process is charged but not counted, a socket the filters leave
	 * out neither.
	 */
	ftagent_account_key_charge(task, cred, &key, FTAGENT_DIR_IN, ret,
				   false);
	if (!ftagent_tgid_excluded(key.tgid)) {
		if (!ftagent_key_counted(&key, FTAGENT_DIR_IN,
					 READ_ONCE(ftagent_filter_flags)))
			return;
		ftagent_counter_bytes(&key, FTAGENT_DIR_IN, landed);
	}
	if (static_branch_unlikely(&ftagent_budgets_on))
		ftagent_budget_charge_bytes_task(task, cred, key.kind,
						 key.family, FTAGENT_DIR_IN,
						 landed);
}
