// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads, each pinned to its own CPU, pread the same file at the
 * same time, 50,000 calls each: the per-CPU tables each hold part of the
 * count, and the sum is exactly 100,000 calls and their bytes.
 */
#include <pthread.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

#define CALLS 50000
#define SIZE  4096

struct worker {
	int fd, cpu;
	long bytes, failures;
};

static void *preader(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	char buf[SIZE];
	int i;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		w->failures++;
	for (i = 0; i < CALLS; i++) {
		ssize_t n = pread(w->fd, buf, SIZE, (i % 16) * SIZE);

		if (n != SIZE)
			w->failures++;
		else
			w->bytes += n;
	}
	return NULL;
}

TEST(two_threads_two_cpus_sum_exactly)
{
	struct worker w[2];
	struct ft_counters fc;
	struct ft_totals t;
	char path[] = "/tmp/ftth.XXXXXX", buf[SIZE];
	int cpus_seen[2] = {0, 0};
	pthread_t th[2];
	size_t i;
	int fd, k;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	memset(buf, 't', sizeof(buf));
	for (k = 0; k < 16; k++)
		ASSERT_EQ(0, ft_write_all(fd, buf, SIZE));
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	for (k = 0; k < 2; k++) {
		w[k] = (struct worker){.fd = fd, .cpu = k};
		ASSERT_EQ(0, pthread_create(&th[k], NULL, preader, &w[k]));
	}
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_join(th[k], NULL));
	ASSERT_EQ(0, w[0].failures + w[1].failures);

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	EXPECT_EQ(2L * CALLS * SIZE, t.in_bytes);
	EXPECT_EQ(2 * CALLS, t.in_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_RECURSION]);
	for (i = 0; i < fc.n; i++)
		if (fc.c[i].kind == FTAGENT_OBJ_FILE && fc.c[i].cpu < 2 &&
		    fc.c[i].in.calls)
			cpus_seen[fc.c[i].cpu] = 1;
	/* Both CPUs' tables took part. */
	EXPECT_EQ(1, cpus_seen[0]);
	EXPECT_EQ(1, cpus_seen[1]);
	ft_counters_free(&fc);
	unlink(path);
}

TEST_HARNESS_MAIN
