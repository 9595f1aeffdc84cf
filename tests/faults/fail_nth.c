// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: fail-nth fault-injection sweeps of the module (issue 19).
 *
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION) makes the N-th
 * fault-injection point the calling task passes fail: every slab
 * allocation that failslab's filters let through, page allocations that
 * fail_page_alloc's let through, and copies from and to user space
 * (CONFIG_FAULT_INJECTION_USERCOPY). Write N, make exactly one call, read
 * it back: 0 means the N-th point was reached and failed; non-zero means
 * the call passed fewer than N points, so N-1 was the last one and the
 * sweep is over. Nothing runs between arming and the call (the memory is
 * locked, so no page fault of ours takes the fault either), and the
 * answer (an ACK) is read only after disarming.
 *
 *   fail_nth check
 *	fails unless /proc/thread-self/fail-nth exists
 *   fail_nth init MODULE.ko PARAMS [FIRST]
 *	finit_module(MODULE.ko, PARAMS) with the N-th point failing, N =
 *	FIRST (default 1), FIRST+1, ...: each load that fails must fail with
 *	an errno and leave nothing behind (no module, no family, no
 *	filesystem, no kprobe, no ftrace callback); each that succeeds must
 *	answer GET_STATUS and unload.
 *   fail_nth set
 *	the module loaded: every state-changing control command (SET_CONFIG
 *	twice, SET_FILTERS, SET_POLICY, SET_BUDGETS, FLUSH, ACK_GENERATION,
 *	EXCLUDE_SELF) with the N-th point failing: a refusal must leave the
 *	state as it was and, when the module's handler refused, carry an
 *	extended-ACK message; a success must give the state the message asks
 *	for.
 *   fail_nth daemon A.conf B.conf
 *	the daemon's own code (ftd_module_apply() of daemon/module.c, linked
 *	from libftagentd.a) pushing B.conf over A.conf with the N-th point
 *	of the whole exchange failing: it must succeed (state B) or fail with
 *	a message, after which pushing A.conf again (what ftagentd does on a
 *	failed reload) must give state A.
 *   fail_nth drain A.conf
 *	the daemon's counter drain (ftd_drain_counters() of daemon/drain.c)
 *	with the N-th point failing, after a child wrote a known number of
 *	bytes: a failure must say why, the next unarmed drain must succeed,
 *	and every child's bytes must be in the collector exactly once.
 *
 * Every sweep watches /dev/kmsg: a kernel report (BUG, WARNING, KASAN,
 * lockdep, ...) ends it as a failure. The kernel's own report of an
 * allocation that failed (warn_alloc(): "page allocation failure",
 * "vmalloc error", with a stack trace) is expected and only counted.
 * Output: TAP, then "# summary" lines. FAIL_NTH_MAX (default 100000)
 * bounds a sweep; reaching it fails.
 *
 * The parts: this file (main(), fail-nth, TAP output), fail_nth_kmsg.c
 * (the kernel log), fail_nth_tally.c (outcome tallies),
 * fail_nth_state.c (the module's state), fail_nth_request.c (one
 * control request under fail-nth), and a file for each sweep:
 * fail_nth_init.c, fail_nth_set.c, fail_nth_daemon.c, fail_nth_drain.c.
 * fail_nth.h declares what they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fail_nth.h"

#define NTH_PATH "/proc/thread-self/fail-nth"

static int nth_fd = -1;
unsigned int nth_max = 100000, nth_step = 1, nth_samples;
static int tap_n, tap_failed;

void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failed++;
	fflush(stdout);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ---- fail-nth ---- */

/* Make the @n-th fault-injection point of this task fail. 0, or -1. */
int nth_arm(unsigned int n)
{
	char arm[16];

	snprintf(arm, sizeof(arm), "%u", n);
	return pwrite(nth_fd, arm, strlen(arm), 0) < 0 ? -1 : 0;
}

/* A sweep that injected nothing tested nothing: that fails. */
unsigned int none_injected(unsigned int injected)
{
	if (injected)
		return 0;
	diag("no fault was injected: fail-nth had no effect");
	return 1;
}

static int nth_open(void)
{
	nth_fd = open(NTH_PATH, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		diag("needs CONFIG_FAULT_INJECTION/CONFIG_FAILSLAB: %s missing "
		     "(%s)",
		     NTH_PATH, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The points left after the call, and disarm. Reading copies to user
 * space, itself a point: with one point left, that copy takes it and the
 * read fails with EFAULT (the value was 1). Writing 0 copies from user
 * space first; if that copy takes the last point, the count is 0 anyway.
 */
long nth_disarm(void)
{
	char buf[32] = "";
	long left;
	ssize_t n;
	int i;

	n = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && errno == EFAULT)
		left = 1;
	else if (n <= 0)
		left = -1;
	else
		left = strtol(buf, NULL, 10);
	for (i = 0; i < 4; i++) {
		if (pwrite(nth_fd, "0", 1, 0) == 1)
			break;
	}
	n = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0 || strtol(buf, NULL, 10) != 0) {
		diag("cannot disarm fail-nth");
		exit(1);
	}
	return left;
}

/*
 * The step of a sweep whose unfaulted run passes @points: --step, or
 * FAIL_NTH_SAMPLES faults spread evenly over the points if that is wider.
 */
unsigned int sample_step(const char *name, unsigned int points)
{
	unsigned int step = nth_step;

	if (nth_samples && points / nth_samples > step)
		step = points / nth_samples;
	diag("%s: an unfaulted run passes %u points; every %u from 1", name,
	     points, step);
	return step;
}

/* Points an armed-past-the-end run passed: nth_max less what was left. */
unsigned int points_passed(long left)
{
	return left > 0 ? nth_max - (unsigned int)left : 0;
}

/*
 * A sweep still injecting after FAIL_NTH_MAX points has not ended: it is
 * a failure, and says so.
 */
int past_max(unsigned int n)
{
	if (n <= nth_max)
		return 0;
	diag("still injecting after FAIL_NTH_MAX=%u points", nth_max);
	return 1;
}

/* ---- main ---- */

/*
 * Touch the stack the sweeps will use now, while nothing is armed: with
 * the memory locked, a page fault taken later would allocate inside an
 * armed window.
 */
static void prefault_stack(void)
{
	volatile char depth[512 << 10];
	size_t i;

	for (i = 0; i < sizeof(depth); i += 4096)
		depth[i] = 0;
}

int main(int argc, char **argv)
{
	const char *max = getenv("FAIL_NTH_MAX");
	int bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *step = getenv("FAIL_NTH_STEP");
	const char *samples = getenv("FAIL_NTH_SAMPLES");

	if (max)
		nth_max = strtoul(max, NULL, 0);
	if (step && strtoul(step, NULL, 0) > 1)
		nth_step = strtoul(step, NULL, 0);
	if (samples)
		nth_samples = strtoul(samples, NULL, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: fail_nth check | init MODULE.ko PARAMS "
				"[FIRST] | set | daemon A.conf B.conf | "
				"drain A.conf\n");
		return 2;
	}
	if (nth_open()) {
		printf("1..1\n");
		tap(0,
		    "%s: needs CONFIG_FAULT_INJECTION/CONFIG_FAILSLAB: %s "
		    "missing",
		    argv[1], NTH_PATH);
		return 1;
	}
	if (!strcmp(argv[1], "check")) {
		printf("1..1\n");
		tap(1, "%s present", NTH_PATH);
		return 0;
	}
	/* No page fault of ours may take an armed fault. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		printf("1..1\n");
		tap(0, "mlockall: %s", strerror(errno));
		return 1;
	}
	prefault_stack();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		diag("no /dev/kmsg (%s): kernel reports are left to the "
		     "harness",
		     strerror(errno));
	if (!strcmp(argv[1], "init") && argc >= 4) {
		printf("1..1\n");
		bad = sweep_init(argv[2], argv[3],
				 argc > 4 ? strtoul(argv[4], NULL, 0) : 1);
	} else if (!strcmp(argv[1], "set")) {
		printf("1..8\n");
		bad = sweep_set();
	} else if (!strcmp(argv[1], "daemon") && argc >= 4) {
		printf("1..1\n");
		bad = sweep_daemon(argv[2], argv[3]);
	} else if (!strcmp(argv[1], "drain") && argc >= 3) {
		printf("1..1\n");
		bad = sweep_drain(argv[2]);
	} else {
		fprintf(stderr, "fail_nth: unknown command %s\n", argv[1]);
		return 2;
	}
	return bad || tap_failed ? 1 : 0;
}
