// SPDX-License-Identifier: GPL-2.0
/*
 * OPEN records: open, creat, openat and openat2 each give one record when
 * they succeed and none when they fail, with the path /proc/self/fd shows,
 * the device, inode and mode fstat() reports and the descriptor returned;
 * only in standard mode; and none for paths under an excluded prefix (a
 * plain string prefix of that path), while a sibling path still gives one.
 */
#include <linux/openat2.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "events_test.h"

FIXTURE(file)
{
	struct ev_open_fixture f;
};

FIXTURE_SETUP(file)
{
	ASSERT_EQ(0, ev_open_fixture_setup(&self->f, "/tmp/ftef.XXXXXX"));
}

FIXTURE_TEARDOWN(file)
{
	EXPECT_EQ(0, ev_open_fixture_teardown(&self->f));
}

/* The only OPEN record of descriptor @fd by this thread, or NULL. */
static const struct ftagent_rec *open_rec(const struct ev_log *l, int fd)
{
	const struct ftagent_rec *r, *found = NULL;
	size_t i = 0;

	while ((r = ev_next(l, &i, FTAGENT_REC_OPEN, getpid()))) {
		if (EV_BODY(r, struct ftagent_rec_open)->fd != fd)
			continue;
		if (found)
			return NULL;
		found = r;
	}
	return found;
}

static unsigned long fdinfo_flags(int fd)
{
	char path[64], buf[512], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	n = ev_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return ~0ul;
	buf[n] = '\0';
	p = strstr(buf, "flags:");
	return p ? strtoul(p + 6, NULL, 8) : ~0ul;
}

static void expect_open(struct __test_metadata *_metadata,
			const struct ev_log *l, int fd, int flags)
{
	const struct ftagent_rec *r = open_rec(l, fd);

	ASSERT_NE(NULL, r)
	TH_LOG("no single OPEN record for fd %d: %zu OPEN records, %zu gaps",
	       fd, ev_count(l, FTAGENT_REC_OPEN, getpid()),
	       ev_count(l, FTAGENT_REC_GAP, 0));
	EXPECT_EQ(syscall(SYS_gettid), r->hdr->pid);
	EXPECT_EQ(fdinfo_flags(fd) & EV_OPEN_FLAG_MASK,
		  EV_BODY(r, struct ftagent_rec_open)->flags &
			  EV_OPEN_FLAG_MASK);
	EXPECT_EQ(0, r->hdr->flags);
	ev_expect_open_rec(_metadata, r, fd, flags);
}

TEST_F(file, every_open_call_gives_one_record_like_fstat)
{
	struct open_how how = {.flags = O_RDONLY | O_NONBLOCK,
			       .resolve = RESOLVE_BENEATH};
	char a[128], b[128];
	int dfd, fd[5], i;

	snprintf(a, sizeof(a), "%s/a", self->f.dir);
	snprintf(b, sizeof(b), "%s/missing/b", self->f.dir);
	dfd = open(self->f.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);

	fd[0] = syscall(SYS_open, a, O_RDWR | O_CREAT, 0640);
	fd[1] = syscall(SYS_creat, a, 0600);
	fd[2] = openat(dfd, "a", O_WRONLY | O_APPEND);
	fd[3] = syscall(SYS_openat2, dfd, "a", &how, sizeof(how));
	fd[4] = open(self->f.dir, O_RDONLY | O_DIRECTORY);
	/* Failures: no record. */
	ASSERT_EQ(-1, open(b, O_RDONLY));
	ASSERT_EQ(-1, openat(dfd, "a", O_RDONLY | O_CREAT | O_EXCL, 0600));
	ASSERT_LE(0, ev_drain(&self->f.log));

	for (i = 0; i < 5; i++)
		ASSERT_LE(0, fd[i]) TH_LOG("open #%d", i);
	EXPECT_EQ(5, ev_count(&self->f.log, FTAGENT_REC_OPEN, getpid()));
	expect_open(_metadata, &self->f.log, fd[0], O_RDWR);
	expect_open(_metadata, &self->f.log, fd[1], O_WRONLY);
	expect_open(_metadata, &self->f.log, fd[2], O_WRONLY | O_APPEND);
	expect_open(_metadata, &self->f.log, fd[3], O_RDONLY | O_NONBLOCK);
	expect_open(_metadata, &self->f.log, fd[4], O_RDONLY);
	for (i = 0; i < 5; i++)
		close(fd[i]);
	close(dfd);
}

struct rewriter {
	struct open_how how;
	char fifo[128];
	int syscall_fd; /* the opener's /proc/self/task/TID/syscall */
	int writer;
};

/*
 * Once the opener is blocked inside openat2 (on a FIFO with no writer,
 * after the kernel has read its flags), rewrite the flags in its memory,
 * then open the FIFO's other end to let the call return.
 */
static void *rewrite_flags(void *arg)
{
	struct rewriter *w = arg;
	char buf[32];
	int tries;

	/*
	 * Read through a descriptor opened beforehand: an open here could
	 * take the descriptor number the opener's call is about to get.
	 */
	for (tries = 0; tries < 3000; tries++) {
		ssize_t n = pread(w->syscall_fd, buf, sizeof(buf) - 1, 0);

		buf[n > 0 ? n : 0] = '\0';
		if (atoi(buf) == SYS_openat2)
			break;
		ev_sleep_ms(10);
	}
	w->how.flags = O_WRONLY | O_APPEND;
	w->writer = open(w->fifo, O_WRONLY | O_NONBLOCK);
	return NULL;
}

/*
 * openat2 reads its flags from the caller's memory, which a sibling
 * thread can rewrite while the call runs: the record carries the flags
 * the file was opened with, not what the memory says at return.
 */
TEST_F(file, openat2_records_the_flags_the_file_has)
{
	struct rewriter w = {.how = {.flags = O_RDONLY}};
	char path[64];
	pthread_t t;
	int fd;

	snprintf(w.fifo, sizeof(w.fifo), "%s/fifo", self->f.dir);
	ASSERT_EQ(0, mkfifo(w.fifo, 0600));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall",
		 (long)syscall(SYS_gettid));
	w.syscall_fd = open(path, O_RDONLY);
	ASSERT_LE(0, w.syscall_fd);
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	ASSERT_EQ(0, pthread_create(&t, NULL, rewrite_flags, &w));
	fd = syscall(SYS_openat2, AT_FDCWD, w.fifo, &w.how, sizeof(w.how));
	pthread_join(t, NULL);
	ASSERT_LE(0, w.writer);
	ASSERT_LE(0, fd);
	EXPECT_EQ(O_WRONLY | O_APPEND, w.how.flags);
	ASSERT_LE(0, ev_drain(&self->f.log));
	EXPECT_EQ(O_RDONLY, fdinfo_flags(fd) & EV_OPEN_FLAG_MASK);
	expect_open(_metadata, &self->f.log, fd, O_RDONLY);
	close(fd);
	close(w.writer);
	close(w.syscall_fd);
}

/* Open @path and drain: how many OPEN records of it by us came. */
static size_t opens_of(struct ev_log *l, const char *path, int creat)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0, len = strlen(path);
	int fd;

	ev_forget(l);
	fd = open(path, creat ? O_WRONLY | O_CREAT : O_RDONLY, 0600);
	if (fd < 0 || ev_drain(l) < 0)
		return (size_t)-1;
	close(fd);
	while ((r = ev_next(l, &i, FTAGENT_REC_OPEN, getpid())))
		if (r->str_len[0] == len && !memcmp(r->str[0], path, len))
			n++;
	return n;
}

TEST_F(file, minimal_mode_gives_no_open_records)
{
	char a[128];
	int s;

	snprintf(a, sizeof(a), "%s/a", self->f.dir);
	ASSERT_EQ(1, opens_of(&self->f.log, a, 1));
	ASSERT_EQ(0, ev_set_mode(&self->f.log, FTAGENT_MODE_MINIMAL));
	EXPECT_EQ(0, opens_of(&self->f.log, a, 0));
	/* Events still flow in minimal mode: sockets have records. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	close(s);
	ASSERT_LE(0, ev_drain(&self->f.log));
	EXPECT_EQ(1, ev_count(&self->f.log, FTAGENT_REC_CLOSE, getpid()));
	ASSERT_EQ(0, ev_set_mode(&self->f.log, FTAGENT_MODE_STANDARD));
	EXPECT_EQ(1, opens_of(&self->f.log, a, 0));
}

TEST_F(file, excluded_prefix_gives_nothing_a_sibling_does)
{
	char ex[128], p[128], rel[128];
	size_t n;
	int fd;

	snprintf(ex, sizeof(ex), "%s/ex", self->f.dir);
	ASSERT_EQ(0, mkdir(ex, 0700));
	ASSERT_EQ(0, ev_exclude(1, ex));

	snprintf(p, sizeof(p), "%s/ex/a", self->f.dir);
	EXPECT_EQ(0, opens_of(&self->f.log, p, 1));
	/* A plain string prefix: "ex" covers "exact" too. */
	snprintf(p, sizeof(p), "%s/exact", self->f.dir);
	EXPECT_EQ(0, opens_of(&self->f.log, p, 1));
	/* The path the open resolves to counts, not the one asked for. */
	ASSERT_EQ(0, chdir(ex));
	ev_forget(&self->f.log);
	fd = open("rel", O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, ev_drain(&self->f.log));
	snprintf(rel, sizeof(rel), "%s/rel", ex);
	EXPECT_EQ(NULL, open_rec(&self->f.log, fd)) TH_LOG("%s", rel);
	close(fd);
	ASSERT_EQ(0, chdir("/"));
	/* Siblings: a different name, and one shorter than the prefix. */
	snprintf(p, sizeof(p), "%s/other", self->f.dir);
	EXPECT_EQ(1, opens_of(&self->f.log, p, 1));
	snprintf(p, sizeof(p), "%s/e", self->f.dir);
	EXPECT_EQ(1, opens_of(&self->f.log, p, 1));

	/* An empty list clears it: the same file gives its record again. */
	ASSERT_EQ(0, ev_exclude(1, NULL));
	snprintf(p, sizeof(p), "%s/ex/a", self->f.dir);
	n = opens_of(&self->f.log, p, 0);
	EXPECT_EQ(1, n);
}

TEST_HARNESS_MAIN
