/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring requests counted and charged at completion (iouring.c).
 */
#ifndef _FTAGENT_IOURING_H
#define _FTAGENT_IOURING_H

#include <linux/types.h>

/*
 * Whether internal @name (symbols.c's table) is one this kernel's
 * io_uring hooks use: the two modes need different functions.
 */
bool ftagent_iouring_needs(const char *name);

/*
 * A receive run for io_uring request @req (ftagent_mmsg_iour_begin())
 * put @bytes into the caller's buffer that its result will not count (a
 * copy that faulted in a message that failed with EFAULT, a datagram
 * discarded for a bad checksum): filed under the request, and charged
 * with it when it completes. Any context, NMI included, in the issuing
 * task, while the request is being issued.
 */
void ftagent_iouring_landed(unsigned long req, u32 bytes);

/*
 * Process context, after the counters and filters are up. A hook that
 * will not attach turns io_uring counting off (DEGRADED), or with
 * @strict fails the load.
 */
int ftagent_iouring_init(bool strict);
void ftagent_iouring_exit(void);

/*
 * The records of io_uring opens and accepts (iouring_install.c): the
 * hook on fd_install(), set up by ftagent_iouring_init(), attached once
 * io_uring is in use (at once if a task has an io_uring context, else
 * by the first io_uring_setup() or io_uring_enter()), and taken off
 * with the other io_uring hooks. Process context.
 */
int ftagent_iouring_install_start(void);
void ftagent_iouring_install_stop(void);

#endif /* _FTAGENT_IOURING_H */
