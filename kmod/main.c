// SPDX-License-Identifier: GPL-2.0
/*
 * ftagent: per-process file and network accounting through ftrace hooks.
 *
 * Module init is a ladder: each step that succeeds is undone by the label
 * below it if a later step fails, and module exit runs the same undo steps
 * in the same order, so every path leaves the kernel as it found it.
 * Counters and hooks come first, so that the netlink families never see a
 * half-built module; they go last for the same reason.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>

#include "callsites.h"
#include "config.h"
#include "eventfs.h"
#include "ftagent.h"
#include "xfer.h"

static int __init ftagent_init(void)
{
	int err;

	ftagent_xfer_init();
	/* The hooks' lookups, with one grace period for all (callsites.h). */
	ftagent_lookups_hold();
	err = ftagent_config_init();
	ftagent_lookups_release();
	if (err)
		goto err_out;

	err = ftagent_genl_stats_register();
	if (err)
		goto err_config;

	err = ftagent_genl_ctl_register();
	if (err)
		goto err_stats;

	/*
	 * Last: a mount holds the module, and a failed init would free the
	 * module under it.
	 */
	err = ftagent_eventfs_init();
	if (err)
		goto err_ctl;

	pr_info("version %s loaded (ABI %u.%u)\n", FTAGENT_MODULE_VERSION,
		FTAGENT_ABI_MAJOR, FTAGENT_ABI_MINOR);
	return 0;

err_ctl:
	ftagent_genl_ctl_unregister();
err_stats:
	ftagent_genl_stats_unregister();
err_config:
	ftagent_config_exit();
err_out:
	pr_err("load failed: %d\n", err);
	return err;
}

static void __exit ftagent_exit(void)
{
	/* Not mounted (a mount holds the module), so no files are open. */
	ftagent_eventfs_exit();
	ftagent_genl_ctl_unregister();
	ftagent_genl_stats_unregister();
	ftagent_config_exit();
	pr_info("unloaded\n");
}

module_init(ftagent_init);
module_exit(ftagent_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("ftagent developers");
MODULE_DESCRIPTION("Per-process file and network accounting via ftrace");
MODULE_VERSION(FTAGENT_MODULE_VERSION);
/*
 * No MODULE_ALIAS_GENL_FAMILY: genetlink would then load the module for
 * any user who merely looks the family up, and loading attaches the hooks
 * and takes their direct-call slots. Loading is the administrator's act
 * (modprobe, the systemd unit, dkms).
 */
