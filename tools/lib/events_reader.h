/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the module's event files: mount the module's filesystem if it
 * is not mounted, open one relay file per CPU, and drain them into
 * per-CPU record streams (records.h).
 */
#ifndef FTAGENT_LIB_EVENTS_READER_H
#define FTAGENT_LIB_EVENTS_READER_H

#include <stddef.h>

#include "records.h"

/*
 * Mount FTAGENT_FS_TYPE at @mountpoint (NULL: FTAGENT_FS_MOUNTPOINT)
 * unless it is already mounted there. 0, or -errno.
 */
int ftagent_events_mount(const char *mountpoint);

struct ftagent_events_reader {
	int *fds; /* one per CPU file found; -1 if none */
	struct ftagent_rec_stream *streams; /* one per fd */
	unsigned int n;			    /* files events0 .. events<n-1> */
	unsigned char *buf; /* read buffer: allocated by a drain, or NULL */
	size_t buf_size;    /* its size */
};

/*
 * Open every events<N> file under @mountpoint (NULL: the default),
 * non-blocking. 0, or -errno (ENOENT: not mounted or module absent).
 */
int ftagent_events_open(struct ftagent_events_reader *r,
			const char *mountpoint);
void ftagent_events_close(struct ftagent_events_reader *r);

/*
 * Read everything available now from every CPU file and feed it to the
 * streams, calling @fn for each record (see ftagent_rec_stream_feed).
 * Returns the number of records passed to @fn, or -1 (a read error:
 * errno set; or a BAD stream: errno EBADMSG and @why says why).
 */
long ftagent_events_drain(struct ftagent_events_reader *r,
			  int (*fn)(const struct ftagent_rec *rec, void *arg),
			  void *arg, const char **why);

/*
 * Free the read buffer (a burst leaves its pages resident); the next
 * drain allocates it again. For a reader that goes quiet for long.
 */
void ftagent_events_trim(struct ftagent_events_reader *r);

#endif /* FTAGENT_LIB_EVENTS_READER_H */
