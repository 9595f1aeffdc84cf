// SPDX-License-Identifier: GPL-2.0
/*
 * A counter table that is too small: with kernel_counters=64 a CPU's table
 * holds 64 keys per generation. Reading 100 distinct files on one CPU in
 * one generation must keep exactly the keys that fit and count every key
 * that didn't as lost{counter_table}: kept + lost == 100, exactly.
 *
 * Reloads the module (flush_interval_ms=0 so no timer splits the window)
 * and restores the runner's parameters at the end.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "reload_test.h"

#define FILES	 100
#define CAPACITY 64

TEST_RELOADS(lost_equals_the_keys_that_did_not_fit)
{
	struct ft_counters fc;
	struct ft_totals t;
	int fds[FILES], i, kept = 0, not_ours;
	char path[64], c = 'k';
	cpu_set_t set;

	ASSERT_EQ(0,
		  ft_reload_module("kernel_counters=64 flush_interval_ms=0"));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "/tmp/fttf.%d.%d", getpid(), i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(1, write(fds[i], &c, 1));
		unlink(path);
	}
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);

	for (i = 0; i < FILES; i++)
		ASSERT_EQ(1, pread(fds[i], &c, 1, 0));

	ASSERT_EQ(0, ft_collect(&fc));
	for (i = 0; i < FILES; i++) {
		t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fds[i]);
		if (t.records) {
			EXPECT_EQ(1, t.in_bytes);
			kept++;
		}
	}
	/* Our other keys in that generation (the netlink socket). */
	not_ours = fc.entries_on_cpu[0] - kept;
	EXPECT_EQ(CAPACITY, fc.entries_on_cpu[0]);
	EXPECT_EQ(CAPACITY - not_ours, kept);
	EXPECT_EQ(FILES - kept, fc.lost[FTAGENT_LOSS_COUNTER_TABLE]);
	TH_LOG("kept %d, lost %lu, other keys %d", kept,
	       (unsigned long)fc.lost[FTAGENT_LOSS_COUNTER_TABLE], not_ours);
	ft_counters_free(&fc);
	for (i = 0; i < FILES; i++)
		close(fds[i]);
	EXPECT_EQ(0, ft_reload_module(NULL));
}

TEST_HARNESS_MAIN
