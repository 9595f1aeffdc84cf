/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event channel: lifecycle records written into a relay channel of
 * per-CPU buffers, with every record that does not make it counted.
 */
#ifndef _FTAGENT_EVENTS_H
#define _FTAGENT_EVENTS_H

#include <linux/dcache.h>
#include <linux/types.h>
#include <linux/ftagent.h>

/* Room for the largest record: an exec with a whole path and argv. */
#define FTAGENT_EV_REC_MAX						\
	ALIGN(sizeof(struct ftagent_rec_hdr) +				\
	      sizeof(struct ftagent_rec_exec) + FTAGENT_REC_PATH_MAX +	\
	      FTAGENT_REC_ARGV_MAX, FTAGENT_REC_ALIGN)

int ftagent_events_init(u32 ring_bytes);
void ftagent_events_exit(void);

/* The ring size @mode uses when none is set, at least 64 KiB a CPU. */
u32 ftagent_events_default_size(unsigned int mode);
/* Why @bytes is not a usable ring size, or NULL. */
const char *ftagent_events_size_invalid(u32 bytes);
/*
 * Replace the channel with one of @bytes (unread records are dropped
 * with the old one). On failure the old size is restored. Sleeps.
 */
int ftagent_events_resize(u32 bytes);

/* ftagentfs mounted / unmounted: give the channel files, take them away. */
int ftagent_events_attach_files(struct dentry *root);
void ftagent_events_detach_files(void);

/*
 * Writing a record, with preemption off (hooks, tracepoints): begin()
 * returns this CPU's scratch record with the header's type set, or NULL
 * when the event is lost (counted); the caller fills the body and strings
 * and hands the total size to commit(), which numbers, stamps and writes
 * it. Between the two nothing may sleep.
 */
struct ftagent_rec_hdr *ftagent_event_begin(unsigned int type);
void ftagent_event_commit(struct ftagent_rec_hdr *hdr, size_t size);
/* Drop a begun record that a filter rejects: it was never emitted. */
void ftagent_event_cancel(struct ftagent_rec_hdr *hdr);
/* A scratch buffer of FTAGENT_REC_PATH_MAX bytes, valid until commit. */
char *ftagent_event_path_buf(void);

/*
 * Append a string after the body: copies at most @max of @len bytes,
 * returns the bytes copied and sets @trunc_flag in the header when cut.
 */
size_t ftagent_event_put_str(struct ftagent_rec_hdr *hdr, size_t *size,
			     const char *s, size_t len, size_t max,
			     u16 trunc_flag);

struct ftagent_event_cpu_view {
	u64 emitted, delivered, discarded, peak_bytes;
	u64 lost[__FTAGENT_EV_LOSS_MAX];
};

void ftagent_events_cpu_view(int cpu, struct ftagent_event_cpu_view *v);

struct rchan_buf;
/* Where @buf's writer is, between whole records (FTAGENT_IOC_BUF_POS). */
void ftagent_events_buf_pos(struct rchan_buf *buf, struct ftagent_buf_pos *pos);
struct ftagent_events_geometry {
	u32 ring_bytes, subbuf_size, n_subbufs;
};

void ftagent_events_geometry(struct ftagent_events_geometry *g);
size_t ftagent_events_memory(void);

#endif /* _FTAGENT_EVENTS_H */
