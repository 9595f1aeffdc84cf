// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle events.
 *
 * Where each comes from:
 *  - fork, exec: the sched_process_fork and sched_process_exec
 *    tracepoints (processes only: a new thread is not a fork event);
 *  - exit: a hook on acct_process(), which do_exit() calls once,
 *    in the last thread of a process, after the exit code is set: the
 *    sched_process_exit tracepoint fires per thread and cannot tell
 *    which thread is the last when two exit at once;
 *  - socket close: a hook on sock_close(), the release of a socket's
 *    file, so a close by exit, by dup2() or by the last of several
 *    descriptors is seen, whoever drops it (the two hooks share one
 *    ftrace_ops);
 *  - bind, listen, connect, accept and open: the traced syscalls, when
 *    they return (account.c calls in here).
 * task_rename keeps the excluded processes current (filters.c).
 *
 * These points fire a few times per process or connection, so they use
 * ftrace_ops and tracepoints in both hook sets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kdev_t.h>
#include <linux/net.h>
#include <linux/openat2.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/task_io_accounting_ops.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/xxhash.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "budget.h"
#include "compat/ftrace.h"
#include "events.h"
#include "filters.h"
#include "hooks.h"
#include "lifecycle.h"
#include "symbols.h"
#include "usersock.h"

/* Bytes of argv hashed per copy: the path scratch buffer's size. */
#define FTAGENT_HASH_CHUNK	FTAGENT_REC_PATH_MAX

/*
 * Tries at the task lock on PREEMPT_RT before reading without it: few,
 * since a holder preempted on this CPU never lets go while we spin.
 */
#define FTAGENT_COMM_TRIES	4

/*
 * The task's name, whole: prctl(PR_SET_NAME) and /proc/PID/comm rewrite
 * it under task_lock() a word at a time, so an unlocked read can return
 * the front of one name and the back of the next. Tracepoints run with
 * preemption off; there PREEMPT_RT's sleeping task lock may only be
 * tried. If its holder is preempted on this CPU it cannot finish while
 * we wait, so after a bounded number of tries the name is read as it
 * stands: still 15 bytes and a NUL, possibly mixed.
 */
static void ftagent_copy_comm(char *dst, struct task_struct *t)
{
	int tries;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		task_lock(t);
		memcpy(dst, t->comm, FTAGENT_COMM_LEN - 1);
		task_unlock(t);
		goto out;
	}
	for (tries = 0; tries < FTAGENT_COMM_TRIES; tries++) {
		if (spin_trylock(&t->alloc_lock)) {
			memcpy(dst, t->comm, FTAGENT_COMM_LEN - 1);
			spin_unlock(&t->alloc_lock);
			goto out;
		}
		cpu_relax();
	}
	memcpy(dst, t->comm, FTAGENT_COMM_LEN - 1);
out:
	dst[FTAGENT_COMM_LEN - 1] = '\0';
}

/* Record size so far: header and body. */
static size_t ftagent_body_end(struct ftagent_rec_hdr *hdr, size_t body)
{
	hdr->body_size = body;
	return sizeof(*hdr) + body;
}

/* Append @file's path; returns its length in the record. */
static u16 ftagent_put_path(struct ftagent_rec_hdr *hdr, size_t *size,
			    const struct path *path, u16 trunc_flag,
			    u16 unreadable_flag)
{
	char *buf = ftagent_event_path_buf();
	char *p = d_path(path, buf, FTAGENT_REC_PATH_MAX);

	if (IS_ERR(p)) {
		/* Longer than PATH_MAX, or unreachable: say so, no bytes. */
		hdr->flags |= unreadable_flag;
		return 0;
	}
	return ftagent_event_put_str(hdr, size, p, strlen(p),
				     FTAGENT_REC_PATH_MAX, trunc_flag);
}

static void ftagent_fork_probe(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	struct ftagent_rec_hdr *hdr;
	struct ftagent_rec_fork *r;
	size_t size;

	if (child->pid != child->tgid)
		return;		/* a thread */
	ftagent_exclude_fork(parent, child);
	if (ftagent_tgid_excluded(parent->tgid))
		return;
	hdr = ftagent_event_begin(FTAGENT_REC_FORK);
	if (!hdr)
		return;
	r = (struct ftagent_rec_fork *)(hdr + 1);
	memset(r, 0, sizeof(*r));
	size = ftagent_body_end(hdr, sizeof(*r));
	r->child_tgid = child->tgid;
	ftagent_copy_comm(r->comm, parent);
	ftagent_event_commit(hdr, size);
}

/*
 * The arguments the new program was given: they sit in its own memory
 * (arg_start..arg_end), just written by exec, so reading them cannot
 * fault in anything. Copies the first FTAGENT_REC_ARGV_MAX bytes into
 * the record and hashes up to FTAGENT_REC_ARGV_HASH_MAX.
 */
static void ftagent_put_argv(struct ftagent_rec_hdr *hdr, size_t *size,
			     struct ftagent_rec_exec *r, struct mm_struct *mm)
{
	unsigned long start = mm->arg_start, total = mm->arg_end - start;
	unsigned long hashed = min_t(unsigned long, total,
				     FTAGENT_REC_ARGV_HASH_MAX);
	char *chunk = ftagent_event_path_buf();
	struct xxh64_state state;
	unsigned long off, n;
	size_t keep;

	r->argv_bytes = total;
	keep = min_t(unsigned long, total, FTAGENT_REC_ARGV_MAX);
	if (copy_from_user_nofault((u8 *)hdr + *size,
				   (const void __user *)start, keep)) {
		hdr->flags |= FTAGENT_REC_F_STR1_UNREADABLE;
		return;
	}
	if (keep < total)
		hdr->flags |= FTAGENT_REC_F_STR1_TRUNCATED;
	*size += keep;
	r->argv_len = keep;

	xxh64_reset(&state, 0);
	for (off = 0; off < hashed; off += n) {
		n = min_t(unsigned long, hashed - off, FTAGENT_HASH_CHUNK);
		if (copy_from_user_nofault(chunk,
					   (const void __user *)(start + off),
					   n)) {
			hdr->flags |= FTAGENT_REC_F_HASH_PARTIAL;
			break;
		}
		xxh64_update(&state, chunk, n);
	}
	if (hashed < total)
		hdr->flags |= FTAGENT_REC_F_HASH_PARTIAL;
	r->argv_hash = xxh64_digest(&state);
}

static void ftagent_exec_probe(void *data, struct task_struct *p,
			       pid_t old_pid, struct linux_binprm *bprm)
{
	const struct cred *cred;
	struct ftagent_rec_hdr *hdr;
	struct ftagent_rec_exec *r;
	size_t size;

	/* Budgets apply to everyone, excluded or not. */
	if (static_branch_unlikely(&ftagent_budgets_on))
		ftagent_budget_exec();
	if (ftagent_tgid_excluded(p->tgid))
		return;
	hdr = ftagent_event_begin(FTAGENT_REC_EXEC);
	if (!hdr)
		return;
	r = (struct ftagent_rec_exec *)(hdr + 1);
	memset(r, 0, sizeof(*r));
	size = ftagent_body_end(hdr, sizeof(*r));

	rcu_read_lock();
	r->ppid = task_tgid_nr(rcu_dereference(p->real_parent));
#ifdef CONFIG_CGROUPS
	r->cgroup_id = cgroup_id(task_dfl_cgroup(p));
#endif
	cred = __task_cred(p);
	r->uid = from_kuid_munged(&init_user_ns, cred->uid);
	r->gid = from_kgid_munged(&init_user_ns, cred->gid);
	r->euid = from_kuid_munged(&init_user_ns, cred->euid);
	rcu_read_unlock();
	r->argc = bprm->argc;
	ftagent_copy_comm(r->comm, p);

	r->exe_len = ftagent_put_path(hdr, &size, &bprm->file->f_path,
				      FTAGENT_REC_F_STR0_TRUNCATED,
				      FTAGENT_REC_F_STR0_UNREADABLE);
	if (p->mm)
		ftagent_put_argv(hdr, &size, r, p->mm);
	else
		hdr->flags |= FTAGENT_REC_F_STR1_UNREADABLE;
	ftagent_event_commit(hdr, size);
}

static void ftagent_rename_probe(void *data, struct task_struct *task,
				 const char *comm)
{
	ftagent_exclude_rename(task, comm);
}

static void ftagent_free_probe(void *data, struct task_struct *p)
{
	ftagent_exclude_free(p);
}

/* The threads already released are in signal->ioac, the rest listed. */
static void ftagent_sum_io(struct task_struct *me,
			   struct task_io_accounting *acct)
{
	struct task_struct *t;

	*acct = me->signal->ioac;
	for_each_thread(me, t)
		task_io_accounting_add(acct, &t->ioac);
}

/*
 * The exiting process's I/O totals, as /proc/PID/io adds them up, under
 * siglock as 6.1's /proc does (6.12's reads stats_lock): exact.
 */
static void ftagent_process_io_locked(struct task_struct *me,
				      struct task_io_accounting *acct)
{
	/* Our own sighand: nothing replaces it while we are exiting. */
	struct sighand_struct *sighand =
		rcu_dereference_protected(me->sighand, me == current);
	unsigned long flags;

	spin_lock_irqsave(&sighand->siglock, flags);
	ftagent_sum_io(me, acct);
	spin_unlock_irqrestore(&sighand->siglock, flags);
}

/*
 * On PREEMPT_RT siglock is a sleeping lock, and this runs with preemption
 * off: read under signal->stats_lock's plain seqcount instead (the
 * seqlock's own read side takes its spinlock on RT when it finds a
 * writer). __exit_signal() adds a released thread's figures to
 * signal->ioac and unlists it inside one write section, so a read that
 * saw no writer is whole. Bounded, since a writer preempted on this CPU
 * cannot finish while we spin: then the last read stands, and may miss
 * or double one thread's figures (RT only; docs/hooks.md).
 */
static void ftagent_process_io_rt(struct task_struct *me,
				  struct task_io_accounting *acct)
{
	seqcount_t *sc = &me->signal->stats_lock.seqcount.seqcount;
	unsigned int seq, tries;
	bool whole = false;

	rcu_read_lock();
	for (tries = 0; tries < 64 && !whole; tries++) {
		seq = raw_read_seqcount(sc);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		ftagent_sum_io(me, acct);
		whole = !read_seqcount_retry(sc, seq);
	}
	if (!whole)
		ftagent_sum_io(me, acct);
	rcu_read_unlock();
}

static void ftagent_process_io(struct task_struct *me,
			       struct task_io_accounting *acct)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		ftagent_process_io_rt(me, acct);
	else
		ftagent_process_io_locked(me, acct);
}

/* acct_process(): the last thread of a process is exiting. */
static void notrace ftagent_exit_hook(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	struct signal_struct *sig = t->signal;
	struct task_io_accounting io;
	struct ftagent_rec_hdr *hdr;
	struct ftagent_rec_exit *r;
	bool excluded;
	size_t size;

	preempt_disable_notrace();
	excluded = ftagent_tgid_excluded(t->tgid);
	/* Kernel threads too: a renamed one may have joined the set. */
	ftagent_exclude_exit(t, excluded);
	if (excluded || (t->flags & PF_KTHREAD))
		goto out;
	hdr = ftagent_event_begin(FTAGENT_REC_EXIT);
	if (!hdr)
		goto out;
	r = (struct ftagent_rec_exit *)(hdr + 1);
	memset(r, 0, sizeof(*r));
	size = ftagent_body_end(hdr, sizeof(*r));
	/* What wait(2) will report: see wait_task_zombie(). */
	r->exit_code = (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT) ?
		       READ_ONCE(sig->group_exit_code) :
		       READ_ONCE(t->group_leader->exit_code);
	r->nr_threads = READ_ONCE(sig->nr_threads);
	ftagent_process_io(t, &io);
	r->rchar = io.rchar;
	r->wchar = io.wchar;
	r->syscr = io.syscr;
	r->syscw = io.syscw;
	r->read_bytes = io.read_bytes;
	r->write_bytes = io.write_bytes;
	ftagent_copy_comm(r->comm, t);
	ftagent_event_commit(hdr, size);
out:
	preempt_enable_notrace();
}

/* Fill @r from @sock; false if the socket is not one we report. */
static bool ftagent_fill_sock(struct ftagent_rec_sock *r, struct socket *sock)
{
	struct sock *sk = READ_ONCE(sock->sk);
	const struct inet_sock *inet;
	__be32 saddr;

	if (!sk)
		return false;
	r->family = READ_ONCE(sk->sk_family);
	if (r->family != AF_INET && r->family != AF_INET6)
		return false;
	r->protocol = READ_ONCE(sk->sk_protocol);
	if (!ftagent_sock_tracked(READ_ONCE(ftagent_filter_flags), r->family,
				  r->protocol))
		return false;
	r->type = READ_ONCE(sk->sk_type);
	r->sock_ino = SOCK_INODE(sock)->i_ino;
	inet = inet_sk(sk);
	r->local_port = ntohs(READ_ONCE(inet->inet_sport));
	r->remote_port = ntohs(READ_ONCE(inet->inet_dport));
	if (r->family == AF_INET) {
		/* The source chosen by connect, else the bound address. */
		saddr = READ_ONCE(inet->inet_saddr) ?:
			READ_ONCE(sk->sk_rcv_saddr);
		memcpy(r->local_addr, &saddr, sizeof(saddr));
		saddr = READ_ONCE(inet->inet_daddr);
		memcpy(r->remote_addr, &saddr, sizeof(saddr));
		return true;
	}
#if IS_ENABLED(CONFIG_IPV6)
	memcpy(r->local_addr, &sk->sk_v6_rcv_saddr, 16);
	memcpy(r->remote_addr, &sk->sk_v6_daddr, 16);
#endif
	return true;
}

/* A socket record, in the name of @who (a thread of the caller's process). */
static void ftagent_event_sock_as(const struct task_struct *who,
				  unsigned int type, struct socket *sock,
				  long result, u32 backlog)
{
	struct ftagent_rec_hdr *hdr;
	struct ftagent_rec_sock *r;
	size_t size;

	if (ftagent_tgid_excluded(who->tgid))
		return;
	hdr = ftagent_event_begin(type);
	if (!hdr)
		return;
	hdr->tgid = who->tgid;
	hdr->pid = who->pid;
	r = (struct ftagent_rec_sock *)(hdr + 1);
	memset(r, 0, sizeof(*r));
	size = ftagent_body_end(hdr, sizeof(*r));
	if (!ftagent_fill_sock(r, sock)) {
		ftagent_event_cancel(hdr);
		return;
	}
	r->result = result;
	r->backlog = backlog;
	ftagent_event_commit(hdr, size);
}

void ftagent_event_sock_file_as(const struct task_struct *who,
				unsigned int type, struct file *file,
				long result, u32 backlog)
{
	struct socket *sock = sock_from_file(file);

	if (sock)
		ftagent_event_sock_as(who, type, sock, result, backlog);
}

void ftagent_event_sock_fd(unsigned int type, unsigned int fd, long result,
			   u32 backlog)
{
	struct file *file;

	if (fd > INT_MAX)
		return;
	file = fget(fd);
	if (!file)
		return;
	ftagent_event_sock_file_as(current, type, file, result, backlog);
	fput(file);
}

/* sock_close(inode, file): the last reference to a socket is dropped. */
static void notrace ftagent_sock_close_hook(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	struct inode *inode = (struct inode *)ftagent_fregs_args(fregs)->di;

	/* Whichever task drops the file: its accept mark goes (usersock.c). */
	ftagent_usersock_close(SOCKET_I(inode));
	if (current->flags & PF_KTHREAD)
		return;	/* a delayed fput: no process to charge */
	preempt_disable_notrace();
	ftagent_event_sock_as(current, FTAGENT_REC_CLOSE, SOCKET_I(inode), 0,
			      0);
	preempt_enable_notrace();
}

void ftagent_event_open_file(unsigned int fd, struct file *file, u32 flags)
{
	struct ftagent_rec_hdr *hdr;
	struct ftagent_rec_open *r;
	struct inode *inode;
	const char *path;
	size_t size;

	if (fd > INT_MAX || ftagent_tgid_excluded(current->tgid))
		return;
	hdr = ftagent_event_begin(FTAGENT_REC_OPEN);
	if (!hdr)
		return;
	r = (struct ftagent_rec_open *)(hdr + 1);
	memset(r, 0, sizeof(*r));
	size = ftagent_body_end(hdr, sizeof(*r));
	r->path_len = ftagent_put_path(hdr, &size, &file->f_path,
				       FTAGENT_REC_F_STR0_TRUNCATED,
				       FTAGENT_REC_F_STR0_UNREADABLE);
	path = (const char *)(hdr + 1) + hdr->body_size;
	if (ftagent_path_excluded(path, r->path_len)) {
		ftagent_event_cancel(hdr);
		return;
	}
	inode = file_inode(file);
	r->ino = inode->i_ino;
	r->dev = new_encode_dev(inode->i_sb->s_dev);
	r->mode = inode->i_mode;
	r->fd = fd;
	if (flags == FTAGENT_OPEN_FLAGS_FILE)
		flags = file->f_flags |
			(file->f_mode & FMODE_CREATED ? O_CREAT : 0);
	r->flags = flags;
	ftagent_event_commit(hdr, size);
}

void ftagent_event_open_fd(unsigned int fd, u32 flags)
{
	struct file *file;

	if (fd > INT_MAX || ftagent_tgid_excluded(current->tgid))
		return;
	file = fget(fd);
	if (!file)
		return;
	ftagent_event_open_file(fd, file, flags);
	fput(file);
}

/*
 * Without acct_process (EXIT_RECORDS off): the exclusion set still has to
 * forget a process when its last thread exits, or the tgid stays
 * excluded and the next process given that pid vanishes from view.
 */
static void notrace ftagent_exit_fallback_probe(void *data,
						struct task_struct *p)
{
	if (p != current || atomic_read(&p->signal->live))
		return;
	ftagent_exclude_exit(p, ftagent_tgid_excluded(p->tgid));
}

static struct tracepoint *ftagent_exit_fallback_tp;

struct ftagent_tp {
	const char *name;
	int feature;	/* enum ftagent_feature, -1: needed to load */
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

static struct ftagent_tp ftagent_tps[] = {
	{ .name = "sched_process_fork", .probe = ftagent_fork_probe,
	  .feature = FTAGENT_FEATURE_FORK_RECORDS },
	{ .name = "sched_process_exec", .probe = ftagent_exec_probe,
	  .feature = FTAGENT_FEATURE_EXEC_RECORDS },
	{ .name = "task_rename", .probe = ftagent_rename_probe,
	  .feature = FTAGENT_FEATURE_RENAMES },
	/* It frees what the others keep: no load without it. */
	{ .name = "sched_process_free", .probe = ftagent_free_probe,
	  .feature = -1 },
};

/*
 * Both functions on one ftrace_ops, whose callback tells them apart by
 * the address it is called from: taking an ops off waits for two
 * RCU-tasks grace periods, a tenth of a second of every unload here.
 */
enum { FTAGENT_FN_EXIT, FTAGENT_FN_SOCK_CLOSE, FTAGENT_FNS };

static const char *const ftagent_fn_symbols[FTAGENT_FNS] = {
	[FTAGENT_FN_EXIT] = "acct_process",
	[FTAGENT_FN_SOCK_CLOSE] = "sock_close",
};

/*
 * Where each function's code is (0 and 0: not hooked): written before
 * the ops goes on, never while it may be called.
 */
static struct ftagent_code ftagent_fn_code[FTAGENT_FNS];

static void notrace ftagent_fn_hook(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	if (ftagent_code_has(&ftagent_fn_code[FTAGENT_FN_SOCK_CLOSE], ip))
		ftagent_sock_close_hook(ip, parent_ip, op, fregs);
	else if (ftagent_code_has(&ftagent_fn_code[FTAGENT_FN_EXIT], ip))
		ftagent_exit_hook(ip, parent_ip, op, fregs);
}

static struct ftrace_ops ftagent_fn_ops = {
	.func = ftagent_fn_hook,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool ftagent_fn_filtered, ftagent_fn_registered;

void ftagent_lifecycle_exit(void)
{
	unsigned int i;

	if (ftagent_exit_fallback_tp)
		tracepoint_probe_unregister(ftagent_exit_fallback_tp,
					    ftagent_exit_fallback_probe, NULL);
	ftagent_exit_fallback_tp = NULL;

	/* Refused: the ops and its filter stay (ftagent_stuck()). */
	if (ftagent_fn_registered)
		ftagent_ftrace_off(&ftagent_fn_ops, "exit and socket close");
	else if (ftagent_fn_filtered)
		ftrace_free_filter(&ftagent_fn_ops);
	ftagent_fn_registered = false;
	ftagent_fn_filtered = false;
	for (i = 0; i < ARRAY_SIZE(ftagent_tps); i++) {
		if (ftagent_tps[i].registered)
			tracepoint_probe_unregister(ftagent_tps[i].tp,
						    ftagent_tps[i].probe,
						    NULL);
		ftagent_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
}

bool ftagent_lifecycle_close_hooked(void)
{
	return ftagent_fn_registered &&
	       ftagent_fn_code[FTAGENT_FN_SOCK_CLOSE].size;
}

int ftagent_lifecycle_init(bool strict)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ftagent_tps); i++) {
		struct ftagent_tp *t = &ftagent_tps[i];

		if (t->feature >= 0 && ftagent_feature_off(t->feature))
			continue;	/* said at load (symbols.c) */
		t->tp = ftagent_tracepoint(t->name);
		err = t->tp ? tracepoint_probe_register(t->tp, t->probe, NULL) :
			      -ENOENT;
		if (err) {
			pr_err("lifecycle: tracepoint %s: %d\n", t->name, err);
			goto err;
		}
		t->registered = true;
	}
	for (i = 0; i < FTAGENT_FNS; i++) {
		const char *symbol = ftagent_fn_symbols[i];

		err = ftagent_symbol_filter_at(&ftagent_fn_ops, symbol,
					       &ftagent_fn_code[i].start,
					       &ftagent_fn_code[i].size);
		ftagent_fn_filtered = true;
		/* Not on this kernel: its records go (symbols.c). */
		if (err == -ENOENT)
			continue;
		/*
		 * Traceable, but no kprobe finds where (symbols.h): its
		 * records go, named as missing; strict=1 refuses the load.
		 */
		if (err == -EOPNOTSUPP && !strict) {
			pr_warn("lifecycle: cannot find %s (%d): %s records are not written\n",
				symbol, err,
				i == FTAGENT_FN_EXIT ? "exit" : "close");
			ftagent_symbol_unusable(symbol);
			continue;
		}
		if (err) {
			pr_err("lifecycle: cannot trace %s (%d)%s\n", symbol, err,
			       err == -EOPNOTSUPP ?
			       ": strict=1 refuses the load" : "");
			goto err;
		}
	}
	if (ftagent_fn_code[FTAGENT_FN_EXIT].size ||
	    ftagent_fn_code[FTAGENT_FN_SOCK_CLOSE].size) {
		err = ftagent_ftrace_on(&ftagent_fn_ops);
		if (err) {
			pr_err("lifecycle: cannot trace process exits and socket closes: %d\n",
			       err);
			goto err;
		}
		ftagent_fn_registered = true;
	}
	if (ftagent_feature_off(FTAGENT_FEATURE_EXIT_RECORDS)) {
		struct tracepoint *tp = ftagent_tracepoint("sched_process_exit");

		err = tp ? tracepoint_probe_register(tp,
						     ftagent_exit_fallback_probe,
						     NULL) : -ENOENT;
		if (err) {
			pr_err("lifecycle: no sched_process_exit to end exclusions: %d\n",
			       err);
			goto err;
		}
		ftagent_exit_fallback_tp = tp;
	}
	return 0;
err:
	ftagent_lifecycle_exit();
	return err;
}
