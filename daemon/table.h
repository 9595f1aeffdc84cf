/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded table of fixed-size rows found by a fixed-size key: the
 * storage behind ftagentd's processes, sockets, flows, files and
 * transfers. Memory is taken as rows are used, a chunk at a time, never
 * beyond the capacity, so a busy host cannot make the daemon grow past
 * it and an idle one costs little; when the table is full the row idle
 * the longest (the least recently touched) is evicted to make room, and
 * counted. A row stays where it is until it is removed or evicted.
 *
 * A row starts with its key (key_size bytes); the rest is the caller's.
 */
#ifndef FTAGENTD_TABLE_H
#define FTAGENTD_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct ftd_table {
	const char *name; /* "processes", for stats and errors */
	size_t capacity, used;
	size_t allocated; /* rows with memory: up to capacity */
	size_t key_size, row_size;
	size_t slot_size;      /* row, then its index (uint32_t), aligned */
	uint64_t evicted;      /* rows dropped to make room */
	uint64_t inserted;     /* rows created */
	unsigned char **chunk; /* rows in chunks, allocated as needed */
	uint32_t *bucket;      /* hash heads: row index + 1, 0 = empty */
	uint32_t *next;	       /* hash chain, row index + 1 (allocated) */
	uint32_t *lru_prev;    /* row index + 1: toward the oldest */
	uint32_t *lru_next;    /* toward the newest */
	uint32_t n_buckets;
	uint32_t oldest, newest; /* row index + 1, 0 when empty */
	uint32_t free_head;	 /* free rows, chained through next[] */
	/* Called with a row about to be evicted (may be NULL). */
	void (*on_evict)(void *row, void *arg);
	void *evict_arg;
};

/* 0, or -1 (ENOMEM, or EINVAL for a zero or too large capacity). */
int ftd_table_init(struct ftd_table *t, const char *name, size_t capacity,
		   size_t key_size, size_t row_size);
void ftd_table_free(struct ftd_table *t);

/* The row with @key, or NULL. Does not count as a use. */
void *ftd_table_find(const struct ftd_table *t, const void *key);
/*
 * The row with @key, created zeroed (key copied in) if absent, evicting
 * the least recently used row when full (or, should memory for more rows
 * run out below the capacity, then too); *@created says which. Marks the
 * row as just used. Never fails once initialised.
 */
void *ftd_table_get(struct ftd_table *t, const void *key, int *created);
/* Mark @row as just used. */
void ftd_table_touch(struct ftd_table *t, void *row);
/* Remove @row (not counted as an eviction). */
void ftd_table_remove(struct ftd_table *t, void *row);

/* Rows from the least to the most recently used: i from 0 to used-1. */
void *ftd_table_first(const struct ftd_table *t);
void *ftd_table_next_row(const struct ftd_table *t, const void *row);

#endif /* FTAGENTD_TABLE_H */
