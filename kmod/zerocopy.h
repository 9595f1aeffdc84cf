/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP zero-copy receive counting (zerocopy.c). Process context; with
 * strict, a probe that will not attach fails the load, else it is said
 * in the log and in GET_STATUS (DEGRADED, the function MISSING).
 */
#ifndef _FTAGENT_ZEROCOPY_H
#define _FTAGENT_ZEROCOPY_H

#include <linux/types.h>

int ftagent_zerocopy_init(bool strict);
void ftagent_zerocopy_exit(void);
/*
 * After ftagent_zerocopy_exit(), once nothing can call
 * ftagent_zerocopy_count_missed() (the counters are gone): the probe's
 * memory goes.
 */
void ftagent_zerocopy_release(void);
/*
 * Count the calls the probe missed since last asked (no free instance)
 * as losses; any context.
 */
void ftagent_zerocopy_count_missed(void);

#endif /* _FTAGENT_ZEROCOPY_H */
