// SPDX-License-Identifier: GPL-2.0
/*
 * Events for log shippers: one JSON line per event, the same object the
 * API returns, appended; a path that can't be opened is reported by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../daemon/event_output.h"
#include "../../daemon/eventlog.h"
#include "collector_build.h"

static uint64_t rec_buf[1024];

static void lines_are_the_api_objects(void **state)
{
	char path[] = "/tmp/ftagent-evout-XXXXXX", line[4096];
	struct ftd_event_output o;
	struct ftd_eventlog log;
	struct json_object *j, *v;
	size_t size;
	int fd, n = 0;
	FILE *f;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(0, ftd_event_output_open(&o, path));
	assert_true(ftd_event_output_on(&o));
	ftd_eventlog_init(&log, 1 << 20);
	size = build_exec(rec_buf, 4242, 1, "nginx", "/usr/sbin/nginx");
	ftd_eventlog_append(&log, rec_buf, size, 1700000000000000000ull,
			    "nginx");
	ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	size = build_connect(rec_buf, 4242, 2, 99, 40000, 443);
	ftd_eventlog_append(&log, rec_buf, size, 1700000000000000001ull,
			    "nginx");
	ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	assert_int_equal(0, ftd_event_output_flush(&o));
	assert_int_equal(2, o.written);
	ftd_event_output_close(&o);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		j = json_tokener_parse(line);
		assert_non_null(j);
		assert_true(json_object_object_get_ex(j, "pid", &v));
		assert_int_equal(4242, json_object_get_int64(v));
		assert_true(json_object_object_get_ex(j, "type", &v));
		assert_string_equal(n == 0 ? "exec" : "connect",
				    json_object_get_string(v));
		if (n == 1) {
			assert_true(json_object_object_get_ex(j, "remote", &v));
			assert_string_equal("127.0.0.1:443",
					    json_object_get_string(v));
		}
		json_object_put(j);
		n++;
	}
	fclose(f);
	assert_int_equal(2, n);
	/* Appending: a second writer adds, never truncates. */
	assert_int_equal(0, ftd_event_output_open(&o, path));
	ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	ftd_event_output_close(&o);
	f = fopen(path, "r");
	for (n = 0; fgets(line, sizeof(line), f);)
		n++;
	fclose(f);
	assert_int_equal(3, n);
	ftd_eventlog_free(&log);
	unlink(path);
}

static void off_and_unopenable(void **state)
{
	struct ftd_event_output o;

	(void)state;
	assert_int_equal(0, ftd_event_output_open(&o, ""));
	assert_false(ftd_event_output_on(&o));
	ftd_event_output_close(&o);
	assert_int_equal(0, ftd_event_output_open(&o, "journal"));
	assert_true(ftd_event_output_on(&o));
	ftd_event_output_close(&o);
	assert_int_equal(-1,
			 ftd_event_output_open(&o, "/nonexistent/dir/e.jsonl"));
	assert_non_null(strstr(o.error, "/nonexistent/dir/e.jsonl"));
	assert_non_null(strstr(o.error, "No such file"));
	ftd_event_output_close(&o);
}

/*
 * A full disk (/dev/full: every write fails with ENOSPC): each event that
 * did not get out is counted as lost, the failed write as an error, the
 * reason kept; counts survive a reopen (SIGHUP, SIGUSR1).
 */
static void full_disk_is_counted_event_by_event(void **state)
{
	struct ftd_event_output o;
	struct ftd_eventlog log;
	size_t size;
	int i;

	(void)state;
	assert_int_equal(0, ftd_event_output_open(&o, "/dev/full"));
	ftd_eventlog_init(&log, 1 << 20);
	size = build_exec(rec_buf, 4242, 1, "nginx", "/usr/sbin/nginx");
	ftd_eventlog_append(&log, rec_buf, size, 1700000000000000000ull,
			    "nginx");
	for (i = 0; i < 3; i++)
		ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	assert_int_equal(-1, ftd_event_output_flush(&o));
	assert_int_equal(0, o.written);
	assert_int_equal(3, o.lost);
	assert_int_equal(1, o.errors);
	assert_non_null(strstr(o.error, "/dev/full"));
	assert_non_null(strstr(o.error, "No space left"));
	ftd_event_output_close(&o);
	assert_int_equal(0, ftd_event_output_reopen(&o, "/dev/full"));
	ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	assert_int_equal(-1, ftd_event_output_flush(&o));
	assert_int_equal(4, o.lost);
	assert_int_equal(2, o.errors);
	ftd_event_output_close(&o);
	ftd_eventlog_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_are_the_api_objects),
		cmocka_unit_test(off_and_unopenable),
		cmocka_unit_test(full_disk_is_counted_event_by_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
