/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-side filters: what is tracked (network and file toggles), which
 * processes are left alone (by command name or by EXCLUDE_SELF, inherited
 * by children) and which paths produce no open events.
 */
#ifndef _FTAGENT_FILTERS_H
#define _FTAGENT_FILTERS_H

#include <linux/in.h>
#include <linux/jump_label.h>
#include <linux/socket.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/ftagent.h>

struct sock;

/* Bits of ftagent_filter_flags: what is tracked. */
#define FTAGENT_TRACK_TCP	BIT(0)
#define FTAGENT_TRACK_UDP	BIT(1)
#define FTAGENT_TRACK_IPV4	BIT(2)
#define FTAGENT_TRACK_IPV6	BIT(3)
#define FTAGENT_TRACK_READ	BIT(4)
#define FTAGENT_TRACK_SENDFILE	BIT(5)
#define FTAGENT_TRACK_ALL	GENMASK(5, 0)

struct ftagent_filters {
	u32 flags;				/* FTAGENT_TRACK_* */
	unsigned int n_comms, n_paths;
	char comms[FTAGENT_EXCLUDE_PROCESSES_MAX][FTAGENT_COMM_LEN];
	u16 path_len[FTAGENT_EXCLUDE_PATHS_MAX];
	char *paths[FTAGENT_EXCLUDE_PATHS_MAX];	/* into one allocation */
	char *path_blob;
	struct rcu_head rcu;
};

int ftagent_filters_init(void);
void ftagent_filters_exit(void);

/* Hot path: the tracking toggles in force. */
extern u32 ftagent_filter_flags;
DECLARE_STATIC_KEY_FALSE(ftagent_exclusions_on);

/* The tgids excluded now (filters.c); only the count is read inline. */
struct ftagent_excl_table {
	unsigned int live, used;	/* used: live and tombstones */
	u32 slot[];
};

extern struct ftagent_excl_table __rcu *ftagent_excl;
/* Preemption off (it stands for the RCU read side). */
bool ftagent_tgid_excluded_slow(u32 tgid);

/*
 * Hot path, preemption off: whether @tgid's calls and events are left
 * alone. Free while no names are listed (a static branch).
 */
bool ftagent_exiting_excluded(struct task_struct *t);

static __always_inline bool ftagent_tgid_excluded(u32 tgid)
{
	if (!static_branch_unlikely(&ftagent_exclusions_on))
		return false;
	/*
	 * An excluded process closing its files on the way out. Only for
	 * its own tgid: an AIO completion in an interrupt is counted for
	 * whichever process submitted it, not for the task it interrupted.
	 */
	if (unlikely(current->flags & PF_EXITING) && current->tgid == tgid &&
	    ftagent_exiting_excluded(current))
		return true;
	/* Most of the time nothing running is excluded: one load. */
	if (likely(!READ_ONCE(rcu_dereference_sched(ftagent_excl)->live)))
		return false;
	return ftagent_tgid_excluded_slow(tgid);
}

/* Whether a socket of @family/@protocol is tracked under @flags. */
static __always_inline bool ftagent_sock_tracked(u32 flags,
						 unsigned int family,
						 unsigned int protocol)
{
	if (likely(flags == FTAGENT_TRACK_ALL))
		return true;
	if ((family == AF_INET && !(flags & FTAGENT_TRACK_IPV4)) ||
	    (family == AF_INET6 && !(flags & FTAGENT_TRACK_IPV6)))
		return false;
	/* MPTCP is TCP on the wire, and the tcp toggle's. */
	if (((protocol == IPPROTO_TCP || protocol == IPPROTO_MPTCP) &&
	     !(flags & FTAGENT_TRACK_TCP)) ||
	    (protocol == IPPROTO_UDP && !(flags & FTAGENT_TRACK_UDP)))
		return false;
	return true;
}

/* Whether open events for @path are left out. Preemption off. */
bool ftagent_path_excluded(const char *path, size_t len);

/*
 * Lifecycle: keep the excluded processes current. Preemption off;
 * rename under the task's task_lock (the task_rename tracepoint).
 */
void ftagent_exclude_fork(struct task_struct *parent,
			  struct task_struct *child);
void ftagent_exclude_rename(struct task_struct *task, const char *comm);
void ftagent_exclude_exit(struct task_struct *t, bool excluded);
void ftagent_exclude_free(struct task_struct *t);

/*
 * Replace the filters with @next (caller holds the config lock, may
 * sleep); takes ownership of @next. Re-derives the excluded processes.
 * -ENOMEM: nothing changed.
 */
int ftagent_filters_replace(struct ftagent_filters *next);
/*
 * EXCLUDE_SELF (caller holds the config lock, may sleep): exclude the
 * process @pid (a tgid) and its descendants until the netlink socket
 * (@net, @portid) is released. 0 if already so; -EBUSY if that socket
 * registered another process; -ENOSPC when FTAGENT_SELF_MAX are held.
 */
int ftagent_filters_exclude_self(struct pid *pid, const struct net *net,
				 u32 portid, struct sock *sk);
/*
 * A socket (@net, @portid) is released (caller holds the config lock):
 * the registration it holds ends, if its socket is the dead one.
 */
void ftagent_filters_socket_released(const struct net *net, u32 portid);
bool ftagent_filters_may_hold(const struct net *net, u32 portid);
/* Lockless hint: whether any registration is held. */
bool ftagent_filters_any_self(void);
/* A copy of the filters in force (caller frees with ftagent_filters_free). */
struct ftagent_filters *ftagent_filters_copy(void);
void ftagent_filters_free(struct ftagent_filters *f);

/* Figures for the stats family. */
unsigned int ftagent_excluded_count(void);
u64 ftagent_exclude_missed(void);
size_t ftagent_filters_memory(void);

#endif /* _FTAGENT_FILTERS_H */
