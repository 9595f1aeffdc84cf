// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <systemd/sd-journal.h>

#include "../tools/lib/records.h"
#include "event_json.h"
#include "event_output.h"

int ftd_event_output_open(struct ftd_event_output *o, const char *where)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!where[0])
		return 0;
	if (!strcmp(where, "journal")) {
		o->journal = 1;
		return 0;
	}
	snprintf(o->path, sizeof(o->path), "%s", where);
	o->fd = open(where, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (o->fd < 0) {
		snprintf(o->error, sizeof(o->error), "event_output %s: %s",
			 where, strerror(errno));
		return -1;
	}
	return 0;
}

void ftd_event_output_close(struct ftd_event_output *o)
{
	ftd_event_output_flush(o);
	if (o->fd >= 0)
		close(o->fd);
	free(o->buf);
	o->fd = -1;
	o->buf = NULL;
	o->journal = 0;
}

static void queue(struct ftd_event_output *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 16;
		char *b;

		while (cap < o->len + n + 1)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b) {
			o->errors++;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->buf[o->len + n] = '\n';
	o->len += n + 1;
}

void ftd_event_output_add(struct ftd_event_output *o,
			  const struct ftd_event *ev)
{
	const struct ftagent_rec_hdr *h = (const void *)ev->rec;
	struct json_object *j;
	const char *s;

	if (!ftd_event_output_on(o))
		return;
	j = ftd_event_json(ev);
	if (!j) {
		o->errors++;
		return;
	}
	s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	if (o->journal) {
		if (sd_journal_send("MESSAGE=%s", s, "PRIORITY=6",
				    "SYSLOG_IDENTIFIER=ftagentd",
				    "FTAGENT_EVENT=%s",
				    ftagent_rec_type_name(h->type),
				    "FTAGENT_PID=%u", h->tgid, NULL) < 0)
			o->errors++;
		else
			o->written++;
	} else {
		queue(o, s, strlen(s));
		o->written++;
	}
	json_object_put(j);
}

int ftd_event_output_flush(struct ftd_event_output *o)
{
	size_t off = 0;

	while (o->fd >= 0 && off < o->len) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->errors++;
			snprintf(o->error, sizeof(o->error),
				 "event_output %s: %s", o->path,
				 strerror(n < 0 ? errno : ENOSPC));
			o->len = 0;
			return -1;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return 0;
}
