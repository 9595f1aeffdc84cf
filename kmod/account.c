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
 */
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/net.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <net/sock.h>

#include "account.h"
#include "calls.h"
#include "counters.h"

static unsigned int ftagent_account_mode = FTAGENT_MODE_STANDARD;

void ftagent_account_set_mode(unsigned int mode)
{
	WRITE_ONCE(ftagent_account_mode, mode);
}

/* Fill @key for the object @fd names; false if there is none. */
static bool ftagent_key_for_fd(unsigned long fd, struct ftagent_key *key)
{
	struct file *file;
	struct inode *inode;
	struct socket *sock;
	struct sock *sk;
	umode_t mode;

	memset(key, 0, sizeof(*key));
	if (fd > INT_MAX)
		return false;
	key->tgid = current->tgid;

	rcu_read_lock();
	file = lookup_fd_rcu(fd);
	if (!file) {
		rcu_read_unlock();
		return false;
	}
	inode = file_inode(file);
	mode = inode->i_mode;
	key->ino = inode->i_ino;
	if (S_ISSOCK(mode)) {
		key->kind = FTAGENT_OBJ_SOCKET;
		sock = sock_from_file(file);
		sk = sock ? READ_ONCE(sock->sk) : NULL;
		if (sk) {
			key->family = READ_ONCE(sk->sk_family);
			key->protocol = READ_ONCE(sk->sk_protocol);
		}
	} else {
		key->kind = S_ISREG(mode) ? FTAGENT_OBJ_FILE :
			    S_ISFIFO(mode) ? FTAGENT_OBJ_PIPE :
			    FTAGENT_OBJ_OTHER;
		key->dev = new_encode_dev(inode->i_sb->s_dev);
	}
	rcu_read_unlock();
	return true;
}

static bool ftagent_standard_mode(void)
{
	return READ_ONCE(ftagent_account_mode) == FTAGENT_MODE_STANDARD;
}

static bool ftagent_key_counted(const struct ftagent_key *key)
{
	return key->kind == FTAGENT_OBJ_SOCKET || ftagent_standard_mode();
}

static void ftagent_charge_fd(unsigned long fd, enum ftagent_dir dir,
			      long ret, struct ftagent_key *key)
{
	if (ftagent_key_for_fd(fd, key) && ftagent_key_counted(key))
		ftagent_counter_charge(key, dir, ret);
}

/*
 * sendmmsg/recvmmsg return how many messages moved; the kernel has
 * written each one's byte count into the caller's msg_len fields, so the
 * bytes are their sum. Read without faulting: the kernel just wrote them.
 */
static long ftagent_mmsg_bytes(unsigned long uvec, long nmsgs)
{
	struct mmsghdr __user *vec = (struct mmsghdr __user *)uvec;
	unsigned int len;
	long i, bytes = 0;

	for (i = 0; i < nmsgs && i < UIO_MAXIOV; i++) {
		if (copy_from_user_nofault(&len, &vec[i].msg_len, sizeof(len))) {
			ftagent_count_loss(FTAGENT_LOSS_USER_READ);
			break;
		}
		bytes += len;
	}
	return bytes;
}

void ftagent_account(const struct ftagent_call *call,
		     const struct pt_regs *uregs, long ret)
{
	struct ftagent_key key, peer;
	long bytes = ret;

	switch (call->class) {
	case FTAGENT_CALL_READ:
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_IN, ret, &key);
		break;
	case FTAGENT_CALL_WRITE:
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_OUT, ret, &key);
		break;
	case FTAGENT_CALL_RECVMMSG:
		if (ret > 0)
			bytes = ftagent_mmsg_bytes(uregs->si, ret);
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_IN, bytes, &key);
		break;
	case FTAGENT_CALL_SENDMMSG:
		if (ret > 0)
			bytes = ftagent_mmsg_bytes(uregs->si, ret);
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_OUT, bytes, &key);
		break;
	case FTAGENT_CALL_SENDFILE:
		ftagent_charge_fd(uregs->si, FTAGENT_DIR_IN, ret, &key);
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_OUT, ret, &peer);
		/* A file's bytes sent straight to a socket: a transfer. */
		if (key.kind == FTAGENT_OBJ_FILE &&
		    peer.kind == FTAGENT_OBJ_SOCKET && ftagent_standard_mode()) {
			key.kind = FTAGENT_OBJ_TRANSFER;
			key.peer_ino = peer.ino;
			ftagent_counter_charge(&key, FTAGENT_DIR_OUT, ret);
		}
		break;
	case FTAGENT_CALL_SPLICE:
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_IN, ret, &key);
		ftagent_charge_fd(uregs->dx, FTAGENT_DIR_OUT, ret, &key);
		break;
	case FTAGENT_CALL_CONNECT:
		ftagent_charge_fd(uregs->di, FTAGENT_DIR_OUT, ret < 0 ? ret : 0,
				  &key);
		break;
	case FTAGENT_CALL_ACCEPT:
		/* Success: the new socket; failure: the listening one. */
		ftagent_charge_fd(ret < 0 ? uregs->di : ret, FTAGENT_DIR_IN,
				  ret < 0 ? ret : 0, &key);
		break;
	}
}
