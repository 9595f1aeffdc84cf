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
 * Needs a guest with memory for 30,000 threads (about a GB of kernel
 * stacks and task structs: tests/run-check gives the selftest guests
 * 4.5 GB); threads-max and pid_max are raised for the test and put back.
 * The kprobe set's figure is exact on a quiet guest: the read hook is
 * system-wide, so another process's read() while the instances are all
 * taken would add to missed (run-check's guests run nothing else).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "../../tools/lib/counters.h"
#include "../../tools/lib/ftnl.h"

#define BLOCKED 30000
#define WORKERS 4
#define PREADS	250 /* per worker */

static int pipe_fds[2];

static void *blocked_reader(void *arg)
{
	char c;

	(void)arg;
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
	DIR *dir = opendir("/proc/self/task");
	struct dirent *d;
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' &&
		    ft_thread_in_syscall(atoi(d->d_name), SYS_read, 0))
			n++;
	closedir(dir);
	return n;
}

/*
 * The hook set running, and the read hook's missed count (what the
 * kprobe set could not hold), from GET_RESOURCES.
 */
static int read_hook(uint32_t *hooks, uint64_t *missed)
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
	*hooks = res.hooks;
	for (i = 0; i < res.n_hooks; i++) {
		if (!strcmp(res.hook[i].name, "__x64_sys_read")) {
			*missed = res.hook[i].missed;
			rc = 0;
		}
	}
	ftagent_resources_free(&res);
	return rc;
}

/* Write @value to sysctl @path, keeping the old value in @old. */
static int sysctl_swap(const char *path, const char *value, char *old,
		       size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return -1;
	n = read(fd, old, size - 1);
	if (n <= 0) {
		close(fd);
		return -1;
	}
	old[n] = '\0';
	n = pwrite(fd, value, strlen(value), 0);
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static void sysctl_put_back(const char *path, const char *old)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, old, strlen(old)) < 0)
			perror(path);
		close(fd);
	}
}

FIXTURE(blocked)
{
	char old_pid_max[32], old_threads_max[32];
};

FIXTURE_SETUP(blocked)
{
	int pid_max, threads_max;

	/*
	 * Room for the threads: the defaults follow the guest's memory.
	 * Both are tried before either is asserted: a failed setup skips
	 * the teardown that puts them back.
	 */
	pid_max = sysctl_swap("/proc/sys/kernel/pid_max", "4194304",
			      self->old_pid_max, sizeof(self->old_pid_max));
	threads_max = sysctl_swap("/proc/sys/kernel/threads-max", "100000",
				  self->old_threads_max,
				  sizeof(self->old_threads_max));
	if (pid_max || threads_max) {
		if (!pid_max)
			sysctl_put_back("/proc/sys/kernel/pid_max",
					self->old_pid_max);
		if (!threads_max)
			sysctl_put_back("/proc/sys/kernel/threads-max",
					self->old_threads_max);
	}
	ASSERT_EQ(0, pid_max);
	ASSERT_EQ(0, threads_max);
}

/* Put back whatever happened in the test. */
FIXTURE_TEARDOWN(blocked)
{
	if (self->old_threads_max[0])
		sysctl_put_back("/proc/sys/kernel/threads-max",
				self->old_threads_max);
	if (self->old_pid_max[0])
		sysctl_put_back("/proc/sys/kernel/pid_max", self->old_pid_max);
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
	uint32_t hooks = 0;
	time_t deadline;

	ASSERT_EQ(0, pipe(pipe_fds));
	snprintf(path, sizeof(path), "/tmp/ftblocked.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(1, write(file, &c, 1));
	unlink(path);
	ASSERT_EQ(0, read_hook(&hooks, &missed_before));

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
	/*
	 * Reading 30,000 /proc files is 30,000 objects: more than a CPU's
	 * counter table holds (counted as counter_table losses). Start the
	 * calls below on a fresh generation.
	 */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

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
	for (i = 0; i < __FTAGENT_LOSS_MAX; i++)
		if (fc.lost[i])
			TH_LOG("lost %s: %lu", ftagent_loss_name(i),
			       (unsigned long)fc.lost[i]);
	EXPECT_EQ(WORKERS * PREADS, t.in_calls);
	EXPECT_EQ(WORKERS * PREADS, t.in_bytes);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_PENDING_TABLE]);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
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
	if (hooks != FTAGENT_HOOKS_KPROBE) {
		EXPECT_EQ(BLOCKED, t.in_calls);
		EXPECT_EQ(BLOCKED, t.in_bytes);
	} else {
		/* What the kprobe set could not hold, it says it missed. */
		ASSERT_EQ(0, read_hook(&hooks, &missed_after));
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
