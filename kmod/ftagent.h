/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces shared by the files of ftagent.ko. Each .c file owns
 * one job; this header names the entry points main.c calls in its init
 * ladder and the little state the others read.
 */
#ifndef _FTAGENT_H
#define _FTAGENT_H

#include <linux/ftagent.h>

/* The module's release; dkms.conf carries the same string. */
#define FTAGENT_MODULE_VERSION	"0.1.0"

/* genl_ctl.c: the control family (admin only). */
int ftagent_genl_ctl_register(void);
void ftagent_genl_ctl_unregister(void);

/* genl_stats.c: the statistics family. */
int ftagent_genl_stats_register(void);
void ftagent_genl_stats_unregister(void);

/* main.c */
enum ftagent_state ftagent_state(void);

#endif /* _FTAGENT_H */
