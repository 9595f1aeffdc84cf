// SPDX-License-Identifier: GPL-2.0
/*
 * The table of traced system calls.
 *
 * Minimal mode hooks only the calls that can move network bytes: the
 * socket calls, and read/write/readv/writev, sendfile and splice, which
 * also work on sockets, and preadv2/pwritev2, which with an offset of -1
 * are readv/writev and so work on sockets too. Standard mode adds the
 * positioned calls, which only work on files. Calls that may block for long (reads, receives,
 * accept) get more kretprobe instances, since each call in flight holds
 * one. bind, listen and the open calls are there for their events only.
 */
#include <linux/kernel.h>
#include <linux/ftagent.h>
#include <asm/unistd.h>

#include "calls.h"
#include "compat/syscall_names.h"

#define CALL_NR(name, nrname, cls, in_modes, active) {	\
	.symbol = FTAGENT_SYSCALL_SYM(name),		\
	.nr = __NR_##nrname,				\
	.class = FTAGENT_CALL_##cls,			\
	.modes = FTAGENT_IN_##in_modes,			\
	.maxactive = (active),				\
}

/* Not CALL_NR(name, name, ...): READ and WRITE are macros of their own. */
#define CALL(name, cls, in_modes, active) {		\
	.symbol = FTAGENT_SYSCALL_SYM(name),		\
	.nr = __NR_##name,				\
	.class = FTAGENT_CALL_##cls,			\
	.modes = FTAGENT_IN_##in_modes,			\
	.maxactive = (active),				\
}

/* Not through a shared helper macro: READ and WRITE would expand. */
#define IA32(name, nrname, cls, in_modes, active) {	\
	.symbol = FTAGENT_IA32_SYM(name),		\
	.nr = __NR_ia32_##nrname,			\
	.class = FTAGENT_CALL_##cls,			\
	.modes = FTAGENT_IN_##in_modes,			\
	.maxactive = (active),				\
	.ia32 = true,					\
}

#define IA32_COMPAT(name, nrname, cls, in_modes, active) {	\
	.symbol = FTAGENT_IA32_COMPAT_SYM(name),		\
	.nr = __NR_ia32_##nrname,				\
	.class = FTAGENT_CALL_##cls,				\
	.modes = FTAGENT_IN_##in_modes,				\
	.maxactive = (active),					\
	.ia32 = true,						\
}

#ifdef CONFIG_X86_X32_ABI
/* A 64-bit entry point x32 enters too, under a number of its own. */
#define CALL_X32(name, cls, in_modes, active) {		\
	.symbol = FTAGENT_SYSCALL_SYM(name),		\
	.nr = __NR_##name,				\
	.class = FTAGENT_CALL_##cls,			\
	.modes = FTAGENT_IN_##in_modes,			\
	.maxactive = (active),				\
	.x32_nr = __NR_x32_##name,			\
}

#define X32_COMPAT(name, nrname, cls, in_modes, active) {	\
	.symbol = FTAGENT_X32_COMPAT_SYM(name),			\
	.nr = __NR_x32_##nrname,				\
	.class = FTAGENT_CALL_##cls,				\
	.modes = FTAGENT_IN_##in_modes,				\
	.maxactive = (active),					\
	.x32 = true,						\
}
#else
#define CALL_X32 CALL
#endif

#define MANY	1024	/* blocking calls: one instance per waiting task */
#define FEW	256

const struct ftagent_call ftagent_calls[] = {
	CALL(read, READ, ALL, MANY),
	CALL_X32(readv, READ, ALL, MANY),
	CALL(pread64, READ, STANDARD, FEW),
	CALL(preadv, READ, STANDARD, FEW),
	CALL(preadv2, READ, ALL, MANY),
	CALL(write, WRITE, ALL, FEW),
	CALL_X32(writev, WRITE, ALL, FEW),
	CALL(pwrite64, WRITE, STANDARD, FEW),
	CALL(pwritev, WRITE, STANDARD, FEW),
	CALL(pwritev2, WRITE, ALL, FEW),
	CALL(recvfrom, RECV, ALL, MANY),
	CALL(recvmsg, RECV, ALL, MANY),
	CALL(recvmmsg, RECVMMSG, ALL, MANY),
	CALL(sendto, WRITE, ALL, FEW),
	CALL(sendmsg, WRITE, ALL, FEW),
	CALL(sendmmsg, SENDMMSG, ALL, FEW),
	/* sendfile64() is the 64-bit sendfile, __NR_sendfile on x86-64. */
	CALL_NR(sendfile64, sendfile, SENDFILE, ALL, FEW),
	CALL(splice, SPLICE, ALL, FEW),
	/* Regular files only: a read of one and a write of the other. */
	CALL(copy_file_range, COPY, STANDARD, FEW),
	CALL(connect, CONNECT, ALL, FEW),
	CALL(accept, ACCEPT, ALL, MANY),
	CALL(accept4, ACCEPT, ALL, MANY),
	CALL(bind, BIND, ALL, FEW),
	CALL(listen, LISTEN, ALL, FEW),
	CALL(open, OPEN, STANDARD, FEW),
	CALL(openat, OPENAT, STANDARD, FEW),
	CALL(openat2, OPENAT2, STANDARD, FEW),
	CALL(creat, CREAT, STANDARD, FEW),
#ifdef CONFIG_X86_X32_ABI
	/*
	 * x32's own entry points for the calls whose structures differ
	 * from the 64-bit ones (its readv and writev are the 64-bit ones,
	 * above). Each costs nothing until called.
	 */
	X32_COMPAT(preadv64, preadv, READ, STANDARD, FEW),
	X32_COMPAT(preadv64v2, preadv2, READ, ALL, MANY),
	X32_COMPAT(pwritev64, pwritev, WRITE, STANDARD, FEW),
	X32_COMPAT(pwritev64v2, pwritev2, WRITE, ALL, FEW),
	X32_COMPAT(recvfrom, recvfrom, RECV, ALL, MANY),
	X32_COMPAT(recvmsg, recvmsg, RECV, ALL, MANY),
	X32_COMPAT(recvmmsg_time64, recvmmsg, RECVMMSG, ALL, MANY),
	X32_COMPAT(sendmsg, sendmsg, WRITE, ALL, FEW),
	X32_COMPAT(sendmmsg, sendmmsg, SENDMMSG, ALL, FEW),
#endif
#ifdef CONFIG_IA32_EMULATION
	/*
	 * The same calls through the 32-bit entry points: int $0x80 from any
	 * process, and ia32 programs. Each costs nothing until called.
	 */
	IA32(read, read, READ, ALL, MANY),
	IA32(readv, readv, READ, ALL, MANY),
	IA32(ia32_pread64, pread64, READ, STANDARD, FEW),
	IA32_COMPAT(preadv, preadv, READ, STANDARD, FEW),
	IA32_COMPAT(preadv2, preadv2, READ, ALL, MANY),
	IA32(write, write, WRITE, ALL, FEW),
	IA32(writev, writev, WRITE, ALL, FEW),
	IA32(ia32_pwrite64, pwrite64, WRITE, STANDARD, FEW),
	IA32_COMPAT(pwritev, pwritev, WRITE, STANDARD, FEW),
	IA32_COMPAT(pwritev2, pwritev2, WRITE, ALL, FEW),
	IA32_COMPAT(recvfrom, recvfrom, RECV, ALL, MANY),
	IA32_COMPAT(recvmsg, recvmsg, RECV, ALL, MANY),
	IA32_COMPAT(recvmmsg_time32, recvmmsg, RECVMMSG, ALL, MANY),
	IA32_COMPAT(recvmmsg_time64, recvmmsg_time64, RECVMMSG, ALL, MANY),
	IA32(sendto, sendto, WRITE, ALL, FEW),
	IA32_COMPAT(sendmsg, sendmsg, WRITE, ALL, FEW),
	IA32_COMPAT(sendmmsg, sendmmsg, SENDMMSG, ALL, FEW),
	IA32_COMPAT(sendfile, sendfile, SENDFILE, ALL, FEW),
	IA32(sendfile64, sendfile64, SENDFILE, ALL, FEW),
	IA32(splice, splice, SPLICE, ALL, FEW),
	IA32(copy_file_range, copy_file_range, COPY, STANDARD, FEW),
	IA32(connect, connect, CONNECT, ALL, FEW),
	IA32(accept4, accept4, ACCEPT, ALL, MANY),
	IA32(bind, bind, BIND, ALL, FEW),
	IA32(listen, listen, LISTEN, ALL, FEW),
	/* What ia32 glibc uses for every socket call above. */
	IA32_COMPAT(socketcall, socketcall, SOCKETCALL, ALL, MANY),
	IA32_COMPAT(open, open, OPEN, STANDARD, FEW),
	IA32_COMPAT(openat, openat, OPENAT, STANDARD, FEW),
	IA32(openat2, openat2, OPENAT2, STANDARD, FEW),
	IA32(creat, creat, CREAT, STANDARD, FEW),
#endif
};

const unsigned int ftagent_nr_calls = ARRAY_SIZE(ftagent_calls);
