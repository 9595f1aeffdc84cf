// SPDX-License-Identifier: GPL-2.0
/* Changes of the sets in force into the audit trail (audit_sets.h). */
#include <string.h>
#include <json-c/json.h>

#include "../tools/lib/budgets.h"
#include "../tools/lib/filters.h"
#include "../tools/lib/policy.h"
#include "../tools/lib/set_digest.h"
#include "audit_sets.h"
#include "collector.h"

enum { SET_POLICY, SET_BUDGETS, SET_FILTERS };

static const char *const set_names[] = {"policy", "budgets", "filters"};

/* Record set @which if its digest (or @generation) moved. */
static void note(struct ftd_audit_sets *s, struct ftd_audit *a, int which,
		 const char *digest, uint64_t generation, uint64_t size,
		 const char *by)
{
	struct json_object *o;

	if (s->known[which] && !strcmp(s->digest[which], digest) &&
	    (which != SET_POLICY || generation == s->policy_generation))
		return;
	o = json_object_new_object();
	json_object_object_add(o, "set",
			       json_object_new_string(set_names[which]));
	if (which == SET_POLICY)
		json_object_object_add(o, "generation",
				       json_object_new_uint64(generation));
	json_object_object_add(o, "digest", json_object_new_string(digest));
	json_object_object_add(
		o, "previous_digest",
		s->known[which] ? json_object_new_string(s->digest[which])
				: NULL);
	json_object_object_add(o, which == SET_FILTERS ? "names" : "entries",
			       json_object_new_uint64(size));
	json_object_object_add(o, "by", json_object_new_string(by));
	ftd_audit_append(
		a, ftd_clock_ns(CLOCK_REALTIME), "change",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	s->known[which] = 1;
	memcpy(s->digest[which], digest, sizeof(s->digest[which]));
	if (which == SET_POLICY)
		s->policy_generation = generation;
}

void ftd_audit_sets_check(struct ftd_audit_sets *s, struct ftd_audit *a,
			  struct ftd_module *m, const char *by, uint64_t now_ns)
{
	char digest[FTAGENT_AUDIT_HEX_LEN + 1];
	struct ftagent_policy_spec p;
	struct ftagent_budget_set b = {0};
	struct ftagent_filters f;
	struct ftnl_error err;

	if (!ftd_audit_on(a))
		return;
	s->last_check_ns = now_ns;
	if (m->status.abi_minor >= FTD_MINOR_POLICY) {
		ftagent_policy_spec_init(&p);
		if (ftagent_get_policy(&m->ctl, &p, &err) == 0) {
			ftagent_policy_digest(&p, digest);
			note(s, a, SET_POLICY, digest, p.generation, p.n, by);
		} else {
			s->read_errors++;
		}
		ftagent_policy_spec_free(&p);
		if (ftagent_get_budgets(&m->ctl, &b, &err) == 0) {
			ftagent_budgets_digest(&b, digest);
			note(s, a, SET_BUDGETS, digest, 0, b.n, by);
		} else {
			s->read_errors++;
		}
		ftagent_budget_set_free(&b);
	}
	ftagent_filters_init(&f);
	if (ftagent_get_filters(&m->ctl, &f, &err) == 0) {
		ftagent_filters_digest(&f, digest);
		note(s, a, SET_FILTERS, digest, 0,
		     f.exclude_processes.n + f.exclude_paths.n, by);
	} else {
		s->read_errors++;
	}
	ftagent_filters_free(&f);
}

void ftd_audit_sets_tick(struct ftd_audit_sets *s, struct ftd_audit *a,
			 struct ftd_module *m, uint64_t now_ns)
{
	if (now_ns - s->last_check_ns >= FTD_AUDIT_SETS_CHECK_NS)
		ftd_audit_sets_check(s, a, m, "seen", now_ns);
}
