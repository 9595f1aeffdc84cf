// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded LRU table: chained hash over rows held in fixed-size chunks,
 * plus a doubly linked use order. Indexes are stored as index + 1 so that
 * 0 means none and calloc'd arrays start out empty.
 *
 * Memory grows with the rows in use, up to the capacity: a chunk of rows
 * is added when every allocated row is taken, and the index arrays and
 * hash buckets grow with it. Chunks never move, so a row's address stays
 * valid until the row is removed or evicted. Each slot holds the row,
 * then the row's own index, so a row pointer maps back to its index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "table.h"

#define CHUNK_SHIFT 6 /* 64 rows per chunk */
#define CHUNK_ROWS  (1u << CHUNK_SHIFT)

static void *slot(const struct ftd_table *t, uint32_t i)
{
	return t->chunk[i >> CHUNK_SHIFT] +
	       (size_t)(i & (CHUNK_ROWS - 1)) * t->slot_size;
}

#define ROW(t, i) slot(t, i)

static uint32_t row_index(const struct ftd_table *t, const void *row)
{
	uint32_t i;

	memcpy(&i, (const unsigned char *)row + t->row_size, sizeof(i));
	return i;
}

static uint32_t bucket_of(const struct ftd_table *t, const void *key)
{
	return (uint32_t)(XXH64(key, t->key_size, 0) & (t->n_buckets - 1));
}

/* At most two rows per bucket on average, a power of two. */
static uint32_t buckets_for(size_t rows)
{
	uint32_t n = 1;

	while (n < rows / 2 + 1)
		n <<= 1;
	return n;
}

static int grow_array(uint32_t **a, size_t old_n, size_t new_n)
{
	uint32_t *p = realloc(*a, new_n * sizeof(*p));

	if (!p)
		return -1;
	memset(p + old_n, 0, (new_n - old_n) * sizeof(*p));
	*a = p;
	return 0;
}

/* Rebuild every hash chain for the rows in use (all rows when growing). */
static void rehash(struct ftd_table *t)
{
	uint32_t i;

	memset(t->bucket, 0, t->n_buckets * sizeof(*t->bucket));
	for (i = t->oldest; i; i = t->lru_next[i - 1]) {
		uint32_t b = bucket_of(t, ROW(t, i - 1));

		t->next[i - 1] = t->bucket[b];
		t->bucket[b] = i;
	}
}

/*
 * Add one chunk of free rows. Only called with no free row, so every
 * allocated row is in use and on the LRU list. 0, or -1 (full or ENOMEM).
 */
static int grow(struct ftd_table *t)
{
	size_t old_n = t->allocated, new_n, i;
	uint32_t nb;
	unsigned char *c;

	if (old_n >= t->capacity)
		return -1;
	new_n = old_n + CHUNK_ROWS < t->capacity ? old_n + CHUNK_ROWS
						 : t->capacity;
	c = malloc((size_t)CHUNK_ROWS * t->slot_size);
	if (!c)
		return -1;
	if (grow_array(&t->next, old_n, new_n) < 0 ||
	    grow_array(&t->lru_prev, old_n, new_n) < 0 ||
	    grow_array(&t->lru_next, old_n, new_n) < 0) {
		free(c);
		return -1;
	}
	nb = buckets_for(new_n);
	if (nb != t->n_buckets) {
		uint32_t *b = realloc(t->bucket, nb * sizeof(*b));

		if (!b) {
			free(c);
			return -1;
		}
		t->bucket = b;
		t->n_buckets = nb;
		rehash(t);
	}
	t->chunk[old_n >> CHUNK_SHIFT] = c;
	for (i = old_n; i < new_n; i++) {
		uint32_t idx = (uint32_t)i;

		memcpy((unsigned char *)ROW(t, idx) + t->row_size, &idx,
		       sizeof(idx));
		t->next[i] = i + 1 < new_n ? (uint32_t)i + 2 : 0;
	}
	t->free_head = (uint32_t)old_n + 1;
	t->allocated = new_n;
	return 0;
}

int ftd_table_init(struct ftd_table *t, const char *name, size_t capacity,
		   size_t key_size, size_t row_size)
{
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
	/* The row, then its index, aligned for the next slot's row. */
	t->slot_size = (row_size + sizeof(uint32_t) + 7) & ~(size_t)7;
	t->chunk = calloc((capacity + CHUNK_ROWS - 1) >> CHUNK_SHIFT,
			  sizeof(*t->chunk));
	t->n_buckets = 1;
	t->bucket = calloc(1, sizeof(*t->bucket));
	/* The first chunk now: once initialised, a get never fails. */
	if (!t->chunk || !t->bucket || grow(t) < 0) {
		ftd_table_free(t);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void ftd_table_free(struct ftd_table *t)
{
	size_t i;

	if (t->chunk)
		for (i = 0; i < (t->allocated + CHUNK_ROWS - 1) >> CHUNK_SHIFT;
		     i++)
			free(t->chunk[i]);
	free(t->chunk);
	free(t->bucket);
	free(t->next);
	free(t->lru_prev);
	free(t->lru_next);
	t->chunk = NULL;
	t->bucket = t->next = t->lru_prev = t->lru_next = NULL;
	t->used = t->allocated = 0;
	t->free_head = t->oldest = t->newest = 0;
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
	if (!t->free_head && grow(t) < 0) {
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
