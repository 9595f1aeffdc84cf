// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring opens, connects and accepts write the records their system
 * calls write: an OPENAT or OPENAT2 that succeeds gives one OPEN record
 * (standard mode) with the path, inode, device and descriptor the kernel
 * reports, inline, through io-wq and through an SQPOLL thread; a CONNECT
 * gives a CONNECT record with its result, failed too; an ACCEPT, single
 * or multishot, an ACCEPT record per connection with the new descriptor.
 * Records carry the process that ran the request (for an open or accept,
 * the thread: the submitter, its io-wq worker or the SQPOLL thread). A
 * new file put in a registered-file slot names no descriptor: no record
 * claims one; and no other CQE can pass for an accepted connection. A
 * CLOSE of a socket's last descriptor gives its CLOSE record, as close()
 * does.
 *
 * Raw io_uring system calls, no liburing.
 */
#include <linux/openat2.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "events_test.h"
#include "../../tools/lib/iouring_raw.h"

FIXTURE(iour_ev)
{
	struct ev_open_fixture f;
};

FIXTURE_SETUP(iour_ev)
{
	ASSERT_EQ(0, ev_open_fixture_setup(&self->f, "/tmp/ftier.XXXXXX"));
}

static int fd_install_return_hook(int kind, bool on);

FIXTURE_TEARDOWN(iour_ev)
{
	/* A test stopped with another tracer's hook on leaves none behind. */
	fd_install_return_hook(0, false);
	fd_install_return_hook(1, false);
	EXPECT_EQ(0, ev_open_fixture_teardown(&self->f));
}

/* Records of @type by this process that name descriptor @fd. */
static size_t count_fd(const struct ev_log *l, int type, int fd)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0;
	int got;

	while ((r = ev_next(l, &i, type, getpid()))) {
		if (type == FTAGENT_REC_OPEN)
			got = EV_BODY(r, struct ftagent_rec_open)->fd;
		else
			got = EV_BODY(r, struct ftagent_rec_sock)->result;
		n += got == fd;
	}
	return n;
}

static const struct ftagent_rec *one_fd(const struct ev_log *l, int type,
					int fd)
{
	const struct ftagent_rec *r;
	size_t i = 0;

	if (count_fd(l, type, fd) != 1)
		return NULL;
	while ((r = ev_next(l, &i, type, getpid())))
		if (type == FTAGENT_REC_OPEN
			    ? EV_BODY(r, struct ftagent_rec_open)->fd == fd
			    : EV_BODY(r, struct ftagent_rec_sock)->result == fd)
			return r;
	return NULL;
}

/* Whether @tid is a thread of this process (an io thread is one too). */
static bool our_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	return !access(path, F_OK);
}

/*
 * @fd's OPEN record matches fstat, its link and @flags, and names a
 * thread of this process: the one that ran the request, the submitter
 * or, where the kernel chose to hand it over, an io-wq or SQPOLL thread.
 */
static void expect_open(struct __test_metadata *_metadata,
			const struct ev_log *l, int fd, int flags)
{
	const struct ftagent_rec *r = one_fd(l, FTAGENT_REC_OPEN, fd);

	ASSERT_NE(NULL, r)
	TH_LOG("no single OPEN record for fd %d: %zu OPEN records, %zu gaps",
	       fd, ev_count(l, FTAGENT_REC_OPEN, getpid()),
	       ev_count(l, FTAGENT_REC_GAP, 0));
	EXPECT_TRUE(our_thread(r->hdr->pid)) TH_LOG("pid %u", r->hdr->pid);
	ev_expect_open_rec(_metadata, r, fd, flags);
}

static struct io_uring_sqe *prep_openat(struct ring *r, int dfd,
					const char *name, int flags,
					uint64_t user_data)
{
	struct io_uring_sqe *sqe =
		ring_sqe(r, IORING_OP_OPENAT, dfd, user_data);

	sqe->addr = (uintptr_t)name;
	sqe->open_flags = flags;
	sqe->len = 0600;
	return sqe;
}

/* Run the queued requests; their results, by user_data (1..n), in @res. */
static int run(struct ring *r, unsigned int n, int *res)
{
	struct io_uring_cqe cqe[8];
	unsigned int i;

	if (n > 8 || ring_submit(r, n) != (int)n || ring_wait(r, cqe, n))
		return -1;
	for (i = 0; i < n; i++) {
		if (cqe[i].user_data < 1 || cqe[i].user_data > n)
			return -1;
		res[cqe[i].user_data - 1] = cqe[i].res;
	}
	return 0;
}

TEST_F(iour_ev, opens_give_one_record_each_like_the_call)
{
	struct open_how how = {.flags = O_RDONLY | O_NONBLOCK};
	struct io_uring_sqe *sqe;
	char a[128];
	int dfd, res[4];
	struct ring r;

	snprintf(a, sizeof(a), "%s/a", self->f.dir);
	dfd = open(self->f.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	/* There before the batch: its requests may run in any order. */
	ASSERT_EQ(0, close(open(a, O_WRONLY | O_CREAT, 0600)));
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);

	prep_openat(&r, AT_FDCWD, a, O_RDWR, 1);
	/* Through an io-wq worker: the worker's thread, this process. */
	sqe = prep_openat(&r, dfd, "a", O_WRONLY | O_APPEND, 2);
	sqe->flags |= IOSQE_ASYNC;
	sqe = ring_sqe(&r, IORING_OP_OPENAT2, dfd, 3);
	sqe->addr = (uintptr_t) "a";
	sqe->addr2 = (uintptr_t)&how;
	sqe->len = sizeof(how);
	/* A failure: no record. */
	prep_openat(&r, dfd, "missing/b", O_RDONLY, 4);
	ASSERT_EQ(0, run(&r, 4, res));
	ASSERT_LE(0, ev_drain(&self->f.log));

	ASSERT_LE(0, res[0]);
	ASSERT_LE(0, res[1]);
	ASSERT_LE(0, res[2]);
	ASSERT_EQ(-ENOENT, res[3]);
	EXPECT_EQ(3, ev_count(&self->f.log, FTAGENT_REC_OPEN, getpid()));
	expect_open(_metadata, &self->f.log, res[0], O_RDWR);
	expect_open(_metadata, &self->f.log, res[1], O_WRONLY | O_APPEND);
	expect_open(_metadata, &self->f.log, res[2], O_RDONLY | O_NONBLOCK);
	ring_exit(&r);
	close(res[0]);
	close(res[1]);
	close(res[2]);
	close(dfd);
}

/* An open whose CQE is skipped on success still writes its record. */
TEST_F(iour_ev, a_skipped_completion_still_gives_the_record)
{
	struct io_uring_cqe cqe[1];
	struct io_uring_sqe *sqe;
	char a[128], path[64], target[PATH_MAX];
	int fd, found = -1;
	ssize_t n;
	struct ring r;

	snprintf(a, sizeof(a), "%s/k", self->f.dir);
	ASSERT_EQ(0, close(open(a, O_WRONLY | O_CREAT, 0600)));
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	sqe = prep_openat(&r, AT_FDCWD, a, O_RDONLY, 1);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_LINK;
	ring_sqe(&r, IORING_OP_NOP, -1, 2);
	ASSERT_EQ(2, ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait(&r, cqe, 1));
	ASSERT_EQ(2, cqe[0].user_data);
	ASSERT_EQ(0, cqe[0].res);
	/* The descriptor it returned, found by its path. */
	for (fd = 3; fd < 64; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, a)) {
			ASSERT_EQ(-1, found);
			found = fd;
		}
	}
	ASSERT_LE(0, found);
	ASSERT_LE(0, ev_drain(&self->f.log));
	EXPECT_EQ(1, ev_count(&self->f.log, FTAGENT_REC_OPEN, getpid()));
	expect_open(_metadata, &self->f.log, found, O_RDONLY);
	ring_exit(&r);
	close(found);
}

TEST_F(iour_ev, sqpoll_opens_are_the_process_s)
{
	char a[128];
	int res[2];
	struct ring r;

	snprintf(a, sizeof(a), "%s/s", self->f.dir);
	ASSERT_EQ(0, close(open(a, O_WRONLY | O_CREAT, 0600)));
	ASSERT_EQ(0, ring_init(&r, 4, IORING_SETUP_SQPOLL, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	prep_openat(&r, AT_FDCWD, a, O_WRONLY, 1);
	prep_openat(&r, AT_FDCWD, a, O_RDONLY, 2);
	ASSERT_EQ(0, run(&r, 2, res));
	ASSERT_LE(0, res[0]);
	ASSERT_LE(0, res[1]);
	ASSERT_LE(0, ev_drain(&self->f.log));
	/* The SQPOLL thread is a thread of this process. */
	expect_open(_metadata, &self->f.log, res[0], O_WRONLY);
	expect_open(_metadata, &self->f.log, res[1], O_RDONLY);
	ring_exit(&r);
	close(res[0]);
	close(res[1]);
}

/*
 * Opens into registered-file slots return a slot (or 0), not a
 * descriptor: no record may name the descriptor of that number.
 */
TEST_F(iour_ev, an_open_into_a_registered_slot_names_no_descriptor)
{
	int slots[4] = {-1, -1, -1, -1}, res[2], probe, i;
	bool was_open[4];
	struct io_uring_sqe *sqe;
	char a[128];
	struct ring r;

	snprintf(a, sizeof(a), "%s/f", self->f.dir);
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, syscall(__NR_io_uring_register, r.fd,
			     IORING_REGISTER_FILES, slots, 4));
	/*
	 * The results are 0 and a slot below 4: descriptor 0 is a file
	 * here, and so is the slot's (checked below), so a record that took
	 * a slot for a descriptor would find one.
	 */
	probe = open("/dev/null", O_RDONLY);
	ASSERT_LE(0, probe);
	ASSERT_EQ(0, dup2(probe, 0));
	for (i = 0; i < 4; i++)
		was_open[i] = fcntl(i, F_GETFD) >= 0;
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	sqe = prep_openat(&r, AT_FDCWD, a, O_RDWR | O_CREAT, 1);
	sqe->file_index = 3; /* slot 2 */
	sqe = prep_openat(&r, AT_FDCWD, a, O_RDONLY, 2);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	ASSERT_EQ(0, run(&r, 2, res));
	ASSERT_EQ(0, res[0]);
	ASSERT_LE(0, res[1]);
	ASSERT_GT(4, res[1]);
	ASSERT_TRUE(was_open[res[1]]);
	ASSERT_LE(0, ev_drain(&self->f.log));
	EXPECT_EQ(0, ev_count(&self->f.log, FTAGENT_REC_OPEN, getpid()));
	ring_exit(&r);
	close(probe);
}

/* A listener on loopback; its address in @ss. */
static int listener(struct sockaddr_storage *ss, socklen_t *len)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*len = ev_loopback(AF_INET, ss);
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len) || listen(fd, 8))
		return -1;
	return fd;
}

static uint64_t ino_of(int fd)
{
	uint64_t ino = 0;
	uint32_t dev;

	ft_fd_id(fd, &dev, &ino);
	return ino;
}

/* The socket record of @type about @fd's socket says what the kernel does. */
static void expect_sock(struct __test_metadata *_metadata,
			const struct ev_log *l, int type, int fd, int result)
{
	struct sockaddr_in me = {0}, peer = {0};
	socklen_t len = sizeof(me);
	const struct ftagent_rec_sock *s = NULL;
	const struct ftagent_rec *r;
	uint64_t ino = ino_of(fd);
	size_t i = 0, n = 0;

	while ((r = ev_next(l, &i, type, getpid()))) {
		if (EV_BODY(r, struct ftagent_rec_sock)->sock_ino != ino)
			continue;
		s = r->body;
		n++;
	}
	ASSERT_EQ(1, n) TH_LOG("records of type %d for fd %d", type, fd);
	EXPECT_EQ(result, s->result);
	EXPECT_EQ(AF_INET, s->family);
	EXPECT_EQ(IPPROTO_TCP, s->protocol);
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&me, &len));
	EXPECT_EQ(ntohs(me.sin_port), s->local_port);
	len = sizeof(peer);
	if (!getpeername(fd, (struct sockaddr *)&peer, &len))
		EXPECT_EQ(ntohs(peer.sin_port), s->remote_port);
}

TEST_F(iour_ev, connects_and_accepts_give_records_like_the_calls)
{
	struct sockaddr_storage ss, closed;
	struct io_uring_sqe *sqe;
	socklen_t len, clen;
	int lfd, cfd, bad, gone, res[2];
	struct ring r;

	lfd = listener(&ss, &len);
	ASSERT_LE(0, lfd);
	/* A port nobody listens on: bound and closed again. */
	gone = listener(&closed, &clen);
	ASSERT_LE(0, gone);
	close(gone);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bad = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, cfd);
	ASSERT_LE(0, bad);
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);

	sqe = ring_sqe(&r, IORING_OP_CONNECT, cfd, 1);
	sqe->addr = (uintptr_t)&ss;
	sqe->off = len;
	sqe = ring_sqe(&r, IORING_OP_CONNECT, bad, 2);
	sqe->addr = (uintptr_t)&closed;
	sqe->off = clen;
	ASSERT_EQ(0, run(&r, 2, res));
	ASSERT_EQ(0, res[0]);
	ASSERT_EQ(-ECONNREFUSED, res[1]);
	sqe = ring_sqe(&r, IORING_OP_ACCEPT, lfd, 1);
	sqe->accept_flags = SOCK_CLOEXEC;
	ASSERT_EQ(0, run(&r, 1, res));
	ASSERT_LE(0, res[0]);
	ASSERT_LE(0, ev_drain(&self->f.log));

	expect_sock(_metadata, &self->f.log, FTAGENT_REC_CONNECT, cfd, 0);
	expect_sock(_metadata, &self->f.log, FTAGENT_REC_CONNECT, bad,
		    -ECONNREFUSED);
	expect_sock(_metadata, &self->f.log, FTAGENT_REC_ACCEPT, res[0],
		    res[0]);
	EXPECT_EQ(2, ev_count(&self->f.log, FTAGENT_REC_CONNECT, getpid()));
	EXPECT_EQ(1, ev_count(&self->f.log, FTAGENT_REC_ACCEPT, getpid()));
	ring_exit(&r);
	close(res[0]);
	close(cfd);
	close(bad);
	close(lfd);
}

/* Write @text to tracefs file @name: 0, or -errno. */
static int tracefs_put(const char *name, const char *text, bool append)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* Put another tracer's return hook on fd_install(), or take it off. */
static int fd_install_return_hook(int kind, bool on)
{
	int err;

	if (kind == 0) {
		if (!on) {
			tracefs_put("events/kprobes/ftagent_fdret/enable", "0",
				    false);
			return tracefs_put("kprobe_events", "-:ftagent_fdret\n",
					   true);
		}
		err = tracefs_put("kprobe_events",
				  "r:ftagent_fdret fd_install\n", true);
		return err ? err
			   : tracefs_put("events/kprobes/ftagent_fdret/enable",
					 "1", false);
	}
	if (!on) {
		tracefs_put("current_tracer", "nop", false);
		return tracefs_put("set_ftrace_filter", "", false);
	}
	err = tracefs_put("set_ftrace_filter", "fd_install", false);
	return err ? err
		   : tracefs_put("current_tracer", "function_graph", false);
}

/*
 * Another tracer's return hook on fd_install() (a kretprobe, then
 * function_graph) rewrites the return address on the stack before the
 * function runs: the records are still written, for opens inline and
 * through io-wq and for an accept.
 */
TEST_F(iour_ev, records_survive_a_return_hook_on_fd_install)
{
	struct sockaddr_storage ss;
	struct io_uring_sqe *sqe;
	int kind, lfd, cfd, err, res[3];
	char a[128];
	socklen_t len;
	struct ring r;

	if (access("/sys/kernel/tracing/kprobe_events", W_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (access("/sys/kernel/tracing/kprobe_events", W_OK))
		SKIP(return, "no writable tracefs (lockdown, or not built)");
	snprintf(a, sizeof(a), "%s/a", self->f.dir);
	ASSERT_EQ(0, close(open(a, O_WRONLY | O_CREAT, 0600)));
	lfd = listener(&ss, &len);
	ASSERT_LE(0, lfd);
	for (kind = 0; kind < 2; kind++) {
		err = fd_install_return_hook(kind, true);
		/* Lockdown shuts tracefs to writes, whatever its modes say. */
		if (err == -EPERM && !kind) {
			/* Then no tracer can hide them: lockdown must be why. */
			close(lfd);
			ASSERT_EQ(0, system("grep -q '\\[confidentiality\\]' "
					    "/sys/kernel/security/lockdown"));
			return;
		}
		ASSERT_EQ(0, err)
		TH_LOG("%s on fd_install",
		       kind ? "function_graph" : "a kretprobe");
		cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, cfd);
		ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, len));
		ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
		ASSERT_LE(0, ev_drain(&self->f.log));
		ev_forget(&self->f.log);
		prep_openat(&r, AT_FDCWD, a, O_RDWR, 1);
		sqe = prep_openat(&r, AT_FDCWD, a, O_RDONLY, 2);
		sqe->flags |= IOSQE_ASYNC;
		sqe = ring_sqe(&r, IORING_OP_ACCEPT, lfd, 3);
		sqe->accept_flags = SOCK_CLOEXEC;
		ASSERT_EQ(0, run(&r, 3, res));
		ASSERT_LE(0, ev_drain(&self->f.log));
		EXPECT_EQ(0, fd_install_return_hook(kind, false));
		ASSERT_LE(0, res[0]);
		ASSERT_LE(0, res[1]);
		ASSERT_LE(0, res[2]);
		expect_open(_metadata, &self->f.log, res[0], O_RDWR);
		expect_open(_metadata, &self->f.log, res[1], O_RDONLY);
		expect_sock(_metadata, &self->f.log, FTAGENT_REC_ACCEPT, res[2],
			    res[2]);
		ring_exit(&r);
		close(res[0]);
		close(res[1]);
		close(res[2]);
		close(cfd);
	}
	close(lfd);
}

/* The CLOSE records of this process about @ino's socket. */
static size_t closes_of(const struct ev_log *l, uint64_t ino)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0;

	while ((r = ev_next(l, &i, FTAGENT_REC_CLOSE, getpid())))
		n += EV_BODY(r, struct ftagent_rec_sock)->sock_ino == ino;
	return n;
}

/*
 * An io_uring CLOSE of a socket's last descriptor gives one CLOSE record,
 * as close() does: inline, through io-wq and from the SQPOLL thread. The
 * record comes with the socket's release, which the thread that dropped
 * the last reference runs on its way (an io-wq worker's after its CQE).
 */
TEST_F(iour_ev, closes_give_one_record_each_like_the_call)
{
	struct io_uring_sqe *sqe;
	struct ring r, sq;
	uint64_t ino[3];
	int fd[3], res[2], i;
	size_t seen;

	for (i = 0; i < 3; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd[i]);
		ino[i] = ino_of(fd[i]);
		ASSERT_NE(0, ino[i]);
	}
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, ring_init(&sq, 4, IORING_SETUP_SQPOLL, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);

	ring_sqe(&r, IORING_OP_CLOSE, fd[0], 1);
	sqe = ring_sqe(&r, IORING_OP_CLOSE, fd[1], 2);
	sqe->flags |= IOSQE_ASYNC;
	ASSERT_EQ(0, run(&r, 2, res));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);
	ring_sqe(&sq, IORING_OP_CLOSE, fd[2], 1);
	ASSERT_EQ(0, run(&sq, 1, res));
	EXPECT_EQ(0, res[0]);
	/* The descriptors are gone: closed by the requests. */
	for (i = 0; i < 3; i++)
		EXPECT_EQ(-1, fcntl(fd[i], F_GETFD));
	for (i = 0; i < 500; i++) {
		ASSERT_LE(0, ev_drain(&self->f.log));
		seen = closes_of(&self->f.log, ino[0]) +
		       closes_of(&self->f.log, ino[1]) +
		       closes_of(&self->f.log, ino[2]);
		if (seen >= 3)
			break;
		ev_sleep_ms(10);
	}
	for (i = 0; i < 3; i++) {
		seen = closes_of(&self->f.log, ino[i]);
		EXPECT_EQ(1, seen)
		TH_LOG("socket %d: %zu CLOSE records", i, seen);
	}
	ring_exit(&sq);
	ring_exit(&r);
}

/* One multishot ACCEPT, three connections: three records, one each. */
TEST_F(iour_ev, a_multishot_accept_gives_a_record_per_connection)
{
	struct io_uring_cqe cqe[6];
	struct sockaddr_storage ss;
	struct io_uring_sqe *sqe;
	int lfd, c[3], p[2], i;
	char x;
	socklen_t len;
	struct ring r;

	lfd = listener(&ss, &len);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, ring_init(&r, 8, 0, 0));
	sqe = ring_sqe(&r, IORING_OP_ACCEPT, lfd, 7);
	sqe->ioprio = IORING_ACCEPT_MULTISHOT;
	sqe->accept_flags = SOCK_CLOEXEC;
	/*
	 * A multishot poll with the same tag: its events (CQEs with "more"
	 * and the poll mask as result) must not pass for connections.
	 */
	sqe = ring_sqe(&r, IORING_OP_POLL_ADD, p[0], 7);
	sqe->poll32_events = POLLIN;
	sqe->len = IORING_POLL_ADD_MULTI;
	ASSERT_EQ(2, ring_submit(&r, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	for (i = 0; i < 3; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, connect(c[i], (struct sockaddr *)&ss, len));
	}
	ASSERT_EQ(0, ring_wait(&r, cqe, 3));
	/* Poll events between and after the connections. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, write(p[1], "x", 1));
		ASSERT_EQ(0, ring_wait(&r, &cqe[3 + i], 1));
		ASSERT_EQ(1, read(p[0], &x, 1));
		ASSERT_EQ(POLLIN, cqe[3 + i].res & POLLIN);
		ASSERT_TRUE(cqe[3 + i].flags & IORING_CQE_F_MORE);
	}
	ASSERT_LE(0, ev_drain(&self->f.log));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(7, cqe[i].user_data);
		ASSERT_LE(0, cqe[i].res);
		EXPECT_TRUE(cqe[i].flags & IORING_CQE_F_MORE);
		expect_sock(_metadata, &self->f.log, FTAGENT_REC_ACCEPT,
			    cqe[i].res, cqe[i].res);
	}
	EXPECT_EQ(3, ev_count(&self->f.log, FTAGENT_REC_ACCEPT, getpid()));
	ring_exit(&r);
	for (i = 0; i < 3; i++) {
		close(cqe[i].res);
		close(c[i]);
	}
	close(p[0]);
	close(p[1]);
	close(lfd);
}

/* An accept into a registered slot: no record names a descriptor. */
TEST_F(iour_ev, an_accept_into_a_registered_slot_names_no_descriptor)
{
	int slots[4] = {-1, -1, -1, -1}, lfd, cfd, res[1];
	struct sockaddr_storage ss;
	struct io_uring_sqe *sqe;
	socklen_t len;
	struct ring r;

	lfd = listener(&ss, &len);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, syscall(__NR_io_uring_register, r.fd,
			     IORING_REGISTER_FILES, slots, 4));
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, len));
	/* Descriptor 0 a socket: a record taking slot 0 for it would name it. */
	ASSERT_EQ(0, dup2(cfd, 0));
	ASSERT_LE(0, ev_drain(&self->f.log));
	ev_forget(&self->f.log);
	sqe = ring_sqe(&r, IORING_OP_ACCEPT, lfd, 1);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	ASSERT_EQ(0, run(&r, 1, res));
	ASSERT_EQ(0, res[0]);
	ASSERT_LE(0, ev_drain(&self->f.log));
	EXPECT_EQ(0, ev_count(&self->f.log, FTAGENT_REC_ACCEPT, getpid()));
	ring_exit(&r);
	close(cfd);
	close(lfd);
}

TEST_HARNESS_MAIN
