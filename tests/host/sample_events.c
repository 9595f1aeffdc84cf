// SPDX-License-Identifier: GPL-2.0
/*
 * sample_events: write N events through the daemon's own event output
 * (daemon/event_output.c, the code [agent] event_output runs) to FILE,
 * for the log shipper test (tests/host/shipping_rsyslog.sh). The events
 * are the awkward ones a shipper must carry intact: long paths, quotes,
 * backslashes, non-ASCII and control bytes in names, every few types.
 *
 * usage: sample_events FILE N [FIRST]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/event_output.h"
#include "../../daemon/eventlog.h"
#include "../unit/collector_build.h"

static uint64_t rec[1024]; /* 8 KiB: any record */

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"nginx",     "we\"ird\\name",	 "caf\xc3\xa9",
		"tab\there", "\x1b]0;title\x07",
	};
	struct ftd_event_output o;
	struct ftd_eventlog log;
	char path[3000];
	unsigned long n, first, i;
	size_t size;

	if (argc < 3)
		return 2;
	n = strtoul(argv[2], NULL, 10);
	first = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	if (ftd_event_output_open(&o, argv[1]) < 0) {
		fprintf(stderr, "%s\n", o.error);
		return 1;
	}
	ftd_eventlog_init(&log, 64 << 20);
	for (i = first; i < first + n; i++) {
		const char *name = names[i % 5];

		switch (i % 3) {
		case 0:
			snprintf(path, sizeof(path), "/usr/bin/%s-%lu", name,
				 i);
			size = build_exec(rec, 1000 + (uint32_t)i, i, name,
					  path);
			break;
		case 1:
			size = build_connect(rec, 1000 + (uint32_t)i, i, i,
					     40000, 443);
			break;
		default:
			/*
			 * A long path with control bytes, which JSON escapes
			 * six bytes each: past rsyslog's default 8 KiB.
			 */
			memset(path, 'p', 2500);
			memset(path, '\x01', i % 2 ? 1500 : 0);
			snprintf(path + 2500, 64, "/%s/%lu", name, i);
			size = build_open(rec, 1000 + (uint32_t)i, i, 8, i,
					  path);
		}
		ftd_eventlog_append(&log, rec, size,
				    1700000000000000000ull + i * 1000, name);
		ftd_event_output_add(&o, ftd_eventlog_newest(&log));
	}
	if (ftd_event_output_flush(&o) < 0) {
		fprintf(stderr, "%s\n", o.error);
		return 1;
	}
	ftd_event_output_close(&o);
	ftd_eventlog_free(&log);
	return 0;
}
