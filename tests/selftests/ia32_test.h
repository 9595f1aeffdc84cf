/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 32-bit entry from a 64-bit selftest, shared by the tests that try
 * it as a way around a count or a budget.
 */
#ifndef FTAGENT_IA32_TEST_H
#define FTAGENT_IA32_TEST_H

/* A 32-bit system call through int $0x80: the result, or -errno. */
static long call32(long nr, long a1, long a2, long a3, long a4, long a5)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5)
			 : "memory");
	return ret;
}

#endif /* FTAGENT_IA32_TEST_H */
