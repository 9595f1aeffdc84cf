// SPDX-License-Identifier: GPL-2.0
/*
 * Tables under pressure: 30,000 threads blocked in read() on a pipe.
 *
 * Each blocked call holds the module's record of a call in flight (a
 * pending-table slot with the ftrace set, a kretprobe instance with the
 * kprobe set). While they wait, other threads' calls must still be
 * counted exactly. When they are released, the ftrace set counts every
 * one of the 30,000 reads; the kprobe set holds 1,024 reads in flight
 * (maxactive), so it misses the rest, and must say so: the read hook's
 * missed count makes up the difference exactly (docs/hooks.md).
 *
 * Needs a guest with memory for 30,000 threads (threads-max follows
 * memory: 4 GB); tests/run-check gives the selftest guests that.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "../../tools/lib/counters.h"
#include "../../tools/lib/ftnl.h"

#define BLOCKED 30000
#define WORKERS 4
#define PREADS	250 /* per worker */

static int pipe_fds[2];
static atomic_int readers_started;

static void *blocked_reader(void *arg)
{
	char c;

	(void)arg;
	atomic_fetch_add(&readers_started, 1);
	return (void *)(long)read(pipe_fds[0], &c, 1);
}

struct worker {
	pthread_t thread;
	int fd;
	int failed;
};

static void *pread_worker(void *arg)
{
	struct worker *w = arg;
	char c;
	int i;

	for (i = 0; i < PREADS; i++)
		if (pread(w->fd, &c, 1, 0) != 1)
			w->failed++;
	return NULL;
}

/* How many of this process's threads sit in read() (syscall 0) now. */
static int threads_in_read(void)
{
	struct dirent *d;
	char path[300], buf[32];
	int n = 0, fd;
	DIR *dir = opendir("/proc/self/task");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		ssize_t len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall",
			 d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		/* pread: a read() here would be one of the kprobe set's. */
		len = pread(fd, buf, sizeof(buf) - 1, 0);
		close(fd);
		if (len > 2 && buf[0] == '0' && buf[1] == ' ')
			n++;
	}
	closedir(dir);
	return n;
}

/* The read hook's missed count (kprobe set), from GET_RESOURCES. */
static int read_hook_missed(uint64_t *missed)
{
	struct ftagent_resources res = {0};
	struct ftnl_error err;
	struct ftnl nl;
	size_t i;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_STATS_NAME, &err) < 0)
		return -1;
	rc = ftagent_get_resources(&nl, &res, &err);
	ftnl_close(&nl);
	if (rc)
		return -1;
	rc = -1;
	for (i = 0; i < res.n_hooks; i++) {
		if (!strcmp(res.hook[i].name, "__x64_sys_read")) {
			*missed = res.hook[i].missed;
			rc = 0;
		}
	}
	ftagent_resources_free(&res);
	return rc;
}

static int kprobe_set(void)
{
	const char *p = getenv("FTAGENT_PARAMS");

	return p && strstr(p, "hooks=kprobe");
}

FIXTURE(blocked)
{
	int unused;
};

FIXTURE_SETUP(blocked)
{
}

FIXTURE_TEARDOWN(blocked)
{
}

TEST_F_TIMEOUT(blocked, readers_leave_room_for_every_other_call, 1800)
{
	static pthread_t readers[BLOCKED];
	struct worker workers[WORKERS];
	struct ft_counters fc = {0};
	struct ft_totals t;
	uint64_t missed_before = 0, missed_after = 0;
	pthread_attr_t attr;
	char path[64], c = 'x', *bytes;
	int i, n, file, blocked = 0;
	time_t deadline;

	/* Enough pids; threads-max itself follows the guest's memory. */
	n = open("/proc/sys/kernel/pid_max", O_WRONLY);
	ASSERT_LE(0, n);
	ASSERT_EQ(7, write(n, "4194304", 7));
	close(n);

	ASSERT_EQ(0, pipe(pipe_fds));
	snprintf(path, sizeof(path), "/tmp/ftblocked.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(1, write(file, &c, 1));
	unlink(path);
	if (kprobe_set())
		ASSERT_EQ(0, read_hook_missed(&missed_before));

	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 32 << 10));
	for (i = 0; i < BLOCKED; i++) {
		n = pthread_create(&readers[i], &attr, blocked_reader, NULL);
		ASSERT_EQ(0, n)
		TH_LOG("thread %d: %s (threads-max too low? the guest needs 4 "
		       "GB)",
		       i, strerror(n));
	}
	/* Every one of them inside read(), as the kernel says. */
	deadline = time(NULL) + 600;
	while (time(NULL) < deadline) {
		blocked = threads_in_read();
		if (blocked == BLOCKED)
			break;
		sleep(1);
	}
	ASSERT_EQ(BLOCKED, blocked);

	/* Other threads' calls meanwhile: counted, every one. */
	for (i = 0; i < WORKERS; i++) {
		workers[i].fd = file;
		workers[i].failed = 0;
		ASSERT_EQ(0, pthread_create(&workers[i].thread, NULL,
					    pread_worker, &workers[i]));
	}
	for (i = 0; i < WORKERS; i++) {
		pthread_join(workers[i].thread, NULL);
		EXPECT_EQ(0, workers[i].failed);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, file);
	EXPECT_EQ(WORKERS * PREADS, t.in_calls);
	EXPECT_EQ(WORKERS * PREADS, t.in_bytes);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	ft_counters_free(&fc);

	/* Release them: one byte each. */
	bytes = malloc(BLOCKED);
	ASSERT_NE(NULL, bytes);
	memset(bytes, 'r', BLOCKED);
	ASSERT_EQ(0, ft_write_all(pipe_fds[1], bytes, BLOCKED));
	free(bytes);
	for (i = 0; i < BLOCKED; i++) {
		void *ret;

		pthread_join(readers[i], &ret);
		EXPECT_EQ(1, (long)ret);
	}

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, pipe_fds[0]);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	if (!kprobe_set()) {
		EXPECT_EQ(BLOCKED, t.in_calls);
		EXPECT_EQ(BLOCKED, t.in_bytes);
	} else {
		/* What the kprobe set could not hold, it says it missed. */
		ASSERT_EQ(0, read_hook_missed(&missed_after));
		EXPECT_EQ(t.in_bytes, t.in_calls);
		EXPECT_EQ(BLOCKED, t.in_calls + (missed_after - missed_before))
		TH_LOG("%lu counted, %lu missed", (unsigned long)t.in_calls,
		       (unsigned long)(missed_after - missed_before));
		EXPECT_LT(0, missed_after - missed_before);
	}
	ft_counters_free(&fc);
	close(file);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

TEST_HARNESS_MAIN
