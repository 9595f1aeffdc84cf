/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fail_nth: what its parts share. fail_nth.c arms fail-nth, writes the
 * TAP output and runs one sweep; fail_nth_kmsg.c reads the kernel log
 * after each faulted call; fail_nth_tally.c counts outcomes for the
 * summaries; fail_nth_state.c snapshots the module's state and
 * fail_nth_request.c sends one request under fail-nth, for the set and
 * daemon sweeps. Each sweep is a file of its own.
 */
#ifndef FTAGENT_FAIL_NTH_H
#define FTAGENT_FAIL_NTH_H

#include <stdint.h>

#include "../../tools/lib/budgets.h"
#include "../../tools/lib/filters.h"
#include "../../tools/lib/ftnl.h"
#include "../../tools/lib/policy.h"

/* ---- fail_nth.c: TAP output, fail-nth ---- */

/* FAIL_NTH_MAX, FAIL_NTH_STEP and FAIL_NTH_SAMPLES: how far, how densely. */
extern unsigned int nth_max, nth_step, nth_samples;

/* A TAP test line; a failed one makes the program fail. */
void tap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A TAP comment line ("# ..."). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Make the @n-th fault-injection point of this task fail. 0, or -1. */
int nth_arm(unsigned int n);
/* Disarm; the points left after the call (0: the fault was injected). */
long nth_disarm(void);
/* 1, said with diag(), when a sweep injected nothing. */
unsigned int none_injected(unsigned int injected);
/* A sweep's step, from FAIL_NTH_STEP and FAIL_NTH_SAMPLES. */
unsigned int sample_step(const char *name, unsigned int points);
/* The points an unfaulted run armed at nth_max passed. */
unsigned int points_passed(long left);
/* 1 (and why) when a sweep ended at @n past FAIL_NTH_MAX. */
int past_max(unsigned int n);

/* ---- fail_nth_where.c: where a fault hit (tracefs) ---- */

struct fault_where {
	int faults;    /* faults given to this task */
	int whole;     /* their stacks that reach the system call entry */
	int in_module; /* their stacks with a frame of the module */
};

/* Record this task's faults and their stacks from now. 0, or -1. */
int where_start(void);
/* Stop recording, and take the probe out. */
void where_stop(void);
/* Forget what was recorded: before each request. */
void where_clear(void);
/* What was recorded since where_clear(). 0, or -1. */
int where_read(struct fault_where *w);

/* ---- fail_nth_kmsg.c: the kernel log ---- */

struct kmsg_scan {
	int splat; /* a kernel report that is not an allocation failure */
	int alloc_reports; /* warn_alloc() reports */
	int fallbacks;	   /* kmemleak's scan-area notice */
	int load_failed;   /* "ftagent: load failed" */
	int disarm_warns;  /* kprobes' "Failed to disarm kprobe-ftrace" */
	int kept;	   /* the module's "the kernel kept N kprobe(s)" */
	char first[256];   /* the first splat line */
};

/* /dev/kmsg, opened by main(); -1 without one. */
extern int kmsg_fd;

/* Skip what the kernel log holds now: the next read starts after it. */
void kmsg_skip(void);
/* What the kernel log says since the last read or skip. */
void kmsg_read(struct kmsg_scan *s);

/* ---- fail_nth_tally.c: outcome tallies ---- */

#define OUTCOMES_MAX 64

struct tally {
	char key[OUTCOMES_MAX][80];
	unsigned int count[OUTCOMES_MAX];
	unsigned int n;
};

/* Count one more of the outcome @fmt names. */
void tally_add(struct tally *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The "# summary NAME: OUTCOME COUNT" lines. */
void tally_print(const char *name, const struct tally *t);
/* "ok", "ENOMEM", ...: an errno's name, for tallies and diagnostics. */
const char *errname(int e);
/* Seconds on the monotonic clock. */
double now_s(void);

/* ---- fail_nth_state.c: the module's state ---- */

struct snap {
	uint32_t mode, hooks, ring, flush, state, excluded;
	uint32_t gen_acked;
	uint64_t gen_seq, policy_gen;
	struct ftagent_filters f;
	struct ftagent_policy_spec p;
	struct ftagent_budget_set b;
};

/* The control family's socket (open_families() opens it). */
extern struct ftnl ctl;

/* How long a request's ACK may take; after that, it is "no ACK". */
#define ACK_TIMEOUT_S 20

/* Answers on @nl wait at most ACK_TIMEOUT_S. */
int set_timeout(struct ftnl *nl);
/* Open the control and stats families. 0, or -1 (said with diag()). */
int open_families(void);
void snap_free(struct snap *s);
/* Take a snapshot, unarmed. 0, or -1 (said with diag()). */
int snap_take(struct snap *s);
/* "" when equal (generations aside), else the fields that differ. */
const char *snap_diff(const struct snap *a, const struct snap *b);

/* ---- fail_nth_request.c: one request under fail-nth ---- */

enum sent_how {
	SENT_ACKED,	  /* an ACK or error came back */
	SENT_SEND_FAILED, /* sendmsg itself failed: no request */
	SENT_ACK_LOST,	  /* the ACK could not be allocated (ENOBUFS) */
	SENT_NO_ACK,	  /* nothing within ACK_TIMEOUT_S */
};

struct sent {
	enum sent_how how;
	int err;     /* errno of send, or of the ACK */
	int has_msg; /* the ACK carried a message */
	char msg[256];
	long left;    /* fail-nth left after the send */
	uint64_t u64; /* GEN_SEQ or POLICY_GENERATION of a reply */
};

/* Send @nlh on @nl with the @nth-th point failing (0: none). */
void send_nth(struct ftnl *nl, struct nlmsghdr *nlh, unsigned int nth,
	      struct sent *r);
/* SET_CONFIG; a zero @mode or @hooks is left out. */
struct nlmsghdr *req_config(char *buf, uint32_t mode, uint32_t hooks,
			    uint32_t ring, uint32_t flush);
/* SET_FILTERS: UDP and read tracking @on, or off with exclusions. */
struct nlmsghdr *req_filters(char *buf, int on);
/* SET_POLICY: two rules if @set, else the empty set. */
struct nlmsghdr *req_policy(char *buf, int set);
/* SET_BUDGETS: one budget if @set, else none. */
struct nlmsghdr *req_budgets(char *buf, int set);

/* ---- the sweeps: each non-zero when it failed ---- */

/* fail_nth_init.c */
int sweep_init(const char *ko, const char *params, unsigned int first);
/* fail_nth_set.c */
int sweep_set(void);
/* fail_nth_daemon.c */
int sweep_daemon(const char *a_path, const char *b_path);
/* fail_nth_drain.c */
int sweep_drain(const char *conf_path);

#endif
