// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the relay record decoder. The bytes after the first
 * are what read() returned on one CPU's events file; the first byte picks
 * the sizes of the reads they are cut into, so records split across
 * reads take the carry-over path. Each read is copied to the start of a
 * buffer of its own size, as events_reader.c reads, and fed to
 * ftagent_rec_stream_feed() (tools/lib/records.c). Each record it hands
 * out is read whole (header, body, strings: ASan checks they lie where
 * the decoder says) and merged by the daemon's collector
 * (daemon/collector.c), which takes its fields apart into the tables and
 * the event log; the logged events are then written as the API's JSON
 * (daemon/event_json.c). A fresh collector with small tables per input:
 * nothing carries over between inputs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "../../daemon/collector.h"
#include "../../daemon/event_json.h"
#include "../../tools/lib/config.h"
#include "../../tools/lib/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned char sink;

static int on_record(const struct ftagent_rec *rec, void *arg)
{
	const unsigned char *body = rec->body;
	unsigned char x = 0;
	size_t i;
	int s;

	for (i = 0; i < rec->hdr->body_size; i++)
		x ^= body[i];
	for (s = 0; s < rec->n_str; s++)
		for (i = 0; i < rec->str_len[s]; i++)
			x ^= (unsigned char)rec->str[s][i];
	sink = x;
	/* A fixed wall-clock time: the same input, the same result. */
	ftd_collector_event_at(arg, rec, 1700000000000000000ull);
	return 0;
}

static void to_json(const struct ftd_event *ev, void *arg)
{
	struct json_object *o = ftd_event_json(ev);

	(void)arg;
	if (o)
		sink = (unsigned char)strlen(json_object_to_json_string(o));
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ftagentd_config cfg;
	struct ftd_event_query q = {0};
	struct ftagent_rec_stream *st;
	struct ftd_collector col;
	const char *why = NULL;
	unsigned char *rd;
	size_t chunk, off;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] * 8 + 1; /* 1 to 2041 bytes a read */
	data++;
	size--;
	if (!cfg.limits.processes) {
		ftagentd_config_defaults(&cfg);
		cfg.limits.processes = cfg.limits.sockets = 64;
		cfg.limits.flows = cfg.limits.files = 64;
		cfg.limits.transfers = 64;
		cfg.agent.event_log_size = 64 * 1024;
	}
	st = malloc(sizeof(*st));
	rd = malloc(chunk);
	if (!st || !rd || ftd_collector_init(&col, &cfg) < 0) {
		free(st);
		free(rd);
		return 0;
	}
	ftagent_rec_stream_init(st);
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		/* Each read lands at the start of the reader's buffer. */
		memcpy(rd, data + off, n);
		if (ftagent_rec_stream_feed(st, rd, n, on_record, &col, &why) <
		    0) {
			if (!why)
				abort(); /* a bad stream says why */
			break;
		}
	}
	ftd_eventlog_query(&col.log, &q, to_json, NULL);
	ftd_collector_free(&col);
	free(st);
	free(rd);
	return 0;
}
