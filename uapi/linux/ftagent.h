/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ftagent: the contract between the ftagent kernel module and userspace.
 *
 * This header is the specification of the protocol. It is included by the
 * module (with -I) and by userspace (with -isystem), and must compile on its
 * own as C90 userspace code. Only fixed-width __u* types are used.
 *
 * Two generic netlink families are exported:
 *
 *   FTAGENT_GENL_CTL_NAME    control: status, configuration, rules.
 *                            Every command requires CAP_NET_ADMIN.
 *   FTAGENT_GENL_STATS_NAME  statistics: version (unprivileged), counters.
 *
 * Attributes are validated strictly: an unknown attribute, a wrong type or a
 * wrong length is rejected with EINVAL and an extended-ACK message.
 *
 * Compatibility: FTAGENT_ABI_MAJOR changes when an existing command,
 * attribute or record changes meaning; FTAGENT_ABI_MINOR when something is
 * only added. A client built against major M works with any module of major
 * M. uapi/ABI_VERSION holds the same two numbers and is checked by CI.
 */
#ifndef _UAPI_LINUX_FTAGENT_H
#define _UAPI_LINUX_FTAGENT_H

#include <linux/types.h>

#define FTAGENT_ABI_MAJOR	0
#define FTAGENT_ABI_MINOR	1

#define FTAGENT_GENL_CTL_NAME		"ftagent_ctl"
#define FTAGENT_GENL_CTL_VERSION	1
#define FTAGENT_GENL_STATS_NAME		"ftagent_stats"
#define FTAGENT_GENL_STATS_VERSION	1

/* Longest module version string, including the terminating NUL. */
#define FTAGENT_VERSION_STR_MAX	32

/**
 * enum ftagent_state - what the module is doing
 * @FTAGENT_STATE_READY: families registered; no hook attached yet
 */
enum ftagent_state {
	FTAGENT_STATE_UNSPEC,
	FTAGENT_STATE_READY,

	__FTAGENT_STATE_MAX
};

/*
 * Control family commands. Every command requires CAP_NET_ADMIN in the
 * caller's user namespace and fails with EPERM otherwise.
 */
enum ftagent_ctl_cmd {
	FTAGENT_CTL_CMD_UNSPEC,

	/*
	 * GET_STATUS (do): no request attributes.
	 * Reply: ABI_MAJOR, ABI_MINOR, MODULE_VERSION, STATE.
	 */
	FTAGENT_CTL_CMD_GET_STATUS,

	__FTAGENT_CTL_CMD_MAX
};

#define FTAGENT_CTL_CMD_MAX	(__FTAGENT_CTL_CMD_MAX - 1)

/* Control family attributes. */
enum ftagent_ctl_attr {
	FTAGENT_CTL_A_UNSPEC,
	FTAGENT_CTL_A_ABI_MAJOR,	/* u32, reply: FTAGENT_ABI_MAJOR */
	FTAGENT_CTL_A_ABI_MINOR,	/* u32, reply: FTAGENT_ABI_MINOR */
	FTAGENT_CTL_A_MODULE_VERSION,	/* string, reply: module version */
	FTAGENT_CTL_A_STATE,		/* u32, reply: enum ftagent_state */

	__FTAGENT_CTL_A_MAX
};

#define FTAGENT_CTL_A_MAX	(__FTAGENT_CTL_A_MAX - 1)

/* Statistics family commands. */
enum ftagent_stats_cmd {
	FTAGENT_STATS_CMD_UNSPEC,

	/*
	 * GET_VERSION (do): no request attributes; open to any user so that
	 * a client can check compatibility before asking for privileges.
	 * Reply: ABI_MAJOR, ABI_MINOR, MODULE_VERSION.
	 */
	FTAGENT_STATS_CMD_GET_VERSION,

	__FTAGENT_STATS_CMD_MAX
};

#define FTAGENT_STATS_CMD_MAX	(__FTAGENT_STATS_CMD_MAX - 1)

/* Statistics family attributes. */
enum ftagent_stats_attr {
	FTAGENT_STATS_A_UNSPEC,
	FTAGENT_STATS_A_ABI_MAJOR,	/* u32, reply: FTAGENT_ABI_MAJOR */
	FTAGENT_STATS_A_ABI_MINOR,	/* u32, reply: FTAGENT_ABI_MINOR */
	FTAGENT_STATS_A_MODULE_VERSION,	/* string, reply: module version */

	__FTAGENT_STATS_A_MAX
};

#define FTAGENT_STATS_A_MAX	(__FTAGENT_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_FTAGENT_H */
