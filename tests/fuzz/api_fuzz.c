// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the daemon's API request parser. The bytes are what
 * a client wrote on the Unix socket; they are cut into lines at each
 * newline as api.c's serve_lines() does (the last, unterminated piece
 * too: ftd_api_reply() takes any bytes), and each line is answered by
 * ftd_api_reply() (daemon/api_reply.c): the JSON tokenizer, the command
 * table, every key's checks, and the command itself over a daemon state
 * holding a few processes, sockets, files and events, so the replies
 * (daemon/api_json.c) have rows to write. The state is built once and
 * only read by the commands. Every reply is an object with "ok".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "../../daemon/api_reply.h"
#include "../../tools/lib/records.h"
#include "../unit/collector_build.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ftagentd *daemon_state;

static void feed(struct ftagentd *d, const void *buf, size_t size)
{
	struct ftagent_rec rec;
	size_t used;

	if (ftagent_rec_next(buf, size, &rec, &used, NULL) != FTAGENT_REC_OK)
		abort();
	ftd_collector_event_at(&d->col, &rec, 1700000000000000000ull);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	_Alignas(8) unsigned char buf[512];
	struct ftagentd *d = calloc(1, sizeof(*d));

	(void)argc;
	(void)argv;
	if (!d)
		abort();
	ftagentd_config_defaults(&d->cfg);
	if (ftd_collector_init(&d->col, &d->cfg) < 0)
		abort();
	d->col.read_proc_names = 0;
	d->config_path = "/etc/ftagent/ftagent.conf";
	feed(d, buf, build_exec(buf, 100, 1, "curl", "/usr/bin/curl"));
	feed(d, buf, build_connect(buf, 100, 2, 7001, 40000, 443));
	feed(d, buf, build_open(buf, 100, 3, 8, 12345, "/etc/hosts"));
	feed(d, buf, build_exec(buf, 200, 4, "sshd", "/usr/sbin/sshd"));
	daemon_state = d;
	return 0;
}

static void answer(const char *line, size_t len)
{
	struct json_object *reply = ftd_api_reply(daemon_state, line, len);
	struct json_object *ok;

	if (!reply)
		return; /* memory ran out */
	if (!json_object_object_get_ex(reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean) ||
	    !json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN))
		abort();
	json_object_put(reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl;
	size_t len;
	char *line;

	/* Each line in a buffer of its own size: ASan sees a read past it. */
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line = malloc(len ? len : 1);
		if (!line)
			return 0;
		memcpy(line, p, len);
		answer(line, len);
		free(line);
		p += len + 1;
	}
	return 0;
}
