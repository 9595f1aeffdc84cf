// SPDX-License-Identifier: GPL-2.0
/* The module's status and resources as JSON, both ways (module_view.h). */
#include <stdlib.h>
#include <string.h>

#include "module_view.h"

static void put(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static struct json_object *u64_array(const uint64_t *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

struct json_object *ftagent_module_view_json(const struct ftagent_status *st,
					     const struct ftagent_resources *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cpus = json_object_new_array();
	struct json_object *hooks = json_object_new_array();
	size_t i;

	put(o, "abi_major", st->abi_major);
	put(o, "abi_minor", st->abi_minor);
	json_object_object_add(o, "module_version",
			       json_object_new_string(st->module_version));
	put(o, "mode", r->mode);
	put(o, "hooks", r->hooks);
	put(o, "state", r->state);
	put(o, "nr_cpus", r->nr_cpus);
	put(o, "table_capacity", r->table_capacity);
	put(o, "gen_acked", r->gen_acked);
	put(o, "memory_bytes", r->memory_bytes);
	put(o, "flush_count", r->flush_count);
	put(o, "gen_seq", r->gen_seq);
	put(o, "ring_buffer_size", r->ring_buffer_size);
	put(o, "subbuf_size", r->subbuf_size);
	put(o, "n_subbufs", r->n_subbufs);
	put(o, "excluded_tgids", r->excluded_tgids);
	put(o, "exclude_missed", r->exclude_missed);
	/* ABI 0.5: what this kernel lacks, and how the ftrace set hooks. */
	if (st->present & FTAGENT_STATUS_HAVE_DEGRADED) {
		struct json_object *missing = json_object_new_array();

		put(o, "degraded", st->degraded);
		for (i = 0; i < st->n_missing && i < FTAGENT_MISSING_MAX; i++)
			json_object_array_add(missing, json_object_new_string(
							       st->missing[i]));
		json_object_object_add(o, "missing", missing);
	}
	if (st->present & FTAGENT_STATUS_HAVE_DIRECT)
		put(o, "direct_calls", st->direct_calls);
	if (st->present & FTAGENT_STATUS_HAVE_EXIT_WORK)
		put(o, "exit_work", st->exit_work);
	if (st->present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED)
		put(o, "accepts_refused", st->accepts_refused);
	for (i = 0; i < r->n_cpus; i++) {
		const struct ftagent_cpu_stats *c = &r->cpus[i];
		struct json_object *j = json_object_new_object();

		put(j, "cpu", c->cpu);
		put(j, "fill", c->fill);
		put(j, "peak", c->peak);
		put(j, "entries", c->entries);
		json_object_object_add(j, "lost",
				       u64_array(c->lost, __FTAGENT_LOSS_MAX));
		put(j, "ev_emitted", c->ev_emitted);
		put(j, "ev_delivered", c->ev_delivered);
		put(j, "ev_peak_bytes", c->ev_peak_bytes);
		put(j, "ev_discarded", c->ev_discarded);
		json_object_object_add(
			j, "ev_lost",
			u64_array(c->ev_lost, __FTAGENT_EV_LOSS_MAX));
		json_object_array_add(cpus, j);
	}
	json_object_object_add(o, "cpus", cpus);
	for (i = 0; i < r->n_hooks; i++) {
		const struct ftagent_hook_stats *h = &r->hook[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "name",
				       json_object_new_string(h->name));
		put(j, "kind", h->kind);
		put(j, "state", h->state);
		put(j, "error", h->error);
		put(j, "hits", h->hits);
		put(j, "missed", h->missed);
		json_object_array_add(hooks, j);
	}
	json_object_object_add(o, "hook_list", hooks);
	return o;
}

static int get(struct json_object *o, const char *k, uint64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_int))
		return -1;
	*v = json_object_get_uint64(x);
	return 0;
}

static int get32(struct json_object *o, const char *k, uint32_t *v)
{
	uint64_t x;

	if (get(o, k, &x) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int get_array(struct json_object *o, const char *k, uint64_t *v,
		     size_t n)
{
	struct json_object *a;
	size_t i;

	if (!json_object_object_get_ex(o, k, &a) ||
	    !json_object_is_type(a, json_type_array))
		return -1;
	/* A newer daemon may know more causes: those are left out. */
	for (i = 0; i < n && i < json_object_array_length(a); i++)
		v[i] = json_object_get_uint64(json_object_array_get_idx(a, i));
	return 0;
}

static int get_string(struct json_object *o, const char *k, char *out,
		      size_t size)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_string) ||
	    (size_t)json_object_get_string_len(x) >= size)
		return -1;
	strcpy(out, json_object_get_string(x));
	return 0;
}

/* The 0.5, 0.7 and 0.9 fields, each optional (older daemons and modules lack them). */
static int parse_degraded(struct json_object *j, struct ftagent_status *st)
{
	struct json_object *missing, *name;
	uint64_t v;
	size_t i;

	if (!get(j, "direct_calls", &v)) {
		st->direct_calls = v != 0;
		st->present |= FTAGENT_STATUS_HAVE_DIRECT;
	}
	if (!get(j, "exit_work", &v)) {
		st->exit_work = v != 0;
		st->present |= FTAGENT_STATUS_HAVE_EXIT_WORK;
	}
	if (!get(j, "accepts_refused", &v)) {
		st->accepts_refused = v;
		st->present |= FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED;
	}
	if (get(j, "degraded", &v))
		return 0;
	if (v > UINT32_MAX ||
	    !json_object_object_get_ex(j, "missing", &missing) ||
	    !json_object_is_type(missing, json_type_array))
		return -1;
	st->degraded = (uint32_t)v;
	st->present |= FTAGENT_STATUS_HAVE_DEGRADED;
	st->n_missing = json_object_array_length(missing);
	for (i = 0; i < st->n_missing && i < FTAGENT_MISSING_MAX; i++) {
		name = json_object_array_get_idx(missing, i);
		if (!json_object_is_type(name, json_type_string) ||
		    json_object_get_string_len(name) >=
			    FTAGENT_MISSING_NAME_MAX)
			return -1;
		strcpy(st->missing[i], json_object_get_string(name));
	}
	return 0;
}

int ftagent_module_view_parse(struct json_object *j, struct ftagent_status *st,
			      struct ftagent_resources *r)
{
	struct json_object *cpus, *hooks;
	size_t i, n;

	memset(st, 0, sizeof(*st));
	memset(r, 0, sizeof(*r));
	if (!j || get32(j, "abi_major", &st->abi_major) ||
	    get32(j, "abi_minor", &st->abi_minor) ||
	    get_string(j, "module_version", st->module_version,
		       sizeof(st->module_version)) ||
	    get32(j, "mode", &r->mode) || get32(j, "hooks", &r->hooks) ||
	    get32(j, "state", &r->state) || get32(j, "nr_cpus", &r->nr_cpus) ||
	    get32(j, "table_capacity", &r->table_capacity) ||
	    get32(j, "gen_acked", &r->gen_acked) ||
	    get(j, "memory_bytes", &r->memory_bytes) ||
	    get(j, "flush_count", &r->flush_count) ||
	    get(j, "gen_seq", &r->gen_seq) ||
	    get32(j, "ring_buffer_size", &r->ring_buffer_size) ||
	    get32(j, "subbuf_size", &r->subbuf_size) ||
	    get32(j, "n_subbufs", &r->n_subbufs) ||
	    get32(j, "excluded_tgids", &r->excluded_tgids) ||
	    get(j, "exclude_missed", &r->exclude_missed) ||
	    !json_object_object_get_ex(j, "cpus", &cpus) ||
	    !json_object_is_type(cpus, json_type_array) ||
	    !json_object_object_get_ex(j, "hook_list", &hooks) ||
	    !json_object_is_type(hooks, json_type_array))
		return -1;
	st->state = r->state;
	st->present = FTAGENT_STATUS_HAVE_ABI | FTAGENT_STATUS_HAVE_VERSION |
		      FTAGENT_STATUS_HAVE_STATE;
	if (parse_degraded(j, st))
		return -1;
	n = json_object_array_length(cpus);
	r->cpus = calloc(n ? n : 1, sizeof(*r->cpus));
	n = json_object_array_length(hooks);
	r->hook = calloc(n ? n : 1, sizeof(*r->hook));
	if (!r->cpus || !r->hook)
		goto bad;
	for (i = 0; i < json_object_array_length(cpus); i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		struct ftagent_cpu_stats *s = &r->cpus[i];

		if (get32(c, "cpu", &s->cpu) || get32(c, "fill", &s->fill) ||
		    get32(c, "peak", &s->peak) ||
		    get32(c, "entries", &s->entries) ||
		    get_array(c, "lost", s->lost, __FTAGENT_LOSS_MAX) ||
		    get(c, "ev_emitted", &s->ev_emitted) ||
		    get(c, "ev_delivered", &s->ev_delivered) ||
		    get(c, "ev_peak_bytes", &s->ev_peak_bytes) ||
		    get(c, "ev_discarded", &s->ev_discarded) ||
		    get_array(c, "ev_lost", s->ev_lost, __FTAGENT_EV_LOSS_MAX))
			goto bad;
		r->n_cpus = r->cap_cpus = i + 1;
	}
	for (i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(hooks, i);
		struct ftagent_hook_stats *s = &r->hook[i];

		if (get_string(h, "name", s->name, sizeof(s->name)) ||
		    get32(h, "kind", &s->kind) ||
		    get32(h, "state", &s->state) ||
		    get32(h, "error", &s->error) || get(h, "hits", &s->hits) ||
		    get(h, "missed", &s->missed))
			goto bad;
		r->n_hooks = r->cap_hooks = i + 1;
	}
	return 0;
bad:
	ftagent_resources_free(r);
	return -1;
}
