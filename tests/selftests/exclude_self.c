// SPDX-License-Identifier: GPL-2.0
/*
 * EXCLUDE_SELF: the daemon's exclusion, by the control socket that asked.
 *
 * A root child opens its own control socket and excludes itself; then it
 * writes a file, makes a TCP connection and forks a grandchild that
 * writes a file: none of it gives a record or a counter. Then it closes
 * the socket, writes another file and exits: that file, its exit and its
 * counters show, so the exclusion ended with the socket (and the test
 * cannot pass by seeing nothing). A child that drops to nobody gets EPERM
 * and stays counted.
 */
#include <grp.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define NOBODY 65534

FIXTURE(self)
{
	struct ev_log log;
	char dir[64];
};

FIXTURE_SETUP(self)
{
	strcpy(self->dir, "/tmp/ftself.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chmod(self->dir, 0777));
	ASSERT_EQ(0, ev_reset_filters());
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(self)
{
	char cmd[128];

	ev_close(&self->log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

static int write_file(const char *dir, const char *name, size_t n)
{
	char path[128], buf[128] = {0};
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		return -1;
	return close(fd);
}

/* The identity of @dir/@name, for the counters. */
static void file_id(const char *dir, const char *name, uint32_t *dev,
		    uint64_t *ino)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	ft_fd_id(fd, dev, ino);
	close(fd);
}

/* OPEN records of @dir/@name by @tgid. */
static size_t opens_of(const struct ev_log *l, pid_t tgid, const char *dir,
		       const char *name)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0;
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while ((r = ev_next(l, &i, FTAGENT_REC_OPEN, tgid)))
		n += r->str_len[0] == strlen(path) &&
		     !memcmp(r->str[0], path, r->str_len[0]);
	return n;
}

/*
 * The child: excluded by its own socket, works, forks a grandchild that
 * writes "g", closes the socket, writes "after". Reports the
 * grandchild's pid on @report.
 */
static void excluded_child(const char *dir, int report)
{
	struct ftnl_error err;
	char buf[10] = "ping";
	struct ftnl nl;
	int fds[3], i, status;
	pid_t gc;

	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0 ||
	    ftagent_exclude_self(&nl, &err) < 0)
		_exit(10);
	/* Again on the same socket: a no-op. */
	if (ftagent_exclude_self(&nl, &err) < 0)
		_exit(11);
	if (write_file(dir, "f", 100) || ev_tcp_pair(AF_INET, fds) ||
	    send(fds[1], buf, 10, 0) != 10 || recv(fds[2], buf, 10, 0) != 10)
		_exit(12);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	gc = fork();
	if (gc == 0)
		_exit(write_file(dir, "g", 50) ? 13 : 0);
	if (gc < 0 || waitpid(gc, &status, 0) != gc || status ||
	    write(report, &gc, sizeof(gc)) != sizeof(gc))
		_exit(14);
	ftnl_close(&nl);
	_exit(write_file(dir, "after", 70) ? 15 : 0);
}

TEST_F(self, nothing_while_the_socket_is_open_everything_after)
{
	struct ft_counters fc[2];
	int report[2], status;
	pid_t pids[2];
	uint64_t ino;
	uint32_t dev;

	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 0)); /* a window starts */
	pids[0] = fork();
	ASSERT_LE(0, pids[0]);
	if (pids[0] == 0)
		excluded_child(self->dir, report[1]);
	ASSERT_EQ((ssize_t)sizeof(pid_t), read(report[0], &pids[1], 4));
	ASSERT_EQ(pids[0], waitpid(pids[0], &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_LE(0, ev_wait(&self->log, FTAGENT_REC_EXIT, pids[0], 1000));
	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 2));

	/* While excluded: nothing from it or the grandchild. */
	EXPECT_EQ(0, opens_of(&self->log, pids[0], self->dir, "f"));
	EXPECT_EQ(0, ev_count(&self->log, FTAGENT_REC_CONNECT, pids[0]));
	EXPECT_EQ(0, ev_count(&self->log, FTAGENT_REC_FORK, pids[0]));
	EXPECT_EQ(0, ev_count(&self->log, 0, pids[1]));
	EXPECT_EQ(0, fc[1].n);
	file_id(self->dir, "f", &dev, &ino);
	EXPECT_EQ(0, ft_sum(&fc[0], FTAGENT_OBJ_FILE, dev, ino, 0).out_bytes);
	/* Its socket closed: the exclusion ended. */
	EXPECT_EQ(1, opens_of(&self->log, pids[0], self->dir, "after"));
	EXPECT_EQ(1, ev_count(&self->log, FTAGENT_REC_EXIT, pids[0]));
	file_id(self->dir, "after", &dev, &ino);
	EXPECT_EQ(70, ft_sum(&fc[0], FTAGENT_OBJ_FILE, dev, ino, 0).out_bytes);
	ft_counters_free(&fc[0]);
	ft_counters_free(&fc[1]);
}

TEST_F(self, an_unprivileged_caller_gets_eperm_and_stays_counted)
{
	struct ft_counters fc[1];
	int status;
	pid_t pids[1];
	uint64_t ino;
	uint32_t dev;

	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 0));
	pids[0] = fork();
	ASSERT_LE(0, pids[0]);
	if (pids[0] == 0) {
		struct ftnl_error err;
		struct ftnl nl;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(20);
		if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0)
			_exit(21);
		if (ftagent_exclude_self(&nl, &err) != -1 || err.err != EPERM)
			_exit(22);
		/* The socket stays open: it holds nothing. */
		_exit(write_file(self->dir, "nobody", 30) ? 23 : 0);
	}
	ASSERT_EQ(pids[0], waitpid(pids[0], &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_LE(0, ev_wait(&self->log, FTAGENT_REC_EXIT, pids[0], 1000));
	ASSERT_EQ(0, ev_collect_tgids(fc, pids, 1));
	EXPECT_EQ(1, opens_of(&self->log, pids[0], self->dir, "nobody"));
	file_id(self->dir, "nobody", &dev, &ino);
	EXPECT_EQ(30, ft_sum(&fc[0], FTAGENT_OBJ_FILE, dev, ino, 0).out_bytes);
	ft_counters_free(&fc[0]);
}

TEST_HARNESS_MAIN
