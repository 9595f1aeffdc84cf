// SPDX-License-Identifier: GPL-2.0
/*
 * Event record decoding (records.h). The bytes come from the kernel but are
 * checked as if they came from anywhere: every length is bounded by the
 * record's size before it is used, and fields are read with memcpy() so a
 * window at any address is safe to check. Only the caller's use of the
 * decoded pointers needs the record 8-byte aligned, which the stream feed
 * guarantees.
 */
#include <string.h>

#include "records.h"

#define HDR_SIZE sizeof(struct ftagent_rec_hdr)

static const char *const type_names[__FTAGENT_REC_MAX] = {
	[FTAGENT_REC_GAP] = "gap",	   [FTAGENT_REC_FORK] = "fork",
	[FTAGENT_REC_EXEC] = "exec",	   [FTAGENT_REC_EXIT] = "exit",
	[FTAGENT_REC_CONNECT] = "connect", [FTAGENT_REC_ACCEPT] = "accept",
	[FTAGENT_REC_CLOSE] = "close",	   [FTAGENT_REC_BIND] = "bind",
	[FTAGENT_REC_LISTEN] = "listen",   [FTAGENT_REC_OPEN] = "open",
	[FTAGENT_REC_VERDICT] = "verdict",
};

static const char *const loss_names[__FTAGENT_EV_LOSS_MAX] = {
	[FTAGENT_EV_LOSS_BUFFER_FULL] = "buffer_full",
	[FTAGENT_EV_LOSS_TOO_BIG] = "too_big",
	[FTAGENT_EV_LOSS_RECURSION] = "recursion",
	[FTAGENT_EV_LOSS_NMI] = "nmi",
	[FTAGENT_EV_LOSS_NO_BUFFER] = "no_buffer",
};

const char *ftagent_rec_type_name(unsigned int type)
{
	if (type < __FTAGENT_REC_MAX && type_names[type])
		return type_names[type];
	return "unknown";
}

const char *ftagent_event_loss_name(unsigned int cause)
{
	if (cause < __FTAGENT_EV_LOSS_MAX)
		return loss_names[cause];
	return "unknown";
}

/*
 * The smallest body a type needs. Types from a newer ABI have no fixed
 * body here: they are passed on (or skipped) by hdr.size alone.
 */
static size_t body_min(unsigned int type)
{
	switch (type) {
	case FTAGENT_REC_GAP: return sizeof(struct ftagent_rec_gap);
	case FTAGENT_REC_FORK: return sizeof(struct ftagent_rec_fork);
	case FTAGENT_REC_EXEC: return sizeof(struct ftagent_rec_exec);
	case FTAGENT_REC_EXIT: return sizeof(struct ftagent_rec_exit);
	case FTAGENT_REC_CONNECT:
	case FTAGENT_REC_ACCEPT:
	case FTAGENT_REC_CLOSE:
	case FTAGENT_REC_BIND:
	case FTAGENT_REC_LISTEN: return sizeof(struct ftagent_rec_sock);
	case FTAGENT_REC_OPEN: return sizeof(struct ftagent_rec_open);
	case FTAGENT_REC_VERDICT: return sizeof(struct ftagent_rec_verdict);
	}
	return 0;
}

/* What the header alone shows is wrong, before the rest has arrived. */
static const char *check_hdr(const struct ftagent_rec_hdr *h)
{
	if (h->type == FTAGENT_REC_UNSPEC)
		return "record of type 0 (UNSPEC)";
	if (h->size > FTAGENT_REC_SIZE_MAX)
		return "record size above FTAGENT_REC_SIZE_MAX";
	if (h->size % FTAGENT_REC_ALIGN)
		return "record size not a multiple of FTAGENT_REC_ALIGN";
	if (h->size < HDR_SIZE + h->body_size)
		return "record size smaller than its header and body";
	if (h->body_size < body_min(h->type))
		return "record body smaller than its type's struct";
	return NULL;
}

/* A GAP must say the same thing twice: lost = hdr.seq - first_seq. */
static const char *check_gap(const struct ftagent_rec_hdr *h,
			     const unsigned char *body)
{
	struct ftagent_rec_gap g;

	memcpy(&g, body, sizeof(g));
	if (g.first_seq > h->seq || g.lost != h->seq - g.first_seq)
		return "GAP record's lost count does not match its numbers";
	return NULL;
}

static size_t u16_at(const unsigned char *body, size_t off)
{
	uint16_t v;

	memcpy(&v, body + off, sizeof(v));
	return v;
}

/* The string lengths the body lists, in order; returns how many. */
static int str_lens(unsigned int type, const unsigned char *body, size_t len[2])
{
	switch (type) {
	case FTAGENT_REC_EXEC:
		len[0] = u16_at(body,
				offsetof(struct ftagent_rec_exec, exe_len));
		len[1] = u16_at(body,
				offsetof(struct ftagent_rec_exec, argv_len));
		return 2;
	case FTAGENT_REC_OPEN:
		len[0] = u16_at(body,
				offsetof(struct ftagent_rec_open, path_len));
		return 1;
	case FTAGENT_REC_VERDICT:
		len[0] = u16_at(body,
				offsetof(struct ftagent_rec_verdict, path_len));
		return 1;
	}
	return 0;
}

enum ftagent_rec_status ftagent_rec_next(const void *buf, size_t len,
					 struct ftagent_rec *rec, size_t *used,
					 const char **why)
{
	const unsigned char *p = buf, *body = p + HDR_SIZE, *str;
	struct ftagent_rec_hdr h;
	size_t lens[2] = {0, 0};
	const char *bad;
	int n, i;

	if (len < HDR_SIZE)
		return FTAGENT_REC_NEED_MORE;
	memcpy(&h, p, HDR_SIZE);
	/* A bad size is reported now: waiting for it would stall forever. */
	bad = check_hdr(&h);
	if (bad)
		goto bad;
	if (len < h.size)
		return FTAGENT_REC_NEED_MORE;
	if (h.type == FTAGENT_REC_GAP) {
		bad = check_gap(&h, body);
		if (bad)
			goto bad;
	}
	n = str_lens(h.type, body, lens);
	/* The strings follow the body; from the copy: p may be unaligned. */
	str = body + h.body_size;
	if (lens[0] + lens[1] > h.size - HDR_SIZE - h.body_size) {
		bad = "record strings overrun its size";
		goto bad;
	}

	memset(rec, 0, sizeof(*rec));
	rec->hdr = buf;
	rec->body = body;
	for (i = 0; i < n; i++) {
		rec->str[i] = (const char *)str;
		rec->str_len[i] = lens[i];
		str += lens[i];
	}
	rec->n_str = n;
	*used = h.size;
	return FTAGENT_REC_OK;
bad:
	if (why)
		*why = bad;
	return FTAGENT_REC_BAD;
}

void ftagent_rec_stream_init(struct ftagent_rec_stream *s)
{
	memset(s, 0, sizeof(*s));
}

/* One feed() call: where it is in the caller's bytes, and whom to call. */
struct feed {
	struct ftagent_rec_stream *s;
	const unsigned char *p;
	size_t left;
	int (*fn)(const struct ftagent_rec *rec, void *arg);
	void *arg;
	int ret; /* fn's first non-zero return */
};

/*
 * A GAP's lost records are counted when it arrives; whether it explains
 * the jump is settled by the next record, which must carry its number.
 * A GAP first on a stream starts the numbering at its first lost record.
 */
static void account_gap(struct ftagent_rec_stream *s,
			const struct ftagent_rec *rec)
{
	struct ftagent_rec_gap g;

	memcpy(&g, rec->body, sizeof(g));
	s->gaps++;
	s->gap_lost += g.lost;
	if (!s->have_seq) {
		s->have_seq = 1;
		s->next_seq = g.first_seq;
	}
	s->gap_explains = g.first_seq == s->next_seq;
	s->gap_seq = rec->hdr->seq;
}

static void account_rec(struct ftagent_rec_stream *s,
			const struct ftagent_rec_hdr *h)
{
	uint64_t jump;

	if (s->have_seq && h->seq > s->next_seq) {
		jump = h->seq - s->next_seq;
		s->seq_jumps += jump;
		if (!s->gap_explains || s->gap_seq != h->seq)
			s->unexplained += jump;
	} else if (s->have_seq && h->seq < s->next_seq) {
		/*
		 * A number seen again: nothing is missing, but the stream is
		 * not what the module writes; count it once so it shows.
		 */
		s->unexplained++;
	}
	s->have_seq = 1;
	s->next_seq = h->seq + 1;
	s->gap_explains = 0;
	s->records++;
}

/*
 * Once the caller has stopped, the rest of its bytes are still walked,
 * to keep the framing for the next feed, but neither passed on nor
 * counted: their numbers then show as an unexplained jump, so what the
 * caller missed is not hidden.
 */
static void deliver(struct feed *f, const struct ftagent_rec *rec)
{
	if (f->ret)
		return;
	if (rec->hdr->type == FTAGENT_REC_GAP)
		account_gap(f->s, rec);
	else
		account_rec(f->s, rec->hdr);
	if (f->fn)
		f->ret = f->fn(rec, f->arg);
}

static void take(struct feed *f, size_t n)
{
	struct ftagent_rec_stream *s = f->s;

	memcpy(s->carry + s->carry_len, f->p, n);
	s->carry_len += n;
	f->p += n;
	f->left -= n;
}

/*
 * How much of the carried record there is to collect: its header first,
 * then its size, which ftagent_rec_next() has already checked, since a
 * carry-over longer than a header only follows its NEED_MORE.
 */
static size_t carry_want(const struct ftagent_rec_stream *s)
{
	uint16_t size;

	if (s->carry_len < HDR_SIZE)
		return HDR_SIZE;
	memcpy(&size, s->carry + offsetof(struct ftagent_rec_hdr, size),
	       sizeof(size));
	return size;
}

/* Complete the record the last feed left partial. 0, or -1 when BAD. */
static int finish_carry(struct feed *f, const char **why)
{
	struct ftagent_rec_stream *s = f->s;
	enum ftagent_rec_status st;
	struct ftagent_rec rec;
	size_t want, used;

	while (s->carry_len) {
		want = carry_want(s);
		take(f, want - s->carry_len < f->left ? want - s->carry_len
						      : f->left);
		st = ftagent_rec_next(s->carry, s->carry_len, &rec, &used, why);
		if (st == FTAGENT_REC_BAD)
			return -1;
		if (st == FTAGENT_REC_NEED_MORE) {
			if (!f->left)
				return 0;
			continue; /* the header is in: now its size is known */
		}
		s->carry_len = 0;
		deliver(f, &rec);
	}
	return 0;
}

/* Decode the caller's bytes in place, carrying a partial record over. */
static int walk(struct feed *f, const char **why)
{
	struct ftagent_rec_stream *s = f->s;
	enum ftagent_rec_status st;
	struct ftagent_rec rec;
	size_t used;

	while (f->left) {
		st = ftagent_rec_next(f->p, f->left, &rec, &used, why);
		if (st == FTAGENT_REC_BAD)
			return -1;
		if (st == FTAGENT_REC_NEED_MORE) {
			take(f, f->left);
			return 0;
		}
		/*
		 * A read of any length can leave the next record at an odd
		 * address; the callback gets an aligned copy, in the carry
		 * buffer, which is free between partial records.
		 */
		if ((uintptr_t)f->p % FTAGENT_REC_ALIGN) {
			memcpy(s->carry, f->p, used);
			ftagent_rec_next(s->carry, used, &rec, &used, why);
		}
		f->p += used;
		f->left -= used;
		deliver(f, &rec);
	}
	return 0;
}

int ftagent_rec_stream_feed(struct ftagent_rec_stream *s, const void *buf,
			    size_t len,
			    int (*fn)(const struct ftagent_rec *rec, void *arg),
			    void *arg, const char **why)
{
	struct feed f = {s, buf, len, fn, arg, 0};

	if (s->bad) {
		if (why)
			*why = "the stream stopped at an earlier bad record";
		return -1;
	}
	if (finish_carry(&f, why) < 0 || walk(&f, why) < 0) {
		/* Nothing after a bad record can be framed: stop for good. */
		s->bad = 1;
		s->carry_len = 0;
		return f.ret ? f.ret : -1;
	}
	return f.ret;
}
