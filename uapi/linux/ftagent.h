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
#define FTAGENT_ABI_MINOR	2

#define FTAGENT_GENL_CTL_NAME		"ftagent_ctl"
#define FTAGENT_GENL_CTL_VERSION	1
#define FTAGENT_GENL_STATS_NAME		"ftagent_stats"
#define FTAGENT_GENL_STATS_VERSION	1

/* Longest module version string, including the terminating NUL. */
#define FTAGENT_VERSION_STR_MAX	32

/**
 * enum ftagent_state - what the module is doing
 * @FTAGENT_STATE_READY: families registered; no hook attached
 * @FTAGENT_STATE_TRACING: every hook of the mode attached and seen firing
 * @FTAGENT_STATE_DEGRADED: some hooks failed to attach (see the hook list)
 */
enum ftagent_state {
	FTAGENT_STATE_UNSPEC,
	FTAGENT_STATE_READY,
	FTAGENT_STATE_TRACING,
	FTAGENT_STATE_DEGRADED,

	__FTAGENT_STATE_MAX
};

/**
 * enum ftagent_mode - what is observed
 * @FTAGENT_MODE_MINIMAL: sockets only: network bytes and calls
 * @FTAGENT_MODE_STANDARD: also regular files, pipes and file-to-socket
 *	transfers
 */
enum ftagent_mode {
	FTAGENT_MODE_UNSPEC,
	FTAGENT_MODE_MINIMAL,
	FTAGENT_MODE_STANDARD,

	__FTAGENT_MODE_MAX
};

/**
 * enum ftagent_hook_set - how the system calls are hooked
 * @FTAGENT_HOOKS_FTRACE: ftrace_ops only: an entry hook on each traced
 *	syscall marks the task; the call is charged on its way back to user
 *	mode (docs/hooks.md)
 * @FTAGENT_HOOKS_KPROBE: kretprobes on the traced syscalls, for kernels
 *	where the ftrace set can't attach
 */
enum ftagent_hook_set {
	FTAGENT_HOOKS_UNSPEC,
	FTAGENT_HOOKS_FTRACE,
	FTAGENT_HOOKS_KPROBE,

	__FTAGENT_HOOKS_MAX
};

/**
 * enum ftagent_hook_state - one hook's state after the last attach
 * @FTAGENT_HOOK_DETACHED: not attached (not needed in this mode)
 * @FTAGENT_HOOK_ATTACHED: attached, not yet seen firing
 * @FTAGENT_HOOK_VERIFIED: attached and seen firing by the self-check
 * @FTAGENT_HOOK_FAILED: could not attach; FTAGENT_HOOK_A_ERROR says why
 */
enum ftagent_hook_state {
	FTAGENT_HOOK_DETACHED,
	FTAGENT_HOOK_ATTACHED,
	FTAGENT_HOOK_VERIFIED,
	FTAGENT_HOOK_FAILED,

	__FTAGENT_HOOK_STATE_MAX
};

/**
 * enum ftagent_obj_kind - what a counter's object is
 * @FTAGENT_OBJ_SOCKET: a socket; ino is the socket inode (as in ss -e)
 * @FTAGENT_OBJ_FILE: a regular file, by (dev, ino)
 * @FTAGENT_OBJ_PIPE: a pipe or FIFO, by its inode
 * @FTAGENT_OBJ_OTHER: anything else (devices, eventfd, ...), by (dev, ino)
 * @FTAGENT_OBJ_TRANSFER: bytes a call moved from a file (dev, ino) to a
 *	socket (peer_ino) in one call: sendfile, splice
 */
enum ftagent_obj_kind {
	FTAGENT_OBJ_UNSPEC,
	FTAGENT_OBJ_SOCKET,
	FTAGENT_OBJ_FILE,
	FTAGENT_OBJ_PIPE,
	FTAGENT_OBJ_OTHER,
	FTAGENT_OBJ_TRANSFER,

	__FTAGENT_OBJ_MAX
};

/**
 * enum ftagent_loss - why something was not counted
 * @FTAGENT_LOSS_COUNTER_TABLE: a new key found this CPU's table full
 * @FTAGENT_LOSS_RECURSION: a hook fired inside another hook on this CPU
 * @FTAGENT_LOSS_USER_READ: sendmmsg/recvmmsg byte counts could not be read
 *	back from the caller's msg_len fields; those bytes were not counted
 * @FTAGENT_LOSS_PENDING_TABLE: ftrace set: too many tasks were inside
 *	traced calls at once for the in-flight table; the call was not counted
 *
 * Calls a kretprobe missed (no free instance, or a probe already running)
 * are counted per hook: FTAGENT_HOOK_A_MISSED.
 */
enum ftagent_loss {
	FTAGENT_LOSS_COUNTER_TABLE,
	FTAGENT_LOSS_RECURSION,
	FTAGENT_LOSS_USER_READ,
	FTAGENT_LOSS_PENDING_TABLE,

	__FTAGENT_LOSS_MAX
};

/* Calls, bytes and errors in one direction. */
struct ftagent_dir_counts {
	__u64 bytes;	/* sum of the return values of successful calls */
	__u32 calls;	/* calls that returned, successful or not */
	__u32 errors;	/* calls that returned a negative errno */
};

/**
 * struct ftagent_counter - one counter of a generation, as dumped
 * @tgid: process (thread group) that made the calls
 * @kind: enum ftagent_obj_kind
 * @family: sockets: AF_INET, AF_INET6, AF_UNIX, ...; else 0
 * @protocol: sockets: IPPROTO_TCP, IPPROTO_UDP, ...; else 0
 * @dev: files, pipes, other, transfers: st_dev as stat(2) reports it
 * @cpu: the CPU whose table held this counter (a key can appear once
 *	per CPU; sum them)
 * @ino: sockets: socket inode; files, pipes, other: inode; transfers: the
 *	file's inode
 * @peer_ino: transfers: the destination socket's inode; else 0
 * @in: reads and receives (for transfers: unused)
 * @out: writes and sends (for transfers: the bytes moved)
 *
 * Sent as the binary payload of FTAGENT_STATS_A_COUNTER. A newer minor ABI
 * may append fields: read the first sizeof(struct ftagent_counter) bytes.
 */
struct ftagent_counter {
	__u32 tgid;
	__u16 kind;
	__u8 family;
	__u8 protocol;
	__u32 dev;
	__u32 cpu;
	__u64 ino;
	__u64 peer_ino;
	struct ftagent_dir_counts in;
	struct ftagent_dir_counts out;
};

/*
 * Control family commands. Every command requires CAP_NET_ADMIN in the
 * caller's user namespace and fails with EPERM otherwise.
 */
enum ftagent_ctl_cmd {
	FTAGENT_CTL_CMD_UNSPEC,

	/*
	 * GET_STATUS (do): no request attributes.
	 * Reply: ABI_MAJOR, ABI_MINOR, MODULE_VERSION, STATE, MODE, HOOKS,
	 * FLUSH_INTERVAL_MS.
	 */
	FTAGENT_CTL_CMD_GET_STATUS,

	/*
	 * SET_CONFIG (do): any of MODE, HOOKS, FLUSH_INTERVAL_MS. Hooks are
	 * re-attached without unloading when MODE or HOOKS change; counts
	 * already taken stay in their generation. All-or-nothing: a bad
	 * value changes nothing.
	 */
	FTAGENT_CTL_CMD_SET_CONFIG,

	/*
	 * FLUSH (do): no attributes. Swap the active counter generation for
	 * the idle one now. EBUSY while the idle generation has not been
	 * acknowledged (ACK_GENERATION), so no count is overwritten.
	 * Reply: GEN_SEQ of the generation that just became idle.
	 */
	FTAGENT_CTL_CMD_FLUSH,

	/*
	 * ACK_GENERATION (do): GEN_SEQ (required). The caller has consumed
	 * the idle generation GEN_SEQ; the module clears it so it can be
	 * swapped in again. ESTALE if GEN_SEQ is not the idle generation.
	 */
	FTAGENT_CTL_CMD_ACK_GENERATION,

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
	FTAGENT_CTL_A_MODE,		/* u32, enum ftagent_mode */
	FTAGENT_CTL_A_HOOKS,		/* u32, enum ftagent_hook_set */
	FTAGENT_CTL_A_FLUSH_INTERVAL_MS, /* u32, 0: only on FLUSH; max 60000 */
	FTAGENT_CTL_A_GEN_SEQ,		/* u64, a counter generation */
	FTAGENT_CTL_A_PAD,		/* padding for 64-bit attributes */

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

	/*
	 * GET_RESOURCES (do, CAP_NET_ADMIN): no request attributes.
	 * Reply: MODE, HOOKS, STATE, NR_CPUS, TABLE_CAPACITY, MEMORY_BYTES,
	 * FLUSH_COUNT, GEN_SEQ (idle generation), GEN_ACKED, one CPU nest per
	 * possible CPU and one HOOK nest per traced call.
	 */
	FTAGENT_STATS_CMD_GET_RESOURCES,

	/*
	 * DUMP_COUNTERS (dump, CAP_NET_ADMIN): no request attributes.
	 * Dumps the idle generation: every message carries GEN_SEQ; the
	 * first also one CPU nest per CPU with that generation's ENTRIES
	 * and LOST_* counts; then COUNTER attributes, many per message.
	 * NLM_F_DUMP_INTR is set if the generation changed mid-dump.
	 */
	FTAGENT_STATS_CMD_DUMP_COUNTERS,

	__FTAGENT_STATS_CMD_MAX
};

#define FTAGENT_STATS_CMD_MAX	(__FTAGENT_STATS_CMD_MAX - 1)

/* Statistics family attributes. */
enum ftagent_stats_attr {
	FTAGENT_STATS_A_UNSPEC,
	FTAGENT_STATS_A_ABI_MAJOR,	/* u32, reply: FTAGENT_ABI_MAJOR */
	FTAGENT_STATS_A_ABI_MINOR,	/* u32, reply: FTAGENT_ABI_MINOR */
	FTAGENT_STATS_A_MODULE_VERSION,	/* string, reply: module version */
	FTAGENT_STATS_A_MODE,		/* u32, enum ftagent_mode */
	FTAGENT_STATS_A_HOOKS,		/* u32, enum ftagent_hook_set */
	FTAGENT_STATS_A_STATE,		/* u32, enum ftagent_state */
	FTAGENT_STATS_A_NR_CPUS,	/* u32, possible CPUs */
	FTAGENT_STATS_A_TABLE_CAPACITY,	/* u32, keys per CPU per generation */
	FTAGENT_STATS_A_MEMORY_BYTES,	/* u64, memory the module holds */
	FTAGENT_STATS_A_FLUSH_COUNT,	/* u64, generation swaps so far */
	FTAGENT_STATS_A_GEN_SEQ,	/* u64, the idle generation */
	FTAGENT_STATS_A_GEN_ACKED,	/* u32, 1 if the idle one is acked */
	FTAGENT_STATS_A_CPU,		/* nest, enum ftagent_cpu_attr */
	FTAGENT_STATS_A_HOOK,		/* nest, enum ftagent_hook_attr */
	FTAGENT_STATS_A_COUNTER,	/* binary, struct ftagent_counter */
	FTAGENT_STATS_A_PAD,		/* padding for 64-bit attributes */

	__FTAGENT_STATS_A_MAX
};

#define FTAGENT_STATS_A_MAX	(__FTAGENT_STATS_A_MAX - 1)

/* Inside FTAGENT_STATS_A_CPU. */
enum ftagent_cpu_attr {
	FTAGENT_CPU_A_UNSPEC,
	FTAGENT_CPU_A_ID,		/* u32 */
	FTAGENT_CPU_A_FILL,		/* u32, keys in the active generation */
	FTAGENT_CPU_A_PEAK,		/* u32, most keys any generation held */
	FTAGENT_CPU_A_ENTRIES,		/* u32, dumps: keys in this generation */
	FTAGENT_CPU_A_LOST_COUNTER_TABLE, /* u64, FTAGENT_LOSS_COUNTER_TABLE */
	FTAGENT_CPU_A_LOST_RECURSION,	/* u64, FTAGENT_LOSS_RECURSION */
	FTAGENT_CPU_A_LOST_USER_READ,	/* u64, FTAGENT_LOSS_USER_READ */
	FTAGENT_CPU_A_LOST_PENDING_TABLE, /* u64, FTAGENT_LOSS_PENDING_TABLE */
	FTAGENT_CPU_A_PAD,

	__FTAGENT_CPU_A_MAX
};

#define FTAGENT_CPU_A_MAX	(__FTAGENT_CPU_A_MAX - 1)

/*
 * Inside FTAGENT_STATS_A_HOOK. Lost counts in a CPU nest are cumulative
 * since load in GET_RESOURCES, and for that generation in DUMP_COUNTERS.
 */
enum ftagent_hook_attr {
	FTAGENT_HOOK_A_UNSPEC,
	FTAGENT_HOOK_A_NAME,		/* string, the hooked kernel function */
	FTAGENT_HOOK_A_KIND,		/* u32, enum ftagent_hook_set */
	FTAGENT_HOOK_A_STATE,		/* u32, enum ftagent_hook_state */
	FTAGENT_HOOK_A_ERROR,		/* u32, errno when FAILED */
	FTAGENT_HOOK_A_HITS,		/* u64, calls seen since attach */
	FTAGENT_HOOK_A_MISSED,		/* u64, calls the hook could not see */
	FTAGENT_HOOK_A_PAD,

	__FTAGENT_HOOK_A_MAX
};

#define FTAGENT_HOOK_A_MAX	(__FTAGENT_HOOK_A_MAX - 1)

#endif /* _UAPI_LINUX_FTAGENT_H */
