/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command words of tests/helpers/ia32_exec, a real ia32 program the
 * selftests drive: shared by the program (built -m32) and the 64-bit
 * tests, so only fixed-width fields.
 */
#ifndef FTAGENT_IA32_EXEC_H
#define FTAGENT_IA32_EXEC_H

/* The bytes the program keeps for POKE and for calls to use. */
#define IA32_EXEC_BUF (256 * 1024)

/* The ia32 numbers it needs itself (arch/x86/entry/syscalls/syscall_32.tbl). */
#define IA32_NR_EXIT  1
#define IA32_NR_READ  3
#define IA32_NR_WRITE 4

enum ia32_op {
	IA32_OP_EXIT, /* exit(args[0]); no answer */
	IA32_OP_BASE, /* answer: the address of its buffer */
	IA32_OP_POKE, /* len bytes follow; they go to buffer + args[0] */
	IA32_OP_CALL, /* system call nr(args), answer: its result */
};

enum ia32_entry {
	IA32_ENTRY_INT80,    /* int $0x80 */
	IA32_ENTRY_VSYSCALL, /* the vDSO's __kernel_vsyscall */
};

struct ia32_cmd {
	unsigned int op, entry, nr;
	unsigned int args[6];
	unsigned int rel; /* bit i: args[i] is an offset into the buffer */
	unsigned int len;
};

#endif /* FTAGENT_IA32_EXEC_H */
