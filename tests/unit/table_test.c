// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded LRU table: lookups, use order, eviction of the row idle
 * the longest (and only that one), and its count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/table.h"

struct row {
	uint32_t key;
	uint32_t value;
};

static void *get(struct ftd_table *t, uint32_t key, int *created)
{
	return ftd_table_get(t, &key, created);
}

static void finds_what_it_holds(void **state)
{
	struct ftd_table t;
	struct row *r;
	uint32_t k;
	int created;

	(void)state;
	assert_int_equal(0, ftd_table_init(&t, "t", 1000, 4, sizeof(*r)));
	for (k = 1; k <= 1000; k++) {
		r = get(&t, k, &created);
		assert_true(created);
		r->value = k * 3;
	}
	assert_int_equal(1000, t.used);
	for (k = 1; k <= 1000; k++) {
		r = ftd_table_find(&t, &k);
		assert_non_null(r);
		assert_int_equal(k * 3, r->value);
	}
	k = 1001;
	assert_null(ftd_table_find(&t, &k));
	r = get(&t, 5, &created);
	assert_false(created);
	assert_int_equal(15, r->value);
	assert_int_equal(0, t.evicted);
	ftd_table_free(&t);
}

static uint32_t evicted_key;

static void note_eviction(void *row, void *arg)
{
	(void)arg;
	evicted_key = ((struct row *)row)->key;
}

static void evicts_the_row_idle_the_longest(void **state)
{
	struct ftd_table t;
	struct row *r;
	uint32_t k;

	(void)state;
	assert_int_equal(0, ftd_table_init(&t, "t", 4, 4, sizeof(*r)));
	t.on_evict = note_eviction;
	for (k = 1; k <= 4; k++)
		get(&t, k, NULL);
	/* Use 1 and 2 again: 3 is now the one idle the longest. */
	get(&t, 1, NULL);
	get(&t, 2, NULL);
	r = get(&t, 5, NULL);
	assert_int_equal(5, r->key);
	assert_int_equal(0, r->value); /* a new row starts zeroed */
	assert_int_equal(3, evicted_key);
	assert_int_equal(1, t.evicted);
	assert_int_equal(4, t.used);
	k = 3;
	assert_null(ftd_table_find(&t, &k));
	/* Touching keeps a row: 4 goes next, then 1. */
	get(&t, 6, NULL);
	assert_int_equal(4, evicted_key);
	get(&t, 7, NULL);
	assert_int_equal(1, evicted_key);
	assert_int_equal(3, t.evicted);
	ftd_table_free(&t);
}

static void walks_oldest_first_and_removes(void **state)
{
	struct ftd_table t;
	struct row *r;
	uint32_t k, expect[] = {2, 3, 1}, n = 0;

	(void)state;
	assert_int_equal(0, ftd_table_init(&t, "t", 8, 4, sizeof(*r)));
	for (k = 1; k <= 3; k++)
		get(&t, k, NULL);
	ftd_table_touch(&t, get(&t, 1, NULL));
	for (r = ftd_table_first(&t); r; r = ftd_table_next_row(&t, r))
		assert_int_equal(expect[n++], r->key);
	assert_int_equal(3, n);
	k = 3;
	ftd_table_remove(&t, ftd_table_find(&t, &k));
	assert_null(ftd_table_find(&t, &k));
	assert_int_equal(2, t.used);
	assert_int_equal(0, t.evicted);
	/* The freed row is reused without evicting anything. */
	for (k = 10; k < 16; k++)
		get(&t, k, NULL);
	assert_int_equal(8, t.used);
	assert_int_equal(0, t.evicted);
	ftd_table_free(&t);
}

static void many_collisions_stay_exact(void **state)
{
	struct ftd_table t;
	struct row *r;
	uint32_t k;

	(void)state;
	/* A long run of churn through a small table. */
	assert_int_equal(0, ftd_table_init(&t, "t", 64, 4, sizeof(*r)));
	for (k = 0; k < 100000; k++) {
		r = get(&t, k, NULL);
		r->value = k;
	}
	assert_int_equal(64, t.used);
	assert_int_equal(100000 - 64, t.evicted);
	for (k = 100000 - 64; k < 100000; k++) {
		r = ftd_table_find(&t, &k);
		assert_non_null(r);
		assert_int_equal(k, r->value);
	}
	ftd_table_free(&t);
}

static void refuses_bad_sizes(void **state)
{
	struct ftd_table t;

	(void)state;
	assert_int_equal(-1, ftd_table_init(&t, "t", 0, 4, 8));
	assert_int_equal(-1, ftd_table_init(&t, "t", 8, 0, 8));
	assert_int_equal(-1, ftd_table_init(&t, "t", 8, 16, 8));
}

/*
 * Memory comes a chunk at a time as rows are used, never past the
 * capacity, and a row does not move while the table grows.
 */
static void grows_with_use_up_to_capacity(void **state)
{
	struct ftd_table t;
	struct row *first;
	uint32_t k;

	(void)state;
	assert_int_equal(0, ftd_table_init(&t, "t", 200, 4, sizeof(*first)));
	assert_true(t.allocated < 200);
	first = get(&t, 1, NULL);
	first->value = 7;
	for (k = 2; k <= 200; k++)
		get(&t, k, NULL);
	assert_int_equal(200, t.allocated);
	assert_int_equal(0, t.evicted);
	k = 1;
	assert_ptr_equal(first, ftd_table_find(&t, &k));
	assert_int_equal(7, first->value);
	for (k = 201; k <= 300; k++)
		get(&t, k, NULL);
	assert_int_equal(200, t.allocated);
	assert_int_equal(200, t.used);
	assert_int_equal(100, t.evicted);
	k = 100;
	assert_null(ftd_table_find(&t, &k));
	k = 101;
	assert_non_null(ftd_table_find(&t, &k));
	ftd_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_what_it_holds),
		cmocka_unit_test(evicts_the_row_idle_the_longest),
		cmocka_unit_test(walks_oldest_first_and_removes),
		cmocka_unit_test(many_collisions_stay_exact),
		cmocka_unit_test(refuses_bad_sizes),
		cmocka_unit_test(grows_with_use_up_to_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
