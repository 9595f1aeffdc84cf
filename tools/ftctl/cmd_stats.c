// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: what the module reports about itself. Later sections
 * (RESOURCES, COLLECTOR) come from ftagentd; KERNEL comes straight from the
 * module over netlink so it shows even when the daemon is down.
 */
#include <inttypes.h>
#include <stdio.h>
#include <json-c/json.h>

#include "../lib/counters.h"
#include "../lib/records.h"
#include "../lib/status.h"
#include "ftctl.h"

struct kernel_view {
	struct ftagent_status st;
	struct ftagent_resources res;
};

static uint64_t lost_total(const struct ftagent_resources *res, int cause)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < res->n_cpus; i++)
		n += res->cpus[i].lost[cause];
	return n;
}

/* The event channel's figures, summed over CPUs (peak: busiest CPU). */
struct event_totals {
	uint64_t emitted, delivered, discarded, lost, peak_bytes;
	uint64_t lost_by[__FTAGENT_EV_LOSS_MAX];
};

static struct event_totals event_totals(const struct ftagent_resources *res)
{
	struct event_totals t = {0};
	size_t i;
	int c;

	for (i = 0; i < res->n_cpus; i++) {
		const struct ftagent_cpu_stats *cpu = &res->cpus[i];

		t.emitted += cpu->ev_emitted;
		t.delivered += cpu->ev_delivered;
		t.discarded += cpu->ev_discarded;
		if (cpu->ev_peak_bytes > t.peak_bytes)
			t.peak_bytes = cpu->ev_peak_bytes;
		for (c = 0; c < __FTAGENT_EV_LOSS_MAX; c++) {
			t.lost_by[c] += cpu->ev_lost[c];
			t.lost += cpu->ev_lost[c];
		}
	}
	return t;
}

static uint64_t missed_total(const struct ftagent_resources *res)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < res->n_hooks; i++)
		n += res->hook[i].missed;
	return n;
}

static void print_size(const char *label, uint64_t bytes)
{
	if (bytes >= 1ull << 20)
		printf("%-18s%.1f MB\n", label, bytes / 1048576.0);
	else
		printf("%-18s%.1f KB\n", label, bytes / 1024.0);
}

static void print_events(const struct ftagent_resources *r)
{
	struct event_totals t = event_totals(r);
	int c;

	printf("%-18s%.1f MB; per CPU %u x %.1f KB; peak %.1f KB\n",
	       "Event buffer:", r->ring_buffer_size / 1048576.0, r->n_subbufs,
	       r->subbuf_size / 1024.0, t.peak_bytes / 1024.0);
	printf("%-18s%" PRIu64 " emitted, %" PRIu64 " delivered, %" PRIu64
	       " lost\n",
	       "Events:", t.emitted, t.delivered, t.lost);
	printf("%-18s%" PRIu64 " (delivered, dropped unread with the buffer)\n",
	       "  discarded:", t.discarded);
	printf("%-18s%u processes (%" PRIu64 " not recorded)\n",
	       "Excluded:", r->excluded_tgids, r->exclude_missed);
	printf("Lost events:\n");
	for (c = 0; c < __FTAGENT_EV_LOSS_MAX; c++)
		printf("  %-16s%" PRIu64 "\n", ftagent_event_loss_name(c),
		       t.lost_by[c]);
}

static struct json_object *json_u64(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static struct json_object *events_json(const struct ftagent_resources *r)
{
	struct json_object *ev = json_object_new_object();
	struct json_object *lost = json_object_new_object();
	struct event_totals t = event_totals(r);
	int c;

	json_object_object_add(ev, "ring_buffer_size",
			       json_u64(r->ring_buffer_size));
	json_object_object_add(ev, "subbuf_size", json_u64(r->subbuf_size));
	json_object_object_add(ev, "n_subbufs", json_u64(r->n_subbufs));
	json_object_object_add(ev, "peak_bytes", json_u64(t.peak_bytes));
	json_object_object_add(ev, "emitted", json_u64(t.emitted));
	json_object_object_add(ev, "delivered", json_u64(t.delivered));
	json_object_object_add(ev, "discarded", json_u64(t.discarded));
	for (c = 0; c < __FTAGENT_EV_LOSS_MAX; c++)
		json_object_object_add(lost, ftagent_event_loss_name(c),
				       json_u64(t.lost_by[c]));
	json_object_object_add(ev, "lost", lost);
	json_object_object_add(ev, "excluded_processes",
			       json_u64(r->excluded_tgids));
	json_object_object_add(ev, "exclude_missed",
			       json_u64(r->exclude_missed));
	return ev;
}

static void print_text(const struct kernel_view *k)
{
	const struct ftagent_resources *r = &k->res;
	unsigned int hooks[__FTAGENT_HOOK_STATE_MAX];
	uint32_t fill = 0, peak = 0;
	size_t i;
	int c;

	ftagent_hook_states(r, hooks);
	for (i = 0; i < r->n_cpus; i++) {
		fill = r->cpus[i].fill > fill ? r->cpus[i].fill : fill;
		peak = r->cpus[i].peak > peak ? r->cpus[i].peak : peak;
	}
	printf("KERNEL\n");
	printf("%-18sftagent %s (ABI %u.%u)\n", "Module:", k->st.module_version,
	       k->st.abi_major, k->st.abi_minor);
	printf("%-18s%s\n", "State:", ftagent_state_name(r->state));
	printf("%-18s%s, %s hooks\n", "Mode:", ftagent_mode_name(r->mode),
	       ftagent_hooks_name(r->hooks));
	printf("%-18s%u verified, %u attached, %u failed\n",
	       "Hooks:", hooks[FTAGENT_HOOK_VERIFIED],
	       hooks[FTAGENT_HOOK_ATTACHED], hooks[FTAGENT_HOOK_FAILED]);
	for (i = 0; i < r->n_hooks; i++)
		if (r->hook[i].state == FTAGENT_HOOK_FAILED)
			printf("%-18s%s: errno %u\n",
			       "  failed:", r->hook[i].name, r->hook[i].error);
	print_size("Memory:", r->memory_bytes);
	printf("%-18s%u keys per CPU, %u CPUs\n",
	       "Counter tables:", r->table_capacity, r->nr_cpus);
	printf("%-18s%u of %u (peak %u), busiest CPU\n", "Table fill:", fill,
	       r->table_capacity, peak);
	printf("%-18s%" PRIu64 "\n", "Flushes:", r->flush_count);
	print_events(r);
	printf("Lost:\n");
	for (c = 0; c < __FTAGENT_LOSS_MAX; c++)
		printf("  %-16s%" PRIu64 "\n", ftagent_loss_name(c),
		       lost_total(r, c));
	printf("  %-16s%" PRIu64 "\n", "hook_missed", missed_total(r));
}

static void print_json(const struct kernel_view *k)
{
	const struct ftagent_resources *r = &k->res;
	struct json_object *root = json_object_new_object();
	struct json_object *kernel = json_object_new_object();
	struct json_object *lost = json_object_new_object();
	struct json_object *hooks = json_object_new_array();
	size_t i;
	int c;

	json_object_object_add(kernel, "module_version",
			       json_object_new_string(k->st.module_version));
	json_object_object_add(kernel, "abi_major", json_u64(k->st.abi_major));
	json_object_object_add(kernel, "abi_minor", json_u64(k->st.abi_minor));
	json_object_object_add(
		kernel, "state",
		json_object_new_string(ftagent_state_name(r->state)));
	json_object_object_add(
		kernel, "mode",
		json_object_new_string(ftagent_mode_name(r->mode)));
	json_object_object_add(
		kernel, "hook_set",
		json_object_new_string(ftagent_hooks_name(r->hooks)));
	json_object_object_add(kernel, "memory_bytes",
			       json_u64(r->memory_bytes));
	json_object_object_add(kernel, "table_capacity",
			       json_u64(r->table_capacity));
	json_object_object_add(kernel, "cpus", json_u64(r->nr_cpus));
	json_object_object_add(kernel, "flushes", json_u64(r->flush_count));
	for (c = 0; c < __FTAGENT_LOSS_MAX; c++)
		json_object_object_add(lost, ftagent_loss_name(c),
				       json_u64(lost_total(r, c)));
	json_object_object_add(lost, "hook_missed", json_u64(missed_total(r)));
	json_object_object_add(kernel, "lost", lost);
	json_object_object_add(kernel, "events", events_json(r));
	for (i = 0; i < r->n_hooks; i++) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "function",
				       json_object_new_string(r->hook[i].name));
		json_object_object_add(
			h, "state",
			json_object_new_string(
				ftagent_hook_state_name(r->hook[i].state)));
		json_object_object_add(h, "error", json_u64(r->hook[i].error));
		json_object_object_add(h, "hits", json_u64(r->hook[i].hits));
		json_object_object_add(h, "missed",
				       json_u64(r->hook[i].missed));
		json_object_array_add(hooks, h);
	}
	json_object_object_add(kernel, "hooks", hooks);
	json_object_object_add(root, "kernel", kernel);
	puts(json_object_to_json_string_ext(
		root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* Shared with `ftctl selfcheck`: status plus resources, or an exit code. */
int ftctl_query_kernel(struct ftagent_status *st, struct ftagent_resources *res)
{
	struct ftnl_error err;
	struct ftnl stats;

	if (ftagent_query_status(st, &err) < 0)
		return ftctl_report_query_error("stats", &err);
	if (!ftagent_abi_compatible(st)) {
		fprintf(stderr,
			"ftctl: module ABI %u.%u, this ftctl speaks %s: "
			"upgrade one of them\n",
			st->abi_major, st->abi_minor, FTAGENT_ABI_STRING);
		return FTCTL_ABI_MISMATCH;
	}
	if (ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0)
		return ftctl_report_query_error("stats", &err);
	if (ftagent_get_resources(&stats, res, &err) < 0) {
		ftnl_close(&stats);
		return ftctl_report_query_error("stats", &err);
	}
	ftnl_close(&stats);
	return FTCTL_OK;
}

int ftctl_cmd_stats(const struct ftctl_opts *opts, int argc, char **argv)
{
	struct kernel_view k;
	int rc;

	(void)argv;
	if (argc) {
		fprintf(stderr, "ftctl: stats takes no arguments yet\n");
		return FTCTL_USAGE;
	}
	rc = ftctl_query_kernel(&k.st, &k.res);
	if (rc != FTCTL_OK)
		return rc;
	if (opts->json)
		print_json(&k);
	else
		print_text(&k);
	ftagent_resources_free(&k.res);
	return FTCTL_OK;
}
