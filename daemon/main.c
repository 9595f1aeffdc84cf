// SPDX-License-Identifier: GPL-2.0
/*
 * ftagentd: drains the ftagent module into bounded tables and an event
 * log, and serves them on a local socket and (optionally) a Prometheus
 * page. One thread does all the work in an epoll loop, the metrics page
 * included (libmicrohttpd polled from the loop, no thread of its own).
 * An idle host lets the loop sleep: see IDLE_TICK_MAX_MS.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "api_reply.h"
#include "audit.h"
#include "audit_sets.h"
#include "cgroup_watch.h"
#include "drain.h"
#include "ftagentd.h"
#include "group.h"
#include "log.h"
#include "losses.h"
#include "metrics.h"
#include "module.h"
#include "notify.h"
#include "self_usage.h"
#include "state.h"

#define TAG_TIMER   1
#define TAG_SIGNAL  2
#define TAG_EVENTS  3 /* | cpu << 8 */
#define TAG_METRICS 4
#define TAG_CGROUPS 5

#define SAMPLE_MAX_AGE_NS    1000000000ull /* resources and self usage */
#define SNAPSHOT_INTERVAL_NS 30000000000ull
#define SNAPSHOT_JOURNAL_MAX (16ull << 20)
/*
 * A tick that finds nothing doubles the wait for the next one, from
 * flush_interval up to this; anything drained brings it back. Records
 * that fill no sub-buffer and counters wait at most this long on an idle
 * host; API requests and scrapes drain first when the wait is longer
 * than flush_interval, so their answers are as fresh as before.
 */
#define IDLE_TICK_MAX_MS 16000
#define METRICS_RETRY_NS 30000000000ull

struct options {
	const char *config;
	const char *socket;
	const char *state_dir;
	int check_config;
	int config_given;
};

struct loop {
	struct ftagentd d;
	struct ftd_module mod;
	struct ftd_event_drain ev;
	struct ftd_event_output out;
	struct ftd_audit audit;	    /* [audit]: the trail */
	struct ftd_audit_sets sets; /* the sets last recorded in it */
	int started;		    /* setup done: pushes are reloads */
	struct ftd_state st;
	struct ftd_api api;
	struct ftd_metrics_server *metrics;
	int epoll_fd, timer_fd, signal_fd;
	int lock_fd; /* the state directory's lock, held for our life */
	struct ftd_cgroup_watch cgw; /* the cgroups the policy names by path */
	int mounted_fs; /* we mounted ftagentfs, so we unmount it */
	/*
	 * The control family's id when we released the module: genetlink
	 * numbers families cyclically, so another id is another load, even
	 * one made between two of our looks.
	 */
	uint16_t released_family_id;
	uint64_t last_sample_ns, last_snapshot_ns, last_drain_ns;
	uint64_t
		tick_ms; /* the wait for the next tick (see IDLE_TICK_MAX_MS) */
	uint64_t merged; /* counters and records merged, as of the last tick */
	int dirty;	 /* merged something since the last snapshot */
	/* Failures that repeat each tick are logged once a minute. */
	struct ftd_log_limit events_log, counters_log, snapshot_log;
	uint64_t metrics_tried_ns; /* the last start of the metrics page */
	int stop;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ftagentd [-c FILE] [--check-config] [--socket PATH] "
		"[--state-dir DIR]\n"
		"  -c, --config FILE  config file (default %s)\n"
		"      --check-config validate the config file and exit\n"
		"      --socket PATH  API socket (default %s)\n"
		"      --state-dir DIR  snapshot and journal (default %s)\n"
		"  -V, --version      print the version and exit\n"
		"  -h, --help         this text\n",
		FTAGENTD_CONFIG_PATH, FTAGENTD_SOCKET_PATH, FTAGENTD_STATE_DIR);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"check-config", no_argument, NULL, 'k'},
		{"socket", required_argument, NULL, 's'},
		{"state-dir", required_argument, NULL, 'S'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	o->config = FTAGENTD_CONFIG_PATH;
	o->socket = FTAGENTD_SOCKET_PATH;
	o->state_dir = FTAGENTD_STATE_DIR;
	while ((c = getopt_long(argc, argv, "c:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			o->config_given = 1;
			break;
		case 'k': o->check_config = 1; break;
		case 's': o->socket = optarg; break;
		case 'S': o->state_dir = optarg; break;
		case 'V':
			printf("ftagentd %s (ABI %s)\n", FTAGENTD_VERSION,
			       FTAGENT_ABI_STRING);
			exit(FTAGENTD_EXIT_OK);
		case 'h': usage(stdout); exit(FTAGENTD_EXIT_OK);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/*
 * Load the config. The default path may be absent (built-in defaults);
 * a path given with -c must exist.
 */
static int load_config(const struct options *o, struct ftagentd_config *cfg,
		       char *err, size_t err_len)
{
	if (!o->config_given && access(o->config, F_OK) < 0 &&
	    errno == ENOENT) {
		ftagentd_config_defaults(cfg);
		return 0;
	}
	return ftagentd_config_load(o->config, cfg, err, err_len);
}

/* One shot: each tick sets the next. */
static int set_timer(int fd, uint64_t ms)
{
	struct itimerspec its = {0};

	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	return timerfd_settime(fd, 0, &its, NULL);
}

/*
 * The next tick in @ms, or sooner when audit records wait for their
 * fsync: fsync_interval bounds what a host crash loses, even when the
 * loop has backed off on an idle host.
 */
static int set_tick(struct loop *l, uint64_t ms)
{
	uint64_t due =
		ftd_audit_due_ms(&l->audit, ftd_clock_ns(CLOCK_MONOTONIC));

	return set_timer(l->timer_fd, due && due < ms ? due : ms);
}

/*
 * After a drain between ticks: fsync what is due, and bring the next
 * tick forward if the trail's fsync falls due before it (never later:
 * under a storm of wakeups the tick must still come).
 */
static void audit_between_ticks(struct loop *l)
{
	uint64_t now = ftd_clock_ns(CLOCK_MONOTONIC), due;
	struct itimerspec its;

	ftd_audit_tick(&l->audit, now);
	due = ftd_audit_due_ms(&l->audit, now);
	if (!due || timerfd_gettime(l->timer_fd, &its) < 0)
		return;
	if ((uint64_t)its.it_value.tv_sec * 1000 +
		    (uint64_t)its.it_value.tv_nsec / 1000000 >
	    due)
		set_timer(l->timer_fd, due);
}

/* flush_interval; 0 (the module swaps only when asked) ticks at 250 ms. */
static uint64_t base_tick_ms(const struct loop *l)
{
	return l->d.cfg.agent.flush_interval_ms
		       ? l->d.cfg.agent.flush_interval_ms
		       : 250;
}

static uint64_t max_tick_ms(const struct loop *l)
{
	uint64_t base = base_tick_ms(l);

	return base > IDLE_TICK_MAX_MS ? base : IDLE_TICK_MAX_MS;
}

static uint64_t merged(const struct ftd_collector *c)
{
	uint64_t n = c->counters;
	unsigned int i;

	for (i = 0; i < __FTAGENT_REC_MAX; i++)
		n += c->events[i];
	return n;
}

/* Something was drained: back to ticking every flush_interval. */
static void note_merged(struct loop *l)
{
	uint64_t n = merged(&l->d.col);

	if (n == l->merged)
		return;
	l->merged = n;
	l->dirty = 1;
	if (l->tick_ms != base_tick_ms(l)) {
		l->tick_ms = base_tick_ms(l);
		set_tick(l, l->tick_ms);
	}
}

static int watch_event_files(struct loop *l)
{
	unsigned int i;

	for (i = 0; i < l->ev.reader.n; i++) {
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.u64 = TAG_EVENTS | (i << 8)};

		if (l->ev.reader.fds[i] >= 0 &&
		    epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->ev.reader.fds[i],
			      &ev) < 0)
			return -1;
	}
	return 0;
}

static int open_events(struct loop *l)
{
	struct statfs sfs;

	l->mounted_fs = statfs(FTAGENT_FS_MOUNTPOINT, &sfs) == 0 &&
			sfs.f_type != FTAGENT_FS_MAGIC;
	if (ftd_events_open(&l->ev) < 0 || watch_event_files(l) < 0) {
		ftd_log(LOG_ERR, "%s", l->ev.error);
		return -1;
	}
	return 0;
}

/*
 * The rule set's hits and the budgets' usage, for the page, with the
 * resources: at most once a second, when asked (a scrape, an API
 * request), and once a minute for the loss window (loss_window.h).
 * 0, or -1 (logged) when the module would not say.
 */
static int sample_policy(struct loop *l, struct ftagent_policy_spec *policy,
			 struct ftagent_budget_set *budgets)
{
	struct ftnl_error err;
	char msg[384];

	if (l->d.module_missing[0])
		return -1; /* a module before ABI 0.4: no policy to read */
	if (ftagent_get_policy(&l->mod.ctl, policy, &err) < 0 ||
	    ftagent_get_budgets(&l->mod.ctl, budgets, &err) < 0) {
		ftd_log(LOG_WARNING, "module policy and budgets: %s",
			ftnl_format_error(&err, msg, sizeof(msg)));
		return -1;
	}
	return 0;
}

/*
 * Only with the module's own figures: before the first sample the kernel
 * losses are what GAP records said, a smaller base that would make the
 * module's since-load counts look like a loss inside the window.
 */
static void note_losses(struct ftagentd *d, uint64_t now)
{
	uint64_t events, counters;

	if (!d->have_res)
		return;
	ftd_loss_totals(d, &events, &counters);
	ftd_loss_window_note(&d->loss_window, now, events, counters);
}

static void sample(struct loop *l, uint64_t now)
{
	struct ftagent_resources res = {0};
	struct ftagent_policy_spec policy;
	struct ftagent_budget_set budgets = {0};
	struct ftnl_error err;
	char msg[384];
	int have_policy;

	if (l->d.module_link != FTD_LINK_ATTACHED) {
		/* No module to ask: the last figures stay, marked as such. */
		ftd_self_usage_sample(&l->d.self, now);
		l->last_sample_ns = now;
		return;
	}
	if (ftagent_get_resources(&l->mod.stats, &res, &err) < 0) {
		ftd_log(LOG_WARNING, "module resources: %s",
			ftnl_format_error(&err, msg, sizeof(msg)));
		return;
	}
	ftagent_policy_spec_init(&policy);
	have_policy = sample_policy(l, &policy, &budgets) == 0;
	pthread_mutex_lock(&l->d.col.lock);
	ftagent_resources_free(&l->d.res);
	l->d.res = res;
	l->d.have_res = 1;
	ftagent_policy_spec_free(&l->d.policy);
	ftagent_budget_set_free(&l->d.budgets);
	l->d.policy = policy;
	l->d.budgets = budgets;
	l->d.have_policy = have_policy;
	l->d.res_realtime_ns = ftd_record_realtime_ns(now);
	l->d.col.queue_capacity = res.ring_buffer_size;
	ftd_self_usage_sample(&l->d.self, now);
	note_losses(&l->d, now);
	pthread_mutex_unlock(&l->d.col.lock);
	l->last_sample_ns = now;
}

static int watch_module(struct loop *l);
static void start_metrics(struct loop *l);

/*
 * Drain the module. @full: swap generations too, so every counter up to
 * now is taken. A backed-off tick only looks at the generation the
 * module's own timer swapped out (no swap, no RCU grace period) and goes
 * on to a full drain only when it finds something.
 */
static void tick(struct loop *l, int full)
{
	uint64_t before = merged(&l->d.col), now;
	char why[512];
	int rc;

	if (l->d.module_link != FTD_LINK_ATTACHED && !watch_module(l)) {
		now = ftd_clock_ns(CLOCK_MONOTONIC);
		ftd_audit_tick(&l->audit, now);
		l->tick_ms = base_tick_ms(l);
		set_tick(l, l->tick_ms);
		return;
	}
	if (ftd_drain_events(&l->ev, &l->d.col, &l->st) < 0)
		ftd_log_limited(&l->events_log, ftd_clock_ns(CLOCK_MONOTONIC),
				LOG_WARNING, "%s", l->ev.error);
	if (!full && l->d.cfg.agent.flush_interval_ms &&
	    l->tick_ms > base_tick_ms(l)) {
		if (ftd_drain_idle_generation(&l->mod, &l->d.col, &l->st, why,
					      sizeof(why)) < 0)
			ftd_log_limited(&l->counters_log,
					ftd_clock_ns(CLOCK_MONOTONIC),
					LOG_WARNING, "%s", why);
		full = merged(&l->d.col) != before;
	} else {
		full = 1;
	}
	if (full) {
		rc = ftd_drain_counters(&l->mod, &l->d.col, &l->st, why,
					sizeof(why));
		if (rc < 0)
			ftd_log_limited(&l->counters_log,
					ftd_clock_ns(CLOCK_MONOTONIC),
					LOG_WARNING, "%s", why);
	}
	now = ftd_clock_ns(CLOCK_MONOTONIC);
	l->last_drain_ns = now;
	/* The loss window wants a sample a minute, asked for or not. */
	if (now - l->last_sample_ns >= FTD_LOSS_SAMPLE_EVERY_NS)
		sample(l, now);
	if (merged(&l->d.col) != l->merged) {
		l->merged = merged(&l->d.col);
		l->dirty = 1;
		l->tick_ms = base_tick_ms(l);
	} else if (l->tick_ms < max_tick_ms(l)) {
		l->tick_ms = 2 * l->tick_ms < max_tick_ms(l) ? 2 * l->tick_ms
							     : max_tick_ms(l);
		/* Quiet now: give back what the last burst left free. */
		if (l->tick_ms == max_tick_ms(l)) {
			ftd_events_trim(&l->ev);
			malloc_trim(0);
		}
	}
	/*
	 * A metrics page that could not start (its address not up yet, at
	 * boot) is tried again every METRICS_RETRY_NS.
	 */
	if (l->d.cfg.metrics.listen[0] && !l->metrics &&
	    now - l->metrics_tried_ns >= METRICS_RETRY_NS)
		start_metrics(l);
	/* Only a changed state is written again. */
	if ((l->dirty && now - l->last_snapshot_ns >= SNAPSHOT_INTERVAL_NS) ||
	    l->st.journal_bytes >= SNAPSHOT_JOURNAL_MAX) {
		pthread_mutex_lock(&l->d.col.lock);
		if (ftd_state_snapshot(&l->st, &l->d.col) < 0)
			ftd_log_limited(&l->snapshot_log, now, LOG_WARNING,
					"%s", l->st.error);
		pthread_mutex_unlock(&l->d.col.lock);
		l->last_snapshot_ns = now;
		l->dirty = 0;
	}
	/* Sets changed behind our back (ftctl policy load), and fsyncs due. */
	ftd_audit_sets_tick(&l->sets, &l->audit, &l->mod, now);
	ftd_audit_tick(&l->audit, now);
	set_tick(l, l->tick_ms);
}

static void apply_policy_now(struct loop *l);

/*
 * Attach to the module loaded now, as at start: the handshake, the
 * running config, the event files and the policy. 0, or -1 (logged; the
 * next tick tries again) when the module is not ready for us.
 */
static int attach_module(struct loop *l)
{
	uint64_t now = ftd_clock_ns(CLOCK_MONOTONIC);
	int replaced, reloaded;
	char why[640];

	if (ftd_module_connect(&l->mod, why, sizeof(why)) != FTAGENTD_EXIT_OK)
		goto fail;
	if (ftd_module_apply(&l->mod, &l->d.cfg, &replaced, why, sizeof(why)) <
	    0)
		goto fail;
	if (open_events(l) < 0) {
		snprintf(why, sizeof(why), "%s", l->ev.error);
		ftd_events_close(&l->ev);
		goto fail;
	}
	reloaded = l->d.module_link == FTD_LINK_ABSENT ||
		   l->mod.ctl.family_id != l->released_family_id;
	pthread_mutex_lock(&l->d.col.lock);
	if (reloaded) {
		/* A new module numbers its generations from 1 again. */
		l->d.col.last_gen_seq = 0;
		l->d.col.generations = 0;
		l->d.module_reloads++;
	}
	l->d.module = l->mod.status;
	snprintf(l->d.module_missing, sizeof(l->d.module_missing), "%s",
		 ftd_module_missing(&l->mod));
	l->d.module_link = FTD_LINK_ATTACHED;
	l->d.module_attaches++;
	l->d.module_detached_ns += now - l->d.module_detached_since_ns;
	l->d.module_detached_since_ns = 0;
	pthread_mutex_unlock(&l->d.col.lock);
	apply_policy_now(l);
	ftd_log(LOG_INFO, "attached to the %s module %s (ABI %u.%u)",
		reloaded ? "reloaded" : "same", l->d.module.module_version,
		l->d.module.abi_major, l->d.module.abi_minor);
	ftd_notify("STATUS=running");
	return 0;
fail:
	ftd_log_limited(&l->counters_log, now, LOG_WARNING,
			"attaching to the module: %s", why);
	ftd_module_close(&l->mod);
	return -1;
}

/*
 * Detached: has the module gone, or has one been loaded? True once
 * attached again. The family's id tells a new load from the module we
 * released, however fast the reload was.
 */
static int watch_module(struct loop *l)
{
	struct ftnl_error err;
	struct ftnl probe;
	char msg[384];
	int loaded;

	loaded = ftnl_open(&probe, FTAGENT_GENL_CTL_NAME, &err) == 0;
	if (!loaded && !(err.err == ENOENT && !err.msg[0])) {
		ftd_log_limited(&l->counters_log, ftd_clock_ns(CLOCK_MONOTONIC),
				LOG_WARNING, "looking for the module: %s",
				ftnl_format_error(&err, msg, sizeof(msg)));
		return 0;
	}
	if (!loaded) {
		if (l->d.module_link == FTD_LINK_RELEASED) {
			l->d.module_link = FTD_LINK_ABSENT;
			ftd_log(LOG_INFO, "the module is unloaded; waiting for "
					  "it to be loaded again");
			ftd_notify("STATUS=waiting for the module");
		}
		return 0;
	}
	if (l->d.module_link == FTD_LINK_RELEASED &&
	    probe.family_id == l->released_family_id) {
		ftnl_close(&probe);
		return 0; /* ours, still loaded: wait (SIGUSR2 takes it back) */
	}
	ftnl_close(&probe);
	return attach_module(l) == 0;
}

/*
 * SIGUSR2: let the module go so that it can be unloaded; our event files
 * and our mount of its filesystem hold it. Everything it counted up to
 * now is drained and saved first; the API keeps answering from the
 * tables. A module loaded afterwards is attached on the next tick. A
 * second SIGUSR2 before the module is unloaded takes it back.
 */
static void release_module(struct loop *l)
{
	if (l->d.module_link != FTD_LINK_ATTACHED) {
		if (l->d.module_link == FTD_LINK_RELEASED)
			attach_module(l);
		return;
	}
	tick(l, 1);
	pthread_mutex_lock(&l->d.col.lock);
	if (ftd_state_snapshot(&l->st, &l->d.col) < 0)
		ftd_log(LOG_WARNING, "%s", l->st.error);
	pthread_mutex_unlock(&l->d.col.lock);
	ftd_events_close(&l->ev);
	if (l->mounted_fs && umount2(FTAGENT_FS_MOUNTPOINT, 0) < 0)
		ftd_log(LOG_WARNING,
			"umount %s: %s: the module stays held until it is "
			"unmounted",
			FTAGENT_FS_MOUNTPOINT, strerror(errno));
	l->mounted_fs = 0;
	l->released_family_id = l->mod.ctl.family_id;
	ftd_module_close(&l->mod);
	l->d.module_link = FTD_LINK_RELEASED;
	l->d.module_releases++;
	l->d.module_detached_since_ns = ftd_clock_ns(CLOCK_MONOTONIC);
	ftd_log(LOG_INFO, "released the module: it can be unloaded now; the "
			  "next one loaded is attached");
	ftd_notify("STATUS=module released");
}

/*
 * Before an API answer or a scrape: drain if the loop has backed off and
 * the last drain is older than flush_interval; sample the module's
 * resources and our own usage if that is older than a second.
 */
static void refresh(void *arg)
{
	struct loop *l = arg;
	uint64_t now = ftd_clock_ns(CLOCK_MONOTONIC);

	if (l->tick_ms > base_tick_ms(l) &&
	    now - l->last_drain_ns >= base_tick_ms(l) * 1000000ull)
		tick(l, 1);
	if (now - l->last_sample_ns >= SAMPLE_MAX_AGE_NS)
		sample(l, now);
}

/* A file that can't be opened is logged; events still reach the log. */
static void open_output(struct loop *l)
{
	if (ftd_event_output_reopen(&l->out, l->d.cfg.agent.event_output) < 0)
		ftd_log(LOG_ERR, "%s", l->out.error);
	l->out.types = l->d.cfg.agent.event_output_types;
	l->ev.output = ftd_event_output_on(&l->out) ? &l->out : NULL;
}

static void start_metrics(struct loop *l)
{
	struct epoll_event ev = {.events = EPOLLIN};
	char why[256];

	if (!l->d.cfg.metrics.listen[0])
		return;
	l->metrics_tried_ns = ftd_clock_ns(CLOCK_MONOTONIC);
	l->metrics = ftd_metrics_start(&l->d, l->d.cfg.metrics.listen, why,
				       sizeof(why));
	if (!l->metrics) {
		ftd_log(LOG_ERR, "metrics page: %s", why);
		return;
	}
	ev.data.u64 = TAG_METRICS;
	if (epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, ftd_metrics_fd(l->metrics),
		      &ev) < 0) {
		ftd_log(LOG_ERR, "metrics page: epoll: %s", strerror(errno));
		ftd_metrics_stop(l->metrics);
		l->metrics = NULL;
		return;
	}
	ftd_log(LOG_INFO, "metrics page on http://%s/metrics",
		l->d.cfg.metrics.listen);
}

static void stop_metrics(struct loop *l)
{
	if (!l->metrics)
		return;
	epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, ftd_metrics_fd(l->metrics), NULL);
	ftd_metrics_stop(l->metrics);
	l->metrics = NULL;
}

/*
 * Push the policy with its cgroup paths resolved as they are now (only
 * the sets that changed), say which rules wait for their cgroup, and
 * watch for the next change. At start, on reload, and when a watched
 * cgroup directory is made or removed.
 */
static void apply_policy_now(struct loop *l)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_CGROUPS};
	char missing[sizeof(l->d.policy_missing)], why[640];

	/*
	 * Watch first, then resolve: a cgroup made after this watch wakes
	 * us, one made before it is found by the resolution below. The
	 * other order loses a cgroup made between the two.
	 */
	if (ftd_cgroup_watch_set(&l->cgw, &l->d.cfg.policy) < 0)
		ftd_log(LOG_WARNING, "policy: watching cgroups: %s",
			strerror(errno));
	if (l->cgw.fd >= 0 &&
	    epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->cgw.fd, &ev) < 0)
		ftd_log(LOG_WARNING, "policy: epoll: %s", strerror(errno));

	if (l->d.module_link != FTD_LINK_ATTACHED)
		return; /* pushed when a module is attached */
	if (ftd_module_apply_policy(&l->mod, &l->d.cfg, missing,
				    sizeof(missing), why, sizeof(why)) < 0) {
		ftd_log(LOG_ERR, "policy: %s", why);
		missing[0] = '\0';
	}
	if (strcmp(missing, l->d.policy_missing)) {
		if (missing[0])
			ftd_log(LOG_WARNING,
				"left out until their cgroup exists: %s",
				missing);
		else
			ftd_log(LOG_INFO, "every cgroup the policy names "
					  "exists; all its rules are in force");
		snprintf(l->d.policy_missing, sizeof(l->d.policy_missing), "%s",
			 missing);
	}
	/* What is in force now, as the module reads it back, to the trail. */
	ftd_audit_sets_check(&l->sets, &l->audit, &l->mod,
			     l->started ? "ftagentd" : "start",
			     ftd_clock_ns(CLOCK_MONOTONIC));
}

/* The trail as [audit] says; a trail that can't be opened is logged. */
static void open_audit(struct loop *l)
{
	memset(&l->sets, 0, sizeof(l->sets));
	if (ftd_audit_open(&l->audit, &l->d.cfg) < 0)
		ftd_log(LOG_ERR, "%s", l->audit.error);
	else if (l->audit.damaged)
		ftd_log(LOG_WARNING,
			"audit: the trail's last line was damaged (a crash?); "
			"a \"damaged\" record names it");
	l->ev.audit = &l->audit;
}

/* SIGHUP: a bad file changes nothing and says why. */
static void reload(struct loop *l, const struct options *o)
{
	struct ftagentd_config cfg, old;
	char why[640];
	int replaced, limits_changed;

	ftd_notify("RELOADING=1");
	l->d.last_reload_realtime_ns =
		ftd_record_realtime_ns(ftd_clock_ns(CLOCK_MONOTONIC));
	l->d.last_reload_ok = 0;
	if (load_config(o, &cfg, why, sizeof(why)) < 0) {
		l->d.reload_errors++;
		snprintf(l->d.last_reload_error, sizeof(l->d.last_reload_error),
			 "%s", why);
		ftd_log(LOG_ERR, "reload refused, running config kept: %s",
			why);
		ftd_notify("READY=1\nSTATUS=reload refused; old config kept");
		return;
	}
	replaced = 0;
	if (l->d.module_link == FTD_LINK_ATTACHED &&
	    ftd_module_apply(&l->mod, &cfg, &replaced, why, sizeof(why)) < 0) {
		l->d.reload_errors++;
		snprintf(l->d.last_reload_error, sizeof(l->d.last_reload_error),
			 "module: %s", why);
		ftd_log(LOG_ERR, "reload refused by the module: %s", why);
		/* Put back what the module had before. */
		ftd_module_apply(&l->mod, &l->d.cfg, &replaced, why,
				 sizeof(why));
		ftagentd_config_free(&cfg);
		ftd_notify("READY=1\nSTATUS=reload refused; old config kept");
		return;
	}
	if (replaced) {
		ftd_events_close(&l->ev);
		open_events(l);
	}
	limits_changed =
		memcmp(&cfg.limits, &l->d.cfg.limits, sizeof(cfg.limits)) != 0;
	pthread_mutex_lock(&l->d.col.lock);
	old = l->d.cfg;
	l->d.cfg = cfg;
	ftd_eventlog_set_limit(&l->d.col.log, cfg.agent.event_log_size);
	l->d.col.attribute_transfers = cfg.agent.mode == FTAGENT_MODE_STANDARD;
	pthread_mutex_unlock(&l->d.col.lock);
	l->tick_ms = base_tick_ms(l);
	set_tick(l, l->tick_ms);
	if (memcmp(&old.audit, &cfg.audit, sizeof(cfg.audit))) {
		ftd_audit_close(&l->audit);
		open_audit(l);
	}
	apply_policy_now(l);
	/* Reopened even when unchanged: logrotate moved the file away. */
	ftd_event_output_close(&l->out);
	open_output(l);
	if (strcmp(old.metrics.listen, cfg.metrics.listen)) {
		stop_metrics(l);
		start_metrics(l);
	}
	ftagentd_config_free(&old);
	l->d.reloads++;
	l->d.last_reload_ok = 1;
	l->d.last_reload_error[0] = '\0';
	l->d.config_path = o->config_given || access(o->config, F_OK) == 0
				   ? o->config
				   : NULL;
	ftd_log(LOG_INFO, "config reloaded from %s%s", o->config,
		limits_changed ? "; new [limits] take effect at restart" : "");
	ftd_notify("READY=1\nSTATUS=running");
}

static int setup(struct loop *l, const struct options *o)
{
	struct epoll_event ev = {.events = EPOLLIN};
	char why[640];
	sigset_t mask;
	int rc, replaced;

	l->cgw.fd = -1;
	/* Before anything touches the module: one daemon at a time. */
	l->lock_fd = ftd_state_lock(o->state_dir, why, sizeof(why));
	if (l->lock_fd < 0) {
		ftd_log(LOG_ERR, "%s", why);
		return FTAGENTD_EXIT_BUSY;
	}
	if (ftd_api_socket_busy(o->socket)) {
		ftd_log(LOG_ERR,
			"API socket %s: another ftagentd listens on it",
			o->socket);
		return FTAGENTD_EXIT_BUSY;
	}
	rc = ftd_module_connect(&l->mod, why, sizeof(why));
	if (rc != FTAGENTD_EXIT_OK) {
		ftd_log(LOG_ERR, "%s", why);
		return rc;
	}
	l->d.module = l->mod.status;
	/* An older module of our major: run with what it has, say the rest. */
	snprintf(l->d.module_missing, sizeof(l->d.module_missing), "%s",
		 ftd_module_missing(&l->mod));
	if (l->d.module_missing[0])
		ftd_log(LOG_WARNING,
			"the module speaks ABI %u.%u, this ftagentd %s: "
			"running without %s%s",
			l->mod.status.abi_major, l->mod.status.abi_minor,
			FTAGENT_ABI_STRING, l->d.module_missing,
			l->d.cfg.policy.spec.n || l->d.cfg.policy.budgets.n
				? "; the config's rules and budgets are NOT in "
				  "force"
				: "");
	if (ftd_module_apply(&l->mod, &l->d.cfg, &replaced, why, sizeof(why)) <
	    0) {
		ftd_log(LOG_ERR, "the module refused the config: %s", why);
		return FTAGENTD_EXIT_CONFIG;
	}
	if (ftd_collector_init(&l->d.col, &l->d.cfg) < 0) {
		ftd_log(LOG_ERR, "tables: %s", strerror(errno));
		return FTAGENTD_EXIT_FAILED;
	}
	rc = ftd_state_open(&l->st, o->state_dir, &l->d.col);
	l->d.col.read_proc_names = 1; /* after the replay, not during it */
	l->d.state = &l->st;
	l->d.api = &l->api;
	l->d.output = &l->out;
	l->d.audit = &l->audit;
	if (rc < 0) {
		ftd_log(LOG_ERR, "state: %s", l->st.error);
		return FTAGENTD_EXIT_FAILED;
	}
	if (rc > 0)
		ftd_log(LOG_WARNING, "state: %s", l->st.error);
	if (l->st.replayed_generations || l->st.replayed_records)
		ftd_log(LOG_INFO,
			"restored: %llu generations, %llu records from the "
			"journal",
			(unsigned long long)l->st.replayed_generations,
			(unsigned long long)l->st.replayed_records);
	sample(l, ftd_clock_ns(CLOCK_MONOTONIC));
	if (l->d.have_res &&
	    l->d.res.table_capacity != l->d.cfg.limits.kernel_counters)
		ftd_log(LOG_WARNING,
			"the module holds %u counter keys per CPU; [limits] "
			"kernel_counters = %llu takes effect when the module "
			"is "
			"loaded with kernel_counters=%llu (modprobe.d)",
			l->d.res.table_capacity,
			(unsigned long long)l->d.cfg.limits.kernel_counters,
			(unsigned long long)l->d.cfg.limits.kernel_counters);
	/* A module loaded since the state was saved numbers from 1 again. */
	if (l->d.have_res && l->d.res.gen_seq < l->d.col.last_gen_seq) {
		ftd_log(LOG_INFO, "the module was reloaded since the last run");
		l->d.col.last_gen_seq = 0;
		l->d.col.generations = 0;
	}
	l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	l->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	l->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->epoll_fd < 0 || l->timer_fd < 0 || l->signal_fd < 0)
		return FTAGENTD_EXIT_FAILED;
	ev.data.u64 = TAG_TIMER;
	epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->timer_fd, &ev);
	ev.data.u64 = TAG_SIGNAL;
	epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->signal_fd, &ev);
	l->tick_ms = base_tick_ms(l);
	if (set_timer(l->timer_fd, l->tick_ms) < 0)
		return FTAGENTD_EXIT_FAILED;
	/* The unit's log directory, for the group: event file and trail. */
	if (ftd_give_logs_directory() < 0)
		ftd_log(LOG_WARNING, "%s: %s", getenv("LOGS_DIRECTORY"),
			strerror(errno));
	open_output(l);
	ftd_audit_init(&l->audit);
	open_audit(l);
	if (open_events(l) < 0)
		return FTAGENTD_EXIT_FAILED;
	if (ftd_api_open(&l->api, o->socket, l->epoll_fd, why, sizeof(why)) <
	    0) {
		ftd_log(LOG_ERR, "%s", why);
		return FTAGENTD_EXIT_FAILED;
	}
	start_metrics(l);
	apply_policy_now(l);
	/* Take what is waiting before saying we are ready. */
	l->merged = merged(&l->d.col);
	tick(l, 1);
	l->last_snapshot_ns = ftd_clock_ns(CLOCK_MONOTONIC);
	l->d.refresh = refresh;
	l->d.refresh_arg = l;
	l->started = 1;
	return FTAGENTD_EXIT_OK;
}

/*
 * SIGUSR1: reopen event_output and nothing else (log rotation): the
 * config is not read again, the module is not touched.
 */
static void reopen_output(struct loop *l)
{
	ftd_event_output_close(&l->out);
	open_output(l);
	l->d.reopens++;
	ftd_log(LOG_INFO, "event_output reopened");
}

static void on_signal(struct loop *l, const struct options *o)
{
	struct signalfd_siginfo si;

	while (read(l->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(l, o);
		else if (si.ssi_signo == SIGUSR2)
			release_module(l);
		else if (si.ssi_signo == SIGUSR1)
			reopen_output(l);
		else
			l->stop = 1;
	}
}

static void run(struct loop *l, const struct options *o)
{
	struct epoll_event evs[32];
	int n, i;

	while (!l->stop) {
		/* Only a metrics connection in progress has a deadline. */
		n = epoll_wait(l->epoll_fd, evs, 32,
			       l->metrics ? ftd_metrics_timeout_ms(l->metrics)
					  : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ftd_log(LOG_ERR, "epoll: %s", strerror(errno));
			return;
		}
		if (n == 0 && l->metrics)
			ftd_metrics_run(l->metrics);
		for (i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64, expirations;

			if (tag & FTD_API_TAG) {
				ftd_api_event(&l->api, tag, evs[i].events,
					      &l->d);
			} else if (tag == TAG_TIMER) {
				if (read(l->timer_fd, &expirations,
					 sizeof(expirations)) > 0)
					tick(l, 0);
			} else if (tag == TAG_SIGNAL) {
				on_signal(l, o);
			} else if ((tag & 0xff) == TAG_EVENTS) {
				/* A sub-buffer filled: don't wait for the tick. */
				if (ftd_drain_events(&l->ev, &l->d.col,
						     &l->st) < 0)
					ftd_log_limited(
						&l->events_log,
						ftd_clock_ns(CLOCK_MONOTONIC),
						LOG_WARNING, "%s", l->ev.error);
				note_merged(l);
				audit_between_ticks(l);
			} else if (tag == TAG_METRICS && l->metrics) {
				ftd_metrics_run(l->metrics);
			} else if (tag == TAG_CGROUPS) {
				if (ftd_cgroup_watch_drain(&l->cgw))
					apply_policy_now(l);
			}
		}
	}
}

static void shutdown_loop(struct loop *l)
{
	ftd_notify("STOPPING=1");
	/* Everything counted so far goes to the snapshot. */
	if (l->d.module_link == FTD_LINK_ATTACHED)
		tick(l, 1);
	if (ftd_state_snapshot(&l->st, &l->d.col) < 0)
		ftd_log(LOG_WARNING, "%s", l->st.error);
	stop_metrics(l);
	ftd_cgroup_watch_close(&l->cgw);
	ftd_api_close(&l->api);
	ftd_events_close(&l->ev);
	ftd_event_output_close(&l->out);
	ftd_audit_close(&l->audit);
	/* Our own mount: unmounting lets the module be unloaded. */
	if (l->mounted_fs && umount2(FTAGENT_FS_MOUNTPOINT, 0) < 0)
		ftd_log(LOG_WARNING, "umount %s: %s", FTAGENT_FS_MOUNTPOINT,
			strerror(errno));
	ftd_state_close(&l->st);
	ftd_module_close(&l->mod);
}

int main(int argc, char **argv)
{
	static struct loop l;
	struct options o = {0};
	char why[640];
	int rc;

	if (parse_options(argc, argv, &o) < 0)
		return FTAGENTD_EXIT_USAGE;
	if (load_config(&o, &l.d.cfg, why, sizeof(why)) < 0) {
		fprintf(stderr, "ftagentd: %s\n", why);
		return FTAGENTD_EXIT_CONFIG;
	}
	if (o.check_config) {
		printf("%s: ok\n", o.config);
		ftagentd_config_free(&l.d.cfg);
		return FTAGENTD_EXIT_OK;
	}
	/* A config path only when a file was read, not built-in defaults. */
	l.d.config_path =
		o.config_given || access(o.config, F_OK) == 0 ? o.config : NULL;
	/*
	 * No transparent huge pages: the tables grow a chunk at a time, and
	 * a 2 MiB page behind a few rows would make them resident whole.
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	l.d.self.start_realtime_ns =
		ftd_record_realtime_ns(ftd_clock_ns(CLOCK_MONOTONIC));
	rc = setup(&l, &o);
	if (rc != FTAGENTD_EXIT_OK) {
		ftd_notifyf("STATUS=failed to start\nERRNO=%d", rc);
		return rc;
	}
	ftd_notify("READY=1\nSTATUS=running");
	ftd_log(LOG_INFO, "running: module %s, ABI %u.%u, API on %s",
		l.d.module.module_version, l.d.module.abi_major,
		l.d.module.abi_minor, o.socket);
	run(&l, &o);
	shutdown_loop(&l);
	ftd_log(LOG_INFO, "stopped");
	return FTAGENTD_EXIT_OK;
}
