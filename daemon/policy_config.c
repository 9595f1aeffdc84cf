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
	ftd_policy_config_init(pc);
}

int ftd_policy_section(const char *section)
{
	return !strcmp(section, "policy") || !strncmp(section, "policy.", 7);
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

/* A cgroup v2 id is its directory's inode number. */
static int parse_cgroup(const char *s, uint64_t *id, const char **why)
{
	char path[1024];
	struct stat st;

	if (ftagentd_parse_count(s, id, why) == 0)
		return 0;
	if (ftagentd_parse_string(s, path, sizeof(path), why))
		return -1;
	if (path[0] != '/' || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*why = "a cgroup is its id or its directory under "
		       "/sys/fs/cgroup, which must exist";
		return -1;
	}
	*id = st.st_ino;
	return 0;
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

static int rule_key(struct ftagent_rule_spec *r, const char *name,
		    const char *value, const char **why)
{
	uint64_t n;

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
	if (!strcmp(name, "uid")) {
		r->set |= FTAGENT_RULE_SET_UID;
		return parse_uid(value, &r->uid, why);
	}
	if (!strcmp(name, "comm")) {
		char comm[64];

		r->set |= FTAGENT_RULE_SET_COMM;
		if (ftagentd_parse_string(value, comm, sizeof(comm), why))
			return -1;
		if (!comm[0] || strlen(comm) >= FTAGENT_COMM_LEN) {
			*why = "a command name is 1 to 15 bytes";
			return -1;
		}
		strcpy(r->comm, comm);
		return 0;
	}
	if (!strcmp(name, "cgroup")) {
		r->set |= FTAGENT_RULE_SET_CGROUP;
		return parse_cgroup(value, &r->cgroup_id, why);
	}
	if (!strcmp(name, "exe")) {
		r->set |= FTAGENT_RULE_SET_EXE;
		return parse_prefix(value, r->exe_prefix, sizeof(r->exe_prefix),
				    why);
	}
	if (!strcmp(name, "path")) {
		r->set |= FTAGENT_RULE_SET_PATH;
		return parse_prefix(value, r->path_prefix,
				    sizeof(r->path_prefix), why);
	}
	if (!strcmp(name, "subtree")) {
		if (ftagentd_parse_count(value, &n, why) || !n ||
		    n > 0x7fffffff) {
			*why = "subtree is a process id";
			return -1;
		}
		r->set |= FTAGENT_RULE_SET_SUBTREE;
		r->subtree = (uint32_t)n;
		return 0;
	}
	if (!strcmp(name, "port"))
		return parse_port(value, r, why);
	if (!strcmp(name, "cidr"))
		return parse_cidr(value, r, why);
	*why = "unknown key";
	return -1;
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
	r = rule_for(pc, section + 7, line, why);
	if (!r)
		return -1;
	return rule_key(r, name, value, why);
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
