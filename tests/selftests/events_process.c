// SPDX-License-Identifier: GPL-2.0
/*
 * Process records: FORK, EXEC and EXIT of a known child (this program
 * re-executed as a helper with odd arguments) carry what the kernel itself
 * says about that process in /proc/PID while it is stopped just before it
 * exits: its exe link, its cmdline (and XXH64 of it), its ids and cgroup,
 * its final I/O totals, its exit status, its names before and after a
 * rename. Threads are not processes, and a process ends with its last
 * thread.
 */
#include <pthread.h>
#include <sys/statfs.h>
#include <sys/mount.h>
#include <xxhash.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define CGROUP2_MAGIC 0x63677270

static int helper(const char *what, int argc, char **argv)
{
	return ev_basic_helper();
}

/* What the kernel says about a stopped process. */
struct truth {
	struct ev_io io;
	char exe[PATH_MAX];
	unsigned char cmdline[4096];
	ssize_t exe_len, cmdline_len;
	unsigned long uid, euid, gid;
	uint64_t cgroup_id;
};

/* The inode of the process's cgroup v2 directory. */
static int cgroup_id(pid_t pid, uint64_t *id)
{
	char path[2 * PATH_MAX], buf[PATH_MAX], mnt[] = "/tmp/ftcg.XXXXXX", *nl;
	const char *root = "/sys/fs/cgroup";
	struct statfs sfs;
	struct stat st;
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	n = ev_read_file(path, buf, sizeof(buf) - 1);
	if (n < 4 || strncmp(buf, "0::", 3))
		return -1;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (statfs(root, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		if (!mkdtemp(mnt) || mount("cgroup2", mnt, "cgroup2", 0, NULL))
			return -1;
		root = mnt;
	}
	snprintf(path, sizeof(path), "%s%s", root, buf + 3);
	rc = stat(path, &st);
	*id = st.st_ino;
	if (root == mnt) {
		umount(mnt);
		rmdir(mnt);
	}
	return rc;
}

static int read_truth(pid_t pid, struct truth *t)
{
	char path[64], status[4096], *p;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	t->exe_len = readlink(path, t->exe, sizeof(t->exe));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	t->cmdline_len = ev_read_file(path, t->cmdline, sizeof(t->cmdline));
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	n = ev_read_file(path, status, sizeof(status) - 1);
	if (t->exe_len <= 0 || t->cmdline_len <= 0 || n <= 0 ||
	    ev_proc_io(pid, &t->io) || cgroup_id(pid, &t->cgroup_id))
		return -1;
	status[n] = '\0';
	p = strstr(status, "\nUid:");
	if (!p || sscanf(p, "\nUid: %lu %lu", &t->uid, &t->euid) != 2)
		return -1;
	p = strstr(status, "\nGid:");
	return p && sscanf(p, "\nGid: %lu", &t->gid) == 1 ? 0 : -1;
}

/* A real uid unlike the effective one; root stays effective to exec. */
static int set_ids(void)
{
	return setresgid(4321, 4321, 4321) || setresuid(1234, 0, 0);
}

static void expect_io(struct __test_metadata *_metadata,
		      const struct ftagent_rec_exit *x, const struct ev_io *io)
{
	EXPECT_EQ(io->rchar, x->rchar);
	EXPECT_EQ(io->wchar, x->wchar);
	EXPECT_EQ(io->syscr, x->syscr);
	EXPECT_EQ(io->syscw, x->syscw);
	EXPECT_EQ(io->read_bytes, x->read_bytes);
	EXPECT_EQ(io->write_bytes, x->write_bytes);
}

TEST(fork_exec_exit_match_the_kernel)
{
	char *argv[] = {"  odd argv0\t", "",  "two words", "\n",
			"\xff\x01 high", NULL};
	char *envp[] = {EV_HELPER_ENV "=stop", "FTAGENT_EV_WRITES=100000:7",
			"FTAGENT_EV_COMM=ft renamed", "FTAGENT_EV_EXIT=7",
			NULL};
	const char *exe = ev_self_exe(), *base = strrchr(exe, '/') + 1;
	const struct ftagent_rec *fork_r, *exec_r, *exit_r;
	const struct ftagent_rec_exec *e;
	const struct ftagent_rec_exit *x;
	char comm[FTAGENT_COMM_LEN] = "", exec_comm[FTAGENT_COMM_LEN] = "";
	uint64_t t0, t1;
	struct truth t;
	struct ev_log log;
	int status;
	pid_t pid;

	ASSERT_EQ(0, ev_open(&log));
	ASSERT_EQ(0, prctl(PR_GET_NAME, comm));
	snprintf(exec_comm, sizeof(exec_comm), "%.15s", base);
	t0 = ev_now_ns();
	pid = ev_spawn(exe, argv, envp, set_ids);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, ev_wait_stopped(pid));
	ASSERT_EQ(0, read_truth(pid, &t));
	/* The helper did what it was told: the figures mean something. */
	ASSERT_EQ(100000, t.io.wchar);
	ASSERT_EQ(7, t.io.syscw);
	ASSERT_EQ(1234, t.uid);
	ASSERT_EQ(0, t.euid);
	ASSERT_EQ(4321, t.gid);
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	ASSERT_EQ(1, ev_wait(&log, FTAGENT_REC_EXIT, pid, 5000));
	t1 = ev_now_ns();

	fork_r = ev_one(&log, FTAGENT_REC_FORK, getpid());
	ASSERT_NE(NULL, fork_r);
	EXPECT_EQ(syscall(SYS_gettid), fork_r->hdr->pid);
	EXPECT_EQ(pid, EV_BODY(fork_r, struct ftagent_rec_fork)->child_tgid);
	EXPECT_TRUE(ev_comm_is(EV_BODY(fork_r, struct ftagent_rec_fork)->comm,
			       comm));

	exec_r = ev_one(&log, FTAGENT_REC_EXEC, pid);
	ASSERT_NE(NULL, exec_r);
	e = EV_BODY(exec_r, struct ftagent_rec_exec);
	EXPECT_EQ(pid, exec_r->hdr->pid);
	EXPECT_EQ(getpid(), e->ppid);
	EXPECT_EQ(t.uid, e->uid);
	EXPECT_EQ(t.euid, e->euid);
	EXPECT_EQ(t.gid, e->gid);
	EXPECT_EQ(t.cgroup_id, e->cgroup_id);
	EXPECT_EQ(5, e->argc);
	EXPECT_EQ(t.cmdline_len, e->argv_bytes);
	EXPECT_EQ(XXH64(t.cmdline, t.cmdline_len, 0), e->argv_hash);
	EXPECT_EQ(0, exec_r->hdr->flags);
	ASSERT_EQ(2, exec_r->n_str);
	ASSERT_EQ(t.exe_len, exec_r->str_len[0]);
	EXPECT_EQ(0, memcmp(t.exe, exec_r->str[0], t.exe_len));
	EXPECT_EQ(0, strncmp(exe, exec_r->str[0], t.exe_len));
	ASSERT_EQ(t.cmdline_len, exec_r->str_len[1]);
	EXPECT_EQ(0, memcmp(t.cmdline, exec_r->str[1], t.cmdline_len));
	EXPECT_TRUE(ev_comm_is(e->comm, exec_comm));

	exit_r = ev_one(&log, FTAGENT_REC_EXIT, pid);
	ASSERT_NE(NULL, exit_r);
	x = EV_BODY(exit_r, struct ftagent_rec_exit);
	EXPECT_EQ(status, x->exit_code);
	EXPECT_EQ(1, x->nr_threads);
	expect_io(_metadata, x, &t.io);
	EXPECT_TRUE(ev_comm_is(x->comm, "ft renamed"));

	/* In order, and while it happened, on the clock the kernel keeps. */
	EXPECT_LE(t0, fork_r->hdr->time_ns);
	EXPECT_LE(fork_r->hdr->time_ns, exec_r->hdr->time_ns);
	EXPECT_LE(exec_r->hdr->time_ns, exit_r->hdr->time_ns);
	EXPECT_GE(t1, exit_r->hdr->time_ns);
	ev_close(&log);
}

TEST(killed_process_exit_carries_the_signal)
{
	char *argv[] = {"ft-killed", NULL};
	char *envp[] = {EV_HELPER_ENV "=stop", "FTAGENT_EV_WRITES=3000:3",
			NULL};
	const struct ftagent_rec *r;
	struct truth t;
	struct ev_log log;
	int status;
	pid_t pid;

	ASSERT_EQ(0, ev_open(&log));
	pid = ev_spawn(ev_self_exe(), argv, envp, NULL);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, ev_wait_stopped(pid));
	ASSERT_EQ(0, read_truth(pid, &t));
	ASSERT_EQ(3000, t.io.wchar);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_EQ(1, ev_wait(&log, FTAGENT_REC_EXIT, pid, 5000));
	r = ev_one(&log, FTAGENT_REC_EXIT, pid);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(status, EV_BODY(r, struct ftagent_rec_exit)->exit_code);
	expect_io(_metadata, EV_BODY(r, struct ftagent_rec_exit), &t.io);
	ev_close(&log);
}

static int null_fd, go[2], report[2];

static void *writer(void *arg)
{
	static char buf[1000];
	int i;

	for (i = 0; i < 3; i++)
		if (write(null_fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(20);
	return NULL;
}

/* The last thread: says who it is, waits, writes, ends the process. */
static void *last(void *arg)
{
	static char buf[500];
	pid_t tid = syscall(SYS_gettid);
	char c;

	if (write(report[1], &tid, sizeof(tid)) != sizeof(tid) ||
	    read(go[0], &c, 1) != 1 ||
	    write(null_fd, buf, sizeof(buf)) != sizeof(buf))
		_exit(21);
	_exit(3);
}

/* The state letter /proc/PID/stat gives the process's leader. */
static char leader_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = ev_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

TEST(threads_are_not_processes_and_the_last_one_ends_it)
{
	const struct ftagent_rec_exit *x;
	const struct ftagent_rec *r;
	pthread_t th[4];
	struct ev_log log;
	int status, i;
	pid_t pid, tid;

	ASSERT_EQ(0, ev_open(&log));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		null_fd = open("/dev/null", O_WRONLY);
		for (i = 0; i < 3; i++)
			pthread_create(&th[i], NULL, writer, NULL);
		for (i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		pthread_create(&th[3], NULL, last, NULL);
		/*
		 * The leader goes first, by the raw call: pthread_exit()
		 * would load libgcc_s to unwind, and read it.
		 */
		syscall(SYS_exit, 0);
	}
	ASSERT_EQ((ssize_t)sizeof(tid), read(report[0], &tid, sizeof(tid)));
	/* A leader gone before its threads is a zombie until they go. */
	for (i = 0; i < 500 && leader_state(pid) != 'Z'; i++)
		ev_sleep_ms(10);
	ASSERT_EQ('Z', leader_state(pid));
	/* Only the leader has gone: the process has not ended. */
	ASSERT_LE(0, ev_drain(&log));
	EXPECT_EQ(0, ev_count(&log, FTAGENT_REC_EXIT, pid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	ASSERT_EQ(1, ev_wait(&log, FTAGENT_REC_EXIT, pid, 5000));

	r = ev_one(&log, FTAGENT_REC_EXIT, pid);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(tid, r->hdr->pid);
	x = EV_BODY(r, struct ftagent_rec_exit);
	EXPECT_EQ(status, x->exit_code);
	/* Every thread's I/O, as written: 9 x 1000 + 4 + 500 in 11 calls. */
	EXPECT_EQ(9504, x->wchar);
	EXPECT_EQ(11, x->syscw);
	EXPECT_EQ(1, x->rchar);
	EXPECT_EQ(1, x->syscr);
	/* Four threads were created: none of them is a new process. */
	EXPECT_EQ(0, ev_count(&log, FTAGENT_REC_FORK, pid));
	EXPECT_EQ(1, ev_count(&log, FTAGENT_REC_FORK, getpid()));
	ev_close(&log);
}

EV_HARNESS_MAIN_WITH_HELPER(helper)
