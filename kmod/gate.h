/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy gate: where the rule set decides, before the call runs.
 */
#ifndef _FTAGENT_GATE_H
#define _FTAGENT_GATE_H

#include <linux/types.h>
#include <linux/ftagent.h>

int ftagent_gate_init(void);
void ftagent_gate_exit(void);
/*
 * Hook exactly the operations in @ops (bits of enum ftagent_op); the
 * others come off. Process context, config lock held. 0 or -errno (the
 * hooks in place are kept on failure).
 */
int ftagent_gate_attach(u32 ops);
/* Verdicts since load, by enum ftagent_verdict. */
void ftagent_gate_verdicts(u64 counts[__FTAGENT_VERDICT_MAX]);

#endif /* _FTAGENT_GATE_H */
