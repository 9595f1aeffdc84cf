/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the event selftests (events_*.c): read the module's
 * event files into a log of kept records, talk to the control family
 * (filters, configuration, resources), and read what the kernel itself
 * says about a process (/proc/PID/...) to compare the records against.
 *
 * Every helper that changes the module (filters, mode, ring size) is
 * undone by the tests in a FIXTURE_TEARDOWN, so a failed test leaves the
 * module as the runner loaded it for the next one.
 */
#ifndef FTAGENT_EVENTS_TEST_H
#define FTAGENT_EVENTS_TEST_H

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "ftagent_test.h"
#include "../../tools/lib/alerts.h"
#include "../../tools/lib/events_reader.h"
#include "../../tools/lib/filters.h"
#include "../../tools/lib/records.h"

/* A record kept from the event files, with its own copy of the bytes. */
struct ev_rec {
	struct ftagent_rec r;
	void *bytes;
};

struct ev_log {
	struct ftagent_events_reader rd;
	struct ev_rec *rec;
	size_t n, cap;
	const char *why; /* why a stream went BAD */
};

#define EV_BODY(rec, type) ((const type *)(rec)->body)

static inline uint64_t ev_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void ev_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int ev_keep(const struct ftagent_rec *rec, void *arg)
{
	struct ev_log *l = arg;
	struct ev_rec *k;
	size_t used;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->rec = realloc(l->rec, l->cap * sizeof(*l->rec));
		if (!l->rec)
			abort();
	}
	k = &l->rec[l->n];
	k->bytes = malloc(rec->hdr->size);
	if (!k->bytes)
		abort();
	memcpy(k->bytes, rec->hdr, rec->hdr->size);
	/* Decoded again from the copy: the pointers must point into it. */
	if (ftagent_rec_next(k->bytes, rec->hdr->size, &k->r, &used, NULL) !=
	    FTAGENT_REC_OK)
		abort();
	l->n++;
	return 0;
}

/* Forget the kept records (the streams go on). */
static inline void ev_forget(struct ev_log *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->rec[i].bytes);
	l->n = 0;
}

/*
 * Read everything the files hold now into the log. The number of records
 * read, or -1 (a read error, or a BAD stream: l->why says why).
 */
static inline long ev_drain(struct ev_log *l)
{
	long n = ftagent_events_drain(&l->rd, ev_keep, l, &l->why);

	if (n < 0)
		fprintf(stderr, "# event drain: %s (%s)\n", strerror(errno),
			l->why ? l->why : "read error");
	return n;
}

/* (Re)open the files and drain what came before: a clean start. 0/-errno */
static inline int ev_reopen(struct ev_log *l)
{
	int rc;

	ftagent_events_close(&l->rd);
	rc = ftagent_events_mount(NULL);
	if (rc == 0)
		rc = ftagent_events_open(&l->rd, NULL);
	if (rc == 0 && ev_drain(l) < 0)
		rc = -EBADMSG;
	ev_forget(l);
	return rc;
}

static inline int ev_open(struct ev_log *l)
{
	memset(l, 0, sizeof(*l));
	return ev_reopen(l);
}

static inline void ev_close(struct ev_log *l)
{
	ev_forget(l);
	free(l->rec);
	ftagent_events_close(&l->rd);
	memset(l, 0, sizeof(*l));
}

/* The next kept record from *@i of @type (0: any) by @tgid (0: any). */
static inline const struct ftagent_rec *ev_next(const struct ev_log *l,
						size_t *i, int type, pid_t tgid)
{
	for (; *i < l->n; (*i)++) {
		const struct ftagent_rec *r = &l->rec[*i].r;

		if ((!type || r->hdr->type == type) &&
		    (!tgid || (pid_t)r->hdr->tgid == tgid)) {
			(*i)++;
			return r;
		}
	}
	return NULL;
}

static inline size_t ev_count(const struct ev_log *l, int type, pid_t tgid)
{
	size_t i = 0, n = 0;

	while (ev_next(l, &i, type, tgid))
		n++;
	return n;
}

/* The only kept record of @type by @tgid, or NULL (none, or several). */
static inline const struct ftagent_rec *ev_one(const struct ev_log *l, int type,
					       pid_t tgid)
{
	size_t i = 0;
	const struct ftagent_rec *r = ev_next(l, &i, type, tgid);

	return r && !ev_next(l, &i, type, tgid) ? r : NULL;
}

/*
 * Drain until a record of @type by @tgid is kept, for up to @ms. Records
 * are written before the call that made them returns; the wait only
 * covers a reader that raced the writer on another CPU. Count, or -1.
 */
static inline long ev_wait(struct ev_log *l, int type, pid_t tgid, int ms)
{
	uint64_t end = ev_now_ns() + (uint64_t)ms * 1000000;
	size_t n;

	for (;;) {
		if (ev_drain(l) < 0)
			return -1;
		n = ev_count(l, type, tgid);
		if (n || ev_now_ns() > end)
			return (long)n;
		ev_sleep_ms(10);
	}
}

/* Socket records (any process) about the socket of inode @ino. */
static inline size_t ev_count_sock(const struct ev_log *l, uint64_t ino)
{
	const struct ftagent_rec *r;
	size_t i = 0, n = 0;

	while ((r = ev_next(l, &i, 0, 0)))
		if (r->hdr->type >= FTAGENT_REC_CONNECT &&
		    r->hdr->type <= FTAGENT_REC_LISTEN &&
		    ((const struct ftagent_rec_sock *)r->body)->sock_ino == ino)
			n++;
	return n;
}

/* A comm field: NUL-terminated, zero-padded, and equal to @name. */
static inline int ev_comm_is(const char comm[FTAGENT_COMM_LEN],
			     const char *name)
{
	size_t len = strnlen(comm, FTAGENT_COMM_LEN), i;

	if (len == FTAGENT_COMM_LEN)
		return 0;
	for (i = len; i < FTAGENT_COMM_LEN; i++)
		if (comm[i])
			return 0;
	return !strcmp(comm, name);
}

/* The control and stats families, opened once per process. */
static inline struct ftnl *ev_nl(int stats)
{
	static struct ftnl nl[2];
	static int opened[2];
	struct ftnl_error err;

	if (!opened[stats]) {
		if (ftnl_open(&nl[stats],
			      stats ? FTAGENT_GENL_STATS_NAME
				    : FTAGENT_GENL_CTL_NAME,
			      &err) < 0) {
			fprintf(stderr, "# netlink: %s\n", err.msg);
			abort();
		}
		opened[stats] = 1;
	}
	return &nl[stats];
}

static inline int ev_resources(struct ftagent_resources *res)
{
	struct ftnl_error err;
	int rc = ftagent_get_resources(ev_nl(1), res, &err);

	if (rc < 0)
		fprintf(stderr, "# GET_RESOURCES: %s\n", err.msg);
	return rc;
}

static inline int ev_set_filters(const struct ftagent_filters *f,
				 struct ftnl_error *err)
{
	return ftagent_set_filters(ev_nl(0), f, err);
}

static inline int ev_get_filters(struct ftagent_filters *f)
{
	struct ftnl_error err;
	int rc = ftagent_get_filters(ev_nl(0), f, &err);

	if (rc < 0)
		fprintf(stderr, "# GET_FILTERS: %s\n", err.msg);
	return rc;
}

/* Back to the module's defaults at load. 0, or -1. */
static inline int ev_reset_filters(void)
{
	struct ftagent_filters f;
	struct ftnl_error err;
	int rc;

	if (ftagent_filters_defaults(&f) < 0)
		return -1;
	rc = ev_set_filters(&f, &err);
	if (rc < 0)
		fprintf(stderr, "# SET_FILTERS defaults: %s\n", err.msg);
	ftagent_filters_free(&f);
	return rc;
}

/* SET_FILTERS with one toggle, or one list of one name. */
static inline int ev_set_toggle(enum ftagent_filter_toggle t, uint8_t v)
{
	struct ftagent_filters f;
	struct ftnl_error err;
	int rc;

	ftagent_filters_init(&f);
	ftagent_filters_set_toggle(&f, t, v);
	rc = ev_set_filters(&f, &err);
	if (rc < 0)
		fprintf(stderr, "# SET_FILTERS %s: %s\n",
			ftagent_filter_toggle_name(t), err.msg);
	return rc;
}

static inline int ev_exclude(int paths, const char *name)
{
	struct ftagent_filters f;
	struct ftagent_filter_list *l;
	struct ftnl_error err;
	int rc;

	ftagent_filters_init(&f);
	l = paths ? &f.exclude_paths : &f.exclude_processes;
	ftagent_filter_list_clear(l);
	if (name && ftagent_filter_list_add(l, name, strlen(name)) < 0)
		return -1;
	rc = ev_set_filters(&f, &err);
	if (rc < 0)
		fprintf(stderr, "# SET_FILTERS exclude: %s\n", err.msg);
	ftagent_filters_free(&f);
	return rc;
}

static inline uint32_t ev_mode(void)
{
	struct ftagent_resources res;
	uint32_t mode;

	if (ev_resources(&res) < 0)
		return 0;
	mode = res.mode;
	ftagent_resources_free(&res);
	return mode;
}

/*
 * SET_CONFIG, then reopen the files: a mode change can change the ring's
 * default size, and a new ring comes with new files. 0, or -1 with @err.
 */
static inline int ev_configure(struct ev_log *l,
			       const struct ftagent_config *cfg,
			       struct ftnl_error *err)
{
	if (ftagent_set_config(ev_nl(0), cfg, err) < 0)
		return -1;
	if (l && ev_reopen(l) < 0) {
		memset(err, 0, sizeof(*err));
		err->err = EIO;
		strcpy(err->msg, "cannot reopen the event files");
		return -1;
	}
	return 0;
}

static inline int ev_set_mode(struct ev_log *l, uint32_t mode)
{
	struct ftagent_config cfg = {.set = FTAGENT_CONFIG_HAVE_MODE,
				     .mode = mode};
	struct ftnl_error err;
	int rc = ev_configure(l, &cfg, &err);

	if (rc < 0)
		fprintf(stderr, "# SET_CONFIG mode: %s\n", err.msg);
	return rc;
}

/*
 * What the tests of OPEN records share (events_file.c, events_iouring.c):
 * a fixture holding the log, a scratch directory and the mode the runner
 * loaded, with standard mode on while it runs (OPEN records need it).
 */
struct ev_open_fixture {
	struct ev_log log;
	char dir[64];
	uint32_t mode;
};

/* A scratch directory from @tmpl, filters reset, the log open. 0/-1. */
static inline int ev_open_fixture_setup(struct ev_open_fixture *f,
					const char *tmpl)
{
	snprintf(f->dir, sizeof(f->dir), "%s", tmpl);
	if (!mkdtemp(f->dir) || ev_reset_filters() || ev_open(&f->log))
		return -1;
	f->mode = ev_mode();
	if (!f->mode)
		return -1;
	if (f->mode != FTAGENT_MODE_STANDARD &&
	    ev_set_mode(&f->log, FTAGENT_MODE_STANDARD))
		return -1;
	return 0;
}

/* Undo it all, every step tried: how many failed. */
static inline int ev_open_fixture_teardown(struct ev_open_fixture *f)
{
	char cmd[128];
	int failed = 0;

	failed += ev_reset_filters() != 0;
	if (ev_mode() != f->mode)
		failed += ev_set_mode(NULL, f->mode) != 0;
	ev_close(&f->log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	failed += system(cmd) != 0;
	return failed;
}

/* Flags both the call and the open file agree on (see /proc fdinfo). */
#define EV_OPEN_FLAG_MASK (O_ACCMODE | O_APPEND | O_NONBLOCK)

/*
 * OPEN record @r says of descriptor @fd what the kernel does: fstat's
 * inode, device and mode, the path /proc/self/fd shows, and @flags
 * (those under EV_OPEN_FLAG_MASK).
 */
static inline void ev_expect_open_rec(struct __test_metadata *_metadata,
				      const struct ftagent_rec *r, int fd,
				      int flags)
{
	const struct ftagent_rec_open *o = r->body;
	char path[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	ASSERT_EQ(0, fstat(fd, &st));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target));
	ASSERT_LT(0, n);
	EXPECT_EQ(st.st_ino, o->ino);
	EXPECT_EQ((uint32_t)st.st_dev, o->dev);
	EXPECT_EQ(st.st_mode, o->mode);
	EXPECT_EQ(flags & EV_OPEN_FLAG_MASK, o->flags & EV_OPEN_FLAG_MASK);
	ASSERT_EQ(1, r->n_str);
	ASSERT_EQ(n, r->str_len[0]);
	EXPECT_EQ(0, memcmp(target, r->str[0], n));
}

static inline int ev_set_ring(struct ev_log *l, uint32_t bytes,
			      struct ftnl_error *err)
{
	struct ftagent_config cfg = {
		.set = FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE,
		.ring_buffer_size = bytes,
	};

	return ev_configure(l, &cfg, err);
}

/* Possible CPUs, as the kernel lists them ("0-3,6"). */
static inline unsigned int ev_possible_cpus(void)
{
	char buf[256], *p;
	unsigned int n = 0, a, b;
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; *p && *p != '\n';) {
		a = strtoul(p, &p, 10);
		b = a;
		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		n += b - a + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

/* A whole file (procfs files have no size): bytes read, or -1. */
static inline ssize_t ev_read_file(const char *path, void *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got < cap && (n = read(fd, (char *)buf + got, cap - got)) > 0)
		got += n;
	close(fd);
	return got;
}

/* /proc/PID/io, the kernel's own I/O accounting of a whole process. */
struct ev_io {
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
};

static inline int ev_proc_io(pid_t pid, struct ev_io *io)
{
	char path[64], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	n = ev_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf,
		   "rchar: %lu\nwchar: %lu\nsyscr: %lu\nsyscw: %lu\n"
		   "read_bytes: %lu\nwrite_bytes: %lu",
		   (unsigned long *)&io->rchar, (unsigned long *)&io->wchar,
		   (unsigned long *)&io->syscr, (unsigned long *)&io->syscw,
		   (unsigned long *)&io->read_bytes,
		   (unsigned long *)&io->write_bytes) != 6)
		return -1;
	return 0;
}

/* Counters of several processes, from one collection. */
struct ev_counters_ctx {
	struct ft_counters *fc;
	size_t n;
};

static inline void ev_take_generation(const struct ftagent_generation *gen,
				      void *data)
{
	struct ev_counters_ctx *ctx = data;
	size_t i, j;

	for (i = 0; i < gen->n_counters; i++) {
		for (j = 0; j < ctx->n; j++) {
			struct ft_counters *fc = &ctx->fc[j];

			if ((pid_t)gen->counters[i].tgid != fc->tgid)
				continue;
			if (fc->n == fc->cap) {
				fc->cap = fc->cap ? fc->cap * 2 : 64;
				fc->c = realloc(fc->c,
						fc->cap * sizeof(*fc->c));
				if (!fc->c)
					abort();
			}
			fc->c[fc->n++] = gen->counters[i];
		}
	}
}

/*
 * Everything counted for each of @tgids since the previous collection
 * (any collection: each consumes the generations), into @fc[i]. 0/-1.
 */
static inline int ev_collect_tgids(struct ft_counters *fc, const pid_t *tgids,
				   size_t n)
{
	struct ev_counters_ctx ctx = {fc, n};
	struct ftnl_error err;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&fc[i], 0, sizeof(fc[i]));
		fc[i].tgid = tgids[i];
	}
	if (ftagent_collect(ev_nl(0), ev_nl(1), ev_take_generation, &ctx,
			    &err) < 0) {
		fprintf(stderr, "# collect: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* A TCP connection over loopback: listener, client, accepted. 0/-1. */
static inline socklen_t ev_loopback(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
		return sizeof(struct sockaddr_in);
	}
	((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	return sizeof(struct sockaddr_in6);
}

static inline int ev_tcp_pair(int family, int fds[3])
{
	struct sockaddr_storage ss;
	socklen_t len = ev_loopback(family, &ss);

	fds[0] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	fds[1] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fds[0] < 0 || fds[1] < 0 ||
	    bind(fds[0], (struct sockaddr *)&ss, len) ||
	    getsockname(fds[0], (struct sockaddr *)&ss, &len) ||
	    listen(fds[0], 4) || connect(fds[1], (struct sockaddr *)&ss, len))
		return -1;
	fds[2] = accept4(fds[0], NULL, NULL, SOCK_CLOEXEC);
	return fds[2] < 0 ? -1 : 0;
}

/* The test binary as the kernel names it, for re-executing it. */
static inline const char *ev_self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n <= 0)
			abort();
		path[n] = '\0';
	}
	return path;
}

/*
 * Test programs that re-execute themselves as a helper: with
 * EV_HELPER_ENV set, main() runs @helper instead of the harness, so the
 * helper's argv can be anything at all (the environment says what to do).
 */
#define EV_HELPER_ENV "FTAGENT_EV_HELPER"
#define EV_HARNESS_MAIN_WITH_HELPER(helper)                                    \
	static void __attribute__((constructor))                               \
	__constructor_order_last(void)                                         \
	{                                                                      \
		if (!__constructor_order)                                      \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;     \
	}                                                                      \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		const char *what = getenv(EV_HELPER_ENV);                      \
                                                                               \
		if (what)                                                      \
			return helper(what, argc, argv);                       \
		return test_harness_run(argc, argv);                           \
	}

/*
 * Run @path with exactly @argv and @envp in a new process, after @pre (if
 * any) ran in the child. The pid, or -1.
 */
static inline pid_t ev_spawn(const char *path, char *const argv[],
			     char *const envp[], int (*pre)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pre && pre())
			_exit(126);
		execve(path, argv, envp);
		_exit(127);
	}
	return pid;
}

/*
 * The helper most tests need, run as EV_HELPER_ENV=stop: write
 * FTAGENT_EV_WRITES="N:K" (N bytes in K write calls) to /dev/null, rename
 * itself to FTAGENT_EV_COMM, stop so the test can read /proc/PID while
 * nothing changes, then exit with FTAGENT_EV_EXIT. Nothing else it does
 * reads or writes: its /proc/PID/io is what the test expects.
 */
static inline int ev_basic_helper(void)
{
	static char buf[1 << 16];
	const char *writes = getenv("FTAGENT_EV_WRITES");
	const char *comm = getenv("FTAGENT_EV_COMM");
	const char *code = getenv("FTAGENT_EV_EXIT");
	unsigned long n, k, i;
	int fd;

	if (writes && sscanf(writes, "%lu:%lu", &n, &k) == 2 && k) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || n / k + n % k > sizeof(buf))
			_exit(125);
		for (i = 0; i < k; i++)
			if (write(fd, buf, n / k + (i == k - 1 ? n % k : 0)) <
			    0)
				_exit(125);
	}
	if (comm)
		prctl(PR_SET_NAME, comm);
	raise(SIGSTOP);
	_exit(code ? atoi(code) : 0);
}

/* Wait for @pid to stop (it raised SIGSTOP). 0, or -1. */
static inline int ev_wait_stopped(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		return -1;
	return 0;
}

#endif /* FTAGENT_EVENTS_TEST_H */
