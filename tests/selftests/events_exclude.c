// SPDX-License-Identifier: GPL-2.0
/*
 * Excluded processes: a child whose name comes to match an excluded name
 * (by prctl, by a write to /proc/self/comm, by one of its threads renaming
 * itself, or by exec) opens and writes a file, makes a TCP connection and
 * forks a grandchild that renames itself and does the same: none of it
 * gives a record or a counter. The same child under a name that is not
 * excluded gives all of them, exactly, so the test cannot pass by seeing
 * nothing at all. So does an unprivileged child that names itself
 * "ftagentd" under the default filters: the daemon is excluded by its
 * control socket (EXCLUDE_SELF, exclude_self.c), not by its name.
 */
#include <grp.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "events_test.h"

enum how { BY_PRCTL, BY_PROC_COMM, BY_THREAD, BY_EXEC };

FIXTURE(exclude)
{
	struct ev_log log;
	char dir[64], name[FTAGENT_COMM_LEN];
};

FIXTURE_VARIANT(exclude)
{
	enum how how;
	int excluded;	/* the name taken is on the list */
	int by_default; /* the name is "ftagentd", the list the default */
	int nobody;	/* the child drops to uid 65534 first */
};

FIXTURE_VARIANT_ADD(exclude, prctl){BY_PRCTL, 1, 0};
FIXTURE_VARIANT_ADD(exclude, proc_comm){BY_PROC_COMM, 1, 0};
FIXTURE_VARIANT_ADD(exclude, thread){BY_THREAD, 1, 0};
FIXTURE_VARIANT_ADD(exclude, exec){BY_EXEC, 1, 0};
FIXTURE_VARIANT_ADD(exclude, ftagentd_by_nobody_is_seen){BY_PRCTL, 0, 1, 1};
FIXTURE_VARIANT_ADD(exclude, not_excluded){BY_PRCTL, 0, 0};
FIXTURE_VARIANT_ADD(exclude, not_excluded_exec){BY_EXEC, 0, 0};

FIXTURE_SETUP(exclude)
{
	struct ftagent_filters f, defaults;

	strcpy(self->dir, "/tmp/ftex.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chmod(self->dir, 0777));
	ASSERT_EQ(0, ev_reset_filters());
	/* What the module says it does by default is what it does. */
	ASSERT_EQ(0, ev_get_filters(&f));
	ASSERT_EQ(0, ftagent_filters_defaults(&defaults));
	EXPECT_TRUE(ftagent_filters_equal(&f, &defaults));
	ftagent_filters_free(&f);
	ftagent_filters_free(&defaults);
	snprintf(self->name, sizeof(self->name), "ftx%d", getpid());
	if (variant->by_default)
		strcpy(self->name, "ftagentd"); /* the defaults list no name */
	else
		ASSERT_EQ(0, ev_exclude(0, self->name));
	if (!variant->excluded && !variant->by_default)
		self->name[1] = 'n'; /* "fnx...": not on the list */
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(exclude)
{
	char cmd[128];

	EXPECT_EQ(0, ev_reset_filters());
	ev_close(&self->log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Open @dir/@name and write @n bytes into it. */
static int write_file(const char *dir, const char *name, size_t n)
{
	char path[128], buf[128] = {0};
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		return -1;
	return close(fd);
}

/*
 * What an excluded process does: a file, a connection, a grandchild that
 * renames itself (exclusion sticks) and writes a file. Reports the
 * grandchild's pid on @report, then exits 0, with a socket still open.
 */
static void work(const char *dir, int report)
{
	int fds[3], i, status;
	char buf[10] = "ping";
	pid_t gc;

	if (write_file(dir, "f", 100) || ev_tcp_pair(AF_INET, fds) ||
	    send(fds[1], buf, 10, 0) != 10 || recv(fds[2], buf, 10, 0) != 10)
		_exit(10);
	/* One socket is left for exit to close: no CLOSE from that either. */
	for (i = 1; i < 3; i++)
		close(fds[i]);
	gc = fork();
	if (gc == 0) {
		prctl(PR_SET_NAME, "ftgrandchild");
		_exit(write_file(dir, "g", 50) ? 11 : 0);
	}
	if (gc < 0 || waitpid(gc, &status, 0) != gc || status ||
	    write(report, &gc, sizeof(gc)) != sizeof(gc))
		_exit(12);
	_exit(0);
}

static void *rename_thread(void *name)
{
	prctl(PR_SET_NAME, name);
	return NULL;
}

static int helper(const char *what, int argc, char **argv)
{
	if (argc != 3)
		return 2;
	work(argv[1], atoi(argv[2]));
	return 0;
}

/* The child: becomes @name the variant's way, then works. No call before
 * the rename may be one the module counts. */
static void child(const FIXTURE_VARIANT(exclude) * variant, const char *dir,
		  const char *name, int report)
{
	char link[128], fd[16], *argv[] = {link, (char *)dir, fd, NULL};
	char *envp[] = {EV_HELPER_ENV "=work", NULL};
	pthread_t th;
	int fd_comm;

	if (variant->nobody &&
	    (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
		_exit(16);
	switch (variant->how) {
	case BY_PRCTL: prctl(PR_SET_NAME, name); break;
	case BY_PROC_COMM:
		/* Only the process itself may write its comm file. */
		fd_comm = open("/proc/self/comm", O_WRONLY);
		if (fd_comm < 0 || write(fd_comm, name, strlen(name)) < 0)
			_exit(15);
		close(fd_comm);
		break;
	case BY_THREAD:
		if (pthread_create(&th, NULL, rename_thread, (void *)name) ||
		    pthread_join(th, NULL))
			_exit(13);
		break;
	case BY_EXEC:
		/* exec names the process after the file it was asked for. */
		snprintf(link, sizeof(link), "%s/%s", dir, name);
		snprintf(fd, sizeof(fd), "%d", report);
		execve(link, argv, envp);
		_exit(14);
	}
	work(dir, report);
}

/* OPEN records of @path by @tgid. */
static size_t opens_of(const struct ev_log *l, pid_t tgid, const char *path)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0;

	while ((r = ev_next(l, &i, FTAGENT_REC_OPEN, tgid)))
		n += r->str_len[0] == strlen(path) &&
		     !memcmp(r->str[0], path, r->str_len[0]);
	return n;
}

TEST_F(exclude, nothing_from_an_excluded_process_and_its_children)
{
	const struct ftagent_rec *r;
	struct ft_counters fc[2];
	char path[128];
	int report[2], status;
	size_t i;
	pid_t pids[2];
	uint64_t ino;
	uint32_t dev;
	int fd;

	if (variant->how == BY_EXEC) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, self->name);
		ASSERT_EQ(0, symlink(ev_self_exe(), path));
	}
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 0)); /* a window starts */
	pids[0] = fork();
	ASSERT_LE(0, pids[0]);
	if (pids[0] == 0)
		child(variant, self->dir, self->name, report[1]);
	ASSERT_EQ((ssize_t)sizeof(pid_t), read(report[0], &pids[1], 4));
	ASSERT_EQ(pids[0], waitpid(pids[0], &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_LT(0, pids[1]);
	ASSERT_LE(0, ev_wait(&self->log, FTAGENT_REC_EXIT, pids[0], 1000));
	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 2));

	/* The fork happened before the rename: that one is ours. */
	EXPECT_EQ(1, ev_count(&self->log, FTAGENT_REC_FORK, getpid()));
	if (variant->excluded && variant->how == BY_PROC_COMM) {
		/*
		 * Renaming through /proc takes an open and a write, made
		 * before the name changed: they may show, nothing after.
		 */
		snprintf(path, sizeof(path), "/proc/%d/comm", pids[0]);
		EXPECT_EQ(1, opens_of(&self->log, pids[0], path));
		EXPECT_EQ(1, ev_count(&self->log, 0, pids[0]));
		EXPECT_GE(1, fc[0].n);
		if (fc[0].n) {
			EXPECT_EQ(1, fc[0].c[0].out.calls);
			EXPECT_EQ(strlen(self->name), fc[0].c[0].out.bytes);
			EXPECT_EQ(0, fc[0].c[0].in.calls);
		}
		EXPECT_EQ(0, ev_count(&self->log, 0, pids[1]));
		EXPECT_EQ(0, fc[1].n);
	} else if (variant->excluded) {
		for (i = 0; (r = ev_next(&self->log, &i, 0, pids[0]));)
			TH_LOG("record of type %u from %d", r->hdr->type,
			       pids[0]);
		EXPECT_EQ(0, ev_count(&self->log, 0, pids[0]));
		EXPECT_EQ(0, ev_count(&self->log, 0, pids[1]));
		EXPECT_EQ(0, fc[0].n);
		EXPECT_EQ(0, fc[1].n);
	} else {
		/* fork, exit, open, bind, listen, connect, accept, 3 close */
		EXPECT_LE(10, ev_count(&self->log, 0, pids[0]));
		EXPECT_EQ(1, ev_count(&self->log, FTAGENT_REC_EXIT, pids[1]));
		EXPECT_EQ(1, ev_count(&self->log, FTAGENT_REC_OPEN, pids[1]));
		snprintf(path, sizeof(path), "%s/f", self->dir);
		fd = open(path, O_RDONLY);
		ft_fd_id(fd, &dev, &ino);
		close(fd);
		EXPECT_EQ(100, ft_sum(&fc[0], FTAGENT_OBJ_FILE, dev, ino, 0)
				       .out_bytes);
		snprintf(path, sizeof(path), "%s/g", self->dir);
		fd = open(path, O_RDONLY);
		ft_fd_id(fd, &dev, &ino);
		close(fd);
		EXPECT_EQ(50, ft_sum(&fc[1], FTAGENT_OBJ_FILE, dev, ino, 0)
				      .out_bytes);
	}
	ft_counters_free(&fc[0]);
	ft_counters_free(&fc[1]);
}

EV_HARNESS_MAIN_WITH_HELPER(helper)
