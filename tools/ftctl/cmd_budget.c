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

static void print_text(const struct ftagent_budget_set *s, int header)
{
	char used[16], limit[16], left[16];
	size_t i;

	if (!s->n) {
		if (header) /* a script asked for rows: there are none */
			printf("no budgets\n");
		return;
	}
	if (header)
		printf("%-20s %-14s %8s %8s %8s %6s %6s\n", "BUDGET", "METRIC",
		       "USED", "LIMIT", "RESET IN", "DENIED", "ALERTS");
	for (i = 0; i < s->n; i++) {
		const struct ftagent_budget_spec *b = &s->b[i];
		char name[FTAGENT_RULE_NAME_MAX + 1];

		if (b->window_left_ms)
			ftctl_duration((b->window_left_ms + 999) / 1000, left,
				       sizeof(left));
		else
			snprintf(left, sizeof(left), "-");
		printf("%-20.20s %-14s %8s %8s %8s %6" PRIu64 " %6" PRIu64
		       "%s\n",
		       ftctl_printable(b->name, name, sizeof(name)),
		       ftagent_metric_name(b->metric),
		       amount(b->metric, b->used, used, sizeof(used)),
		       amount(b->metric, b->limit, limit, sizeof(limit)), left,
		       b->denied, b->alerts, b->enforce ? "" : " (alert only)");
	}
}

static void print_json(const struct ftagent_budget_set *s)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct ftagent_budget_spec *b = &s->b[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       json_object_new_string(b->name));
		json_object_object_add(
			o, "metric",
			json_object_new_string(ftagent_metric_name(b->metric)));
		json_object_object_add(o, "used",
				       json_object_new_int64((int64_t)b->used));
		json_object_object_add(
			o, "limit", json_object_new_int64((int64_t)b->limit));
		json_object_object_add(o, "window_ms",
				       json_object_new_int64(b->window_ms));
		json_object_object_add(
			o, "window_left_ms",
			json_object_new_int64(b->window_left_ms));
		json_object_object_add(
			o, "alert_at",
			json_object_new_int64((int64_t)b->alert_at));
		json_object_object_add(o, "enforce",
				       json_object_new_boolean(b->enforce));
		json_object_object_add(o, "kill",
				       json_object_new_boolean(b->kill));
		json_object_object_add(
			o, "denied", json_object_new_int64((int64_t)b->denied));
		json_object_object_add(
			o, "alerts", json_object_new_int64((int64_t)b->alerts));
		json_object_array_add(arr, o);
	}
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
		print_json(&s);
	else
		print_text(&s, !opts->no_header);
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
