// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel internals found by name at load (kmod/symbols.c), on every
 * kernel this runs on:
 *
 * - on a whole kernel nothing is missing and nothing is degraded;
 * - each internal, made missing with pretend_missing=, turns off its one
 *   feature and nothing else: the load goes on, GET_STATUS says DEGRADED
 *   with the name under MISSING, the kernel log names it, and the feature
 *   really is off (no records of that kind, the ftrace set falls back to
 *   kprobe, a rule set that needs a missing gate point is refused with a
 *   message and the others are taken);
 * - strict=1 refuses the load instead, and a name that is none of the
 *   module's is refused as a typo;
 * - the ftrace set falls back to plain ftrace_ops while another module
 *   holds a direct-call slot, counts exactly that way, and goes back to
 *   direct calls once the slot is free (FTAGENT_HOLDER_KO).
 *
 * Reloads the module; leaves it loaded with the runner's parameters.
 */
#include <arpa/inet.h>
#include <linux/aio_abi.h>
#include <netinet/in.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "events_test.h"
#include "../../tools/lib/budgets.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/status.h"
#include "holder_test.h"
#include "reload_test.h"
#include "x32_test.h"

static int status(struct ftagent_status *st)
{
	struct ftnl_error err;

	return ftagent_query_status(st, &err);
}

static int set_hooks(uint32_t hooks, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0)
		return -1;
	req = ftnl_put_request(&nl, buf, FTAGENT_CTL_CMD_SET_CONFIG, 0);
	mnl_attr_put_u32(req, FTAGENT_CTL_A_HOOKS, hooks);
	rc = ftnl_transact(&nl, req, NULL, NULL, err);
	ftnl_close(&nl);
	return rc;
}

static uint32_t hook_set(void)
{
	struct ftagent_resources res;
	uint32_t hooks;

	if (ev_resources(&res))
		return 0;
	hooks = res.hooks;
	ftagent_resources_free(&res);
	return hooks;
}

/* A policy with one deny rule on @op (or none: an empty set). */
static int set_rule(int op, struct ftnl_error *err)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	uint64_t gen;
	struct ftnl nl;
	int rc;

	ftagent_policy_spec_init(&p);
	p.enforce = 1;
	p.default_action = FTAGENT_ACTION_ALLOW;
	if (op >= 0) {
		r = ftagent_policy_spec_add(&p);
		if (!r)
			abort();
		snprintf(r->name, sizeof(r->name), "degraded-%d", op);
		r->ops = 1u << op;
		r->action = FTAGENT_ACTION_DENY;
		/* A uid nobody uses: the rule must load, not bite. */
		r->set |= FTAGENT_RULE_SET_UID;
		r->uid = 4000000000u;
	}
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0) {
		ftagent_policy_spec_free(&p);
		return -1;
	}
	rc = ftagent_set_policy(&nl, &p, &gen, err);
	ftnl_close(&nl);
	ftagent_policy_spec_free(&p);
	return rc;
}

/* A budget set with one budget on @metric (or none). */
static int set_budget(int metric, struct ftnl_error *err)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec *b;
	uint64_t gen;
	struct ftnl nl;
	int rc;

	if (metric >= 0) {
		b = ftagent_budget_set_add(&s);
		if (!b)
			abort();
		snprintf(b->name, sizeof(b->name), "degraded-%d", metric);
		b->metric = metric;
		b->limit = 1ull << 40;
		b->window_ms = 60000;
		b->set |= FTAGENT_RULE_SET_UID;
		b->uid = 4000000000u;
	}
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0) {
		ftagent_budget_set_free(&s);
		return -1;
	}
	rc = ftagent_set_budgets(&nl, &s, &gen, err);
	ftnl_close(&nl);
	ftagent_budget_set_free(&s);
	return rc;
}

/* The records a little lifecycle work makes: fork, exec, exit, close. */
struct lifecycle_counts {
	size_t fork, exec, exit, close;
};

static int lifecycle(struct lifecycle_counts *c)
{
	struct ev_log l;
	int fd, status;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	if (ev_open(&l))
		return -1;
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	close(fd);
	ev_sleep_ms(50);
	if (ev_drain(&l) < 0)
		return -1;
	c->fork = ev_count(&l, FTAGENT_REC_FORK, getpid());
	c->exec = ev_count(&l, FTAGENT_REC_EXEC, pid);
	c->exit = ev_count(&l, FTAGENT_REC_EXIT, pid);
	c->close = ev_count(&l, FTAGENT_REC_CLOSE, getpid());
	ev_close(&l);
	return 0;
}

/*
 * What the module counted on the UDP pair @tx -> @rx, 600 bytes sent in
 * one sendmmsg and received in one recvmmsg: 1 if exactly that (the calls
 * out are connect() and sendmmsg), else 0, said on stderr under @what.
 */
static int mmsg_pair_counted(const char *what, int tx, int rx)
{
	struct ft_totals tx_t, rx_t;
	struct ft_counters fc;
	int ok;

	if (ft_collect(&fc))
		return 0;
	tx_t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, tx);
	rx_t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, rx);
	ok = tx_t.out_calls == 2 && tx_t.out_bytes == 600 &&
	     rx_t.in_calls == 1 && rx_t.in_bytes == 600;
	if (!ok)
		fprintf(stderr, "# %s: sent %lu in %lu, received %lu in %lu\n",
			what, (unsigned long)tx_t.out_bytes,
			(unsigned long)tx_t.out_calls,
			(unsigned long)rx_t.in_bytes,
			(unsigned long)rx_t.in_calls);
	ft_counters_free(&fc);
	return ok;
}

static void close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

/*
 * Exact *mmsg counting over UDP loopback: one sendmmsg of 3 datagrams
 * (100, 200 and 300 bytes), one recvmmsg of them.
 */
static int mmsgs_counted(void)
{
	static char buf[3][512];
	struct iovec iov[3];
	struct mmsghdr vec[3];
	int fds[2], i, ok = 0; /* fds: receiver, sender */

	if (ft_udp_pair(AF_INET, fds))
		goto out;
	memset(vec, 0, sizeof(vec));
	for (i = 0; i < 3; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = 100 * (i + 1);
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	if (sendmmsg(fds[1], vec, 3, 0) != 3)
		goto out;
	for (i = 0; i < 3; i++)
		iov[i].iov_len = sizeof(buf[i]);
	if (recvmmsg(fds[0], vec, 3, MSG_DONTWAIT, NULL) != 3)
		goto out;
	ok = mmsg_pair_counted("mmsg", fds[1], fds[0]);
out:
	close_pair(fds);
	return ok;
}

/*
 * The same through x32's own sendmmsg and recvmmsg, whose headers are
 * struct compat_mmsghdr: read back as such. 1 where x32 is not built
 * in (nothing to count); 0 where it is built in but off, as
 * evasion_x32.c judges it.
 */
static int x32_mmsgs_counted(void)
{
	struct mmsghdrx *vec;
	struct iovecx *iov;
	int fds[2], i, ok = 0; /* fds: receiver, sender */
	char *low;

	if (callx(SYS_getpid, 0, 0, 0, 0, 0) == -ENOSYS) {
		fprintf(stderr, "# x32: %s\n",
			kernel_has_x32() ? "built in but off" : "not built in");
		return !kernel_has_x32();
	}
	low = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return 0;
	vec = (struct mmsghdrx *)low;
	iov = (struct iovecx *)(low + 1024);
	if (ft_udp_pair(AF_INET, fds))
		goto out;
	memset(low, 0, 4096);
	for (i = 0; i < 3; i++) {
		iov[i].base = lo32(low + 4096 * (i + 1));
		iov[i].len = 100 * (i + 1);
		vec[i].hdr.iov = lo32(&iov[i]);
		vec[i].hdr.iovlen = 1;
	}
	if (callx(NRX_SENDMMSG, fds[1], lo32(vec), 3, 0, 0) != 3)
		goto out;
	for (i = 0; i < 3; i++)
		iov[i].len = 512;
	if (callx(NRX_RECVMMSG, fds[0], lo32(vec), 3, MSG_DONTWAIT, 0) != 3)
		goto out;
	ok = mmsg_pair_counted("x32 mmsg", fds[1], fds[0]);
out:
	close_pair(fds);
	munmap(low, 65536);
	return ok;
}

/* Exact pread counting: @n calls of 1 byte on a tmpfs file. */
static int preads_counted(int n)
{
	struct ft_counters fc;
	struct ft_totals t;
	char path[64], c = 'x';
	int fd, i, ok;

	snprintf(path, sizeof(path), "/tmp/ftdeg.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, &c, 1) != 1)
		return 0;
	unlink(path);
	if (ft_collect(&fc)) {
		fprintf(stderr, "# preads: no generation before\n");
		return 0;
	}
	ft_counters_free(&fc);
	for (i = 0; i < n; i++) {
		if (pread(fd, &c, 1, 0) != 1) {
			fprintf(stderr, "# preads: pread %d: %s\n", i,
				strerror(errno));
			return 0;
		}
	}
	if (ft_collect(&fc)) {
		fprintf(stderr, "# preads: no generation after\n");
		return 0;
	}
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd);
	ok = t.in_calls == (uint64_t)n && t.in_bytes == (uint64_t)n;
	if (!ok)
		fprintf(stderr, "# preads: %d made, %lu counted, %lu bytes\n",
			n, (unsigned long)t.in_calls,
			(unsigned long)t.in_bytes);
	ft_counters_free(&fc);
	close(fd);
	return ok;
}

/*
 * The bytes the module counted for one Linux AIO write of @len to a new
 * file (-1 if the write could not be made): with AIO counting off, 0.
 */
static long aio_write_counted(size_t len)
{
	static char buf[4096];
	aio_context_t ctx = 0;
	struct iocb cb = {0}, *p = &cb;
	struct io_event ev;
	struct ft_counters fc;
	long counted = -1;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ftdeg-aio.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	unlink(path);
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len < sizeof(buf) ? len : sizeof(buf);
	if (!syscall(SYS_io_setup, 4, &ctx) && !ft_collect(&fc)) {
		ft_counters_free(&fc);
		if (syscall(SYS_io_submit, ctx, 1, &p) == 1 &&
		    syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) == 1 &&
		    ev.res == (long long)cb.aio_nbytes && !ft_collect(&fc)) {
			counted =
				ft_sum_fd(&fc, FTAGENT_OBJ_FILE, fd).out_bytes;
			ft_counters_free(&fc);
		}
	}
	if (ctx)
		syscall(SYS_io_destroy, ctx);
	close(fd);
	return counted;
}

/*
 * A process excluded by name leaves the exclusion set when it exits (its
 * pid may be reused by anyone): a child takes an excluded name and exits,
 * and no tgid stays excluded.
 */
static int exclusion_ends_with_the_process(void)
{
	struct ftagent_resources res;
	int status, ok;
	pid_t pid;

	if (ev_exclude(0, "ftdeg-excl"))
		return 0;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "ftdeg-excl");
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || ev_resources(&res))
		return 0;
	ok = res.excluded_tgids == 0;
	if (!ok)
		fprintf(stderr, "# %u tgids still excluded\n",
			res.excluded_tgids);
	ftagent_resources_free(&res);
	return ev_reset_filters() == 0 && ok;
}

TEST_RELOADS(a_whole_kernel_lacks_nothing)
{
	struct lifecycle_counts c;
	struct ftagent_status st;
	struct ftnl_error err;

	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(0, status(&st));
	ASSERT_TRUE(st.present & FTAGENT_STATUS_HAVE_DEGRADED);
	EXPECT_EQ(0, st.degraded);
	EXPECT_EQ(0, st.n_missing);
	/* What the degraded cases below expect to vanish is there here. */
	ASSERT_EQ(0, lifecycle(&c));
	EXPECT_EQ(1, c.fork);
	EXPECT_EQ(1, c.exec);
	EXPECT_EQ(1, c.exit);
	EXPECT_EQ(1, c.close);
	EXPECT_EQ(0, set_rule(FTAGENT_OP_CONNECT, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, set_rule(-1, &err));
	EXPECT_TRUE(preads_counted(100));
	EXPECT_TRUE(exclusion_ends_with_the_process());
}

/* What goes when an internal is missing, and how to see that it went. */
enum check {
	CHECK_FTRACE_SET,
	CHECK_RECORD,
	CHECK_RULE,
	CHECK_BUDGET,
	CHECK_NOTHING_REFUSED, /* GATE_SENDPAGE: send rules still load */
	CHECK_STATUS_ONLY,
	CHECK_MMSG, /* *mmsg bytes still counted, read back */
	CHECK_AIO,  /* Linux AIO gated, not counted */
};

FIXTURE(missing){};
FIXTURE_SETUP(missing)
{
}
/* The next case reloads, and the last test restores the runner's load. */
FIXTURE_TEARDOWN(missing)
{
}

FIXTURE_VARIANT(missing)
{
	const char *name;
	unsigned int feature;
	enum check check;
	int arg; /* record type, op or metric */
	int only_with_kernel_sendpage;
	unsigned int also; /* features that need it as well */
};

#define MISSING(id, sym, feat, chk, a)                                         \
	FIXTURE_VARIANT_ADD(missing, id)                                       \
	{                                                                      \
		.name = sym, .feature = FTAGENT_FEATURE_##feat,                \
		.check = CHECK_##chk, .arg = a,                                \
	}

MISSING(signal_settle, "arch_do_signal_or_restart", FTRACE_SET, FTRACE_SET, 0);
MISSING(blkcg_settle, "blkcg_maybe_throttle_current", FTRACE_SET, FTRACE_SET,
	0);
MISSING(ptrace_settle, "ptrace_notify", FTRACE_SET, FTRACE_SET, 0);
MISSING(exit_tracepoint, "sched_process_exit", FTRACE_SET, FTRACE_SET, 0);
MISSING(acct_process, "acct_process", EXIT_RECORDS, RECORD, FTAGENT_REC_EXIT);
/* The accept marks end there too (kmod/usersock.c): they go with it. */
FIXTURE_VARIANT_ADD(missing, sock_close){
	.name = "sock_close",
	.feature = FTAGENT_FEATURE_CLOSE_RECORDS,
	.check = CHECK_RECORD,
	.arg = FTAGENT_REC_CLOSE,
	.also = 1u << FTAGENT_FEATURE_GATE_ACCEPT,
};
MISSING(fork, "sched_process_fork", FORK_RECORDS, RECORD, FTAGENT_REC_FORK);
MISSING(exec, "sched_process_exec", EXEC_RECORDS, RECORD, FTAGENT_REC_EXEC);
MISSING(rename, "task_rename", RENAMES, STATUS_ONLY, 0);
MISSING(gate_exec, "security_bprm_check", GATE_EXEC, RULE, FTAGENT_OP_EXEC);
MISSING(gate_exec_interp, "would_dump", GATE_EXEC, RULE, FTAGENT_OP_EXEC);
MISSING(gate_connect, "security_socket_connect", GATE_CONNECT, RULE,
	FTAGENT_OP_CONNECT);
MISSING(gate_open, "security_file_open", GATE_OPEN, RULE, FTAGENT_OP_OPEN);
MISSING(gate_send, "security_socket_sendmsg", GATE_SEND, RULE, FTAGENT_OP_SEND);
MISSING(gate_bind, "security_socket_bind", GATE_BIND, RULE, FTAGENT_OP_BIND);
MISSING(gate_recv, "security_socket_recvmsg", GATE_RECV, BUDGET,
	FTAGENT_METRIC_BYTES_RECEIVED);
MISSING(gate_rw, "security_file_permission", GATE_RW, BUDGET,
	FTAGENT_METRIC_BYTES_READ);
/* Needed by both io_uring modes (kmod/iouring.c). */
MISSING(iouring, "io_uring_complete", IOURING, STATUS_ONLY, 0);
/* *mmsg lengths are then read back from the caller's memory. */
MISSING(mmsg_send, "__sys_sendmmsg", MMSG_LENGTHS, MMSG, 0);
MISSING(mmsg_recv, "do_recvmmsg", MMSG_LENGTHS, MMSG, 0);
/* Probed on kernels without sock_recv_length; the feature goes all the same. */
MISSING(recvmsg_length, "____sys_recvmsg", MMSG_LENGTHS, MMSG, 0);
/* One of the receive-fault watches: named as missing, the feature goes. */
MISSING(recv_fault, "skb_copy_and_csum_datagram_msg", MMSG_LENGTHS, MMSG, 0);
/* How an io_uring read of a socket is told from others: the same. */
MISSING(iour_read, "io_complete_rw", MMSG_LENGTHS, MMSG, 0);
/* Where an io_uring RECVMSG's result is seen (its header write-back). */
MISSING(iour_recvmsg, "__sys_recvmsg_sock", MMSG_LENGTHS, MMSG, 0);
/* Either of Linux AIO's two hooks (kmod/aio.c). */
MISSING(aio_prep, "aio_prep_rw", AIO, AIO, 0);
MISSING(aio_complete, "aio_complete_rw", AIO, AIO, 0);
/* AF_SMC's accepted fallback connections go ungated; rules still load. */
MISSING(gate_accept, "security_socket_accept", GATE_ACCEPT, NOTHING_REFUSED,
	FTAGENT_OP_SEND);

FIXTURE_VARIANT_ADD(missing, kernel_sendpage){
	.name = "kernel_sendpage",
	.feature = FTAGENT_FEATURE_GATE_SENDPAGE,
	.check = CHECK_NOTHING_REFUSED,
	.only_with_kernel_sendpage = 1,
};

/* Connect and bind rules still load; SCTP's own calls go ungated. */
FIXTURE_VARIANT_ADD(missing, sctp){
	.name = "security_sctp_bind_connect",
	.feature = FTAGENT_FEATURE_GATE_SCTP,
	.check = CHECK_NOTHING_REFUSED,
	.arg = FTAGENT_OP_CONNECT,
};

TEST_F_TIMEOUT(missing, only_its_feature_goes, 300)
{
	struct lifecycle_counts c;
	struct ftagent_status st;
	struct ftnl_error err;
	char extra[128], logline[160];
	int rc;

	snprintf(extra, sizeof(extra), "pretend_missing=%s", variant->name);
	klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
	rc = ft_reload_module(extra);
	if (variant->only_with_kernel_sendpage && rc == -EINVAL) {
		/*
		 * Not looked up on kernels where sendfile and splice go
		 * through sock_sendmsg (6.5 on): naming it is a typo there.
		 */
		ASSERT_TRUE(klog_has("kernel_sendpage is not a function"));
		return;
	}
	ASSERT_EQ(0, rc) TH_LOG("load with %s", extra);

	ASSERT_EQ(0, status(&st));
	EXPECT_EQ((1u << variant->feature) | variant->also, st.degraded);
	ASSERT_EQ(1, st.n_missing);
	EXPECT_STREQ(variant->name, st.missing[0]);
	snprintf(logline, sizeof(logline), "%s not found on this kernel",
		 variant->name);
	EXPECT_TRUE(klog_has(logline));
	/* Counting itself never depends on these. */
	EXPECT_TRUE(preads_counted(50));
	/* Nor Linux AIO counting on anything but its own two. */
	if (variant->check != CHECK_AIO)
		EXPECT_EQ(1234, aio_write_counted(1234));

	switch (variant->check) {
	case CHECK_FTRACE_SET:
		EXPECT_EQ(FTAGENT_HOOKS_KPROBE, hook_set());
		EXPECT_EQ(-1, set_hooks(FTAGENT_HOOKS_FTRACE, &err));
		EXPECT_EQ(EOPNOTSUPP, err.err);
		EXPECT_NE(NULL, strstr(err.msg, "ftrace hook set"))
		TH_LOG("message: %s", err.msg);
		EXPECT_EQ(FTAGENT_HOOKS_KPROBE, hook_set());
		break;
	case CHECK_RECORD:
		if (variant->arg == FTAGENT_REC_EXIT)
			EXPECT_TRUE(exclusion_ends_with_the_process());
		ASSERT_EQ(0, lifecycle(&c));
		EXPECT_EQ(variant->arg == FTAGENT_REC_FORK ? 0 : 1, c.fork);
		EXPECT_EQ(variant->arg == FTAGENT_REC_EXEC ? 0 : 1, c.exec);
		EXPECT_EQ(variant->arg == FTAGENT_REC_EXIT ? 0 : 1, c.exit);
		EXPECT_EQ(variant->arg == FTAGENT_REC_CLOSE ? 0 : 1, c.close);
		break;
	case CHECK_RULE:
		EXPECT_EQ(-1, set_rule(variant->arg, &err));
		EXPECT_EQ(EOPNOTSUPP, err.err);
		EXPECT_NE(NULL, strstr(err.msg, "lacks a function"))
		TH_LOG("message: %s", err.msg);
		/* A rule on another operation still loads. */
		EXPECT_EQ(0, set_rule(variant->arg == FTAGENT_OP_CONNECT
					      ? FTAGENT_OP_BIND
					      : FTAGENT_OP_CONNECT,
				      &err))
		TH_LOG("%s", err.msg);
		EXPECT_EQ(0, set_rule(-1, &err));
		break;
	case CHECK_BUDGET:
		EXPECT_EQ(-1, set_budget(variant->arg, &err));
		EXPECT_EQ(EOPNOTSUPP, err.err);
		EXPECT_NE(NULL, strstr(err.msg, "lacks a function"))
		TH_LOG("message: %s", err.msg);
		EXPECT_EQ(0, set_budget(FTAGENT_METRIC_CONNECTS, &err))
		TH_LOG("%s", err.msg);
		EXPECT_EQ(0, set_budget(-1, &err));
		break;
	case CHECK_NOTHING_REFUSED:
		EXPECT_EQ(0, set_rule(variant->arg ? variant->arg
						   : FTAGENT_OP_SEND,
				      &err))
		TH_LOG("%s", err.msg);
		EXPECT_EQ(0, set_rule(-1, &err));
		break;
	case CHECK_AIO: EXPECT_EQ(0, aio_write_counted(1234)); break;
	case CHECK_MMSG:
		EXPECT_TRUE(mmsgs_counted());
		EXPECT_TRUE(x32_mmsgs_counted());
		break;
	case CHECK_STATUS_ONLY:
		ASSERT_EQ(0, prctl(PR_SET_NAME, "ftdeg-renamed"));
		break;
	}
}

TEST_RELOADS(strict_refuses_the_load_instead)
{
	klogctl(5, NULL, 0);
	EXPECT_EQ(-ENOENT,
		  ft_reload_module("strict=1 pretend_missing=sock_close"));
	EXPECT_EQ(-ENOENT, ft_unload_module()) TH_LOG("it must not be loaded");
	EXPECT_TRUE(klog_has("strict=1: refusing"));
	EXPECT_EQ(0, ft_reload_module("strict=1"));
	EXPECT_EQ(0, ft_reload_module(NULL));
}

TEST_RELOADS(a_name_that_is_not_ours_is_a_typo)
{
	EXPECT_EQ(-EINVAL, ft_reload_module("pretend_missing=sock_clsoe"));
	EXPECT_EQ(0, ft_reload_module(NULL));
}

/* Load or unload the holder of __x64_sys_pread64 as a direct call. */
static int holder(int load)
{
	return holder_as(load, "symbol=__x64_sys_pread64");
}

#define LIVEPATCH_LIKE "symbol=__x64_sys_pread64 ipmodify=1"

/*
 * How many functions enabled_functions shows called directly by the
 * ftrace set's entry trampoline (ftagent_entry_tramp or _ew_tramp); -1 if
 * tracefs cannot be read.
 */
static int entry_direct_functions(void)
{
	char line[512];
	int n = 0;
	FILE *f = ft_enabled_functions();

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] == '\t' &&
		    strstr(line, "direct-->ftagent_entry_") &&
		    strstr(line, "[ftagent]"))
			n++;
	fclose(f);
	return n;
}

/*
 * The module attaches the entry set as direct calls in ops of at most
 * this many functions (kmod/hooks_ftrace.c, FTAGENT_DIRECT_PER_OPS): 6.1
 * leaks a table when one registration adds more than 64.
 */
#define DIRECT_PER_OPS 48

/*
 * With @symbol's slot held, the whole set falls back to ftrace_ops (none
 * of it stays direct, whichever of its ops met the holder; when it was
 * not the first, the kernel log says the ones before were taken off),
 * counts exactly, and takes every function back as direct calls once the
 * slot is free; ftagent's slot then cannot be taken from it.
 */
static void fall_back_and_come_back(struct __test_metadata *_metadata,
				    const char *symbol, int last_ops)
{
	char params[128];
	struct ftagent_status st;
	struct ftnl_error err;
	int all;

	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"))
	TH_LOG("set FTAGENT_HOLDER_KO to ftagent_test_holder.ko");
	/* One a failed test before left behind would hold the slot. */
	holder_as(0, NULL);
	snprintf(params, sizeof(params), "symbol=%s", symbol);
	ASSERT_EQ(0, ft_reload_module("hooks=ftrace mode=standard"));
	all = entry_direct_functions();
	ASSERT_LT(0, all);
	if (last_ops && all <= DIRECT_PER_OPS) {
		ft_reload_module(NULL);
		SKIP(return, "%d entry points fit one direct ops here", all);
	}

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, holder_as(1, params)) TH_LOG("holder %s", params);
	klog_clear();
	ASSERT_EQ(0, ft_reload_module("hooks=ftrace mode=standard"));
	ASSERT_EQ(0, status(&st));
	EXPECT_TRUE(st.present & FTAGENT_STATUS_HAVE_DIRECT);
	EXPECT_EQ(0, st.direct_calls);
	EXPECT_EQ(0, entry_direct_functions());
	EXPECT_EQ(last_ops, klog_has("taking the first"));
	EXPECT_EQ(FTAGENT_HOOKS_FTRACE, hook_set());
	EXPECT_TRUE(preads_counted(100));

	/* The slot is free again: the next attach takes it. */
	ASSERT_EQ(0, holder_as(0, NULL));
	ASSERT_EQ(0, set_hooks(FTAGENT_HOOKS_KPROBE, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(0, set_hooks(FTAGENT_HOOKS_FTRACE, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(0, status(&st));
	EXPECT_EQ(1, st.direct_calls);
	EXPECT_EQ(all, entry_direct_functions());
	EXPECT_TRUE(preads_counted(100));

	/* And a holder now cannot take it from ftagent. */
	EXPECT_EQ(-EBUSY, holder_as(1, params));
	EXPECT_TRUE(preads_counted(10));
	holder_as(0, NULL);
	EXPECT_EQ(0, ft_reload_module(NULL));
}

/* A function of the set's first ops... */
TEST_RELOADS(direct_calls_fall_back_and_come_back)
{
	fall_back_and_come_back(_metadata, "__x64_sys_pread64", 0);
}

/*
 * ...and of its last, met after the first is attached: that one is taken
 * off again. (The ia32 creat is the last entry point in kmod/calls.c, in
 * the standard mode.)
 */
TEST_RELOADS(a_held_slot_in_the_last_direct_ops_falls_back_whole)
{
	fall_back_and_come_back(_metadata, "__ia32_sys_creat", 1);
}

/*
 * A livepatch of a function ftagent traces (an IPMODIFY ftrace_ops on it)
 * goes on and comes off whichever was there first, ftagent keeps its
 * direct calls, and counting stays exact: without ops_func on the direct
 * ops, ftrace refuses the livepatch with EBUSY.
 */
TEST_RELOADS(a_livepatch_shares_the_traced_functions)
{
	struct ftagent_status st;

	ASSERT_NE(NULL, getenv("FTAGENT_HOLDER_KO"));
	/* ftagent first, then the livepatch. */
	ASSERT_EQ(0, ft_reload_module("hooks=ftrace"));
	ASSERT_EQ(0, status(&st));
	ASSERT_EQ(1, st.direct_calls);
	ASSERT_EQ(0, holder_as(1, LIVEPATCH_LIKE));
	EXPECT_TRUE(preads_counted(100));
	ASSERT_EQ(0, status(&st));
	EXPECT_EQ(1, st.direct_calls);
	ASSERT_EQ(0, holder(0));
	EXPECT_TRUE(preads_counted(10));

	/* The livepatch first, then ftagent. */
	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, holder_as(1, LIVEPATCH_LIKE));
	ASSERT_EQ(0, ft_reload_module("hooks=ftrace"));
	ASSERT_EQ(0, status(&st));
	EXPECT_EQ(1, st.direct_calls);
	EXPECT_TRUE(preads_counted(100));
	/* ftagent goes while the livepatch stays. */
	EXPECT_EQ(0, ft_unload_module());
	EXPECT_EQ(0, holder(0));
	EXPECT_EQ(0, ft_reload_module(NULL));
}

/* The status's exit_work, and the kernel's view (enabled_functions). */
static int exit_work_status(struct __test_metadata *_metadata)
{
	struct ftagent_status st;

	if (status(&st))
		return -1;
	EXPECT_TRUE(st.present & FTAGENT_STATUS_HAVE_EXIT_WORK);
	EXPECT_EQ(ft_exit_work_on(), st.exit_work);
	return st.exit_work;
}

/*
 * The ftrace set returns through the syscall exit work unless told
 * otherwise (exit_work=0) or unable: with kernel.ftrace_enabled at 0 its
 * PERMANENT hooks cannot register, and the set settles through
 * TIF_NOTIFY_RESUME instead, says so in its status, and counts. A switch
 * of hook set after the sysctl is back takes the exit work again. The
 * kprobe set reports 0.
 */
TEST_RELOADS(the_exit_work_falls_back_and_comes_back)
{
	struct ftnl_error err;

	ASSERT_EQ(0, ft_reload_module("hooks=ftrace exit_work=1"));
	EXPECT_EQ(1, exit_work_status(_metadata));
	EXPECT_TRUE(preads_counted(100));

	ASSERT_EQ(0, ft_reload_module("hooks=ftrace exit_work=0"));
	EXPECT_EQ(0, exit_work_status(_metadata));
	EXPECT_TRUE(preads_counted(100));

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, ft_set_ftrace_enabled(0));
	EXPECT_EQ(0, ft_reload_module("hooks=ftrace exit_work=1"));
	/* Back on before anything can fail out of the test. */
	ASSERT_EQ(0, ft_set_ftrace_enabled(1));
	EXPECT_EQ(0, exit_work_status(_metadata));
	EXPECT_EQ(FTAGENT_HOOKS_FTRACE, hook_set());
	EXPECT_TRUE(preads_counted(100));
	ASSERT_EQ(0, set_hooks(FTAGENT_HOOKS_KPROBE, &err))
	TH_LOG("%s", err.msg);
	EXPECT_EQ(0, exit_work_status(_metadata));
	EXPECT_TRUE(preads_counted(100));
	ASSERT_EQ(0, set_hooks(FTAGENT_HOOKS_FTRACE, &err))
	TH_LOG("%s", err.msg);
	EXPECT_EQ(1, exit_work_status(_metadata));
	EXPECT_TRUE(preads_counted(100));
	/* With the exit work's hooks on, the sysctl is refused. */
	EXPECT_EQ(-EBUSY, ft_set_ftrace_enabled(0));
	EXPECT_EQ(0, ft_reload_module(NULL));
}

TEST_HARNESS_MAIN
