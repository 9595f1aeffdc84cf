// SPDX-License-Identifier: GPL-2.0
/*
 * Other users of the syscall tracepoints keep seeing every call while
 * ftagent runs, in every order, and ftagent keeps counting exactly.
 *
 * The ftrace set sees a traced call's return through the kernel's syscall
 * exit work: it sets the task's SYSCALL_TRACEPOINT work bit at entry and
 * clears it on the way out, which is the bit every sys_enter/sys_exit
 * user (perf trace, bpftrace tracepoint:raw_syscalls, sysdig's scap.ko,
 * ftrace's syscall events) relies on staying set on every thread while
 * its probe is there. The peer here is ftrace's own raw_syscalls event in
 * a trace instance of the test's: its probe is registered and removed by
 * the same tracepoint functions as those tools' probes. Each traced call
 * is a pread64 of a length that names it, so the peer's record of it
 * (sys_exit: the return value, sys_enter: the count argument) says which
 * call it saw, and a missed one is found, not only a missing total.
 *
 * The peer's view is the ground truth for the peer; for ftagent, the
 * calls and bytes the test made (each pread returns its whole length).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "reload_test.h"

#define TRACEFS "/sys/kernel/tracing"
/* A pread's length names the call: 1 .. SPAN bytes, SPAN calls apart. */
#define SPAN  16000
#define CALLS 600

struct peer {
	char dir[128];
	const char *event; /* "sys_enter" or "sys_exit" */
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -errno;
}

static int peer_file(const struct peer *p, const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/raw_syscalls/%s/%s", p->dir,
		 p->event, name);
	return write_file(path, text);
}

/* A trace instance of its own, recording @event for pread64 only. */
static int peer_make(struct peer *p, const char *name, const char *event)
{
	char path[256];

	if (access(TRACEFS "/instances", W_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	snprintf(p->dir, sizeof(p->dir), TRACEFS "/instances/%s", name);
	p->event = event;
	rmdir(p->dir);
	if (mkdir(p->dir, 0700))
		return -errno;
	snprintf(path, sizeof(path), "%s/buffer_size_kb", p->dir);
	if (write_file(path, "2048"))
		return -errno;
	return peer_file(p, "filter", "id == " /* __NR_pread64 */ "17");
}

static int peer_on(struct peer *p)
{
	return peer_file(p, "enable", "1");
}

static int peer_off(struct peer *p)
{
	return peer_file(p, "enable", "0");
}

static void peer_drop(struct peer *p)
{
	peer_off(p);
	rmdir(p->dir);
}

/*
 * The lengths of @pid's pread64 calls the peer recorded: seen[len] counts
 * them. -1 if the trace cannot be read or the buffer dropped any record
 * (its header: "entries-in-buffer/entries-written: A/B", A < B).
 */
static int peer_seen(const struct peer *p, pid_t pid, int *seen)
{
	unsigned long in_buffer = 0, written = 1;
	char path[256], line[512], *at;
	long nr, val, a0, a1, a2;
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", p->dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, "entries-in-buffer/entries-written:");
		if (at) {
			sscanf(at, "entries-in-buffer/entries-written: %lu/%lu",
			       &in_buffer, &written);
			continue;
		}
		if (line[0] == '#')
			continue;
		/* "   comm-PID   [000] ..... 1.2: sys_exit: NR 17 = 16" */
		at = strstr(line, " [");
		if (!at)
			continue;
		while (at > line && at[-1] != '-')
			at--;
		if (atoi(at) != pid)
			continue;
		if (!strcmp(p->event, "sys_exit")) {
			at = strstr(line, "sys_exit: NR ");
			if (!at || sscanf(at, "sys_exit: NR %ld = %ld", &nr,
					  &val) != 2)
				continue;
		} else {
			at = strstr(line, "sys_enter: NR ");
			if (!at ||
			    sscanf(at, "sys_enter: NR %ld (%lx, %lx, %lx", &nr,
				   &a0, &a1, &a2) != 4)
				continue;
			val = a2;
		}
		if (nr == 17 && val >= 1 && val <= SPAN)
			seen[val]++;
	}
	fclose(f);
	if (in_buffer != written) {
		fprintf(stderr, "# %s: %lu of %lu records kept\n", p->dir,
			in_buffer, written);
		rc = -1;
	}
	return rc;
}

static size_t len_of(unsigned long i)
{
	return 1 + i % SPAN;
}

/* A file of SPAN bytes to pread from, unlinked; its descriptor. */
static int span_file(void)
{
	char path[] = "/tmp/ftsp.XXXXXX", buf[SPAN];
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	memset(buf, 'p', sizeof(buf));
	if (ft_write_all(fd, buf, sizeof(buf))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Calls number @from to @to - 1: each reads its own length. */
static int preads(int fd, unsigned long from, unsigned long to)
{
	static char buf[SPAN];
	unsigned long i;

	for (i = from; i < to; i++)
		if (pread(fd, buf, len_of(i), 0) != (ssize_t)len_of(i))
			return -1;
	return 0;
}

/* The bytes of calls @from .. @to - 1. */
static uint64_t bytes_of(unsigned long from, unsigned long to)
{
	uint64_t sum = 0;

	for (; from < to; from++)
		sum += len_of(from);
	return sum;
}

/* How many of calls @from .. @to - 1 (fewer than SPAN) the peer missed. */
static int missed(const int *seen, unsigned long from, unsigned long to)
{
	int n = 0;

	for (; from < to; from++)
		if (!seen[len_of(from)]) {
			if (n < 5)
				fprintf(stderr, "# call %lu (len %zu) unseen\n",
					from, len_of(from));
			n++;
		}
	return n;
}

/* ftagent's count of this process's reads of @fd since the last collect. */
static int ftagent_reads(int fd, struct ft_totals *t)
{
	struct ft_counters fc;
	int rc = ft_collect(&fc);

	if (rc)
		return rc;
	*t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	ft_counters_free(&fc);
	return 0;
}

/*
 * @calls preads made by this process while @p records: the peer saw each
 * exactly once, and ftagent counted them exactly. A child forked while
 * the peer is on does the same: a thread born after the peer came has the
 * bit too.
 */
static void both_see(struct __test_metadata *_metadata, struct peer *p, int fd)
{
	static int seen[SPAN + 1];
	struct ft_totals t;
	pid_t child;
	int status;

	ASSERT_EQ(0, ftagent_reads(fd, &t)); /* a window starts */
	ASSERT_EQ(0, preads(fd, 0, CALLS));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(preads(fd, 0, CALLS) ? 1 : 0);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);

	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, peer_seen(p, getpid(), seen));
	EXPECT_EQ(0, missed(seen, 0, CALLS));
	for (int i = 0; i < CALLS; i++) {
		EXPECT_EQ(1, seen[len_of(i)]);
	}
	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, peer_seen(p, child, seen));
	EXPECT_EQ(0, missed(seen, 0, CALLS));

	ASSERT_EQ(0, ftagent_reads(fd, &t));
	EXPECT_EQ(CALLS, t.in_calls);
	EXPECT_EQ(bytes_of(0, CALLS), t.in_bytes);
	EXPECT_EQ(0, t.in_errors);
}

/* ftagent alone again: it still counts exactly. */
static void ftagent_alone_counts(struct __test_metadata *_metadata, int fd)
{
	struct ft_totals t;

	ASSERT_EQ(0, ftagent_reads(fd, &t));
	ASSERT_EQ(0, preads(fd, 0, CALLS));
	ASSERT_EQ(0, ftagent_reads(fd, &t));
	EXPECT_EQ(CALLS, t.in_calls);
	EXPECT_EQ(bytes_of(0, CALLS), t.in_bytes);
}

static const char *const events[] = {"sys_exit", "sys_enter"};

TEST_RELOADS(a_peer_started_after_the_load_sees_every_call)
{
	struct peer p;
	int fd = span_file();

	ASSERT_LE(0, fd);
	for (int e = 0; e < 2; e++) {
		TH_LOG("peer on %s", events[e]);
		ASSERT_EQ(0, peer_make(&p, "ftagent_peer", events[e]));
		ASSERT_EQ(0, peer_on(&p));
		both_see(_metadata, &p, fd);
		peer_drop(&p);
		ftagent_alone_counts(_metadata, fd);
	}
	close(fd);
}

TEST_RELOADS(a_peer_started_before_the_load_sees_every_call)
{
	struct peer p;
	int fd = span_file();

	ASSERT_LE(0, fd);
	for (int e = 0; e < 2; e++) {
		TH_LOG("peer on %s", events[e]);
		ASSERT_EQ(0, ft_unload_module());
		ASSERT_EQ(0, peer_make(&p, "ftagent_peer", events[e]));
		ASSERT_EQ(0, peer_on(&p));
		ASSERT_EQ(0, ft_reload_module(NULL));
		both_see(_metadata, &p, fd);
		peer_drop(&p);
		ftagent_alone_counts(_metadata, fd);
	}
	close(fd);
}

TEST_RELOADS(a_peer_outlives_the_module)
{
	static int seen[SPAN + 1];
	struct peer p;
	int fd = span_file();

	ASSERT_LE(0, fd);
	for (int e = 0; e < 2; e++) {
		TH_LOG("peer on %s", events[e]);
		ASSERT_EQ(0, peer_make(&p, "ftagent_peer", events[e]));
		ASSERT_EQ(0, peer_on(&p));
		ASSERT_EQ(0, preads(fd, 0, CALLS / 2));
		ASSERT_EQ(0, ft_unload_module());
		ASSERT_EQ(0, preads(fd, CALLS / 2, CALLS));
		memset(seen, 0, sizeof(seen));
		ASSERT_EQ(0, peer_seen(&p, getpid(), seen));
		EXPECT_EQ(0, missed(seen, 0, CALLS));
		peer_drop(&p);
		ASSERT_EQ(0, ft_reload_module(NULL));
		ftagent_alone_counts(_metadata, fd);
	}
	close(fd);
}

struct racer {
	int fd;
	pid_t tid;
	atomic_ulong done; /* calls 0 .. done - 1 have returned */
	atomic_int stop;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	static char buf[SPAN];
	unsigned long i;

	r->tid = (pid_t)syscall(SYS_gettid);
	for (i = 0; !atomic_load(&r->stop); i++) {
		if (pread(r->fd, buf, len_of(i), 0) != (ssize_t)len_of(i))
			break;
		atomic_store(&r->done, i + 1);
	}
	return NULL;
}

/* Wait until the thread has made @n more calls; how many it has made. */
static unsigned long calls_after(struct racer *r, unsigned long n)
{
	unsigned long from = atomic_load(&r->done);

	while (atomic_load(&r->done) < from + n)
		usleep(1000);
	return atomic_load(&r->done);
}

/* Peer @p's record of calls @from .. @to - 1 of the thread: none missed. */
static void racer_seen(struct __test_metadata *_metadata, struct peer *p,
		       struct racer *r, unsigned long from, unsigned long to)
{
	static int seen[SPAN + 1];

	ASSERT_GT(SPAN, to - from);
	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, peer_seen(p, r->tid, seen));
	EXPECT_EQ(0, missed(seen, from, to));
}

/*
 * Peers come and go, on either tracepoint and overlapping, while a thread
 * makes calls without pause: each peer sees every call that began after
 * its enable returned and ended before its disable began, and ftagent
 * counts every call the thread made.
 */
/*
 * Twelve trace instances made and removed while the thread keeps a vCPU
 * busy: seconds on Debian's kernels, but on the KASAN and lockdep kernel
 * (make check-debug) one run went over TEST_RELOADS' 300 s.
 */
TEST_F_TIMEOUT(reload, peers_come_and_go_under_a_running_thread, 900)
{
	struct racer r = {.fd = span_file()};
	unsigned long a_from, b_from, b_to, a_to;
	struct peer a, b;
	struct ft_totals t;
	pthread_t th;

	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, ftagent_reads(r.fd, &t));
	ASSERT_EQ(0, pthread_create(&th, NULL, race, &r));
	for (int round = 0; round < 6; round++) {
		/* a spans b's life; the tracepoints swap every round. */
		ASSERT_EQ(0,
			  peer_make(&a, "ftagent_peer_a", events[round % 2]));
		ASSERT_EQ(0, peer_make(&b, "ftagent_peer_b",
				       events[1 - round % 2]));
		ASSERT_EQ(0, peer_on(&a));
		a_from = atomic_load(&r.done) + 1;
		calls_after(&r, 300);
		ASSERT_EQ(0, peer_on(&b));
		b_from = atomic_load(&r.done) + 1;
		b_to = calls_after(&r, 300);
		ASSERT_EQ(0, peer_off(&b));
		a_to = calls_after(&r, 300);
		ASSERT_EQ(0, peer_off(&a));
		racer_seen(_metadata, &b, &r, b_from, b_to);
		racer_seen(_metadata, &a, &r, a_from, a_to);
		peer_drop(&a);
		peer_drop(&b);
	}
	atomic_store(&r.stop, 1);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, ftagent_reads(r.fd, &t));
	EXPECT_EQ(atomic_load(&r.done), t.in_calls);
	EXPECT_EQ(bytes_of(0, atomic_load(&r.done)), t.in_bytes);
	EXPECT_EQ(0, t.in_errors);
	close(r.fd);
}

TEST_HARNESS_MAIN
