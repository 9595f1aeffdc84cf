/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding the module's event records (uapi/linux/ftagent.h, "Lifecycle
 * events") from the bytes read() returns on a relay file.
 *
 * A read may end inside a record, so a reader keeps a carry-over buffer:
 * ftagent_rec_next() takes a window of bytes and says whether it holds a
 * whole record, needs more bytes, or is not a record stream at all. A
 * record is checked before use: its size is aligned, at least the header
 * plus the body its type requires, no larger than FTAGENT_REC_SIZE_MAX,
 * and its strings lie inside it. Nothing here trusts the kernel.
 */
#ifndef FTAGENT_LIB_RECORDS_H
#define FTAGENT_LIB_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

enum ftagent_rec_status {
	FTAGENT_REC_OK,	       /* a whole, valid record */
	FTAGENT_REC_NEED_MORE, /* the window ends inside a record */
	FTAGENT_REC_BAD,       /* not a valid record: the stream is lost */
};

/* A decoded record: pointers into the caller's bytes, valid with them. */
struct ftagent_rec {
	const struct ftagent_rec_hdr *hdr;
	const void *body; /* hdr->body_size bytes */
	/* Up to two strings, in the order the body lists their lengths. */
	const char *str[2];
	size_t str_len[2];
	int n_str;
};

/*
 * Decode the record at the start of @buf (@len bytes). On FTAGENT_REC_OK
 * fills @rec and sets *@used to the record's size; on FTAGENT_REC_BAD
 * @why (if not NULL) points to a static reason.
 */
enum ftagent_rec_status ftagent_rec_next(const void *buf, size_t len,
					 struct ftagent_rec *rec, size_t *used,
					 const char **why);

/* The name of a record type ("exec"), or "unknown". */
const char *ftagent_rec_type_name(unsigned int type);
/* The name of an event loss cause ("buffer_full"), or "unknown". */
const char *ftagent_event_loss_name(unsigned int cause);

/*
 * Per-CPU reading state: the carry-over of a partial record, the next
 * expected sequence number, and what was seen, for the invariant
 * emitted = delivered + lost.
 */
struct ftagent_rec_stream {
	unsigned char carry[FTAGENT_REC_SIZE_MAX + 1];
	size_t carry_len;
	int have_seq;
	uint64_t next_seq;    /* valid once have_seq */
	int gap_explains;     /* the last record was a GAP whose first_seq */
	uint64_t gap_seq;     /* was next_seq, and this its hdr.seq */
	uint64_t records;     /* non-GAP records decoded */
	uint64_t gaps;	      /* GAP records decoded */
	uint64_t gap_lost;    /* records the GAP records said were lost */
	uint64_t seq_jumps;   /* records missing from the numbering */
	uint64_t unexplained; /* of those, records no GAP record explains */
	int bad;	      /* a BAD record was met; the stream stopped */
};

void ftagent_rec_stream_init(struct ftagent_rec_stream *s);

/*
 * Feed @len bytes just read from one CPU's file. Calls @fn for each whole
 * record (GAP records included), in order; a non-zero return from @fn
 * stops and is returned. Returns 0, or -1 when the stream is BAD (then
 * @why says why and later calls return -1 too).
 */
int ftagent_rec_stream_feed(struct ftagent_rec_stream *s, const void *buf,
			    size_t len,
			    int (*fn)(const struct ftagent_rec *rec, void *arg),
			    void *arg, const char **why);

#endif /* FTAGENT_LIB_RECORDS_H */
