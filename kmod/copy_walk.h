/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a call's return site as a copy of the code after another call
 * (ftagent_copy_rejoins(), callsites.c), on text read through a callback:
 * the kernel's live text in the module, byte arrays in its unit test
 * (tests/unit/copy_walk_test.c). It includes nothing: its includer has
 * u8, s32, bool, memcpy() and the errno values.
 */
#ifndef _FTAGENT_COPY_WALK_H
#define _FTAGENT_COPY_WALK_H

#define FTAGENT_JMP_REL32	0xe9
#define FTAGENT_JMP_REL32_LEN	5
#define FTAGENT_JMP_REL8	0xeb
#define FTAGENT_INT3		0xcc

/* How far a copy is followed, and through how many jumps. */
#define FTAGENT_COPY_MAX	64
#define FTAGENT_COPY_HOPS	4

/* Reads @len bytes of text at @addr into @buf: 0, or -EFAULT. */
typedef int (*ftagent_text_read_t)(void *ctx, unsigned long addr, u8 *buf,
				   unsigned int len);

/* Whether one of @n addresses @avoid lies in [@from, @to]. */
static inline bool ftagent_any_in(const unsigned long *avoid, unsigned int n,
				  unsigned long from, unsigned long to)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (avoid[i] >= from && avoid[i] <= to)
			return true;
	return false;
}

/*
 * Follow the code at @ret_site as a copy of the code at @join: from each
 * stretch's start, the bytes equal to those at @join past what was
 * copied so far, up to a jump (the first byte that differs must be one)
 * whose target is @join past all the bytes copied (done) or the next
 * stretch. Equal bytes from an instruction boundary decode alike, so no
 * decoder is needed; anything else is not proven a copy. The result is
 * ftagent_copy_rejoins()'s (callsites.h).
 */
static inline int ftagent_copy_walk(ftagent_text_read_t read, void *ctx,
				    unsigned long ret_site, unsigned long join,
				    const unsigned long *avoid, unsigned int n)
{
	u8 at_join[FTAGENT_COPY_MAX];
	u8 text[FTAGENT_COPY_MAX + FTAGENT_JMP_REL32_LEN];
	unsigned long p = ret_site, to;
	unsigned int hop, k = 0, m;
	s32 rel;

	if (read(ctx, join, at_join, sizeof(at_join)))
		return -EFAULT;
	for (hop = 0; hop < FTAGENT_COPY_HOPS; hop++) {
		/* Jumps only, to the join itself: its probe sees the result. */
		if (p == join)
			return k ? -EXDEV : 1;
		if (read(ctx, p, text, sizeof(text)))
			return -EFAULT;
		for (m = 0; k + m < FTAGENT_COPY_MAX && text[m] == at_join[k + m];
		     m++)
			;
		if (k + m == FTAGENT_COPY_MAX)
			return -EXDEV;
		/* Another tracer's breakpoint hides the instruction. */
		if (text[m] == FTAGENT_INT3)
			return -EBUSY;
		if (text[m] == FTAGENT_JMP_REL32) {
			memcpy(&rel, text + m + 1, sizeof(rel));
			to = p + m + FTAGENT_JMP_REL32_LEN + rel;
		} else if (text[m] == FTAGENT_JMP_REL8) {
			to = p + m + 2 + (signed char)text[m + 1];
		} else {
			return -EXDEV;
		}
		/*
		 * The stretch must not pass another probed site (the return
		 * site itself aside) or the join's first byte, where the
		 * join's probe is: that would see the result twice.
		 */
		if (ftagent_any_in(avoid, n, hop ? p : p + 1, p + m) ||
		    (join > p && join <= p + m))
			return -EXDEV;
		k += m;
		if (k && to == join + k)
			return 0;
		p = to;
	}
	return -EXDEV;
}

#endif
