// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth drain: the daemon's counter drain, ftd_drain_counters() of
 * daemon/drain.c, with the N-th point failing, after a child of a helper
 * process wrote a known number of bytes. A failure must say why, the
 * next unarmed drain must succeed, and every child's bytes must be in
 * the collector exactly once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../daemon/collector.h"
#include "../../daemon/drain.h"
#include "../../daemon/module.h"
#include "../../daemon/state.h"
#include "../../tools/lib/config.h"
#include "fail_nth.h"

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
int sweep_drain(const char *conf_path)
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
	bad += past_max(n);
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
