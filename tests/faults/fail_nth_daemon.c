// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth daemon: the daemon's own code, ftd_module_apply() of
 * daemon/module.c, pushing configuration B over A with the N-th point
 * of the whole exchange failing. It must succeed (state B) or fail with
 * a message, after which pushing A again, as ftagentd does after a
 * failed reload, must give state A.
 */
#include <errno.h>
#include <string.h>

#include "../../daemon/module.h"
#include "../../tools/lib/config.h"
#include "fail_nth.h"

static int daemon_snap(struct snap *s)
{
	return snap_take(s);
}

int sweep_daemon(const char *a_path, const char *b_path)
{
	struct ftagentd_config a, b;
	struct ftd_module m;
	struct snap sa, sb, s;
	struct tally t = {0};
	struct kmsg_scan ks;
	unsigned int n, injected = 0, bad = 0, no_msg = 0, last = 0, step;
	double t0 = now_s();
	char why[512];
	int replaced, rc;
	long left;

	if (ftagentd_config_load(a_path, &a, why, sizeof(why)) ||
	    ftagentd_config_load(b_path, &b, why, sizeof(why))) {
		tap(0, "daemon: config: %s", why);
		return 1;
	}
	if (ftd_module_connect(&m, why, sizeof(why)) != FTAGENTD_EXIT_OK ||
	    open_families()) {
		tap(0, "daemon: connect: %s", why);
		return 1;
	}
	set_timeout(&m.ctl);
	set_timeout(&m.stats);
	if (ftd_module_apply(&m, &b, &replaced, why, sizeof(why)) ||
	    daemon_snap(&sb) ||
	    ftd_module_apply(&m, &a, &replaced, why, sizeof(why)) ||
	    daemon_snap(&sa)) {
		tap(0, "daemon: unarmed apply: %s", why);
		return 1;
	}
	if (!*snap_diff(&sa, &sb)) {
		tap(0, "daemon: A and B give the same module state");
		return 1;
	}
	step = nth_step;
	if (nth_samples) {
		/* Armed past the last point: nothing fails, the rest says. */
		if (nth_arm(nth_max) < 0) {
			tap(0, "daemon: arm fail-nth: %s", strerror(errno));
			return 1;
		}
		rc = ftd_module_apply(&m, &b, &replaced, why, sizeof(why));
		left = nth_disarm();
		if (rc ||
		    ftd_module_apply(&m, &a, &replaced, why, sizeof(why))) {
			tap(0, "daemon: the unfaulted run to count points: %s",
			    why);
			return 1;
		}
		step = sample_step("daemon", points_passed(left));
	}
	for (n = 1; n <= nth_max; n += step) {
		why[0] = '\0';
		kmsg_skip();
		if (nth_arm(n) < 0) {
			bad++;
			break;
		}
		rc = ftd_module_apply(&m, &b, &replaced, why, sizeof(why));
		left = nth_disarm();
		kmsg_read(&ks);
		if (left == 0) {
			injected++;
			last = n;
		}
		if (ks.splat) {
			tap(0, "daemon: N=%u: kernel report: %s", n, ks.first);
			return 1;
		}
		if (daemon_snap(&s)) {
			bad++;
			break;
		}
		if (!rc) {
			tally_add(&t, "applied");
			if (*snap_diff(&sb, &s)) {
				diag("daemon: N=%u: applied, but state differs "
				     "from B:%s",
				     n, snap_diff(&sb, &s));
				bad++;
			}
		} else {
			const char *d = snap_diff(&sa, &s);

			tally_add(&t, "refused, %s, state %s",
				  why[0] ? "message" : "NO message",
				  !*d			 ? "A"
				  : !*snap_diff(&sb, &s) ? "B"
							 : "partly B");
			if (!why[0])
				no_msg++;
			diag("daemon: N=%u: %s", n, why);
		}
		snap_free(&s);
		/* What ftagentd does after a failed reload: push A again. */
		if (ftd_module_apply(&m, &a, &replaced, why, sizeof(why))) {
			diag("daemon: N=%u: pushing A again failed: %s", n,
			     why);
			tally_add(&t, "re-push of A failed");
			bad++;
			/* A stale reply may be queued: reconnect, as a restart would. */
			ftd_module_close(&m);
			if (ftd_module_connect(&m, why, sizeof(why)) ||
			    ftd_module_apply(&m, &a, &replaced, why,
					     sizeof(why))) {
				diag("daemon: reconnect: %s", why);
				break;
			}
			set_timeout(&m.ctl);
			set_timeout(&m.stats);
		}
		if (daemon_snap(&s) || *snap_diff(&sa, &s)) {
			diag("daemon: N=%u: after pushing A again, state "
			     "differs:%s",
			     n, snap_diff(&sa, &s));
			bad++;
		}
		snap_free(&s);
		if (left != 0)
			break;
	}
	bad += past_max(n);
	ftd_module_close(&m);
	tally_print("daemon", &t);
	diag("summary daemon: N_max=%u faults injected=%u (every %u), "
	     "failures without a message=%u, time=%.0f s",
	     last, injected, step, no_msg, now_s() - t0);
	bad += no_msg + none_injected(injected);
	tap(!bad, "daemon: %u faults injected into ftd_module_apply(B over A)",
	    injected);
	return !!bad;
}
