// SPDX-License-Identifier: GPL-2.0
/* Verdict records into the audit trail (audit_verdicts.h). */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "../tools/lib/records.h"
#include "audit_verdicts.h"
#include "event_json.h"

/* The record as an event of the log would hold it, and its JSON. */
static void append_one(struct ftd_audit *a, const struct ftd_collector *c,
		       const struct ftagent_rec *rec, uint64_t realtime_ns)
{
	struct ftd_proc_key key = {.tgid = rec->hdr->tgid};
	const struct ftd_proc *p;
	struct json_object *j;
	struct ftd_event *ev;

	ev = calloc(1, sizeof(*ev) + rec->hdr->size);
	if (!ev) {
		ftd_audit_append(a, realtime_ns, "verdict", NULL);
		return;
	}
	ev->realtime_ns = realtime_ns;
	ev->rec_size = rec->hdr->size;
	memcpy(ev->rec, rec->hdr, rec->hdr->size);
	p = ftd_table_find(&c->table[FTD_T_PROCESSES], &key);
	if (p)
		memcpy(ev->comm, p->comm, sizeof(ev->comm));
	j = ftd_event_json(ev);
	/* No memory for the text: counted as lost by the append. */
	ftd_audit_append(
		a, realtime_ns, "verdict",
		j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN)
		  : NULL);
	json_object_put(j);
	free(ev);
}

uint64_t ftd_audit_verdicts(struct ftd_audit *a, struct ftd_collector *c,
			    const unsigned char *recs, size_t len,
			    uint64_t realtime_offset_ns)
{
	uint64_t n = 0;
	size_t off;

	if (!ftd_audit_on(a) && !a->broken)
		return 0;
	pthread_mutex_lock(&c->lock);
	for (off = 0; off < len;) {
		struct ftagent_rec rec;
		size_t used;

		if (ftagent_rec_next(recs + off, len - off, &rec, &used,
				     NULL) != FTAGENT_REC_OK)
			break;
		if (rec.hdr->type == FTAGENT_REC_VERDICT) {
			append_one(a, c, &rec,
				   rec.hdr->time_ns + realtime_offset_ns);
			n++;
		}
		off += used;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}
