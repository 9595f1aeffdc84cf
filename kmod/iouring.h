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
 * Process context, after the counters and filters are up. A hook that
 * will not attach turns io_uring counting off (DEGRADED), or with
 * @strict fails the load.
 */
int ftagent_iouring_init(bool strict);
void ftagent_iouring_exit(void);

#endif /* _FTAGENT_IOURING_H */
