// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl budget show: each budget in force, straight from the module, with
 * its usage in the current window against the limit, the time until the
 * window resets, and how many calls it refused and alerts it raised.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "../lib/budgets.h"
#include "ftctl.h"
#include "human.h"

static const char *amount(uint32_t metric, uint64_t v, char *buf, size_t len)
{
	if (ftagent_metric_is_bytes(metric))
		return ftctl_human(v, buf, len);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* "60s", "5m00s": a window as the config file would say it. */
static const char *window_text(uint32_t ms, char *buf, size_t len)
{
	if (ms % 1000)
		snprintf(buf, len, "%ums", ms);
	else
		ftctl_duration(ms / 1000, buf, len);
	return buf;
}

/* Whom a budget charges, as the config file names it. */
static const char *who_text(const struct ftagent_budget_spec *b, char *buf,
			    size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...)                                                               \
	(n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (b->set & FTAGENT_RULE_SET_UID)
		ADD(" uid=%u", b->uid);
	if (b->set & FTAGENT_RULE_SET_COMM)
		ADD(" comm=%s", b->comm);
	if (b->set & FTAGENT_RULE_SET_CGROUP)
		ADD(" cgroup=%" PRIu64, b->cgroup_id);
	if (b->set & FTAGENT_RULE_SET_EXE)
		ADD(" exe=%s", b->exe_prefix);
	if (b->set & FTAGENT_RULE_SET_SUBTREE)
		ADD(" subtree=%u", b->subtree);
#undef ADD
	return buf[0] ? buf + 1 : "everyone";
}

static const char *mode_text(const struct ftagent_budget_spec *b)
{
	if (!b->enforce)
		return "alert only";
	return b->kill ? "enforce, kill" : "enforce";
}

/*
 * With @in_force, the module's view: usage in the current window, the
 * time left in it, calls refused and alerts raised. Without, a file's
 * budgets before they are loaded: what each one limits and how.
 */
void ftctl_print_budgets(const struct ftagent_budget_set *s, int in_force,
			 int header)
{
	char used[24], limit[24], left[24], alert[24];
	size_t i;

	if (!s->n) {
		if (header) /* a script asked for rows: there are none */
			printf("no budgets\n");
		return;
	}
	if (header && in_force)
		printf("%-20s %-14s %8s %8s %8s %6s %6s\n", "BUDGET", "METRIC",
		       "USED", "LIMIT", "RESET IN", "DENIED", "ALERTS");
	else if (header)
		printf("%-20s %-14s %8s %8s %8s %-13s %s\n", "BUDGET", "METRIC",
		       "LIMIT", "WINDOW", "ALERT AT", "MODE", "WHO");
	for (i = 0; i < s->n; i++) {
		const struct ftagent_budget_spec *b = &s->b[i];
		char name[FTAGENT_RULE_NAME_MAX + 1], who[512], shown[512];

		ftctl_printable(b->name, name, sizeof(name));
		amount(b->metric, b->limit, limit, sizeof(limit));
		if (!in_force) {
			if (b->alert_at)
				amount(b->metric, b->alert_at, alert,
				       sizeof(alert));
			else
				snprintf(alert, sizeof(alert), "-");
			printf("%-20.20s %-14s %8s %8s %8s %-13s %s\n", name,
			       ftagent_metric_name(b->metric), limit,
			       window_text(b->window_ms, left, sizeof(left)),
			       alert, mode_text(b),
			       ftctl_printable(who_text(b, who, sizeof(who)),
					       shown, sizeof(shown)));
			continue;
		}
		if (b->window_left_ms)
			ftctl_duration((b->window_left_ms + 999) / 1000, left,
				       sizeof(left));
		else
			snprintf(left, sizeof(left), "-");
		printf("%-20.20s %-14s %8s %8s %8s %6" PRIu64 " %6" PRIu64
		       "%s\n",
		       name, ftagent_metric_name(b->metric),
		       amount(b->metric, b->used, used, sizeof(used)), limit,
		       left, b->denied, b->alerts,
		       b->enforce ? "" : " (alert only)");
	}
}

struct json_object *ftctl_budgets_json(const struct ftagent_budget_set *s,
				       int in_force)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct ftagent_budget_spec *b = &s->b[i];
		struct json_object *o = json_object_new_object();
		char who[512];

		json_object_object_add(o, "name",
				       json_object_new_string(b->name));
		json_object_object_add(
			o, "metric",
			json_object_new_string(ftagent_metric_name(b->metric)));
		if (in_force)
			json_object_object_add(
				o, "used",
				json_object_new_int64((int64_t)b->used));
		json_object_object_add(
			o, "limit", json_object_new_int64((int64_t)b->limit));
		json_object_object_add(o, "window_ms",
				       json_object_new_int64(b->window_ms));
		if (in_force)
			json_object_object_add(
				o, "window_left_ms",
				json_object_new_int64(b->window_left_ms));
		json_object_object_add(
			o, "alert_at",
			json_object_new_int64((int64_t)b->alert_at));
		json_object_object_add(
			o, "who",
			json_object_new_string(who_text(b, who, sizeof(who))));
		json_object_object_add(o, "enforce",
				       json_object_new_boolean(b->enforce));
		json_object_object_add(o, "kill",
				       json_object_new_boolean(b->kill));
		if (in_force) {
			json_object_object_add(
				o, "denied",
				json_object_new_int64((int64_t)b->denied));
			json_object_object_add(
				o, "alerts",
				json_object_new_int64((int64_t)b->alerts));
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_json(struct json_object *arr)
{
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
}

static const char *const budget_words[] = {"show", NULL};

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	struct ftnl ctl;
	int rc;

	rc = ftctl_parse_options(&ftctl_cmd_budget, opts, argc, argv, NULL,
				 NULL);
	if (rc < 0)
		return ftctl_parse_exit(rc);
	if (argc - rc != 1 || strcmp(argv[rc], "show"))
		return ftctl_usage_error(&ftctl_cmd_budget,
					 "the one subcommand is 'show'");
	rc = FTCTL_OK;
	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return ftctl_report_query_error("budget show", &err);
	if (ftagent_get_budgets(&ctl, &s, &err) < 0)
		rc = ftctl_report_query_error("budget show", &err);
	else if (opts->json)
		print_json(ftctl_budgets_json(&s, 1));
	else
		ftctl_print_budgets(&s, 1, !opts->no_header);
	ftagent_budget_set_free(&s);
	ftnl_close(&ctl);
	return rc;
}

const struct ftctl_command ftctl_cmd_budget = {
	.name = "budget",
	.summary = "show: each budget's usage, limit and refusals (root)",
	.usage = "budget show",
	.words = budget_words,
	.run = run,
};
