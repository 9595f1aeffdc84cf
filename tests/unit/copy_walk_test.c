// SPDX-License-Identifier: GPL-2.0
/*
 * The module's reading of a return site as a copy of the code after
 * another call (kmod/copy_walk.h), on text laid out here: the debug
 * kernel's ____sys_recvmsg(), byte for byte where it matters, where the
 * three calls of the inlined sock_recvmsg_nosec() return through copies
 * of the code after the call to sock_recvmsg() and join it 17 bytes on;
 * Debian's layout, where they jump back to it; and the layouts where a
 * probe on the return site would see a message that another probe sees
 * too, or code that is not a copy, which must be refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

typedef uint8_t u8;
typedef int8_t s8;
typedef int32_t s32;

#include "../../kmod/copy_walk.h"

/* ____sys_recvmsg+0x1d0 on the debug kernel (6.1, KASAN). */
#define BASE 0xffffffff8207c4c0UL
#define SIZE 0x400

struct text {
	u8 b[SIZE];
};

static int text_read(void *ctx, unsigned long addr, u8 *buf, unsigned int len)
{
	struct text *t = ctx;

	if (addr < BASE || addr + len > BASE + SIZE)
		return -EFAULT;
	memcpy(buf, t->b + (addr - BASE), len);
	return 0;
}

static void put(struct text *t, unsigned long addr, const u8 *bytes, size_t len)
{
	memcpy(t->b + (addr - BASE), bytes, len);
}

/* A jmp rel32 at @at to @to. */
static void jmp32(struct text *t, unsigned long at, unsigned long to)
{
	s32 rel = (s32)(to - (at + 5));
	u8 insn[5] = {0xe9};

	memcpy(insn + 1, &rel, sizeof(rel));
	put(t, at, insn, sizeof(insn));
}

#define JOIN  0xffffffff8207c4ccUL /* after call sock_recvmsg: the probe */
#define INET6 0xffffffff8207c70aUL /* after call inet6_recvmsg */
#define INET  0xffffffff8207c830UL /* after call inet_recvmsg */
#define THUNK 0xffffffff8207c848UL /* after call __x86_indirect_thunk_array */

static const u8 mov_r11[] = {0x4c, 0x8b, 0x9d, 0xe8, 0xfe, 0xff, 0xff};
static const u8 lea_r10[] = {0x4c, 0x8d, 0x95, 0x18, 0xff, 0xff, 0xff};
static const u8 movslq[] = {0x4c, 0x63, 0xc0};
static const u8 after[] = {0x44, 0x89, 0xc0, 0x4d, 0x85, 0xc0, 0x0f, 0x88};

/* mov, lea, movslq at @at: 17 bytes. */
static void copy17(struct text *t, unsigned long at)
{
	put(t, at, mov_r11, 7);
	put(t, at + 7, lea_r10, 7);
	put(t, at + 14, movslq, 3);
}

/* The debug kernel's layout. */
static void debug_layout(struct text *t)
{
	memset(t->b, 0x90, sizeof(t->b));
	copy17(t, JOIN);
	put(t, JOIN + 17, after, sizeof(after));
	copy17(t, INET6);
	jmp32(t, INET6 + 17, JOIN + 17);
	put(t, INET, mov_r11, 7);
	put(t, INET + 7, lea_r10, 7);
	jmp32(t, INET + 14, INET6 + 14);
	put(t, THUNK, mov_r11, 7);
	put(t, THUNK + 7, lea_r10, 7);
	jmp32(t, THUNK + 14, INET6 + 14);
}

static const unsigned long sites[] = {INET6, INET, THUNK};

static int walk(struct text *t, unsigned long site)
{
	return ftagent_copy_walk(text_read, t, site, JOIN, sites, 3);
}

static void debug_copies_are_probed_each(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	assert_int_equal(0, walk(&t, INET6));
	/* Through the tail of inet6_recvmsg's copy: two jumps. */
	assert_int_equal(0, walk(&t, INET));
	assert_int_equal(0, walk(&t, THUNK));
}

static void a_jump_back_is_left_to_the_join(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	jmp32(&t, INET6, JOIN);
	assert_int_equal(1, walk(&t, INET6));
	/* jmp rel8, as Debian's 6.1 has it, and a chain of jumps */
	t.b[INET - BASE] = 0xeb;
	t.b[INET - BASE + 1] = (u8)(BASE + 0x300 - (INET + 2));
	jmp32(&t, BASE + 0x300, JOIN);
	assert_int_equal(1, walk(&t, INET));
	/* A chain through another call's return site is not followed. */
	jmp32(&t, INET, INET6);
	assert_int_equal(-EXDEV, walk(&t, INET));
	assert_int_equal(
		1, ftagent_copy_walk(text_read, &t, JOIN, JOIN, sites, 3));
}

/* A copy that jumps to the join itself would run the copied code twice. */
static void copied_bytes_then_the_join_are_refused(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	jmp32(&t, INET + 14, JOIN);
	assert_int_equal(-EXDEV, walk(&t, INET));
}

/*
 * Cross-jumping to another probed return site, at once or after a copied
 * stretch: both probes would see the message.
 */
static void another_probed_site_on_the_path_is_refused(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	jmp32(&t, INET, THUNK);
	assert_int_equal(-EXDEV, walk(&t, INET));
	debug_layout(&t);
	jmp32(&t, INET + 14, THUNK);
	assert_int_equal(-EXDEV, walk(&t, INET));
}

/*
 * A return site just before the join, running into it: not a copy (the
 * check that no stretch passes the join's first byte is a second line
 * of defence behind this one).
 */
static void a_site_running_into_the_join_is_refused(void **state)
{
	static const unsigned long none[1];
	struct text t;

	(void)state;
	debug_layout(&t);
	put(&t, JOIN - 7, mov_r11, 7);
	assert_int_equal(-EXDEV, ftagent_copy_walk(text_read, &t, JOIN - 7,
						   JOIN, none, 0));
}

/*
 * Equal bytes that are not plain instructions prove nothing: a short
 * jump inside the code after the join goes elsewhere from the copy, a
 * call and a RIP-relative operand mean something else at another
 * address, and a jump byte inside an instruction is no jump.
 */
static void equal_bytes_that_mean_otherwise_are_refused(void **state)
{
	static const u8 short_jmp[] = {0xeb, 0x8d};
	static const u8 call[] = {0xe8, 0x10, 0x00, 0x00, 0x00};
	static const u8 rip_mov[] = {0x48, 0x8b, 0x05, 0x10, 0, 0, 0};
	static const u8 mov_cut[] = {0x4c, 0x8b, 0x9d};
	struct text t;

	(void)state;
	debug_layout(&t);
	put(&t, JOIN + 17, short_jmp, 2);
	put(&t, INET6 + 17, short_jmp, 2);
	jmp32(&t, INET6 + 19, JOIN + 19);
	assert_int_equal(-EXDEV, walk(&t, INET6));

	debug_layout(&t);
	put(&t, JOIN, call, 5);
	put(&t, INET6, call, 5);
	jmp32(&t, INET6 + 5, JOIN + 5);
	assert_int_equal(-EXDEV, walk(&t, INET6));

	debug_layout(&t);
	put(&t, JOIN, rip_mov, 7);
	put(&t, INET6, rip_mov, 7);
	jmp32(&t, INET6 + 7, JOIN + 7);
	assert_int_equal(-EXDEV, walk(&t, INET6));

	debug_layout(&t);
	put(&t, INET6, mov_cut, 3);
	jmp32(&t, INET6 + 3, JOIN + 3);
	assert_int_equal(-EXDEV, walk(&t, INET6));
}

/* A copy longer than FTAGENT_COPY_MAX is not followed to its end. */
static void a_copy_too_long_is_refused(void **state)
{
	static const unsigned long none[1];
	unsigned long copy = BASE + 0x200;
	struct text t;
	int i;

	(void)state;
	memset(t.b, 0x90, sizeof(t.b));
	for (i = 0; i < 10; i++) {
		put(&t, JOIN + 7 * i, mov_r11, 7);
		put(&t, copy + 7 * i, mov_r11, 7);
	}
	jmp32(&t, copy + 70, JOIN + 70);
	assert_int_equal(-EXDEV,
			 ftagent_copy_walk(text_read, &t, copy, JOIN, none, 0));
	/* Nine of them fit. */
	jmp32(&t, copy + 63, JOIN + 63);
	assert_int_equal(0,
			 ftagent_copy_walk(text_read, &t, copy, JOIN, none, 0));
}

/* Another call's return site where the copy's jump sits, or in it. */
static void another_site_at_the_jump_is_refused(void **state)
{
	const unsigned long at_jump[] = {INET6, INET6 + 17};
	const unsigned long in_jump[] = {INET6, INET6 + 19};
	struct text t;

	(void)state;
	debug_layout(&t);
	assert_int_equal(-EXDEV, ftagent_copy_walk(text_read, &t, INET6, JOIN,
						   at_jump, 2));
	assert_int_equal(-EXDEV, ftagent_copy_walk(text_read, &t, INET6, JOIN,
						   in_jump, 2));
}

/*
 * A copy of fewer than 5 bytes ends inside what a jump-optimized probe
 * at the join would overwrite; and lea of a register is no instruction.
 */
static void a_short_copy_or_a_bad_lea_is_refused(void **state)
{
	static const u8 lea_reg[] = {0x48, 0x8d, 0xc0};
	static const u8 mov_reg[] = {0x48, 0x89, 0xc7};
	static const unsigned long none[1];
	unsigned long copy = BASE + 0x200;
	struct text t;

	(void)state;
	memset(t.b, 0x90, sizeof(t.b));
	put(&t, JOIN, mov_reg, 3);
	put(&t, JOIN + 3, mov_reg, 3);
	put(&t, copy, mov_reg, 3);
	jmp32(&t, copy + 3, JOIN + 3);
	assert_int_equal(-EXDEV,
			 ftagent_copy_walk(text_read, &t, copy, JOIN, none, 0));
	put(&t, copy + 3, mov_reg, 3);
	jmp32(&t, copy + 6, JOIN + 6);
	assert_int_equal(0,
			 ftagent_copy_walk(text_read, &t, copy, JOIN, none, 0));
	put(&t, JOIN, lea_reg, 3);
	put(&t, copy, lea_reg, 3);
	assert_int_equal(-EXDEV,
			 ftagent_copy_walk(text_read, &t, copy, JOIN, none, 0));
}

static void code_that_differs_is_refused(void **state)
{
	static const u8 lea_r9[] = {0x4c, 0x8d, 0x8d, 0x18, 0xff, 0xff, 0xff};
	struct text t;

	(void)state;
	debug_layout(&t);
	put(&t, INET6 + 7, lea_r9, 7);
	assert_int_equal(-EXDEV, walk(&t, INET6));
	/* No jump where the bytes part */
	debug_layout(&t);
	t.b[INET6 + 17 - BASE] = 0x90;
	assert_int_equal(-EXDEV, walk(&t, INET6));
	/* The right bytes, but the jump lands short of what was copied */
	debug_layout(&t);
	jmp32(&t, INET6 + 17, JOIN + 14);
	assert_int_equal(-EXDEV, walk(&t, INET6));
}

static void jumps_that_go_round_are_refused(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	jmp32(&t, INET6 + 17, INET6 + 14);
	assert_int_equal(-EXDEV, walk(&t, INET6));
	/* Round and round, between two places that are no return site */
	jmp32(&t, INET, BASE + 0x300);
	jmp32(&t, BASE + 0x300, BASE + 0x310);
	jmp32(&t, BASE + 0x310, BASE + 0x300);
	assert_int_equal(-EXDEV, walk(&t, INET));
}

static void a_breakpoint_is_busy(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	t.b[INET6 + 7 - BASE] = 0xcc;
	assert_int_equal(-EBUSY, walk(&t, INET6));
}

static void unreadable_text_faults(void **state)
{
	struct text t;

	(void)state;
	debug_layout(&t);
	assert_int_equal(-EFAULT, ftagent_copy_walk(text_read, &t, BASE - 64,
						    JOIN, sites, 3));
	assert_int_equal(-EFAULT, ftagent_copy_walk(text_read, &t, INET6,
						    BASE + SIZE - 8, sites, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(debug_copies_are_probed_each),
		cmocka_unit_test(a_jump_back_is_left_to_the_join),
		cmocka_unit_test(copied_bytes_then_the_join_are_refused),
		cmocka_unit_test(another_probed_site_on_the_path_is_refused),
		cmocka_unit_test(a_site_running_into_the_join_is_refused),
		cmocka_unit_test(equal_bytes_that_mean_otherwise_are_refused),
		cmocka_unit_test(a_copy_too_long_is_refused),
		cmocka_unit_test(another_site_at_the_jump_is_refused),
		cmocka_unit_test(a_short_copy_or_a_bad_lea_is_refused),
		cmocka_unit_test(code_that_differs_is_refused),
		cmocka_unit_test(jumps_that_go_round_are_refused),
		cmocka_unit_test(a_breakpoint_is_busy),
		cmocka_unit_test(unreadable_text_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
