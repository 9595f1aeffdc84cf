// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: RESOURCES (the daemon's own use of the machine) and
 * COLLECTOR (what it received, dropped and holds) come from ftagentd's
 * API; KERNEL comes straight from the module over netlink, so it shows
 * even when the daemon is down. Nothing here consumes counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "../lib/api_client.h"
#include "../lib/counters.h"
#include "../lib/policy.h"
#include "../lib/records.h"
#include "../lib/module_view.h"
#include "../lib/status.h"
#include "ftctl.h"
#include "human.h"

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
	char b[32];

	printf("%-18s%s\n", label, ftctl_size(bytes, b, sizeof(b)));
}

static void print_events(const struct ftagent_resources *r)
{
	struct event_totals t = event_totals(r);
	char a[32], b[32], p[32];
	int c;

	printf("%-18s%s; per CPU %u x %s; fullest %s\n",
	       "Event buffer:", ftctl_size(r->ring_buffer_size, a, sizeof(a)),
	       r->n_subbufs, ftctl_size(r->subbuf_size, b, sizeof(b)),
	       ftctl_size(t.peak_bytes, p, sizeof(p)));
	printf("%-18s%" PRIu64 " emitted, %" PRIu64 " delivered, %" PRIu64
	       " lost\n",
	       "Events:", t.emitted, t.delivered, t.lost);
	printf("%-18s%" PRIu64 " (delivered, dropped unread when the "
	       "buffer was resized)\n",
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

/* What the module runs without on this kernel, and which functions lack. */
static void print_degraded(const struct ftagent_status *st)
{
	unsigned int f, i;

	if (!st->degraded)
		return;
	printf("%-18s", "Degraded:");
	for (f = 0, i = 0; f < 32; f++) {
		const char *name = ftagent_feature_name(f);

		if (!(st->degraded & (1u << f)))
			continue;
		printf("%s%s", i++ ? ", " : "", name ? name : "(unknown)");
	}
	printf("\n%-18s", "  missing:");
	for (i = 0; i < st->n_missing && i < FTAGENT_MISSING_MAX; i++)
		printf("%s%s", i ? ", " : "", st->missing[i]);
	printf("%s\n", st->n_missing > FTAGENT_MISSING_MAX ? ", ..." : "");
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
	/* Verified hooks are attached too: "attached" counts both. */
	printf("%-18s%u attached (%u seen firing), %u failed\n", "Hooks:",
	       hooks[FTAGENT_HOOK_VERIFIED] + hooks[FTAGENT_HOOK_ATTACHED],
	       hooks[FTAGENT_HOOK_VERIFIED], hooks[FTAGENT_HOOK_FAILED]);
	for (i = 0; i < r->n_hooks; i++)
		if (r->hook[i].state == FTAGENT_HOOK_FAILED)
			printf("%-18s%s: errno %u\n",
			       "  failed:", r->hook[i].name, r->hook[i].error);
	if ((k->st.present & FTAGENT_STATUS_HAVE_DIRECT) &&
	    r->hooks == FTAGENT_HOOKS_FTRACE)
		printf("%-18s%s\n", "Direct calls:",
		       k->st.direct_calls ? "yes"
					  : "no (another direct caller, or "
					    "direct_calls=0)");
	if ((k->st.present & FTAGENT_STATUS_HAVE_EXIT_WORK) &&
	    r->hooks == FTAGENT_HOOKS_FTRACE)
		printf("%-18s%s\n", "Returns seen in:",
		       k->st.exit_work ? "the syscall exit work"
				       : "TIF_NOTIFY_RESUME (exit_work=0, or "
					 "the exit work could not start)");
	print_degraded(&k->st);
	/* Refused by the gate for want of a mark (docs/policy.md). */
	if (k->st.present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED)
		printf("%-18s%" PRIu64
		       " (AF_SMC fallback, no accept mark free)\n",
		       "Accepts refused:", k->st.accepts_refused);
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

/* {"features": [...], "missing": [...]}, both empty on a whole kernel. */
static struct json_object *degraded_json(const struct ftagent_status *st)
{
	struct json_object *d = json_object_new_object();
	struct json_object *features = json_object_new_array();
	struct json_object *missing = json_object_new_array();
	unsigned int f, i;

	for (f = 0; f < 32; f++) {
		const char *name = ftagent_feature_name(f);

		if (st->degraded & (1u << f))
			json_object_array_add(features,
					      json_object_new_string(
						      name ? name : "unknown"));
	}
	for (i = 0; i < st->n_missing && i < FTAGENT_MISSING_MAX; i++)
		json_object_array_add(missing,
				      json_object_new_string(st->missing[i]));
	json_object_object_add(d, "features", features);
	json_object_object_add(d, "missing", missing);
	return d;
}

static struct json_object *kernel_json(const struct kernel_view *k)
{
	const struct ftagent_resources *r = &k->res;
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
	json_object_object_add(kernel, "degraded", degraded_json(&k->st));
	if (k->st.present & FTAGENT_STATUS_HAVE_DIRECT)
		json_object_object_add(
			kernel, "direct_calls",
			json_object_new_boolean(k->st.direct_calls));
	if (k->st.present & FTAGENT_STATUS_HAVE_EXIT_WORK)
		json_object_object_add(
			kernel, "exit_work",
			json_object_new_boolean(k->st.exit_work));
	json_object_object_add(kernel, "table_capacity",
			       json_u64(r->table_capacity));
	json_object_object_add(kernel, "cpus", json_u64(r->nr_cpus));
	json_object_object_add(kernel, "flushes", json_u64(r->flush_count));
	for (c = 0; c < __FTAGENT_LOSS_MAX; c++)
		json_object_object_add(lost, ftagent_loss_name(c),
				       json_u64(lost_total(r, c)));
	json_object_object_add(lost, "hook_missed", json_u64(missed_total(r)));
	if (k->st.present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED)
		json_object_object_add(kernel, "accepts_refused",
				       json_u64(k->st.accepts_refused));
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
	return kernel;
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

/* ---- the daemon's sections ---- */

static void print_resources(struct json_object *r)
{
	char a[32], b[32], c[32];

	printf("RESOURCES\n");
	ftctl_line(
		"Daemon:", "ftagentd %s, pid %" PRIu64 ", up %s, %s mode",
		ftctl_printable(ftctl_jstr(r, "daemon.version"), a, sizeof(a)),
		ftctl_ju64(r, "daemon.pid"),
		ftctl_duration(ftctl_ju64(r, "daemon.uptime_s"), b, sizeof(b)),
		ftctl_printable(ftctl_jstr(r, "daemon.mode"), c, sizeof(c)));
	ftctl_line("CPU:", "%.1f%% now, %.1f s since start",
		   ftctl_jdouble(r, "resources.cpu_percent"),
		   ftctl_jdouble(r, "resources.cpu_seconds"));
	ftctl_line(
		"Memory:", "%s resident, %s virtual",
		ftctl_size(ftctl_ju64(r, "resources.rss_bytes"), a, sizeof(a)),
		ftctl_size(ftctl_ju64(r, "resources.vm_bytes"), b, sizeof(b)));
	ftctl_line("Open files:", "%" PRIu64 " descriptors",
		   ftctl_ju64(r, "resources.open_fds"));
}

/* An indented @label and the daemon's string at @path, if it has one. */
static void print_sub(const char *label, struct json_object *r,
		      const char *path)
{
	char msg[256];

	if (ftctl_jstr(r, path)[0])
		ftctl_line(
			label, "%s",
			ftctl_printable(ftctl_jstr(r, path), msg, sizeof(msg)));
}

/* "N written, N lost, N write errors" of the output at @prefix. */
static void print_writes(const char *label, struct json_object *r,
			 const char *prefix)
{
	char written[64], lost[64], errors[64];

	snprintf(written, sizeof(written), "%s.written", prefix);
	snprintf(lost, sizeof(lost), "%s.lost", prefix);
	snprintf(errors, sizeof(errors), "%s.errors", prefix);
	ftctl_line(label,
		   "%" PRIu64 " written, %" PRIu64 " lost, %" PRIu64
		   " write errors",
		   ftctl_ju64(r, written), ftctl_ju64(r, lost),
		   ftctl_ju64(r, errors));
}

static void print_config(struct json_object *r)
{
	char path[256];

	/* No file read (the default path absent): say so, name none. */
	if (!ftctl_jstr(r, "daemon.config_path")[0])
		ftctl_line("Config:",
			   "built-in defaults (no file), %" PRIu64
			   " reloads, %" PRIu64 " failed",
			   ftctl_ju64(r, "daemon.reloads"),
			   ftctl_ju64(r, "daemon.reload_errors"));
	else
		ftctl_line("Config:",
			   "%s, %" PRIu64 " reloads, %" PRIu64 " failed",
			   ftctl_printable(ftctl_jstr(r, "daemon.config_path"),
					   path, sizeof(path)),
			   ftctl_ju64(r, "daemon.reloads"),
			   ftctl_ju64(r, "daemon.reload_errors"));
	/* Said only once the module was let go (SIGUSR2) at least once. */
	if (strcmp(ftctl_jstr(r, "daemon.module_link"), "attached") ||
	    ftctl_ju64(r, "daemon.module_releases"))
		ftctl_line("Module link:",
			   "%s, %" PRIu64 " releases, %" PRIu64
			   " reloads, %.1f s detached",
			   ftctl_jstr(r, "daemon.module_link"),
			   ftctl_ju64(r, "daemon.module_releases"),
			   ftctl_ju64(r, "daemon.module_reloads"),
			   ftctl_jdouble(r, "daemon.module_detached_seconds"));
	print_sub("  module lacks:", r, "daemon.module_missing");
	print_sub("  waiting:", r, "daemon.policy_waiting_for_cgroups");
	print_sub("  last error:", r, "daemon.last_reload_error");
}

/*
 * Writes that failed: the state directory (journal, snapshot),
 * [agent] event_output and the audit trail. Always shown, so "0" is a
 * statement too.
 */
static void print_failures(struct json_object *r)
{
	ftctl_line("State writes:",
		   "%" PRIu64 " journal errors, %" PRIu64 " snapshot errors",
		   ftctl_ju64(r, "daemon.state.journal_errors"),
		   ftctl_ju64(r, "daemon.state.snapshot_errors"));
	print_sub("  last error:", r, "daemon.state.error");
	if (strcmp(ftctl_jstr(r, "daemon.event_output.target"), "off") &&
	    ftctl_jstr(r, "daemon.event_output.target")[0])
		print_writes("Event output:", r, "daemon.event_output");
	print_sub("  last error:", r, "daemon.event_output.error");
	if (json_object_get_boolean(ftctl_jget(r, "daemon.audit.enabled")))
		print_writes("Audit trail:", r, "daemon.audit");
	print_sub("  last error:", r, "daemon.audit.error");
}

static void print_tables(struct json_object *tables)
{
	char label[32];

	if (!tables || json_object_get_type(tables) != json_type_object)
		return;
	printf("Tables:\n");
	json_object_object_foreach(tables, name, t)
	{
		snprintf(label, sizeof(label), "  %.15s", name);
		ftctl_line(label,
			   "%" PRIu64 " of %" PRIu64 ", %" PRIu64 " evicted",
			   ftctl_ju64(t, "used"), ftctl_ju64(t, "capacity"),
			   ftctl_ju64(t, "evicted"));
	}
}

static void print_collector(struct json_object *r)
{
	struct json_object *c = ftctl_jget(r, "collector");
	uint64_t size = ftctl_ju64(c, "event_queue.size_bytes");
	uint64_t peak = ftctl_ju64(c, "event_queue.peak_bytes");
	char a[32], b[32], d[32];

	printf("COLLECTOR\n");
	/* What a drain read: the last one, and the most in one. */
	ftctl_line("Event reads:",
		   "buffer %s; last read %s, largest %s "
		   "(%.1f%%)",
		   ftctl_size(size, a, sizeof(a)),
		   ftctl_size(ftctl_ju64(c, "event_queue.used_bytes"), b,
			      sizeof(b)),
		   ftctl_size(peak, d, sizeof(d)),
		   size ? 100.0 * (double)peak / (double)size : 0.0);
	ftctl_line("Events received:", "%" PRIu64,
		   ftctl_sum_counts(ftctl_jget(c, "events_received")));
	ftctl_print_counts(ftctl_jget(c, "events_received"));
	ftctl_line("Events dropped:", "%" PRIu64,
		   ftctl_sum_counts(ftctl_jget(c, "events_dropped")));
	ftctl_print_counts(ftctl_jget(c, "events_dropped"));
	ftctl_line(
		"Event log:",
		"%s of %s, %" PRIu64 " events, %" PRIu64 " aged out",
		ftctl_size(ftctl_ju64(c, "event_log.used_bytes"), a, sizeof(a)),
		ftctl_size(ftctl_ju64(c, "event_log.limit_bytes"), b,
			   sizeof(b)),
		ftctl_ju64(c, "event_log.count"),
		ftctl_ju64(c, "event_log.aged_out"));
	print_tables(ftctl_jget(c, "tables"));
	ftctl_line("Generations:",
		   "%" PRIu64 " merged, %" PRIu64 " counters, last #%" PRIu64,
		   ftctl_ju64(c, "generations"), ftctl_ju64(c, "counters"),
		   ftctl_ju64(c, "last_generation"));
	ftctl_line("Counters lost:", "%" PRIu64,
		   ftctl_sum_counts(ftctl_jget(c, "counter_table_lost")));
	ftctl_print_counts(ftctl_jget(c, "counter_table_lost"));
}

/* The stats reply without its "ok": daemon, resources, collector. */
static struct json_object *daemon_part(struct json_object *reply)
{
	json_object_object_del(reply, "ok");
	return reply;
}

static void print_not_running(int rc, const char *err)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "ftagentd %s (socket %s: %s)",
		 ftagent_api_not_running(rc) ? "is not running"
					     : "did not answer",
		 ftagent_api_socket_path(), err);
	puts(msg);
}

/*
 * POLICY: the rule set in force and each rule's hits, from the module
 * (nothing when it can't be read: the KERNEL section says why).
 */
static int read_policy(struct ftagent_policy_spec *p)
{
	struct ftnl_error err;
	struct ftnl ctl;
	int rc;

	ftagent_policy_spec_init(p);
	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return -1;
	rc = ftagent_get_policy(&ctl, p, &err);
	ftnl_close(&ctl);
	return rc;
}

static void print_policy(const struct ftagent_policy_spec *p)
{
	size_t i;

	printf("\nPOLICY\n");
	ftctl_line("Rule set:", "generation %" PRIu64 ", %zu rules, %s",
		   p->generation, p->n,
		   p->enforce ? "enforcing" : "monitor mode");
	ftctl_line("Default:", "%s, %" PRIu64 " hits",
		   ftagent_action_name(p->default_action), p->default_hits);
	for (i = 0; i < p->n; i++) {
		char label[32];

		snprintf(label, sizeof(label), "  %.28s", p->rules[i].name);
		ftctl_line(label, "%s, %" PRIu64 " hits",
			   ftagent_action_name(p->rules[i].action),
			   p->rules[i].hits);
	}
}

static struct json_object *policy_json(const struct ftagent_policy_spec *p)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rules = json_object_new_array();
	size_t i;

	json_object_object_add(o, "generation", json_u64(p->generation));
	json_object_object_add(o, "enforce",
			       json_object_new_boolean(p->enforce));
	json_object_object_add(
		o, "default",
		json_object_new_string(ftagent_action_name(p->default_action)));
	json_object_object_add(o, "default_hits", json_u64(p->default_hits));
	for (i = 0; i < p->n; i++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(
			r, "name", json_object_new_string(p->rules[i].name));
		json_object_object_add(
			r, "action",
			json_object_new_string(
				ftagent_action_name(p->rules[i].action)));
		json_object_object_add(r, "hits", json_u64(p->rules[i].hits));
		json_object_array_add(rules, r);
	}
	json_object_object_add(o, "rules", rules);
	return o;
}

static int print_all(const struct ftctl_opts *opts)
{
	int json = opts->json;
	struct ftagent_policy_spec pol;
	int have_pol;
	struct json_object *reply = NULL, *root;
	char err[256];
	struct kernel_view k;
	int drc, rc;

	ftagent_policy_spec_init(&pol);
	drc = ftctl_daemon_cmd("stats", &reply, err, sizeof(err));
	/*
	 * Not root: the module's control family would refuse us, but a
	 * member of the ftagent group gets the daemon's last sample of it.
	 */
	if (geteuid() != 0 && !drc &&
	    ftagent_module_view_parse(ftctl_jget(reply, "module"), &k.st,
				      &k.res) == 0) {
		rc = FTCTL_OK;
		have_pol = 0; /* the rule set: root only (GET_POLICY) */
	} else {
		rc = ftctl_query_kernel(&k.st, &k.res);
		have_pol = rc == FTCTL_OK && read_policy(&pol) == 0;
	}
	if (json) {
		if (drc && rc != FTCTL_OK)
			return rc;
		root = json_object_new_object();
		json_object_object_add(root, "daemon",
				       drc ? NULL : daemon_part(reply));
		json_object_object_add(root, "daemon_error",
				       drc ? json_object_new_string(err)
					   : NULL);
		json_object_object_add(root, "kernel",
				       rc == FTCTL_OK ? kernel_json(&k) : NULL);
		json_object_object_add(root, "policy",
				       have_pol ? policy_json(&pol) : NULL);
		puts(json_object_to_json_string_ext(
			root, JSON_C_TO_STRING_PRETTY |
				      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		if (!drc) {
			print_resources(reply);
			print_config(reply);
			print_failures(reply);
			printf("\n");
			print_collector(reply);
			printf("\n");
		} else {
			print_not_running(drc, err);
		}
		if (rc == FTCTL_OK)
			print_text(&k);
		if (have_pol)
			print_policy(&pol);
		json_object_put(reply);
	}
	ftagent_policy_spec_free(&pol);
	if (rc == FTCTL_OK)
		ftagent_resources_free(&k.res);
	return rc;
}

/* ---- stats resources [--watch [SECONDS]] ---- */

static int resources_once(int json, int clear)
{
	struct json_object *reply = NULL, *line, *v;
	struct timespec now;
	char err[256];
	int rc;

	rc = ftctl_daemon_cmd("stats", &reply, err, sizeof(err));
	if (rc)
		return ftctl_report_daemon_error("stats resources", rc, err);
	if (json) {
		clock_gettime(CLOCK_REALTIME, &now);
		line = json_object_new_object();
		json_object_object_add(
			line, "time_ns",
			json_object_new_uint64((uint64_t)now.tv_sec *
						       1000000000ull +
					       (uint64_t)now.tv_nsec));
		json_object_object_add(line, "pid",
				       json_object_new_uint64(ftctl_ju64(
					       reply, "daemon.pid")));
		v = ftctl_jget(reply, "resources");
		if (v && json_object_get_type(v) == json_type_object) {
			json_object_object_foreach(v, key, val)
			{
				json_object_object_add(line, key,
						       json_object_get(val));
			}
		}
		puts(json_object_to_json_string_ext(
			line, JSON_C_TO_STRING_PLAIN |
				      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(line);
	} else {
		if (clear)
			fputs("\033[H\033[2J", stdout);
		print_resources(reply);
	}
	fflush(stdout);
	json_object_put(reply);
	return FTCTL_OK;
}

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s};

	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0)
		;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.1 && v <= 86400))
		return -1;
	*out = v;
	return 0;
}

enum { OPT_WATCH = FTCTL_OPT_FIRST_LOCAL };

static const struct option stats_longopts[] = {
	{"watch", optional_argument, NULL, OPT_WATCH},
	{NULL, 0, NULL, 0},
};

struct stats_args {
	int watch;
	double interval;
};

static int on_option(void *ctx, int opt, const char *arg)
{
	struct stats_args *a = ctx;

	if (opt != OPT_WATCH)
		return -1;
	a->watch = 1;
	if (arg && parse_seconds(arg, &a->interval) < 0) {
		fprintf(stderr,
			"ftctl: stats: --watch: '%s': seconds from 0.1 to "
			"86400\n",
			arg);
		return -1;
	}
	return 0;
}

static int stats_resources(int json, const struct stats_args *a)
{
	int rc, first = 1;

	if (!a->watch)
		return resources_once(json, 0);
	for (;;) {
		if (!first && !json && !isatty(STDOUT_FILENO))
			printf("\n");
		rc = resources_once(json, !json && isatty(STDOUT_FILENO));
		if (rc != FTCTL_OK)
			return rc;
		first = 0;
		sleep_s(a->interval);
	}
}

static const char *const stats_words[] = {"resources", NULL};

/* stats [resources [--watch [SECONDS]]]: SECONDS also as "--watch=S". */
static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct stats_args a = {.interval = 1};
	int first = ftctl_parse_options(&ftctl_cmd_stats, opts, argc, argv,
					on_option, &a);
	int n = argc - first;

	if (first < 0)
		return ftctl_parse_exit(first);
	argv += first;
	if (n && strcmp(argv[0], "resources"))
		return ftctl_usage_error(&ftctl_cmd_stats,
					 "unknown subcommand '%s'", argv[0]);
	/* "--watch 2": getopt leaves the 2 among the operands. */
	if (n == 2 && a.watch && parse_seconds(argv[1], &a.interval) == 0)
		n--;
	if (n > 1)
		return ftctl_usage_error(&ftctl_cmd_stats,
					 "unexpected argument '%s'", argv[1]);
	if (a.watch && !n)
		return ftctl_usage_error(&ftctl_cmd_stats,
					 "--watch goes with 'resources'");
	if (n)
		return stats_resources(opts->json, &a);
	return print_all(opts);
}

const struct ftctl_command ftctl_cmd_stats = {
	.name = "stats",
	.summary = "the daemon's and the module's figures; resources [--watch]",
	.usage = "stats [resources [--watch [SECONDS]]]",
	.words = stats_words,
	.longopts = stats_longopts,
	.run = run,
};
