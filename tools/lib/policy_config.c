// SPDX-License-Identifier: GPL-2.0
/*
 * [policy] and [policy.NAME] sections:
 *
 *   [policy]
 *   enforce = true            ; false: monitor mode, report but refuse nothing
 *   default = allow           ; allow | deny | audit
 *
 *   [policy.no-metadata]
 *   ops = connect             ; exec, connect, open, send, bind
 *   action = deny             ; allow | deny | audit
 *   cidr = 169.254.169.254/32 ; or an IPv6 prefix
 *   port = 80                 ; or 8000-8100
 *   uid = 1000                ; or a user name
 *   comm = curl
 *   cgroup = /sys/fs/cgroup/system.slice/web.service  ; or its id
 *   exe = /usr/bin/           ; the executable's path prefix
 *   subtree = 1234            ; a process and its descendants
 *   path = /etc/shadow        ; exec, open: the object's path prefix
 *
 *   [budget.web-egress]
 *   metric = bytes_sent       ; bytes_received, bytes_read, bytes_written,
 *                             ; connects, execs, opens, repeats
 *   limit = 1GB               ; a size for bytes, else a count
 *   window = 1h
 *   alert_at = 800MB          ; optional
 *   enforce = true            ; false: alert at the limit, refuse nothing
 *   kill = false              ; true: SIGKILL the caller refused
 *   uid, comm, cgroup, exe, subtree as in rules
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy_config.h"
#include "units.h"

void ftd_policy_config_init(struct ftd_policy_config *pc)
{
	memset(pc, 0, sizeof(*pc));
	ftagent_policy_spec_init(&pc->spec);
}

void ftd_policy_config_free(struct ftd_policy_config *pc)
{
	ftagent_policy_spec_free(&pc->spec);
	free(pc->line);
	ftagent_budget_set_free(&pc->budgets);
	free(pc->budget_line);
	free(pc->budget_seen);
	free(pc->cgroups);
	ftd_policy_config_init(pc);
}

int ftd_policy_section(const char *section)
{
	return !strcmp(section, "policy") || !strncmp(section, "policy.", 7) ||
	       !strncmp(section, "budget.", 7);
}

static int parse_action(const char *s, uint32_t *action, const char **why)
{
	char word[16];
	unsigned int a;

	if (ftagentd_parse_string(s, word, sizeof(word), why))
		return -1;
	for (a = 0; a < __FTAGENT_ACTION_MAX; a++)
		if (!strcmp(word, ftagent_action_name(a))) {
			*action = a;
			return 0;
		}
	*why = "an action is allow, deny or audit";
	return -1;
}

static int add_op(const char *item, size_t len, void *arg)
{
	uint32_t *ops = arg;
	unsigned int op;

	for (op = 0; op < __FTAGENT_OP_MAX; op++)
		if (strlen(ftagent_op_name(op)) == len &&
		    !strncmp(item, ftagent_op_name(op), len)) {
			*ops |= 1u << op;
			return 0;
		}
	return -1;
}

static struct ftagent_rule_spec *rule_for(struct ftd_policy_config *pc,
					  const char *name, int line,
					  const char **why)
{
	struct ftagent_rule_spec *r;
	size_t i;

	for (i = 0; i < pc->spec.n; i++)
		if (!strcmp(pc->spec.rules[i].name, name))
			return &pc->spec.rules[i];
	if (!*name || strlen(name) > FTAGENT_RULE_NAME_MAX) {
		*why = "a rule's name is 1 to 63 bytes: [policy.NAME]";
		return NULL;
	}
	if (pc->spec.n == FTAGENT_POLICY_RULES_MAX) {
		*why = "more rules than the module takes (16384)";
		return NULL;
	}
	if (pc->spec.n == pc->line_cap) {
		size_t cap = pc->line_cap ? 2 * pc->line_cap : 16;
		int *l = realloc(pc->line, cap * sizeof(*l));

		if (!l)
			goto nomem;
		pc->line = l;
		pc->line_cap = cap;
	}
	r = ftagent_policy_spec_add(&pc->spec);
	if (!r)
		goto nomem;
	strcpy(r->name, name);
	pc->line[pc->spec.n - 1] = line;
	return r;
nomem:
	*why = "out of memory";
	return NULL;
}

static int parse_port(const char *s, struct ftagent_rule_spec *r,
		      const char **why)
{
	unsigned long lo, hi;
	char *end;

	lo = strtoul(s, &end, 10);
	hi = lo;
	if (end != s && *end == '-')
		hi = strtoul(end + 1, &end, 10);
	if (end == s || *end || lo < 1 || hi > 65535 || hi < lo) {
		*why = "a port is 1..65535, or a range LOW-HIGH";
		return -1;
	}
	r->set |= FTAGENT_RULE_SET_PORT;
	r->port_min = (uint16_t)lo;
	r->port_max = (uint16_t)hi;
	return 0;
}

static int parse_cidr(const char *s, struct ftagent_rule_spec *r,
		      const char **why)
{
	char addr[64], *slash;
	unsigned long len;
	char *end;

	if (ftagentd_parse_string(s, addr, sizeof(addr), why))
		return -1;
	slash = strchr(addr, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, addr, r->addr) == 1)
		r->addr_len = 4;
	else if (inet_pton(AF_INET6, addr, r->addr) == 1)
		r->addr_len = 16;
	else {
		*why = "not an IPv4 or IPv6 address (ADDR or ADDR/LEN)";
		return -1;
	}
	r->prefix_len = (uint8_t)(r->addr_len * 8);
	if (slash) {
		len = strtoul(slash + 1, &end, 10);
		if (end == slash + 1 || *end || len > r->addr_len * 8u) {
			*why = "the prefix length is 0..32 (IPv4) or 0..128 "
			       "(IPv6)";
			return -1;
		}
		r->prefix_len = (uint8_t)len;
	}
	r->set |= FTAGENT_RULE_SET_ADDR | FTAGENT_RULE_SET_PREFIX_LEN;
	return 0;
}

static int parse_uid(const char *s, uint32_t *uid, const char **why)
{
	char name[64];
	struct passwd *pw;
	uint64_t n;

	if (ftagentd_parse_count(s, &n, why) == 0 && n < 0xffffffffull) {
		*uid = (uint32_t)n;
		return 0;
	}
	if (ftagentd_parse_string(s, name, sizeof(name), why))
		return -1;
	pw = getpwnam(name);
	if (!pw) {
		*why = "no such user (a uid or a user name)";
		return -1;
	}
	*uid = pw->pw_uid;
	return 0;
}

/*
 * A cgroup v2 id is its directory's inode number. By path, the id it has
 * now, or 0 while it does not exist (policy_key() keeps the path).
 */
static int parse_cgroup(const char *s, uint64_t *id, const char **why)
{
	char path[1024];
	struct stat st;

	if (ftagentd_parse_count(s, id, why) == 0)
		return 0;
	if (ftagentd_parse_string(s, path, sizeof(path), why))
		return -1;
	if (path[0] != '/') {
		*why = "a cgroup is its id or its directory's absolute path "
		       "under /sys/fs/cgroup";
		return -1;
	}
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			*why = "the cgroup's directory can't be read";
			return -1;
		}
		*id = 0; /* not there yet: resolved again before each push */
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = "a cgroup is a directory under /sys/fs/cgroup";
		return -1;
	}
	*id = st.st_ino;
	return 0;
}

/* Keep @value's path (when it is one) for the rule or budget @index. */
static int keep_cgroup_path(struct ftd_policy_config *pc, int budget,
			    size_t index, const char *value, const char **why)
{
	struct ftd_cgroup_ref *ref = NULL;
	uint64_t id;
	size_t i;

	if (ftagentd_parse_count(value, &id, why) == 0)
		return 0; /* an id, not a path */
	for (i = 0; i < pc->n_cgroups; i++)
		if (pc->cgroups[i].budget == budget &&
		    pc->cgroups[i].index == index)
			ref = &pc->cgroups[i];
	if (!ref) {
		if (pc->n_cgroups == pc->cap_cgroups) {
			size_t cap = pc->cap_cgroups ? 2 * pc->cap_cgroups : 8;
			struct ftd_cgroup_ref *c =
				realloc(pc->cgroups, cap * sizeof(*c));

			if (!c) {
				*why = "out of memory";
				return -1;
			}
			pc->cgroups = c;
			pc->cap_cgroups = cap;
		}
		ref = &pc->cgroups[pc->n_cgroups++];
	}
	ref->budget = budget;
	ref->index = index;
	return ftagentd_parse_string(value, ref->path, sizeof(ref->path), why);
}

static int parse_prefix(const char *s, char *out, size_t size, const char **why)
{
	if (ftagentd_parse_string(s, out, size, why))
		return -1;
	if (out[0] != '/') {
		*why = "must be an absolute path";
		return -1;
	}
	return 0;
}

/* The principal keys rules and budgets share; 1 when @name is not one. */
static int principal_key(unsigned int *set, uint32_t *uid, char *comm_out,
			 uint64_t *cgroup_id, char *exe, size_t exe_size,
			 uint32_t *subtree, const char *name, const char *value,
			 const char **why)
{
	uint64_t n;

	if (!strcmp(name, "uid")) {
		*set |= FTAGENT_RULE_SET_UID;
		return parse_uid(value, uid, why);
	}
	if (!strcmp(name, "comm")) {
		char comm[64];

		*set |= FTAGENT_RULE_SET_COMM;
		if (ftagentd_parse_string(value, comm, sizeof(comm), why))
			return -1;
		if (!comm[0] || strlen(comm) >= FTAGENT_COMM_LEN) {
			*why = "a command name is 1 to 15 bytes";
			return -1;
		}
		strcpy(comm_out, comm);
		return 0;
	}
	if (!strcmp(name, "cgroup")) {
		*set |= FTAGENT_RULE_SET_CGROUP;
		return parse_cgroup(value, cgroup_id, why);
	}
	if (!strcmp(name, "exe")) {
		*set |= FTAGENT_RULE_SET_EXE;
		return parse_prefix(value, exe, exe_size, why);
	}
	if (!strcmp(name, "subtree")) {
		if (ftagentd_parse_count(value, &n, why) || !n ||
		    n > 0x7fffffff) {
			*why = "subtree is a process id";
			return -1;
		}
		*set |= FTAGENT_RULE_SET_SUBTREE;
		*subtree = (uint32_t)n;
		return 0;
	}
	return 1;
}

static int rule_key(struct ftagent_rule_spec *r, const char *name,
		    const char *value, const char **why)
{
	int rc;

	if (!strcmp(name, "ops")) {
		r->ops = 0;
		if (ftagentd_parse_list(value, add_op, &r->ops, why) ||
		    !r->ops) {
			*why = "ops lists exec, connect, open, send, bind";
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "action")) {
		r->set |= FTAGENT_RULE_SET_ACTION;
		return parse_action(value, &r->action, why);
	}
	rc = principal_key(&r->set, &r->uid, r->comm, &r->cgroup_id,
			   r->exe_prefix, sizeof(r->exe_prefix), &r->subtree,
			   name, value, why);
	if (rc <= 0)
		return rc;
	if (!strcmp(name, "path")) {
		r->set |= FTAGENT_RULE_SET_PATH;
		return parse_prefix(value, r->path_prefix,
				    sizeof(r->path_prefix), why);
	}
	if (!strcmp(name, "port"))
		return parse_port(value, r, why);
	if (!strcmp(name, "cidr"))
		return parse_cidr(value, r, why);
	*why = "unknown key";
	return -1;
}

#define BUDGET_SEEN_METRIC (1u << 0)
#define BUDGET_SEEN_LIMIT  (1u << 1)
#define BUDGET_SEEN_WINDOW (1u << 2)
#define BUDGET_SEEN_UNIT   (1u << 3) /* limit or alert_at had a unit */

static struct ftagent_budget_spec *budget_for(struct ftd_policy_config *pc,
					      const char *name, int line,
					      const char **why)
{
	struct ftagent_budget_spec *b;
	size_t i, n = pc->budgets.n;

	for (i = 0; i < n; i++)
		if (!strcmp(pc->budgets.b[i].name, name))
			return &pc->budgets.b[i];
	if (!*name || strlen(name) > FTAGENT_RULE_NAME_MAX) {
		*why = "a budget's name is 1 to 63 bytes: [budget.NAME]";
		return NULL;
	}
	if (n == FTAGENT_BUDGETS_MAX) {
		*why = "more budgets than the module takes (1024)";
		return NULL;
	}
	if (n == pc->budget_line_cap) {
		size_t cap = n ? 2 * n : 8;
		int *l = realloc(pc->budget_line, cap * sizeof(*l));
		unsigned int *seen;

		if (!l)
			goto nomem;
		pc->budget_line = l;
		seen = realloc(pc->budget_seen, cap * sizeof(*seen));
		if (!seen)
			goto nomem;
		pc->budget_seen = seen;
		pc->budget_line_cap = cap;
	}
	b = ftagent_budget_set_add(&pc->budgets);
	if (!b)
		goto nomem;
	strcpy(b->name, name);
	pc->budget_line[n] = line;
	pc->budget_seen[n] = 0;
	return b;
nomem:
	*why = "out of memory";
	return NULL;
}

/* A size ("1GB") for byte metrics, a plain count for the others. */
static int parse_amount(const char *value, uint64_t *out, unsigned int *seen,
			const char **why)
{
	const char *p;

	for (p = value; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
			*seen |= BUDGET_SEEN_UNIT;
	return ftagentd_parse_size(value, out, why);
}

static int budget_key(struct ftd_policy_config *pc,
		      struct ftagent_budget_spec *b, const char *name,
		      const char *value, const char **why)
{
	unsigned int *seen = &pc->budget_seen[b - pc->budgets.b];
	char word[32];
	uint64_t ms;
	unsigned int m;
	int rc, on;

	rc = principal_key(&b->set, &b->uid, b->comm, &b->cgroup_id,
			   b->exe_prefix, sizeof(b->exe_prefix), &b->subtree,
			   name, value, why);
	if (rc <= 0)
		return rc;
	if (!strcmp(name, "metric")) {
		if (ftagentd_parse_string(value, word, sizeof(word), why))
			return -1;
		for (m = 0; m < __FTAGENT_METRIC_MAX; m++)
			if (!strcmp(word, ftagent_metric_name(m)))
				break;
		if (m == __FTAGENT_METRIC_MAX) {
			*why = "a metric is bytes_sent, bytes_received, "
			       "bytes_read, bytes_written, connects, execs, "
			       "opens or repeats";
			return -1;
		}
		b->metric = m;
		*seen |= BUDGET_SEEN_METRIC;
		return 0;
	}
	if (!strcmp(name, "limit")) {
		*seen |= BUDGET_SEEN_LIMIT;
		if (parse_amount(value, &b->limit, seen, why))
			return -1;
		if (!b->limit) {
			*why = "the limit is above 0";
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "alert_at"))
		return parse_amount(value, &b->alert_at, seen, why);
	if (!strcmp(name, "window")) {
		if (ftagentd_parse_duration(value, &ms, why))
			return -1;
		if (!ms || ms > FTAGENT_BUDGET_WINDOW_MAX_MS) {
			*why = "a window is 1ms to 7 days";
			return -1;
		}
		b->window_ms = (uint32_t)ms;
		*seen |= BUDGET_SEEN_WINDOW;
		return 0;
	}
	if (!strcmp(name, "enforce") || !strcmp(name, "kill")) {
		if (ftagentd_parse_bool(value, &on, why))
			return -1;
		if (!strcmp(name, "enforce"))
			b->enforce = on;
		else
			b->kill = on;
		return 0;
	}
	*why = "unknown key";
	return -1;
}

int ftd_budgets_check(const struct ftd_policy_config *pc, size_t *budget,
		      const char **why)
{
	size_t i;

	for (i = 0; i < pc->budgets.n; i++) {
		const struct ftagent_budget_spec *b = &pc->budgets.b[i];
		unsigned int seen = pc->budget_seen[i];

		*budget = i;
		if (!(seen & BUDGET_SEEN_METRIC)) {
			*why = "needs metric";
			return -1;
		}
		if (!(seen & BUDGET_SEEN_LIMIT)) {
			*why = "needs limit";
			return -1;
		}
		if (!(seen & BUDGET_SEEN_WINDOW)) {
			*why = "needs window";
			return -1;
		}
		if ((seen & BUDGET_SEEN_UNIT) &&
		    !ftagent_metric_is_bytes(b->metric)) {
			*why = "a limit of calls is a count, without a unit";
			return -1;
		}
		if (b->alert_at && b->alert_at >= b->limit) {
			*why = "alert_at must be below limit";
			return -1;
		}
		if (b->kill && !b->enforce) {
			*why = "kill needs enforce = true";
			return -1;
		}
	}
	return 0;
}

int ftd_policy_key(struct ftd_policy_config *pc, const char *section,
		   const char *name, const char *value, int line,
		   const char **why)
{
	struct ftagent_rule_spec *r;

	if (!strcmp(section, "policy")) {
		int on;

		if (!strcmp(name, "enforce")) {
			if (ftagentd_parse_bool(value, &on, why))
				return -1;
			pc->spec.enforce = on;
			return 0;
		}
		if (!strcmp(name, "default"))
			return parse_action(value, &pc->spec.default_action,
					    why);
		*why = "unknown key";
		return -1;
	}
	if (!strncmp(section, "budget.", 7)) {
		struct ftagent_budget_spec *b =
			budget_for(pc, section + 7, line, why);

		if (!b || budget_key(pc, b, name, value, why))
			return -1;
		return strcmp(name, "cgroup")
			       ? 0
			       : keep_cgroup_path(pc, 1,
						  (size_t)(b - pc->budgets.b),
						  value, why);
	}
	r = rule_for(pc, section + 7, line, why);
	if (!r || rule_key(r, name, value, why))
		return -1;
	return strcmp(name, "cgroup")
		       ? 0
		       : keep_cgroup_path(pc, 0, (size_t)(r - pc->spec.rules),
					  value, why);
}

#define NET_OPS                                                                \
	((1u << FTAGENT_OP_CONNECT) | (1u << FTAGENT_OP_SEND) |                \
	 (1u << FTAGENT_OP_BIND))
#define PATH_OPS ((1u << FTAGENT_OP_EXEC) | (1u << FTAGENT_OP_OPEN))

int ftd_policy_check(const struct ftd_policy_config *pc, size_t *rule,
		     const char **why)
{
	size_t i;

	for (i = 0; i < pc->spec.n; i++) {
		const struct ftagent_rule_spec *r = &pc->spec.rules[i];

		*rule = i;
		if (!r->ops) {
			*why = "needs ops (exec, connect, open, send, bind)";
			return -1;
		}
		if (!(r->set & FTAGENT_RULE_SET_ACTION)) {
			*why = "needs action (allow, deny, audit)";
			return -1;
		}
		if ((r->set & FTAGENT_RULE_SET_PATH) && (r->ops & ~PATH_OPS)) {
			*why = "path applies to exec and open only";
			return -1;
		}
		if ((r->set &
		     (FTAGENT_RULE_SET_PORT | FTAGENT_RULE_SET_ADDR)) &&
		    (r->ops & ~NET_OPS)) {
			*why = "port and cidr apply to connect, send and bind "
			       "only";
			return -1;
		}
	}
	return 0;
}

/* Append "NAME (PATH)" to @missing. */
static void note_missing(char *missing, size_t len, const char *name,
			 const char *path)
{
	size_t used = strlen(missing);

	if (used + 1 < len)
		snprintf(missing + used, len - used, "%s%s (%s)",
			 used ? ", " : "", name, path);
}

int ftd_policy_resolve(const struct ftd_policy_config *pc,
		       struct ftagent_policy_spec *out,
		       struct ftagent_budget_set *out_b, char *missing,
		       size_t missing_len)
{
	uint64_t *rule_id = NULL, *budget_id = NULL;
	struct stat st;
	size_t i;
	int left_out = 0;

	ftagent_policy_spec_init(out);
	memset(out_b, 0, sizeof(*out_b));
	if (missing_len)
		missing[0] = '\0';
	out->enforce = pc->spec.enforce;
	out->default_action = pc->spec.default_action;
	rule_id = calloc(pc->spec.n + 1, sizeof(*rule_id));
	budget_id = calloc(pc->budgets.n + 1, sizeof(*budget_id));
	if (!rule_id || !budget_id)
		goto nomem;
	/* UINT64_MAX: given by path and not there now. */
	for (i = 0; i < pc->n_cgroups; i++) {
		const struct ftd_cgroup_ref *ref = &pc->cgroups[i];
		uint64_t id = stat(ref->path, &st) == 0 && S_ISDIR(st.st_mode)
				      ? st.st_ino
				      : UINT64_MAX;

		if (ref->budget)
			budget_id[ref->index] = id;
		else
			rule_id[ref->index] = id;
	}
	for (i = 0; i < pc->spec.n; i++) {
		struct ftagent_rule_spec *r;

		if (rule_id[i] == UINT64_MAX) {
			left_out++;
			continue;
		}
		r = ftagent_policy_spec_add(out);
		if (!r)
			goto nomem;
		*r = pc->spec.rules[i];
		if (rule_id[i])
			r->cgroup_id = rule_id[i];
	}
	for (i = 0; i < pc->budgets.n; i++) {
		struct ftagent_budget_spec *b;

		if (budget_id[i] == UINT64_MAX) {
			left_out++;
			continue;
		}
		b = ftagent_budget_set_add(out_b);
		if (!b)
			goto nomem;
		*b = pc->budgets.b[i];
		if (budget_id[i])
			b->cgroup_id = budget_id[i];
	}
	for (i = 0; i < pc->n_cgroups; i++) {
		const struct ftd_cgroup_ref *ref = &pc->cgroups[i];

		if ((ref->budget ? budget_id : rule_id)[ref->index] ==
		    UINT64_MAX)
			note_missing(missing, missing_len,
				     ref->budget
					     ? pc->budgets.b[ref->index].name
					     : pc->spec.rules[ref->index].name,
				     ref->path);
	}
	free(rule_id);
	free(budget_id);
	return left_out;
nomem:
	free(rule_id);
	free(budget_id);
	ftagent_policy_spec_free(out);
	ftagent_budget_set_free(out_b);
	return -1;
}
