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
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/ftagent.h>

#include "../../tools/lib/budgets.h"
#include "../../tools/lib/counters.h"
#include "../../tools/lib/filters.h"
#include "../../tools/lib/ftnl.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/status.h"
#include "../../daemon/collector.h"
#include "../../daemon/drain.h"
#include "../../daemon/module.h"
#include "../../daemon/state.h"

#define NTH_PATH      "/proc/thread-self/fail-nth"
#define KPROBES_LIST  "/sys/kernel/debug/kprobes/list"
#define ENABLED_FUNCS "/sys/kernel/tracing/enabled_functions"
#define ACK_TIMEOUT_S 20

static int nth_fd = -1, kmsg_fd = -1;
static unsigned int nth_max = 100000, nth_step = 1, nth_samples;
static int tap_n, tap_failed;

static void tap(int ok, const char *fmt, ...)
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

static void diag(const char *fmt, ...)
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
static int nth_arm(unsigned int n)
{
	char arm[16];

	snprintf(arm, sizeof(arm), "%u", n);
	return pwrite(nth_fd, arm, strlen(arm), 0) < 0 ? -1 : 0;
}

/* A sweep that injected nothing tested nothing: that fails. */
static unsigned int none_injected(unsigned int injected)
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
static long nth_disarm(void)
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

/* ---- the kernel log ---- */

struct kmsg_scan {
	int splat; /* a kernel report that is not an allocation failure */
	int alloc_reports;   /* warn_alloc() reports */
	int fallbacks;	     /* kmemleak's scan-area notice */
	int load_failed;     /* "ftagent: load failed" */
	int disarm_warns;    /* kprobes' "Failed to disarm kprobe-ftrace" */
	int kept;	     /* the module's "the kernel kept N kprobe(s)" */
	int faults;	     /* fail_dump()'s "FAULT_INJECTION" reports */
	int fault_in_module; /* one of them had a frame of the module */
	char first[256];     /* the first splat line */
};

static void kmsg_skip(void)
{
	char rec[8192];

	if (kmsg_fd < 0)
		return;
	lseek(kmsg_fd, 0, SEEK_END);
	while (read(kmsg_fd, rec, sizeof(rec)) > 0)
		;
}

static const char *const splat_words[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"KASAN",
	"UBSAN",
	"kmemleak",
	"unreferenced object",
	"general protection fault",
	"kernel BUG",
	"Kernel panic",
	"Unable to handle kernel",
	"double fault",
	"stack-protector",
	"possible circular locking",
	"possible recursive locking",
	"inconsistent lock state",
	"lockdep",
	"blocked for more than",
	"RCU stall",
	"soft lockup",
	"hard LOCKUP",
	"list_add corruption",
	"list_del corruption",
	"FAULT_INJECTION",
	"Call Trace",
};

/* Lines of a warn_alloc() report: its header, then dump_stack(). */
static int alloc_report_start(const char *text)
{
	return strstr(text, "page allocation failure: order:") ||
	       strstr(text, "vmalloc error: size") ||
	       strstr(text, ": vmalloc: allocation failure");
}

/*
 * fail_dump() (lib/fault-inject.c) at verbose=2: "FAULT_INJECTION:
 * forcing a failure.", then dump_stack() to its "</TASK>". Only the set
 * sweep turns it on (fault_reports()), to learn where each fault hit.
 */
static int fault_report_start(const char *text)
{
	return strstr(text, "FAULT_INJECTION: forcing a failure") != NULL;
}

/*
 * A frame of the module's code in a stack dump: "name+0x1/0x2
 * [ftagent]" (or "[ftagent BUILD-ID]"). The unwinder prints what it only
 * found on the stack, maybe stale, as "? name+...": not a frame.
 */
static int module_frame(const char *text)
{
	const char *p = text + strspn(text, " \t");
	const char *m;

	if (!strncmp(p, "? ", 2))
		return 0;
	m = strstr(p, " [ftagent");
	return m && (m[9] == ']' || m[9] == ' ');
}

/*
 * kmemleak's own answer to an injected fault: add_scan_area() could not
 * allocate its bookkeeping and marks the object for a full scan instead
 * (mm/kmemleak.c, pr_warn_once). A full scan can only hide a leak behind
 * a stray pointer, never report a false one; the module's sections get
 * scan areas at every load, so the first fault there prints it. Not a
 * report. kmemleak disabling itself ("Cannot allocate a kmemleak_object
 * structure") still is: the leak check would be void.
 */
static int kmemleak_fallback(const char *text)
{
	return strstr(text, "kmemleak: Cannot allocate a scan area, "
			    "scanning the full object") != NULL;
}

/*
 * The kernel's warning (kernel/kprobes.c __disarm_kprobe_ftrace(),
 * WARN_ONCE) when an injected fault left ftrace no memory to take a
 * kprobe's address out of its filter: unregister_kretprobes() then keeps
 * the probe in its table, which the module must notice and answer by
 * leaving the probe's memory allocated ("the kernel kept N
 * kprobe(s)", kmod/kprobe_kept.c). Its report runs to "---[ end trace"; a
 * warning without the module's answer is a failure (kmsg_read()).
 */
static int kprobe_disarm_warn(const char *text)
{
	return strstr(text, "Failed to disarm kprobe-ftrace at ") &&
	       strstr(text, "(error -12)");
}

/*
 * Read the kernel log written since the last call. A warn_alloc() report
 * runs from its header to the stack's "</TASK>"; "Call Trace" inside it
 * is the allocation failure's own trace, not a splat. So does a report of
 * an injected fault, whose frames say whether it hit in the module.
 */
static void kmsg_read(struct kmsg_scan *s)
{
	static int in_alloc_report, in_disarm_warn, in_fault_report;
	char rec[8192];
	ssize_t n;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (kmsg_fd < 0)
		return;
	for (;;) {
		char *text;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overrun: records were lost, go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		if (alloc_report_start(text)) {
			in_alloc_report = 1;
			s->alloc_reports++;
			continue;
		}
		if (in_alloc_report) {
			if (strstr(text, "</TASK>"))
				in_alloc_report = 0;
			continue;
		}
		if (fault_report_start(text)) {
			in_fault_report = 1;
			s->faults++;
			continue;
		}
		if (in_fault_report) {
			if (strstr(text, "</TASK>"))
				in_fault_report = 0;
			else if (module_frame(text))
				s->fault_in_module = 1;
			continue;
		}
		if (kprobe_disarm_warn(text)) {
			in_disarm_warn = 1;
			s->disarm_warns++;
			diag("kernel: %.*s (an injected fault in ftrace's "
			     "filter)",
			     (int)strcspn(text, "\n"), text);
			continue;
		}
		if (in_disarm_warn) {
			if (strstr(text, "---[ end trace"))
				in_disarm_warn = 0;
			continue;
		}
		if (strstr(text, "ftagent: the kernel kept ")) {
			s->kept++;
			diag("kernel: %.*s", (int)strcspn(text, "\n"), text);
			continue;
		}
		if (kmemleak_fallback(text)) {
			s->fallbacks++;
			diag("kernel: %.*s (an injected fault in kmemleak's "
			     "own allocation)",
			     (int)strcspn(text, "\n"), text);
			continue;
		}
		if (strstr(text, "ftagent: load failed"))
			s->load_failed = 1;
		for (i = 0; i < sizeof(splat_words) / sizeof(splat_words[0]);
		     i++) {
			if (!strstr(text, splat_words[i]))
				continue;
			if (!s->splat++)
				snprintf(s->first, sizeof(s->first), "%.*s",
					 (int)strcspn(text, "\n"), text);
			diag("kernel: %.*s", (int)strcspn(text, "\n"), text);
			break;
		}
	}
	/* The module answers each kept probe at once, in the same request. */
	if (s->disarm_warns && !s->kept && !s->splat++)
		snprintf(s->first, sizeof(s->first),
			 "the kernel kept a kprobe it could not disarm, and "
			 "the module did not say so");
}

/* ---- outcome tallies ---- */

#define OUTCOMES_MAX 64

struct tally {
	char key[OUTCOMES_MAX][80];
	unsigned int count[OUTCOMES_MAX];
	unsigned int n;
};

static void tally_add(struct tally *t, const char *fmt, ...)
{
	char key[80];
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key))
			break;
	if (i == t->n) {
		if (t->n == OUTCOMES_MAX)
			return;
		snprintf(t->key[t->n++], sizeof(t->key[0]), "%s", key);
	}
	t->count[i]++;
}

static void tally_print(const char *name, const struct tally *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		diag("summary %s: %-48s %u", name, t->key[i], t->count[i]);
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "ok";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case EMSGSIZE: return "EMSGSIZE";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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

static int sweep_init(const char *ko, const char *params, unsigned int first)
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

/* ---- module state, for the command sweeps ---- */

struct snap {
	uint32_t mode, hooks, ring, flush, state, excluded;
	uint32_t gen_acked;
	uint64_t gen_seq, policy_gen;
	struct ftagent_filters f;
	struct ftagent_policy_spec p;
	struct ftagent_budget_set b;
};

static struct ftnl ctl, stats;

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	struct snap *s = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		switch (mnl_attr_get_type(a)) {
		case FTAGENT_CTL_A_FLUSH_INTERVAL_MS:
			s->flush = mnl_attr_get_u32(a);
			break;
		case FTAGENT_CTL_A_STATE: s->state = mnl_attr_get_u32(a); break;
		}
	}
	return MNL_CB_OK;
}

static void snap_free(struct snap *s)
{
	ftagent_filters_free(&s->f);
	ftagent_policy_spec_free(&s->p);
	ftagent_budget_set_free(&s->b);
	memset(s, 0, sizeof(*s));
}

static int snap_take(struct snap *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftagent_resources res = {0};
	struct ftnl_error err;
	struct nlmsghdr *nlh;

	memset(s, 0, sizeof(*s));
	ftagent_filters_init(&s->f);
	ftagent_policy_spec_init(&s->p);
	nlh = ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_GET_STATUS, 0);
	if (ftnl_transact(&ctl, nlh, status_cb, s, &err) < 0 ||
	    ftagent_get_resources(&stats, &res, &err) < 0 ||
	    ftagent_get_filters(&ctl, &s->f, &err) < 0 ||
	    ftagent_get_policy(&ctl, &s->p, &err) < 0 ||
	    ftagent_get_budgets(&ctl, &s->b, &err) < 0) {
		diag("state: %s", ftnl_format_error(&err, buf, sizeof(buf)));
		ftagent_resources_free(&res);
		return -1;
	}
	s->mode = res.mode;
	s->hooks = res.hooks;
	s->ring = res.ring_buffer_size;
	s->excluded = res.excluded_tgids;
	s->gen_seq = res.gen_seq;
	s->gen_acked = res.gen_acked;
	s->policy_gen = s->p.generation;
	ftagent_resources_free(&res);
	return 0;
}

/* "" when equal (generations and counter generations aside), else what differs. */
static const char *snap_diff(const struct snap *a, const struct snap *b)
{
	static char why[128];

	why[0] = '\0';
	if (a->mode != b->mode)
		strcat(why, " mode");
	if (a->hooks != b->hooks)
		strcat(why, " hooks");
	if (a->ring != b->ring)
		strcat(why, " ring");
	if (a->flush != b->flush)
		strcat(why, " flush");
	if (a->state != b->state)
		strcat(why, " state");
	if (a->excluded != b->excluded)
		strcat(why, " excluded");
	if (!ftagent_filters_equal(&a->f, &b->f))
		strcat(why, " filters");
	if (!ftagent_policy_spec_equal(&a->p, &b->p))
		strcat(why, " policy");
	if (!ftagent_budget_set_equal(&a->b, &b->b))
		strcat(why, " budgets");
	return why;
}

/* ---- one request under fail-nth ---- */

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

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sent *r = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		if (mnl_attr_get_type(a) == FTAGENT_CTL_A_GEN_SEQ ||
		    mnl_attr_get_type(a) == FTAGENT_CTL_A_POLICY_GENERATION)
			r->u64 = mnl_attr_get_u64(a);
	}
	return MNL_CB_OK;
}

/* Read up to the ACK of @seq on @nl. */
static void recv_ack(struct ftnl *nl, uint32_t seq, struct sent *r)
{
	char buf[65536];
	int fd = mnl_socket_get_fd(nl->sock);
	ssize_t n;

	for (;;) {
		struct nlmsghdr *nlh;
		int len;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			r->err = errno;
			r->how = errno == EAGAIN ? SENT_NO_ACK : SENT_ACK_LOST;
			return;
		}
		len = n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			struct ftnl_error e;

			if (nlh->nlmsg_seq != seq)
				continue; /* an earlier request's late answer */
			if (nlh->nlmsg_type != NLMSG_ERROR) {
				reply_cb(nlh, r);
				continue;
			}
			r->how = SENT_ACKED;
			if (ftnl_parse_error(nlh, &e) == 0) {
				r->err = 0;
				return;
			}
			r->err = e.err;
			r->has_msg = e.msg[0] != '\0';
			snprintf(r->msg, sizeof(r->msg), "%s", e.msg);
			return;
		}
	}
}

/* Send @nlh on @nl with the @nth-th point failing (0: none). */
static void send_nth(struct ftnl *nl, struct nlmsghdr *nlh, unsigned int nth,
		     struct sent *r)
{
	int fd = mnl_socket_get_fd(nl->sock);
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t n;
	int e;

	memset(r, 0, sizeof(*r));
	if (nth && nth_arm(nth) < 0) {
		diag("arm fail-nth: %s", strerror(errno));
		exit(1);
	}
	n = sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to));
	e = n < 0 ? errno : 0;
	r->left = nth ? nth_disarm() : -1;
	if (n < 0) {
		r->how = SENT_SEND_FAILED;
		r->err = e;
		return;
	}
	recv_ack(nl, nlh->nlmsg_seq, r);
}

static int set_timeout(struct ftnl *nl)
{
	struct timeval tv = {.tv_sec = ACK_TIMEOUT_S};

	return setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVTIMEO,
			  &tv, sizeof(tv));
}

static int open_families(void)
{
	struct ftnl_error err;
	char buf[300];
	int size = 1 << 20;

	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0 ||
	    ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
		diag("netlink: %s", ftnl_format_error(&err, buf, sizeof(buf)));
		return -1;
	}
	set_timeout(&ctl);
	set_timeout(&stats);
	setsockopt(mnl_socket_get_fd(ctl.sock), SOL_SOCKET, SO_RCVBUF, &size,
		   sizeof(size));
	return 0;
}

/* ---- the requests ---- */

static struct nlmsghdr *req_config(char *buf, uint32_t mode, uint32_t hooks,
				   uint32_t ring, uint32_t flush)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_CONFIG, 0);

	if (mode)
		mnl_attr_put_u32(nlh, FTAGENT_CTL_A_MODE, mode);
	if (hooks)
		mnl_attr_put_u32(nlh, FTAGENT_CTL_A_HOOKS, hooks);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_RING_BUFFER_SIZE, ring);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_FLUSH_INTERVAL_MS, flush);
	return nlh;
}

static struct nlmsghdr *req_filters(char *buf, int on)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_FILTERS, 0);
	struct nlattr *nest;

	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_NET_UDP, on);
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_FILE_TRACK_READ, on);
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EXCLUDE_PROCESSES);
	if (!on) {
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "ftfault-a");
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "ftfault-b");
	}
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EXCLUDE_PATHS);
	if (!on) {
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME,
				  "/nonexistent/ftfault/");
		mnl_attr_put_strz(nlh, FTAGENT_CTL_A_NAME, "/var/tmp/ftfault");
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static struct nlmsghdr *req_policy(char *buf, int set)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_POLICY, 0);
	struct in_addr addr;
	struct nlattr *rule;

	if (!set)
		return nlh; /* the empty set: no gate */
	mnl_attr_put_u8(nlh, FTAGENT_CTL_A_POLICY_ENFORCE, 0);
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_POLICY_DEFAULT,
			 FTAGENT_ACTION_ALLOW);
	rule = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, "ftfault-open");
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, 1u << FTAGENT_OP_OPEN);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, FTAGENT_ACTION_AUDIT);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_PATH_PREFIX,
			  "/nonexistent/ftfault/");
	mnl_attr_nest_end(nlh, rule);
	rule = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_POLICY_RULE);
	mnl_attr_put_strz(nlh, FTAGENT_RULE_A_NAME, "ftfault-connect");
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_OPS, 1u << FTAGENT_OP_CONNECT);
	mnl_attr_put_u32(nlh, FTAGENT_RULE_A_ACTION, FTAGENT_ACTION_DENY);
	inet_pton(AF_INET, "192.0.2.0", &addr);
	mnl_attr_put(nlh, FTAGENT_RULE_A_ADDR, 4, &addr);
	mnl_attr_put_u8(nlh, FTAGENT_RULE_A_PREFIX_LEN, 24);
	mnl_attr_put_u16(nlh, FTAGENT_RULE_A_PORT_MIN, 9);
	mnl_attr_nest_end(nlh, rule);
	return nlh;
}

static struct nlmsghdr *req_budgets(char *buf, int set)
{
	struct nlmsghdr *nlh =
		ftnl_put_request(&ctl, buf, FTAGENT_CTL_CMD_SET_BUDGETS, 0);
	struct nlattr *b;

	if (!set)
		return nlh;
	b = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_BUDGET);
	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_NAME, "ftfault-execs");
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_METRIC, FTAGENT_METRIC_EXECS);
	mnl_attr_put_u64(nlh, FTAGENT_BUDGET_A_LIMIT, 1000000);
	mnl_attr_put_u32(nlh, FTAGENT_BUDGET_A_WINDOW_MS, 60000);
	mnl_attr_put_strz(nlh, FTAGENT_BUDGET_A_COMM, "ftfault-none");
	mnl_attr_nest_end(nlh, b);
	return nlh;
}

/* ---- attribution ---- */

/*
 * Where did the injected fault hit: in the module (its handler, or what
 * the handler called), which then owes an extended-ACK message with its
 * refusal, or in the netlink and genetlink core before or around the
 * handler (copying the message in, the skb, genetlink's attribute array,
 * the ACK), which refuses with a bare errno? Counting the core's points
 * once and taking every later N for the module's does not hold: the
 * number of points the core passes varies with the request (its size,
 * the socket's first message) and, with --page-alloc, with the page
 * allocator's state. So the set sweep has fail_dump() print the stack of
 * every fault it injects (verbose=2 on every fail* attribute) and reads
 * the module's frames in it (kmsg_read()). A fault inside a core function
 * that the module reached by a tail call shows no module frame and is
 * taken for the core's: the refusal is then not held to carry a message.
 */
static int fault_reports(int verbose)
{
	static const char *const attrs[] = {
		"failslab",	 "fail_page_alloc",   "fail_usercopy",
		"fail_futex",	 "fail_make_request", "fail_io_timeout",
		"fail_function",
	};
	char path[128];
	size_t i;
	int fd, set = 0;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verbose",
			 attrs[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (dprintf(fd, "%d\n", verbose) > 0)
			set++;
		close(fd);
	}
	if (!set)
		diag("no fault-injection attribute takes verbose=%d", verbose);
	return set ? 0 : -1;
}

/* ---- command sweeps ---- */

struct cmd_case {
	const char *name;
	/* the request under test; the one that undoes it */
	struct nlmsghdr *(*build)(char *buf, int variant);
	int apply, undo;
	int gen; /* SET_POLICY/SET_BUDGETS: a reply generation */
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
 * Tally one faulted request. Returns 1 when a fault was injected but the
 * kernel log has no report of it to say where it hit.
 */
static int account(struct tally *t, struct msg_stats *ms, unsigned int n,
		   const struct sent *r, const struct kmsg_scan *ks,
		   const char *name)
{
	int in_module = ks->fault_in_module;
	const char *where = in_module ? "module" : "core";

	if (r->left == 0 && ks->faults != 1) {
		diag("%s: N=%u: a fault was injected, but the kernel log has "
		     "%d reports of one: cannot say where it hit",
		     name, n, ks->faults);
		tally_add(t, "fault not attributed");
		return 1;
	}
	if (r->left != 0)
		where = "unfaulted";

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
 * The step of a sweep whose unfaulted run passes @points: --step, or
 * FAIL_NTH_SAMPLES faults spread evenly over the points if that is wider.
 */
static unsigned int sample_step(const char *name, unsigned int points)
{
	unsigned int step = nth_step;

	if (nth_samples && points / nth_samples > step)
		step = points / nth_samples;
	diag("%s: an unfaulted run passes %u points; every %u from 1", name,
	     points, step);
	return step;
}

/* Points an armed-past-the-end run passed: nth_max less what was left. */
static unsigned int points_passed(long left)
{
	return left > 0 ? nth_max - (unsigned int)left : 0;
}

static int sweep_case(const struct cmd_case *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct snap before, after, want, orig;
	struct tally t = {0};
	struct msg_stats ms = {0};
	struct kmsg_scan ks;
	unsigned int n, injected = 0, bad = 0, reports = 0, last = 0, step;
	unsigned int points;
	double t0 = now_s();
	struct sent r;

	if (snap_take(&orig) || unarmed(c->build(buf, c->apply), &r, c->name) ||
	    snap_take(&want) || unarmed(c->build(buf, c->undo), &r, c->name)) {
		tap(0, "%s: set-up", c->name);
		return 1;
	}
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
		step = sample_step(c->name, points);
	}
	for (n = 1; n <= nth_max; n += step) {
		const char *d;
		int changed;

		if (snap_take(&before)) {
			bad++;
			break;
		}
		kmsg_skip();
		send_nth(&ctl, c->build(buf, c->apply), n, &r);
		kmsg_read(&ks);
		reports += ks.alloc_reports;
		if (r.left == 0) {
			injected++;
			last = n;
		}
		bad += account(&t, &ms, n, &r, &ks, c->name);
		if (ks.splat) {
			tap(0, "%s: N=%u: kernel report: %s", c->name, n,
			    ks.first);
			return 1;
		}
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
			if (c->gen &&
			    after.policy_gen != before.policy_gen + 1 &&
			    !strcmp(c->name, "SET_POLICY")) {
				diag("%s: N=%u: generation %llu -> %llu",
				     c->name, n,
				     (unsigned long long)before.policy_gen,
				     (unsigned long long)after.policy_gen);
				bad++;
			}
		} else if (r.how == SENT_ACK_LOST) {
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
			tally_add(&t, "refused but state changed");
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
		}
		snap_free(&before);
		snap_free(&after);
		if (r.left != 0)
			break;
	}
	if (n > nth_max)
		bad++;
	snap_free(&want);
	snap_free(&orig);
	tally_print(c->name, &t);
	diag("summary %s: N_max=%u faults injected=%u (every %u), module "
	     "refusals with message=%u without=%u, warn_alloc reports=%u, "
	     "time=%.0f s",
	     c->name, last, injected, step, ms.with, ms.without, reports,
	     now_s() - t0);
	bad += ms.without + none_injected(injected);
	tap(!bad,
	    "%s: %u faults injected; refusals leave the state, successes set "
	    "it",
	    c->name, injected);
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
	struct tally t = {0};
	struct msg_stats ms = {0};
	struct kmsg_scan ks;
	unsigned int n, injected = 0, bad = 0, last = 0;
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
		kmsg_skip();
		send_nth(&ctl, nlh, n, &r);
		kmsg_read(&ks);
		if (r.left == 0) {
			injected++;
			last = n;
		}
		bad += account(&t, &ms, n, &r, &ks, name);
		if (ks.splat) {
			tap(0, "%s: N=%u: kernel report: %s", name, n,
			    ks.first);
			return 1;
		}
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
			tally_add(&t, "refused but %s",
				  ack ? "acknowledged" : "swapped");
			bad++;
		}
		snap_free(&before);
		snap_free(&after);
		if (r.left != 0)
			break;
	}
	if (n > nth_max)
		bad++;
	ack_idle();
	unarmed(req_config(buf, 0, 0, 0, orig_flush), &u, name);
	tally_print(name, &t);
	diag("summary %s: N_max=%u faults injected=%u (every %u), module "
	     "refusals with message=%u without=%u, time=%.0f s",
	     name, last, injected, nth_step, ms.with, ms.without, now_s() - t0);
	bad += ms.without + none_injected(injected);
	tap(!bad, "%s: %u faults injected; a refusal changes nothing", name,
	    injected);
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
	struct tally t = {0};
	struct msg_stats ms = {0};
	struct kmsg_scan ks;
	unsigned int n, injected = 0, bad = 0, last = 0;
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
		kmsg_skip();
		send_nth(&nl,
			 ftnl_put_request(&nl, buf,
					  FTAGENT_CTL_CMD_EXCLUDE_SELF, 0),
			 n, &r);
		kmsg_read(&ks);
		if (r.left == 0) {
			injected++;
			last = n;
		}
		bad += account(&t, &ms, n, &r, &ks, name);
		if (ks.splat) {
			tap(0, "%s: N=%u: kernel report: %s", name, n,
			    ks.first);
			return 1;
		}
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
				tally_add(&t, "refused but excluded");
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
			snap_take(&s);
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
	if (n > nth_max)
		bad++;
	snap_free(&base);
	tally_print(name, &t);
	diag("summary %s: N_max=%u faults injected=%u, module refusals with "
	     "message=%u without=%u, time=%.0f s",
	     name, last, injected, ms.with, ms.without, now_s() - t0);
	bad += ms.without + none_injected(injected);
	tap(!bad, "%s: %u faults injected; the exclusion ends with its socket",
	    name, injected);
	return !!bad;
}

static int sweep_set(void)
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
	if (fault_reports(2)) {
		tap(0, "set: fault reports to attribute faults by");
		return 1;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad += sweep_case(&cases[i]);
	bad += sweep_flush_ack(0);
	bad += sweep_flush_ack(1);
	bad += sweep_exclude_self();
	fault_reports(0);
	return bad;
}

/* ---- the daemon's requests ---- */

static int daemon_snap(struct snap *s)
{
	return snap_take(s);
}

static int sweep_daemon(const char *a_path, const char *b_path)
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
	if (n > nth_max)
		bad++;
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

/* ---- the daemon's counter drain ---- */

#define DRAIN_CHILDREN_MAX 100000

/*
 * Traffic the module counts under a tgid the sweep knows: a child writes
 * @bytes to @path and exits, made while nothing is armed (fail-nth is the
 * calling task's; the child is not armed).
 */
static pid_t write_child(const char *path, size_t bytes)
{
	static const char chunk[4096];
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0600);
		size_t done = 0;

		if (fd < 0)
			_exit(1);
		while (done < bytes) {
			size_t want = bytes - done;
			ssize_t n = write(fd, chunk,
					  want < sizeof(chunk) ? want
							       : sizeof(chunk));

			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(close(fd) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return pid;
}

/*
 * EXCLUDE_SELF (ftd_module_connect()) excludes the sweep's process and
 * every descendant of it, and its children from then on: the writers
 * come from a helper that is none of those. It is forked twice before the
 * exclusion, so that it is an orphan (reparented to init or a subreaper,
 * before the middle child is reaped) when the module looks at ancestors.
 * It reads a size from the request pipe, forks a writer of that size and
 * answers the writer's pid (or -1); the pipe's end stops it.
 */
struct writer_helper {
	int req, resp;
};

static void helper_serve(int req, int resp, const char *path)
{
	size_t bytes;
	pid_t w;

	while (read(req, &bytes, sizeof(bytes)) == (ssize_t)sizeof(bytes)) {
		w = write_child(path, bytes);
		if (write(resp, &w, sizeof(w)) != (ssize_t)sizeof(w))
			break;
	}
	_exit(0);
}

static int helper_start(struct writer_helper *h, const char *path)
{
	int req[2], resp[2], status;
	pid_t mid;

	if (pipe2(req, O_CLOEXEC) || pipe2(resp, O_CLOEXEC))
		return -1;
	mid = fork();
	if (mid < 0)
		return -1;
	if (mid == 0) {
		close(req[1]);
		close(resp[0]);
		pid_t helper = fork();

		if (helper == 0)
			helper_serve(req[0], resp[1], path);
		_exit(helper < 0);
	}
	close(req[0]);
	close(resp[1]);
	h->req = req[1];
	h->resp = resp[0];
	if (waitpid(mid, &status, 0) != mid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

static pid_t helper_write(struct writer_helper *h, size_t bytes)
{
	pid_t w;

	if (write(h->req, &bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes) ||
	    read(h->resp, &w, sizeof(w)) != (ssize_t)sizeof(w))
		return -1;
	return w;
}

/* The helper ends when it reads the end of its pipe. */
static void helper_stop(struct writer_helper *h)
{
	close(h->req);
	close(h->resp);
}

/* The file bytes the collector holds for @tgid. */
static uint64_t written_by(const struct ftd_collector *c, uint32_t tgid)
{
	struct ftd_proc_key key = {.tgid = tgid};
	const struct ftd_proc *p =
		ftd_table_find(&c->table[FTD_T_PROCESSES], &key);

	return p ? p->file.out.bytes : 0;
}

/*
 * Whether a failed drain said why: "counters: " and then an errno's text
 * that is not "Success" (an error that lost its errno on the way).
 */
static int drain_says_why(const char *why)
{
	const char *prefix = "counters: ";

	if (!strncmp(why, prefix, strlen(prefix)))
		why += strlen(prefix);
	return *why && strncmp(why, "Success", 7);
}

/*
 * The bytes every writer so far with @pid's pid wrote (a pid can come
 * back after pid_max; the collector keys processes by tgid).
 */
static uint64_t expected_for(const pid_t *pids, const uint64_t *sizes,
			     unsigned int children, pid_t pid)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < children; i++)
		if (pids[i] == pid)
			sum += sizes[i];
	return sum;
}

/* A failure's reason without its numbers, for the tally. */
static void tally_reason(struct tally *t, const char *why)
{
	char key[64];
	size_t i;

	snprintf(key, sizeof(key), "%s", why);
	for (i = 0; key[i]; i++)
		if (key[i] >= '0' && key[i] <= '9')
			key[i] = 'N';
	tally_add(t, "failed: %s", key);
}

/*
 * ftd_drain_counters() of daemon/drain.c (consume the idle generation,
 * swap, consume the new one; journal each, then acknowledge it), the
 * N-th point of the whole drain failing: the dumps (ENOBUFS when the
 * kernel has no memory for a part: the dump is read out and redone), the
 * FLUSH and ACK_GENERATION requests, the journal's writes. Before each,
 * a child writes a known number of bytes; after each, an unarmed drain
 * must succeed at once, and every child's bytes must then be in the
 * collector exactly: none lost (a generation the drain failed on stays
 * in the module), none twice (one journaled but not acknowledged is
 * acknowledged, not merged again). A failed drain must say why.
 */
static int sweep_drain(const char *conf_path)
{
	static pid_t pids[DRAIN_CHILDREN_MAX];
	static uint64_t sizes[DRAIN_CHILDREN_MAX];
	struct ftagentd_config cfg;
	struct ftd_collector c;
	struct ftd_module m;
	struct ftd_state st;
	struct writer_helper writer;
	struct tally t = {0};
	struct kmsg_scan ks;
	unsigned int n, injected = 0, bad = 0, no_msg = 0, last = 0, step;
	unsigned int children = 0, i, retries_before;
	char dir[] = "/tmp/fail_nth-drain.XXXXXX", path[64], why[512];
	uint64_t total = 0, seen, evicted_before;
	double t0 = now_s();
	int replaced, rc, tries;
	long left;

	if (ftagentd_config_load(conf_path, &cfg, why, sizeof(why))) {
		tap(0, "drain: config: %s", why);
		return 1;
	}
	if (!mkdtemp(dir) || ftd_collector_init(&c, &cfg)) {
		tap(0, "drain: state directory or collector: %s",
		    strerror(errno));
		return 1;
	}
	c.read_proc_names = 0;
	snprintf(path, sizeof(path), "%s/written", dir);
	if (ftd_state_open(&st, dir, &c) < 0) {
		tap(0, "drain: state: %s", st.error);
		return 1;
	}
	/* A helper that died makes a write to it fail, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (helper_start(&writer, path)) {
		tap(0, "drain: writer: %s", strerror(errno));
		return 1;
	}
	if (ftd_module_connect(&m, why, sizeof(why)) != FTAGENTD_EXIT_OK ||
	    ftd_module_apply(&m, &cfg, &replaced, why, sizeof(why)) ||
	    set_timeout(&m.ctl) || set_timeout(&m.stats)) {
		tap(0, "drain: connect: %s", why);
		return 1;
	}
	/* What other tasks left in the module is not this sweep's. */
	if (ftd_drain_counters(&m, &c, &st, why, sizeof(why))) {
		tap(0, "drain: the first, unarmed drain: %s", why);
		return 1;
	}
	step = nth_step;
	if (nth_samples) {
		if (helper_write(&writer, 1) < 0 || nth_arm(nth_max) < 0) {
			tap(0, "drain: arm fail-nth: %s", strerror(errno));
			return 1;
		}
		rc = ftd_drain_counters(&m, &c, &st, why, sizeof(why));
		left = nth_disarm();
		if (rc) {
			tap(0, "drain: the unfaulted run to count points: %s",
			    why);
			return 1;
		}
		step = sample_step("drain", points_passed(left));
	}
	retries_before = c.drops[FTD_DROP_DUMP_RETRY];
	evicted_before = c.table[FTD_T_PROCESSES].evicted;
	for (n = 1; n <= nth_max; n += step) {
		if (children == DRAIN_CHILDREN_MAX) {
			bad++;
			break;
		}
		/* 1 to 3 pages and a bit: sizes that differ from one to the next. */
		sizes[children] = 4096 + (n % 3) * 4096 + children % 4093 + 1;
		pids[children] = helper_write(&writer, sizes[children]);
		if (pids[children] < 0) {
			tap(0, "drain: N=%u: the writer failed", n);
			return 1;
		}
		total += sizes[children++];

		why[0] = '\0';
		kmsg_skip();
		if (nth_arm(n) < 0) {
			bad++;
			break;
		}
		rc = ftd_drain_counters(&m, &c, &st, why, sizeof(why));
		left = nth_disarm();
		kmsg_read(&ks);
		if (left == 0) {
			injected++;
			last = n;
		}
		if (ks.splat) {
			tap(0, "drain: N=%u: kernel report: %s", n, ks.first);
			return 1;
		}
		if (!rc) {
			tally_add(&t, "drained");
		} else {
			tally_reason(&t,
				     drain_says_why(why) ? why : "NO message");
			if (!drain_says_why(why))
				no_msg++;
			diag("drain: N=%u: %s", n, why);
		}
		/* The next tick's drain, unarmed, must work at once. */
		for (tries = 0; tries < 4; tries++) {
			if (!ftd_drain_counters(&m, &c, &st, why, sizeof(why)))
				break;
			diag("drain: N=%u: unarmed drain %d failed: %s", n,
			     tries + 1, why);
		}
		if (tries) {
			tally_add(&t, "the next unarmed drain failed");
			bad++;
			if (tries == 4)
				break;
		}
		if (c.table[FTD_T_PROCESSES].evicted != evicted_before) {
			tap(0,
			    "drain: N=%u: the collector evicted processes: "
			    "the check cannot see every child",
			    n);
			return 1;
		}
		for (i = 0, seen = 0; i < children; i++) {
			uint64_t want =
				expected_for(pids, sizes, children, pids[i]);
			uint64_t got = written_by(&c, (uint32_t)pids[i]);

			if (expected_for(pids, sizes, i, pids[i]))
				continue; /* a pid seen before: summed there */
			seen += got;
			if (got != want) {
				diag("drain: N=%u: pid %d wrote %llu bytes, "
				     "the collector has %llu",
				     n, (int)pids[i], (unsigned long long)want,
				     (unsigned long long)got);
				bad++;
			}
		}
		if (seen != total) {
			diag("drain: N=%u: children wrote %llu bytes, the "
			     "collector has %llu",
			     n, (unsigned long long)total,
			     (unsigned long long)seen);
			bad++;
		}
		if (left != 0)
			break;
	}
	if (n > nth_max)
		bad++;
	helper_stop(&writer);
	ftd_module_close(&m);
	ftd_state_close(&st);
	tally_print("drain", &t);
	diag("summary drain: N_max=%u faults injected=%u (every %u), "
	     "dumps redone=%u, failures without a message=%u, children=%u, "
	     "bytes=%llu, time=%.0f s",
	     last, injected, step,
	     (unsigned int)(c.drops[FTD_DROP_DUMP_RETRY] - retries_before),
	     no_msg, children, (unsigned long long)total, now_s() - t0);
	ftd_collector_free(&c);
	bad += no_msg + none_injected(injected);
	tap(!bad,
	    "drain: %u faults injected into ftd_drain_counters(); %u "
	    "children's "
	    "%llu bytes counted exactly",
	    injected, children, (unsigned long long)total);
	return !!bad;
}

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
