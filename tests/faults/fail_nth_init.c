// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth init: load the module with the N-th fault-injection point
 * failing, for every N the load passes. A load that fails must leave
 * nothing behind (no module, family, filesystem, kprobe or ftrace
 * callback: the leftovers are counted against a baseline, and the hooked
 * calls are run to make anything left in freed memory fault); one that
 * succeeds must answer GET_STATUS and unload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ftagent.h>

#include "../../tools/lib/status.h"
#include "fail_nth.h"

#define KPROBES_LIST  "/sys/kernel/debug/kprobes/list"
#define ENABLED_FUNCS "/sys/kernel/tracing/enabled_functions"

/* ---- what a load may leave behind ---- */

static int count_lines(const char *path, const char *needle)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!needle || strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

struct leftovers {
	int kprobes, ftrace;
};

static void leftovers_base(struct leftovers *l)
{
	l->kprobes = count_lines(KPROBES_LIST, NULL);
	l->ftrace = count_lines(ENABLED_FUNCS, NULL);
}

/* "" when the module left nothing behind, else what it left. */
static const char *leftovers_check(const struct leftovers *base)
{
	static char why[256];
	struct ftnl_error e;

	why[0] = '\0';
	if (count_lines("/proc/modules", "ftagent ") > 0)
		strcat(why, " module-listed");
	if (ftnl_family_listed(FTAGENT_GENL_CTL_NAME, &e) != 0)
		strcat(why, " ctl-family");
	if (ftnl_family_listed(FTAGENT_GENL_STATS_NAME, &e) != 0)
		strcat(why, " stats-family");
	if (count_lines("/proc/filesystems", FTAGENT_FS_TYPE) > 0)
		strcat(why, " filesystem");
	if (count_lines(KPROBES_LIST, NULL) != base->kprobes)
		strcat(why, " kprobes");
	if (count_lines(ENABLED_FUNCS, NULL) != base->ftrace)
		strcat(why, " ftrace-callbacks");
	return why;
}

/*
 * Run what the module hooks (fork, exec, exit, file and socket calls): a
 * probe, callback or tracepoint a failed load left behind in freed module
 * memory then faults, and KASAN or an oops says so in the kernel log.
 */
static void exercise(void)
{
	char buf[64];
	int fd, sv[2];
	pid_t pid;

	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			diag("exercise: read: %s", strerror(errno));
		close(fd);
	}
	if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		if (write(sv[0], "x", 1) != 1 || read(sv[1], buf, 1) != 1)
			diag("exercise: socketpair: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
	}
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int unload_module(void)
{
	int i;

	while (!umount2(FTAGENT_FS_MOUNTPOINT, 0))
		;
	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, "ftagent", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(20000);
	}
	return -errno;
}

/* ---- module init sweep ---- */

int sweep_init(const char *ko, const char *params, unsigned int first)
{
	struct tally t = {0};
	struct leftovers base;
	struct kmsg_scan ks;
	unsigned int n, injected = 0, alloc_reports = 0, bad = 0, last = 0;
	unsigned int points;
	double t0 = now_s();
	int fd, rc, e, done = 0;
	long left;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap(0, "init[%s]: open %s: %s", params, ko, strerror(errno));
		return 1;
	}
	if (count_lines("/proc/modules", "ftagent ") > 0) {
		tap(0, "init[%s]: the module is loaded already", params);
		return 1;
	}
	leftovers_base(&base);
	diag("init[%s]: baseline: %d kprobes, %d ftrace callbacks", params,
	     base.kprobes, base.ftrace);
	/*
	 * How many points one load passes: armed past the last, nothing
	 * fails and the count left says. A kretprobe's instances are one
	 * allocation each (the kprobe set's loads pass tens of thousands),
	 * so FAIL_NTH_SAMPLES=K spreads K faults over the whole load.
	 */
	if (nth_arm(nth_max) < 0) {
		tap(0, "init[%s]: arm fail-nth: %s", params, strerror(errno));
		return 1;
	}
	rc = syscall(SYS_finit_module, fd, params, 0);
	left = nth_disarm();
	if (rc || unload_module()) {
		tap(0, "init[%s]: the unfaulted load to count points: %s",
		    params, strerror(errno));
		return 1;
	}
	points = left > 0 ? nth_max - (unsigned int)left : 0;
	if (nth_samples && points / nth_samples > nth_step)
		nth_step = points / nth_samples;
	diag("init[%s]: an unfaulted load passes %u points; every %u from %u",
	     params, points, nth_step, first);
	kmsg_read(&ks);
	for (n = first; n <= nth_max && !done; n += nth_step) {
		const char *left_behind;

		kmsg_skip();
		if (nth_arm(n) < 0) {
			tap(0, "init[%s]: arm fail-nth: %s", params,
			    strerror(errno));
			return 1;
		}
		rc = syscall(SYS_finit_module, fd, params, 0);
		e = rc ? errno : 0;
		left = nth_disarm();
		kmsg_read(&ks);
		alloc_reports += ks.alloc_reports;
		if (left != 0)
			done = 1; /* fewer than n points: nothing injected */
		else
			injected++;
		if (!left)
			last = n;
		if (ks.splat) {
			tap(0, "init[%s]: N=%u: kernel report: %s", params, n,
			    ks.first);
			bad++;
			if (!rc) /* for the kmemleak scan that follows */
				unload_module();
			break;
		}
		if (!rc) {
			struct ftagent_status st = {0};
			struct ftnl_error err;

			if (ftagent_query_status(&st, &err) < 0) {
				diag("init[%s]: N=%u: loaded but GET_STATUS: "
				     "%s",
				     params, n, strerror(err.err));
				bad++;
			}
			/*
			 * What came up, told apart: a fault the module
			 * answers by running with less must show here (a
			 * degraded feature, a missing function, no direct
			 * calls) against the unfaulted load's line.
			 */
			tally_add(&t, "loaded, %s, degraded 0x%x, %u missing%s",
				  ftagent_state_name(st.state), st.degraded,
				  st.n_missing,
				  st.direct_calls ? ", direct calls" : "");
			rc = unload_module();
			if (rc) {
				diag("init[%s]: N=%u: unload: %s", params, n,
				     strerror(-rc));
				bad++;
				break;
			}
		} else {
			tally_add(
				&t, "refused %s, %s", errname(e),
				ks.load_failed
					? "module said 'load failed'"
					: "by the loader (no module message)");
		}
		exercise();
		kmsg_read(&ks);
		alloc_reports += ks.alloc_reports;
		if (ks.splat) {
			tap(0,
			    "init[%s]: N=%u: kernel report after the load: %s",
			    params, n, ks.first);
			bad++;
			break;
		}
		left_behind = leftovers_check(&base);
		if (*left_behind) {
			diag("init[%s]: N=%u (%s): left behind:%s", params, n,
			     errname(e), left_behind);
			bad++;
			unload_module();
			break;
		}
		if (done && e) {
			diag("init[%s]: the load with no fault injected "
			     "failed: %s",
			     params, errname(e));
			bad++;
		}
		if (n % 100 == 0)
			diag("init[%s]: N=%u, %.0f s", params, n, now_s() - t0);
	}
	close(fd);
	bad += none_injected(injected);
	if (!done && !bad) {
		diag("init[%s]: FAIL_NTH_MAX=%u reached", params, nth_max);
		bad++;
	}
	tally_print(params, &t);
	diag("summary init[%s]: N_max=%u faults injected=%u (from N=%u, every "
	     "%u; an unfaulted load passed %u points) warn_alloc reports=%u "
	     "time=%.0f s",
	     params, last, injected, first, nth_step, points, alloc_reports,
	     now_s() - t0);
	tap(!bad, "init[%s]: %u faults injected (N=%u..%u), every load clean",
	    params, injected, first, last);
	return bad;
}
