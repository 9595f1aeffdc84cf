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
 *                            Every command requires CAP_SYS_ADMIN.
 *   FTAGENT_GENL_STATS_NAME  statistics: version (unprivileged), counters
 *                            (CAP_SYS_ADMIN).
 *
 * Privilege: CAP_SYS_ADMIN means CAP_SYS_ADMIN in the initial user
 * namespace, held both by the task that opened the netlink socket and by
 * the task sending the request; without it a command fails with EPERM
 * and an extended-ACK message, and changes nothing. CAP_NET_ADMIN alone
 * is not enough (network daemons and host-network containers hold it),
 * nor is root inside a user namespace. Joining FTAGENT_GENL_ALERTS_GROUP
 * and opening the event files (FTAGENT_FS_TYPE) take CAP_SYS_ADMIN
 * as well. The module is never loaded by a family lookup (no module
 * alias): loading it is the administrator's act.
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

#include <linux/ioctl.h>
#include <linux/types.h>

#define FTAGENT_ABI_MAJOR	0
#define FTAGENT_ABI_MINOR	9

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
 * @FTAGENT_LOSS_IOURING: an io_uring request that moved bytes completed
 *	where the module cannot see it on this kernel (docs/hooks.md,
 *	"io_uring"); its bytes were not counted or charged (since ABI 0.6).
 *	Since ABI 0.8 also a Linux AIO read or write whose submitter was
 *	not known when it completed (docs/hooks.md, "Linux AIO")
 *
 * Calls a kretprobe missed (no free instance, or a probe already running)
 * are counted per hook: FTAGENT_HOOK_A_MISSED.
 */
enum ftagent_loss {
	FTAGENT_LOSS_COUNTER_TABLE,
	FTAGENT_LOSS_RECURSION,
	FTAGENT_LOSS_USER_READ,
	FTAGENT_LOSS_PENDING_TABLE,
	FTAGENT_LOSS_IOURING,

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
 * @protocol: sockets: IPPROTO_TCP, IPPROTO_UDP, ... when it fits in 8
 *	bits; IPPROTO_MPTCP (262) as IPPROTO_TCP, as ABI 0.5 had it; else
 *	0: read @protocol_full
 * @dev: files, pipes, other, transfers: st_dev as stat(2) reports it
 * @cpu: the CPU whose table held this counter (a key can appear once
 *	per CPU; sum them)
 * @ino: sockets: socket inode; files, pipes, other: inode; transfers: the
 *	file's inode
 * @peer_ino: transfers: the destination socket's inode; else 0
 * @in: reads and receives (for transfers: unused)
 * @out: writes and sends (for transfers: the bytes moved)
 * @protocol_full: sockets: the protocol whole (IPPROTO_MPTCP is 262, not
 *	6); else 0. Since ABI 0.6: a module of 0.5 or older sends the
 *	struct without it and the members after (64 bytes)
 * @reserved: 0
 * @reserved2: 0
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
	__u16 protocol_full;
	__u16 reserved;
	__u32 reserved2;
};

/* The size of struct ftagent_counter up to ABI 0.5. */
#define FTAGENT_COUNTER_SIZE_V5	64

/*
 * Control family commands. Every command requires CAP_SYS_ADMIN in the
 * initial user namespace (see the top of this file) and fails with EPERM
 * otherwise.
 */
enum ftagent_ctl_cmd {
	FTAGENT_CTL_CMD_UNSPEC,

	/*
	 * GET_STATUS (do): no request attributes.
	 * Reply: ABI_MAJOR, ABI_MINOR, MODULE_VERSION, STATE, MODE, HOOKS,
	 * FLUSH_INTERVAL_MS; since 0.5: DEGRADED, MISSING (only when some
	 * kernel function the module looks up by name is missing) and
	 * DIRECT_CALLS; since 0.7: EXIT_WORK.
	 */
	FTAGENT_CTL_CMD_GET_STATUS,

	/*
	 * SET_CONFIG (do): any of MODE, HOOKS, FLUSH_INTERVAL_MS,
	 * RING_BUFFER_SIZE (a new size replaces the event channel). Hooks are
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

	/*
	 * SET_FILTERS (do): any of NET_TCP, NET_UDP, NET_IPV4, NET_IPV6,
	 * FILE_TRACK_READ, FILE_TRACK_SENDFILE (u8 0/1) and the nests
	 * EXCLUDE_PROCESSES and EXCLUDE_PATHS, each of which replaces its
	 * whole list (an empty nest clears it). All-or-nothing: one bad
	 * entry rejects the request and the filters in force stay.
	 */
	FTAGENT_CTL_CMD_SET_FILTERS,

	/* GET_FILTERS (do): reply: every attribute SET_FILTERS takes. */
	FTAGENT_CTL_CMD_GET_FILTERS,

	/*
	 * ALERT (multicast on FTAGENT_GENL_ALERTS_GROUP, never a request):
	 * ALERT_KIND says what; loss alerts carry EV_LOST (nest of
	 * enum ftagent_event_loss counts since the previous alert) and
	 * EV_LOST_TOTAL, at most one per FTAGENT_ALERT_INTERVAL_MS.
	 */
	FTAGENT_CTL_CMD_ALERT,

	/*
	 * SET_POLICY (do): the whole policy rule set, replacing the one in
	 * force. POLICY_ENFORCE (u8, default 1; 0: monitor mode, nothing is
	 * refused, would-be denials are reported), POLICY_DEFAULT (u32, enum
	 * ftagent_action, default allow) and any number of POLICY_RULE nests,
	 * in order: the first rule that matches decides. At most
	 * FTAGENT_POLICY_RULES_MAX rules. All-or-nothing: one bad rule
	 * rejects the request with EINVAL and a message naming the rule, and
	 * the set in force stays. No rules and the default allow: no gate.
	 * The request may exceed the default socket buffer: raise SO_SNDBUF.
	 * Reply: POLICY_GENERATION of the set now in force.
	 */
	FTAGENT_CTL_CMD_SET_POLICY,

	/*
	 * GET_POLICY (dump): the set in force. The first message carries
	 * POLICY_GENERATION, POLICY_ENFORCE, POLICY_DEFAULT and
	 * POLICY_DEFAULT_HITS; then one message per rule with a POLICY_RULE
	 * nest holding its attributes and RULE_HITS.
	 */
	FTAGENT_CTL_CMD_GET_POLICY,

	/*
	 * SET_BUDGETS (do): the whole budget set, replacing the one in force:
	 * any number of BUDGET nests (at most FTAGENT_BUDGETS_MAX). All or
	 * nothing, like SET_POLICY; usage starts again from zero.
	 * Reply: POLICY_GENERATION of the budget set now in force.
	 */
	FTAGENT_CTL_CMD_SET_BUDGETS,

	/*
	 * GET_BUDGETS (dump): one message per budget, a BUDGET nest with its
	 * attributes and BUDGET_A_USED, WINDOW_LEFT_MS, DENIED, ALERTS.
	 */
	FTAGENT_CTL_CMD_GET_BUDGETS,

	/*
	 * EXCLUDE_SELF (do, since 0.5): no attributes. The caller's own
	 * process (its thread group) and its descendants give no counters
	 * and no events for as long as the netlink socket that sent this
	 * stays open; its release ends the exclusion. Meant for the daemon,
	 * whose own reads of the event files and netlink traffic are not
	 * worth reporting. Repeating it on the same socket is a no-op; EBUSY
	 * if another process registered that socket, ENOSPC when
	 * FTAGENT_EXCLUDE_SELF_MAX sockets hold one. Budgets still apply.
	 */
	FTAGENT_CTL_CMD_EXCLUDE_SELF,

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
	FTAGENT_CTL_A_RING_BUFFER_SIZE,	/* u32, event bytes, all CPUs; 0: mode default */
	FTAGENT_CTL_A_NET_TCP,		/* u8, 0/1: TCP sockets tracked */
	FTAGENT_CTL_A_NET_UDP,		/* u8, 0/1: UDP sockets tracked */
	FTAGENT_CTL_A_NET_IPV4,		/* u8, 0/1: AF_INET sockets tracked */
	FTAGENT_CTL_A_NET_IPV6,		/* u8, 0/1: AF_INET6 sockets tracked */
	FTAGENT_CTL_A_FILE_TRACK_READ,	/* u8, 0/1: file reads counted */
	FTAGENT_CTL_A_FILE_TRACK_SENDFILE, /* u8, 0/1: sendfile/splice counted */
	FTAGENT_CTL_A_EXCLUDE_PROCESSES, /* nest of FTAGENT_CTL_A_NAME */
	FTAGENT_CTL_A_EXCLUDE_PATHS,	/* nest of FTAGENT_CTL_A_NAME */
	FTAGENT_CTL_A_NAME,		/* string: a comm or a path prefix */
	FTAGENT_CTL_A_ALERT_KIND,	/* u32, enum ftagent_alert_kind */
	FTAGENT_CTL_A_EV_LOST,		/* nest of u64, by enum ftagent_event_loss + 1 */
	FTAGENT_CTL_A_EV_LOST_TOTAL,	/* u64, event records lost since load */
	FTAGENT_CTL_A_POLICY_ENFORCE,	/* u8, 0/1: refuse what a rule denies */
	FTAGENT_CTL_A_POLICY_DEFAULT,	/* u32, enum ftagent_action */
	FTAGENT_CTL_A_POLICY_RULE,	/* nest of enum ftagent_rule_attr */
	FTAGENT_CTL_A_POLICY_GENERATION, /* u64, +1 per set accepted */
	FTAGENT_CTL_A_POLICY_DEFAULT_HITS, /* u64, calls the default decided */
	FTAGENT_CTL_A_VERDICTS,		/* nest of u64 by enum ftagent_verdict + 1 */
	FTAGENT_CTL_A_BUDGET,		/* nest of enum ftagent_budget_attr */
	FTAGENT_CTL_A_DEGRADED,		/* u32, reply: enum ftagent_feature bits off */
	/* nest of FTAGENT_CTL_A_NAME, reply: internals not found at load */
	FTAGENT_CTL_A_MISSING,
	FTAGENT_CTL_A_DIRECT_CALLS,	/* u8, reply: 1: ftrace set on direct calls */
	/* u8, reply (0.7): 1: the ftrace set sees returns in the exit work */
	FTAGENT_CTL_A_EXIT_WORK,
	/*
	 * u64, reply (0.9): accepts on a kernel socket that a user's file
	 * holds (AF_SMC after its fallback) refused with ENOBUFS because
	 * every mark of the module's accept_marks pool was in use. Since
	 * load.
	 */
	FTAGENT_CTL_A_ACCEPTS_REFUSED,

	__FTAGENT_CTL_A_MAX
};

#define FTAGENT_CTL_A_MAX	(__FTAGENT_CTL_A_MAX - 1)

/* The control family's multicast group for alerts. */
#define FTAGENT_GENL_ALERTS_GROUP	"alerts"
#define FTAGENT_ALERT_INTERVAL_MS	1000

/**
 * enum ftagent_feature - what the module gives up when a kernel function
 * or tracepoint it finds by name at load is missing on the running kernel
 * (GET_STATUS DEGRADED is a bit mask of these; MISSING names the
 * functions). The load goes on without the feature unless strict=1.
 * @FTAGENT_FEATURE_FTRACE_SET: the ftrace hook set (its return points
 *	arch_do_signal_or_restart, blkcg_maybe_throttle_current or the
 *	sched_process_exit tracepoint); hooks=ftrace falls back to kprobe
 * @FTAGENT_FEATURE_EXIT_RECORDS: process EXIT records (acct_process)
 * @FTAGENT_FEATURE_CLOSE_RECORDS: socket CLOSE records (sock_close)
 * @FTAGENT_FEATURE_FORK_RECORDS: FORK records (sched_process_fork)
 * @FTAGENT_FEATURE_EXEC_RECORDS: EXEC records (sched_process_exec)
 * @FTAGENT_FEATURE_RENAMES: names after a rename (task_rename)
 * @FTAGENT_FEATURE_GATE_EXEC: exec rules and budgets
 *	(security_bprm_creds_for_exec)
 * @FTAGENT_FEATURE_GATE_CONNECT: connect rules and budgets
 *	(security_socket_connect)
 * @FTAGENT_FEATURE_GATE_OPEN: open rules and budgets (security_file_open)
 * @FTAGENT_FEATURE_GATE_SEND: send rules, bytes_sent budgets
 *	(security_socket_sendmsg)
 * @FTAGENT_FEATURE_GATE_BIND: bind rules (security_socket_bind)
 * @FTAGENT_FEATURE_GATE_RECV: bytes_received budgets on receives
 *	(security_socket_recvmsg)
 * @FTAGENT_FEATURE_GATE_RW: byte budgets on read and write
 *	(security_file_permission)
 * @FTAGENT_FEATURE_GATE_SENDPAGE: send rules and budgets on sendfile and
 *	splice to a socket, on kernels where those bypass
 *	security_socket_sendmsg (kernel_sendpage, up to 6.4)
 * @FTAGENT_FEATURE_GATE_SCTP: connect and bind rules on SCTP's connectx,
 *	bindx and implicit connects (security_sctp_bind_connect; since
 *	ABI 0.6)
 * @FTAGENT_FEATURE_IOURING: counting and charging of io_uring requests
 *	(io_req_complete_post and io_free_batch_list on kernels that keep
 *	them out of line, as 6.1; else the io_uring_complete and
 *	io_uring_submit_req tracepoints and io_req_cqe_overflow; since
 *	ABI 0.6). Without it io_uring I/O is gated but not counted
 * @FTAGENT_FEATURE_MMSG_LENGTHS: sendmmsg, recvmmsg, recvfrom and
 *	recvmsg bytes taken from the kernel as they move (kprobes on the
 *	calls __sys_sendmmsg makes for each message, and on the calls
 *	__sys_recvfrom and ____sys_recvmsg make to sock_recvmsg where there
 *	is no sock_recv_length tracepoint; since ABI 0.6). Without it the
 *	*mmsg lengths are read back from the caller's msg_len fields at
 *	return, which a sibling thread can rewrite, and a receive that
 *	fails after its data arrived (EFAULT) is charged no bytes
 * @FTAGENT_FEATURE_AIO: counting and charging of Linux AIO reads and
 *	writes (io_submit; aio_prep_rw and aio_complete_rw; since ABI 0.8).
 *	Without it AIO I/O is gated but not counted
 * @FTAGENT_FEATURE_GATE_ACCEPT: send rules and budgets on connections
 *	accepted on a kernel socket that a user's file holds, AF_SMC's
 *	after its fallback (security_socket_accept, and sock_close; since
 *	ABI 0.9). Without it the gate takes them for the kernel's work
 *
 * A rule or budget set that needs a gate feature that is off is refused
 * (EOPNOTSUPP with a message), except GATE_SENDPAGE, GATE_SCTP and
 * GATE_ACCEPT: then send rules hold for every send but sendfile and
 * splice, connect and bind rules for every call but SCTP's own, and
 * rules and budgets for every socket but AF_SMC's accepted fallback
 * connections, which DEGRADED says.
 */
enum ftagent_feature {
	FTAGENT_FEATURE_FTRACE_SET,
	FTAGENT_FEATURE_EXIT_RECORDS,
	FTAGENT_FEATURE_CLOSE_RECORDS,
	FTAGENT_FEATURE_FORK_RECORDS,
	FTAGENT_FEATURE_EXEC_RECORDS,
	FTAGENT_FEATURE_RENAMES,
	FTAGENT_FEATURE_GATE_EXEC,
	FTAGENT_FEATURE_GATE_CONNECT,
	FTAGENT_FEATURE_GATE_OPEN,
	FTAGENT_FEATURE_GATE_SEND,
	FTAGENT_FEATURE_GATE_BIND,
	FTAGENT_FEATURE_GATE_RECV,
	FTAGENT_FEATURE_GATE_RW,
	FTAGENT_FEATURE_GATE_SENDPAGE,
	FTAGENT_FEATURE_GATE_SCTP,
	FTAGENT_FEATURE_IOURING,
	FTAGENT_FEATURE_MMSG_LENGTHS,
	FTAGENT_FEATURE_AIO,
	FTAGENT_FEATURE_GATE_ACCEPT,

	__FTAGENT_FEATURE_MAX
};

/**
 * enum ftagent_op - what the policy gate decides on, and where
 * @FTAGENT_OP_EXEC: an execve/execveat, once the executable is open
 *	(security_bprm_creds_for_exec); object: the executable's path
 * @FTAGENT_OP_CONNECT: connect (security_socket_connect); object: the
 *	address and port connected to
 * @FTAGENT_OP_OPEN: opening a file (security_file_open); object: its path
 * @FTAGENT_OP_SEND: send, sendto, sendmsg, write on a socket
 *	(security_socket_sendmsg); object: the destination, given or connected
 * @FTAGENT_OP_BIND: bind (security_socket_bind); object: the local address
 *
 * The gate sits where the kernel has its own copy of the arguments, so a
 * rule judges what the call will use, and io_uring's calls are gated too.
 */
enum ftagent_op {
	FTAGENT_OP_EXEC,
	FTAGENT_OP_CONNECT,
	FTAGENT_OP_OPEN,
	FTAGENT_OP_SEND,
	FTAGENT_OP_BIND,

	__FTAGENT_OP_MAX
};

/**
 * enum ftagent_action - what a rule does with a call it matches
 * @FTAGENT_ACTION_ALLOW: let it run, say nothing
 * @FTAGENT_ACTION_DENY: refuse it with EPERM (in monitor mode: let it run
 *	and report that it would have been refused); a verdict record
 * @FTAGENT_ACTION_AUDIT: let it run; a verdict record
 */
enum ftagent_action {
	FTAGENT_ACTION_ALLOW,
	FTAGENT_ACTION_DENY,
	FTAGENT_ACTION_AUDIT,

	__FTAGENT_ACTION_MAX
};

/**
 * enum ftagent_verdict - what happened to a call a verdict is about
 * @FTAGENT_VERDICT_DENIED: refused with EPERM
 * @FTAGENT_VERDICT_WOULD_DENY: a deny rule matched in monitor mode
 * @FTAGENT_VERDICT_AUDITED: an audit rule matched; the call ran
 * @FTAGENT_VERDICT_OVER_BUDGET: a budget was used up: refused with EDQUOT
 *	(repeats: the new program was killed before it ran)
 * @FTAGENT_VERDICT_BUDGET_ALERT: a budget's usage reached its alert mark,
 *	or its limit when it does not enforce; the call ran
 * @FTAGENT_VERDICT_KILLED: a budget that kills sent SIGKILL to the caller
 */
enum ftagent_verdict {
	FTAGENT_VERDICT_DENIED,
	FTAGENT_VERDICT_WOULD_DENY,
	FTAGENT_VERDICT_AUDITED,
	FTAGENT_VERDICT_OVER_BUDGET,
	FTAGENT_VERDICT_BUDGET_ALERT,
	FTAGENT_VERDICT_KILLED,

	__FTAGENT_VERDICT_MAX
};

/*
 * One policy rule (FTAGENT_CTL_A_POLICY_RULE nest). A rule matches a call
 * when its operation is in OPS and every principal and object attribute
 * present matches; an absent attribute matches anything. Object
 * attributes must suit every operation in OPS: paths for exec and open,
 * ports and addresses for connect, send and bind.
 */
enum ftagent_rule_attr {
	FTAGENT_RULE_A_UNSPEC,
	FTAGENT_RULE_A_NAME,		/* string, required, for messages and records */
	FTAGENT_RULE_A_OPS,		/* u32, bits (1 << enum ftagent_op), required */
	FTAGENT_RULE_A_ACTION,		/* u32, enum ftagent_action, required */
	FTAGENT_RULE_A_UID,		/* u32, real uid, initial user namespace */
	FTAGENT_RULE_A_COMM,		/* string, the task's command name, exact */
	FTAGENT_RULE_A_CGROUP_ID,	/* u64, cgroup v2 id; descendants match too */
	FTAGENT_RULE_A_EXE_PREFIX,	/* string, absolute: the executable's path */
	FTAGENT_RULE_A_SUBTREE,		/* u32, a tgid: it and its descendants */
	FTAGENT_RULE_A_PATH_PREFIX,	/* string, absolute: exec, open */
	FTAGENT_RULE_A_PORT_MIN,	/* u16: connect, send, bind */
	FTAGENT_RULE_A_PORT_MAX,	/* u16, >= PORT_MIN (default PORT_MIN) */
	FTAGENT_RULE_A_ADDR,		/* binary, 4 (IPv4) or 16 (IPv6) bytes */
	FTAGENT_RULE_A_PREFIX_LEN,	/* u8, bits of ADDR that must match */
	FTAGENT_RULE_A_HITS,		/* u64, reply: calls this rule decided */
	FTAGENT_RULE_A_PAD,

	__FTAGENT_RULE_A_MAX
};

#define FTAGENT_RULE_A_MAX		(__FTAGENT_RULE_A_MAX - 1)
#define FTAGENT_POLICY_RULES_MAX	16384
#define FTAGENT_RULE_NAME_MAX		63	/* bytes, without the NUL */
#define FTAGENT_RULE_PREFIX_MAX		255	/* path and exe prefixes */
/* ftagent_rec_verdict.rule when the default action decided. */
#define FTAGENT_RULE_DEFAULT		0xffffffff

/**
 * enum ftagent_budget_metric - what a budget counts
 * @FTAGENT_METRIC_BYTES_SENT: bytes written or sent on IPv4/IPv6 sockets
 * @FTAGENT_METRIC_BYTES_RECEIVED: bytes read or received on them
 * @FTAGENT_METRIC_BYTES_READ: bytes read from files
 * @FTAGENT_METRIC_BYTES_WRITTEN: bytes written to files
 * @FTAGENT_METRIC_CONNECTS: connect calls on IPv4 and IPv6 sockets
 * @FTAGENT_METRIC_EXECS: execs
 * @FTAGENT_METRIC_OPENS: file opens
 * @FTAGENT_METRIC_REPEATS: execs of the same arguments (argv and its
 *	hash): the most times one command line may run in a window
 *
 * Bytes are counted as the counters count them (successful calls' return
 * values), when the call returns; a call is refused at entry once the
 * budget is used up, so a principal overshoots by at most one call.
 * Calls are counted at entry, before they run, and the one over the
 * limit is refused.
 */
enum ftagent_budget_metric {
	FTAGENT_METRIC_BYTES_SENT,
	FTAGENT_METRIC_BYTES_RECEIVED,
	FTAGENT_METRIC_BYTES_READ,
	FTAGENT_METRIC_BYTES_WRITTEN,
	FTAGENT_METRIC_CONNECTS,
	FTAGENT_METRIC_EXECS,
	FTAGENT_METRIC_OPENS,
	FTAGENT_METRIC_REPEATS,

	__FTAGENT_METRIC_MAX
};

/*
 * One budget (FTAGENT_CTL_A_BUDGET nest): everything its principal
 * matches shares one allowance of LIMIT per WINDOW_MS, counted from the
 * first charge of each window. Principal attributes as in rules.
 */
enum ftagent_budget_attr {
	FTAGENT_BUDGET_A_UNSPEC,
	FTAGENT_BUDGET_A_NAME,		/* string, required */
	FTAGENT_BUDGET_A_METRIC,	/* u32, enum ftagent_budget_metric, required */
	FTAGENT_BUDGET_A_LIMIT,		/* u64, > 0, required */
	FTAGENT_BUDGET_A_WINDOW_MS,	/* u32, 1 .. FTAGENT_BUDGET_WINDOW_MAX_MS, required */
	FTAGENT_BUDGET_A_ALERT_AT,	/* u64, < LIMIT: alert when usage reaches it */
	FTAGENT_BUDGET_A_ENFORCE,	/* u8, default 1; 0: alert at LIMIT, refuse nothing */
	FTAGENT_BUDGET_A_KILL,		/* u8, 0/1: also SIGKILL the caller refused */
	FTAGENT_BUDGET_A_UID,		/* u32 */
	FTAGENT_BUDGET_A_COMM,		/* string */
	FTAGENT_BUDGET_A_CGROUP_ID,	/* u64 */
	FTAGENT_BUDGET_A_EXE_PREFIX,	/* string, absolute */
	FTAGENT_BUDGET_A_SUBTREE,	/* u32, a tgid */
	FTAGENT_BUDGET_A_USED,		/* u64, reply: used in this window */
	FTAGENT_BUDGET_A_WINDOW_LEFT_MS, /* u32, reply: until usage resets; 0: no window open */
	FTAGENT_BUDGET_A_DENIED,	/* u64, reply: calls refused since set */
	FTAGENT_BUDGET_A_ALERTS,	/* u64, reply: alerts raised since set */
	FTAGENT_BUDGET_A_PAD,

	__FTAGENT_BUDGET_A_MAX
};

#define FTAGENT_BUDGET_A_MAX		(__FTAGENT_BUDGET_A_MAX - 1)
#define FTAGENT_BUDGETS_MAX		1024
#define FTAGENT_BUDGET_WINDOW_MAX_MS	(7u * 24 * 3600 * 1000)

/* Filter limits: longer lists or names are refused with EINVAL. */
#define FTAGENT_EXCLUDE_PROCESSES_MAX	64
#define FTAGENT_EXCLUDE_PATHS_MAX	64
#define FTAGENT_EXCLUDE_PATH_LEN_MAX	1024	/* bytes, without the NUL */
/* EXCLUDE_SELF: sockets that may hold a registration at once. */
#define FTAGENT_EXCLUDE_SELF_MAX	8
/*
 * A nest is one netlink attribute, at most 65535 bytes with its headers:
 * 64 prefixes of 1024 bytes do not fit; the list as a whole must. So the
 * prefixes as GET_FILTERS returns them, each 4 bytes of attribute header
 * plus the prefix, its NUL and padding to a multiple of 4, add up to at
 * most FTAGENT_EXCLUDE_PATHS_NEST_MAX bytes (SET_FILTERS refuses more).
 */
#define FTAGENT_EXCLUDE_PATHS_NEST_MAX	65531
#define FTAGENT_COMM_LEN		16	/* TASK_COMM_LEN, with the NUL */

/**
 * enum ftagent_alert_kind - what a multicast alert reports
 * @FTAGENT_ALERT_EVENT_LOSS: event records were lost since the last alert
 * @FTAGENT_ALERT_VERDICT: calls were denied, would have been, or were
 *	audited since the last alert: VERDICTS holds the counts by enum
 *	ftagent_verdict; at most one per FTAGENT_ALERT_INTERVAL_MS, the
 *	verdict records themselves are in the event files
 */
enum ftagent_alert_kind {
	FTAGENT_ALERT_UNSPEC,
	FTAGENT_ALERT_EVENT_LOSS,
	FTAGENT_ALERT_VERDICT,

	__FTAGENT_ALERT_MAX
};

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
	 * GET_RESOURCES (do, CAP_SYS_ADMIN): no request attributes.
	 * Reply: MODE, HOOKS, STATE, NR_CPUS, TABLE_CAPACITY, MEMORY_BYTES,
	 * FLUSH_COUNT, GEN_SEQ (idle generation), GEN_ACKED, one CPU nest per
	 * possible CPU and one HOOK nest per traced call.
	 */
	FTAGENT_STATS_CMD_GET_RESOURCES,

	/*
	 * DUMP_COUNTERS (dump, CAP_SYS_ADMIN): no request attributes.
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
	FTAGENT_STATS_A_RING_BUFFER_SIZE, /* u32, event buffer bytes, all CPUs */
	FTAGENT_STATS_A_SUBBUF_SIZE,	/* u32, bytes per relay sub-buffer */
	FTAGENT_STATS_A_N_SUBBUFS,	/* u32, sub-buffers per CPU */
	FTAGENT_STATS_A_EXCLUDED_TGIDS,	/* u32, processes excluded now */
	FTAGENT_STATS_A_EXCLUDE_MISSED,	/* u64, exclusions the table could not hold */

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
	FTAGENT_CPU_A_EV_EMITTED,	/* u64, event records generated */
	FTAGENT_CPU_A_EV_DELIVERED,	/* u64, written to the relay buffer */
	FTAGENT_CPU_A_EV_LOST,		/* nest of u64 by enum ftagent_event_loss + 1 */
	FTAGENT_CPU_A_EV_PEAK_BYTES,	/* u64, most bytes the buffer held */
	FTAGENT_CPU_A_EV_DISCARDED,	/* u64, delivered, then dropped unread */
	FTAGENT_CPU_A_LOST_IOURING,	/* u64, FTAGENT_LOSS_IOURING (0.6) */

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

/*
 * Lifecycle events.
 *
 * The module writes event records into a relay channel with one buffer
 * per possible CPU, exposed as the files events0, events1, ... of the
 * module's own filesystem:
 *
 *	mount -t ftagentfs none /sys/fs/ftagent
 *
 * (not debugfs, which refuses such files under lockdown). A reader
 * read()s a file: each read returns whole or partial records in write
 * order; records never straddle the module's sub-buffers, and padding is
 * never returned. poll() reports a file readable once a sub-buffer is
 * complete, so readers also read on a timer (the daemon does every
 * flush interval). mmap() readers map the whole buffer (n_subbufs
 * sub-buffers of subbuf_size bytes), ask FTAGENT_IOC_BUF_POS where the
 * writer is, and hand back whole sub-buffers they have read with
 * FTAGENT_IOC_CONSUMED; in a sub-buffer, records follow each other with
 * consecutive numbers until the first that does not (padding, or bytes
 * of an older lap, which carry smaller numbers). The buffer never
 * overwrites: a record that does not
 * fit is lost and counted (enum ftagent_event_loss), and the next record
 * that fits on that CPU is preceded by a GAP record. Every record
 * generated on a CPU takes the next sequence number of that CPU, lost
 * ones included, so emitted = delivered + lost, and a reader sees each
 * gap in the numbers. Replacing the channel (a new ring size, the last
 * umount) drops what nobody read: those delivered records are counted as
 * discarded.
 *
 * A record is a struct ftagent_rec_hdr, a body by type, then the
 * record's strings in the order its body lists their lengths (no NUL),
 * padded with zeros to a multiple of 8 bytes. Readers skip records of
 * unknown type by hdr.size, and read bodies of at least the size they
 * know: a newer minor ABI may append body fields before the strings,
 * which start sizeof(struct ftagent_rec_hdr) + hdr.body_size bytes
 * into the record.
 */
#define FTAGENT_FS_TYPE		"ftagentfs"
#define FTAGENT_FS_MOUNTPOINT	"/sys/fs/ftagent"
#define FTAGENT_FS_MAGIC	0x66746167	/* "ftag" */
#define FTAGENT_EVENTS_FILE	"events"	/* + the CPU number */

/**
 * struct ftagent_buf_pos - where the writer of one CPU's buffer is
 * @produced: sub-buffers completed since the channel was opened
 * @consumed: sub-buffers handed back (FTAGENT_IOC_CONSUMED or read())
 * @offset: bytes written into the current sub-buffer, which is number
 *	@produced (index @produced % @n_subbufs in the mapping)
 * @subbuf_size: bytes per sub-buffer
 * @n_subbufs: sub-buffers in the mapping
 * @full: 1 when no sub-buffer is free: once the current one fills,
 *	records are lost until sub-buffers are handed back
 */
struct ftagent_buf_pos {
	__u64 produced;
	__u64 consumed;
	__u32 offset;
	__u32 subbuf_size;
	__u32 n_subbufs;
	__u32 full;
};

#define FTAGENT_IOC_MAGIC	0xf7
/* Read the position of the buffer behind this file. */
#define FTAGENT_IOC_BUF_POS	_IOR(FTAGENT_IOC_MAGIC, 1, struct ftagent_buf_pos)
/* The caller has read this many more whole sub-buffers (a __u32). */
#define FTAGENT_IOC_CONSUMED	_IOW(FTAGENT_IOC_MAGIC, 2, __u32)

/* Default event buffer sizes, all CPUs together; at least 64 KiB a CPU. */
#define FTAGENT_RING_STANDARD_DEFAULT	4194304U	/* 4 MiB */
#define FTAGENT_RING_MINIMAL_DEFAULT	1048576U	/* 1 MiB */
#define FTAGENT_RING_PER_CPU_MIN	65536U		/* 64 KiB */
#define FTAGENT_RING_SIZE_MAX		1073741824U	/* 1 GiB */

/* String bounds: longer strings are cut and flagged truncated. */
#define FTAGENT_REC_PATH_MAX	4096	/* PATH_MAX */
#define FTAGENT_REC_ARGV_MAX	1024	/* argv bytes kept in an exec */
#define FTAGENT_REC_ARGV_HASH_MAX 65536	/* argv bytes hashed */

/**
 * enum ftagent_rec_type - event record types
 * @FTAGENT_REC_GAP: records were lost just before this one on this CPU
 * @FTAGENT_REC_FORK: a new process (not a thread)
 * @FTAGENT_REC_EXEC: a successful execve/execveat
 * @FTAGENT_REC_EXIT: the last thread of a process exited
 * @FTAGENT_REC_CONNECT: connect() on an IPv4/IPv6 socket returned
 * @FTAGENT_REC_ACCEPT: accept()/accept4() returned a new socket
 * @FTAGENT_REC_CLOSE: the last reference to an IPv4/IPv6 socket went away
 * @FTAGENT_REC_BIND: bind() on an IPv4/IPv6 socket succeeded
 * @FTAGENT_REC_LISTEN: listen() succeeded
 * @FTAGENT_REC_OPEN: open/creat/openat/openat2 succeeded (standard mode)
 * @FTAGENT_REC_VERDICT: a policy verdict other than allow (policy gate)
 */
enum ftagent_rec_type {
	FTAGENT_REC_UNSPEC,
	FTAGENT_REC_GAP,
	FTAGENT_REC_FORK,
	FTAGENT_REC_EXEC,
	FTAGENT_REC_EXIT,
	FTAGENT_REC_CONNECT,
	FTAGENT_REC_ACCEPT,
	FTAGENT_REC_CLOSE,
	FTAGENT_REC_BIND,
	FTAGENT_REC_LISTEN,
	FTAGENT_REC_OPEN,
	FTAGENT_REC_VERDICT,

	__FTAGENT_REC_MAX
};

/**
 * enum ftagent_event_loss - why an event record was lost
 * @FTAGENT_EV_LOSS_BUFFER_FULL: the CPU's buffer was full (no reader
 *	kept up); the buffer never overwrites unread records
 * @FTAGENT_EV_LOSS_TOO_BIG: the record was larger than a sub-buffer
 * @FTAGENT_EV_LOSS_RECURSION: an event was raised while another was
 *	being written on the same CPU
 * @FTAGENT_EV_LOSS_NMI: raised in NMI context, where relay can't write
 * @FTAGENT_EV_LOSS_NO_BUFFER: the buffer was being resized
 */
enum ftagent_event_loss {
	FTAGENT_EV_LOSS_BUFFER_FULL,
	FTAGENT_EV_LOSS_TOO_BIG,
	FTAGENT_EV_LOSS_RECURSION,
	FTAGENT_EV_LOSS_NMI,
	FTAGENT_EV_LOSS_NO_BUFFER,

	__FTAGENT_EV_LOSS_MAX
};

#define FTAGENT_EV_LOSS_SLOTS	8	/* array size in GAP records */

/**
 * struct ftagent_rec_hdr - the start of every record
 * @type: enum ftagent_rec_type
 * @size: the whole record in bytes, header and strings included; a
 *	multiple of 8
 * @body_size: bytes of the type's body after this header
 * @flags: FTAGENT_REC_F_*
 * @cpu: the CPU whose buffer holds the record
 * @seq: this CPU's record number; +1 per record generated, lost or not
 *	(a GAP record repeats the number of the record it precedes)
 * @time_ns: CLOCK_MONOTONIC when the record was generated
 * @tgid: the process the event is about (or that did it)
 * @pid: the thread that did it
 */
struct ftagent_rec_hdr {
	__u16 type;
	__u16 size;
	__u16 body_size;
	__u16 flags;
	__u32 cpu;
	__u32 reserved;
	__u64 seq;
	__u64 time_ns;
	__u32 tgid;
	__u32 pid;
};

#define FTAGENT_REC_ALIGN	8
#define FTAGENT_REC_SIZE_MAX	0xfff8

/* Flags in ftagent_rec_hdr.flags. */
#define FTAGENT_REC_F_STR0_TRUNCATED	0x0001	/* first string was cut */
#define FTAGENT_REC_F_STR1_TRUNCATED	0x0002	/* second string was cut */
#define FTAGENT_REC_F_STR0_UNREADABLE	0x0004	/* first string: unknown */
#define FTAGENT_REC_F_STR1_UNREADABLE	0x0008	/* second string: unknown */
#define FTAGENT_REC_F_HASH_PARTIAL	0x0010	/* argv hash covers a prefix */

/**
 * struct ftagent_rec_gap - records lost on this CPU before this one
 * @first_seq: the first lost record's number; the lost ones are
 *	first_seq .. hdr.seq - 1
 * @lost: hdr.seq - first_seq
 * @lost_by_cause: indexed by enum ftagent_event_loss
 */
struct ftagent_rec_gap {
	__u64 first_seq;
	__u64 lost;
	__u64 lost_by_cause[FTAGENT_EV_LOSS_SLOTS];
};

/**
 * struct ftagent_rec_fork - a new process; hdr.tgid/pid is the parent
 * @child_tgid: the new process
 * @comm: the parent's command name, NUL-padded
 */
struct ftagent_rec_fork {
	__u32 child_tgid;
	__u32 reserved;
	char comm[FTAGENT_COMM_LEN];
};

/**
 * struct ftagent_rec_exec - a program was executed; strings: exe, argv
 * @ppid: parent process
 * @uid: real user id, in the initial user namespace
 * @gid: real group id, likewise
 * @euid: effective user id, likewise
 * @cgroup_id: the cgroup v2 id (the inode of its directory), 0 without v2
 * @argv_hash: XXH64 (seed 0) of the argument bytes, NULs included, up to
 *	FTAGENT_REC_ARGV_HASH_MAX bytes (HASH_PARTIAL when more)
 * @argc: number of arguments
 * @argv_bytes: length of the whole argument area
 * @exe_len: length of the first string: the executable's path
 * @argv_len: length of the second string: the arguments, NUL-separated
 *	as in /proc/PID/cmdline, at most FTAGENT_REC_ARGV_MAX bytes
 * @comm: the new command name, NUL-padded
 */
struct ftagent_rec_exec {
	__u32 ppid;
	__u32 uid;
	__u32 gid;
	__u32 euid;
	__u64 cgroup_id;
	__u64 argv_hash;
	__u32 argc;
	__u32 argv_bytes;
	__u16 exe_len;
	__u16 argv_len;
	__u32 reserved;
	char comm[FTAGENT_COMM_LEN];
};

/**
 * struct ftagent_rec_exit - a process ended; final totals
 * @exit_code: the status wait(2) reports (WIFEXITED, WTERMSIG, ...)
 * @nr_threads: threads the process had
 * @rchar: bytes read, all threads (as /proc/PID/io reports them)
 * @wchar: bytes written
 * @syscr: read calls
 * @syscw: write calls
 * @read_bytes: bytes fetched from storage
 * @write_bytes: bytes sent to storage
 * @comm: the command name, NUL-padded
 *
 * The process's ftagent counters stay in the counter generation and are
 * dumped with it, so nothing it did between two flushes is missed.
 */
struct ftagent_rec_exit {
	__s32 exit_code;
	__u32 nr_threads;
	__u64 rchar;
	__u64 wchar;
	__u64 syscr;
	__u64 syscw;
	__u64 read_bytes;
	__u64 write_bytes;
	char comm[FTAGENT_COMM_LEN];
};

/**
 * struct ftagent_rec_sock - CONNECT, ACCEPT, CLOSE, BIND, LISTEN
 * @sock_ino: the socket's inode, as counters and ss -e name it
 * @result: the call's return value (0, or -errno, or -EINPROGRESS for a
 *	non-blocking connect; ACCEPT: the new descriptor); CLOSE: 0
 * @family: AF_INET or AF_INET6
 * @type: SOCK_STREAM, SOCK_DGRAM, ...
 * @protocol: IPPROTO_TCP, IPPROTO_UDP, ...
 * @local_port: host byte order
 * @remote_port: host byte order; 0 when not connected
 * @backlog: LISTEN: the backlog asked for; else 0
 * @local_addr: network byte order; IPv4 in the first 4 bytes
 * @remote_addr: network byte order; zeros when not connected
 */
struct ftagent_rec_sock {
	__u64 sock_ino;
	__s32 result;
	__u16 family;
	__u16 type;
	__u16 protocol;
	__u16 local_port;
	__u16 remote_port;
	__u16 reserved;
	__u32 backlog;
	__u32 reserved2;
	__u8 local_addr[16];
	__u8 remote_addr[16];
};

/**
 * struct ftagent_rec_open - a file was opened; string: the path
 * @ino: the opened file's inode
 * @dev: its device, as stat(2) reports st_dev
 * @fd: the new descriptor
 * @flags: the open flags (O_*)
 * @mode: the file's type and permissions (st_mode)
 * @path_len: length of the path (as /proc/PID/fd shows it)
 */
struct ftagent_rec_open {
	__u64 ino;
	__u32 dev;
	__s32 fd;
	__u32 flags;
	__u32 mode;
	__u16 path_len;
	__u16 reserved[3];
};

/**
 * struct ftagent_rec_verdict - a policy verdict other than allow; string:
 *	the object's path (exec, open)
 * @policy_generation: the rule set (or budget set) that decided
 * @rule: the rule's or budget's index in its set, or FTAGENT_RULE_DEFAULT
 * @op: enum ftagent_op; FTAGENT_OP_NONE for budget calls outside it
 * @action: enum ftagent_action of the rule (budgets: deny)
 * @verdict: enum ftagent_verdict
 * @source: FTAGENT_VERDICT_SRC_RULE or FTAGENT_VERDICT_SRC_BUDGET
 * @error: what the call returned because of it: -EPERM, -EDQUOT, or 0
 * @family: connect, send, bind: AF_INET or AF_INET6; else 0
 * @port: connect, send, bind: host byte order
 * @addr: connect, send, bind: network byte order, IPv4 in the first 4
 * @path_len: exec, open: the path's length
 * @metric: budgets: enum ftagent_budget_metric
 * @used: budgets: the usage in the window when it was decided
 * @limit: budgets: the limit
 * @rule_name: the rule's or budget's name, NUL-padded (cut to fit)
 */
struct ftagent_rec_verdict {
	__u64 policy_generation;
	__u32 rule;
	__u8 op;
	__u8 action;
	__u8 verdict;
	__u8 source;
	__s32 error;
	__u16 family;
	__u16 port;
	__u8 addr[16];
	__u16 path_len;
	__u16 metric;
	__u32 reserved;
	__u64 used;
	__u64 limit;
	char rule_name[32];
};

#define FTAGENT_VERDICT_SRC_RULE	0
#define FTAGENT_VERDICT_SRC_BUDGET	1
#define FTAGENT_OP_NONE			0xff

#endif /* _UAPI_LINUX_FTAGENT_H */
