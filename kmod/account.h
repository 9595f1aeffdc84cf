/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning one returned system call into counter updates.
 */
#ifndef _FTAGENT_ACCOUNT_H
#define _FTAGENT_ACCOUNT_H

#include <linux/ptrace.h>

#include "counters.h"

struct socket;

struct cred;
struct ftagent_call;
struct ftagent_call_keys;
struct file;
struct task_struct;

/*
 * Charge a call that returned @ret. @uregs is the task's saved user
 * registers: the syscall's arguments, unchanged by the call. @keys, if
 * not NULL: what some of its descriptors named when it began
 * (callfiles.c), charged instead of what they name now. Runs in hook
 * context with preemption disabled; never sleeps, never allocates.
 */
void ftagent_account(const struct ftagent_call *call,
		     const struct pt_regs *uregs, long ret,
		     const struct ftagent_call_keys *keys);

/*
 * Charge an io_uring request that moved @ret bytes (or failed with @ret)
 * on @file, which it holds: counted for @task's process, and charged to
 * the budgets of @task's principal under @cred (NULL: the task's own).
 * @transfer: a splice end, counted as syscall splice counts its ends.
 * Preemption disabled.
 */
void ftagent_account_file(struct task_struct *task, const struct cred *cred,
			  struct file *file, enum ftagent_dir dir, long ret,
			  bool transfer);
/*
 * The same for @sock, which the caller keeps alive (its lock held), with
 * or without a file: a socket the kernel made for a user's call (AF_SMC's
 * TCP socket underneath) is keyed by its own inode.
 */
void ftagent_account_socket(struct task_struct *task, struct socket *sock,
			    enum ftagent_dir dir, long ret);
/*
 * The same for a receive that also put @landed (> 0) bytes into the
 * caller's buffer beyond @ret: of a datagram discarded for a bad
 * checksum, or, when it failed, of a copy that faulted (mmsg.c). A
 * failed one is counted as a failed call and the bytes as received.
 */
void ftagent_account_file_landed(struct task_struct *task,
				 const struct cred *cred, struct file *file,
				 long ret, long landed);
/*
 * The same in two steps, for a result that comes after the request is
 * gone (a multishot request's extra CQE): the key of @file for process
 * @tgid, taken while the request holds the file (false: none), then the
 * charge of @key.
 */
bool ftagent_account_key(struct file *file, u32 tgid, struct ftagent_key *key);
/*
 * Its first half: count @key, unless its process is excluded; false if
 * the filters leave it out, when budgets are not charged either. Task
 * context only: the counter tables take no writer in an interrupt.
 */
bool ftagent_account_key_count(const struct ftagent_key *key,
			       enum ftagent_dir dir, long ret, bool transfer);
/*
 * Its answer without the count: 1 if @key is counted and charged, -1 if
 * only charged (its process is excluded), 0 if the filters leave it out.
 */
int ftagent_account_key_wanted(const struct ftagent_key *key,
			       enum ftagent_dir dir);
void ftagent_account_key_charge(struct task_struct *task,
				const struct cred *cred,
				const struct ftagent_key *key,
				enum ftagent_dir dir, long ret, bool transfer);

/* The mode the accounting applies: enum ftagent_mode. */
void ftagent_account_set_mode(unsigned int mode);
/* Whether it writes OPEN records (standard mode), as for open calls. */
bool ftagent_account_opens_recorded(void);

#endif /* _FTAGENT_ACCOUNT_H */
