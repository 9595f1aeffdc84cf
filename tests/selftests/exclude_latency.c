// SPDX-License-Identifier: GPL-2.0
/*
 * The exclusion set never keeps interrupts off: not for the rebuild that
 * SET_FILTERS runs over every task, nor for a compaction inside the
 * rename and fork tracepoints, which any user can drive.
 *
 * First the filters are replaced 5 times with 500 extra tasks alive, then
 * 5 times with 2000: the longest hold of the exclusion lock is printed
 * after each, so a reader sees whether it grows with the tasks (the
 * rebuild walks them outside the lock: it must not). Then, with the 2000
 * tasks alive, four storms fork 1000 children each that take an excluded
 * name and exit (their tombstones force compactions), while the filters
 * are replaced 10 times more. The module's debug figures (kmod/filters.c)
 * then say how long the exclusion lock was held at most, and how long
 * with interrupts off; the latter must be 0. Figures are printed, not
 * judged: timing under QEMU TCG is no ground for a verdict.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define IDLE_FEW 500
#define IDLE	 2000
#define REBUILDS 5
#define STORMS	 4
#define FORKS	 1000
#define SWAPS	 10
#define NAME	 "ftlatency"

static unsigned long param(const char *name)
{
	char path[128];
	unsigned long v = ~0ul;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ftagent/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return ~0ul;
	if (fscanf(f, "%lu", &v) != 1)
		v = ~0ul;
	fclose(f);
	return v;
}

static void storm(void)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < FORKS; i++) {
		pid = fork();
		if (pid == 0) {
			prctl(PR_SET_NAME, NAME);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			_exit(1);
	}
	_exit(0);
}

/* Rebuild the exclusion set REBUILDS times (a toggle flips each time). */
static void rebuilds(struct ftagent_filters *f)
{
	struct ftnl_error err;
	int i;

	for (i = 0; i < REBUILDS; i++) {
		ftagent_filters_set_toggle(f, FTAGENT_FILTER_NET_UDP, i % 2);
		if (ev_set_filters(f, &err))
			fprintf(stderr, "# SET_FILTERS: %s\n", err.msg);
	}
}

FIXTURE(storm)
{
	int unused;
};

FIXTURE_SETUP(storm)
{
}

FIXTURE_TEARDOWN(storm)
{
}

/* QEMU TCG forks slowly: the storm takes minutes there. */
TEST_F_TIMEOUT(storm, no_interrupts_off_under_a_rename_and_fork_storm, 900)
{
	pid_t idle[IDLE], storms[STORMS];
	struct ftagent_filters f;
	struct ftnl_error err;
	int i, status;

	ftagent_filters_init(&f);
	ftagent_filter_list_add(&f.exclude_processes, NAME, strlen(NAME));
	ASSERT_EQ(0, ev_set_filters(&f, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < IDLE; i++) {
		idle[i] = fork();
		ASSERT_LE(0, idle[i]);
		if (idle[i] == 0) {
			pause();
			_exit(0);
		}
		if (i + 1 != IDLE_FEW && i + 1 != IDLE)
			continue;
		rebuilds(&f);
		TH_LOG("%d idle tasks, %d rebuilds: exclusion lock held at "
		       "most %lu ns",
		       i + 1, REBUILDS, param("debug_excl_held_max_ns"));
	}
	for (i = 0; i < STORMS; i++) {
		storms[i] = fork();
		ASSERT_LE(0, storms[i]);
		if (storms[i] == 0)
			storm();
	}
	for (i = 0; i < SWAPS; i++) {
		ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_UDP, i % 2);
		EXPECT_EQ(0, ev_set_filters(&f, &err)) TH_LOG("%s", err.msg);
		usleep(100000);
	}
	for (i = 0; i < STORMS; i++) {
		ASSERT_EQ(storms[i], waitpid(storms[i], &status, 0));
		EXPECT_EQ(0, status);
	}
	for (i = 0; i < IDLE; i++) {
		kill(idle[i], SIGKILL);
		waitpid(idle[i], &status, 0);
	}
	ftagent_filters_free(&f);
	ASSERT_EQ(0, ftagent_filters_defaults(&f));
	ev_set_filters(&f, &err);
	ftagent_filters_free(&f);
	TH_LOG("exclusion lock held at most %lu ns, with interrupts off at "
	       "most %lu ns",
	       param("debug_excl_held_max_ns"),
	       param("debug_excl_irqsoff_max_ns"));
	EXPECT_NE(~0ul, param("debug_excl_held_max_ns"));
	EXPECT_EQ(0, param("debug_excl_irqsoff_max_ns"));
}

TEST_HARNESS_MAIN
