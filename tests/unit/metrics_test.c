// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus page: listen addresses, the figures a collector fed
 * known generations and records shows, counters that survive table
 * eviction, label escaping, the metric_series cap (counted exactly),
 * promtool's verdict on the page, and the page served over HTTP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/ftagent.h>

#include "../../daemon/ftagentd.h"
#include "../../daemon/metrics.h"
#include "../../daemon/proc_group.h"
#include "../../daemon/proc_unit.h"
#include "../../daemon/state.h"
#include "../../tools/lib/records.h"

#define PROMTOOL "/usr/bin/promtool"

static char err[512];

/* Listen addresses. */

static void listen_ipv4(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t len = 0;

	(void)state;
	assert_int_equal(0, ftd_metrics_parse_listen("127.0.0.1:9465", &ss,
						     &len, err, sizeof(err)));
	assert_int_equal(AF_INET, sin->sin_family);
	assert_int_equal(9465, ntohs(sin->sin_port));
	assert_int_equal(htonl(INADDR_LOOPBACK), sin->sin_addr.s_addr);
	assert_int_equal(sizeof(*sin), len);

	assert_int_equal(0, ftd_metrics_parse_listen("0.0.0.0:65535", &ss, &len,
						     err, sizeof(err)));
	assert_int_equal(65535, ntohs(sin->sin_port));
	assert_int_equal(htonl(INADDR_ANY), sin->sin_addr.s_addr);
}

static void listen_ipv6(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = 0;

	(void)state;
	assert_int_equal(0, ftd_metrics_parse_listen("[::1]:9465", &ss, &len,
						     err, sizeof(err)));
	assert_int_equal(AF_INET6, sin6->sin6_family);
	assert_int_equal(9465, ntohs(sin6->sin6_port));
	assert_true(IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr));
	assert_int_equal(sizeof(*sin6), len);

	assert_int_equal(0, ftd_metrics_parse_listen("[fd00::1:2]:1", &ss, &len,
						     err, sizeof(err)));
	assert_int_equal(1, ntohs(sin6->sin6_port));
}

/* @listen is refused with a message holding @why. */
static void refused(const char *listen, const char *why)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;

	err[0] = '\0';
	assert_int_equal(-1, ftd_metrics_parse_listen(listen, &ss, &len, err,
						      sizeof(err)));
	if (!strstr(err, why))
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", listen, err,
			 why);
}

static void listen_bad_port(void **state)
{
	(void)state;
	refused("127.0.0.1:0", "the port must be a number from 1 to 65535");
	refused("127.0.0.1:65536", "1 to 65535");
	refused("127.0.0.1:", "1 to 65535");
	refused("127.0.0.1:94x5", "1 to 65535");
	refused("127.0.0.1:+80", "1 to 65535");
	refused("127.0.0.1: 80", "1 to 65535");
	refused("127.0.0.1:0000009465", "1 to 65535");
	refused("[::1]:", "1 to 65535");
	refused("127.0.0.1", "no port");
	refused("[::1]", "a port must follow");
	refused("[::1]9465", "a port must follow");
}

static void listen_names_and_empty(void **state)
{
	(void)state;
	refused("localhost:9465", "\"localhost\" is not an IP address; names "
				  "are not resolved");
	refused("metrics.example.com:9465", "not an IP address");
	refused("127.1:9465", "not an IP address");
	refused("[localhost]:9465", "\"localhost\" is not an IPv6 address");
	refused("[127.0.0.1]:9465", "not an IPv6 address");
	refused("[fe80::1%lo]:9465", "not an IPv6 address");
	refused("[::1:9465", "no ']'");
	refused("::1:9465", "an IPv6 address goes in brackets");
	refused(":9465", "no address before the port");
	refused("", "no listen address");
	refused(NULL, "no listen address");
}

/* A daemon state with a collector, as main.c builds it. */

static struct ftagentd *new_daemon(uint64_t processes, uint64_t sockets)
{
	struct ftagentd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	ftagentd_config_defaults(&d->cfg);
	d->cfg.limits.processes = processes;
	d->cfg.limits.sockets = sockets;
	assert_int_equal(0, ftd_collector_init(&d->col, &d->cfg));
	return d;
}

static void free_daemon(struct ftagentd *d)
{
	ftd_collector_free(&d->col);
	ftagent_resources_free(&d->res);
	ftagentd_config_free(&d->cfg);
	free(d);
}

static struct ftagent_counter sock(uint32_t tgid, uint8_t family,
				   uint8_t protocol, uint64_t ino,
				   uint64_t in_bytes, uint64_t out_bytes,
				   uint32_t calls)
{
	struct ftagent_counter k = {0};

	k.tgid = tgid;
	k.kind = FTAGENT_OBJ_SOCKET;
	k.family = family;
	k.protocol = protocol;
	k.ino = ino;
	k.in.bytes = in_bytes;
	k.in.calls = in_bytes ? calls : 0;
	k.out.bytes = out_bytes;
	k.out.calls = out_bytes ? calls : 0;
	return k;
}

static struct ftagent_counter file(uint32_t tgid, uint64_t ino,
				   uint64_t in_bytes, uint64_t out_bytes,
				   uint32_t calls)
{
	struct ftagent_counter k =
		sock(tgid, 0, 0, ino, in_bytes, out_bytes, calls);

	k.kind = FTAGENT_OBJ_FILE;
	k.dev = 0x801;
	return k;
}

static void feed(struct ftagentd *d, struct ftagent_counter *k, size_t n)
{
	static uint64_t seq;
	struct ftagent_generation gen = {0};

	gen.seq = ++seq;
	gen.counters = k;
	gen.n_counters = n;
	ftd_collector_generation(&d->col, &gen);
}

static uint64_t rec_seq = 100;

/* One record (header and body, no strings) through the decoder. */
static void feed_record(struct ftagentd *d, uint16_t type, uint32_t tgid,
			const void *body, size_t body_size)
{
	_Alignas(8) unsigned char buf[512] = {0};
	struct ftagent_rec_hdr h = {0};
	const char *why = NULL;
	struct ftagent_rec rec;
	size_t used;

	h.type = type;
	h.size = (sizeof(h) + body_size + 7) & ~(size_t)7;
	h.body_size = body_size;
	h.seq = ++rec_seq;
	h.time_ns = 1000;
	h.tgid = tgid;
	h.pid = tgid;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, body_size);
	if (ftagent_rec_next(buf, h.size, &rec, &used, &why) != FTAGENT_REC_OK)
		fail_msg("bad test record: %s", why);
	ftd_collector_event(&d->col, &rec);
}

static void exec_as(struct ftagentd *d, uint32_t tgid, const char *comm)
{
	struct ftagent_rec_exec e = {0};

	e.ppid = 1;
	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm) - 1));
	feed_record(d, FTAGENT_REC_EXEC, tgid, &e, sizeof(e));
}

/* A GAP record: @buffer_full and @too_big records lost before it. */
static void gap(struct ftagentd *d, uint64_t buffer_full, uint64_t too_big)
{
	struct ftagent_rec_gap g = {0};

	g.lost = buffer_full + too_big;
	g.first_seq = rec_seq + 1 - g.lost; /* the GAP's own number, less */
	g.lost_by_cause[FTAGENT_EV_LOSS_BUFFER_FULL] = buffer_full;
	g.lost_by_cause[FTAGENT_EV_LOSS_TOO_BIG] = too_big;
	feed_record(d, FTAGENT_REC_GAP, 0, &g, sizeof(g));
}

static char *render(struct ftagentd *d)
{
	size_t len = 0;
	char *page = ftd_metrics_render(d, &len);

	assert_non_null(page);
	assert_int_equal(strlen(page), len);
	assert_true(len > 0 && page[len - 1] == '\n');
	return page;
}

/* The page has @line as a whole line. */
static void has_line(const char *page, const char *line)
{
	size_t n = strlen(line);
	const char *p = page;

	while ((p = strstr(p, line))) {
		if ((p == page || p[-1] == '\n') && p[n] == '\n')
			return;
		p++;
	}
	fail_msg("no line \"%s\" on the page:\n%s", line, page);
}

static void lacks(const char *page, const char *text)
{
	if (strstr(page, text))
		fail_msg("\"%s\" should not be on the page", text);
}

/* The value of the series named exactly @series (name and labels). */
static uint64_t value_of(const char *page, const char *series)
{
	size_t n = strlen(series);
	const char *p = page;

	while ((p = strstr(p, series))) {
		if ((p == page || p[-1] == '\n') && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
		p++;
	}
	fail_msg("no series %s on the page", series);
	return 0;
}

/* Samples with labels: what metric_series caps. */
static uint64_t labelled_series(const char *page)
{
	const char *line = page, *nl;
	uint64_t n = 0;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (line[0] != '#' && memchr(line, '{', (size_t)(nl - line)))
			n++;
	}
	return n;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What promtool does not check: each sample belongs to the family whose
 * # TYPE came last, and no series (name and labels) appears twice.
 */
static void well_formed(const char *page)
{
	char *copy = strdup(page), *line, *save = NULL, *sp, **series;
	char family_name[128] = "";
	size_t n = 0, i;

	assert_non_null(copy);
	series = calloc(strlen(page) / 2 + 1, sizeof(*series));
	assert_non_null(series);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t name_len = strcspn(line, "{ ");

		if (!strncmp(line, "# TYPE ", 7)) {
			snprintf(family_name, sizeof(family_name), "%.*s",
				 (int)strcspn(line + 7, " "), line + 7);
			continue;
		}
		if (line[0] == '#')
			continue;
		if (strlen(family_name) != name_len ||
		    strncmp(line, family_name, name_len))
			fail_msg("\"%s\" is not in family %s", line,
				 family_name);
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		series[n++] = line;
	}
	qsort(series, n, sizeof(*series), by_string);
	for (i = 1; i < n; i++)
		if (!strcmp(series[i - 1], series[i]))
			fail_msg("series %s appears twice", series[i]);
	free(series);
	free(copy);
}

/* promtool check metrics must accept @page; its absence is a failure. */
static void promtool_accepts(const char *page)
{
	char path[] = "/tmp/ftagent-metrics-XXXXXX", cmd[256], out[4096];
	size_t n = 0, len = strlen(page);
	FILE *p;
	int fd, status;

	well_formed(page);
	if (access(PROMTOOL, X_OK))
		fail_msg(PROMTOOL " is missing: run 'make deps' (package "
				  "prometheus)");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal((ssize_t)len, write(fd, page, len));
	close(fd);
	snprintf(cmd, sizeof(cmd), PROMTOOL " check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	status = pclose(p);
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("promtool check metrics refused the page (status "
			 "%d):\n%s\n--- page ---\n%s",
			 status, out, page);
}

/* Figures. */

static void render_known_figures(void **state)
{
	struct ftagentd *d = new_daemon(64, 64);
	struct ftagent_counter g1[] = {
		sock(10, AF_INET, IPPROTO_TCP, 1, 500, 12000, 3),
		sock(10, AF_INET6, IPPROTO_UDP, 2, 70, 0, 7),
		sock(11, AF_UNIX, 0, 3, 9, 9, 1),
		file(11, 4, 4096, 100, 2),
	};
	struct ftagent_counter g2[] = {
		sock(10, AF_INET, IPPROTO_TCP, 1, 0, 345, 1),
	};
	struct ftagent_counter xfer = {0};
	char *page;

	(void)state;
	xfer.tgid = 11;
	xfer.kind = FTAGENT_OBJ_TRANSFER;
	xfer.ino = 4;
	xfer.peer_ino = 3;
	xfer.out.bytes = 50;
	xfer.out.calls = 1;
	feed(d, g1, 4);
	feed(d, g2, 1);
	feed(d, &xfer, 1);
	exec_as(d, 10, "curl");
	exec_as(d, 11, "cat");
	gap(d, 5, 1);
	d->self.cpu_seconds = 1.5;
	d->self.rss_bytes = 8 << 20;
	d->self.open_fds = 12;
	d->self.start_realtime_ns = 1700000000123000000ull;
	d->col.drops[FTD_DROP_DUMP_RETRY] = 2;

	page = render(d);
	has_line(page, "process_cpu_seconds_total 1.500000");
	has_line(page, "process_resident_memory_bytes 8388608");
	has_line(page, "process_open_fds 12");
	has_line(page, "process_start_time_seconds 1700000000.123");
	has_line(page, "ftagent_network_bytes_total{direction=\"out\","
		       "protocol=\"tcp\",family=\"ipv4\"} 12345");
	has_line(page, "ftagent_network_bytes_total{direction=\"in\","
		       "protocol=\"tcp\",family=\"ipv4\"} 500");
	has_line(page, "ftagent_network_calls_total{direction=\"out\","
		       "protocol=\"tcp\",family=\"ipv4\"} 4");
	has_line(page, "ftagent_network_bytes_total{direction=\"in\","
		       "protocol=\"udp\",family=\"ipv6\"} 70");
	has_line(page, "ftagent_network_calls_total{direction=\"in\","
		       "protocol=\"udp\",family=\"ipv6\"} 7");
	has_line(page, "ftagent_network_bytes_total{direction=\"out\","
		       "protocol=\"other\",family=\"unix\"} 9");
	has_line(page, "ftagent_network_bytes_total{direction=\"out\","
		       "protocol=\"other\",family=\"other\"} 0");
	/* A non-IP socket has no IP protocol. */
	lacks(page, "protocol=\"tcp\",family=\"unix\"");
	has_line(page, "ftagent_file_bytes_total{direction=\"in\"} 4096");
	has_line(page, "ftagent_file_bytes_total{direction=\"out\"} 100");
	has_line(page, "ftagent_file_calls_total{direction=\"in\"} 2");
	has_line(page, "ftagent_transfer_bytes_total 50");
	has_line(page, "ftagent_events_total{type=\"exec\"} 2");
	has_line(page, "ftagent_events_total{type=\"fork\"} 0");
	lacks(page, "type=\"gap\"");
	has_line(page, "ftagent_events_dropped_total{cause=\"buffer_full\"} 5");
	has_line(page, "ftagent_events_dropped_total{cause=\"too_big\"} 1");
	has_line(page, "ftagent_events_dropped_total{cause=\"event_log\"} 0");
	/* Retention and retries are not losses (losses.h). */
	lacks(page, "cause=\"event_log_aged_out\"");
	has_line(page, "ftagent_event_log_aged_out_total 0");
	lacks(page, "cause=\"dump_retry\"");
	has_line(page, "ftagent_dump_retries_total 2");
	has_line(page, "ftagent_kernel_lost_total{cause=\"counter_table\"} 0");
	has_line(page, "ftagent_table_entries{table=\"sockets\"} 3");
	has_line(page, "ftagent_table_capacity{table=\"processes\"} 64");
	has_line(page, "ftagent_table_evicted_total{table=\"files\"} 0");
	has_line(page, "ftagent_generations_total 3");
	has_line(page, "ftagent_event_log_entries 2");
	/*
	 * By command by default. The counters came before the names, so
	 * both processes' bytes are the unknown command's: 12345 + 9.
	 */
	has_line(page, "ftagent_process_bytes_total{comm=\"(unknown)\","
		       "direction=\"out\",object=\"socket\"} 12354");
	has_line(page, "ftagent_process_bytes_total{comm=\"(unknown)\","
		       "direction=\"in\",object=\"file\"} 4096");
	has_line(page, "ftagent_build_info{version=\"" FTAGENTD_VERSION
		       "\",abi=\"" FTAGENT_ABI_STRING "\",module_version=\"\","
		       "module_abi=\"0.0\"} 1");
	has_line(page, "ftagent_reloads_total{result=\"failure\"} 0");
	has_line(page, "ftagent_last_reload_success 1");
	has_line(page, "ftagent_link_attached 1");
	has_line(page, "ftagent_link_releases_total 0");
	has_line(page, "ftagent_metric_series_overflow 0");
	/* Without the module's resources, nothing claims to be its. */
	lacks(page, "ftagent_module_");
	lacks(page, "ftagent_hook_missed_total");
	promtool_accepts(page);
	assert_int_equal(0, d->metric_series_overflow);
	free(page);
	free_daemon(d);
}

/* With GET_RESOURCES, the module's own cumulative figures are used. */
static void render_module_resources(void **state)
{
	struct ftagentd *d = new_daemon(64, 64);
	char *page;

	(void)state;
	gap(d, 1, 0);
	d->have_res = 1;
	d->res.n_cpus = 2;
	d->res.cpus = calloc(2, sizeof(*d->res.cpus));
	d->res.n_hooks = 3;
	d->res.hook = calloc(3, sizeof(*d->res.hook));
	assert_non_null(d->res.cpus);
	assert_non_null(d->res.hook);
	d->res.cpus[0].ev_lost[FTAGENT_EV_LOSS_BUFFER_FULL] = 3;
	d->res.cpus[1].ev_lost[FTAGENT_EV_LOSS_BUFFER_FULL] = 4;
	d->res.cpus[1].ev_lost[FTAGENT_EV_LOSS_NMI] = 1;
	d->res.cpus[0].ev_discarded = 9;
	d->res.cpus[0].lost[FTAGENT_LOSS_COUNTER_TABLE] = 5;
	d->res.cpus[1].lost[FTAGENT_LOSS_USER_READ] = 2;
	strcpy(d->res.hook[0].name, "__x64_sys_read");
	strcpy(d->res.hook[1].name, "__x64_sys_write");
	strcpy(d->res.hook[2].name, "__x64_sys_read");
	d->res.hook[0].missed = 1;
	d->res.hook[2].missed = 2;
	d->res.memory_bytes = 1234567;
	d->res.flush_count = 42;
	d->res.ring_buffer_size = 4194304;

	page = render(d);
	has_line(page, "ftagent_events_dropped_total{cause=\"buffer_full\"} 7");
	has_line(page, "ftagent_events_dropped_total{cause=\"nmi\"} 1");
	has_line(page, "ftagent_events_dropped_total{cause="
		       "\"channel_discarded\"} 9");
	has_line(page, "ftagent_kernel_lost_total{cause=\"counter_table\"} 5");
	has_line(page, "ftagent_kernel_lost_total{cause=\"user_read\"} 2");
	has_line(page, "ftagent_hook_missed_total{hook=\"__x64_sys_read\"} 3");
	has_line(page, "ftagent_hook_missed_total{hook=\"__x64_sys_write\"} 0");
	has_line(page, "ftagent_module_memory_bytes 1234567");
	has_line(page, "ftagent_module_flushes_total 42");
	has_line(page, "ftagent_module_event_buffer_bytes 4194304");
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* Rows evicted from full tables take nothing off the counters. */
static void counters_survive_eviction(void **state)
{
	struct ftagentd *d = new_daemon(2, 2);
	uint64_t last = 0, now;
	uint32_t tgid;
	char *page;

	(void)state;
	for (tgid = 1; tgid <= 7; tgid++) {
		struct ftagent_counter k[] = {
			sock(tgid, AF_INET, IPPROTO_TCP, tgid, 10, 1000, 1),
			file(tgid, 100 + tgid, 7, 0, 1),
		};

		feed(d, k, 2);
		page = render(d);
		now = value_of(page, "ftagent_network_bytes_total{direction="
				     "\"out\",protocol=\"tcp\",family="
				     "\"ipv4\"}");
		assert_true(now >= last);
		assert_int_equal(1000 * tgid, now);
		last = now;
		assert_int_equal(7 * tgid,
				 value_of(page, "ftagent_file_bytes_total{"
						"direction=\"in\"}"));
		free(page);
	}
	page = render(d);
	/* The tables hold two rows each, and say what they dropped. */
	has_line(page, "ftagent_table_entries{table=\"sockets\"} 2");
	has_line(page, "ftagent_table_evicted_total{table=\"sockets\"} 5");
	has_line(page, "ftagent_table_evicted_total{table=\"processes\"} 5");
	has_line(page, "ftagent_network_calls_total{direction=\"out\","
		       "protocol=\"tcp\",family=\"ipv4\"} 7");
	/* The group keeps what evicted rows moved. */
	has_line(page, "ftagent_process_bytes_total{comm=\"(unknown)\","
		       "direction=\"out\",object=\"socket\"} 7000");
	lacks(page, "pid=\"1\"");
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* Command names can hold quotes, backslashes, newlines and non-UTF-8. */
static void label_escaping(void **state)
{
	struct ftagentd *d = new_daemon(64, 64);
	struct ftagent_counter k = sock(20, AF_INET, IPPROTO_TCP, 1, 1, 2, 1);
	char *page;

	(void)state;
	exec_as(d, 20, "a\"b\\c\nd\xff\xc3\xa9");
	feed(d, &k, 1);
	page = render(d);
	has_line(page, "ftagent_process_bytes_total{comm="
		       "\"a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\",direction="
		       "\"out\",object=\"socket\"} 2");
	promtool_accepts(page);
	free(page);

	/* A name cut inside a character by the kernel. */
	exec_as(d, 20, "abcdefghijklm\xe2\x82");
	feed(d, &k, 1);
	page = render(d);
	has_line(page, "ftagent_process_bytes_total{comm="
		       "\"abcdefghijklm\xef\xbf\xbd\xef\xbf\xbd\",direction="
		       "\"in\",object=\"socket\"} 1");
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* Five processes moving 100, 200, ... 500 bytes. */
static struct ftagentd *five_processes(void)
{
	struct ftagentd *d = new_daemon(64, 64);
	struct ftagent_counter k[5];
	char comm[16];
	uint32_t i;

	for (i = 0; i < 5; i++) {
		k[i] = sock(30 + i, AF_INET, IPPROTO_TCP, i + 1, 0,
			    100 * (i + 1), 1);
		snprintf(comm, sizeof(comm), "p%u", 30 + i);
		exec_as(d, 30 + i, comm);
	}
	feed(d, k, 5);
	return d;
}

static void series_cap(void **state)
{
	struct ftagentd *d = five_processes();
	uint64_t all, fixed;
	char *page;

	(void)state;
	page = render(d);
	all = labelled_series(page);
	fixed = all - 5 * 4;
	assert_int_equal(0, d->metric_series_overflow);
	assert_int_equal(all, value_of(page, "ftagent_metric_series"));
	free(page);

	/* Room for two processes and one series more: the two busiest. */
	d->cfg.limits.metric_series = fixed + 2 * 4 + 1;
	page = render(d);
	assert_int_equal(fixed + 8, labelled_series(page));
	assert_int_equal(3 * 4, d->metric_series_overflow);
	has_line(page, "ftagent_metric_series_overflow 12");
	has_line(page, "ftagent_process_bytes_total{comm=\"p34\","
		       "direction=\"out\",object=\"socket\"} 500");
	has_line(page, "ftagent_process_bytes_total{comm=\"p33\","
		       "direction=\"out\",object=\"socket\"} 400");
	lacks(page, "comm=\"p32\"");
	lacks(page, "comm=\"p30\"");
	/* The fixed series came first and are all there. */
	has_line(page, "ftagent_table_evicted_total{table=\"transfers\"} 0");
	promtool_accepts(page);
	free(page);

	/* A cap below the fixed series: the page stays valid. */
	d->cfg.limits.metric_series = 3;
	page = render(d);
	assert_int_equal(3, labelled_series(page));
	assert_int_equal(all - 3, d->metric_series_overflow);
	assert_int_equal(all - 3,
			 value_of(page, "ftagent_metric_series_overflow"));
	has_line(page, "ftagent_metric_series_limit 3");
	lacks(page, "ftagent_process_bytes_total{");
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* A process's exit record. */
static void exit_as(struct ftagentd *d, uint32_t tgid, const char *comm)
{
	struct ftagent_rec_exit x = {0};

	memcpy(x.comm, comm, strnlen(comm, sizeof(x.comm) - 1));
	feed_record(d, FTAGENT_REC_EXIT, tgid, &x, sizeof(x));
}

#define WEB_OUT                                                                \
	"ftagent_process_bytes_total{comm=\"web\",direction=\"out\","          \
	"object=\"socket\"}"
#define SH_OUT                                                                 \
	"ftagent_process_bytes_total{comm=\"sh\",direction=\"out\","           \
	"object=\"socket\"}"

/* @series on @page, at least @floor (what the last scrape showed). */
static uint64_t not_below(const char *page, const char *series, uint64_t floor)
{
	uint64_t v = value_of(page, series);

	if (v < floor)
		fail_msg("%s went down: %" PRIu64 " after %" PRIu64, series, v,
			 floor);
	return v;
}

/*
 * A group's counter never goes down: not when its processes exit, not
 * when their rows are evicted from a full table, not when one of them
 * execs into another group. What it moved so far stays where it was.
 */
static void group_counters_never_go_down(void **state)
{
	struct ftagentd *d = new_daemon(16, 16);
	uint64_t web = 0, sh = 0;
	uint32_t tgid;
	char *page;

	(void)state;
	d->cfg.limits.processes = 16;
	for (tgid = 100; tgid < 140; tgid++) {
		struct ftagent_counter k =
			sock(tgid, AF_INET, IPPROTO_TCP, tgid, 0, 10, 1);

		/* Half start as sh and exec web, after moving bytes. */
		exec_as(d, tgid, tgid % 2 ? "sh" : "web");
		feed(d, &k, 1);
		if (tgid % 2) {
			exec_as(d, tgid, "web");
			feed(d, &k, 1);
		}
		page = render(d);
		web = not_below(page, WEB_OUT, web);
		sh = tgid % 2 ? not_below(page, SH_OUT, sh) : sh;
		free(page);
		/* It exits, and ages out of a table of 16 rows. */
		exit_as(d, tgid, "web");
		page = render(d);
		web = not_below(page, WEB_OUT, web);
		free(page);
	}
	page = render(d);
	assert_int_equal(16, value_of(page, "ftagent_table_entries{table="
					    "\"processes\"}"));
	assert_true(value_of(page, "ftagent_table_evicted_total{table="
				   "\"processes\"}") > 0);
	/* Every byte is in one group or the other: nothing dropped. */
	assert_int_equal(20 * 10 + 20 * 10, value_of(page, WEB_OUT));
	assert_int_equal(20 * 10, value_of(page, SH_OUT));
	assert_int_equal(value_of(page, WEB_OUT) + value_of(page, SH_OUT),
			 value_of(page, "ftagent_network_bytes_total{direction="
					"\"out\",protocol=\"tcp\",family="
					"\"ipv4\"}"));
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* Past group_limit: one "(other processes)" group, counted; no loss. */
static void group_limit_folds_into_other(void **state)
{
	struct ftagentd *d = calloc(1, sizeof(*d));
	static const char *const names[] = {"a", "b", "c", "d", "e"};
	uint64_t sum = 0;
	char *page, line[128];
	size_t i;

	(void)state;
	assert_non_null(d);
	ftagentd_config_defaults(&d->cfg);
	d->cfg.metrics.group_limit = 2;
	assert_int_equal(0, ftd_collector_init(&d->col, &d->cfg));
	for (i = 0; i < 5; i++) {
		struct ftagent_counter k = sock(200 + i, AF_INET, IPPROTO_TCP,
						i + 1, 0, 100 * (i + 1), 1);

		exec_as(d, 200 + i, names[i]);
		feed(d, &k, 1);
	}
	page = render(d);
	has_line(page, "ftagent_process_groups 2");
	has_line(page, "ftagent_process_group_limit 2");
	has_line(page, "ftagent_process_group_overflow_total 3");
	has_line(page, "ftagent_process_bytes_total{comm=\"(other processes)\","
		       "direction=\"out\",object=\"socket\"} 1200");
	lacks(page, "comm=\"c\"");
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line),
			 "ftagent_process_bytes_total{comm=\"%s\",direction="
			 "\"out\",object=\"socket\"}",
			 names[i]);
		sum += value_of(page, line);
	}
	assert_int_equal(1500, sum + 1200);
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* Opt-in: one series set per process, with its pid and command. */
static void group_by_pid(void **state)
{
	struct ftagentd *d = calloc(1, sizeof(*d));
	struct ftagent_counter k = sock(300, AF_INET, IPPROTO_TCP, 1, 0, 77, 1);
	char *page;

	(void)state;
	assert_non_null(d);
	ftagentd_config_defaults(&d->cfg);
	d->cfg.metrics.group_by = FTAGENTD_GROUP_PID;
	assert_int_equal(0, ftd_collector_init(&d->col, &d->cfg));
	exec_as(d, 300, "curl");
	feed(d, &k, 1);
	page = render(d);
	has_line(page, "ftagent_process_bytes_total{pid=\"300\",comm=\"curl\","
		       "direction=\"out\",object=\"socket\"} 77");
	has_line(page, "ftagent_process_groups 0");
	assert_int_equal(0, d->col.groups.table.used);
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

static void unit_of_cgroup_paths(void **state)
{
	static const struct {
		const char *path, *unit;
	} cases[] = {
		{"/system.slice/nginx.service", "nginx.service"},
		{"/system.slice/nginx.service/worker", "nginx.service"},
		{"/user.slice/user-1000.slice/user@1000.service/app.slice/"
		 "foo.scope",
		 "foo.scope"},
		{"/user.slice/user-1000.slice", "user-1000.slice"},
		{"/init.scope", "init.scope"},
		{"/", "-.slice"},
		{"/kubepods/burstable/pod1/abc", "-.slice"},
	};
	char unit[FTD_GROUP_NAME_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(0, ftd_unit_of_cgroup(cases[i].path, unit,
						       sizeof(unit)));
		assert_string_equal(cases[i].unit, unit);
	}
	assert_int_equal(-1,
			 ftd_unit_of_cgroup("relative", unit, sizeof(unit)));
	assert_int_equal(-1, ftd_unit_of_cgroup("/a.service", unit, 4));
}

/* By unit: the exec record's cgroup id, its unit remembered. */
static void group_by_unit(void **state)
{
	struct ftagentd *d = calloc(1, sizeof(*d));
	struct ftagent_counter k = sock(400, AF_INET, IPPROTO_TCP, 1, 0, 5, 1);
	struct ftagent_rec_exec e = {0};
	struct ftd_unit_entry *u;
	uint64_t id = 77;
	char *page;

	(void)state;
	assert_non_null(d);
	ftagentd_config_defaults(&d->cfg);
	d->cfg.metrics.group_by = FTAGENTD_GROUP_UNIT;
	assert_int_equal(0, ftd_collector_init(&d->col, &d->cfg));
	u = ftd_table_get(&d->col.units, &id, NULL);
	strcpy(u->unit, "nginx.service");
	e.cgroup_id = 77;
	memcpy(e.comm, "nginx", 5);
	feed_record(d, FTAGENT_REC_EXEC, 400, &e, sizeof(e));
	feed(d, &k, 1);
	/* A fork inherits its parent's cgroup. */
	{
		struct ftagent_rec_fork f = {.child_tgid = 401};
		struct ftagent_counter k2 =
			sock(401, AF_INET, IPPROTO_TCP, 2, 0, 6, 1);

		feed_record(d, FTAGENT_REC_FORK, 400, &f, sizeof(f));
		feed(d, &k2, 1);
	}
	page = render(d);
	has_line(page, "ftagent_process_bytes_total{unit=\"nginx.service\","
		       "direction=\"out\",object=\"socket\"} 11");
	promtool_accepts(page);
	free(page);
	free_daemon(d);
}

/* The groups and the verdicts survive a restart: no counter reset. */
static void groups_survive_a_restart(void **state)
{
	char dir[] = "/tmp/ftagent-metrics-state-XXXXXX";
	struct ftagentd *d = five_processes(), *back = new_daemon(64, 64);
	struct ftagent_rec_verdict v = {0};
	struct ftd_state st, st2;
	char *page;

	(void)state;
	assert_non_null(mkdtemp(dir));
	v.source = FTAGENT_VERDICT_SRC_RULE;
	v.action = FTAGENT_ACTION_DENY;
	v.verdict = FTAGENT_VERDICT_DENIED;
	strcpy(v.rule_name, "no-ssh");
	feed_record(d, FTAGENT_REC_VERDICT, 30, &v, sizeof(v));
	memset(&st, 0, sizeof(st));
	assert_true(ftd_state_open(&st, dir, &d->col) >= 0);
	assert_int_equal(0, ftd_state_snapshot(&st, &d->col));
	ftd_state_close(&st);
	assert_true(ftd_state_open(&st2, dir, &back->col) >= 0);
	ftd_state_close(&st2);
	page = render(back);
	has_line(page, "ftagent_process_bytes_total{comm=\"p34\","
		       "direction=\"out\",object=\"socket\"} 500");
	has_line(page, "ftagent_policy_verdicts_total{rule=\"no-ssh\","
		       "action=\"deny\",verdict=\"denied\"} 1");
	free(page);
	free_daemon(d);
	free_daemon(back);
	assert_int_equal(0, system("rm -rf /tmp/ftagent-metrics-state-*"));
}

/* The module's state and hooks, its policy and budgets, the verdicts. */
static void module_policy_and_verdicts(void **state)
{
	struct ftagentd *d = new_daemon(64, 64);
	struct ftagent_rec_verdict v = {0};
	struct ftagent_rule_spec *r;
	struct ftagent_budget_spec *b;
	char *page;
	int i;

	(void)state;
	strcpy(d->module.module_version, "0.4.0");
	d->module.abi_major = 0;
	d->module.abi_minor = 5;
	d->have_res = 1;
	d->res.state = FTAGENT_STATE_DEGRADED;
	d->res.n_hooks = 3;
	d->res.hook = calloc(3, sizeof(*d->res.hook));
	assert_non_null(d->res.hook);
	d->res.hook[0].state = FTAGENT_HOOK_VERIFIED;
	d->res.hook[1].state = FTAGENT_HOOK_VERIFIED;
	d->res.hook[2].state = FTAGENT_HOOK_FAILED;
	d->have_policy = 1;
	ftagent_policy_spec_init(&d->policy);
	d->policy.enforce = 1;
	r = ftagent_policy_spec_add(&d->policy);
	assert_non_null(r);
	strcpy(r->name, "no-ssh");
	r->action = FTAGENT_ACTION_DENY;
	r->hits = 4;
	d->policy.default_hits = 9;
	b = ftagent_budget_set_add(&d->budgets);
	assert_non_null(b);
	strcpy(b->name, "uploads");
	b->metric = FTAGENT_METRIC_BYTES_SENT;
	b->limit = 1000;
	b->used = 250;
	b->denied = 2;
	b->alerts = 1;
	v.source = FTAGENT_VERDICT_SRC_RULE;
	v.action = FTAGENT_ACTION_DENY;
	v.verdict = FTAGENT_VERDICT_DENIED;
	strcpy(v.rule_name, "no-ssh");
	for (i = 0; i < 3; i++)
		feed_record(d, FTAGENT_REC_VERDICT, 50, &v, sizeof(v));
	v.source = FTAGENT_VERDICT_SRC_BUDGET;
	v.verdict = FTAGENT_VERDICT_OVER_BUDGET;
	strcpy(v.rule_name, "uploads");
	feed_record(d, FTAGENT_REC_VERDICT, 50, &v, sizeof(v));
	d->reloads = 2;
	d->reload_errors = 1;
	d->last_reload_realtime_ns = 1700000000500000000ull;
	d->last_reload_ok = 0;
	/* Detached: released three times, two of them found a new load. */
	d->module_link = FTD_LINK_ABSENT;
	d->module_releases = 3;
	d->module_reloads = 2;
	d->module_detached_ns = 1500000000ull;

	page = render(d);
	has_line(page, "ftagent_build_info{version=\"" FTAGENTD_VERSION
		       "\",abi=\"" FTAGENT_ABI_STRING "\",module_version="
		       "\"0.4.0\",module_abi=\"0.5\"} 1");
	has_line(page, "ftagent_module_state{state=\"degraded\"} 1");
	has_line(page, "ftagent_module_state{state=\"tracing\"} 0");
	has_line(page, "ftagent_module_hooks{hook_state=\"verified\"} 2");
	has_line(page, "ftagent_module_hooks{hook_state=\"failed\"} 1");
	has_line(page, "ftagent_module_hooks{hook_state=\"detached\"} 0");
	has_line(page, "ftagent_reloads_total{result=\"success\"} 2");
	has_line(page, "ftagent_reloads_total{result=\"failure\"} 1");
	has_line(page, "ftagent_last_reload_time_seconds 1700000000.500");
	has_line(page, "ftagent_last_reload_success 0");
	has_line(page, "ftagent_link_attached 0");
	has_line(page, "ftagent_link_releases_total 3");
	has_line(page, "ftagent_link_reloads_total 2");
	has_line(page, "ftagent_link_detached_seconds_total 1.500");
	has_line(page, "ftagent_policy_enforcing 1");
	has_line(page, "ftagent_policy_rule_hits_total{rule=\"no-ssh\","
		       "action=\"deny\"} 4");
	has_line(page, "ftagent_policy_rule_hits_total{rule=\"(default rule)\","
		       "action=\"allow\"} 9");
	has_line(page, "ftagent_budget_used{budget=\"uploads\","
		       "budget_metric=\"bytes_sent\"} 250");
	has_line(page, "ftagent_budget_limit{budget=\"uploads\","
		       "budget_metric=\"bytes_sent\"} 1000");
	has_line(page, "ftagent_budget_refusals_total{budget=\"uploads\"} 2");
	has_line(page, "ftagent_budget_alerts_total{budget=\"uploads\"} 1");
	has_line(page, "ftagent_policy_verdicts_total{rule=\"no-ssh\","
		       "action=\"deny\",verdict=\"denied\"} 3");
	has_line(page, "ftagent_budget_verdicts_total{budget=\"uploads\","
		       "verdict=\"over_budget\"} 1");
	promtool_accepts(page);
	free(page);
	ftagent_policy_spec_free(&d->policy);
	ftagent_budget_set_free(&d->budgets);
	free_daemon(d);
}

/* The server. */

static uint16_t free_port(void)
{
	struct sockaddr_in sin = {0};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(0, bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	assert_int_equal(0, getsockname(fd, (struct sockaddr *)&sin, &len));
	close(fd);
	return ntohs(sin.sin_port);
}

/* Send @request to 127.0.0.1:@port; the whole answer, malloc'd. */
static char *http(uint16_t port, const char *request)
{
	struct timeval tv = {.tv_sec = 10};
	struct sockaddr_in sin = {0};
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_non_null(buf);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(0, connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
	assert_int_equal((ssize_t)strlen(request),
			 write(fd, request, strlen(request)));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	assert_int_equal(0, n);
	close(fd);
	buf[len] = '\0';
	return buf;
}

/*
 * The server has no thread of its own: the daemon's loop polls it. Here a
 * thread stands in for that loop while the test is the client.
 */
struct pump {
	struct ftd_metrics_server *s;
	pthread_t thread;
	int stop;
};

static void *pump_run(void *arg)
{
	struct pump *p = arg;
	struct pollfd pfd = {.fd = ftd_metrics_fd(p->s), .events = POLLIN};

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		int ms = ftd_metrics_timeout_ms(p->s);

		poll(&pfd, 1, ms < 0 || ms > 50 ? 50 : ms);
		ftd_metrics_run(p->s);
	}
	return NULL;
}

static void server_serves_the_page(void **state)
{
	struct pump pump = {0};
	struct ftagentd *d = new_daemon(64, 64);
	struct ftagent_counter k =
		sock(10, AF_INET, IPPROTO_TCP, 1, 0, 12345, 1);
	struct ftd_metrics_server *s = NULL, *busy;
	char listen[64], *answer, *body;
	uint16_t port = 0;
	int tries;

	(void)state;
	feed(d, &k, 1);
	for (tries = 0; !s && tries < 5; tries++) {
		port = free_port();
		snprintf(listen, sizeof(listen), "127.0.0.1:%u", port);
		s = ftd_metrics_start(d, listen, err, sizeof(err));
	}
	if (!s)
		fail_msg("could not start: %s", err);
	assert_true(ftd_metrics_fd(s) >= 0);
	pump.s = s;
	assert_int_equal(0,
			 pthread_create(&pump.thread, NULL, pump_run, &pump));

	answer = http(port, "GET /metrics HTTP/1.0\r\n\r\n");
	assert_true(!strncmp(answer, "HTTP/1.1 200 ", 13) ||
		    !strncmp(answer, "HTTP/1.0 200 ", 13));
	assert_non_null(strcasestr(answer, "\r\nContent-Type: text/plain; "
					   "version=0.0.4; charset=utf-8\r\n"));
	body = strstr(answer, "\r\n\r\n");
	assert_non_null(body);
	has_line(body + 4, "ftagent_network_bytes_total{direction=\"out\","
			   "protocol=\"tcp\",family=\"ipv4\"} 12345");
	promtool_accepts(body + 4);
	free(answer);

	/* HEAD: the headers alone. */
	answer = http(port, "HEAD /metrics HTTP/1.0\r\n\r\n");
	assert_true(strstr(answer, " 200 ") == strchr(answer, ' '));
	body = strstr(answer, "\r\n\r\n");
	assert_non_null(body);
	assert_string_equal("", body + 4);
	free(answer);

	answer = http(port, "GET /other HTTP/1.0\r\n\r\n");
	assert_true(strstr(answer, " 404 ") == strchr(answer, ' '));
	free(answer);

	answer = http(port,
		      "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
	assert_true(strstr(answer, " 405 ") == strchr(answer, ' '));
	assert_non_null(strcasestr(answer, "\r\nAllow: GET, HEAD\r\n"));
	free(answer);

	/* The address is taken now: the error says so. */
	busy = ftd_metrics_start(d, listen, err, sizeof(err));
	assert_null(busy);
	assert_non_null(strstr(err, listen));
	assert_non_null(strstr(err, "in use"));

	__atomic_store_n(&pump.stop, 1, __ATOMIC_RELEASE);
	pthread_join(pump.thread, NULL);
	ftd_metrics_stop(s);
	ftd_metrics_stop(NULL);
	free_daemon(d);
}

static void server_refuses_names(void **state)
{
	struct ftagentd *d = new_daemon(64, 64);

	(void)state;
	assert_null(ftd_metrics_start(d, "localhost:9465", err, sizeof(err)));
	assert_non_null(strstr(err, "not an IP address"));
	free_daemon(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(listen_ipv4),
		cmocka_unit_test(listen_ipv6),
		cmocka_unit_test(listen_bad_port),
		cmocka_unit_test(listen_names_and_empty),
		cmocka_unit_test(render_known_figures),
		cmocka_unit_test(render_module_resources),
		cmocka_unit_test(counters_survive_eviction),
		cmocka_unit_test(label_escaping),
		cmocka_unit_test(series_cap),
		cmocka_unit_test(group_counters_never_go_down),
		cmocka_unit_test(group_limit_folds_into_other),
		cmocka_unit_test(group_by_pid),
		cmocka_unit_test(unit_of_cgroup_paths),
		cmocka_unit_test(group_by_unit),
		cmocka_unit_test(groups_survive_a_restart),
		cmocka_unit_test(module_policy_and_verdicts),
		cmocka_unit_test(server_serves_the_page),
		cmocka_unit_test(server_refuses_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
