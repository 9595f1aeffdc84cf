// SPDX-License-Identifier: GPL-2.0
/*
 * The policy gate, decided in the kernel before the call runs: a denied
 * connect gets EPERM and no connection reaches the listener; other
 * processes and other ports are untouched; monitor mode refuses nothing
 * and reports everything; exec, open, send and bind rules; principals by
 * command name, uid and process subtree; hit counts exact; a rule set
 * with one bad rule is refused whole, naming the rule, and the old set
 * still enforces; the module unloads cleanly while calls are being
 * denied.
 */
#include <elf.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "gate_test.h"
#include "ia32_test.h"
#include "../../tools/lib/policy.h"

static int clear_policy(void)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	int rc;

	ftagent_policy_spec_init(&p);
	rc = set_policy(&p, &err);
	if (rc)
		fprintf(stderr, "# clear policy: %s\n", err.msg);
	ftagent_policy_spec_free(&p);
	return rc;
}

static struct ftagent_rule_spec *rule(struct ftagent_policy_spec *p,
				      const char *name, uint32_t ops,
				      uint32_t action)
{
	struct ftagent_rule_spec *r = ftagent_policy_spec_add(p);

	if (!r)
		abort();
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ops = ops;
	r->action = action;
	return r;
}

static void port_rule(struct ftagent_rule_spec *r, uint16_t lo, uint16_t hi)
{
	r->set |= FTAGENT_RULE_SET_PORT;
	r->port_min = lo;
	r->port_max = hi;
}

/* Connections the listener got (accepted and closed). */
static int drain_accepts(int lfd)
{
	int n = 0, c;

	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

/* Run @fn in a child named @comm; its exit status is fn's result. */
static int in_child(const char *comm, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (comm)
			prctl(PR_SET_NAME, comm);
		_exit(fn(arg) & 0xff);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int connect_errno(void *arg)
{
	return -try_connect(*(uint16_t *)arg);
}

/* The first verdict record of @tgid, read within @ms. */
static const struct ftagent_rec *verdict_of(struct ev_log *l, pid_t tgid,
					    int ms)
{
	size_t i = 0;

	ev_wait(l, FTAGENT_REC_VERDICT, tgid, ms);
	return ev_next(l, &i, FTAGENT_REC_VERDICT, tgid);
}

FIXTURE(gate)
{
	struct ev_log log;
	int lfd;
	uint16_t port, other_port;
	int other_lfd;
};

FIXTURE_SETUP(gate)
{
	ASSERT_EQ(0, clear_policy());
	ASSERT_EQ(0, ev_open(&self->log));
	self->lfd = listener(&self->port);
	self->other_lfd = listener(&self->other_port);
}

FIXTURE_TEARDOWN(gate)
{
	EXPECT_EQ(0, clear_policy());
	close(self->lfd);
	close(self->other_lfd);
	ev_close(&self->log);
}

TEST_F(gate, denied_connect_gets_eperm_and_reaches_no_listener)
{
	struct ftagent_policy_spec p;
	struct ftagent_policy_spec got;
	const struct ftagent_rec *rec;
	const struct ftagent_rec_verdict *v;
	struct ftnl_error err;
	long opens;
	int i;

	ftagent_policy_spec_init(&p);
	port_rule(rule(&p, "no-port", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	opens = tcp_active_opens();
	ASSERT_GE(opens, 0);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(-EPERM, try_connect(self->port));
	/* No SYN left (the kernel's own count), and the listener saw nothing. */
	EXPECT_EQ(opens, tcp_active_opens());
	ev_sleep_ms(50);
	EXPECT_EQ(0, drain_accepts(self->lfd));
	/* Another port goes through, and reaches its listener. */
	ASSERT_EQ(0, try_connect(self->other_port));
	EXPECT_EQ(opens + 1, tcp_active_opens());
	ev_sleep_ms(50);
	EXPECT_EQ(1, drain_accepts(self->other_lfd));

	rec = verdict_of(&self->log, getpid(), 2000);
	ASSERT_NE(NULL, rec);
	v = EV_BODY(rec, struct ftagent_rec_verdict);
	EXPECT_EQ(0, v->rule);
	EXPECT_EQ(FTAGENT_OP_CONNECT, v->op);
	EXPECT_EQ(FTAGENT_VERDICT_DENIED, v->verdict);
	EXPECT_EQ(-EPERM, v->error);
	EXPECT_EQ(AF_INET, v->family);
	EXPECT_EQ(self->port, v->port);
	/* 127.0.0.1, and nothing past its 4 bytes: no stale kernel stack. */
	EXPECT_EQ(0, memcmp(v->addr, "\x7f\0\0\x01", 4));
	for (i = 4; i < (int)sizeof(v->addr); i++)
		EXPECT_EQ(0, v->addr[i]) TH_LOG("addr[%d]", i);
	EXPECT_STREQ("no-port", v->rule_name);
	EXPECT_EQ(5, ev_count(&self->log, FTAGENT_REC_VERDICT, getpid()));

	/* Hits: the 5 denied calls; the default decided the allowed one. */
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err));
	ASSERT_EQ(1, got.n);
	EXPECT_STREQ("no-port", got.rules[0].name);
	EXPECT_EQ(5, got.rules[0].hits);
	EXPECT_EQ(self->port, got.rules[0].port_min);
	EXPECT_GE(got.default_hits, 1);
	ftagent_policy_spec_free(&got);
	ftagent_policy_spec_free(&p);
}

TEST_F(gate, a_command_name_picks_the_process)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	r = rule(&p, "ftg-denied-only", 1u << FTAGENT_OP_CONNECT,
		 FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_COMM;
	strcpy(r->comm, "ftg-denied");
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(EPERM, in_child("ftg-denied", connect_errno, &self->port));
	EXPECT_EQ(0, in_child("ftg-allowed", connect_errno, &self->port));
	EXPECT_EQ(0, try_connect(self->port));
	ev_sleep_ms(50);
	EXPECT_EQ(2, drain_accepts(self->lfd));
	ftagent_policy_spec_free(&p);
}

TEST_F(gate, monitor_mode_refuses_nothing_and_reports_everything)
{
	struct ftagent_policy_spec p;
	const struct ftagent_rec *rec;
	struct ftnl_error err;
	int i;

	ftagent_policy_spec_init(&p);
	p.enforce = 0;
	port_rule(rule(&p, "watch", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, try_connect(self->port));
	ev_sleep_ms(50);
	EXPECT_EQ(3, drain_accepts(self->lfd));
	rec = verdict_of(&self->log, getpid(), 2000);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(FTAGENT_VERDICT_WOULD_DENY,
		  EV_BODY(rec, struct ftagent_rec_verdict)->verdict);
	EXPECT_EQ(0, EV_BODY(rec, struct ftagent_rec_verdict)->error);
	EXPECT_EQ(3, ev_count(&self->log, FTAGENT_REC_VERDICT, getpid()));
	ftagent_policy_spec_free(&p);
}

TEST_F(gate, a_bad_rule_rejects_the_set_and_the_old_one_stays)
{
	struct ftagent_policy_spec good, bad, got;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;

	ftagent_policy_spec_init(&good);
	port_rule(rule(&good, "no-port", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	ASSERT_EQ(0, set_policy(&good, &err)) TH_LOG("%s", err.msg);

	ftagent_policy_spec_init(&bad);
	rule(&bad, "fine", 1u << FTAGENT_OP_OPEN, FTAGENT_ACTION_AUDIT);
	r = rule(&bad, "reversed", 1u << FTAGENT_OP_CONNECT,
		 FTAGENT_ACTION_DENY);
	port_rule(r, 90, 80);
	ASSERT_EQ(-1, set_policy(&bad, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ("PORT_MAX is below PORT_MIN", err.msg);
	EXPECT_TRUE(err.has_offset);

	/* Paths on a connect rule, a relative path, no name, no ops. */
	bad.rules[1].set = FTAGENT_RULE_SET_PATH;
	strcpy(bad.rules[1].path_prefix, "/etc/");
	ASSERT_EQ(-1, set_policy(&bad, &err));
	EXPECT_STREQ("PATH_PREFIX applies to exec and "
		     "open only",
		     err.msg);
	bad.rules[1].ops = 1u << FTAGENT_OP_OPEN;
	strcpy(bad.rules[1].path_prefix, "etc/");
	ASSERT_EQ(-1, set_policy(&bad, &err));
	EXPECT_STREQ("PATH_PREFIX must be an absolute path", err.msg);
	bad.rules[1].name[0] = '\0';
	ASSERT_EQ(-1, set_policy(&bad, &err));
	EXPECT_STREQ("NAME is required", err.msg);
	strcpy(bad.rules[1].name, "x");
	bad.rules[1].set = 0;
	bad.rules[1].ops = 0;
	ASSERT_EQ(-1, set_policy(&bad, &err));
	EXPECT_NE(NULL, strstr(err.msg, "OPS"));
	bad.rules[1].ops = 1u << 7; /* no such operation */
	ASSERT_EQ(-1, set_policy(&bad, &err));
	/* The core's own reason; the offset says which rule. */
	EXPECT_STRNE("", err.msg);
	EXPECT_TRUE(err.has_offset);

	/* The good set still enforces, unchanged. */
	EXPECT_EQ(-EPERM, try_connect(self->port));
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err));
	ASSERT_EQ(1, got.n);
	EXPECT_STREQ("no-port", got.rules[0].name);
	ftagent_policy_spec_free(&got);
	ftagent_policy_spec_free(&good);
	ftagent_policy_spec_free(&bad);
}

TEST_F(gate, first_match_wins_and_allow_rules_carve_out)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	/* Allow our listener's port, deny the whole range around it. */
	port_rule(rule(&p, "allow-one", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_ALLOW),
		  self->port, self->port);
	port_rule(rule(&p, "deny-all", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  1, 65535);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, try_connect(self->port));
	EXPECT_EQ(-EPERM, try_connect(self->other_port));
	ftagent_policy_spec_free(&p);
}

/* The largest set loads, dumps back whole, and decides; one more is refused. */
TEST_F(gate, the_largest_rule_set)
{
	struct ftagent_policy_spec p, got;
	struct ftnl_error err;
	unsigned int i;

	ftagent_policy_spec_init(&p);
	for (i = 0; i < FTAGENT_POLICY_RULES_MAX; i++) {
		char name[32];

		snprintf(name, sizeof(name), "r%u", i);
		/* Ports 1..: none is ours, except the last rule's. */
		port_rule(rule(&p, name, 1u << FTAGENT_OP_CONNECT,
			       FTAGENT_ACTION_DENY),
			  i + 1 == FTAGENT_POLICY_RULES_MAX ? self->port : 1,
			  i + 1 == FTAGENT_POLICY_RULES_MAX ? self->port : 1);
	}
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EPERM, try_connect(self->port));
	EXPECT_EQ(0, try_connect(self->other_port));
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err));
	ASSERT_EQ(FTAGENT_POLICY_RULES_MAX, got.n);
	EXPECT_STREQ("r16383", got.rules[FTAGENT_POLICY_RULES_MAX - 1].name);
	EXPECT_EQ(1, got.rules[FTAGENT_POLICY_RULES_MAX - 1].hits);
	EXPECT_EQ(0, got.rules[0].hits);
	ftagent_policy_spec_free(&got);
	rule(&p, "one-too-many", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_DENY);
	ASSERT_EQ(-1, set_policy(&p, &err));
	EXPECT_STREQ("more than FTAGENT_POLICY_RULES_MAX rules", err.msg);
	ftagent_policy_spec_free(&p);
}

/* Order holds across one-port rules and the others (the gate indexes them). */
TEST_F(gate, rule_order_holds_across_port_rules_and_others)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;

	ftagent_policy_spec_init(&p);
	/* An audit rule for every connect comes first: it decides. */
	rule(&p, "audit-all", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_AUDIT);
	port_rule(rule(&p, "deny-one", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, try_connect(self->port));
	/* The same two the other way round: the port rule decides. */
	p.rules[0] = p.rules[1];
	p.n = 1;
	rule(&p, "audit-all", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_AUDIT);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EPERM, try_connect(self->port));
	EXPECT_EQ(0, try_connect(self->other_port));
	/* A port in the same bucket (port + 256) is not the port. */
	p.rules[0].port_min = p.rules[0].port_max =
		(uint16_t)(self->other_port + 256);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, try_connect(self->other_port));
	ftagent_policy_spec_free(&p);
}

static int exec_true(void *arg)
{
	char *const argv[] = {(char *)arg, NULL};

	execv(arg, argv);
	return errno;
}

/* A copy of @from at @path, mode 0755: 0, or -1 if any step failed. */
static int copy_file(const char *from, const char *path)
{
	int src = open(from, O_RDONLY);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	char buf[65536];
	int rc = src < 0 || fd < 0 ? -1 : 0;
	ssize_t n = 0;

	while (!rc && (n = read(src, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	if (src >= 0)
		close(src);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A copy of /bin/true at @path, mode 0755: 0, or -1. */
static int copy_true(const char *path)
{
	return copy_file("/bin/true", path);
}

/* Make the ELF program at @path ask for @interp (PT_INTERP): 0, or -1. */
static int set_interp(const char *path, const char *interp)
{
	int fd = open(path, O_RDWR), i, rc = -1;
	char name[256] = {0};
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph),
			  eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			goto out;
		if (ph.p_type != PT_INTERP)
			continue;
		if (strlen(interp) + 1 > ph.p_filesz ||
		    ph.p_filesz > sizeof(name))
			goto out;
		strcpy(name, interp);
		if (pwrite(fd, name, ph.p_filesz, ph.p_offset) ==
		    (ssize_t)ph.p_filesz)
			rc = 0;
		break;
	}
out:
	close(fd);
	return rc;
}

/* Run @path in a child: its wait status, or -1. */
static int exec_status(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(exec_true((void *)path) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

TEST_F(gate, exec_and_open_by_path_prefix)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	char copy[] = "/tmp/ftg-noexec/true";
	int fd;

	mkdir("/tmp/ftg-noexec", 0755);
	mkdir("/tmp/ftg-secret", 0755);
	ASSERT_EQ(0, copy_true(copy));
	fd = open("/tmp/ftg-secret/key", O_WRONLY | O_CREAT, 0600);
	ASSERT_GE(fd, 0);
	close(fd);

	ftagent_policy_spec_init(&p);
	r = rule(&p, "noexec-tmp", 1u << FTAGENT_OP_EXEC, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_PATH;
	strcpy(r->path_prefix, "/tmp/ftg-noexec/");
	r = rule(&p, "secret", 1u << FTAGENT_OP_OPEN, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_PATH;
	strcpy(r->path_prefix, "/tmp/ftg-secret/");
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	EXPECT_EQ(EPERM, in_child(NULL, exec_true, copy));
	EXPECT_EQ(0, in_child(NULL, exec_true, "/bin/true"));
	EXPECT_EQ(-1, open("/tmp/ftg-secret/key", O_RDONLY));
	EXPECT_EQ(EPERM, errno);
	fd = open("/tmp/ftg-noexec/true", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	ftagent_policy_spec_free(&p);
	ASSERT_EQ(0, clear_policy());
	unlink(copy);
	unlink("/tmp/ftg-secret/key");
	rmdir("/tmp/ftg-noexec");
	rmdir("/tmp/ftg-secret");
}

/* Write @text to @path, mode 0755. */
static int write_script(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * An exec rule decides each interpreter an execve() hands on to, not only
 * the file named: a script whose #! line names a denied program is refused,
 * through a script that names that script too; a script run by an
 * allowed interpreter is not.
 */
TEST_F(gate, exec_rules_decide_a_script_s_interpreter)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;

	mkdir("/tmp/ftg-interp", 0755);
	mkdir("/tmp/ftg-scripts", 0755);
	ASSERT_EQ(0, copy_true("/tmp/ftg-interp/true"));
	ASSERT_EQ(0, write_script("/tmp/ftg-scripts/denied",
				  "#!/tmp/ftg-interp/true\n"));
	ASSERT_EQ(0, write_script("/tmp/ftg-scripts/nested",
				  "#!/tmp/ftg-scripts/denied\n"));
	ASSERT_EQ(0, write_script("/tmp/ftg-scripts/allowed", "#!/bin/true\n"));
	/* Without a rule, each runs. */
	EXPECT_EQ(0, in_child(NULL, exec_true, "/tmp/ftg-scripts/denied"));
	EXPECT_EQ(0, in_child(NULL, exec_true, "/tmp/ftg-scripts/nested"));

	ftagent_policy_spec_init(&p);
	r = rule(&p, "noexec-interp", 1u << FTAGENT_OP_EXEC,
		 FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_PATH;
	strcpy(r->path_prefix, "/tmp/ftg-interp/");
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	EXPECT_EQ(EPERM, in_child(NULL, exec_true, "/tmp/ftg-interp/true"));
	EXPECT_EQ(EPERM, in_child(NULL, exec_true, "/tmp/ftg-scripts/denied"));
	EXPECT_EQ(EPERM, in_child(NULL, exec_true, "/tmp/ftg-scripts/nested"));
	EXPECT_EQ(0, in_child(NULL, exec_true, "/tmp/ftg-scripts/allowed"));
	ftagent_policy_spec_free(&p);
	ASSERT_EQ(0, clear_policy());
	unlink("/tmp/ftg-scripts/denied");
	unlink("/tmp/ftg-scripts/nested");
	unlink("/tmp/ftg-scripts/allowed");
	unlink("/tmp/ftg-interp/true");
	rmdir("/tmp/ftg-scripts");
	rmdir("/tmp/ftg-interp");
}

/*
 * An ELF program's interpreter (PT_INTERP) is mapped by the kernel's ELF
 * loader, past the exec hook: a rule denying it must still keep it from
 * running. The program is a copy of /bin/true made to ask for a copy of
 * the dynamic loader; the loader's copy is what the rule denies. Refused
 * run on its own (EPERM); as an interpreter, the exec cannot fail there
 * and the task is killed before the program's first instruction.
 */
TEST_F(gate, exec_rules_decide_an_elf_program_s_interpreter)
{
	const char *ld = "/tmp/ftg-ld/ld.so", *prog = "/tmp/ftg-elf-true";
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int status;

	mkdir("/tmp/ftg-ld", 0755);
	ASSERT_EQ(0, copy_file("/lib64/ld-linux-x86-64.so.2", ld));
	ASSERT_EQ(0, copy_true(prog));
	ASSERT_EQ(0, set_interp(prog, ld));
	/* Without a rule it runs, through that loader. */
	EXPECT_EQ(0, exec_status(prog));

	ftagent_policy_spec_init(&p);
	r = rule(&p, "noexec-ld", 1u << FTAGENT_OP_EXEC, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_PATH;
	strcpy(r->path_prefix, "/tmp/ftg-ld/");
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	EXPECT_EQ(EPERM, in_child(NULL, exec_true, (void *)ld));
	status = exec_status(prog);
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	/* A program with another interpreter runs. */
	EXPECT_EQ(0, exec_status("/bin/true"));
	ftagent_policy_spec_free(&p);
	ASSERT_EQ(0, clear_policy());
	EXPECT_EQ(0, exec_status(prog));
	unlink(prog);
	unlink(ld);
	rmdir("/tmp/ftg-ld");
}

TEST_F(gate, send_and_bind_by_port_and_address)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct ftnl_error err;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ftagent_policy_spec_init(&p);
	r = rule(&p, "no-dns-out", 1u << FTAGENT_OP_SEND, FTAGENT_ACTION_DENY);
	port_rule(r, 53, 53);
	r->set |= FTAGENT_RULE_SET_ADDR | FTAGENT_RULE_SET_PREFIX_LEN;
	r->addr_len = 4;
	r->addr[0] = 127; /* 127.0.0.0/8 */
	r->prefix_len = 8;
	port_rule(rule(&p, "no-low-bind", 1u << FTAGENT_OP_BIND,
		       FTAGENT_ACTION_DENY),
		  1, 1023);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(53);
	EXPECT_EQ(-1,
		  sendto(fd, "q", 1, 0, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	to.sin_port = htons(5353);
	EXPECT_EQ(1, sendto(fd, "q", 1, 0, (struct sockaddr *)&to, sizeof(to)));
	/* A connected socket: the peer is the destination. */
	to.sin_port = htons(53);
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(-1, send(fd, "q", 1, 0));
	EXPECT_EQ(EPERM, errno);
	close(fd);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	to.sin_port = htons(999);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	to.sin_port = htons(0);
	EXPECT_EQ(0, bind(fd, (struct sockaddr *)&to, sizeof(to)));
	close(fd);
	ftagent_policy_spec_free(&p);
}

#ifndef AF_SMC
#define AF_SMC 43
#endif

/* The ways around a send or bind rule that the gate must also close. */
/*
 * A connection an AF_SMC listener accepts after it fell back to TCP
 * before it listened, from a client bound to @client_port on loopback:
 * 0 with the accepted socket in @acc and the client in @cl, or -1.
 */
static int smc_accepted_from(uint16_t client_port, int *acc, int *cl)
{
	struct sockaddr_in at = {.sin_family = AF_INET};
	struct sockaddr_in from = {.sin_family = AF_INET};
	socklen_t len = sizeof(at);
	int l, qlen = 5, one = 1;

	*acc = *cl = -1;
	l = socket(AF_SMC, SOCK_STREAM, 0);
	if (l < 0)
		return -1;
	at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	from.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	from.sin_port = htons(client_port);
	*cl = socket(AF_INET, SOCK_STREAM, 0);
	if (setsockopt(l, SOL_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)) ||
	    bind(l, (struct sockaddr *)&at, sizeof(at)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&at, &len) || *cl < 0 ||
	    setsockopt(*cl, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(*cl, (struct sockaddr *)&from, sizeof(from)) ||
	    connect(*cl, (struct sockaddr *)&at, sizeof(at)))
		goto fail;
	*acc = accept(l, NULL, NULL);
	if (*acc < 0)
		goto fail;
	close(l);
	return 0;
fail:
	close(l);
	if (*cl >= 0)
		close(*cl);
	*cl = -1;
	return -1;
}

TEST_F(gate, no_way_around_send_and_bind_rules)
{
	struct ftagent_policy_spec p;
	struct sockaddr_in to = {.sin_family = AF_UNSPEC};
	struct sockaddr_in peer = {.sin_family = AF_INET};
	struct ftnl_error err;
	char path[] = "/tmp/ftg-sendfile";
	int fd, c, f;
	off_t off = 0;

	ftagent_policy_spec_init(&p);
	port_rule(rule(&p, "no-send-53", 1u << FTAGENT_OP_SEND,
		       FTAGENT_ACTION_DENY),
		  53, 53);
	port_rule(rule(&p, "no-send-listener", 1u << FTAGENT_OP_SEND,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	port_rule(rule(&p, "no-bind-999", 1u << FTAGENT_OP_BIND,
		       FTAGENT_ACTION_DENY),
		  999, 999);
	port_rule(rule(&p, "no-connect-other", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->other_port, self->other_port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	/* Family 0 on an IPv4 socket is taken as AF_INET by the kernel. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(53);
	EXPECT_EQ(-1,
		  sendto(fd, "q", 1, 0, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	to.sin_addr.s_addr = htonl(INADDR_ANY);
	to.sin_port = htons(999);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EPERM, errno);
	close(fd);

	/* TCP: the peer decides, whatever address a send names. */
	c = socket(AF_INET, SOCK_STREAM, 0);
	peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	peer.sin_port = htons(self->port);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&peer, sizeof(peer)));
	peer.sin_port = htons(5353);
	EXPECT_EQ(-1,
		  sendto(c, "x", 1, 0, (struct sockaddr *)&peer, sizeof(peer)));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, write(c, "x", 1));
	EXPECT_EQ(EPERM, errno);
	/* sendfile to the socket does not pass security_socket_sendmsg. */
	f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(f, 0);
	ASSERT_EQ(4, write(f, "data", 4));
	EXPECT_EQ(-1, sendfile(c, f, &off, 4));
	EXPECT_EQ(EPERM, errno);
	close(f);
	unlink(path);
	close(c);

	/* TCP Fast Open connects inside sendto: a connect rule applies. */
	c = socket(AF_INET, SOCK_STREAM, 0);
	peer.sin_port = htons(self->other_port);
	EXPECT_EQ(-1, sendto(c, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&peer,
			     sizeof(peer)));
	EXPECT_EQ(EPERM, errno);
	close(c);
	/*
	 * So does AF_SMC's: it falls back to TCP and connects its kernel TCP
	 * socket underneath inside the send, and its connect() as well.
	 */
	if (system("modprobe smc 2>/dev/null"))
		TH_LOG("modprobe smc failed");
	c = socket(AF_SMC, SOCK_STREAM, 0);
	ASSERT_LE(0, c) TH_LOG("AF_SMC: %s", strerror(errno));
	EXPECT_EQ(-1, sendto(c, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&peer,
			     sizeof(peer)));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, connect(c, (struct sockaddr *)&peer, sizeof(peer)));
	EXPECT_EQ(EPERM, errno);
	close(c);
	/*
	 * Its fallback to TCP puts its kernel TCP socket in the file, and
	 * sends reach that socket directly: a send rule still applies.
	 */
	c = socket(AF_SMC, SOCK_STREAM, 0);
	ASSERT_LE(0, c);
	peer.sin_port = htons(self->port);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&peer, sizeof(peer)));
	EXPECT_EQ(-1, send(c, "x", 1, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, write(c, "x", 1));
	EXPECT_EQ(EPERM, errno);
	close(c);
	/*
	 * Falling back before it listens, it accepts on that kernel socket:
	 * the connections are the user's too. The client sends from port
	 * 53, so the send rule on 53 decides what is sent back to it.
	 */
	EXPECT_EQ(0, smc_accepted_from(53, &c, &f))
	TH_LOG("AF_SMC listener: %s", strerror(errno));
	if (c >= 0) {
		EXPECT_EQ(-1, send(c, "x", 1, 0));
		EXPECT_EQ(EPERM, errno);
		EXPECT_EQ(-1, write(c, "x", 1));
		EXPECT_EQ(EPERM, errno);
		/* The client's own sends go to the listener's port: let by. */
		EXPECT_EQ(1, send(f, "y", 1, 0));
		close(c);
		close(f);
	}
	ev_sleep_ms(50);
	EXPECT_EQ(0, drain_accepts(self->other_lfd));
	ftagent_policy_spec_free(&p);
}

static int tcp_socket_fd(void)
{
	return socket(AF_INET, SOCK_STREAM, 0);
}

/*
 * The gate sits on the security hooks every way to an operation passes:
 * io_uring's CONNECT, SEND and OPENAT, run by the submitter, by an io-wq
 * worker and by an SQPOLL thread, are refused with EPERM as the system
 * calls are, and so are connect and send through int $0x80 (the 32-bit
 * connect, and socketcall). Ground truth besides the EPERMs: no SYN left
 * (the kernel's ActiveOpens), nothing reached the listener, and each
 * rule's hits are exactly the requests made.
 */
TEST_F(gate, io_uring_and_int80_pass_the_same_points)
{
	const char *secret = "/tmp/ftg-iour-secret";
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct sockaddr_in dns = {.sin_family = AF_INET};
	struct ftagent_policy_spec p, got;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	uint32_t *low;
	long opens;
	int mode, c, u, fd;

	fd = open(secret, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	close(fd);
	ftagent_policy_spec_init(&p);
	port_rule(rule(&p, "no-port", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	port_rule(rule(&p, "no-send-53", 1u << FTAGENT_OP_SEND,
		       FTAGENT_ACTION_DENY),
		  53, 53);
	r = rule(&p, "secret", 1u << FTAGENT_OP_OPEN, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_PATH;
	strcpy(r->path_prefix, secret);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(self->port);
	dns.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dns.sin_port = htons(53);
	opens = tcp_active_opens();
	ASSERT_GE(opens, 0);
	for (mode = 0; mode < IOUR_MODES; mode++) {
		c = tcp_socket_fd();
		ASSERT_GE(c, 0);
		EXPECT_EQ(-EPERM, iour_one(mode, IORING_OP_CONNECT, c,
					   (uintptr_t)&to, 0, sizeof(to)))
		TH_LOG("connect, mode %d", mode);
		close(c);
		/* A connected UDP socket: the send names no address. */
		u = socket(AF_INET, SOCK_DGRAM, 0);
		ASSERT_EQ(0, connect(u, (struct sockaddr *)&dns, sizeof(dns)));
		EXPECT_EQ(-EPERM, iour_one(mode, IORING_OP_SEND, u,
					   (uintptr_t) "q", 1, 0))
		TH_LOG("send, mode %d", mode);
		close(u);
		EXPECT_EQ(-EPERM, iour_one(mode, IORING_OP_OPENAT, AT_FDCWD,
					   (uintptr_t)secret, 0, 0))
		TH_LOG("openat, mode %d", mode);
	}

	/* The 32-bit entry: arguments below 4 GiB. */
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	memcpy(low + 64, &to, sizeof(to));
	c = tcp_socket_fd();
	EXPECT_EQ(-EPERM,
		  call32(362 /* connect */, c, (long)(uintptr_t)(low + 64),
			 sizeof(to), 0, 0));
	close(c);
	c = tcp_socket_fd();
	low[0] = c;
	low[1] = (uint32_t)(uintptr_t)(low + 64);
	low[2] = sizeof(to);
	EXPECT_EQ(-EPERM, call32(102 /* socketcall */, 3 /* SYS_CONNECT */,
				 (long)(uintptr_t)low, 0, 0, 0));
	close(c);
	/* Connected to port 53: neither send names an address. */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_EQ(0, connect(u, (struct sockaddr *)&dns, sizeof(dns)));
	EXPECT_EQ(-EPERM, call32(369 /* sendto */, u,
				 (long)(uintptr_t)(low + 192), 1, 0, 0));
	low[0] = u;
	low[1] = (uint32_t)(uintptr_t)(low + 192);
	low[2] = 1;
	low[3] = 0;
	EXPECT_EQ(-EPERM, call32(102 /* socketcall */, 9 /* SYS_SEND */,
				 (long)(uintptr_t)low, 0, 0, 0));
	close(u);
	munmap(low, 4096);

	/* Nothing got out: no SYN, no connection. */
	EXPECT_EQ(opens, tcp_active_opens());
	ev_sleep_ms(50);
	EXPECT_EQ(0, drain_accepts(self->lfd));

	/* Each rule decided exactly the requests made its way. */
	ftagent_policy_spec_init(&got);
	ASSERT_EQ(0, ftagent_get_policy(ctl(), &got, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(3, got.n);
	EXPECT_EQ(IOUR_MODES + 2, got.rules[0].hits);
	EXPECT_EQ(IOUR_MODES + 2, got.rules[1].hits);
	EXPECT_EQ(IOUR_MODES, got.rules[2].hits);
	ftagent_policy_spec_free(&got);
	ftagent_policy_spec_free(&p);
	unlink(secret);
}

static int subtree_connect(void *arg)
{
	/* A grandchild: still in the subtree of its grandparent. */
	return in_child(NULL, connect_errno, arg);
}

TEST_F(gate, a_subtree_and_a_uid)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	int status, go[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(100);
		_exit(subtree_connect(&self->port));
	}
	close(go[0]);
	ftagent_policy_spec_init(&p);
	r = rule(&p, "tree", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_SUBTREE;
	r->subtree = pid;
	r = rule(&p, "uid-4242", 1u << FTAGENT_OP_CONNECT, FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_UID;
	r->uid = 4242;
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
	/* We are not in that subtree, nor uid 4242. */
	EXPECT_EQ(0, try_connect(self->port));
	ftagent_policy_spec_free(&p);
}

static volatile int hammer_stop;

/* Non-blocking: once the gate is gone, a full backlog must not hang us. */
static void *hammer(void *arg)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(*(uint16_t *)arg)};
	int fd;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (!hammer_stop) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fd, (struct sockaddr *)&sin, sizeof(sin));
		close(fd);
	}
	return NULL;
}

/*
 * Unload while calls are being denied, then load again for the runner.
 * An unload waits out RCU-tasks grace periods, one per ftrace_ops it
 * takes off: on the debug kernel under load, more than the harness's
 * 30 s (the debug tier at a365311).
 */
TEST_F_TIMEOUT(gate, unload_while_denying, 300)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	pthread_t t[4];
	int i, rc = -1;

	ftagent_policy_spec_init(&p);
	port_rule(rule(&p, "hammered", 1u << FTAGENT_OP_CONNECT,
		       FTAGENT_ACTION_DENY),
		  self->port, self->port);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);
	ev_close(&self->log);
	hammer_stop = 0;
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, hammer, &self->port));
	ev_sleep_ms(300);
	for (i = 0; i < 50 && rc; i++) {
		rc = ft_unload_module();
		if (rc)
			ev_sleep_ms(100);
	}
	EXPECT_EQ(0, rc) TH_LOG("unload: %s", strerror(-rc));
	hammer_stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	drain_accepts(self->lfd);
	/* The gate went with the module: connects go through again. */
	EXPECT_EQ(0, try_connect(self->port));
	ASSERT_EQ(0, ft_reload_module(NULL));
	/* The fixture's teardown talks to the new module. */
	ctl_forget();
	ASSERT_EQ(0, ev_open(&self->log));
}

TEST_HARNESS_MAIN
