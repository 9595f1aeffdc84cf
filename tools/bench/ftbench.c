// SPDX-License-Identifier: GPL-2.0
/*
 * ftbench: per-call cost of a few system calls, for comparing the same
 * guest boot with and without ftagent. Run inside a guest started with
 * `run-guest --icount`, where guest time follows executed instructions,
 * so nanoseconds here read as instructions.
 *
 * Each workload runs ROUNDS rounds of BATCH calls; a round's per-call
 * figure is its time divided by BATCH; the median round is printed.
 * Setup (buffers, sockets, draining the receiver) stays outside the timed
 * regions. Output: one line per workload, "NAME median_ns min_ns max_ns".
 *
 * usage: ftbench [ROUNDS]
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH	   2000
#define MAX_ROUNDS 101

static double now_ns(void)
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

static void report(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%s %.1f %.1f %.1f\n", name, v[n / 2], v[0], v[n - 1]);
}

/* Untraced calls: these must cost the same with the module loaded. */
static int bench_untraced(long nr, double *out, int rounds)
{
	int r, i;

	for (r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (i = 0; i < BATCH; i++)
			syscall(nr);
		out[r] = (now_ns() - t0) / BATCH;
	}
	return 0;
}

static int bench_getpid(double *out, int rounds)
{
	return bench_untraced(SYS_getpid, out, rounds);
}

static int bench_getppid(double *out, int rounds)
{
	return bench_untraced(SYS_getppid, out, rounds);
}

static int bench_pread(double *out, int rounds)
{
	char path[] = "/tmp/ftbench.XXXXXX", buf[4096];
	int fd = mkstemp(path), r, i;

	if (fd < 0)
		return -1;
	unlink(path);
	memset(buf, 'b', sizeof(buf));
	for (i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	for (r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (i = 0; i < BATCH; i++)
			if (pread(fd, buf, sizeof(buf), (i & 15) * 4096) !=
			    4096)
				return -1;
		out[r] = (now_ns() - t0) / BATCH;
	}
	close(fd);
	return 0;
}

/* A loopback TCP pair with buffers big enough for a batch of sends. */
static int tcp_pair(int *tx, int *rx)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	int big = 4 << 20;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1) || getsockname(lfd, (struct sockaddr *)&sa, &len))
		return -1;
	*tx = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(*tx, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(*tx, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	*rx = accept(lfd, NULL, NULL);
	setsockopt(*rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	close(lfd);
	return *rx < 0 ? -1 : 0;
}

static int drain(int fd, long want)
{
	static char buf[65536];

	while (want > 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			return -1;
		want -= n;
	}
	return 0;
}

static int bench_send(double *out, int rounds)
{
	char buf[1024];
	int tx, rx, r, i, chunk = 200;

	if (tcp_pair(&tx, &rx))
		return -1;
	memset(buf, 's', sizeof(buf));
	for (r = 0; r < rounds; r++) {
		double t = 0;

		for (i = 0; i < BATCH; i += chunk) {
			double t0 = now_ns();
			int k;

			for (k = 0; k < chunk; k++)
				if (send(tx, buf, sizeof(buf), 0) !=
				    sizeof(buf))
					return -1;
			t += now_ns() - t0;
			if (drain(rx, (long)chunk * sizeof(buf)))
				return -1;
		}
		out[r] = t / BATCH;
	}
	close(tx);
	close(rx);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(double *out, int rounds);
	} work[] = {
		{"getpid", bench_getpid},
		{"getppid", bench_getppid},
		{"pread_4k", bench_pread},
		{"send_1k_tcp", bench_send},
	};
	double v[MAX_ROUNDS];
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	size_t w;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "ftbench: rounds must be 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	for (w = 0; w < sizeof(work) / sizeof(work[0]); w++) {
		if (work[w].run(v, rounds)) {
			perror(work[w].name);
			return 1;
		}
		report(work[w].name, v, rounds);
	}
	return 0;
}
