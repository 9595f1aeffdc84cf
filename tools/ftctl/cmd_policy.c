// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl policy show | check FILE | load FILE
 *
 * show: the rule set in force, straight from the module, with each
 * rule's hits. check: parse a file's [policy] sections as ftagentd would
 * (nothing is sent). load: check, then send the file's rules and its
 * budgets to the module, which swaps each set whole or refuses it whole;
 * when the budgets are refused, the rules in force before are put back,
 * so a file goes in entirely or not at all. ftagentd pushes its own
 * config's sets again when it starts or reloads (those that differ from
 * what is in force): load is for trying a set out.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <json-c/json.h>

#include "../lib/config.h"
#include "../lib/policy.h"
#include "ftctl.h"
#include "human.h"

static void ops_text(uint32_t ops, char *buf, size_t len)
{
	unsigned int op;

	buf[0] = '\0';
	for (op = 0; op < __FTAGENT_OP_MAX; op++)
		if (ops & (1u << op))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 buf[0] ? "," : "", ftagent_op_name(op));
}

/* What a rule matches, as a config file would say it. */
static void match_text(const struct ftagent_rule_spec *r, char *buf, size_t len)
{
	char addr[64];

#define ADD(...) snprintf(buf + strlen(buf), len - strlen(buf), __VA_ARGS__)
	buf[0] = '\0';
	if (r->set & FTAGENT_RULE_SET_UID)
		ADD(" uid=%u", r->uid);
	if (r->set & FTAGENT_RULE_SET_COMM)
		ADD(" comm=%s", r->comm);
	if (r->set & FTAGENT_RULE_SET_CGROUP)
		ADD(" cgroup=%" PRIu64, r->cgroup_id);
	if (r->set & FTAGENT_RULE_SET_SUBTREE)
		ADD(" subtree=%u", r->subtree);
	if (r->set & FTAGENT_RULE_SET_EXE)
		ADD(" exe=%s", r->exe_prefix);
	if (r->set & FTAGENT_RULE_SET_PATH)
		ADD(" path=%s", r->path_prefix);
	if (r->set & FTAGENT_RULE_SET_ADDR) {
		inet_ntop(r->addr_len == 4 ? AF_INET : AF_INET6, r->addr, addr,
			  sizeof(addr));
		ADD(" cidr=%s/%u", addr, r->prefix_len);
	}
	if (r->set & FTAGENT_RULE_SET_PORT) {
		if (r->port_min == r->port_max)
			ADD(" port=%u", r->port_min);
		else
			ADD(" port=%u-%u", r->port_min, r->port_max);
	}
	if (!buf[0])
		ADD(" (everyone, everything)");
#undef ADD
}

/* "enforcing, default allow, 3 rules, generation 7" */
static void print_summary(const struct ftagent_policy_spec *p, int with_hits)
{
	printf("%s, default %s, %zu rule%s",
	       p->enforce ? "enforcing" : "monitor mode (nothing refused)",
	       ftagent_action_name(p->default_action), p->n,
	       p->n == 1 ? "" : "s");
	if (with_hits)
		printf(", generation %" PRIu64, p->generation);
	printf("\n");
}

/* @header 0 (--no-header): the rows alone, for scripts. */
static void print_text(const struct ftagent_policy_spec *p, int with_hits,
		       int header)
{
	char ops[64], match[1024], name[FTAGENT_RULE_NAME_MAX + 1], m[1024];
	size_t i;

	if (header)
		print_summary(p, with_hits);
	if (header && p->n)
		printf("%4s %-20s %-14s %-6s %s\n", "#", "RULE", "OPS",
		       "ACTION", with_hits ? "HITS  MATCH" : "MATCH");
	for (i = 0; i < p->n; i++) {
		const struct ftagent_rule_spec *r = &p->rules[i];

		ops_text(r->ops, ops, sizeof(ops));
		match_text(r, match, sizeof(match));
		/* Names and prefixes as the terminal's text, never its codes. */
		ftctl_printable(r->name, name, sizeof(name));
		ftctl_printable(match + 1, m, sizeof(m));
		if (with_hits)
			printf("%4zu %-20.20s %-14.14s %-6s %4" PRIu64 " %s\n",
			       i, name, ops, ftagent_action_name(r->action),
			       r->hits, m);
		else
			printf("%4zu %-20.20s %-14.14s %-6s %s\n", i, name, ops,
			       ftagent_action_name(r->action), m);
	}
	if (with_hits)
		printf("%4s %-20s %-14s %-6s %4" PRIu64 "\n", "-", "(default)",
		       "", ftagent_action_name(p->default_action),
		       p->default_hits);
}

static struct json_object *rule_json(const struct ftagent_rule_spec *r,
				     size_t i, int with_hits)
{
	struct json_object *o = json_object_new_object(), *ops;
	char buf[80];
	unsigned int op;

	json_object_object_add(o, "index", json_object_new_int64((int64_t)i));
	json_object_object_add(o, "name", json_object_new_string(r->name));
	ops = json_object_new_array();
	for (op = 0; op < __FTAGENT_OP_MAX; op++)
		if (r->ops & (1u << op))
			json_object_array_add(
				ops,
				json_object_new_string(ftagent_op_name(op)));
	json_object_object_add(o, "ops", ops);
	json_object_object_add(
		o, "action",
		json_object_new_string(ftagent_action_name(r->action)));
	if (r->set & FTAGENT_RULE_SET_UID)
		json_object_object_add(o, "uid", json_object_new_int64(r->uid));
	if (r->set & FTAGENT_RULE_SET_COMM)
		json_object_object_add(o, "comm",
				       json_object_new_string(r->comm));
	if (r->set & FTAGENT_RULE_SET_CGROUP)
		json_object_object_add(
			o, "cgroup_id",
			json_object_new_int64((int64_t)r->cgroup_id));
	if (r->set & FTAGENT_RULE_SET_SUBTREE)
		json_object_object_add(o, "subtree",
				       json_object_new_int64(r->subtree));
	if (r->set & FTAGENT_RULE_SET_EXE)
		json_object_object_add(o, "exe",
				       json_object_new_string(r->exe_prefix));
	if (r->set & FTAGENT_RULE_SET_PATH)
		json_object_object_add(o, "path",
				       json_object_new_string(r->path_prefix));
	if (r->set & FTAGENT_RULE_SET_PORT) {
		json_object_object_add(o, "port_min",
				       json_object_new_int(r->port_min));
		json_object_object_add(o, "port_max",
				       json_object_new_int(r->port_max));
	}
	if (r->set & FTAGENT_RULE_SET_ADDR) {
		char addr[64];

		inet_ntop(r->addr_len == 4 ? AF_INET : AF_INET6, r->addr, addr,
			  sizeof(addr));
		snprintf(buf, sizeof(buf), "%s/%u", addr, r->prefix_len);
		json_object_object_add(o, "cidr", json_object_new_string(buf));
	}
	if (with_hits)
		json_object_object_add(o, "hits",
				       json_object_new_int64((int64_t)r->hits));
	return o;
}

/* @budgets: a file's budgets, listed after its rules (policy check). */
static void print_json(const struct ftagent_policy_spec *p, int with_hits,
		       const struct ftagent_budget_set *budgets)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rules = json_object_new_array();
	size_t i;

	if (with_hits) {
		json_object_object_add(
			o, "generation",
			json_object_new_int64((int64_t)p->generation));
		json_object_object_add(
			o, "default_hits",
			json_object_new_int64((int64_t)p->default_hits));
	}
	json_object_object_add(o, "enforce",
			       json_object_new_boolean(p->enforce));
	json_object_object_add(
		o, "default",
		json_object_new_string(ftagent_action_name(p->default_action)));
	for (i = 0; i < p->n; i++)
		json_object_array_add(rules,
				      rule_json(&p->rules[i], i, with_hits));
	json_object_object_add(o, "rules", rules);
	if (budgets)
		json_object_object_add(o, "budgets",
				       ftctl_budgets_json(budgets, 0));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
}

static int show(const struct ftctl_opts *opts)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	struct ftnl ctl;
	int rc = FTCTL_OK;

	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return ftctl_report_query_error("policy show", &err);
	ftagent_policy_spec_init(&p);
	if (ftagent_get_policy(&ctl, &p, &err) < 0)
		rc = ftctl_report_query_error("policy show", &err);
	else if (opts->json)
		print_json(&p, 1, NULL);
	else
		print_text(&p, 1, !opts->no_header);
	ftagent_policy_spec_free(&p);
	ftnl_close(&ctl);
	return rc;
}

/* Rules, then budgets; the old rules back if the budgets are refused. */
static int load_both(struct ftnl *ctl, const char *file,
		     const struct ftagentd_config *cfg)
{
	struct ftagent_policy_spec old;
	struct ftnl_error err, err2;
	uint64_t generation, bgen;
	int rc = FTCTL_OK;

	ftagent_policy_spec_init(&old);
	if (ftagent_get_policy(ctl, &old, &err) < 0) {
		rc = ftctl_report_query_error("policy load", &err);
		goto out;
	}
	if (ftagent_set_policy(ctl, &cfg->policy.spec, &generation, &err) < 0) {
		rc = ftctl_report_query_error("policy load", &err);
		goto out;
	}
	if (ftagent_set_budgets(ctl, &cfg->policy.budgets, &bgen, &err) < 0) {
		rc = ftctl_report_query_error("policy load: budgets", &err);
		if (ftagent_set_policy(ctl, &old, &generation, &err2) < 0)
			ftctl_report_query_error(
				"policy load: putting the previous rules back",
				&err2);
		else
			fprintf(stderr, "ftctl: policy load: nothing changed "
					"(the previous rules are back)\n");
		goto out;
	}
	printf("%s: %zu rules (generation %" PRIu64 ") and %zu budgets "
	       "(generation %" PRIu64 ") in force\n",
	       file, cfg->policy.spec.n, generation, cfg->policy.budgets.n,
	       bgen);
out:
	ftagent_policy_spec_free(&old);
	return rc;
}

static int check_or_load(const struct ftctl_opts *opts, const char *file,
			 int load)
{
	struct ftagentd_config cfg;
	struct ftnl_error err;
	struct ftnl ctl;
	char why[640];
	int rc = FTCTL_OK;

	if (ftagentd_config_load(file, &cfg, why, sizeof(why)) < 0) {
		fprintf(stderr, "ftctl: %s\n", why);
		return FTCTL_FAILED;
	}
	if (!load) {
		if (opts->json) {
			print_json(&cfg.policy.spec, 0, &cfg.policy.budgets);
		} else {
			print_text(&cfg.policy.spec, 0, !opts->no_header);
			ftctl_print_budgets(&cfg.policy.budgets, 0,
					    !opts->no_header);
		}
		ftagentd_config_free(&cfg);
		return FTCTL_OK;
	}
	if (ftnl_open(&ctl, FTAGENT_GENL_CTL_NAME, &err) < 0) {
		ftagentd_config_free(&cfg);
		return ftctl_report_query_error("policy load", &err);
	}
	rc = load_both(&ctl, file, &cfg);
	ftnl_close(&ctl);
	ftagentd_config_free(&cfg);
	return rc;
}

static const char *const policy_words[] = {"show", "check", "load", NULL};
static const char *const policy_file_words[] = {"check", "load", NULL};

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	int first = ftctl_parse_options(&ftctl_cmd_policy, opts, argc, argv,
					NULL, NULL);
	int n = argc - first;

	if (first < 0)
		return ftctl_parse_exit(first);
	argv += first;
	if (n == 1 && !strcmp(argv[0], "show"))
		return show(opts);
	if (n == 2 && !strcmp(argv[0], "check"))
		return check_or_load(opts, argv[1], 0);
	if (n == 2 && !strcmp(argv[0], "load"))
		return check_or_load(opts, argv[1], 1);
	return ftctl_usage_error(&ftctl_cmd_policy,
				 n ? "unknown subcommand or wrong arguments"
				   : "which one: show, check or load?");
}

const struct ftctl_command ftctl_cmd_policy = {
	.name = "policy",
	.summary = "show the rules in force (root); check or load a file",
	.usage = "policy show | check FILE | load FILE",
	.words = policy_words,
	.file_words = policy_file_words,
	.run = run,
};
