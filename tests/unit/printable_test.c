// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl's text output never hands the terminal a control sequence: names
 * and paths (which any local user chooses) keep their text, and C0, C1
 * (as UTF-8 or as a raw 8-bit byte), DEL and invalid UTF-8 become '?'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/ftctl/human.h"

static void expect(const char *in, const char *want)
{
	char buf[64];

	assert_string_equal(want, ftctl_printable(in, buf, sizeof(buf)));
}

static void controls_become_question_marks(void **state)
{
	(void)state;
	expect("nginx", "nginx");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", /* é € 😀 */
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	expect("\x1b]0;owned\x07x", "?]0;owned?x"); /* C0: OSC title */
	expect("a\x1b[2Jb\x7f", "a?[2Jb?");	    /* CSI, DEL */
	expect("\xc2\x9b"
	       "31mred",
	       "??31mred"); /* U+009B CSI */
	expect("\x9b"
	       "31mred",
	       "?31mred");			 /* raw 8-bit CSI */
	expect("\xc2\x85next", "??next");	 /* U+0085 NEL */
	expect("\xc0\xaf\xed\xa0\x80", "?????"); /* overlong, surrogate */
	expect("\xe2\x82", "??");		 /* cut short */
}

static void never_half_a_character(void **state)
{
	char buf[4];

	(void)state;
	/* "ab" + a 3-byte character does not fit in 3 bytes + NUL. */
	assert_string_equal(
		"ab", ftctl_printable("ab\xe2\x82\xac", buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controls_become_question_marks),
		cmocka_unit_test(never_half_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
