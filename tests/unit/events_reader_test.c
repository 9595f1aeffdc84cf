// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the event file reader, on a directory of plain files
 * standing in for the module's events<N> relay files: a plain file reads
 * like a drained relay file, its bytes and then 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/lib/events_reader.h"

#define HDR_SIZE sizeof(struct ftagent_rec_hdr)

/* Header and body only (these types have no strings): sizes stay aligned. */
static size_t put_rec(unsigned char *p, uint16_t type, uint64_t seq,
		      const void *body, size_t body_size)
{
	struct ftagent_rec_hdr h = {0};

	h.type = type;
	h.size = HDR_SIZE + body_size;
	h.body_size = body_size;
	h.seq = seq;
	memcpy(p, &h, HDR_SIZE);
	memcpy(p + HDR_SIZE, body, body_size);
	return h.size;
}

static size_t put_fork(unsigned char *p, uint64_t seq)
{
	struct ftagent_rec_fork f = {.child_tgid = 42};

	return put_rec(p, FTAGENT_REC_FORK, seq, &f, sizeof(f));
}

static size_t put_gap(unsigned char *p, uint64_t seq, uint64_t first_seq)
{
	struct ftagent_rec_gap g = {.first_seq = first_seq,
				    .lost = seq - first_seq};

	return put_rec(p, FTAGENT_REC_GAP, seq, &g, sizeof(g));
}

static char dir[] = "/tmp/ftagent-events-XXXXXX";

static void write_file(unsigned int cpu, const void *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/events%u", dir, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), len);
	close(fd);
}

static void append_file(unsigned int cpu, const void *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/events%u", dir, cpu);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), len);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ftagent-events-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

/* The tests write events0 .. events3 at most. */
static int teardown(void **state)
{
	char path[PATH_MAX];
	unsigned int cpu;

	(void)state;
	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(path, sizeof(path), "%s/events%u", dir, cpu);
		unlink(path);
	}
	return rmdir(dir);
}

static int count_types(const struct ftagent_rec *rec, void *arg)
{
	unsigned int *by_type = arg;

	by_type[rec->hdr->type < 16 ? rec->hdr->type : 15]++;
	return 0;
}

static void drains_every_cpu_file(void **state)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagent_events_reader r;
	unsigned int by_type[16] = {0};
	const char *why = NULL;
	size_t len;

	(void)state;
	len = put_fork(buf, 0);
	len += put_fork(buf + len, 1);
	write_file(0, buf, len);
	len = put_gap(buf, 2, 0);
	len += put_fork(buf + len, 2);
	write_file(1, buf, len);
	write_file(3, buf, len); /* after a hole: not a CPU file */

	assert_int_equal(ftagent_events_open(&r, dir), 0);
	assert_int_equal(r.n, 2);
	assert_true(r.buf_size >= FTAGENT_REC_SIZE_MAX);
	assert_int_equal(ftagent_events_drain(&r, count_types, by_type, &why),
			 4);
	assert_int_equal(by_type[FTAGENT_REC_FORK], 3);
	assert_int_equal(by_type[FTAGENT_REC_GAP], 1);
	assert_int_equal(r.streams[0].records, 2);
	assert_int_equal(r.streams[1].gap_lost, 2);
	assert_int_equal(r.streams[1].unexplained, 0);
	/* Nothing new: nothing passed on. */
	assert_int_equal(ftagent_events_drain(&r, NULL, NULL, &why), 0);
	/* Trimmed: the buffer is gone, and the next drain makes a new one. */
	ftagent_events_trim(&r);
	assert_null(r.buf);
	len = put_fork(buf, 2);
	append_file(0, buf, len);
	assert_int_equal(ftagent_events_drain(&r, count_types, by_type, &why),
			 1);
	assert_non_null(r.buf);
	assert_int_equal(r.streams[0].unexplained, 0);
	assert_int_equal(by_type[FTAGENT_REC_FORK], 4);
	ftagent_events_close(&r);
	assert_null(r.fds);
	ftagent_events_close(&r); /* twice is harmless */
}

/* A BAD stream is reported, and the other CPUs are still read. */
static void bad_cpu_does_not_starve_the_others(void **state)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagent_events_reader r;
	unsigned int by_type[16] = {0};
	const char *why = NULL;
	size_t len;

	(void)state;
	len = put_fork(buf, 0);
	buf[0] = 0; /* type 0 */
	buf[1] = 0;
	write_file(0, buf, len);
	len = put_fork(buf, 0);
	write_file(1, buf, len);

	assert_int_equal(ftagent_events_open(&r, dir), 0);
	errno = 0;
	assert_int_equal(ftagent_events_drain(&r, count_types, by_type, &why),
			 -1);
	assert_int_equal(errno, EBADMSG);
	assert_non_null(why);
	assert_true(r.streams[0].bad);
	assert_int_equal(by_type[FTAGENT_REC_FORK], 1);
	/* Reported once: later drains skip the broken stream. */
	assert_int_equal(ftagent_events_drain(&r, NULL, NULL, &why), 0);
	ftagent_events_close(&r);
}

static void no_files_is_enoent(void **state)
{
	struct ftagent_events_reader r;

	(void)state;
	assert_int_equal(ftagent_events_open(&r, dir), -ENOENT);
	assert_int_equal(ftagent_events_open(&r, "/nonexistent/ftagent"),
			 -ENOENT);
	assert_int_equal(ftagent_events_mount("/nonexistent/ftagent"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(drains_every_cpu_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			bad_cpu_does_not_starve_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(no_files_is_enoent, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
