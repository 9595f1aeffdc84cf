/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a call's return site as a copy of the code after another call
 * (ftagent_copy_rejoins(), callsites.c), on text read through a callback:
 * the kernel's live text in the module, byte arrays in its unit test
 * (tests/unit/copy_walk_test.c, which provides u8, s8, s32, bool,
 * memcmp(), memcpy() and the errno values itself).
 */
#ifndef _FTAGENT_COPY_WALK_H
#define _FTAGENT_COPY_WALK_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#endif

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
 * Whether @insn (at least FTAGENT_JMP_REL32_LEN bytes of it readable),
 * the text at @at, is a jmp rel32 or rel8: its length, with its target
 * in *@to; else 0.
 */
static inline unsigned int ftagent_jump_at(const u8 *insn, unsigned long at,
					   unsigned long *to)
{
	s32 rel;

	if (insn[0] == FTAGENT_JMP_REL32) {
		memcpy(&rel, insn + 1, sizeof(rel));
		*to = at + FTAGENT_JMP_REL32_LEN + rel;
		return FTAGENT_JMP_REL32_LEN;
	}
	if (insn[0] == FTAGENT_JMP_REL8) {
		*to = at + 2 + (s8)insn[1];
		return 2;
	}
	return 0;
}

/*
 * The length of the instruction at @b (@avail bytes of it readable) if
 * it is one whose meaning does not depend on where it sits, else 0: an
 * optional REX prefix, then mov, lea, movsxd, test or a two-operand ALU
 * operation between a register and a register or memory addressed
 * through registers (ModRM, optional SIB and displacement, no
 * immediate, not RIP-relative). What compilers duplicate after a call
 * is such register shuffling; anything else ends a copy.
 */
static inline unsigned int ftagent_plain_insn_len(const u8 *b,
						  unsigned int avail)
{
	unsigned int i = 0, mod, rm, len;

	if (avail && (b[0] & 0xf0) == 0x40)
		i = 1;
	if (i + 2 > avail)
		return 0;
	switch (b[i]) {
	case 0x01: case 0x03: case 0x09: case 0x0b: /* add, or */
	case 0x21: case 0x23: case 0x29: case 0x2b: /* and, sub */
	case 0x31: case 0x33: case 0x39: case 0x3b: /* xor, cmp */
	case 0x63: case 0x85: case 0x89: case 0x8b: case 0x8d:
		break;
	default:
		return 0;
	}
	mod = b[i + 1] >> 6;
	rm = b[i + 1] & 7;
	len = i + 2;
	if (mod == 0 && rm == 5)
		return 0;	/* RIP-relative */
	if (b[i] == 0x8d && mod == 3)
		return 0;	/* lea of a register: undefined */
	if (mod != 3 && rm == 4) {
		if (len >= avail)
			return 0;
		/* A SIB byte; with no base register, a 32-bit address. */
		if (mod == 0 && (b[len] & 7) == 5)
			len += 4;
		len++;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= avail ? len : 0;
}

/*
 * Follow the code at @ret_site as a copy of the code at @join: from each
 * stretch's start, instruction by instruction, plain instructions
 * (above) equal byte for byte to those at @join past what was copied so
 * far, then a jump whose target is @join past all that was copied
 * (done) or the next stretch. Plain instructions mean the same wherever
 * they sit, and both streams start at instruction boundaries and stay in
 * step, so the copy does what the code at @join does up to that point.
 * The result is ftagent_copy_rejoins()'s (callsites.h). The text is read
 * once: a jump that is a static key's, switched later, is not looked
 * for (compilers' tail copies do not end in one).
 */
static inline int ftagent_copy_walk(ftagent_text_read_t read, void *ctx,
				    unsigned long ret_site, unsigned long join,
				    const unsigned long *avoid, unsigned int n)
{
	u8 at_join[FTAGENT_COPY_MAX];
	u8 text[FTAGENT_COPY_MAX + FTAGENT_JMP_REL32_LEN];
	unsigned long p = ret_site, to;
	unsigned int hop, k = 0, m, len, jlen;

	if (read(ctx, join, at_join, sizeof(at_join)))
		return -EFAULT;
	for (hop = 0; hop < FTAGENT_COPY_HOPS; hop++) {
		/* Jumps only, to the join itself: its probe sees the result. */
		if (p == join)
			return k ? -EXDEV : 1;
		if (read(ctx, p, text, sizeof(text)))
			return -EFAULT;
		/* At most FTAGENT_COPY_MAX bytes copied in all. */
		for (m = 0;; m += len) {
			len = ftagent_plain_insn_len(text + m,
						     FTAGENT_COPY_MAX - k - m);
			if (!len)
				break;
			if (memcmp(text + m, at_join + k + m, len))
				return -EXDEV;
		}
		/* Another tracer's breakpoint hides the instruction. */
		if (text[m] == FTAGENT_INT3)
			return -EBUSY;
		jlen = ftagent_jump_at(text + m, p + m, &to);
		if (!jlen)
			return -EXDEV;
		/*
		 * The stretch and its jump must not hold another probed site
		 * (the return site itself aside) or the join's first byte,
		 * where the join's probe is: that would see the result twice,
		 * and an armed probe's int3 would change what runs.
		 */
		if (ftagent_any_in(avoid, n, hop ? p : p + 1, p + m + jlen - 1) ||
		    (join > p && join < p + m + jlen))
			return -EXDEV;
		k += m;
		/*
		 * Past the join's first 5 bytes: a jump-optimized probe there
		 * replaces them with a 5-byte jump, which the kernel checks
		 * no jump of the join's own function lands in, but not this
		 * one, which may come from another (a .cold part).
		 */
		if (k >= FTAGENT_JMP_REL32_LEN && to == join + k)
			return 0;
		if (k && to == join + k)
			return -EXDEV;
		p = to;
	}
	return -EXDEV;
}

#endif
