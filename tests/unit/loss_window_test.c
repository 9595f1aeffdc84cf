// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the daemon's loss window: the growth over the last hour,
 * a shorter window said as such while the daemon is young, one sample a
 * minute at most, and a ring that wraps without losing the hour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/loss_window.h"

#define S(x) ((uint64_t)(x)*1000000000ull)

static void nothing_noted_is_no_answer(void **state)
{
	struct ftd_loss_window w;
	uint64_t win, ev, ct;

	(void)state;
	memset(&w, 0, sizeof(w));
	assert_int_equal(
		-1, ftd_loss_window_growth(&w, S(10), 0, 0, &win, &ev, &ct));
}

static void young_daemon_counts_since_its_first_note(void **state)
{
	struct ftd_loss_window w;
	uint64_t win, ev, ct;

	(void)state;
	memset(&w, 0, sizeof(w));
	/* 500 lost before the daemon came: not in the window. */
	ftd_loss_window_note(&w, S(100), 500, 7);
	assert_int_equal(
		0, ftd_loss_window_growth(&w, S(700), 530, 9, &win, &ev, &ct));
	assert_int_equal(600, win);
	assert_int_equal(30, ev);
	assert_int_equal(2, ct);
}

static void notes_closer_than_a_minute_are_not_kept(void **state)
{
	struct ftd_loss_window w;

	(void)state;
	memset(&w, 0, sizeof(w));
	ftd_loss_window_note(&w, S(0), 0, 0);
	ftd_loss_window_note(&w, S(59), 1, 0);
	assert_int_equal(1, w.n);
	ftd_loss_window_note(&w, S(60), 1, 0);
	assert_int_equal(2, w.n);
}

static void old_losses_leave_the_window(void **state)
{
	struct ftd_loss_window w;
	uint64_t win, ev, ct, t;

	(void)state;
	memset(&w, 0, sizeof(w));
	/* 1000 lost in the first minute, then nothing for three hours. */
	ftd_loss_window_note(&w, S(0), 0, 0);
	for (t = 60; t <= 3 * 3600; t += 60)
		ftd_loss_window_note(&w, S(t), 1000, 0);
	assert_int_equal(FTD_LOSS_WINDOW_SAMPLES, w.n);
	assert_int_equal(0, ftd_loss_window_growth(&w, S(3 * 3600 + 30), 1000,
						   0, &win, &ev, &ct));
	assert_int_equal(0, ev);
	/* The baseline is the newest note at least an hour old. */
	assert_true(win >= 3600 && win < 3600 + 60);
	/* A loss now shows at once. */
	assert_int_equal(0, ftd_loss_window_growth(&w, S(3 * 3600 + 30), 1004,
						   3, &win, &ev, &ct));
	assert_int_equal(4, ev);
	assert_int_equal(3, ct);
}

static void sparse_notes_give_a_longer_window_said_as_such(void **state)
{
	struct ftd_loss_window w;
	uint64_t win, ev, ct;

	(void)state;
	memset(&w, 0, sizeof(w));
	/* Nothing noted for five hours (the daemon was stopped, say). */
	ftd_loss_window_note(&w, S(0), 10, 0);
	assert_int_equal(0, ftd_loss_window_growth(&w, S(5 * 3600), 15, 0, &win,
						   &ev, &ct));
	assert_int_equal(5 * 3600, win);
	assert_int_equal(5, ev);
}

static void totals_that_went_down_count_from_zero(void **state)
{
	struct ftd_loss_window w;
	uint64_t win, ev, ct;

	(void)state;
	memset(&w, 0, sizeof(w));
	ftd_loss_window_note(&w, S(0), 900, 0); /* the module was reloaded */
	assert_int_equal(
		0, ftd_loss_window_growth(&w, S(120), 4, 0, &win, &ev, &ct));
	assert_int_equal(4, ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_noted_is_no_answer),
		cmocka_unit_test(young_daemon_counts_since_its_first_note),
		cmocka_unit_test(notes_closer_than_a_minute_are_not_kept),
		cmocka_unit_test(old_losses_leave_the_window),
		cmocka_unit_test(
			sparse_notes_give_a_longer_window_said_as_such),
		cmocka_unit_test(totals_that_went_down_count_from_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
