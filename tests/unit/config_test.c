// SPDX-License-Identifier: GPL-2.0
/*
 * ftagentd's config file: every key, the units, and every kind of error,
 * which must name the file, the line and the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/ftagent.h>

#include "../../tools/lib/config.h"
#include "../../tools/lib/units.h"

static char err[512];

static int parse(const char *text, struct ftagentd_config *cfg)
{
	err[0] = '\0';
	return ftagentd_config_parse("test.conf", text, cfg, err, sizeof(err));
}

static void defaults_without_a_file_section(void **state)
{
	struct ftagentd_config c;

	(void)state;
	assert_int_equal(0, parse("; nothing but a comment\n", &c));
	assert_int_equal(FTAGENT_MODE_STANDARD, c.agent.mode);
	assert_int_equal(FTAGENT_HOOKS_FTRACE, c.agent.hooks);
	assert_int_equal(0, c.agent.ring_buffer_size);
	assert_int_equal(250, c.agent.flush_interval_ms);
	assert_int_equal(4096, c.limits.processes);
	assert_int_equal(16384, c.limits.sockets);
	assert_int_equal(16384, c.limits.transfers);
	assert_int_equal(1, c.network.tcp);
	assert_int_equal(1, c.file.track_sendfile);
	/* No name by default: any process can take one (docs/security.md). */
	assert_int_equal(0, c.filters.exclude_processes.n);
	assert_string_equal("", c.metrics.listen);
	assert_int_equal(FTAGENTD_GROUP_COMMAND, c.metrics.group_by);
	assert_int_equal(1000, c.metrics.group_limit);
	ftagentd_config_free(&c);
}

static void every_key(void **state)
{
	static const char text[] = "[agent]\n"
				   "mode = minimal\n"
				   "hooks = kprobe\n"
				   "ring_buffer_size = 8MB\n"
				   "flush_interval = 1s\n"
				   "event_log_size = 512 KiB\n"
				   "[limits]\n"
				   "processes = 100\n"
				   "sockets = 200\n"
				   "flows = 300\n"
				   "files = 400\n"
				   "transfers = 500\n"
				   "kernel_counters = 600\n"
				   "metric_series = 700\n"
				   "[network]\n"
				   "tcp = false\n"
				   "udp = no\n"
				   "ipv4 = off\n"
				   "ipv6 = 0\n"
				   "[file]\n"
				   "track_read = false\n"
				   "track_sendfile = yes\n"
				   "[filters]\n"
				   "exclude_processes = sshd, \"cron\"\n"
				   "exclude_paths = \"/var/log/\", /proc/\n"
				   "[metrics]\n"
				   "listen = \"[::1]:9465\"\n"
				   "group_by = unit\n"
				   "group_limit = 50\n";
	struct ftagentd_config c;

	(void)state;
	assert_int_equal(0, parse(text, &c));
	assert_int_equal(FTAGENT_MODE_MINIMAL, c.agent.mode);
	assert_int_equal(FTAGENT_HOOKS_KPROBE, c.agent.hooks);
	assert_int_equal(8 << 20, c.agent.ring_buffer_size);
	assert_int_equal(1000, c.agent.flush_interval_ms);
	assert_int_equal(512 << 10, c.agent.event_log_size);
	assert_int_equal(100, c.limits.processes);
	assert_int_equal(200, c.limits.sockets);
	assert_int_equal(300, c.limits.flows);
	assert_int_equal(400, c.limits.files);
	assert_int_equal(500, c.limits.transfers);
	assert_int_equal(600, c.limits.kernel_counters);
	assert_int_equal(700, c.limits.metric_series);
	assert_int_equal(0, c.network.tcp + c.network.udp + c.network.ipv4 +
				    c.network.ipv6);
	assert_int_equal(0, c.file.track_read);
	assert_int_equal(1, c.file.track_sendfile);
	/* The file's list replaces the default one. */
	assert_int_equal(2, c.filters.exclude_processes.n);
	assert_string_equal("sshd", c.filters.exclude_processes.item[0]);
	assert_string_equal("cron", c.filters.exclude_processes.item[1]);
	assert_int_equal(2, c.filters.exclude_paths.n);
	assert_string_equal("/var/log/", c.filters.exclude_paths.item[0]);
	assert_string_equal("/proc/", c.filters.exclude_paths.item[1]);
	assert_string_equal("[::1]:9465", c.metrics.listen);
	assert_int_equal(FTAGENTD_GROUP_UNIT, c.metrics.group_by);
	assert_int_equal(50, c.metrics.group_limit);
	ftagentd_config_free(&c);
}

/* Each bad file, and the exact message it must get. */
static const struct {
	const char *text, *msg;
} bad[] = {
	{"[agent]\nevent_output = relative/path.jsonl\n",
	 "test.conf:2: [agent] event_output: must be none, journal or an "
	 "absolute file path"},
	{"[agent]\nmode = fast\n",
	 "test.conf:2: [agent] mode: mode is minimal or standard"},
	{"[agent]\nhooks = ebpf\n",
	 "test.conf:2: [agent] hooks: hooks is ftrace or kprobe"},
	{"[agent]\n\nring_buffer_size = 4 parsecs\n",
	 "test.conf:3: [agent] ring_buffer_size: unknown size unit (use B, KB, "
	 "MB or GB)"},
	{"[agent]\nring_buffer_size = 2GB\n",
	 "test.conf:2: [agent] ring_buffer_size: size out of range"},
	{"[agent]\nring_buffer_size = 1KB\n",
	 "test.conf:2: [agent] ring_buffer_size: size out of range"},
	{"[agent]\nflush_interval = soon\n",
	 "test.conf:2: [agent] flush_interval: not a duration (a number, then "
	 "ms, s, m or h)"},
	{"[agent]\nflush_interval = 2m\n",
	 "test.conf:2: [agent] flush_interval: duration out of range"},
	{"[agent]\nflush_interval = 5 fortnights\n",
	 "test.conf:2: [agent] flush_interval: unknown duration unit (use ms, "
	 "s, m or h)"},
	{"[limits]\nprocesses = 12x\n",
	 "test.conf:2: [limits] processes: not a whole number"},
	{"[limits]\nprocesses = 3\n",
	 "test.conf:2: [limits] processes: number out of range"},
	{"[limits]\nsockets = 99999999999999999999999\n",
	 "test.conf:2: [limits] sockets: not a whole number"},
	{"[network]\ntcp = maybe\n",
	 "test.conf:2: [network] tcp: not a boolean (true or false)"},
	{"[network]\ntcp = true\ntcp = false\n",
	 "test.conf:3: [network] tcp: set twice"},
	{"[network]\nsctp = true\n",
	 "test.conf:2: [network] sctp: unknown key"},
	{"[netwrok]\ntcp = true\n", "test.conf:2: [netwrok] tcp: unknown key"},
	{"tcp = true\n", "test.conf:1: [] tcp: unknown key"},
	{"[filters]\nexclude_processes = a_name_far_too_long\n",
	 "test.conf:2: [filters] exclude_processes: a process name is at most "
	 "15 bytes"},
	{"[filters]\nexclude_processes = a,,b\n",
	 "test.conf:2: [filters] exclude_processes: an empty item in the list"},
	{"[filters]\nexclude_paths = \"/tmp/\n",
	 "test.conf:2: [filters] exclude_paths: a quoted item has no closing "
	 "quote"},
	{"[filters]\nexclude_paths = \"/a\" \"/b\"\n",
	 "test.conf:2: [filters] exclude_paths: items must be separated by "
	 "commas"},
	{"[metrics]\nlisten = 127.0.0.1\n",
	 "test.conf:2: [metrics] listen: listen is host:port, e.g. "
	 "127.0.0.1:9465"},
	{"[metrics]\nlisten = 127.0.0.1:99999\n",
	 "test.conf:2: [metrics] listen: the port is 1 to 65535"},
	{"[metrics]\nlisten = ::1:9465\n",
	 "test.conf:2: [metrics] listen: an IPv6 address goes in brackets: "
	 "[::1]:9465"},
	{"[metrics]\nlisten = localhost:9465\n",
	 "test.conf:2: [metrics] listen: the host is an IPv4 address or a "
	 "bracketed IPv6 address, not a name"},
	{"[metrics]\nlisten = [ip6-localhost]:9465\n",
	 "test.conf:2: [metrics] listen: the host is an IPv4 address or a "
	 "bracketed IPv6 address, not a name"},
	{"[metrics]\nlisten = a:1, b:2\n",
	 "test.conf:2: [metrics] listen: one value expected, not a list"},
	{"[metrics]\n\ngroup_by = cgroup\n",
	 "test.conf:3: [metrics] group_by: group_by is command, executable, "
	 "unit or pid"},
	{"[metrics]\ngroup_by = command, pid\n",
	 "test.conf:2: [metrics] group_by: one value expected, not a list"},
	{"[metrics]\ngroup_limit = 0\n",
	 "test.conf:2: [metrics] group_limit: number out of range"},
	{"[metrics]\ngroup_limit = 65537\n",
	 "test.conf:2: [metrics] group_limit: number out of range"},
	{"[policy.ssh]\naction = deny\n",
	 "test.conf:2: [policy.ssh]: needs ops (exec, connect, open, send, "
	 "bind)"},
	{"\n[policy.ssh]\nops = connect\n",
	 "test.conf:3: [policy.ssh]: needs action (allow, deny, audit)"},
	{"[policy.a]\nops = connect, fly\n",
	 "test.conf:2: [policy.a] ops: ops lists exec, connect, open, send, "
	 "bind"},
	{"[policy.a]\naction = block\n",
	 "test.conf:2: [policy.a] action: an action is allow, deny or audit"},
	{"[policy.a]\nport = 90-80\n",
	 "test.conf:2: [policy.a] port: a port is 1..65535, or a range "
	 "LOW-HIGH"},
	{"[policy.a]\nport = 70000\n",
	 "test.conf:2: [policy.a] port: a port is 1..65535, or a range "
	 "LOW-HIGH"},
	{"[policy.a]\ncidr = 10.0.0.0/33\n",
	 "test.conf:2: [policy.a] cidr: the prefix length is 0..32 (IPv4) or "
	 "0..128 (IPv6)"},
	{"[policy.a]\ncidr = example.com\n",
	 "test.conf:2: [policy.a] cidr: not an IPv4 or IPv6 address (ADDR or "
	 "ADDR/LEN)"},
	{"[policy.a]\npath = etc/\n",
	 "test.conf:2: [policy.a] path: must be an absolute path"},
	{"[policy.a]\ncomm = a-very-long-command-name\n",
	 "test.conf:2: [policy.a] comm: a command name is 1 to 15 bytes"},
	{"[policy.a]\nuid = no-such-user-here\n",
	 "test.conf:2: [policy.a] uid: no such user (a uid or a user name)"},
	{"[policy.a]\ncgroup = no/such/cgroup\n",
	 "test.conf:2: [policy.a] cgroup: a cgroup is its id or its "
	 "directory's absolute path under /sys/fs/cgroup"},
	{"[policy.a]\nflavour = mint\n",
	 "test.conf:2: [policy.a] flavour: unknown key"},
	{"[policy]\nenforce = maybe\n",
	 "test.conf:2: [policy] enforce: not a boolean (true or false)"},
	{"[policy.a]\nops = connect\naction = deny\npath = /etc/\n",
	 "test.conf:2: [policy.a]: path applies to exec and open only"},
	{"[policy.a]\nops = open\naction = deny\nport = 22\n",
	 "test.conf:2: [policy.a]: port and cidr apply to connect, send and "
	 "bind only"},
	{"[budget.a]\nlimit = 1\nwindow = 1m\n",
	 "test.conf:2: [budget.a]: needs metric"},
	{"[budget.a]\nmetric = connects\nwindow = 1m\n",
	 "test.conf:2: [budget.a]: needs limit"},
	{"[budget.a]\nmetric = connects\nlimit = 5\n",
	 "test.conf:2: [budget.a]: needs window"},
	{"[budget.a]\nmetric = packets\n",
	 "test.conf:2: [budget.a] metric: a metric is bytes_sent, "
	 "bytes_received, bytes_read, bytes_written, connects, execs, opens or "
	 "repeats"},
	{"[budget.a]\nmetric = connects\nlimit = 5MB\nwindow = 1m\n",
	 "test.conf:2: [budget.a]: a limit of calls is a count, without a "
	 "unit"},
	{"[budget.a]\nmetric = bytes_sent\nlimit = 1MB\nalert_at = 2MB\n"
	 "window = 1h\n",
	 "test.conf:2: [budget.a]: alert_at must be below limit"},
	{"[budget.a]\nmetric = execs\nlimit = 5\nwindow = 1h\nkill = yes\n"
	 "enforce = no\n",
	 "test.conf:2: [budget.a]: kill needs enforce = true"},
	{"[budget.a]\nwindow = 169h\n",
	 "test.conf:2: [budget.a] window: a window is 1ms to 7 days"},
	{"[budget.a]\nlimit = 0\n",
	 "test.conf:2: [budget.a] limit: the limit is above 0"},
	{"[agent]\nmode = minimal\nthis line has no equals sign\n",
	 "test.conf:3: not a section, a key = value or a comment"},
	/* The first error is the one reported. */
	{"[agent]\nmode = x\nhooks = y\n",
	 "test.conf:2: [agent] mode: mode is minimal or standard"},
};

/*
 * A cgroup given by path is resolved at each push: left out while it does
 * not exist (not a config error: the service may start later), then the
 * id of the directory as it is now, also after it was made anew.
 */
static void cgroups_by_path_follow_the_directory(void **state)
{
	char dir[] = "/tmp/ftagent-cg-XXXXXX", svc[64], text[512], missing[256];
	struct ftagent_policy_spec spec;
	struct ftagent_budget_set b;
	struct ftagentd_config c;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(svc, sizeof(svc), "%s/web.service", dir);
	snprintf(text, sizeof(text),
		 "[policy.web-no-ssh]\nops = connect\naction = deny\n"
		 "port = 22\ncgroup = %s\n\n[policy.all]\nops = exec\n"
		 "action = audit\n\n[budget.web-conn]\nmetric = connects\n"
		 "limit = 10\nwindow = 1m\ncgroup = \"%s\"\n",
		 svc, svc);
	assert_int_equal(0, parse(text, &c));
	assert_int_equal(2, ftd_policy_resolve(&c.policy, &spec, &b, missing,
					       sizeof(missing)));
	assert_int_equal(1, spec.n);
	assert_string_equal("all", spec.rules[0].name);
	assert_int_equal(0, b.n);
	assert_non_null(strstr(missing, "web-no-ssh ("));
	assert_non_null(strstr(missing, "web-conn ("));
	assert_non_null(strstr(missing, svc));
	ftagent_policy_spec_free(&spec);
	ftagent_budget_set_free(&b);
	/* The service starts: its cgroup appears. */
	assert_int_equal(0, mkdir(svc, 0755));
	assert_int_equal(0, stat(svc, &st));
	assert_int_equal(0, ftd_policy_resolve(&c.policy, &spec, &b, missing,
					       sizeof(missing)));
	assert_string_equal("", missing);
	assert_int_equal(2, spec.n);
	assert_string_equal("web-no-ssh", spec.rules[0].name);
	assert_int_equal(st.st_ino, spec.rules[0].cgroup_id);
	assert_int_equal(1, b.n);
	assert_int_equal(st.st_ino, b.b[0].cgroup_id);
	ftagent_policy_spec_free(&spec);
	ftagent_budget_set_free(&b);
	/* It restarts into a new cgroup of the same path. */
	assert_int_equal(0, rmdir(svc));
	assert_int_equal(0, mkdir(svc, 0755));
	assert_int_equal(0, stat(svc, &st));
	assert_int_equal(0, ftd_policy_resolve(&c.policy, &spec, &b, missing,
					       sizeof(missing)));
	assert_int_equal(st.st_ino, spec.rules[0].cgroup_id);
	assert_int_equal(st.st_ino, b.b[0].cgroup_id);
	ftagent_policy_spec_free(&spec);
	ftagent_budget_set_free(&b);
	ftagentd_config_free(&c);
	rmdir(svc);
	rmdir(dir);
}

static void bad_files_name_file_line_and_key(void **state)
{
	struct ftagentd_config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(-1, parse(bad[i].text, &c));
		assert_string_equal(bad[i].msg, err);
	}
}

static void policy_rules_in_file_order(void **state)
{
	struct ftagentd_config c;
	const struct ftagent_rule_spec *r;

	(void)state;
	assert_int_equal(0, parse("[policy]\nenforce = false\n"
				  "default = audit\n\n"
				  "[policy.allow-dns]\nops = send, connect\n"
				  "action = allow\nport = 53\n"
				  "cidr = 10.0.0.0/8\n\n"
				  "[policy.no-shadow]\nops = open\n"
				  "action = deny\npath = /etc/shadow\n"
				  "uid = 0\ncomm = cat\nexe = /usr/bin/\n"
				  "subtree = 42\n\n"
				  "[policy.v6]\nops = bind\naction = deny\n"
				  "cidr = \"2001:db8::/32\"\nport = 1-1023\n",
				  &c));
	assert_int_equal(0, c.policy.spec.enforce);
	assert_int_equal(FTAGENT_ACTION_AUDIT, c.policy.spec.default_action);
	assert_int_equal(3, c.policy.spec.n);
	r = &c.policy.spec.rules[0];
	assert_string_equal("allow-dns", r->name);
	assert_int_equal((1u << FTAGENT_OP_SEND) | (1u << FTAGENT_OP_CONNECT),
			 r->ops);
	assert_int_equal(FTAGENT_ACTION_ALLOW, r->action);
	assert_int_equal(53, r->port_min);
	assert_int_equal(53, r->port_max);
	assert_int_equal(4, r->addr_len);
	assert_int_equal(10, r->addr[0]);
	assert_int_equal(8, r->prefix_len);
	r = &c.policy.spec.rules[1];
	assert_string_equal("no-shadow", r->name);
	assert_string_equal("/etc/shadow", r->path_prefix);
	assert_string_equal("cat", r->comm);
	assert_string_equal("/usr/bin/", r->exe_prefix);
	assert_int_equal(0, r->uid);
	assert_int_equal(42, r->subtree);
	assert_true(r->set & FTAGENT_RULE_SET_UID);
	r = &c.policy.spec.rules[2];
	assert_int_equal(16, r->addr_len);
	assert_int_equal(0x20, r->addr[0]);
	assert_int_equal(32, r->prefix_len);
	assert_int_equal(1, r->port_min);
	assert_int_equal(1023, r->port_max);
	assert_int_equal(6, c.policy.line[0]);
	ftagentd_config_free(&c);
	/* No policy sections: enforce, default allow, no rules. */
	assert_int_equal(0, parse("", &c));
	assert_int_equal(1, c.policy.spec.enforce);
	assert_int_equal(0, c.policy.spec.n);
	ftagentd_config_free(&c);
}

static void budgets_in_file_order(void **state)
{
	struct ftagentd_config c;
	const struct ftagent_budget_spec *b;

	(void)state;
	assert_int_equal(0, parse("[budget.egress]\nlimit = 1GB\n"
				  "metric = bytes_sent\nwindow = 1h\n"
				  "alert_at = 800MB\nuid = 33\n\n"
				  "[budget.loops]\nmetric = repeats\n"
				  "limit = 20\nwindow = 1m\nkill = true\n"
				  "comm = cron\n",
				  &c));
	assert_int_equal(2, c.policy.budgets.n);
	b = &c.policy.budgets.b[0];
	assert_string_equal("egress", b->name);
	assert_int_equal(FTAGENT_METRIC_BYTES_SENT, b->metric);
	assert_int_equal(1ull << 30, b->limit);
	assert_int_equal(800ull << 20, b->alert_at);
	assert_int_equal(3600000, b->window_ms);
	assert_int_equal(1, b->enforce);
	assert_int_equal(33, b->uid);
	b = &c.policy.budgets.b[1];
	assert_int_equal(FTAGENT_METRIC_REPEATS, b->metric);
	assert_int_equal(20, b->limit);
	assert_int_equal(1, b->kill);
	assert_string_equal("cron", b->comm);
	ftagentd_config_free(&c);
}

static void event_output_takes_none_journal_or_a_path(void **state)
{
	struct ftagentd_config c;

	(void)state;
	assert_int_equal(0, parse("", &c));
	assert_string_equal("", c.agent.event_output);
	ftagentd_config_free(&c);
	assert_int_equal(0, parse("[agent]\nevent_output = journal\n", &c));
	assert_string_equal("journal", c.agent.event_output);
	ftagentd_config_free(&c);
	assert_int_equal(0, parse("[agent]\nevent_output = none\n", &c));
	assert_string_equal("", c.agent.event_output);
	ftagentd_config_free(&c);
	assert_int_equal(0, parse("[agent]\nevent_output = "
				  "\"/var/log/ftagent/events.jsonl\"\n",
				  &c));
	assert_string_equal("/var/log/ftagent/events.jsonl",
			    c.agent.event_output);
	ftagentd_config_free(&c);
}

/* 64 items fit; the 65th is refused; a list may go over several lines. */
static void lists_are_bounded_and_may_continue(void **state)
{
	char text[4096] = "[filters]\nexclude_processes = p0";
	struct ftagentd_config c;
	size_t len;
	int i;

	(void)state;
	for (i = 1; i < FTAGENTD_LIST_MAX; i++) {
		len = strlen(text);
		snprintf(text + len, sizeof(text) - len, ", p%d", i);
	}
	strcat(text, "\n");
	assert_int_equal(0, parse(text, &c));
	assert_int_equal(FTAGENTD_LIST_MAX, c.filters.exclude_processes.n);
	ftagentd_config_free(&c);
	strcat(text, "exclude_processes = one_more\n");
	assert_int_equal(-1, parse(text, &c));
	assert_string_equal(
		"test.conf:3: [filters] exclude_processes: at most 64 items",
		err);
	assert_int_equal(0, parse("[filters]\nexclude_paths = /a/,\n"
				  "  /b/\n",
				  &c));
	assert_int_equal(2, c.filters.exclude_paths.n);
	assert_string_equal("/b/", c.filters.exclude_paths.item[1]);
	ftagentd_config_free(&c);
}

static void audit_and_output_types(void **state)
{
	struct ftagentd_config c;

	(void)state;
	assert_int_equal(0, parse("", &c));
	/* Off unless asked; the documented defaults. */
	assert_int_equal(0, c.audit.enabled);
	assert_string_equal("/var/log/ftagent/audit", c.audit.dir);
	assert_int_equal(64 << 20, c.audit.rotate_size);
	assert_int_equal(64, c.audit.fsync_batch);
	assert_int_equal(1000, c.audit.fsync_interval_ms);
	assert_int_equal(FTAGENTD_ALL_EVENT_TYPES, c.agent.event_output_types);
	assert_false(c.agent.event_output_types & (1u << FTAGENT_REC_GAP));
	ftagentd_config_free(&c);
	assert_int_equal(0, parse("[audit]\n"
				  "enabled = yes\n"
				  "dir = /srv/audit\n"
				  "rotate_size = 1MB\n"
				  "fsync_batch = 8\n"
				  "fsync_interval = 50ms\n"
				  "[agent]\n"
				  "event_output_types = exec, verdict\n"
				  "  connect\n",
				  &c));
	assert_int_equal(1, c.audit.enabled);
	assert_string_equal("/srv/audit", c.audit.dir);
	assert_int_equal(1 << 20, c.audit.rotate_size);
	assert_int_equal(8, c.audit.fsync_batch);
	assert_int_equal(50, c.audit.fsync_interval_ms);
	assert_int_equal((1u << FTAGENT_REC_EXEC) |
				 (1u << FTAGENT_REC_VERDICT) |
				 (1u << FTAGENT_REC_CONNECT),
			 c.agent.event_output_types);
	ftagentd_config_free(&c);

	assert_int_equal(-1, parse("[audit]\ndir = audit\n", &c));
	assert_string_equal("test.conf:2: [audit] dir: must be an absolute "
			    "directory path",
			    err);
	assert_int_equal(-1, parse("[audit]\nrotate_size = 1KB\n", &c));
	assert_string_equal("test.conf:2: [audit] rotate_size: size out of "
			    "range",
			    err);
	assert_int_equal(-1, parse("\n[audit]\nfsync_batch = 0\n", &c));
	assert_string_equal("test.conf:3: [audit] fsync_batch: number out of "
			    "range",
			    err);
	assert_int_equal(-1, parse("[audit]\nfsync_interval = 2m\n", &c));
	assert_string_equal("test.conf:2: [audit] fsync_interval: duration "
			    "out of range",
			    err);
	assert_int_equal(-1, parse("[audit]\nenabled = maybe\n", &c));
	assert_non_null(strstr(err, "test.conf:2: [audit] enabled:"));
	assert_int_equal(-1, parse("[audit]\npath = /x\n", &c));
	assert_string_equal("test.conf:2: [audit] path: unknown key", err);
	assert_int_equal(-1, parse("[agent]\nevent_output_types = gap\n", &c));
	assert_non_null(
		strstr(err, "test.conf:2: [agent] event_output_types: not an "
			    "event type"));
}

static void units(void **state)
{
	const char *why;
	uint64_t v;
	int b;

	(void)state;
	assert_int_equal(0, ftagentd_parse_size("4096", &v, &why));
	assert_int_equal(4096, v);
	assert_int_equal(0, ftagentd_parse_size("4MB", &v, &why));
	assert_int_equal(4 << 20, v);
	assert_int_equal(0, ftagentd_parse_size(" 2 gib ", &v, &why));
	assert_int_equal(2ull << 30, v);
	assert_int_equal(-1, ftagentd_parse_size("-1MB", &v, &why));
	assert_int_equal(-1, ftagentd_parse_size("20000000000GB", &v, &why));
	assert_string_equal("size too large", why);
	assert_int_equal(0, ftagentd_parse_duration("250ms", &v, &why));
	assert_int_equal(250, v);
	assert_int_equal(0, ftagentd_parse_duration("5m", &v, &why));
	assert_int_equal(300000, v);
	assert_int_equal(0, ftagentd_parse_duration("2h", &v, &why));
	assert_int_equal(7200000, v);
	assert_int_equal(0, ftagentd_parse_bool("Yes", &b, &why));
	assert_int_equal(1, b);
	assert_int_equal(-1, ftagentd_parse_bool("yess", &b, &why));
}

static void a_missing_file_is_named(void **state)
{
	struct ftagentd_config c;

	(void)state;
	assert_int_equal(-1, ftagentd_config_load("/nonexistent/ftagent.conf",
						  &c, err, sizeof(err)));
	assert_string_equal(
		"/nonexistent/ftagent.conf: No such file or directory", err);
}

static void a_file_reports_its_lines(void **state)
{
	char path[] = "/tmp/ftagentd-conf.XXXXXX", want[256];
	struct ftagentd_config c;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_true(write(fd,
			  "# ftagent\n\n[agent]\nmode = standard\n"
			  "[limits]\nflows = lots\n",
			  56) == 56);
	close(fd);
	assert_int_equal(-1, ftagentd_config_load(path, &c, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:6: [limits] flows: not a whole number",
		 path);
	assert_string_equal(want, err);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_without_a_file_section),
		cmocka_unit_test(every_key),
		cmocka_unit_test(bad_files_name_file_line_and_key),
		cmocka_unit_test(lists_are_bounded_and_may_continue),
		cmocka_unit_test(event_output_takes_none_journal_or_a_path),
		cmocka_unit_test(policy_rules_in_file_order),
		cmocka_unit_test(budgets_in_file_order),
		cmocka_unit_test(cgroups_by_path_follow_the_directory),
		cmocka_unit_test(audit_and_output_types),
		cmocka_unit_test(units),
		cmocka_unit_test(a_missing_file_is_named),
		cmocka_unit_test(a_file_reports_its_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
