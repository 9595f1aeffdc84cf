/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's configuration: set at load by module parameters, changed
 * at run time through the control family. One lock serialises changes,
 * hook (re)attachment and the reads that must see a consistent set.
 */
#ifndef _FTAGENT_CONFIG_H
#define _FTAGENT_CONFIG_H

#include <linux/netlink.h>
#include <linux/types.h>

struct ftagent_config {
	u32 mode;		/* enum ftagent_mode */
	u32 hooks;		/* enum ftagent_hook_set */
	u32 flush_interval_ms;
	u32 ring_buffer_size;	/* 0: the mode's default */
};

#define FTAGENT_FLUSH_INTERVAL_MAX_MS	60000

/* The event buffer size @cfg asks for, defaults resolved. */
u32 ftagent_config_ring_bytes(const struct ftagent_config *cfg);

int ftagent_config_init(void);
void ftagent_config_exit(void);

void ftagent_config_lock(void);
void ftagent_config_unlock(void);
/* Caller holds the config lock. */
const struct ftagent_config *ftagent_config_get(void);
/*
 * Apply @next (caller holds the lock): re-attaches hooks when the mode or
 * hook set changed. On failure the previous configuration is restored and
 * @extack says why.
 */
int ftagent_config_apply(const struct ftagent_config *next,
			 struct netlink_ext_ack *extack);

#endif /* _FTAGENT_CONFIG_H */
