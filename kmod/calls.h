/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced system calls: which entry point, what its arguments and
 * return value mean, and in which modes it is hooked.
 */
#ifndef _FTAGENT_CALLS_H
#define _FTAGENT_CALLS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/ftagent.h>

enum ftagent_call_class {
	FTAGENT_CALL_READ,	/* bytes in from fd arg0 */
	FTAGENT_CALL_WRITE,	/* bytes out to fd arg0 */
	/* in from socket arg0; bytes: what the socket gave, even on EFAULT */
	FTAGENT_CALL_RECV,
	FTAGENT_CALL_RECVMMSG,	/* in from socket arg0; bytes: sum of msg_len */
	FTAGENT_CALL_SENDMMSG,	/* out to socket arg0; bytes: sum of msg_len */
	FTAGENT_CALL_SENDFILE,	/* in from arg1, out to arg0, a transfer */
	FTAGENT_CALL_SPLICE,	/* in from arg0, out to arg2 */
	FTAGENT_CALL_COPY,	/* file to file: in from arg0, out to arg2 */
	FTAGENT_CALL_SOCKETCALL, /* ia32: call arg0, its arguments at arg1 */
	FTAGENT_CALL_CONNECT,	/* a call out on socket arg0, no bytes */
	FTAGENT_CALL_ACCEPT,	/* a call in on the returned socket */
	/* Events only, no counts: */
	FTAGENT_CALL_BIND,	/* socket arg0 */
	FTAGENT_CALL_LISTEN,	/* socket arg0, backlog arg1 */
	FTAGENT_CALL_OPEN,	/* returns a descriptor; flags in arg1 */
	FTAGENT_CALL_OPENAT,	/* flags in arg2 */
	FTAGENT_CALL_OPENAT2,	/* flags in the struct open_how at arg2 */
	FTAGENT_CALL_CREAT,	/* flags: O_CREAT | O_WRONLY | O_TRUNC */
};

#define FTAGENT_IN_MINIMAL	BIT(FTAGENT_MODE_MINIMAL)
#define FTAGENT_IN_STANDARD	BIT(FTAGENT_MODE_STANDARD)
#define FTAGENT_IN_ALL		(FTAGENT_IN_MINIMAL | FTAGENT_IN_STANDARD)

struct ftagent_call {
	const char *symbol;	/* the syscall's entry point */
	unsigned int nr;	/* its number, as in orig_ax */
	u8 class;		/* enum ftagent_call_class */
	u8 modes;		/* FTAGENT_IN_* */
	u16 maxactive;		/* kretprobe: calls that may be in flight */
	bool ia32;		/* a 32-bit entry point: nr in the ia32 table */
	/*
	 * An x32 entry point (__x64_compat_sys_*): the 64-bit registers,
	 * the compat structures (msghdr, mmsghdr, iovec), nr in the x32
	 * table (512 and up).
	 */
	bool x32;
	/* The x32 number that enters here too (readv, writev), or 0. */
	u16 x32_nr;
};

extern const struct ftagent_call ftagent_calls[];
extern const unsigned int ftagent_nr_calls;

#endif /* _FTAGENT_CALLS_H */
