// SPDX-License-Identifier: GPL-2.0
/*
 * The hook that writes io_uring's OPEN and ACCEPT records sits on
 * fd_install(), which every new descriptor on the host passes, so it is
 * attached only once io_uring is in use (kmod/iouring_install.c): at load
 * if a task has an io_uring context then, else by the first
 * io_uring_setup() or io_uring_enter(), which the module restarts
 * unseen once the hook is on. Each test reloads the module and checks,
 * through tracefs's list of hooked functions, that fd_install() is
 * hooked exactly when it should be, and that the first open through the
 * ring gets its record:
 *
 *  - no ring: descriptors made by pipe(), socket() and open() leave it
 *    unhooked; the first io_uring_setup() returns a ring (the restart is
 *    not seen) and hooks it;
 *  - a ring this task set up before the load: hooked at load;
 *  - a ring set up before the load by a thread that is gone, used by a
 *    task that never touched io_uring: hooked by its first
 *    io_uring_enter();
 *  - an SQPOLL ring set up before the load by a thread that is gone: its
 *    SQPOLL thread has a context, hooked at load;
 *  - a task blocked in io_uring_enter() at the load, with no io_uring
 *    context of its own (it submitted nothing): it may have entered
 *    before the watch was on, hooked at load;
 *  - the first io_uring_setup() through int $0x80: restarted as well.
 *
 * Not in the lockdown phase: it loads the module.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "events_test.h"
#include "ia32_test.h"
#include "reload_test.h"
#include "../../tools/lib/iouring_raw.h"

#define ENABLED_FUNCTIONS "/sys/kernel/tracing/enabled_functions"

/* 1 if ftrace has fd_install() hooked, 0 if not, -1 if it cannot tell. */
static int fd_install_hooked(void)
{
	char line[512];
	int found = 0;
	FILE *f;

	if (access(ENABLED_FUNCTIONS, R_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	f = fopen(ENABLED_FUNCTIONS, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		found |= !strncmp(line, "fd_install ", 11);
	fclose(f);
	return found;
}

/*
 * Open @path through @r (a new OPENAT request) and check its one OPEN
 * record, read from a log opened now.
 */
static void expect_ring_open_recorded(struct __test_metadata *_metadata,
				      struct ring *r, const char *dir)
{
	struct io_uring_cqe cqe;
	struct ev_open_fixture f;
	struct io_uring_sqe *sqe;
	const struct ftagent_rec *rec;
	char path[128];
	size_t i = 0;
	int n = 0;

	ASSERT_EQ(0, ev_open_fixture_setup(&f, dir));
	snprintf(path, sizeof(path), "%s/a", f.dir);
	ASSERT_EQ(0, close(open(path, O_WRONLY | O_CREAT, 0600)));
	ASSERT_LE(0, ev_drain(&f.log));
	ev_forget(&f.log);
	sqe = ring_sqe(r, IORING_OP_OPENAT, AT_FDCWD, 1);
	sqe->addr = (uintptr_t)path;
	sqe->open_flags = O_RDWR;
	ASSERT_EQ(1, ring_submit(r, 1));
	ASSERT_EQ(0, ring_wait(r, &cqe, 1));
	ASSERT_LE(0, cqe.res);
	ASSERT_LE(0, ev_drain(&f.log));
	while ((rec = ev_next(&f.log, &i, FTAGENT_REC_OPEN, getpid())))
		n += EV_BODY(rec, struct ftagent_rec_open)->fd == cqe.res;
	EXPECT_EQ(1, n)
	TH_LOG("OPEN records naming fd %d: %d (of %zu, %zu gaps)", cqe.res, n,
	       ev_count(&f.log, FTAGENT_REC_OPEN, getpid()),
	       ev_count(&f.log, FTAGENT_REC_GAP, 0));
	close(cqe.res);
	EXPECT_EQ(0, ev_open_fixture_teardown(&f));
}

/* Set a ring up in a thread of its own, which then ends and is gone. */
struct ring_maker {
	struct ring *r;
	unsigned int flags;
	pid_t tid;
	int rc;
};

static void *make_ring(void *arg)
{
	struct ring_maker *m = arg;

	m->tid = gettid();
	m->rc = ring_init(m->r, 4, m->flags, 0);
	return NULL;
}

/*
 * Its task off the task list, not only joined (pthread_join() returns
 * once the thread has let go of its memory, before the kernel reaps it).
 */
static int ring_from_a_gone_thread(struct ring *r, unsigned int flags)
{
	struct ring_maker m = {.r = r, .flags = flags};
	char path[64];
	pthread_t t;
	int tries;

	if (pthread_create(&t, NULL, make_ring, &m) || pthread_join(t, NULL) ||
	    m.rc)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d", m.tid);
	for (tries = 0; tries < 10000 && !access(path, F_OK); tries++)
		usleep(1000);
	return access(path, F_OK) ? 0 : -1;
}

TEST_RELOADS(fd_install_is_hooked_by_the_first_ring)
{
	int fds[2], s, fd;
	struct ring r;

	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(0, fd_install_hooked()) TH_LOG("hooked with no ring about");
	ASSERT_EQ(0, pipe(fds));
	s = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	fd = open("/proc/self/status", O_RDONLY);
	ASSERT_LE(0, fd);
	close(fds[0]);
	close(fds[1]);
	close(s);
	close(fd);
	EXPECT_EQ(0, fd_install_hooked());
	/* Restarted once the hook is on: a ring, never ERESTARTNOINTR. */
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0)) TH_LOG("io_uring_setup: %m");
	EXPECT_EQ(1, fd_install_hooked());
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	ring_exit(&r);
}

TEST_RELOADS(a_ring_set_up_before_the_load_is_seen_at_load)
{
	struct ring r;

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, ring_init(&r, 4, 0, 0));
	ASSERT_EQ(0, ft_reload_module(NULL));
	EXPECT_EQ(1, fd_install_hooked());
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	ring_exit(&r);
}

TEST_RELOADS(a_ring_from_before_the_load_is_seen_at_its_first_enter)
{
	struct ring r;

	ASSERT_EQ(0, ft_unload_module());
	/* This task never uses io_uring before the enter below. */
	ASSERT_EQ(0, ring_from_a_gone_thread(&r, 0));
	ASSERT_EQ(0, ft_reload_module(NULL));
	EXPECT_EQ(0, fd_install_hooked());
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	EXPECT_EQ(1, fd_install_hooked());
	ring_exit(&r);
}

TEST_RELOADS(an_sqpoll_ring_from_before_the_load_is_seen_at_load)
{
	struct ring r;

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, ring_from_a_gone_thread(&r, IORING_SETUP_SQPOLL));
	ASSERT_EQ(0, ft_reload_module(NULL));
	EXPECT_EQ(1, fd_install_hooked());
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	ring_exit(&r);
}

/* Wait in io_uring_enter() for one CQE, submitting nothing. */
static void *wait_one_cqe(void *arg)
{
	struct ring *r = arg;

	syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL,
		0);
	return NULL;
}

static pid_t waiter_tid;

static void *wait_one_cqe_noting_tid(void *arg)
{
	__atomic_store_n(&waiter_tid, gettid(), __ATOMIC_RELEASE);
	return wait_one_cqe(arg);
}

TEST_RELOADS(a_task_inside_io_uring_enter_at_the_load_has_it_hooked)
{
	struct io_uring_cqe cqe;
	pthread_t t;
	struct ring r;
	int tries;

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, ring_from_a_gone_thread(&r, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_one_cqe_noting_tid, &r));
	for (tries = 0; tries < 10000; tries++) {
		pid_t tid = __atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE);

		if (tid && ft_thread_in_syscall(tid, __NR_io_uring_enter, 0))
			break;
		usleep(1000);
	}
	ASSERT_LT(tries, 10000) TH_LOG("the waiter never blocked in the call");
	ASSERT_EQ(0, ft_reload_module(NULL));
	EXPECT_EQ(1, fd_install_hooked());
	/* A NOP's CQE lets the waiter go; it may take the CQE itself. */
	ring_sqe(&r, IORING_OP_NOP, -1, 1);
	ASSERT_EQ(1, ring_submit(&r, 0));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ring_reap(&r, &cqe, 1);
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	ring_exit(&r);
}

/* io_uring_setup's number in the 32-bit table. */
#define NR32_IO_URING_SETUP 425

TEST_RELOADS(the_first_32_bit_io_uring_setup_hooks_it_too)
{
	struct io_uring_params *p;
	struct ring r;
	long fd;

	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(0, fd_install_hooked());
	/* The 32-bit call reads its arguments below 4 GiB. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, sizeof(*p));
	fd = call32(NR32_IO_URING_SETUP, 4, (long)p, 0, 0, 0);
	ASSERT_LE(0, fd) TH_LOG("int $0x80 io_uring_setup: %ld", fd);
	EXPECT_EQ(1, fd_install_hooked());
	memset(&r, 0, sizeof(r));
	r.fd = fd;
	r.p = *p;
	ASSERT_EQ(0, ring_map(&r));
	expect_ring_open_recorded(_metadata, &r, "/tmp/ftiat.XXXXXX");
	ring_exit(&r);
	munmap(p, 4096);
}

TEST_HARNESS_MAIN
