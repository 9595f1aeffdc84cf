// SPDX-License-Identifier: GPL-2.0
/*
 * Handshake and configuration push. The module validates every value
 * itself and says why it refuses one; this file only relays that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/budgets.h"
#include "../tools/lib/filters.h"
#include "../tools/lib/policy.h"
#include "log.h"
#include "module.h"

/* Big enough for a dump burst of a large generation without ENOBUFS. */
#define STATS_RCVBUF (4 << 20)

int ftd_module_connect(struct ftd_module *m, char *why, size_t why_len)
{
	struct ftnl_error err;
	char msg[384];
	int size = STATS_RCVBUF, rc, tries;

	memset(m, 0, sizeof(*m));
	if (ftagent_query_status(&m->status, &err) < 0) {
		if (err.err == ENOENT && !err.msg[0]) {
			snprintf(why, why_len,
				 "the ftagent module is not loaded "
				 "(modprobe ftagent)");
			return FTAGENTD_EXIT_NO_MODULE;
		}
		snprintf(why, why_len, "module status: %s",
			 ftnl_format_error(&err, msg, sizeof(msg)));
		return FTAGENTD_EXIT_FAILED;
	}
	if (!ftagent_abi_compatible(&m->status)) {
		snprintf(why, why_len,
			 "the loaded module speaks ABI %u.%u, this ftagentd "
			 "needs %s (module %s): install matching versions",
			 m->status.abi_major, m->status.abi_minor,
			 FTAGENT_ABI_STRING, m->status.module_version);
		return FTAGENTD_EXIT_ABI;
	}
	if (ftnl_open(&m->ctl, FTAGENT_GENL_CTL_NAME, &err) < 0 ||
	    ftnl_open(&m->stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
		snprintf(why, why_len, "netlink: %s",
			 ftnl_format_error(&err, msg, sizeof(msg)));
		return FTAGENTD_EXIT_FAILED;
	}
	/*
	 * ftagentd stays out of what it reports (its relay reads and journal
	 * writes would feed the counters it drains): by its control socket,
	 * which only it holds, for as long as it is open; not by a name.
	 */
	rc = ftagent_exclude_self(&m->ctl, &err);
	/* A socket of ours with the same port id is still being released. */
	for (tries = 0; rc < 0 && err.err == EAGAIN && tries < 50; tries++) {
		usleep(20000);
		rc = ftagent_exclude_self(&m->ctl, &err);
	}
	if (rc < 0 && err.err == EOPNOTSUPP) {
		/* A module of ABI 0.4: runs, and says what it goes without. */
		ftd_log(LOG_WARNING, "module without EXCLUDE_SELF: ftagentd's "
				     "own I/O is counted");
	} else if (rc < 0) {
		snprintf(why, why_len, "exclude self: %s",
			 ftnl_format_error(&err, msg, sizeof(msg)));
		return FTAGENTD_EXIT_FAILED;
	}
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN, which we have; else best effort. */
	if (setsockopt(mnl_socket_get_fd(m->stats.sock), SOL_SOCKET,
		       SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(mnl_socket_get_fd(m->stats.sock), SOL_SOCKET,
			   SO_RCVBUF, &size, sizeof(size));
	return FTAGENTD_EXIT_OK;
}

void ftd_module_close(struct ftd_module *m)
{
	if (m->ctl.sock)
		ftnl_close(&m->ctl);
	if (m->stats.sock)
		ftnl_close(&m->stats);
	m->ctl.sock = m->stats.sock = NULL;
}

static int add_names(struct ftagent_filter_list *l,
		     const struct ftagentd_list *from)
{
	size_t i;

	ftagent_filter_list_clear(l);
	for (i = 0; i < from->n; i++)
		if (ftagent_filter_list_add(l, from->item[i],
					    strlen(from->item[i])) < 0)
			return -1;
	return 0;
}

static int push_filters(struct ftd_module *m, const struct ftagentd_config *cfg,
			struct ftnl_error *err)
{
	struct ftagent_filters f;
	int rc = -1;

	ftagent_filters_init(&f);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_TCP,
				   (uint8_t)cfg->network.tcp);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_UDP,
				   (uint8_t)cfg->network.udp);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_IPV4,
				   (uint8_t)cfg->network.ipv4);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_IPV6,
				   (uint8_t)cfg->network.ipv6);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_FILE_TRACK_READ,
				   (uint8_t)cfg->file.track_read);
	ftagent_filters_set_toggle(&f, FTAGENT_FILTER_FILE_TRACK_SENDFILE,
				   (uint8_t)cfg->file.track_sendfile);
	/* ftagentd itself is out by EXCLUDE_SELF (ftd_module_connect). */
	if (add_names(&f.exclude_processes, &cfg->filters.exclude_processes) ||
	    add_names(&f.exclude_paths, &cfg->filters.exclude_paths))
		goto out;
	rc = ftagent_set_filters(&m->ctl, &f, err);
out:
	ftagent_filters_free(&f);
	return rc;
}

/* 1 unless the module's rule set reads back equal to @want. */
static int policy_differs(struct ftd_module *m,
			  const struct ftagent_policy_spec *want)
{
	struct ftagent_policy_spec now;
	struct ftnl_error err;
	int differs;

	ftagent_policy_spec_init(&now);
	differs = ftagent_get_policy(&m->ctl, &now, &err) < 0 ||
		  !ftagent_policy_spec_equal(&now, want);
	ftagent_policy_spec_free(&now);
	return differs;
}

static int budgets_differ(struct ftd_module *m,
			  const struct ftagent_budget_set *want)
{
	struct ftagent_budget_set now = {0};
	struct ftnl_error err;
	int differs;

	differs = ftagent_get_budgets(&m->ctl, &now, &err) < 0 ||
		  !ftagent_budget_set_equal(&now, want);
	ftagent_budget_set_free(&now);
	return differs;
}

const char *ftd_module_missing(const struct ftd_module *m)
{
	if (m->status.abi_minor < FTD_MINOR_POLICY)
		return "the policy gate and budgets (ABI 0.4)";
	return "";
}

int ftd_module_apply_policy(struct ftd_module *m,
			    const struct ftagentd_config *cfg, char *missing,
			    size_t missing_len, char *why, size_t why_len)
{
	struct ftagent_policy_spec spec;
	struct ftagent_budget_set budgets;
	struct ftnl_error err;
	uint64_t generation;
	char msg[384];
	int rc = -1;

	if (m->status.abi_minor < FTD_MINOR_POLICY) {
		if (missing_len)
			missing[0] = '\0';
		return 0; /* nothing to push to: said at start */
	}
	if (ftd_policy_resolve(&cfg->policy, &spec, &budgets, missing,
			       missing_len) < 0) {
		snprintf(why, why_len, "policy: out of memory");
		return -1;
	}
	/*
	 * A set is pushed (whole: the module swaps it atomically) only when
	 * it differs from the one in force, which a push would reset: rule
	 * hits, budget usage and windows. So a reload that does not touch
	 * them, and a daemon restart, leave them running.
	 */
	if (policy_differs(m, &spec) &&
	    ftagent_set_policy(&m->ctl, &spec, &generation, &err) < 0) {
		snprintf(why, why_len, "policy: %s",
			 ftnl_format_error(&err, msg, sizeof(msg)));
		goto out;
	}
	if (budgets_differ(m, &budgets) &&
	    ftagent_set_budgets(&m->ctl, &budgets, &generation, &err) < 0) {
		snprintf(why, why_len, "budgets: %s",
			 ftnl_format_error(&err, msg, sizeof(msg)));
		goto out;
	}
	rc = 0;
out:
	ftagent_policy_spec_free(&spec);
	ftagent_budget_set_free(&budgets);
	return rc;
}

int ftd_module_apply(struct ftd_module *m, const struct ftagentd_config *cfg,
		     int *channel_replaced, char *why, size_t why_len)
{
	struct ftagent_config kc = {0};
	struct ftagent_resources res = {0};
	struct ftnl_error err;
	char msg[384], missing[16];

	*channel_replaced = 0;
	if (ftagent_get_resources(&m->stats, &res, &err) < 0)
		goto fail;
	if (res.mode != cfg->agent.mode) {
		kc.set |= FTAGENT_CONFIG_HAVE_MODE;
		kc.mode = cfg->agent.mode;
	}
	if (res.hooks != cfg->agent.hooks) {
		kc.set |= FTAGENT_CONFIG_HAVE_HOOKS;
		kc.hooks = cfg->agent.hooks;
	}
	if (cfg->agent.ring_buffer_size &&
	    res.ring_buffer_size != cfg->agent.ring_buffer_size) {
		kc.set |= FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE;
		kc.ring_buffer_size = (uint32_t)cfg->agent.ring_buffer_size;
	}
	/* The module's timer flushes too; ftagentd also asks each tick. */
	kc.set |= FTAGENT_CONFIG_HAVE_FLUSH_INTERVAL;
	kc.flush_interval_ms = (uint32_t)cfg->agent.flush_interval_ms;
	ftagent_resources_free(&res);
	if (ftagent_set_config(&m->ctl, &kc, &err) < 0)
		goto fail;
	*channel_replaced = !!(kc.set & FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE);
	if (push_filters(m, cfg, &err) < 0)
		goto fail;
	return ftd_module_apply_policy(m, cfg, missing, sizeof(missing), why,
				       why_len);
fail:
	ftagent_resources_free(&res);
	snprintf(why, why_len, "%s", ftnl_format_error(&err, msg, sizeof(msg)));
	return -1;
}
