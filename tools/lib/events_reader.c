// SPDX-License-Identifier: GPL-2.0
/*
 * The module's event files (events_reader.h): mount its filesystem, open
 * one relay file per CPU and drain them into the per-CPU record streams.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/statfs.h>

#include "events_reader.h"

/* Room for many records a read; at least one of FTAGENT_REC_SIZE_MAX. */
#define READ_BUF_SIZE (256U << 10)

int ftagent_events_mount(const char *mountpoint)
{
	const char *mp = mountpoint ? mountpoint : FTAGENT_FS_MOUNTPOINT;
	struct statfs sfs;

	/*
	 * The module creates the directory (nothing can mkdir under
	 * /sys/fs), so its absence means the module is not loaded.
	 */
	if (statfs(mp, &sfs) < 0)
		return -errno;
	/* Mounted already: a second mount would only stack on it. */
	if (sfs.f_type == FTAGENT_FS_MAGIC)
		return 0;
	if (mount(FTAGENT_FS_TYPE, mp, FTAGENT_FS_TYPE, 0, NULL) < 0)
		return -errno;
	return 0;
}

/* Open events<cpu>: the fd, or -errno (-ENOENT past the last CPU). */
static int open_cpu(const char *mp, unsigned int cpu)
{
	char path[PATH_MAX];
	int n, fd;

	n = snprintf(path, sizeof(path), "%s/%s%u", mp, FTAGENT_EVENTS_FILE,
		     cpu);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int add_fd(struct ftagent_events_reader *r, int fd)
{
	int *fds = realloc(r->fds, (r->n + 1) * sizeof(*fds));

	if (!fds)
		return -ENOMEM;
	r->fds = fds;
	r->fds[r->n++] = fd;
	return 0;
}

/* The streams and the read buffer, once the number of files is known. */
static int alloc_state(struct ftagent_events_reader *r)
{
	unsigned int i;

	r->streams = calloc(r->n, sizeof(*r->streams));
	if (!r->streams)
		return -ENOMEM;
	/* The buffer itself comes with the first drain (see _trim). */
	r->buf_size = READ_BUF_SIZE;
	for (i = 0; i < r->n; i++)
		ftagent_rec_stream_init(&r->streams[i]);
	return 0;
}

int ftagent_events_open(struct ftagent_events_reader *r, const char *mountpoint)
{
	const char *mp = mountpoint ? mountpoint : FTAGENT_FS_MOUNTPOINT;
	int fd, err;

	memset(r, 0, sizeof(*r));
	/* Relay creates a file per possible CPU, numbered without holes. */
	for (;;) {
		fd = open_cpu(mp, r->n);
		if (fd == -ENOENT)
			break;
		if (fd < 0) {
			err = fd;
			goto fail;
		}
		err = add_fd(r, fd);
		if (err) {
			close(fd);
			goto fail;
		}
	}
	err = r->n ? alloc_state(r) : -ENOENT;
	if (err)
		goto fail;
	return 0;
fail:
	ftagent_events_close(r);
	return err;
}

void ftagent_events_close(struct ftagent_events_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	free(r->fds);
	free(r->streams);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Counts what reaches the caller's callback, for drain's return. */
struct counting {
	int (*fn)(const struct ftagent_rec *rec, void *arg);
	void *arg;
	long n;
};

static int count_rec(const struct ftagent_rec *rec, void *arg)
{
	struct counting *c = arg;

	c->n++;
	return c->fn ? c->fn(rec, c->arg) : 0;
}

/*
 * Read one CPU's file until it has nothing more now. 0: drained; 1: the
 * callback stopped; -1: a read error (errno) or the stream went BAD.
 */
static int drain_one(struct ftagent_events_reader *r, unsigned int i,
		     struct counting *c, const char **why)
{
	struct ftagent_rec_stream *s = &r->streams[i];
	ssize_t got;
	int rc;

	for (;;) {
		got = read(r->fds[i], r->buf, r->buf_size);
		if (got < 0 && errno == EINTR)
			continue;
		/* Relay returns 0 when empty; EAGAIN is the generic case. */
		if (got == 0 || (got < 0 && errno == EAGAIN))
			return 0;
		if (got < 0)
			return -1;
		rc = ftagent_rec_stream_feed(s, r->buf, got, count_rec, c, why);
		/* The callback may return -1 too: the stream's flag decides. */
		if (s->bad) {
			errno = EBADMSG;
			return -1;
		}
		if (rc)
			return 1;
	}
}

void ftagent_events_trim(struct ftagent_events_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

long ftagent_events_drain(struct ftagent_events_reader *r,
			  int (*fn)(const struct ftagent_rec *rec, void *arg),
			  void *arg, const char **why)
{
	struct counting c = {fn, arg, 0};
	int bad = 0, rc;
	unsigned int i;

	if (!r->buf && r->n) {
		r->buf = malloc(r->buf_size);
		if (!r->buf)
			return -1; /* errno ENOMEM */
	}

	for (i = 0; i < r->n; i++) {
		/*
		 * A BAD stream was reported when it went bad; it is not read
		 * again, as its bytes can no longer be framed. Its CPU's
		 * buffer fills and the module counts what it then loses.
		 */
		if (r->fds[i] < 0 || r->streams[i].bad)
			continue;
		rc = drain_one(r, i, &c, why);
		if (rc < 0 && !r->streams[i].bad)
			return -1;
		if (rc < 0) {
			/* One broken CPU must not starve the others. */
			bad = 1;
			why = NULL; /* keep the first reason */
		}
		if (rc > 0)
			break;
	}
	if (bad) {
		errno = EBADMSG;
		return -1;
	}
	return c.n;
}
