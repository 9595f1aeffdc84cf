// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded LRU table: chained hash over preallocated rows, plus a doubly
 * linked use order. Indexes are stored as index + 1 so that 0 means none
 * and calloc'd arrays start out empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "table.h"

#define ROW(t, i) ((void *)((t)->rows + (size_t)(i) * (t)->row_size))

static uint32_t row_index(const struct ftd_table *t, const void *row)
{
	return (uint32_t)(((const unsigned char *)row - t->rows) / t->row_size);
}

static uint32_t bucket_of(const struct ftd_table *t, const void *key)
{
	return (uint32_t)(XXH64(key, t->key_size, 0) & (t->n_buckets - 1));
}

int ftd_table_init(struct ftd_table *t, const char *name, size_t capacity,
		   size_t key_size, size_t row_size)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	if (!capacity || capacity > (1u << 28) || !key_size ||
	    row_size < key_size) {
		errno = EINVAL;
		return -1;
	}
	t->name = name;
	t->capacity = capacity;
	t->key_size = key_size;
	t->row_size = row_size;
	/* At most two rows per bucket on average, a power of two. */
	t->n_buckets = 1;
	while (t->n_buckets < capacity / 2 + 1)
		t->n_buckets <<= 1;
	t->rows = calloc(capacity, row_size);
	t->bucket = calloc(t->n_buckets, sizeof(*t->bucket));
	t->next = calloc(capacity, sizeof(*t->next));
	t->lru_prev = calloc(capacity, sizeof(*t->lru_prev));
	t->lru_next = calloc(capacity, sizeof(*t->lru_next));
	if (!t->rows || !t->bucket || !t->next || !t->lru_prev ||
	    !t->lru_next) {
		ftd_table_free(t);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < capacity; i++)
		t->next[i] = i + 2 <= capacity ? i + 2 : 0;
	t->free_head = 1;
	return 0;
}

void ftd_table_free(struct ftd_table *t)
{
	free(t->rows);
	free(t->bucket);
	free(t->next);
	free(t->lru_prev);
	free(t->lru_next);
	t->rows = NULL;
	t->bucket = t->next = t->lru_prev = t->lru_next = NULL;
	t->used = 0;
}

void *ftd_table_find(const struct ftd_table *t, const void *key)
{
	uint32_t i = t->bucket[bucket_of(t, key)];

	for (; i; i = t->next[i - 1])
		if (!memcmp(ROW(t, i - 1), key, t->key_size))
			return ROW(t, i - 1);
	return NULL;
}

static void lru_unlink(struct ftd_table *t, uint32_t i)
{
	uint32_t p = t->lru_prev[i], n = t->lru_next[i];

	if (p)
		t->lru_next[p - 1] = n;
	else
		t->oldest = n;
	if (n)
		t->lru_prev[n - 1] = p;
	else
		t->newest = p;
	t->lru_prev[i] = t->lru_next[i] = 0;
}

static void lru_append(struct ftd_table *t, uint32_t i)
{
	t->lru_prev[i] = t->newest;
	t->lru_next[i] = 0;
	if (t->newest)
		t->lru_next[t->newest - 1] = i + 1;
	else
		t->oldest = i + 1;
	t->newest = i + 1;
}

static void hash_unlink(struct ftd_table *t, uint32_t i)
{
	uint32_t *link = &t->bucket[bucket_of(t, ROW(t, i))];

	while (*link && *link != i + 1)
		link = &t->next[*link - 1];
	if (*link)
		*link = t->next[i];
	t->next[i] = 0;
}

static void release(struct ftd_table *t, uint32_t i)
{
	hash_unlink(t, i);
	lru_unlink(t, i);
	t->next[i] = t->free_head;
	t->free_head = i + 1;
	t->used--;
}

void ftd_table_touch(struct ftd_table *t, void *row)
{
	uint32_t i = row_index(t, row);

	if (t->newest == i + 1)
		return;
	lru_unlink(t, i);
	lru_append(t, i);
}

void *ftd_table_get(struct ftd_table *t, const void *key, int *created)
{
	void *row = ftd_table_find(t, key);
	uint32_t i, b;

	if (row) {
		if (created)
			*created = 0;
		ftd_table_touch(t, row);
		return row;
	}
	if (!t->free_head) {
		/* Full: the row idle the longest makes room. */
		i = t->oldest - 1;
		if (t->on_evict)
			t->on_evict(ROW(t, i), t->evict_arg);
		release(t, i);
		t->evicted++;
	}
	i = t->free_head - 1;
	t->free_head = t->next[i];
	row = ROW(t, i);
	memset(row, 0, t->row_size);
	memcpy(row, key, t->key_size);
	b = bucket_of(t, key);
	t->next[i] = t->bucket[b];
	t->bucket[b] = i + 1;
	lru_append(t, i);
	t->used++;
	t->inserted++;
	if (created)
		*created = 1;
	return row;
}

void ftd_table_remove(struct ftd_table *t, void *row)
{
	release(t, row_index(t, row));
}

void *ftd_table_first(const struct ftd_table *t)
{
	return t->oldest ? ROW(t, t->oldest - 1) : NULL;
}

void *ftd_table_next_row(const struct ftd_table *t, const void *row)
{
	uint32_t n = t->lru_next[row_index(t, row)];

	return n ? ROW(t, n - 1) : NULL;
}
