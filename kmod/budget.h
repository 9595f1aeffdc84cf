/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Budgets: allowances per principal and window, charged in the kernel on
 * every call (bytes when the call returns, calls at entry) and enforced
 * at the gate before the next call runs.
 */
#ifndef _FTAGENT_BUDGET_H
#define _FTAGENT_BUDGET_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/netlink.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/ftagent.h>

#include "policy.h"

#define FTAGENT_REPEAT_SLOTS	64

struct ftagent_budget {
	struct ftagent_rule who;	/* principal fields only */
	u8 metric;			/* enum ftagent_budget_metric */
	bool enforce, kill;
	u64 limit, alert_at;
	u64 window_ns;
	/* The window: usage since start_ns; both reset together. */
	raw_spinlock_t lock;
	u64 start_ns, used;
	bool alerted;			/* alert raised in this window */
	atomic64_t denied, alerts;
	/* REPEATS: how often each command line ran in this window. */
	struct {
		u64 hash;
		u32 count;
	} rep[FTAGENT_REPEAT_SLOTS];
};

struct ftagent_budgetset {
	u64 generation;
	u32 n;
	struct ftagent_budget *b;
	u32 metrics;			/* bits (1 << metric) in use */
	char *strings;
	size_t bytes;			/* what the set holds (memory.h) */
};

extern struct ftagent_budgetset __rcu *ftagent_budgets;
DECLARE_STATIC_KEY_FALSE(ftagent_budgets_on);

struct ftagent_budgetset *ftagent_budgets_parse(const struct nlattr *head,
						int len,
						struct netlink_ext_ack *extack);
void ftagent_budgets_free(struct ftagent_budgetset *set);
/* Swap @set in (NULL: none). Config lock held. */
int ftagent_budgets_install(struct ftagent_budgetset *set);
u64 ftagent_budgets_generation(void);
int ftagent_budget_put(struct sk_buff *msg,
		       const struct ftagent_budgetset *set, u32 i);
/* Gate points budgets of @metrics need (bits of enum ftagent_gate_point). */
u32 ftagent_budgets_gate_points(u32 metrics);

struct ftagent_gate_call;
/*
 * At the gate, before a call that counts against @metric: 0 to let it
 * run, -EDQUOT to refuse it, or FTAGENT_BUDGET_KILL: refused, and the
 * caller's SIGKILL sent (or queued, on PREEMPT_RT). The verdicts are
 * already recorded. Calls are charged here; bytes only checked.
 */
#define FTAGENT_BUDGET_KILL	1
int ftagent_budget_gate(struct ftagent_gate_call *c, unsigned int metric);

/*
 * Settle path: a call moved @bytes in @dir (counters.h) on an object of
 * @kind; sockets count only for IPv4 and IPv6 (@family).
 */
void ftagent_budget_charge_bytes(unsigned int kind, unsigned int family,
				 unsigned int dir, long bytes);
/*
 * The same, for an io_uring request: charged to the principal of @task,
 * the thread that submitted it (alive while the request holds it),
 * matched under @cred when the request ran under credentials of its own.
 * The completing task may be another process's, or a kernel worker.
 */
struct task_struct;
struct cred;
void ftagent_budget_charge_bytes_task(struct task_struct *task,
				      const struct cred *cred,
				      unsigned int kind, unsigned int family,
				      unsigned int dir, long bytes);
/*
 * Linux AIO (aio.c), in two steps. At submission, in the submitting
 * thread, where its principal (its executable above all) can be read:
 * the byte budgets a request of current on an object of @kind/@family
 * moving bytes in @dir counts against, at most @max indices into @idx,
 * the set's generation (low half; 0: no set) in *@gen, whatever
 * matched. The number matched, or
 * @max + 1 when more match (the first @max are filled).
 */
unsigned int ftagent_budget_match_bytes(unsigned int kind, unsigned int family,
					unsigned int dir, u32 *gen, u16 *idx,
					unsigned int max);
/*
 * At completion, in any context: charge @bytes to those budgets, its
 * alerts recorded for process @tgid's thread @pid. False if a set with
 * budgets on the request's metric was installed meanwhile (the
 * generation low half wraps after 2^32 installs): nothing charged.
 */
bool ftagent_budget_charge_matched(u32 gen, const u16 *idx, unsigned int n,
				   unsigned int kind, unsigned int family,
				   unsigned int dir, long bytes, pid_t tgid,
				   pid_t pid);
/* sched_process_exec: @current now runs a program with these arguments. */
void ftagent_budget_exec(void);

void ftagent_budgets_exit(void);

#endif /* _FTAGENT_BUDGET_H */
