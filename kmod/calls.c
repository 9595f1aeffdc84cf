// SPDX-License-Identifier: GPL-2.0
/*
 * The table of traced system calls.
 *
 * Minimal mode hooks only the calls that can move network bytes: the
 * socket calls, and read/write/readv/writev, sendfile and splice, which
 * also work on sockets. Standard mode adds the positioned calls, which
 * only work on files. Calls that may block for long (reads, receives,
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

#define MANY	1024	/* blocking calls: one instance per waiting task */
#define FEW	256

const struct ftagent_call ftagent_calls[] = {
	CALL(read, READ, ALL, MANY),
	CALL(readv, READ, ALL, MANY),
	CALL(pread64, READ, STANDARD, FEW),
	CALL(preadv, READ, STANDARD, FEW),
	CALL(preadv2, READ, STANDARD, FEW),
	CALL(write, WRITE, ALL, FEW),
	CALL(writev, WRITE, ALL, FEW),
	CALL(pwrite64, WRITE, STANDARD, FEW),
	CALL(pwritev, WRITE, STANDARD, FEW),
	CALL(pwritev2, WRITE, STANDARD, FEW),
	CALL(recvfrom, READ, ALL, MANY),
	CALL(recvmsg, READ, ALL, MANY),
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
};

const unsigned int ftagent_nr_calls = ARRAY_SIZE(ftagent_calls);
