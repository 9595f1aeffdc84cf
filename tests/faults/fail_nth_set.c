// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth set: every state-changing control command (SET_CONFIG twice,
 * SET_FILTERS, SET_POLICY, SET_BUDGETS, FLUSH, ACK_GENERATION,
 * EXCLUDE_SELF) with the N-th point failing. A refusal must leave the
 * state as it was and, when the fault hit in the module (its stack says:
 * fail_nth_where.c), carry an extended-ACK message; a success must give
 * the state the request asks for.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/ftagent.h>

#include "fail_nth.h"

/* ---- command sweeps ---- */

struct cmd_case {
	const char *name;
	struct nlmsghdr *(*build)(char *buf, int variant);
	/* the variants of the request under test and of the one undoing it */
	int apply, undo;
	/*
	 * SET_POLICY/SET_BUDGETS: the reply carries the set's generation,
	 * one more per set accepted, none for a set refused (gen_next()).
	 */
	int gen;
};

static uint32_t orig_mode, orig_hooks, orig_flush;

static struct nlmsghdr *build_config(char *buf, int v)
{
	uint32_t other_mode = orig_mode == FTAGENT_MODE_STANDARD
				      ? FTAGENT_MODE_MINIMAL
				      : FTAGENT_MODE_STANDARD;

	if (v == 1) /* mode, ring, flush interval */
		return req_config(buf, other_mode, 0, 2u << 20, 500);
	if (v == 2) /* the other hook set */
		return req_config(buf, 0,
				  orig_hooks == FTAGENT_HOOKS_FTRACE
					  ? FTAGENT_HOOKS_KPROBE
					  : FTAGENT_HOOKS_FTRACE,
				  0, orig_flush);
	return req_config(buf, orig_mode, orig_hooks, 0, orig_flush);
}

static struct nlmsghdr *build_filters(char *buf, int v)
{
	return req_filters(buf, !v);
}

static struct nlmsghdr *build_policy(char *buf, int v)
{
	return req_policy(buf, v);
}

static struct nlmsghdr *build_budgets(char *buf, int v)
{
	return req_budgets(buf, v);
}

static const struct cmd_case cases[] = {
	{"SET_CONFIG(mode,ring,flush)", build_config, 1, 0, 0},
	{"SET_CONFIG(hooks)", build_config, 2, 0, 0},
	{"SET_FILTERS", build_filters, 1, 0, 0},
	{"SET_POLICY", build_policy, 1, 0, 1},
	{"SET_BUDGETS", build_budgets, 1, 0, 1},
};

struct msg_stats {
	unsigned int with, without;
};

/*
 * Tally one faulted request, sent after where_clear(). Returns 1 when a
 * fault was injected but the trace cannot say where it hit.
 */
static int account(struct tally *t, struct msg_stats *ms, unsigned int n,
		   const struct sent *r, const char *name)
{
	struct fault_where w;
	const char *where = "unfaulted";
	int in_module = 0;

	if (r->left == 0) {
		if (where_read(&w) || w.faults > 1 || w.whole != w.faults) {
			diag("%s: N=%u: a fault was injected; the trace has "
			     "%d, %d with a whole stack: cannot say where it "
			     "hit",
			     name, n, w.faults, w.whole);
			tally_add(t, "fault not attributed");
			return 1;
		}
		/*
		 * No slab or page fault: a user copy, which no probe sees
		 * (fail_nth_where.c). Its refusal is held to the module's
		 * standard, as if it were the module's.
		 */
		in_module = w.in_module || !w.faults;
		where = w.in_module ? "module" : w.faults ? "core" : "unseen";
	}

	switch (r->how) {
	case SENT_SEND_FAILED:
		tally_add(t, "sendmsg failed %s", errname(r->err));
		return 0;
	case SENT_ACK_LOST:
		tally_add(t, "ACK lost (%s)", errname(r->err));
		return 0;
	case SENT_NO_ACK: tally_add(t, "no ACK"); return 0;
	case SENT_ACKED: break;
	}
	if (!r->err) {
		tally_add(t, "ok");
		return 0;
	}
	tally_add(t, "%s %s, %s", where, errname(r->err),
		  r->has_msg ? "message" : "no message");
	/* An unfaulted refusal is the module's too, and owes a message. */
	if (in_module || r->left != 0) {
		if (r->has_msg)
			ms->with++;
		else
			ms->without++;
		if (!r->has_msg)
			diag("%s: N=%u: the module refused (%s) with no "
			     "message",
			     name, n, errname(r->err));
	}
	if (r->has_msg)
		diag("%s: N=%u: %s: %s", name, n, errname(r->err), r->msg);
	return 0;
}

/* What one command's sweep counts over its faulted requests. */
struct cmd_sweep {
	const char *name;
	struct tally t;
	struct msg_stats ms;
	unsigned int injected, last, reports;
};

/*
 * Send @nlh on @nl with the @n-th point failing and read back what it
 * did: the kernel log, where the fault hit, the tallies. -1 when the
 * kernel reported (said with tap(): the sweep ends there), else what
 * account() found wrong (0 or 1).
 */
static int send_faulted(struct cmd_sweep *sw, struct ftnl *nl,
			struct nlmsghdr *nlh, unsigned int n, struct sent *r)
{
	struct kmsg_scan ks;
	int bad;

	kmsg_skip();
	where_clear();
	send_nth(nl, nlh, n, r);
	kmsg_read(&ks);
	sw->reports += ks.alloc_reports;
	if (r->left == 0) {
		sw->injected++;
		sw->last = n;
	}
	bad = account(&sw->t, &sw->ms, n, r, sw->name);
	if (ks.splat) {
		tap(0, "%s: N=%u: kernel report: %s", sw->name, n, ks.first);
		return -1;
	}
	return bad;
}

static int unarmed(struct nlmsghdr *nlh, struct sent *r, const char *what)
{
	send_nth(&ctl, nlh, 0, r);
	if (r->how != SENT_ACKED || r->err) {
		diag("%s: %s (%s)", what, errname(r->err), r->msg);
		return -1;
	}
	return 0;
}

/*
 * The generation an accepted SET_POLICY or SET_BUDGETS replies with must
 * follow the last one seen: a refused set must not have used one.
 * @last 0: not known (a lost ACK may have hidden an accepted set).
 */
static int gen_next(const struct cmd_case *c, unsigned int n, uint64_t *last,
		    uint64_t got, const char *what)
{
	int bad = 0;

	if (!c->gen)
		return 0;
	if (*last && got != *last + 1) {
		diag("%s: N=%u: %s replied generation %llu, after %llu",
		     c->name, n, what, (unsigned long long)got,
		     (unsigned long long)*last);
		bad = 1;
	}
	*last = got;
	return bad;
}

static int sweep_case(const struct cmd_case *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct snap before, after, want, orig;
	struct cmd_sweep sw = {.name = c->name};
	unsigned int n, bad = 0, step;
	int rc;
	unsigned int points;
	double t0 = now_s();
	uint64_t last_gen;
	struct sent r;

	if (snap_take(&orig) || unarmed(c->build(buf, c->apply), &r, c->name) ||
	    snap_take(&want) || unarmed(c->build(buf, c->undo), &r, c->name)) {
		tap(0, "%s: set-up", c->name);
		return 1;
	}
	last_gen = r.u64;
	if (snap_take(&after) || *snap_diff(&orig, &after)) {
		tap(0, "%s: undoing it does not give the state back:%s",
		    c->name, snap_diff(&orig, &after));
		return 1;
	}
	snap_free(&after);
	step = nth_step;
	if (nth_samples) {
		/* Armed past the last point: nothing fails, the rest says. */
		send_nth(&ctl, c->build(buf, c->apply), nth_max, &r);
		points = points_passed(r.left);
		if (r.how != SENT_ACKED || r.err ||
		    unarmed(c->build(buf, c->undo), &r, c->name)) {
			tap(0, "%s: the unfaulted run to count points",
			    c->name);
			return 1;
		}
		last_gen = r.u64;
		step = sample_step(c->name, points);
	}
	for (n = 1; n <= nth_max; n += step) {
		const char *d;
		int changed;

		if (snap_take(&before)) {
			bad++;
			break;
		}
		rc = send_faulted(&sw, &ctl, c->build(buf, c->apply), n, &r);
		if (rc < 0)
			return 1;
		bad += rc;
		if (r.how == SENT_NO_ACK) {
			diag("%s: N=%u: no ACK in %d s", c->name, n,
			     ACK_TIMEOUT_S);
			bad++;
		}
		if (snap_take(&after)) {
			bad++;
			break;
		}
		changed = !!*snap_diff(&before, &after);
		if (r.how == SENT_ACKED && !r.err) {
			d = snap_diff(&want, &after);
			if (*d) {
				diag("%s: N=%u: succeeded, but state "
				     "differs:%s",
				     c->name, n, d);
				bad++;
			}
			bad += gen_next(c, n, &last_gen, r.u64, "accepted");
			/* And GET_POLICY says the same. */
			if (!strcmp(c->name, "SET_POLICY") &&
			    after.policy_gen != before.policy_gen + 1) {
				diag("%s: N=%u: generation %llu -> %llu",
				     c->name, n,
				     (unsigned long long)before.policy_gen,
				     (unsigned long long)after.policy_gen);
				bad++;
			}
		} else if (r.how == SENT_ACK_LOST) {
			last_gen = 0; /* an accepted set may have used one */
			/* Either outcome, but one of the two. */
			if (changed && *snap_diff(&want, &after)) {
				diag("%s: N=%u: ACK lost, state is neither old "
				     "nor new:%s",
				     c->name, n, snap_diff(&want, &after));
				bad++;
			}
		} else if (changed) {
			diag("%s: N=%u: refused (%s%s%s), but the state "
			     "changed:%s",
			     c->name, n, errname(r.err), r.has_msg ? ": " : "",
			     r.msg, snap_diff(&before, &after));
			tally_add(&sw.t, "refused but state changed");
			bad++;
		} else if (!strcmp(c->name, "SET_POLICY") &&
			   after.policy_gen != before.policy_gen) {
			diag("%s: N=%u: refused, but the generation moved",
			     c->name, n);
			bad++;
		}
		/* Back to the original state, unarmed. */
		if (changed) {
			struct sent u;

			if (unarmed(c->build(buf, c->undo), &u, c->name)) {
				bad++;
				break;
			}
			bad += gen_next(c, n, &last_gen, u.u64, "the undo");
		}
		snap_free(&before);
		snap_free(&after);
		if (r.left != 0)
			break;
	}
	bad += past_max(n);
	snap_free(&want);
	snap_free(&orig);
	tally_print(c->name, &sw.t);
	diag("summary %s: N_max=%u faults injected=%u (every %u), module "
	     "refusals with message=%u without=%u, warn_alloc reports=%u, "
	     "time=%.0f s",
	     c->name, sw.last, sw.injected, step, sw.ms.with, sw.ms.without,
	     sw.reports, now_s() - t0);
	bad += sw.ms.without + none_injected(sw.injected);
	tap(!bad,
	    "%s: %u faults injected; refusals leave the state, successes set "
	    "it",
	    c->name, sw.injected);
	return !!bad;
}

/*
 * FLUSH and ACK_GENERATION: the module's timer is stopped (flush
 * interval 0) so only these requests swap generations, and the stats
 * family's GET_RESOURCES says which generation is idle (GEN_SEQ) and
 * whether it was acknowledged (GEN_ACKED). A FLUSH that failed must not
 * have swapped; an ACK that failed must not have acknowledged.
 */
static int ack_idle(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct snap s;
	struct sent u;
	int rc = 0;

	if (snap_take(&s))
		return -1;
	if (!s.gen_acked) {
		nlh = ftnl_put_request(&ctl, buf,
				       FTAGENT_CTL_CMD_ACK_GENERATION, 0);
		mnl_attr_put_u64(nlh, FTAGENT_CTL_A_GEN_SEQ, s.gen_seq);
		rc = unarmed(nlh, &u, "ACK_GENERATION");
	}
	snap_free(&s);
	return rc;
}

static int sweep_flush_ack(int ack)
{
	const char *name = ack ? "ACK_GENERATION" : "FLUSH";
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct cmd_sweep sw = {.name = name};
	unsigned int n, bad = 0;
	int rc;
	double t0 = now_s();
	struct nlmsghdr *nlh;
	struct snap before, after;
	struct sent r, u;

	if (unarmed(req_config(buf, 0, 0, 0, 0), &r, name)) {
		tap(0, "%s: stop the flush timer", name);
		return 1;
	}
	for (n = 1; n <= nth_max; n += nth_step) {
		if (ack_idle()) {
			bad++;
			break;
		}
		if (ack) { /* an idle generation to acknowledge */
			nlh = ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_FLUSH,
					       0);
			if (unarmed(nlh, &u, name)) {
				bad++;
				break;
			}
			nlh = ftnl_put_request(
				&ctl, buf, FTAGENT_CTL_CMD_ACK_GENERATION, 0);
			mnl_attr_put_u64(nlh, FTAGENT_CTL_A_GEN_SEQ, u.u64);
		} else {
			nlh = ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_FLUSH,
					       0);
		}
		if (snap_take(&before)) {
			bad++;
			break;
		}
		rc = send_faulted(&sw, &ctl, nlh, n, &r);
		if (rc < 0)
			return 1;
		bad += rc;
		if (r.how == SENT_NO_ACK)
			bad++;
		if (snap_take(&after)) {
			bad++;
			break;
		}
		if (r.how == SENT_ACKED && !r.err) {
			if (!ack &&
			    (after.gen_seq == before.gen_seq ||
			     after.gen_seq != r.u64 || after.gen_acked)) {
				diag("%s: N=%u: succeeded, idle generation "
				     "%llu -> %llu (reply %llu), acked %u",
				     name, n,
				     (unsigned long long)before.gen_seq,
				     (unsigned long long)after.gen_seq,
				     (unsigned long long)r.u64,
				     after.gen_acked);
				bad++;
			}
			if (ack && !after.gen_acked) {
				diag("%s: N=%u: succeeded, not acknowledged",
				     name, n);
				bad++;
			}
		} else if (r.how != SENT_ACK_LOST &&
			   (after.gen_seq != before.gen_seq ||
			    after.gen_acked != before.gen_acked)) {
			diag("%s: N=%u: refused (%s), but idle generation %llu "
			     "-> %llu, acked %u -> %u",
			     name, n, errname(r.err),
			     (unsigned long long)before.gen_seq,
			     (unsigned long long)after.gen_seq,
			     before.gen_acked, after.gen_acked);
			tally_add(&sw.t, "refused but %s",
				  ack ? "acknowledged" : "swapped");
			bad++;
		}
		snap_free(&before);
		snap_free(&after);
		if (r.left != 0)
			break;
	}
	bad += past_max(n);
	ack_idle();
	unarmed(req_config(buf, 0, 0, 0, orig_flush), &u, name);
	tally_print(name, &sw.t);
	diag("summary %s: N_max=%u faults injected=%u (every %u), module "
	     "refusals with message=%u without=%u, time=%.0f s",
	     name, sw.last, sw.injected, nth_step, sw.ms.with, sw.ms.without,
	     now_s() - t0);
	bad += sw.ms.without + none_injected(sw.injected);
	tap(!bad, "%s: %u faults injected; a refusal changes nothing", name,
	    sw.injected);
	return !!bad;
}

/*
 * EXCLUDE_SELF on a new socket each time. The count of excluded
 * processes must be back to what it was once the socket is closed,
 * whatever the request's fate; a refusal must leave it unchanged while
 * the socket is open.
 */
static int sweep_exclude_self(void)
{
	const char *name = "EXCLUDE_SELF";
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct cmd_sweep sw = {.name = name};
	unsigned int n, bad = 0;
	int rc;
	double t0 = now_s();
	struct snap base, s;
	struct sent r;

	if (snap_take(&base)) {
		tap(0, "%s: state", name);
		return 1;
	}
	for (n = 1; n <= nth_max; n += nth_step) {
		struct ftnl_error err;
		struct ftnl nl;

		if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0) {
			bad++;
			break;
		}
		set_timeout(&nl);
		rc = send_faulted(&sw, &nl,
				  ftnl_put_request(&nl, buf,
						   FTAGENT_CTL_CMD_EXCLUDE_SELF,
						   0),
				  n, &r);
		if (rc < 0)
			return 1;
		bad += rc;
		if (r.how == SENT_NO_ACK)
			bad++;
		if (r.how == SENT_ACKED && r.err) {
			if (snap_take(&s)) {
				bad++;
				break;
			}
			if (s.excluded != base.excluded) {
				diag("%s: N=%u: refused (%s), yet %u processes "
				     "excluded (was %u)",
				     name, n, errname(r.err), s.excluded,
				     base.excluded);
				tally_add(&sw.t, "refused but excluded");
				bad++;
			}
			snap_free(&s);
		}
		ftnl_close(&nl);
		/* The release is seen by a notifier: give it a moment. */
		usleep(10000);
		if (snap_take(&s)) {
			bad++;
			break;
		}
		if (s.excluded != base.excluded) {
			usleep(200000);
			snap_free(&s);
			if (snap_take(&s)) {
				bad++;
				break;
			}
		}
		if (s.excluded != base.excluded) {
			diag("%s: N=%u: socket closed, yet %u processes "
			     "excluded (was %u)",
			     name, n, s.excluded, base.excluded);
			bad++;
		}
		snap_free(&s);
		if (r.left != 0)
			break;
	}
	bad += past_max(n);
	snap_free(&base);
	tally_print(name, &sw.t);
	diag("summary %s: N_max=%u faults injected=%u, module refusals with "
	     "message=%u without=%u, time=%.0f s",
	     name, sw.last, sw.injected, sw.ms.with, sw.ms.without,
	     now_s() - t0);
	bad += sw.ms.without + none_injected(sw.injected);
	tap(!bad, "%s: %u faults injected; the exclusion ends with its socket",
	    name, sw.injected);
	return !!bad;
}

int sweep_set(void)
{
	struct snap s;
	size_t i;
	int bad = 0;

	if (open_families() || snap_take(&s)) {
		tap(0, "set: the module does not answer");
		return 1;
	}
	orig_mode = s.mode;
	orig_hooks = s.hooks;
	orig_flush = s.flush;
	snap_free(&s);
	if (where_start()) {
		tap(0, "set: a probe to tell where each fault hits");
		return 1;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad += sweep_case(&cases[i]);
	bad += sweep_flush_ack(0);
	bad += sweep_flush_ack(1);
	bad += sweep_exclude_self();
	where_stop();
	return bad;
}
