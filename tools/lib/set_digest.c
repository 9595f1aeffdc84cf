// SPDX-License-Identifier: GPL-2.0
/*
 * Digests of the sets in force (set_digest.h). Every field goes in with
 * its length, in a fixed order, and the optional ones only when set, as
 * ftagent_policy_spec_equal() compares them: equal sets, equal digests.
 */
#include <stdint.h>
#include <string.h>
#include <nettle/sha2.h>

#include "set_digest.h"

/* Filter names are NUL-terminated and far shorter (1 KiB paths). */
#define FTAGENTD_NAME_MAX_BYTES 65536

static void put_u64(struct sha256_ctx *c, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sha256_update(c, sizeof(b), b);
}

static void put_str(struct sha256_ctx *c, const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	put_u64(c, len);
	sha256_update(c, len, (const uint8_t *)s);
}

static void finish(struct sha256_ctx *c, char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	int i;

	sha256_digest(c, sizeof(d), d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[FTAGENT_AUDIT_HEX_LEN] = '\0';
}

/* The principal fields rules and budgets share. */
static void put_principal(struct sha256_ctx *c, unsigned int set, uint32_t uid,
			  uint32_t subtree, const char *comm,
			  uint64_t cgroup_id, const char *exe_prefix)
{
	put_u64(c, set);
	if (set & FTAGENT_RULE_SET_UID)
		put_u64(c, uid);
	if (set & FTAGENT_RULE_SET_SUBTREE)
		put_u64(c, subtree);
	if (set & FTAGENT_RULE_SET_COMM)
		put_str(c, comm, FTAGENT_COMM_LEN);
	if (set & FTAGENT_RULE_SET_CGROUP)
		put_u64(c, cgroup_id);
	if (set & FTAGENT_RULE_SET_EXE)
		put_str(c, exe_prefix, FTAGENT_RULE_PREFIX_MAX + 1);
}

void ftagent_policy_digest(const struct ftagent_policy_spec *p,
			   char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	struct sha256_ctx c;
	size_t i;

	sha256_init(&c);
	put_str(&c, "policy", 16);
	put_u64(&c, !!p->enforce);
	put_u64(&c, p->default_action);
	put_u64(&c, p->n);
	for (i = 0; i < p->n; i++) {
		const struct ftagent_rule_spec *r = &p->rules[i];

		put_str(&c, r->name, sizeof(r->name));
		put_u64(&c, r->ops);
		put_u64(&c, r->action);
		put_principal(&c, r->set, r->uid, r->subtree, r->comm,
			      r->cgroup_id, r->exe_prefix);
		if (r->set & FTAGENT_RULE_SET_PATH)
			put_str(&c, r->path_prefix, sizeof(r->path_prefix));
		if (r->set & FTAGENT_RULE_SET_PORT) {
			put_u64(&c, r->port_min);
			put_u64(&c, r->port_max);
		}
		if (r->set & FTAGENT_RULE_SET_ADDR) {
			put_u64(&c, r->addr_len);
			sha256_update(&c, r->addr_len <= 16 ? r->addr_len : 16,
				      r->addr);
			put_u64(&c, r->prefix_len);
		}
	}
	finish(&c, out);
}

void ftagent_budgets_digest(const struct ftagent_budget_set *s,
			    char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	struct sha256_ctx c;
	size_t i;

	sha256_init(&c);
	put_str(&c, "budgets", 16);
	put_u64(&c, s->n);
	for (i = 0; i < s->n; i++) {
		const struct ftagent_budget_spec *b = &s->b[i];

		put_str(&c, b->name, sizeof(b->name));
		put_u64(&c, b->metric);
		put_u64(&c, b->limit);
		put_u64(&c, b->alert_at);
		put_u64(&c, b->window_ms);
		put_u64(&c, !!b->enforce);
		put_u64(&c, !!b->kill);
		put_principal(&c, b->set, b->uid, b->subtree, b->comm,
			      b->cgroup_id, b->exe_prefix);
	}
	finish(&c, out);
}

static void put_list(struct sha256_ctx *c, const struct ftagent_filter_list *l)
{
	size_t i;

	put_u64(c, l->n);
	for (i = 0; i < l->n; i++)
		put_str(c, l->name[i], FTAGENTD_NAME_MAX_BYTES);
}

void ftagent_filters_digest(const struct ftagent_filters *f,
			    char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	struct sha256_ctx c;
	int t;

	sha256_init(&c);
	put_str(&c, "filters", 16);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		put_u64(&c, f->toggles_set & (1u << t) ? f->toggle[t] : 0xff);
	put_list(&c, &f->exclude_processes);
	put_list(&c, &f->exclude_paths);
	finish(&c, out);
}
