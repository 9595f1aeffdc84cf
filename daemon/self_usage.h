/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon's own CPU, memory and descriptors, from /proc/self. */
#ifndef FTAGENTD_SELF_USAGE_H
#define FTAGENTD_SELF_USAGE_H

#include "ftagentd.h"

/*
 * Refresh @u; cpu_percent is over the time since the previous call
 * (@now_mono_ns is CLOCK_MONOTONIC). 0, or -1 if /proc can't be read.
 */
int ftd_self_usage_sample(struct ftd_self_usage *u, uint64_t now_mono_ns);

#endif /* FTAGENTD_SELF_USAGE_H */
