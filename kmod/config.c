// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters and run-time configuration.
 *
 *   mode=minimal|standard     what is observed (default standard)
 *   hooks=ftrace|kprobe       how calls are hooked (default ftrace)
 *   strict=0|1                refuse to load if any hook fails or any kernel
 *                             internal is missing (default 0, see symbols.c)
 *   kernel_counters=N         counter keys per generation (default 16384)
 *   flush_interval_ms=N       generation swap period, 0 = on request only
 *   ring_buffer_size=N        event buffer bytes, all CPUs; 0 = by mode
 *                             (4 MiB standard, 1 MiB minimal)
 *
 * Per-CPU table capacity is min(N, max(256, 4 * N / possible CPUs)): a
 * CPU may hold up to four times its even share of keys, and the memory
 * held stays at 16 MB with the defaults from 4 to 256 CPUs (docs/memory.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "account.h"
#include "config.h"
#include "budget.h"
#include "counters.h"
#include "gate.h"
#include "policy.h"
#include "events.h"
#include "filters.h"
#include "hooks.h"
#include "aio.h"
#include "iouring.h"
#include "mmsg.h"
#include "kill.h"
#include "lifecycle.h"
#include "symbols.h"
#include "usersock.h"
#include "zerocopy.h"

static char *mode = "standard";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "what is observed: minimal or standard");

static char *hooks = "ftrace";
module_param(hooks, charp, 0444);
MODULE_PARM_DESC(hooks, "how calls are hooked: ftrace or kprobe");

static bool strict;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict,
		 "refuse to load when any hook fails to attach or any kernel function the module needs is missing");

static unsigned int kernel_counters = 16384;
module_param(kernel_counters, uint, 0444);
MODULE_PARM_DESC(kernel_counters, "counter keys per generation (16..1048576)");

static unsigned int flush_interval_ms = 250;
module_param(flush_interval_ms, uint, 0444);
MODULE_PARM_DESC(flush_interval_ms,
		 "counter generation swap period in ms, 0: on request only");

static unsigned int ring_buffer_size;
module_param(ring_buffer_size, uint, 0444);
MODULE_PARM_DESC(ring_buffer_size,
		 "event buffer bytes, all CPUs; 0: 4 MiB standard, 1 MiB minimal");

static DEFINE_MUTEX(ftagent_config_mutex);
static struct ftagent_config ftagent_cfg;

void ftagent_config_lock(void)
{
	mutex_lock(&ftagent_config_mutex);
}

void ftagent_config_unlock(void)
{
	mutex_unlock(&ftagent_config_mutex);
}

const struct ftagent_config *ftagent_config_get(void)
{
	lockdep_assert_held(&ftagent_config_mutex);
	return &ftagent_cfg;
}

static int ftagent_attach(const struct ftagent_config *cfg)
{
	ftagent_account_set_mode(cfg->mode);
	return ftagent_hooks_attach(cfg->mode, cfg->hooks, strict);
}

u32 ftagent_config_ring_bytes(const struct ftagent_config *cfg)
{
	return cfg->ring_buffer_size ?:
	       ftagent_events_default_size(cfg->mode);
}

int ftagent_config_apply(const struct ftagent_config *next,
			 struct netlink_ext_ack *extack)
{
	struct ftagent_config prev = ftagent_cfg;
	u32 ring = ftagent_config_ring_bytes(next);
	int err;

	lockdep_assert_held(&ftagent_config_mutex);
	if (next->hooks == FTAGENT_HOOKS_FTRACE &&
	    next->hooks != prev.hooks &&
	    ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET)) {
		NL_SET_ERR_MSG(extack,
			       "the ftrace hook set needs kernel functions this kernel lacks (see MISSING)");
		return -EOPNOTSUPP;
	}
	/* The one step that can fail for want of memory goes first. */
	if (ring != ftagent_config_ring_bytes(&prev)) {
		err = ftagent_events_resize(ring);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "no memory for that ring_buffer_size; previous size kept");
			return err;
		}
	}
	if (next->mode != prev.mode || next->hooks != prev.hooks) {
		err = ftagent_attach(next);
		if (err) {
			if (next->hooks == FTAGENT_HOOKS_FTRACE &&
			    ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET)) {
				NL_SET_ERR_MSG(extack,
					       "the ftrace hook set needs kernel functions this kernel lacks (see MISSING); previous configuration restored");
				err = -EOPNOTSUPP;
			} else {
				NL_SET_ERR_MSG(extack,
					       "hooks failed to attach; previous configuration restored");
			}
			if (ftagent_attach(&prev)) {
				/* GET_STATUS says DEGRADED, and which hooks. */
				NL_SET_ERR_MSG(extack,
					       "hooks failed to attach, and the previous ones could not all be put back (see GET_STATUS)");
				pr_err("cannot restore the previous hooks\n");
			}
			if (ring != ftagent_config_ring_bytes(&prev) &&
			    ftagent_events_resize(ftagent_config_ring_bytes(&prev)))
				pr_err("cannot restore the event buffer size\n");
			return err;
		}
	}
	if (next->flush_interval_ms != prev.flush_interval_ms)
		ftagent_counters_set_interval(next->flush_interval_ms);
	ftagent_cfg = *next;
	return 0;
}

static int __init ftagent_parse_params(struct ftagent_config *cfg)
{
	if (!strcmp(mode, "minimal")) {
		cfg->mode = FTAGENT_MODE_MINIMAL;
	} else if (!strcmp(mode, "standard")) {
		cfg->mode = FTAGENT_MODE_STANDARD;
	} else {
		pr_err("mode=%s: use minimal or standard\n", mode);
		return -EINVAL;
	}
	if (!strcmp(hooks, "ftrace")) {
		cfg->hooks = FTAGENT_HOOKS_FTRACE;
	} else if (!strcmp(hooks, "kprobe")) {
		cfg->hooks = FTAGENT_HOOKS_KPROBE;
	} else {
		pr_err("hooks=%s: use ftrace or kprobe\n", hooks);
		return -EINVAL;
	}
	if (kernel_counters < 16 || kernel_counters > 1048576) {
		pr_err("kernel_counters=%u: use 16..1048576\n",
		       kernel_counters);
		return -EINVAL;
	}
	if (flush_interval_ms > FTAGENT_FLUSH_INTERVAL_MAX_MS) {
		pr_err("flush_interval_ms=%u: at most %u\n", flush_interval_ms,
		       FTAGENT_FLUSH_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	cfg->flush_interval_ms = flush_interval_ms;
	if (ring_buffer_size && ftagent_events_size_invalid(ring_buffer_size)) {
		pr_err("ring_buffer_size=%u: %s\n", ring_buffer_size,
		       ftagent_events_size_invalid(ring_buffer_size));
		return -EINVAL;
	}
	cfg->ring_buffer_size = ring_buffer_size;
	return 0;
}

static unsigned int __init ftagent_table_capacity(void)
{
	unsigned int share = 4 * kernel_counters / num_possible_cpus();

	return min(kernel_counters, max(256U, share));
}

/*
 * Writers come after what they write to: counters, filters and the event
 * channel first, then the hooks and lifecycle points that feed them.
 */
int __init ftagent_config_init(void)
{
	struct ftagent_config cfg;
	int err;

	err = ftagent_parse_params(&cfg);
	if (err)
		return err;
	err = ftagent_symbols_init(strict);
	if (err)
		return err;
	if (cfg.hooks == FTAGENT_HOOKS_FTRACE &&
	    ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET)) {
		pr_warn("hooks=ftrace is not available on this kernel: using kprobe\n");
		cfg.hooks = FTAGENT_HOOKS_KPROBE;
	}
	err = ftagent_counters_init(ftagent_table_capacity());
	if (err)
		return err;
	err = ftagent_filters_init();
	if (err)
		goto err_counters;
	err = ftagent_events_init(ftagent_config_ring_bytes(&cfg));
	if (err)
		goto err_filters;
	err = ftagent_hooks_init();
	if (err)
		goto err_events;
	/* Before the hooks: a traced *mmsg call sees one scheme throughout. */
	err = ftagent_mmsg_init(strict);
	if (err)
		goto err_hooks;

	mutex_lock(&ftagent_config_mutex);
	err = ftagent_attach(&cfg);
	if (err && cfg.hooks == FTAGENT_HOOKS_FTRACE &&
	    ftagent_feature_off(FTAGENT_FEATURE_FTRACE_SET)) {
		/* A settle point is missing (said in the log): kprobe. */
		pr_warn("hooks=ftrace is not available on this kernel: using kprobe\n");
		cfg.hooks = FTAGENT_HOOKS_KPROBE;
		err = ftagent_attach(&cfg);
	}
	if (!err) {
		ftagent_cfg = cfg;
		ftagent_counters_set_interval(cfg.flush_interval_ms);
	}
	mutex_unlock(&ftagent_config_mutex);
	if (err)
		goto err_hooks;
	err = ftagent_lifecycle_init(strict);
	if (err)
		goto err_hooks;
	err = ftagent_usersock_init(ftagent_lifecycle_close_hooked(), strict);
	if (err)
		goto err_usersock;
	/* A failed init leaves filters and its table: exit frees them. */
	err = ftagent_iouring_init(strict);
	if (err)
		goto err_iouring;
	err = ftagent_aio_init(strict);
	if (err)
		goto err_aio;
	err = ftagent_zerocopy_init(strict);
	if (err)
		goto err_aio;
	err = ftagent_gate_init();
	if (err)
		goto err_zerocopy;
	/* strict=1: every feature is known before the load completes. */
	if (strict) {
		mutex_lock(&ftagent_config_mutex);
		err = ftagent_gate_interp_check();
		mutex_unlock(&ftagent_config_mutex);
		if (err) {
			pr_err("strict=1: refusing to load: exec rules on interpreters unavailable (%d)\n",
			       err);
			goto err_gate;
		}
	}
	/* Before the families are registered: nothing can set a budget yet. */
	err = ftagent_kill_init();
	if (err)
		goto err_gate;
	return 0;

err_gate:
	ftagent_gate_exit();
err_zerocopy:
	ftagent_zerocopy_exit();
err_aio:
	ftagent_aio_exit();
err_iouring:
	ftagent_iouring_exit();
err_usersock:
	ftagent_usersock_unhook();
	ftagent_lifecycle_exit();
	ftagent_usersock_exit();
err_hooks:
	ftagent_hooks_exit();
	ftagent_mmsg_exit();
err_events:
	ftagent_events_exit();
err_filters:
	ftagent_filters_exit();
err_counters:
	ftagent_counters_exit();
	ftagent_zerocopy_release();
	return err;
}

/* Writers first: once hooks and lifecycle points are gone, nothing writes. */
void ftagent_config_exit(void)
{
	/* The gate first: it refuses calls, and it writes verdict records. */
	mutex_lock(&ftagent_config_mutex);
	ftagent_budgets_exit();
	ftagent_policy_exit();
	mutex_unlock(&ftagent_config_mutex);
	ftagent_gate_exit();
	ftagent_zerocopy_exit();
	ftagent_aio_exit();
	ftagent_iouring_exit();
	ftagent_usersock_unhook();
	ftagent_lifecycle_exit();
	ftagent_usersock_exit();
	mutex_lock(&ftagent_config_mutex);
	ftagent_hooks_exit();
	mutex_unlock(&ftagent_config_mutex);
	ftagent_mmsg_exit();
	/* No hook left to queue one: the kills still pending are sent. */
	ftagent_kill_exit();
	ftagent_events_exit();
	ftagent_filters_exit();
	ftagent_counters_exit();
	ftagent_zerocopy_release();
}
