// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile strings: arguments of every byte 0x01..0xff around the bounds
 * (1 KiB kept, 64 KiB hashed) and far past them, a path of PATH_MAX - 1
 * bytes and one longer than PATH_MAX, an exec through a link whose name
 * is long and odd, and names changed under a thread while it forks. The
 * records stay within their bounds, say when they were cut, match
 * /proc/PID/cmdline, /proc/self/fd and what was written, and the stream
 * never breaks.
 */
#include <pthread.h>
#include <xxhash.h>

#include "kselftest_harness.h"
#include "events_test.h"

static int helper(const char *what, int argc, char **argv)
{
	return ev_basic_helper();
}

FIXTURE(strings)
{
	struct ev_log log;
	char dir[64];
	uint32_t mode;
};

FIXTURE_SETUP(strings)
{
	strcpy(self->dir, "/tmp/ftes.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, ev_open(&self->log));
	self->mode = ev_mode();
	if (self->mode != FTAGENT_MODE_STANDARD)
		ASSERT_EQ(0, ev_set_mode(&self->log, FTAGENT_MODE_STANDARD));
}

FIXTURE_TEARDOWN(strings)
{
	char cmd[128];

	if (ev_mode() != self->mode)
		EXPECT_EQ(0, ev_set_mode(NULL, self->mode));
	ev_close(&self->log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Argument strings of bytes 0x01..0xff, @total bytes with their NULs. */
static char **hostile_argv(size_t total, char *area)
{
	static char *argv[1024];
	size_t at = 0, n = 0, len, k;

	while (at < total && n < 1023) {
		len = total - at - 1 < 3000 ? total - at - 1 : 3000;
		argv[n++] = area + at;
		for (k = 0; k < len; k++)
			area[at + k] = (char)(1 + (at + k) % 255);
		area[at + len] = '\0';
		at += len + 1;
	}
	argv[n] = NULL;
	return argv;
}

TEST_F(strings, arguments_are_cut_and_hashed_at_their_bounds)
{
	static const size_t sizes[] = {
		FTAGENT_REC_ARGV_MAX,	       FTAGENT_REC_ARGV_MAX + 1,
		FTAGENT_REC_ARGV_HASH_MAX,     FTAGENT_REC_ARGV_HASH_MAX + 1,
		FTAGENT_REC_ARGV_HASH_MAX * 3,
	};
	static char area[FTAGENT_REC_ARGV_HASH_MAX * 3],
		cmdline[FTAGENT_REC_ARGV_HASH_MAX * 3 + 1];
	char *envp[] = {EV_HELPER_ENV "=stop", NULL}, path[64], **argv;
	const struct ftagent_rec *r;
	const struct ftagent_rec_exec *e;
	size_t i, kept, hashed;
	ssize_t len;
	pid_t pid;
	int argc;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		argv = hostile_argv(sizes[i], area);
		for (argc = 0; argv[argc]; argc++)
			;
		pid = ev_spawn(ev_self_exe(), argv, envp, NULL);
		ASSERT_LT(0, pid);
		ASSERT_EQ(0, ev_wait_stopped(pid));
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		len = ev_read_file(path, cmdline, sizeof(cmdline));
		kill(pid, SIGCONT);
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
		/* What the kernel holds is what was passed. */
		ASSERT_EQ(sizes[i], len);
		ASSERT_EQ(0, memcmp(area, cmdline, len));
		ASSERT_LE(0, ev_drain(&self->log));
		r = ev_one(&self->log, FTAGENT_REC_EXEC, pid);
		ASSERT_NE(NULL, r) TH_LOG("%zu bytes of arguments", len);
		e = r->body;
		kept = len < FTAGENT_REC_ARGV_MAX ? len : FTAGENT_REC_ARGV_MAX;
		hashed = len < FTAGENT_REC_ARGV_HASH_MAX
				 ? len
				 : FTAGENT_REC_ARGV_HASH_MAX;
		EXPECT_EQ(argc, e->argc);
		EXPECT_EQ(len, e->argv_bytes);
		EXPECT_EQ(XXH64(cmdline, hashed, 0), e->argv_hash);
		EXPECT_EQ(len > FTAGENT_REC_ARGV_HASH_MAX,
			  !!(r->hdr->flags & FTAGENT_REC_F_HASH_PARTIAL));
		EXPECT_EQ(len > FTAGENT_REC_ARGV_MAX,
			  !!(r->hdr->flags & FTAGENT_REC_F_STR1_TRUNCATED));
		ASSERT_EQ(2, r->n_str);
		ASSERT_EQ(kept, r->str_len[1]);
		EXPECT_EQ(0, memcmp(cmdline, r->str[1], kept));
		EXPECT_GE(FTAGENT_REC_SIZE_MAX, r->hdr->size);
		ev_forget(&self->log);
	}
}

/*
 * Make directories under @dir, 200-byte names of bytes 0x01..0xff, until
 * a file in the deepest would have a path of @total bytes: that path in
 * @path, the deepest directory open in *@dfd. Existing ones are reused.
 */
static int deep_path(const char *dir, size_t total, char *path, int *dfd)
{
	char name[256];
	size_t at = strlen(dir), len, k;
	int fd = open(dir, O_RDONLY | O_DIRECTORY), next;

	strcpy(path, dir);
	while (fd >= 0) {
		len = total - at - 1 < 200 ? total - at - 1 : 200;
		for (k = 0; k < len; k++) {
			name[k] = (char)(1 + (at + k) % 255);
			if (name[k] == '/' || (k == 0 && name[k] == '.'))
				name[k] = '_';
		}
		name[len] = '\0';
		path[at] = '/';
		memcpy(path + at + 1, name, len + 1);
		at += len + 1;
		if (at == total) {
			*dfd = fd;
			return 0;
		}
		if (mkdirat(fd, name, 0700) && errno != EEXIST)
			break;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	return -1;
}

TEST_F(strings, paths_at_and_past_path_max)
{
	static char path[PATH_MAX], longer[2 * PATH_MAX], target[PATH_MAX];
	const struct ftagent_rec *r, *mine = NULL;
	size_t i = 0;
	ssize_t n;
	int dfd, fd, deep;
	char link[64];

	/* PATH_MAX - 1 bytes: whole, as /proc/self/fd shows it. */
	ASSERT_EQ(0, deep_path(self->dir, PATH_MAX - 1, path, &dfd));
	ASSERT_EQ(0, deep_path(self->dir, PATH_MAX + 300, longer, &deep));
	ASSERT_LE(0, ev_drain(&self->log));
	ev_forget(&self->log);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target));
	ASSERT_EQ(PATH_MAX - 1, n);
	ASSERT_LE(0, ev_drain(&self->log));
	while ((r = ev_next(&self->log, &i, FTAGENT_REC_OPEN, getpid())))
		if (EV_BODY(r, struct ftagent_rec_open)->fd == fd)
			mine = r;
	ASSERT_NE(NULL, mine);
	EXPECT_EQ(0, mine->hdr->flags);
	ASSERT_EQ(n, mine->str_len[0]);
	EXPECT_EQ(0, memcmp(target, mine->str[0], n));
	EXPECT_GE(FTAGENT_REC_SIZE_MAX, mine->hdr->size);
	close(fd);
	close(dfd);

	/* Past PATH_MAX: /proc/self/fd can't show it either. */
	ev_forget(&self->log);
	fd = openat(deep, "f", O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ASSERT_EQ(-1, readlink(link, target, sizeof(target)));
	ASSERT_EQ(ENAMETOOLONG, errno);
	ASSERT_LE(0, ev_drain(&self->log));
	r = ev_one(&self->log, FTAGENT_REC_OPEN, getpid());
	ASSERT_NE(NULL, r);
	EXPECT_EQ(fd, EV_BODY(r, struct ftagent_rec_open)->fd);
	EXPECT_NE(0, r->hdr->flags & (FTAGENT_REC_F_STR0_TRUNCATED |
				      FTAGENT_REC_F_STR0_UNREADABLE));
	EXPECT_GE(FTAGENT_REC_PATH_MAX,
		  EV_BODY(r, struct ftagent_rec_open)->path_len);
	close(fd);
	close(deep);
}

/* exec names the process after the first 15 bytes of the file's name. */
TEST_F(strings, exec_through_an_odd_long_name)
{
	char *envp[] = {EV_HELPER_ENV "=stop", NULL}, *argv[] = {"x", NULL};
	char name[64], link[128], comm[FTAGENT_COMM_LEN] = "";
	const struct ftagent_rec *r;
	size_t k;
	pid_t pid;

	for (k = 0; k < 40; k++)
		name[k] = (char)(0x80 + k * 3);
	name[0] = '\x01';
	name[40] = '\0';
	snprintf(link, sizeof(link), "%s/%s", self->dir, name);
	ASSERT_EQ(0, symlink(ev_self_exe(), link));
	pid = ev_spawn(link, argv, envp, NULL);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, ev_wait_stopped(pid));
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(1, ev_wait(&self->log, FTAGENT_REC_EXIT, pid, 5000));
	memcpy(comm, name, FTAGENT_COMM_LEN - 1);
	r = ev_one(&self->log, FTAGENT_REC_EXEC, pid);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(
		ev_comm_is(EV_BODY(r, struct ftagent_rec_exec)->comm, comm));
	/* The exe is the file the link leads to. */
	ASSERT_EQ(strlen(ev_self_exe()), r->str_len[0]);
	EXPECT_EQ(0, memcmp(ev_self_exe(), r->str[0], r->str_len[0]));
	r = ev_one(&self->log, FTAGENT_REC_EXIT, pid);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(
		ev_comm_is(EV_BODY(r, struct ftagent_rec_exit)->comm, comm));
}

#define N_FORKS 200
static char names[4][FTAGENT_COMM_LEN];
static volatile int forking = 1;
static pid_t forker_tid;

/* Renames the forking thread, by /proc, as fast as it can. */
static void *renamer(void *arg)
{
	char path[64];
	int i = 0, fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", forker_tid);
	fd = open(path, O_WRONLY);
	while (fd >= 0 && forking)
		if (write(fd, names[i++ % 4], FTAGENT_COMM_LEN - 1) < 0)
			break;
	return NULL;
}

TEST_F(strings, names_changed_mid_flight_stay_whole)
{
	static pid_t kids[N_FORKS];
	const struct ftagent_rec *r;
	size_t i, n_fork = 0;
	const char *comm;
	pthread_t th;
	int k, j, ok;
	pid_t pid;

	for (k = 0; k < 4; k++)
		for (j = 0; j < FTAGENT_COMM_LEN - 1; j++)
			names[k][j] = (char)(1 + (k * 64 + j * 17) % 255);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_NAME, names[0]);
		forker_tid = syscall(SYS_gettid);
		pthread_create(&th, NULL, renamer, NULL);
		for (k = 0; k < N_FORKS; k++) {
			pid_t c = fork();

			if (c == 0)
				_exit(0);
			waitpid(c, NULL, 0);
		}
		forking = 0;
		pthread_join(th, NULL);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(1, ev_wait(&self->log, FTAGENT_REC_EXIT, pid, 5000));
	/*
	 * FORK carries the forking thread's name as the module read it:
	 * one of the names, whole, never half of one and half of another.
	 */
	i = 0;
	while ((r = ev_next(&self->log, &i, FTAGENT_REC_FORK, pid))) {
		const struct ftagent_rec_fork *f = r->body;

		kids[n_fork++ % N_FORKS] = f->child_tgid;
		for (ok = 0, k = 0; k < 4; k++)
			ok |= ev_comm_is(f->comm, names[k]);
		EXPECT_TRUE(ok) TH_LOG("fork record %zu", n_fork);
	}
	EXPECT_EQ(N_FORKS, n_fork);
	/*
	 * A child's name is a copy the kernel made at fork without a lock:
	 * it must be bounded and padded, not necessarily one of the names.
	 */
	for (k = 0; k < N_FORKS && n_fork == N_FORKS; k++) {
		r = ev_one(&self->log, FTAGENT_REC_EXIT, kids[k]);
		ASSERT_NE(NULL, r) TH_LOG("no exit of child %d", kids[k]);
		comm = EV_BODY(r, struct ftagent_rec_exit)->comm;
		EXPECT_GT(FTAGENT_COMM_LEN, strnlen(comm, FTAGENT_COMM_LEN));
		for (j = strnlen(comm, FTAGENT_COMM_LEN); j < FTAGENT_COMM_LEN;
		     j++)
			EXPECT_EQ(0, comm[j]);
	}
}

EV_HARNESS_MAIN_WITH_HELPER(helper)
