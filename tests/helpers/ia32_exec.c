// SPDX-License-Identifier: GPL-2.0
/*
 * A real ia32 program for the selftests (evasion_ia32): a static 32-bit
 * ELF with no C library, which makes the system calls a 64-bit test asks
 * for, through int $0x80 or through the vDSO's __kernel_vsyscall (the
 * SYSENTER/SYSCALL entry that ia32 glibc uses), and answers with their
 * results. A 64-bit process's int $0x80 is not all an ia32 process is:
 * this one is compat from exec on, and its calls take the other entry.
 *
 * Commands come on descriptor 0, results go to descriptor 1, each a
 * little-endian 32-bit word (struct ia32_cmd below, then for POKE its
 * bytes). Both are read and written through int $0x80 with exact sizes,
 * so that the test knows every byte the program itself moves.
 *
 * Built with -m32 -ffreestanding -nostdlib -static (tests/helpers in the
 * Makefile); it must not be run as a test itself.
 */
#include "ia32_exec.h"

/* AT_SYSINFO: the vDSO's __kernel_vsyscall, from the auxiliary vector. */
#define AUX_SYSINFO 32

/* Where POKE puts bytes and calls find them (BASE tells its address). */
static unsigned char buf[IA32_EXEC_BUF] __attribute__((aligned(64)));

/* The entry __kernel_vsyscall is at; do_call's asm calls through it. */
unsigned int vsys_target;

long do_call(unsigned int use_vsys, unsigned int nr, const unsigned int *a);
void start_c(unsigned int *sp) __attribute__((used, noreturn));

/*
 * do_call(use_vsys, nr, a[6]): the call, with a[0..5] in ebx, ecx, edx,
 * esi, edi and ebp, through __kernel_vsyscall or int $0x80.
 */
__asm__(".text\n"
	".globl do_call\n"
	"do_call:\n"
	"	push %ebp\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov 24(%esp), %eax\n"
	"	mov 28(%esp), %ebp\n"
	"	mov 0(%ebp), %ebx\n"
	"	mov 4(%ebp), %ecx\n"
	"	mov 8(%ebp), %edx\n"
	"	mov 12(%ebp), %esi\n"
	"	mov 16(%ebp), %edi\n"
	"	cmpl $0, 20(%esp)\n"
	"	mov 20(%ebp), %ebp\n"
	"	je 1f\n"
	"	call *vsys_target\n"
	"	jmp 2f\n"
	"1:	int $0x80\n"
	"2:	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	pop %ebp\n"
	"	ret\n"
	".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %esp, %eax\n"
	"	and $-16, %esp\n"
	"	sub $12, %esp\n"
	"	push %eax\n"
	"	call start_c\n"
	"	hlt\n");

static long call80(unsigned int nr, unsigned int a0, unsigned int a1,
		   unsigned int a2)
{
	unsigned int a[6] = {a0, a1, a2, 0, 0, 0};

	return do_call(0, nr, a);
}

static void __attribute__((noreturn)) leave(unsigned int code)
{
	for (;;)
		call80(IA32_NR_EXIT, code, 0, 0);
}

/* All of @len bytes from descriptor 0, or leave: the test has gone. */
static void read_all(void *to, unsigned int len)
{
	unsigned char *p = to;
	long n;

	while (len) {
		n = call80(IA32_NR_READ, 0, (unsigned int)p, len);
		if (n <= 0)
			leave(n ? 120 : 0);
		p += n;
		len -= n;
	}
}

static void answer(int value)
{
	if (call80(IA32_NR_WRITE, 1, (unsigned int)&value, 4) != 4)
		leave(121);
}

void start_c(unsigned int *sp)
{
	unsigned int argc = sp[0], *p = sp + 1 + argc + 1, i;
	struct ia32_cmd c;

	/* Past argv and envp (each ends with a null): the auxiliary vector. */
	while (*p)
		p++;
	for (p++; p[0]; p += 2)
		if (p[0] == AUX_SYSINFO)
			vsys_target = p[1];
	for (;;) {
		read_all(&c, sizeof(c));
		switch (c.op) {
		case IA32_OP_BASE: answer((int)(unsigned int)buf); break;
		case IA32_OP_POKE:
			if (c.args[0] > IA32_EXEC_BUF ||
			    c.len > IA32_EXEC_BUF - c.args[0])
				leave(122);
			read_all(buf + c.args[0], c.len);
			answer(0);
			break;
		case IA32_OP_CALL:
			if (c.entry == IA32_ENTRY_VSYSCALL && !vsys_target)
				leave(123);
			for (i = 0; i < 6; i++)
				if (c.rel & (1u << i))
					c.args[i] += (unsigned int)buf;
			answer((int)do_call(c.entry == IA32_ENTRY_VSYSCALL,
					    c.nr, c.args));
			break;
		case IA32_OP_EXIT: leave(c.args[0]);
		default: leave(124);
		}
	}
}
