/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel internals the module finds by name at load (symbols.c), and
 * the features that go without them.
 */
#ifndef _FTAGENT_SYMBOLS_H
#define _FTAGENT_SYMBOLS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/ftagent.h>

struct sk_buff;

/* Look every internal up; 0, or -ENOENT under strict=1 when one is missing. */
int ftagent_symbols_init(bool strict);

/* Bits of enum ftagent_feature that are off on this kernel. */
extern u32 ftagent_degraded;

static inline bool ftagent_feature_off(unsigned int feature)
{
	return ftagent_degraded & BIT(feature);
}

/* Put the names of the missing internals as a nest of @type NAME attrs. */
int ftagent_symbols_put_missing(struct sk_buff *msg, int nest_type,
				int name_type);

#endif /* _FTAGENT_SYMBOLS_H */
