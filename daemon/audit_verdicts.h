/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdict records into the audit trail. Called on a drain's records
 * before they are journaled: a daemon killed after journaling them would
 * otherwise replay them into its tables but never into the trail. The
 * command name is the one the process table holds when they are read.
 */
#ifndef FTAGENTD_AUDIT_VERDICTS_H
#define FTAGENTD_AUDIT_VERDICTS_H

#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "collector.h"

/*
 * Append every VERDICT record among @len bytes of whole records to @a,
 * as the API renders the event (docs/events.md), stamped with its time
 * (the record's CLOCK_MONOTONIC plus @realtime_offset_ns). Takes c->lock
 * to read names. Returns the records appended; failures are counted in @a.
 */
uint64_t ftd_audit_verdicts(struct ftd_audit *a, struct ftd_collector *c,
			    const unsigned char *recs, size_t len,
			    uint64_t realtime_offset_ns);

#endif /* FTAGENTD_AUDIT_VERDICTS_H */
