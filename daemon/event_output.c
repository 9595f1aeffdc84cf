// SPDX-License-Identifier: GPL-2.0
/*
 * Events for log shippers (event_output.h). The journal is reached
 * through libsystemd's sd_journal_sendv(), opened with dlopen() when
 * event_output = journal asks for it, so a daemon that never writes to
 * the journal does not map libsystemd and what it links.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <json-c/json.h>
#include <systemd/sd-journal.h>

#include "../tools/lib/records.h"
#include "event_json.h"
#include "event_output.h"
#include "group.h"

#define SYSTEMD_SONAME "libsystemd.so.0"

/* Filled once, never closed: a reload back to journal finds it loaded. */
static __typeof__(sd_journal_sendv) *journal_sendv;

/* 0, or -1 with o->error naming the library. */
static int journal_load(struct ftd_event_output *o)
{
	void *h, *f;

	if (journal_sendv)
		return 0;
	h = dlopen(SYSTEMD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(o->error, sizeof(o->error),
			 "event_output journal: %s (install libsystemd0)",
			 dlerror());
		return -1;
	}
	f = dlsym(h, "sd_journal_sendv");
	if (!f) {
		snprintf(o->error, sizeof(o->error),
			 "event_output journal: %s: no sd_journal_sendv: %s",
			 SYSTEMD_SONAME, dlerror());
		dlclose(h);
		return -1;
	}
	memcpy(&journal_sendv, &f, sizeof(f));
	return 0;
}

int ftd_event_output_reopen(struct ftd_event_output *o, const char *where)
{
	uint64_t written = o->written, lost = o->lost, errors = o->errors;
	char error[sizeof(o->error)];
	int rc;

	memcpy(error, o->error, sizeof(error));
	rc = ftd_event_output_open(o, where);
	o->written += written;
	o->lost += lost;
	o->errors += errors;
	if (!o->error[0])
		memcpy(o->error, error, sizeof(error));
	return rc;
}

int ftd_event_output_open(struct ftd_event_output *o, const char *where)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->types = FTAGENTD_ALL_EVENT_TYPES;
	if (!where[0])
		return 0;
	if (!strcmp(where, "journal")) {
		if (journal_load(o) < 0)
			return -1;
		o->journal = 1;
		return 0;
	}
	snprintf(o->path, sizeof(o->path), "%s", where);
	o->fd = open(where, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	/* For log shippers in the ftagent group, whatever the umask. */
	if (o->fd >= 0 &&
	    (ftd_give_to_group(o->fd) < 0 || fchmod(o->fd, 0640) < 0)) {
		int err = errno;

		close(o->fd);
		o->fd = -1;
		errno = err;
	}
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
			o->lost++;
			snprintf(o->error, sizeof(o->error),
				 "event_output %s: out of memory", o->path);
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->buf[o->len + n] = '\n';
	o->len += n + 1;
}

#define IOV_CONST(str) ((struct iovec){(void *)(str), sizeof(str) - 1})

/* One entry: the JSON as MESSAGE, and fields to filter on. */
static int journal_send(const char *json, const struct ftagent_rec_hdr *h)
{
	static const char msg[] = "MESSAGE=";
	char event[64], pid[32];
	struct iovec iov[5];
	char *m;
	size_t n = strlen(json);
	int rc;

	m = malloc(sizeof(msg) - 1 + n);
	if (!m)
		return -ENOMEM;
	memcpy(m, msg, sizeof(msg) - 1);
	memcpy(m + sizeof(msg) - 1, json, n);
	snprintf(event, sizeof(event), "FTAGENT_EVENT=%s",
		 ftagent_rec_type_name(h->type));
	snprintf(pid, sizeof(pid), "FTAGENT_PID=%" PRIu32, (uint32_t)h->tgid);
	iov[0] = (struct iovec){m, sizeof(msg) - 1 + n};
	iov[1] = IOV_CONST("PRIORITY=6");
	iov[2] = IOV_CONST("SYSLOG_IDENTIFIER=ftagentd");
	iov[3] = (struct iovec){event, strlen(event)};
	iov[4] = (struct iovec){pid, strlen(pid)};
	rc = journal_sendv(iov, 5);
	free(m);
	return rc;
}

void ftd_event_output_add(struct ftd_event_output *o,
			  const struct ftd_event *ev)
{
	const struct ftagent_rec_hdr *h = (const void *)ev->rec;
	struct json_object *j;
	const char *s;

	if (!ftd_event_output_on(o) || h->type >= 32 ||
	    !(o->types & (1u << h->type)))
		return;
	j = ftd_event_json(ev);
	if (!j) {
		o->errors++;
		o->lost++;
		return;
	}
	s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	if (o->journal) {
		int rc = journal_send(s, h);

		if (rc < 0) {
			o->errors++;
			o->lost++;
			snprintf(o->error, sizeof(o->error),
				 "event_output journal: %s", strerror(-rc));
		} else {
			o->written++;
		}
	} else {
		queue(o, s, strlen(s));
	}
	json_object_put(j);
}

/* Lines (events) ended in @n bytes of @buf. */
static uint64_t lines(const char *buf, size_t n)
{
	uint64_t k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += buf[i] == '\n';
	return k;
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
			/* A line cut short counts as lost, whole. */
			o->written += lines(o->buf, off);
			o->lost += lines(o->buf, o->len) - lines(o->buf, off);
			o->len = 0;
			return -1;
		}
		off += (size_t)n;
	}
	o->written += lines(o->buf, o->len);
	o->len = 0;
	return 0;
}
