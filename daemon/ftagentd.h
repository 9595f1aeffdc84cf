/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftagentd's state as a whole: what main.c owns and hands to the parts
 * (drain, API, metrics page). One thread does all the work, the API and
 * the metrics page included; collector.lock is still taken around changes
 * and readers, so a reader on another thread stays possible.
 */
#ifndef FTAGENTD_H
#define FTAGENTD_H

#include <stdint.h>

#include "../tools/lib/budgets.h"
#include "../tools/lib/counters.h"
#include "../tools/lib/policy.h"
#include "../tools/lib/status.h"
#include "collector.h"
#include "loss_window.h"
#include "../tools/lib/config.h"

#define FTAGENTD_SOCKET_PATH "/run/ftagent/ftagentd.sock"
#define FTAGENTD_STATE_DIR   "/run/ftagent"

/* The daemon's own use of the machine, sampled from /proc/self. */
struct ftd_self_usage {
	double cpu_seconds;	    /* user + system since start */
	double cpu_percent;	    /* over the last sample interval */
	uint64_t rss_bytes;	    /* resident memory */
	uint64_t vm_bytes;	    /* virtual size */
	unsigned int open_fds;	    /* entries in /proc/self/fd */
	uint64_t start_realtime_ns; /* when the daemon started */
};

struct ftd_state;
struct ftd_api;
struct ftd_event_output;
struct ftd_audit;

enum ftd_module_link {
	FTD_LINK_ATTACHED,
	FTD_LINK_RELEASED, /* let go; the module may still be loaded */
	FTD_LINK_ABSENT,   /* the module is unloaded */
};

const char *ftd_module_link_name(int link);

struct ftagentd {
	struct ftagentd_config cfg;
	const char *config_path;
	struct ftd_collector col;
	struct ftagent_status module; /* from the handshake */
	struct ftagent_resources res; /* the last GET_RESOURCES */
	int have_res;
	uint64_t res_realtime_ns; /* when res was taken */
	/* Loss totals once a minute, for the last hour's growth. */
	struct ftd_loss_window loss_window;
	struct ftd_self_usage self;
	/* Metric label sets not exported because of metric_series. */
	uint64_t metric_series_overflow;
	/* The state files and the API transport, for stats (NULL in tests). */
	const struct ftd_state *state;
	const struct ftd_api *api;
	const struct ftd_event_output *output; /* [agent] event_output */
	const struct ftd_audit *audit;	       /* [audit] */
	/*
	 * The rule set and budgets in force with the module's hit counts
	 * and usage, sampled with res (a module older than ABI 0.4 has
	 * none: have_policy 0).
	 */
	struct ftagent_policy_spec policy;
	struct ftagent_budget_set budgets;
	int have_policy;
	uint64_t reloads, reload_errors;
	/* The last reload (SIGHUP): when, and whether it was applied. */
	uint64_t last_reload_realtime_ns;
	int last_reload_ok;
	uint64_t reopens; /* SIGUSR1: event_output reopened */
	/*
	 * The link to the module. SIGUSR2 releases it (our event files and
	 * mount hold it loaded) so that it can be unloaded; the next module
	 * loaded is attached with the running config. Counted: releases,
	 * attaches after one, and the time spent detached, when nothing was
	 * drained (closed periods; the open one runs from detached_since).
	 */
	int module_link; /* enum ftd_module_link */
	uint64_t module_releases, module_attaches;
	uint64_t module_detached_ns, module_detached_since_ns;
	/* Attached to a module loaded after the release: its counts restart. */
	uint64_t module_reloads;
	/* Rules and budgets left out until their cgroup exists ("" none). */
	char policy_missing[512];
	/* Features the loaded module lacks (an older ABI minor); "" none. */
	char module_missing[128];
	char last_reload_error[768];
	/*
	 * Called before an API request or a scrape is answered (NULL in
	 * tests): the main loop drains the module if its figures may be
	 * stale and samples resources, so answers stay fresh while the loop
	 * itself sleeps long on an idle host.
	 */
	void (*refresh)(void *arg);
	void *refresh_arg;
};

/* Time spent detached from the module, the open period included. */
uint64_t ftd_module_detached_ns(const struct ftagentd *d);

#endif /* FTAGENTD_H */
