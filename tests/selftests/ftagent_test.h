/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the counter selftests: collect what the module counted
 * for this process, sum it per object, and read the kernel's own figures
 * (/proc/self/io, TCP_INFO) to compare against.
 */
#ifndef FTAGENT_TEST_H
#define FTAGENT_TEST_H

/*
 * kselftest's per-test timeout is a guard against a hang, not a
 * measurement: its default of 30 s was overrun under TCG on a loaded
 * two-CPU host by tests that take a few seconds when it is idle (200
 * execs, a remount). Included after kselftest_harness.h, whose TEST()
 * macros read this where they are used.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 180
#endif

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "../../tools/lib/counters.h"

/* Counters of one process, from one or more consumed generations. */
struct ft_counters {
	pid_t tgid;
	struct ftagent_counter *c;
	size_t n, cap;
	uint64_t lost[__FTAGENT_LOSS_MAX];
	uint32_t entries_on_cpu[256]; /* keys per CPU, all processes */
};

struct ft_totals {
	uint64_t in_bytes, out_bytes;
	uint64_t in_calls, out_calls, in_errors, out_errors;
	int records;
};

static inline void ft_take_generation(const struct ftagent_generation *gen,
				      void *data)
{
	struct ft_counters *fc = data;
	size_t i;
	int k;

	for (i = 0; i < gen->n_cpus; i++) {
		for (k = 0; k < __FTAGENT_LOSS_MAX; k++)
			fc->lost[k] += gen->cpus[i].lost[k];
		if (gen->cpus[i].cpu < 256)
			fc->entries_on_cpu[gen->cpus[i].cpu] +=
				gen->cpus[i].entries;
	}
	for (i = 0; i < gen->n_counters; i++) {
		if ((pid_t)gen->counters[i].tgid != fc->tgid)
			continue;
		if (fc->n == fc->cap) {
			fc->cap = fc->cap ? fc->cap * 2 : 64;
			fc->c = realloc(fc->c, fc->cap * sizeof(*fc->c));
			if (!fc->c)
				abort();
		}
		fc->c[fc->n++] = gen->counters[i];
	}
}

/*
 * Everything counted for this process since the previous call (the first
 * call returns what came before it: call once to start a window). The two
 * netlink sockets stay open for the life of the process, so collecting
 * adds no new keys of its own after the first call.
 */
static struct ftnl ft_ctl_nl, ft_stats_nl;
static int ft_nl_opened;

/* After the module went: the families are new, so are the sockets. */
static inline void ft_collect_forget(void)
{
	if (ft_nl_opened) {
		ftnl_close(&ft_ctl_nl);
		ftnl_close(&ft_stats_nl);
	}
	ft_nl_opened = 0;
}

static inline int ft_collect_tgid(struct ft_counters *fc, pid_t tgid)
{
	struct ftnl *ctl = &ft_ctl_nl, *stats = &ft_stats_nl;
	struct ftnl_error err;
	int rc;

	memset(fc, 0, sizeof(*fc));
	fc->tgid = tgid;
	if (!ft_nl_opened) {
		if (ftnl_open(ctl, FTAGENT_GENL_CTL_NAME, &err) < 0)
			return -err.err;
		if (ftnl_open(stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
			ftnl_close(ctl);
			return -err.err;
		}
		ft_nl_opened = 1;
	}
	rc = ftagent_collect(ctl, stats, ft_take_generation, fc, &err);
	if (rc < 0)
		fprintf(stderr, "# collect: %s (%d)\n", err.msg, err.err);
	return rc < 0 ? -err.err : 0;
}

static inline int ft_collect(struct ft_counters *fc)
{
	return ft_collect_tgid(fc, getpid());
}

static inline void ft_counters_free(struct ft_counters *fc)
{
	free(fc->c);
	fc->c = NULL;
	fc->n = fc->cap = 0;
}

/* Sum this process's counters for one object (peer_ino 0: any). */
static inline struct ft_totals ft_sum(const struct ft_counters *fc, int kind,
				      uint32_t dev, uint64_t ino,
				      uint64_t peer_ino)
{
	struct ft_totals t = {0};
	size_t i;

	for (i = 0; i < fc->n; i++) {
		const struct ftagent_counter *c = &fc->c[i];

		if (c->kind != kind || c->ino != ino ||
		    (kind != FTAGENT_OBJ_SOCKET && c->dev != dev) ||
		    (peer_ino && c->peer_ino != peer_ino))
			continue;
		t.records++;
		t.in_bytes += c->in.bytes;
		t.in_calls += c->in.calls;
		t.in_errors += c->in.errors;
		t.out_bytes += c->out.bytes;
		t.out_calls += c->out.calls;
		t.out_errors += c->out.errors;
	}
	return t;
}

/* The object behind a descriptor, as stat(2) names it. */
static inline void ft_fd_id(int fd, uint32_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st)) {
		*dev = 0;
		*ino = 0;
		return;
	}
	*dev = (uint32_t)st.st_dev;
	*ino = st.st_ino;
}

static inline struct ft_totals ft_sum_fd(const struct ft_counters *fc, int kind,
					 int fd)
{
	uint32_t dev;
	uint64_t ino;

	ft_fd_id(fd, &dev, &ino);
	return ft_sum(fc, kind, dev, ino, 0);
}

/*
 * @fd's totals, summed over collections (each takes what was counted
 * since the one before) until @calls calls are in, in and out together
 * (2 s at most), then once more 200 ms later so that a late count too
 * many fails as well; with @calls 0, one collection. For the work of an
 * SQPOLL ring's thread: it posts a batch's CQEs before it frees the
 * batch's requests, where they are charged, so the counts may come a
 * moment after the CQEs. 0, or -errno from a collection.
 */
static inline int ft_sum_fd_settled(int kind, int fd, uint64_t calls,
				    struct ft_totals *sum)
{
	struct ft_counters fc;
	struct ft_totals t;
	int settled = !calls, i, rc;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < 21; i++) {
		rc = ft_collect(&fc);
		if (rc)
			return rc;
		t = ft_sum_fd(&fc, kind, fd);
		ft_counters_free(&fc);
		sum->in_bytes += t.in_bytes;
		sum->out_bytes += t.out_bytes;
		sum->in_calls += t.in_calls;
		sum->out_calls += t.out_calls;
		sum->in_errors += t.in_errors;
		sum->out_errors += t.out_errors;
		sum->records += t.records;
		if (settled)
			break;
		settled = sum->in_calls + sum->out_calls >= calls || i == 19;
		usleep(settled ? 200000 : 100000);
	}
	return 0;
}

/* /proc/self/io's text in @buf: the bytes read, or -1. */
static inline ssize_t ft_proc_io_text(char *buf, size_t len)
{
	ssize_t n;
	int fd = open("/proc/self/io", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The number after @key (as "rchar:") in that text: 0, or -1. */
static inline int ft_proc_io_field(const char *text, const char *key,
				   uint64_t *val)
{
	const char *p = strstr(text, key);
	unsigned long v;

	if (!p || sscanf(p + strlen(key), " %lu", &v) != 1)
		return -1;
	*val = v;
	return 0;
}

/*
 * The kernel's own count of the bytes this process (all its threads, io
 * threads included) had the block layer read and write: read_bytes and
 * write_bytes of /proc/self/io. 0, or -1.
 */
static inline int ft_proc_io_block(uint64_t *read_bytes, uint64_t *write_bytes)
{
	char buf[512];

	if (ft_proc_io_text(buf, sizeof(buf)) < 0 ||
	    ft_proc_io_field(buf, "\nread_bytes:", read_bytes) ||
	    ft_proc_io_field(buf, "\nwrite_bytes:", write_bytes))
		return -1;
	return 0;
}

/*
 * The kernel's own per-process I/O accounting: rchar and wchar. Returns
 * the bytes this read of /proc/self/io itself returned (which the kernel
 * adds to rchar afterwards), or -1.
 */
static inline ssize_t ft_proc_io(uint64_t *rchar, uint64_t *wchar)
{
	char buf[512];
	ssize_t n = ft_proc_io_text(buf, sizeof(buf));

	if (n < 0 || ft_proc_io_field(buf, "rchar:", rchar) ||
	    ft_proc_io_field(buf, "wchar:", wchar))
		return -1;
	return n;
}

/*
 * /proc/self/task/@tid/@what into @buf, NUL-terminated; -1 if unreadable.
 * pread, not read: read() is a traced call whose counts some tests take.
 */
static inline int ft_proc_task_line(pid_t tid, const char *what, char *buf,
				    size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, size - 1, 0);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The scheduler state letter of thread @tid of this process, or 0. */
static inline char ft_thread_state(pid_t tid)
{
	char buf[512], *paren;

	if (ft_proc_task_line(tid, "stat", buf, sizeof(buf)))
		return 0;
	/* The name may hold ") S ": the state follows the last ')'. */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/*
 * Whether thread @tid of this process is inside system call @nr now
 * (/proc/self/task/TID/syscall) and, with @asleep, sleeping there (state
 * S in its stat): a call that is still on its way in is not blocked yet.
 * The number is the one the call entered with: an ia32 entry's own.
 */
static inline int ft_thread_in_syscall(pid_t tid, long nr, int asleep)
{
	char buf[512];
	long got;

	if (ft_proc_task_line(tid, "syscall", buf, sizeof(buf)) ||
	    sscanf(buf, "%ld", &got) != 1 || got != nr)
		return 0;
	return !asleep || ft_thread_state(tid) == 'S';
}

static inline int ft_unload_module(void)
{
	/*
	 * A mount of the event filesystem holds the module: take every one
	 * away first (none mounted, or no module: umount fails, fine).
	 */
	while (!umount2(FTAGENT_FS_MOUNTPOINT, 0))
		;
	ft_collect_forget();
	return syscall(SYS_delete_module, "ftagent", O_NONBLOCK) ? -errno : 0;
}

/* Load the module file @ko (NULL: -ENOENT) with @params: 0 or -errno. */
static inline int ft_load_ko(const char *ko, const char *params)
{
	int fd, rc;

	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return rc ? -errno : 0;
}

/* Reload the module with the runner's parameters plus @extra. */
static inline int ft_reload_module(const char *extra)
{
	const char *ko = getenv("FTAGENT_KO");
	const char *base = getenv("FTAGENT_PARAMS");
	char params[256];

	if (!ko)
		return -ENOENT;
	snprintf(params, sizeof(params), "%s %s", base ? base : "",
		 extra ? extra : "");
	ft_unload_module(); /* not loaded: fine */
	return ft_load_ko(ko, params);
}

/*
 * Whether the loaded module's ftrace set sees returns through the syscall
 * exit work (the default) rather than TIF_NOTIFY_RESUME: the kernel lists
 * the hook by which it counts other syscall tracepoint users on
 * tracepoint_probe_unregister in enabled_functions, with ftagent's
 * callback on the same line. 1, 0, or -1 if tracefs cannot be read.
 */
/* The kernel's enabled_functions, tracefs mounted first if need be. */
static inline FILE *ft_enabled_functions(void)
{
	if (access("/sys/kernel/tracing/enabled_functions", R_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	return fopen("/sys/kernel/tracing/enabled_functions", "re");
}

/* Write kernel.ftrace_enabled; 0, or -errno. */
static inline int ft_set_ftrace_enabled(int on)
{
	int fd = open("/proc/sys/kernel/ftrace_enabled", O_WRONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, on ? "1\n" : "0\n", 2) == 2 ? 0 : -errno;
	close(fd);
	return rc;
}

static inline int ft_exit_work_on(void)
{
	static const char fn[] = "tracepoint_probe_unregister ";
	char line[512];
	int found = 0;
	FILE *f = ft_enabled_functions();

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, fn, strlen(fn)) && strstr(line, "[ftagent]"))
			found = 1;
	fclose(f);
	return found;
}

/*
 * A UDP socket of @family bound on loopback in @fds[0], and one
 * connected to it in @fds[1]; 0, or -1 with errno.
 */
/* The module's GET_RESOURCES reply, into @res: 0, or -1. */
static inline int ft_get_resources(struct ftagent_resources *res)
{
	struct ftnl_error err;
	struct ftnl nl;
	int rc;

	if (ftnl_open(&nl, FTAGENT_GENL_STATS_NAME, &err) < 0)
		return -1;
	rc = ftagent_get_resources(&nl, res, &err);
	ftnl_close(&nl);
	return rc;
}

static inline int ft_udp_pair(int family, int fds[2])
{
	struct sockaddr_storage a = {.ss_family = family};
	struct sockaddr_in *a4 = (struct sockaddr_in *)&a;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a;
	socklen_t len = family == AF_INET ? sizeof(*a4) : sizeof(*a6);

	if (family == AF_INET)
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		a6->sin6_addr = in6addr_loopback;
	fds[0] = socket(family, SOCK_DGRAM, 0);
	fds[1] = socket(family, SOCK_DGRAM, 0);
	if (fds[0] < 0 || fds[1] < 0 ||
	    bind(fds[0], (struct sockaddr *)&a, len) ||
	    getsockname(fds[0], (struct sockaddr *)&a, &len) ||
	    connect(fds[1], (struct sockaddr *)&a, len))
		return -1;
	return 0;
}

/* Whether the @n bytes of @buf are all @c: the data arrived. */
static inline int ft_all_bytes(const char *buf, size_t n, char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != c)
			return 0;
	return 1;
}

static inline int ft_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * 6.1's kselftest harness runs a test's body even when its fixture's
 * setup called SKIP(): a body whose setup can skip starts with this.
 */
#define FT_RETURN_IF_SETUP_SKIPPED()                                           \
	do {                                                                   \
		if (_metadata->skip)                                           \
			return;                                                \
	} while (0)

#endif /* FTAGENT_TEST_H */
