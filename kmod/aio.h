/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux AIO (io_submit) reads and writes, counted and charged when they
 * complete (aio.c).
 */
#ifndef _FTAGENT_AIO_H
#define _FTAGENT_AIO_H

#include <linux/types.h>

/*
 * At load, after the hooks: attach the two AIO hooks. 0, or -errno when
 * the load must fail (strict=1, or out of memory); otherwise a hook that
 * will not attach leaves FTAGENT_FEATURE_AIO DEGRADED.
 */
int ftagent_aio_init(bool strict);
/* Take the hooks off, add the counts still queued, free the rest. */
void ftagent_aio_exit(void);

#endif /* _FTAGENT_AIO_H */
