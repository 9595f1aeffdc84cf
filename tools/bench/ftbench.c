// SPDX-License-Identifier: GPL-2.0
/*
 * ftbench: the per-call cost of the system calls ftagent traces, and an
 * event storm. Run inside the benchmark guest (tools/bench/bench), where
 * guest time follows executed instructions, so nanoseconds here read as
 * instructions; the figures only mean something as a ratio to a baseline
 * measured in the same guest boot.
 *
 * Every sample is one operation timed on its own, so the percentiles are
 * those of single calls: a slow call (a counter table swap, a relay
 * sub-buffer switch) shows in p99 instead of vanishing into an average.
 * The timer read itself is in every sample, in every condition alike, so
 * it cancels out of the added cost. Setup (buffers, sockets, draining
 * the receiver, accepting) stays outside the timed regions.
 *
 * It is linked statically so that a fork+exec of it from tmpfs costs no
 * file system round trips (the guest's root is 9p).
 *
 * usage: ftbench [-n SCALE%] [-w WORKLOAD,...]   per-call samples
 *        ftbench storm SECONDS [fail]            exec/connect/open storm
 *        ftbench --exit                          (the exec'd child)
 *
 * Output, one line per workload:
 *   WORKLOAD samples=N p50=X p95=X p99=X mean=X calls=SYSCALL:N[,...]
 * where calls are the traced system calls the timed regions made, for the
 * caller's check that the agent saw at least that many.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/iouring_raw.h"

#define MAX_SAMPLES 40000

static double samples[MAX_SAMPLES];
static char self_path[4096];
static char data_path[] = "/tmp/ftbench-data.XXXXXX";

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double percentile(const double *v, int n, double p)
{
	int i = (int)(p / 100.0 * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static void report(const char *name, int n, const char *calls)
{
	double sum = 0;
	int i;

	qsort(samples, n, sizeof(*samples), cmp_double);
	for (i = 0; i < n; i++)
		sum += samples[i];
	printf("%s samples=%d p50=%.1f p95=%.1f p99=%.1f mean=%.1f calls=%s\n",
	       name, n, percentile(samples, n, 50), percentile(samples, n, 95),
	       percentile(samples, n, 99), sum / n, calls);
	fflush(stdout);
}

static void die(const char *what)
{
	fprintf(stderr, "ftbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A 1 MiB file in tmpfs: reads and sendfile come from memory. */
static int data_file(void)
{
	static char buf[65536];
	int fd = open(data_path, O_RDONLY), i;

	if (fd >= 0)
		return fd;
	fd = mkstemp(data_path);
	if (fd < 0)
		die("mkstemp");
	memset(buf, 'b', sizeof(buf));
	for (i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			die("write data file");
	return fd;
}

static int listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(lfd, 128) || getsockname(lfd, (struct sockaddr *)sa, &len))
		die("listen");
	return lfd;
}

/*
 * listener() for a process under injected faults: -1 where a call failed
 * (nothing left open), else a non-blocking listener.
 */
static int listener_tolerant(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd >= 0 && (bind(lfd, (struct sockaddr *)sa, sizeof(*sa)) ||
			 listen(lfd, 128) ||
			 getsockname(lfd, (struct sockaddr *)sa, &len))) {
		close(lfd);
		lfd = -1;
	}
	return lfd;
}

/* A loopback TCP pair with buffers big enough for a burst of sends. */
static void tcp_pair(int *tx, int *rx)
{
	struct sockaddr_in sa;
	int lfd = listener(&sa), one = 1, big = 4 << 20;

	*tx = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(*tx, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(*tx, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	*rx = accept(lfd, NULL, NULL);
	if (*rx < 0)
		die("accept");
	setsockopt(*rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	close(lfd);
}

static void drain(int fd, long want)
{
	static char buf[65536];

	while (want > 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			die("drain");
		want -= n;
	}
}

/*
 * Count @bytes more sent to @rx; once 64 KiB are pending, drain them
 * (called outside the timed region, so a send never waits for it).
 */
static void drain_every_64k(int rx, long *pending, long bytes)
{
	*pending += bytes;
	if (*pending >= 65536) {
		drain(rx, *pending);
		*pending = 0;
	}
}

static int bench_getppid(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		syscall(SYS_getppid);
		samples[i] = now_ns() - t0;
	}
	report("getppid", n, "-");
	return 0;
}

/*
 * The 32-bit entry (int $0x80 from this 64-bit process): an untraced
 * call, which must cost what it costs without ftagent, and a traced
 * pread64 through the ia32 table (number 180, offset in two halves).
 */
static long int80(long nr, long a1, long a2, long a3, long a4)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(0)
			 : "memory");
	return ret;
}

/*
 * A workload this kernel cannot run (no ia32 emulation, io_uring turned
 * off): said on its own line, which the parsers skip, instead of a crash.
 */
static int unavailable(const char *name, const char *why)
{
	printf("%s unavailable reason=%s\n", name, why);
	fflush(stdout);
	return 0;
}

/*
 * Whether this kernel runs int $0x80 for a 64-bit process: without ia32
 * emulation (or with it turned off at boot) the instruction faults, so a
 * child tries it first.
 */
static bool int80_available(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int80(20 /* getpid */, 0, 0, 0, 0);
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int bench_getppid_int80(int n)
{
	int i;

	if (!int80_available())
		return unavailable("getppid_int80", "no-ia32-emulation");

	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		int80(64 /* getppid */, 0, 0, 0, 0);
		samples[i] = now_ns() - t0;
	}
	report("getppid_int80", n, "-");
	return 0;
}

static int bench_pread_int80(int n)
{
	char *buf, calls[64];
	int fd, i;

	if (!int80_available())
		return unavailable("pread_4k_int80", "no-ia32-emulation");
	fd = data_file();
	/* A 32-bit call names memory by a 32-bit address. */
	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (int80(180 /* pread64 */, fd, (long)(uintptr_t)buf, 4096,
			  (i & 255) * 4096L) != 4096)
			die("pread (int $0x80)");
		samples[i] = now_ns() - t0;
	}
	munmap(buf, 4096);
	close(fd);
	snprintf(calls, sizeof(calls), "ia32_pread64:%d", n);
	report("pread_4k_int80", n, calls);
	return 0;
}

/*
 * One io_uring request per sample, submitted and reaped in one
 * io_uring_enter(): @op READ (4 KiB from the data file: counted) or NOP
 * (no file: what an uncounted opcode pays for the completion hook).
 */
static int bench_iouring(int n, int op, const char *name)
{
	static char buf[4096];
	struct io_uring_cqe cqe;
	char calls[64];
	struct ring r;
	int fd = data_file(), i;

	if (ring_init(&r, 4, 0, 0)) {
		close(fd);
		return unavailable(name, errno == ENOSYS ? "no-io_uring"
							 : "io_uring-refused");
	}
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (op == IORING_OP_NOP)
			ring_sqe(&r, op, -1, i);
		else
			ring_rw(&r, op, fd, buf, sizeof(buf), (i & 255) * 4096L,
				i);
		if (ring_submit(&r, 1) != 1 || ring_reap(&r, &cqe, 1) != 1 ||
		    cqe.res != (op == IORING_OP_NOP ? 0 : 4096))
			die(name);
		samples[i] = now_ns() - t0;
	}
	ring_exit(&r);
	close(fd);
	/* Not a system call the agent counts per call: no check. */
	snprintf(calls, sizeof(calls), "-");
	report(name, n, calls);
	return 0;
}

static int bench_iouring_nop(int n)
{
	return bench_iouring(n, IORING_OP_NOP, "iouring_nop");
}

static int bench_iouring_read(int n)
{
	return bench_iouring(n, IORING_OP_READ, "iouring_read_4k");
}

static int bench_pread(int n)
{
	char buf[4096], calls[64];
	int fd = data_file(), i;

	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (pread(fd, buf, sizeof(buf), (i & 255) * 4096L) != 4096)
			die("pread");
		samples[i] = now_ns() - t0;
	}
	close(fd);
	snprintf(calls, sizeof(calls), "pread64:%d", n);
	report("pread_4k", n, calls);
	return 0;
}

/*
 * pread_4k from a process whose descriptor table is shared, as every
 * multi-threaded program's is (here with a CLONE_FILES child that only
 * waits, since the binary is static): the module then holds the file
 * the call names from entry to settle (docs/hooks.md, "Attribution").
 */
static int bench_pread_shared(int n)
{
	char buf[4096], calls[64];
	int fd = data_file(), i;
	pid_t child = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);

	if (child < 0)
		die("clone");
	if (child == 0) {
		for (;;)
			pause();
	}
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (pread(fd, buf, sizeof(buf), (i & 255) * 4096L) != 4096)
			die("pread");
		samples[i] = now_ns() - t0;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
	snprintf(calls, sizeof(calls), "pread64:%d", n);
	report("pread_4k_shared", n, calls);
	return 0;
}

/*
 * An untraced call that still takes the exit-to-user work: closing the
 * last reference to a file defers its release to task work, which sets
 * TIF_NOTIFY_RESUME (memfd_create and close_range are not traced; the
 * memfd is made outside the timed region).
 */
static int bench_close_untraced(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int fd = syscall(SYS_memfd_create, "ftbench", 0);
		double t0;

		if (fd < 0)
			die("memfd_create");
		t0 = now_ns();
		if (syscall(SYS_close_range, fd, fd, 0))
			die("close_range");
		samples[i] = now_ns() - t0;
	}
	report("close_untraced", n, "-");
	return 0;
}

/*
 * Sends of @size bytes, optionally each after a pread of the same size
 * (a file served to a socket by hand); the receiver is drained every
 * 64 KiB, outside the timed regions, so a send never waits for it.
 */
static void bench_send_size(const char *name, int n, size_t size, bool read)
{
	static char buf[16384];
	char calls[64];
	int tx, rx, fd = read ? data_file() : -1, i;
	long pending = 0;

	tcp_pair(&tx, &rx);
	memset(buf, 's', sizeof(buf));
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (read &&
		    pread(fd, buf, size, (i & 63) * 16384L) != (ssize_t)size)
			die("pread");
		if (send(tx, buf, size, 0) != (ssize_t)size)
			die("send");
		samples[i] = now_ns() - t0;
		drain_every_64k(rx, &pending, size);
	}
	drain(rx, pending);
	close(tx);
	close(rx);
	if (fd >= 0)
		close(fd);
	if (read)
		snprintf(calls, sizeof(calls), "pread64:%d,sendto:%d", n, n);
	else
		snprintf(calls, sizeof(calls), "sendto:%d", n);
	report(name, n, calls);
}

static int bench_send(int n)
{
	bench_send_size("send_1k", n, 1024, false);
	return 0;
}

/*
 * sendmmsg of 8 messages of 1 KiB: each message passes the kprobe that
 * takes its byte count from the kernel (kmod/mmsg.c), so this is the
 * per-message cost next to send_1k's per-call one.
 */
#define MMSG_N 8
static int bench_sendmmsg(int n)
{
	static char buf[1024];
	struct mmsghdr vec[MMSG_N];
	struct iovec iov[MMSG_N];
	int tx, rx, i;
	long pending = 0;
	char calls[64];

	tcp_pair(&tx, &rx);
	memset(buf, 'm', sizeof(buf));
	memset(vec, 0, sizeof(vec));
	for (i = 0; i < MMSG_N; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = sizeof(buf);
		vec[i].msg_hdr.msg_iov = &iov[i];
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (sendmmsg(tx, vec, MMSG_N, 0) != MMSG_N)
			die("sendmmsg");
		samples[i] = now_ns() - t0;
		drain_every_64k(rx, &pending, MMSG_N * sizeof(buf));
	}
	drain(rx, pending);
	close(tx);
	close(rx);
	snprintf(calls, sizeof(calls), "sendmmsg:%d", n);
	report("sendmmsg_8x1k", n, calls);
	return 0;
}

/*
 * recv of 1 KiB over TCP, sent (untimed) just before: a receive's cost,
 * with the socket layer's count taken for it (kmod/mmsg.c: a kprobe on
 * 6.1, the sock_recv_length tracepoint where the kernel has it).
 */
static int bench_recv(int n)
{
	static char buf[1024];
	char calls[64];
	int tx, rx, i;

	tcp_pair(&tx, &rx);
	memset(buf, 'r', sizeof(buf));
	for (i = 0; i < n; i++) {
		double t0;

		if (send(tx, buf, sizeof(buf), 0) != sizeof(buf))
			die("send");
		t0 = now_ns();
		if (recv(rx, buf, sizeof(buf), MSG_WAITALL) != sizeof(buf))
			die("recv");
		samples[i] = now_ns() - t0;
	}
	close(tx);
	close(rx);
	snprintf(calls, sizeof(calls), "recvfrom:%d,sendto:%d", n, n);
	report("recv_1k", n, calls);
	return 0;
}

static int bench_pread_send(int n)
{
	bench_send_size("pread_send_16k", n, 16384, true);
	return 0;
}

static int bench_sendfile(int n)
{
	int tx, rx, fd = data_file(), i;
	char calls[64];

	tcp_pair(&tx, &rx);
	for (i = 0; i < n; i++) {
		off_t off = (i & 15) * 65536L;
		double t0 = now_ns();

		if (sendfile(tx, fd, &off, 65536) != 65536)
			die("sendfile");
		samples[i] = now_ns() - t0;
		drain(rx, 65536);
	}
	close(tx);
	close(rx);
	close(fd);
	snprintf(calls, sizeof(calls), "sendfile64:%d", n);
	report("sendfile_64k", n, calls);
	return 0;
}

/* One openat+close of the data file: the workload and the storm's loop. */
static void open_close(void)
{
	int fd = openat(AT_FDCWD, data_path, O_RDONLY);

	if (fd < 0)
		die("openat");
	close(fd);
}

static int bench_open(int n)
{
	char calls[64];
	int i;

	close(data_file());
	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		open_close();
		samples[i] = now_ns() - t0;
	}
	snprintf(calls, sizeof(calls), "openat:%d", n);
	report("openat_close", n, calls);
	return 0;
}

/*
 * One connect+close on loopback TCP to the listener @lfd at @sa; returns
 * the time connect+close took. socket() and the server's accept and close
 * stay outside it. The client closes with a reset (linger 0) so no
 * TIME_WAIT piles up over thousands of connections.
 */
static double connect_close(int lfd, const struct sockaddr_in *sa)
{
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	int fd = socket(AF_INET, SOCK_STREAM, 0), c;
	double t0, t;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	t0 = now_ns();
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		die("connect");
	close(fd);
	t = now_ns() - t0;
	c = accept(lfd, NULL, NULL);
	if (c < 0)
		die("accept");
	close(c);
	return t;
}

static int bench_connect(int n)
{
	struct sockaddr_in sa;
	int lfd = listener(&sa), i;
	char calls[64];

	for (i = 0; i < n; i++)
		samples[i] = connect_close(lfd, &sa);
	close(lfd);
	snprintf(calls, sizeof(calls), "connect:%d", n);
	report("connect_close", n, calls);
	return 0;
}

/* fork, exec this (static) binary with --exit, and reap it. */
static void spawn_exit(void)
{
	char *argv[] = {self_path, "--exit", NULL};
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		execv(self_path, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("exec child");
}

static int bench_exec(int n)
{
	char calls[64];
	int i;

	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		spawn_exit();
		samples[i] = now_ns() - t0;
	}
	snprintf(calls, sizeof(calls), "execve:%d", n);
	report("fork_exec_exit", n, calls);
	return 0;
}

static const struct workload {
	const char *name;
	int (*run)(int n);
	int samples; /* at 100% */
} workloads[] = {
	{"getppid", bench_getppid, 20000},
	{"send_1k", bench_send, 5000},
	{"pread_4k", bench_pread, 5000},
	{"pread_4k_shared", bench_pread_shared, 5000},
	{"pread_send_16k", bench_pread_send, 3000},
	{"sendfile_64k", bench_sendfile, 2000},
	{"openat_close", bench_open, 5000},
	{"connect_close", bench_connect, 1000},
	{"fork_exec_exit", bench_exec, 100},
	{"close_untraced", bench_close_untraced, 5000},
	{"getppid_int80", bench_getppid_int80, 20000},
	{"pread_4k_int80", bench_pread_int80, 5000},
	{"iouring_nop", bench_iouring_nop, 5000},
	{"iouring_read_4k", bench_iouring_read, 5000},
	{"sendmmsg_8x1k", bench_sendmmsg, 3000},
	{"recv_1k", bench_recv, 5000},
};

#define N_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static bool selected(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!list)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

static void make_it_fail(void)
{
	int fd = open("/proc/self/make-it-fail", O_WRONLY);

	if (fd < 0 || write(fd, "1", 1) != 1)
		die("/proc/self/make-it-fail (CONFIG_FAULT_INJECTION)");
	close(fd);
}

/*
 * One storm operation that may fail (the storm under injected faults):
 * 0 if it completed, -1 if a call failed. Never dies, never blocks on a
 * connection that a fault left half made: the listener is non-blocking,
 * and every connection queued on it is taken and closed.
 */
static int storm_op_tolerant(int k, int lfd, const struct sockaddr_in *sa)
{
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	char *argv[] = {self_path, "--exit", NULL};
	int fd, status, ok;
	pid_t pid;

	switch (k) {
	case 0:
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			execv(self_path, argv);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) != pid)
			if (errno != EINTR)
				return -1;
		return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
	case 1:
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		ok = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
		close(fd);
		while ((fd = accept(lfd, NULL, NULL)) >= 0)
			close(fd);
		return ok ? 0 : -1;
	default:
		fd = openat(AT_FDCWD, data_path, O_RDONLY);
		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	}
}

/*
 * The storm: three processes for @seconds each, one exec'ing, one
 * connecting, one opening, as fast as the guest runs them. Prints the
 * operations each completed. With @fail, each of the three (and what it
 * execs) is a target of the fault injector from its first call on; an
 * operation a fault breaks is counted as failed and the storm goes on.
 */
static int storm(double seconds, bool fail)
{
	const char *kinds[] = {"exec", "connect", "open"};
	long done[3][2] = {{0}};
	int pipes[3][2], k;

	close(data_file());
	for (k = 0; k < 3; k++) {
		if (pipe(pipes[k]))
			die("pipe");
		if (fork() == 0) {
			struct sockaddr_in sa;
			double end = now_ns() + seconds * 1e9;
			long ops[2] = {0, 0};
			int lfd = -1;

			if (fail) {
				make_it_fail();
				while (k == 1 && lfd < 0 && now_ns() < end) {
					lfd = listener_tolerant(&sa);
					ops[1] += lfd < 0;
				}
			} else if (k == 1) {
				lfd = listener(&sa);
			}
			while (now_ns() < end) {
				if (fail) {
					if (k == 1 && lfd < 0)
						break;
					ops[!!storm_op_tolerant(k, lfd, &sa)]++;
					continue;
				}
				if (k == 0)
					spawn_exit();
				else if (k == 1)
					connect_close(lfd, &sa);
				else
					open_close();
				ops[0]++;
			}
			if (write(pipes[k][1], ops, sizeof(ops)) != sizeof(ops))
				_exit(1);
			_exit(0);
		}
		close(pipes[k][1]);
	}
	for (k = 0; k < 3; k++) {
		if (read(pipes[k][0], done[k], sizeof(done[k])) !=
		    sizeof(done[k]))
			done[k][0] = -1;
		wait(NULL);
	}
	for (k = 0; k < 3; k++)
		printf("storm %s=%ld\n", kinds[k], done[k][0]);
	if (fail)
		for (k = 0; k < 3; k++)
			printf("storm-failed %s=%ld\n", kinds[k], done[k][1]);
	unlink(data_path);
	return 0;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int scale = 100, opt;
	size_t w;
	ssize_t len;

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	len = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (len <= 0)
		die("readlink /proc/self/exe");
	self_path[len] = '\0';
	signal(SIGPIPE, SIG_IGN);
	if (argc > 2 && !strcmp(argv[1], "storm")) {
		/* "storm S fail": tests/faults/run-faults' random phase. */
		return storm(atof(argv[2]),
			     argc > 3 && !strcmp(argv[3], "fail"));
	}

	while ((opt = getopt(argc, argv, "n:w:")) != -1) {
		switch (opt) {
		case 'n': scale = atoi(optarg); break;
		case 'w': only = optarg; break;
		default:
			fprintf(stderr,
				"usage: ftbench [-n SCALE%%] [-w "
				"WORKLOAD,...] | storm SECONDS [fail]\n");
			return 2;
		}
	}
	if (scale < 1 || scale > 200) {
		fprintf(stderr, "ftbench: -n takes 1..200 (percent)\n");
		return 2;
	}
	for (w = 0; w < N_WORKLOADS; w++) {
		int n = workloads[w].samples * scale / 100;

		if (!selected(only, workloads[w].name))
			continue;
		if (n < 10)
			n = 10;
		workloads[w].run(n);
	}
	unlink(data_path);
	return 0;
}
