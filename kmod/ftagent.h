/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces main.c calls in its init ladder, and the module's
 * version. Each .c file owns one job; see its header comment.
 */
#ifndef _FTAGENT_H
#define _FTAGENT_H

#include <linux/ftagent.h>

/* The module's release; dkms.conf carries the same string. */
#define FTAGENT_MODULE_VERSION	"0.2.0"

/* genl_ctl.c: the control family (admin only). */
int ftagent_genl_ctl_register(void);
void ftagent_genl_ctl_unregister(void);

/* genl_stats.c: the statistics family. */
int ftagent_genl_stats_register(void);
void ftagent_genl_stats_unregister(void);

#endif /* _FTAGENT_H */
