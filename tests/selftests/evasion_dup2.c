// SPDX-License-Identifier: GPL-2.0
/*
 * A sibling thread swaps what a descriptor names, with dup2() in a loop,
 * while calls run on it: a TCP socket one moment, a regular file the
 * next. Each call uses whichever object its own fdget() took, which may
 * not be the one the number named when the call began. With byte budgets
 * loaded, the bytes must be charged where they went: a socket's to
 * bytes_received or bytes_sent, a file's to bytes_read or bytes_written,
 * or a process could move its traffic out of a network budget. Ground
 * truth is the test's own: the file reads from is empty (every byte read
 * came from the socket), and the file written to grows by what went to
 * it while the peer counts what went to the socket.
 *
 * A loop is a race the swap wins now and then. Two calls read user
 * memory before they look their descriptor up (recvmmsg's timeout,
 * sendfile's offset): with that memory behind userfaultfd, the swap is
 * made while the call waits for the page, every time.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "budget_test.h"

#define TOTAL (1 << 20)
#define BIG   (1ULL << 40)

struct flipper {
	int n, a, b;
	int stop;
	unsigned long flips;
};

/* Make @f->n name @a, then @b, until told to stop. */
static void *flip(void *arg)
{
	struct flipper *f = arg;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		dup2(f->a, f->n);
		dup2(f->b, f->n);
		f->flips++;
	}
	return NULL;
}

struct pump {
	int fd;
	size_t len; /* to send; or what was received */
};

static void *send_all(void *arg)
{
	struct pump *p = arg;
	char buf[1024];
	size_t sent = 0;
	ssize_t r;

	memset(buf, 's', sizeof(buf));
	while (sent < p->len) {
		r = send(p->fd, buf, sizeof(buf), 0);
		if (r <= 0)
			break;
		sent += r;
	}
	return NULL;
}

static void *receive_all(void *arg)
{
	struct pump *p = arg;
	char buf[4096];
	ssize_t r;

	p->len = 0;
	while ((r = recv(p->fd, buf, sizeof(buf), 0)) > 0)
		p->len += r;
	return NULL;
}

/* The usage of the budget named @name in the set the module holds. */
static int used_of(const char *name, uint64_t *used)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	int rc = -1;
	size_t i;

	if (ftagent_get_budgets(ctl(), &s, &err))
		return -1;
	for (i = 0; i < s.n; i++)
		if (!strcmp(s.b[i].name, name)) {
			*used = s.b[i].used;
			rc = 0;
		}
	ftagent_budget_set_free(&s);
	return rc;
}

static void four_budgets(struct __test_metadata *_metadata)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;

	ASSERT_EQ(0, clear_budgets());
	budget(&s, "received", FTAGENT_METRIC_BYTES_RECEIVED, BIG, 600000);
	budget(&s, "read", FTAGENT_METRIC_BYTES_READ, BIG, 600000);
	budget(&s, "sent", FTAGENT_METRIC_BYTES_SENT, BIG, 600000);
	budget(&s, "written", FTAGENT_METRIC_BYTES_WRITTEN, BIG, 600000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ftagent_budget_set_free(&s);
}

enum how { BY_READ, BY_RECVFROM };

/*
 * Receive TOTAL bytes through a number that flips between the socket
 * and an empty file: every byte is the socket's.
 */
static void receive_through_a_flipping_number(struct __test_metadata *_metadata,
					      enum how how)
{
	char path[64], buf[4096];
	struct flipper f = {0};
	struct pump p;
	pthread_t ft, pt;
	uint64_t received = 1, read_ = 1;
	size_t got = 0;
	ssize_t r;
	int fds[3], file;

	snprintf(path, sizeof(path), "/tmp/ftdup2.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	four_budgets(_metadata);
	f.a = fds[2];
	f.b = file;
	f.n = dup(file);
	ASSERT_LE(0, f.n);
	p.fd = fds[1];
	p.len = TOTAL;
	ASSERT_EQ(0, pthread_create(&pt, NULL, send_all, &p));
	ASSERT_EQ(0, pthread_create(&ft, NULL, flip, &f));
	while (got < TOTAL) {
		if (how == BY_READ)
			r = read(f.n, buf, sizeof(buf));
		else
			r = recvfrom(f.n, buf, sizeof(buf), 0, NULL, NULL);
		if (r > 0)
			got += r;
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
	pthread_join(ft, NULL);
	pthread_join(pt, NULL);
	EXPECT_EQ(TOTAL, got);
	EXPECT_LT(0, f.flips);
	ASSERT_EQ(0, used_of("received", &received));
	ASSERT_EQ(0, used_of("read", &read_));
	EXPECT_EQ(TOTAL, received);
	EXPECT_EQ(0, read_);
	TH_LOG("%lu flips", f.flips);
	EXPECT_EQ(0, clear_budgets());
	close(f.n);
	close(file);
	unlink(path);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

TEST(a_read_through_a_flipping_number_charges_the_socket_s_bytes_to_it)
{
	receive_through_a_flipping_number(_metadata, BY_READ);
}

TEST(a_recvfrom_through_a_flipping_number_charges_the_socket_s_bytes_to_it)
{
	receive_through_a_flipping_number(_metadata, BY_RECVFROM);
}

/*
 * Write 1 KiB at a time through a number that flips between the socket
 * and a file: the file's growth is what went to it, the peer's count
 * what went to the socket.
 */
TEST(writes_through_a_flipping_number_are_charged_where_they_went)
{
	char path[64], buf[1024];
	struct flipper f = {0};
	struct pump p;
	pthread_t ft, pt;
	uint64_t sent = 1, written = 1;
	size_t done = 0;
	struct stat st;
	ssize_t r;
	int fds[3], file;

	memset(buf, 'w', sizeof(buf));
	snprintf(path, sizeof(path), "/tmp/ftdup2w.%d", getpid());
	file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	four_budgets(_metadata);
	f.a = fds[2];
	f.b = file;
	f.n = dup(file);
	ASSERT_LE(0, f.n);
	p.fd = fds[1];
	ASSERT_EQ(0, pthread_create(&pt, NULL, receive_all, &p));
	ASSERT_EQ(0, pthread_create(&ft, NULL, flip, &f));
	while (done < TOTAL) {
		r = write(f.n, buf, sizeof(buf));
		ASSERT_LT(0, r);
		done += r;
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
	pthread_join(ft, NULL);
	/* Every reference to the socket goes: the peer sees the end. */
	close(f.n);
	close(fds[2]);
	pthread_join(pt, NULL);
	ASSERT_EQ(0, fstat(file, &st));
	EXPECT_EQ(TOTAL, (size_t)st.st_size + p.len);
	EXPECT_LT(0, f.flips);
	ASSERT_EQ(0, used_of("sent", &sent));
	ASSERT_EQ(0, used_of("written", &written));
	EXPECT_EQ(p.len, sent);
	EXPECT_EQ((uint64_t)st.st_size, written);
	TH_LOG("%lu flips; %zu bytes to the socket, %lld to the file", f.flips,
	       p.len, (long long)st.st_size);
	EXPECT_EQ(0, clear_budgets());
	close(file);
	unlink(path);
	close(fds[0]);
	close(fds[1]);
}

/*
 * Pages behind userfaultfd (one or two): fault i waits until stall_wait()
 * has made @n name @to[i], then gets the content of the page it named.
 */
struct stall {
	int uffd;
	char *pages;
	long size;
	int npages;
	int n, to[2];
	char content[2][4096];
	int done;
};

/* 0; 1 if this kernel has no userfaultfd; -1 if a later step failed. */
static int stall_init(struct stall *st, int npages, int n)
{
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg = {0};

	memset(st, 0, sizeof(*st));
	st->size = sysconf(_SC_PAGESIZE);
	st->npages = npages;
	st->n = n;
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (st->uffd < 0 || ioctl(st->uffd, UFFDIO_API, &api))
		return 1;
	st->pages = mmap(NULL, npages * st->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->pages == MAP_FAILED)
		return -1;
	reg.range.start = (unsigned long)st->pages;
	reg.range.len = npages * st->size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	return ioctl(st->uffd, UFFDIO_REGISTER, &reg) ? -1 : 0;
}

/* Each fault in turn: swap the number, then let its page in. */
static void *stall_wait(void *arg)
{
	static char src[65536] __attribute__((aligned(65536)));
	struct stall *st = arg;
	struct pollfd pfd = {.fd = st->uffd, .events = POLLIN};
	struct uffdio_copy copy = {0};
	struct uffd_msg msg;
	unsigned long page;
	int i, which;

	for (i = 0; i < st->npages; i++) {
		if (poll(&pfd, 1, 30000) != 1 ||
		    read(st->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			return NULL;
		page = msg.arg.pagefault.address & ~(st->size - 1);
		which = (page - (unsigned long)st->pages) / st->size;
		if (which < 0 || which >= st->npages ||
		    dup2(st->to[i], st->n) != st->n)
			return NULL;
		memcpy(src, st->content[which], sizeof(st->content[which]));
		copy.dst = page;
		copy.src = (unsigned long)src;
		copy.len = st->size;
		if (ioctl(st->uffd, UFFDIO_COPY, &copy))
			return NULL;
		st->done++;
	}
	return NULL;
}

static void stall_fini(struct stall *st)
{
	munmap(st->pages, st->npages * st->size);
	close(st->uffd);
}

/*
 * recvmmsg(n, ..., timeout): n names an empty file when the call begins;
 * while the call reads its timeout, n is made to name the socket, which
 * the call then receives from. Its bytes are the socket's.
 */
TEST(a_recvmmsg_whose_number_was_swapped_before_its_lookup_is_charged_to_its_socket)
{
	char path[64], buf[2000], data[1000];
	uint64_t received = 1, read_ = 1;
	struct mmsghdr mm = {0};
	struct iovec iov = {buf, sizeof(buf)};
	struct timespec ts = {.tv_sec = 5};
	struct stall st;
	pthread_t th;
	int fds[3], file, n, r, rc;

	snprintf(path, sizeof(path), "/tmp/ftdup2m.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	n = dup(file);
	ASSERT_LE(0, n);
	rc = stall_init(&st, 1, n);
	if (rc > 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, rc);
	st.to[0] = fds[2];
	memcpy(st.content[0], &ts, sizeof(ts));
	four_budgets(_metadata);
	memset(data, 'm', sizeof(data));
	ASSERT_EQ(sizeof(data), send(fds[1], data, sizeof(data), 0));
	usleep(100000);
	ASSERT_EQ(0, pthread_create(&th, NULL, stall_wait, &st));
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	r = syscall(__NR_recvmmsg, n, &mm, 1, 0, st.pages);
	pthread_join(th, NULL);
	ASSERT_EQ(1, st.done);
	ASSERT_EQ(1, r) TH_LOG("recvmmsg: %s", strerror(errno));
	EXPECT_EQ(sizeof(data), mm.msg_len);
	ASSERT_EQ(0, used_of("received", &received));
	ASSERT_EQ(0, used_of("read", &read_));
	EXPECT_EQ(sizeof(data), received);
	EXPECT_EQ(0, read_);
	TH_LOG("return path: %s",
	       ft_exit_work_on() == 1 ? "exit work" : "settle or kprobes");
	EXPECT_EQ(0, clear_budgets());
	stall_fini(&st);
	close(n);
	close(file);
	unlink(path);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

/*
 * sendfile(n, in, &offset, 8192): n names a regular file when the call
 * begins, and the socket once the call has read its offset. What it sent
 * is bytes_sent, not bytes_written.
 */
TEST(a_sendfile_whose_number_was_swapped_before_its_lookup_is_charged_to_its_socket)
{
	char path[64], inpath[64], buf[8192];
	uint64_t sent = 1, written = 1;
	struct stall st;
	struct pump p;
	pthread_t th, rt;
	int fds[3], file, in, n, rc;
	ssize_t r;

	snprintf(path, sizeof(path), "/tmp/ftdup2s.%d", getpid());
	snprintf(inpath, sizeof(inpath), "/tmp/ftdup2i.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	in = open(inpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_LE(0, in);
	memset(buf, 'f', sizeof(buf));
	ASSERT_EQ(0, ft_write_all(in, buf, sizeof(buf)));
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	n = dup(file);
	ASSERT_LE(0, n);
	rc = stall_init(&st, 1, n);
	if (rc > 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, rc);
	st.to[0] = fds[2];
	/* The offset the page holds: 0. */
	four_budgets(_metadata);
	p.fd = fds[1];
	ASSERT_EQ(0, pthread_create(&rt, NULL, receive_all, &p));
	ASSERT_EQ(0, pthread_create(&th, NULL, stall_wait, &st));
	r = sendfile(n, in, (off_t *)st.pages, sizeof(buf));
	pthread_join(th, NULL);
	ASSERT_EQ(1, st.done);
	ASSERT_EQ(sizeof(buf), r) TH_LOG("sendfile: %s", strerror(errno));
	/* n and fds[2] both name the socket: the peer sees the end. */
	close(n);
	close(fds[2]);
	pthread_join(rt, NULL);
	EXPECT_EQ(sizeof(buf), p.len);
	ASSERT_EQ(0, used_of("sent", &sent));
	ASSERT_EQ(0, used_of("written", &written));
	EXPECT_EQ(sizeof(buf), sent);
	EXPECT_EQ(0, written);
	EXPECT_EQ(0, clear_budgets());
	stall_fini(&st);
	close(file);
	close(in);
	unlink(path);
	unlink(inpath);
	close(fds[0]);
	close(fds[1]);
}

/*
 * recvmmsg(n, msgs, 1, 0, timeout): n names an empty file at entry; while
 * the call reads its timeout (before its lookup) n is made to name the
 * socket; while it reads its message header (after the lookup, before
 * its check) n names the file again. The call receives from the socket
 * it looked up: its bytes are the socket's, whatever n names at the
 * check.
 */
TEST(a_recvmmsg_whose_number_was_swapped_back_before_its_check_is_charged_to_its_socket)
{
	char path[64], buf[2000], data[1000];
	uint64_t received = 1, read_ = 1;
	struct timespec ts = {.tv_sec = 5};
	struct iovec iov = {buf, sizeof(buf)};
	struct mmsghdr mm = {0}, *mp;
	struct stall st;
	pthread_t th;
	int fds[3], file, n, r, rc;

	snprintf(path, sizeof(path), "/tmp/ftdup2b.%d", getpid());
	file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, ev_tcp_pair(AF_INET, fds));
	n = dup(file);
	ASSERT_LE(0, n);
	rc = stall_init(&st, 2, n);
	if (rc > 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, rc);
	st.to[0] = fds[2];
	st.to[1] = file;
	memcpy(st.content[0], &ts, sizeof(ts));
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	memcpy(st.content[1], &mm, sizeof(mm));
	four_budgets(_metadata);
	memset(data, 'b', sizeof(data));
	ASSERT_EQ(sizeof(data), send(fds[1], data, sizeof(data), 0));
	usleep(100000);
	ASSERT_EQ(0, pthread_create(&th, NULL, stall_wait, &st));
	mp = (struct mmsghdr *)(st.pages + st.size);
	r = syscall(__NR_recvmmsg, n, mp, 1, 0, st.pages);
	pthread_join(th, NULL);
	ASSERT_EQ(2, st.done);
	ASSERT_EQ(1, r) TH_LOG("recvmmsg: %s", strerror(errno));
	EXPECT_EQ(sizeof(data), mp->msg_len);
	ASSERT_EQ(0, used_of("received", &received));
	ASSERT_EQ(0, used_of("read", &read_));
	EXPECT_EQ(sizeof(data), received);
	EXPECT_EQ(0, read_);
	EXPECT_EQ(0, clear_budgets());
	stall_fini(&st);
	close(n);
	close(file);
	unlink(path);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
}

TEST_HARNESS_MAIN
