/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kretprobes the kernel keeps after unregistering them (kprobe_kept.c):
 * their memory must stay allocated for good.
 */
#ifndef _FTAGENT_KPROBE_KEPT_H
#define _FTAGENT_KPROBE_KEPT_H

#include <linux/kprobes.h>

/*
 * After unregister_kretprobe(s)(): false if the kernel kept @rp in its
 * kprobe table. @rp is then marked disabled; its memory must never be
 * reused or freed, and the caller says so (ftagent_kprobes_kept_say()).
 * Process context.
 */
bool ftagent_kretprobe_let_go(struct kretprobe *rp);
/* The log line for @n probes kept by one unregister, @first among them. */
void ftagent_kprobes_kept_say(unsigned int n, const char *first);

#endif /* _FTAGENT_KPROBE_KEPT_H */
