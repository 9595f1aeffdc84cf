// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing the config file with libinih. Every key is described once in
 * a table (section, name, kind, where it goes, bounds); the handler finds
 * the entry, converts the value and checks it. libinih does not tell the
 * handler the line it is on, so the reader it is given counts lines.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>
#include <linux/ftagent.h>

#include "config.h"
#include "records.h"
#include "units.h"

enum kind {
	MODE,
	HOOKS,
	SIZE,
	DURATION,
	COUNT,
	BOOL,
	COMMS,
	PATHS,
	LISTEN,
	OUTPUT,
	TYPES,
	DIRPATH,
	GROUP_BY,
};

struct key {
	const char *section, *name;
	enum kind kind;
	size_t offset;
	uint64_t min, max; /* SIZE, DURATION, COUNT; 0 is always allowed
			    * where zero_ok */
	int zero_ok;
};

#define AT(field) offsetof(struct ftagentd_config, field)
#define KIB	  (1ull << 10)
#define MIB	  (1ull << 20)
#define GIB	  (1ull << 30)

static const struct key keys[] = {
	{"agent", "mode", MODE, AT(agent.mode), 0, 0, 0},
	{"agent", "hooks", HOOKS, AT(agent.hooks), 0, 0, 0},
	{"agent", "ring_buffer_size", SIZE, AT(agent.ring_buffer_size),
	 64 * KIB, GIB, 1},
	{"agent", "flush_interval", DURATION, AT(agent.flush_interval_ms), 1,
	 60000, 1},
	{"agent", "event_log_size", SIZE, AT(agent.event_log_size), 64 * KIB,
	 GIB, 0},
	{"agent", "event_output", OUTPUT, AT(agent.event_output), 0, 0, 0},
	{"agent", "event_output_types", TYPES, AT(agent.event_output_types), 0,
	 0, 0},
	{"limits", "processes", COUNT, AT(limits.processes), 16, 1 << 20, 0},
	{"limits", "sockets", COUNT, AT(limits.sockets), 16, 1 << 22, 0},
	{"limits", "flows", COUNT, AT(limits.flows), 16, 1 << 22, 0},
	{"limits", "files", COUNT, AT(limits.files), 16, 1 << 22, 0},
	{"limits", "transfers", COUNT, AT(limits.transfers), 16, 1 << 22, 0},
	{"limits", "kernel_counters", COUNT, AT(limits.kernel_counters), 16,
	 1 << 20, 0},
	{"limits", "metric_series", COUNT, AT(limits.metric_series), 1, 1 << 20,
	 0},
	{"network", "tcp", BOOL, AT(network.tcp), 0, 0, 0},
	{"network", "udp", BOOL, AT(network.udp), 0, 0, 0},
	{"network", "ipv4", BOOL, AT(network.ipv4), 0, 0, 0},
	{"network", "ipv6", BOOL, AT(network.ipv6), 0, 0, 0},
	{"file", "track_read", BOOL, AT(file.track_read), 0, 0, 0},
	{"file", "track_sendfile", BOOL, AT(file.track_sendfile), 0, 0, 0},
	{"filters", "exclude_processes", COMMS, AT(filters.exclude_processes),
	 0, 0, 0},
	{"filters", "exclude_paths", PATHS, AT(filters.exclude_paths), 0, 0, 0},
	{"metrics", "listen", LISTEN, AT(metrics.listen), 0, 0, 0},
	{"audit", "enabled", BOOL, AT(audit.enabled), 0, 0, 0},
	{"audit", "dir", DIRPATH, AT(audit.dir), 0, 0, 0},
	{"audit", "rotate_size", SIZE, AT(audit.rotate_size), 64 * KIB, GIB, 0},
	{"audit", "fsync_batch", COUNT, AT(audit.fsync_batch), 1, 1 << 20, 0},
	{"audit", "fsync_interval", DURATION, AT(audit.fsync_interval_ms), 1,
	 60000, 0},
	{"metrics", "group_by", GROUP_BY, AT(metrics.group_by), 0, 0, 0},
	{"metrics", "group_limit", COUNT, AT(metrics.group_limit), 1, 1 << 16,
	 0},
};

static const char *const group_by_names[__FTAGENTD_GROUP_MAX] = {
	[FTAGENTD_GROUP_COMMAND] = "command",
	[FTAGENTD_GROUP_EXECUTABLE] = "executable",
	[FTAGENTD_GROUP_UNIT] = "unit",
	[FTAGENTD_GROUP_PID] = "pid",
};

const char *ftagentd_group_by_name(unsigned int by)
{
	return by < __FTAGENTD_GROUP_MAX ? group_by_names[by] : "unknown";
}

void ftagentd_config_defaults(struct ftagentd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	ftd_policy_config_init(&cfg->policy);
	cfg->agent.mode = FTAGENT_MODE_STANDARD;
	cfg->agent.hooks = FTAGENT_HOOKS_FTRACE;
	cfg->agent.flush_interval_ms = 250;
	cfg->agent.event_log_size = 16 * MIB;
	cfg->limits.processes = 4096;
	cfg->limits.sockets = 16384;
	cfg->limits.flows = 16384;
	cfg->limits.files = 16384;
	cfg->limits.transfers = 16384;
	cfg->limits.kernel_counters = 16384;
	cfg->limits.metric_series = 10000;
	/* docs/metrics.md says why command and why 1000. */
	cfg->metrics.group_by = FTAGENTD_GROUP_COMMAND;
	cfg->metrics.group_limit = 1000;
	cfg->network.tcp = cfg->network.udp = 1;
	cfg->network.ipv4 = cfg->network.ipv6 = 1;
	cfg->file.track_read = cfg->file.track_sendfile = 1;
	cfg->agent.event_output_types = FTAGENTD_ALL_EVENT_TYPES;
	snprintf(cfg->audit.dir, sizeof(cfg->audit.dir), "%s",
		 FTAGENTD_AUDIT_DIR);
	cfg->audit.rotate_size = 64 * MIB;
	cfg->audit.fsync_batch = 64;
	cfg->audit.fsync_interval_ms = 1000;
	/*
	 * No names by default: any process can take a name. The daemon
	 * excludes itself by its control socket (EXCLUDE_SELF).
	 */
}

static void list_free(struct ftagentd_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->item[i]);
	l->n = 0;
}

void ftagentd_config_free(struct ftagentd_config *cfg)
{
	list_free(&cfg->filters.exclude_processes);
	list_free(&cfg->filters.exclude_paths);
	ftd_policy_config_free(&cfg->policy);
}

struct parse {
	const char *name; /* the file, for messages */
	const char *text; /* ftagentd_config_parse(): what is left */
	FILE *file;	  /* ftagentd_config_load() */
	int line;
	int mid_line; /* the last chunk read did not end the line */
	struct ftagentd_config *cfg;
	unsigned char seen[sizeof(keys) / sizeof(keys[0])];
	unsigned char cleared[sizeof(keys) / sizeof(keys[0])];
	char *err;
	size_t err_size;
	int failed;
};

static void fail(struct parse *p, const char *section, const char *key,
		 const char *why)
{
	if (p->failed++)
		return; /* the first error is the one to fix */
	if (key)
		snprintf(p->err, p->err_size, "%s:%d: [%s] %s: %s", p->name,
			 p->line, section, key, why);
	else
		snprintf(p->err, p->err_size, "%s:%d: %s", p->name, p->line,
			 why);
}

struct list_add {
	struct ftagentd_list *l;
	size_t max_len;
	const char **why;
};

static int add_item(const char *item, size_t len, void *arg)
{
	struct list_add *a = arg;

	if (len > a->max_len) {
		*a->why = a->max_len < 16 ? "a process name is at most 15 bytes"
					  : "a path is at most 1024 bytes";
		return -1;
	}
	if (a->l->n == FTAGENTD_LIST_MAX) {
		*a->why = "at most 64 items";
		return -1;
	}
	a->l->item[a->l->n] = strndup(item, len);
	if (!a->l->item[a->l->n]) {
		*a->why = "out of memory";
		return -1;
	}
	a->l->n++;
	return 0;
}

/* An event type's name ("exec"), as records.h names them, into a bit. */
struct type_add {
	uint32_t *mask;
	const char **why;
};

static int add_type(const char *item, size_t len, void *arg)
{
	struct type_add *a = arg;
	unsigned int t;

	for (t = 0; t < __FTAGENT_REC_MAX; t++) {
		const char *name = ftagent_rec_type_name(t);

		if (t != FTAGENT_REC_GAP && strlen(name) == len &&
		    !strncmp(name, item, len)) {
			*a->mask |= 1u << t;
			return 0;
		}
	}
	*a->why = "not an event type (fork, exec, exit, bind, listen, "
		  "connect, accept, close, open, verdict)";
	return -1;
}

/* host:port with a numeric port, IPv6 hosts in brackets. */
static int check_listen(const char *s, const char **why)
{
	const char *colon = strrchr(s, ':'), *host_start;
	char host[INET6_ADDRSTRLEN + 1], *end;
	unsigned char addr[sizeof(struct in6_addr)];
	size_t host_len;
	long port;

	if (!*s)
		return 0; /* empty: off */
	if (!colon || colon == s) {
		*why = "listen is host:port, e.g. 127.0.0.1:9465";
		return -1;
	}
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 1 || port > 65535) {
		*why = "the port is 1 to 65535";
		return -1;
	}
	if (s[0] == '[' ? colon[-1] != ']'
			: memchr(s, ':', colon - s) != NULL) {
		*why = "an IPv6 address goes in brackets: [::1]:9465";
		return -1;
	}
	/*
	 * An address, not a name: the page binds before name service may be
	 * up, and the daemon refuses a name when it starts the page, so
	 * --check-config must refuse it too.
	 */
	if (s[0] == '[') {
		host_start = s + 1;
		host_len = (size_t)(colon - 1 - host_start);
	} else {
		host_start = s;
		host_len = (size_t)(colon - s);
	}
	if (host_len < sizeof(host)) {
		memcpy(host, host_start, host_len);
		host[host_len] = '\0';
	}
	if (host_len >= sizeof(host) ||
	    inet_pton(s[0] == '[' ? AF_INET6 : AF_INET, host, addr) != 1) {
		*why = "the host is an IPv4 address or a bracketed IPv6 "
		       "address, not a name";
		return -1;
	}
	return 0;
}

static int set_value(struct parse *p, size_t k, const char *value,
		     const char **why)
{
	const struct key *key = &keys[k];
	void *field = (char *)p->cfg + key->offset;
	struct list_add add = {field, 0, why};
	char word[32];
	uint64_t v = 0;
	int b;

	switch (key->kind) {
	case MODE:
	case HOOKS:
		if (ftagentd_parse_string(value, word, sizeof(word), why))
			return -1;
		if (key->kind == MODE && !strcmp(word, "minimal"))
			*(uint32_t *)field = FTAGENT_MODE_MINIMAL;
		else if (key->kind == MODE && !strcmp(word, "standard"))
			*(uint32_t *)field = FTAGENT_MODE_STANDARD;
		else if (key->kind == HOOKS && !strcmp(word, "ftrace"))
			*(uint32_t *)field = FTAGENT_HOOKS_FTRACE;
		else if (key->kind == HOOKS && !strcmp(word, "kprobe"))
			*(uint32_t *)field = FTAGENT_HOOKS_KPROBE;
		else {
			*why = key->kind == MODE ? "mode is minimal or standard"
						 : "hooks is ftrace or kprobe";
			return -1;
		}
		return 0;
	case SIZE:
	case DURATION:
	case COUNT:
		if (ftagentd_parse_string(value, word, sizeof(word), why))
			return -1;
		if ((key->kind == SIZE && ftagentd_parse_size(word, &v, why)) ||
		    (key->kind == DURATION &&
		     ftagentd_parse_duration(word, &v, why)) ||
		    (key->kind == COUNT && ftagentd_parse_count(word, &v, why)))
			return -1;
		if (!(v == 0 && key->zero_ok) &&
		    (v < key->min || v > key->max)) {
			*why = key->kind == SIZE    ? "size out of range"
			       : key->kind == COUNT ? "number out of range"
						    : "duration out of range";
			return -1;
		}
		*(uint64_t *)field = v;
		return 0;
	case BOOL:
		if (ftagentd_parse_bool(value, &b, why))
			return -1;
		*(int *)field = b;
		return 0;
	case COMMS:
	case PATHS:
		/* The file's list replaces the default, then grows. */
		if (!p->cleared[k]) {
			list_free(field);
			p->cleared[k] = 1;
		}
		add.max_len = key->kind == COMMS ? FTAGENT_COMM_LEN - 1
						 : FTAGENTD_NAME_MAX;
		return ftagentd_parse_list(value, add_item, &add, why) ? -1 : 0;
	case OUTPUT:
		if (ftagentd_parse_string(value, field,
					  sizeof(p->cfg->agent.event_output),
					  why))
			return -1;
		/* "none" and "journal", or where to append JSON lines. */
		if (!strcmp(field, "none")) {
			*(char *)field = '\0';
			return 0;
		}
		if (!strcmp(field, "journal") || *(const char *)field == '/')
			return 0;
		*why = "must be none, journal or an absolute file path";
		return -1;
	case TYPES:
		/* The file's list replaces the default (all), then grows. */
		if (!p->cleared[k]) {
			*(uint32_t *)field = 0;
			p->cleared[k] = 1;
		}
		return ftagentd_parse_list(value, add_type,
					   &(struct type_add){field, why}, why)
			       ? -1
			       : 0;
	case DIRPATH:
		if (ftagentd_parse_string(value, field,
					  sizeof(p->cfg->audit.dir), why))
			return -1;
		if (*(const char *)field == '/')
			return 0;
		*why = "must be an absolute directory path";
		return -1;
	case GROUP_BY:
		if (ftagentd_parse_string(value, word, sizeof(word), why))
			return -1;
		for (b = 0; b < __FTAGENTD_GROUP_MAX; b++) {
			if (!strcmp(word, group_by_names[b])) {
				*(uint32_t *)field = (uint32_t)b;
				return 0;
			}
		}
		*why = "group_by is command, executable, unit or pid";
		return -1;
	case LISTEN:
		if (ftagentd_parse_string(value, field,
					  sizeof(p->cfg->metrics.listen), why))
			return *value ? -1 : 0;
		return check_listen(field, why);
	}
	return -1;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse *p = user;
	const char *why = NULL;
	size_t k;

	if (!name) /* a section header alone (inih calls with NULL name) */
		return 1;
	if (ftd_policy_section(section)) {
		if (ftd_policy_key(&p->cfg->policy, section, name, value,
				   p->line, &why)) {
			fail(p, section, name, why);
			return 0;
		}
		return 1;
	}
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (!strcmp(keys[k].section, section) &&
		    !strcmp(keys[k].name, name))
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		fail(p, section, name, "unknown key");
		return 0;
	}
	/* A list may go on over several lines; anything else once. */
	if (p->seen[k]++ && keys[k].kind != COMMS && keys[k].kind != PATHS &&
	    keys[k].kind != TYPES) {
		fail(p, section, name, "set twice");
		return 0;
	}
	if (set_value(p, k, value, &why)) {
		fail(p, section, name, why ? why : "bad value");
		return 0;
	}
	return 1;
}

/*
 * The readers libinih calls line by line count the lines. A long line
 * comes in several chunks: only the first one starts a line.
 */
static void count_line(struct parse *p, const char *chunk)
{
	size_t len = strlen(chunk);

	if (!p->mid_line)
		p->line++;
	p->mid_line = !len || chunk[len - 1] != '\n';
}

static char *read_file_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	char *line = fgets(str, num, p->file);

	if (line)
		count_line(p, line);
	return line;
}

static char *read_text_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *nl;
	size_t len;

	if (!*p->text)
		return NULL;
	nl = strchr(p->text, '\n');
	len = nl ? (size_t)(nl - p->text) + 1 : strlen(p->text);
	if (len > (size_t)num - 1)
		len = num - 1;
	memcpy(str, p->text, len);
	str[len] = '\0';
	p->text += len;
	count_line(p, str);
	return str;
}

static int finish(struct parse *p, int rc)
{
	if (rc > 0 && !p->failed) {
		p->line = rc;
		fail(p, NULL, NULL,
		     "not a section, a key = value or a comment");
	} else if (rc < 0 && !p->failed) {
		snprintf(p->err, p->err_size, "%s: cannot read it", p->name);
		p->failed = 1;
	}
	if (!p->failed) {
		const char *why;
		size_t r;

		if (ftd_policy_check(&p->cfg->policy, &r, &why)) {
			p->line = p->cfg->policy.line[r];
			snprintf(p->err, p->err_size, "%s:%d: [policy.%s]: %s",
				 p->name, p->line,
				 p->cfg->policy.spec.rules[r].name, why);
			p->failed = 1;
		} else if (ftd_budgets_check(&p->cfg->policy, &r, &why)) {
			p->line = p->cfg->policy.budget_line[r];
			snprintf(p->err, p->err_size, "%s:%d: [budget.%s]: %s",
				 p->name, p->line,
				 p->cfg->policy.budgets.b[r].name, why);
			p->failed = 1;
		}
	}
	if (p->failed) {
		ftagentd_config_free(p->cfg);
		return -1;
	}
	return 0;
}

int ftagentd_config_parse(const char *name, const char *text,
			  struct ftagentd_config *cfg, char *err,
			  size_t err_size)
{
	struct parse p = {.name = name,
			  .text = text,
			  .cfg = cfg,
			  .err = err,
			  .err_size = err_size};

	ftagentd_config_defaults(cfg);
	return finish(&p, ini_parse_stream(read_text_line, &p, handler, &p));
}

int ftagentd_config_load(const char *path, struct ftagentd_config *cfg,
			 char *err, size_t err_size)
{
	struct parse p = {
		.name = path, .cfg = cfg, .err = err, .err_size = err_size};
	int rc;

	ftagentd_config_defaults(cfg);
	p.file = fopen(path, "re");
	if (!p.file) {
		snprintf(err, err_size, "%s: %m", path);
		ftagentd_config_free(cfg);
		return -1;
	}
	rc = ini_parse_stream(read_file_line, &p, handler, &p);
	fclose(p.file);
	return finish(&p, rc);
}
