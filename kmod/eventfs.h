/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentfs: the module's own filesystem for the relay files, mounted by
 * the user at /sys/fs/ftagent.
 */
#ifndef _FTAGENT_EVENTFS_H
#define _FTAGENT_EVENTFS_H

#include <linux/dcache.h>

int ftagent_eventfs_init(void);
void ftagent_eventfs_exit(void);

/* Create or remove a read-only file for relay buffer @data under @parent. */
struct dentry *ftagent_eventfs_create_file(const char *name,
					   struct dentry *parent, umode_t mode,
					   void *data);
void ftagent_eventfs_remove_file(struct dentry *dentry);

/* Keep read() out of every event file (a channel is being closed). */
void ftagent_eventfs_readers_lock(void);
void ftagent_eventfs_readers_unlock(void);

#endif /* _FTAGENT_EVENTFS_H */
