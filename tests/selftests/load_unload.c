// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload ftagent.ko many times: each load registers both families
 * and the event filesystem, each unload removes them, and the kernel log
 * shows one load and one unload message per cycle and no splat. Every
 * cycle mounts the event filesystem and reads from it; while it is mounted
 * the module refuses to go (the mount holds it).
 *
 * Needs FTAGENT_KO (path to the module); loads it with the runner's
 * parameters (FTAGENT_PARAMS), so each hook set is cycled in its own run.
 * Leaves the module loaded, as the runner found it.
 *
 * First, with the runner's load: every function ftrace has hooked is the
 * only text symbol of its name; and a load leaves none of the kprobes it
 * finds functions with.
 *
 * Last: a call that was already inside the kernel when the module loaded
 * is not counted by it (it saw no entry), while calls begun after the
 * load are, exactly.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"

/*
 * `make check` runs 10 cycles per hook set and kernel; `make check-long`
 * (FTAGENT_LONG=1) 100; FTAGENT_LOAD_CYCLES=N overrides both (the debug
 * tier's smoke runs 2: a load there takes half a minute).
 */
static int cycles(void)
{
	const char *n = getenv("FTAGENT_LOAD_CYCLES");
	const char *longrun = getenv("FTAGENT_LONG");

	if (n && atoi(n) > 0)
		return atoi(n);
	return longrun && !strcmp(longrun, "1") ? 100 : 10;
}

/*
 * Mount the event filesystem, read a little, try to unload: the module is
 * in use (EWOULDBLOCK: a non-blocking delete of a module still referenced).
 */
static int mounted_module_stays(void)
{
	char path[64], buf[4096];
	int fd, busy;

	if (mount(FTAGENT_FS_TYPE, FTAGENT_FS_MOUNTPOINT, FTAGENT_FS_TYPE, 0,
		  NULL)) {
		fprintf(stderr, "# mount: %s\n", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s0", FTAGENT_FS_MOUNTPOINT,
		 FTAGENT_EVENTS_FILE);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
		fprintf(stderr, "# %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	busy = syscall(SYS_delete_module, "ftagent", O_NONBLOCK) &&
	       errno == EWOULDBLOCK;
	if (!busy)
		fprintf(stderr, "# delete_module while mounted: %s\n",
			strerror(errno));
	return busy ? 0 : -1;
}

static int module_listed(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "ftagent ", 8))
			found = 1;
	fclose(f);
	return found;
}

/* Listed by a dump: a lookup by name would try to autoload the module. */
static int family_present(const char *name)
{
	struct ftnl_error err;
	int rc = ftnl_family_listed(name, &err);

	return rc < 0 ? -err.err : rc;
}

/* Kernel log records written since @fd was positioned at the end. */
struct kmsg_tally {
	int loaded, unloaded, splats;
};

static void read_kmsg(int fd, struct kmsg_tally *t)
{
	static const char *const bad[] = {
		"BUG:",	      "WARNING:",	    "Oops",
		"Call Trace", "general protection", "kmemleak",
		"KASAN",
	};
	char rec[8192];
	ssize_t n;
	size_t i;

	memset(t, 0, sizeof(*t));
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (n <= 0)
			continue; /* EPIPE: records overwritten; go on */
		rec[n] = '\0';
		if (strstr(rec, "ftagent: version ") && strstr(rec, " loaded"))
			t->loaded++;
		if (strstr(rec, "ftagent: unloaded"))
			t->unloaded++;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(rec, bad[i]))
				t->splats++;
	}
}

#define ENABLED_FUNCTIONS "/sys/kernel/tracing/enabled_functions"
#define MAX_HOOKED	  512

#define NAME_LEN 128

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * For each of the @n sorted @names, how many text symbols /proc/kallsyms
 * names so (any module too), in @count; 0, or -1. Weak ones count: a
 * system call the kernel was configured without is a weak stub of its
 * name (COND_SYSCALL: the debug kernel tier's has no COMPAT_32BIT_TIME,
 * so __ia32_compat_sys_recvmmsg_time32 is one). One read of the file, not
 * one per name: each read formats every symbol, about a second under TCG.
 */
static int text_symbols_named(char (*names)[NAME_LEN], int n, int *count)
{
	char line[512], type, sym[NAME_LEN];
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");
	char(*hit)[NAME_LEN];

	if (!f)
		return -1;
	memset(count, 0, n * sizeof(*count));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) != 3 ||
		    !strchr("tTwW", type))
			continue;
		hit = bsearch(sym, names, n, NAME_LEN, by_name);
		if (hit)
			count[hit - names]++;
	}
	fclose(f);
	return 0;
}

/*
 * The module hooks internals by address, found through a kprobe lookup
 * of the name, which stops at the first function of that name; a filter
 * by name hooked every one (kmod/hooks_ftrace.c, ftagent_ftrace_filter).
 * So every function it hooks must be the only one of its name: were a
 * kernel to add a namesake (a static function elsewhere), this fails
 * rather than the module watching one of the two. The guest runs nothing
 * else that uses ftrace: every entry in enabled_functions is the
 * module's (its kprobe set's entry probes included).
 */
TEST(hooked_functions_have_no_namesake)
{
	static char names[MAX_HOOKED][NAME_LEN];
	static int count[MAX_HOOKED];
	char line[1024];
	int n = 0, i;
	FILE *f;

	if (access(ENABLED_FUNCTIONS, R_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	f = fopen(ENABLED_FUNCTIONS, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f) && n < MAX_HOOKED)
		if (line[0] != '\t' && sscanf(line, "%127s", names[n]) == 1)
			n++;
	fclose(f);
	ASSERT_LT(0, n)
	TH_LOG("nothing hooked with %s", getenv("FTAGENT_PARAMS"));
	ASSERT_GT(MAX_HOOKED, n);
	qsort(names, n, NAME_LEN, by_name);
	ASSERT_EQ(0, text_symbols_named(names, n, count));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(1, count[i])
		TH_LOG("%s: hooked, and not the only function of that name",
		       names[i]);
	}
	TH_LOG("%d hooked functions, each the only one of its name", n);
}

/* Disabled kprobes registered now (debugfs's list of all kprobes). */
static int disabled_kprobes(void)
{
	const char *list = "/sys/kernel/debug/kprobes/list";
	char line[512];
	int n = 0;
	FILE *f;

	if (access(list, R_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	f = fopen(list, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[DISABLED]") != NULL;
	fclose(f);
	return n;
}

/*
 * The module finds the functions it hooks with kprobes registered
 * disabled, and unregisters them in one batch as its load ends
 * (kmod/callsites.c): none is left behind, with either hook set.
 */
TEST(lookups_leave_no_kprobe_behind)
{
	int before, after;

	ASSERT_EQ(0, ft_unload_module());
	before = disabled_kprobes();
	ASSERT_LE(0, before) TH_LOG("no kprobes list in debugfs");
	ASSERT_EQ(0, ft_reload_module(NULL));
	after = disabled_kprobes();
	EXPECT_EQ(before, after)
	TH_LOG("%d disabled kprobes before the load, %d after", before, after);
}

FIXTURE(cycles){};
FIXTURE_SETUP(cycles)
{
}
FIXTURE_TEARDOWN(cycles)
{
}

/* About 3.5 s a cycle under TCG; the harness default of 30 s is too short. */
TEST_F_TIMEOUT(cycles, load_unload_cycles_leave_a_clean_kernel, 600)
{
	const int n = cycles();
	const char *ko = getenv("FTAGENT_KO");
	struct kmsg_tally tally;
	int kmsg, i, was_loaded;

	ASSERT_NE(NULL, ko) TH_LOG("set FTAGENT_KO to the module's path");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, (int)lseek(kmsg, 0, SEEK_END) < 0);

	was_loaded = module_listed() == 1;
	if (was_loaded)
		ASSERT_EQ(0, ft_unload_module());

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ft_reload_module(NULL))
		TH_LOG("cycle %d: load", i);
		ASSERT_EQ(1, family_present(FTAGENT_GENL_CTL_NAME));
		ASSERT_EQ(1, family_present(FTAGENT_GENL_STATS_NAME));
		ASSERT_EQ(0, mounted_module_stays())
		TH_LOG("cycle %d: mount", i);
		ASSERT_EQ(1, module_listed());
		ASSERT_EQ(0, ft_unload_module()) TH_LOG("cycle %d: unload", i);
		ASSERT_EQ(0, module_listed());
		ASSERT_EQ(0, family_present(FTAGENT_GENL_CTL_NAME));
		ASSERT_EQ(0, family_present(FTAGENT_GENL_STATS_NAME));
	}

	read_kmsg(kmsg, &tally);
	close(kmsg);
	EXPECT_EQ(n, tally.loaded);
	EXPECT_EQ(n + was_loaded, tally.unloaded);
	EXPECT_EQ(0, tally.splats);

	/* Leave the module loaded, as the runner found it. */
	EXPECT_EQ(0, ft_reload_module(NULL));
}

/* A thread blocked in read() on a pipe, from before the load to after. */
struct blocked_read {
	int fd;
	pid_t tid;
	ssize_t got;
};

static void *blocked_reader(void *arg)
{
	struct blocked_read *b = arg;
	char buf[256];

	__atomic_store_n(&b->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	b->got = read(b->fd, buf, sizeof(buf));
	return NULL;
}

/*
 * The entry hooks note a call as it begins; a call already blocked when
 * they attached has no note, and its return must not be charged (with
 * exit_work=1 its exit still runs the sys_exit probe: the kernel sets the
 * work bit on every thread when that probe is registered). A read begun
 * after the load, on a second pipe, is charged exactly, so the first
 * pipe's zero is not a module that counts nothing.
 */
TEST(calls_begun_before_the_load_are_not_counted)
{
	struct blocked_read b = {.tid = 0};
	int before[2], after[2], i, was_loaded;
	struct ft_counters fc;
	struct ft_totals t;
	char buf[64];
	pthread_t th;

	memset(buf, 'x', sizeof(buf));
	was_loaded = module_listed() == 1;
	if (was_loaded)
		ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, pipe(before));
	ASSERT_EQ(0, pipe(after));
	b.fd = before[0];
	ASSERT_EQ(0, pthread_create(&th, NULL, blocked_reader, &b));
	for (i = 0; i < 5000; i++) {
		pid_t tid = __atomic_load_n(&b.tid, __ATOMIC_ACQUIRE);

		if (tid && ft_thread_in_syscall(tid, SYS_read, 1))
			break;
		usleep(1000);
	}
	ASSERT_GT(5000, i) TH_LOG("the reader never blocked in read()");

	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(41, write(before[1], buf, 41));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(41, b.got);
	ASSERT_EQ(23, write(after[1], buf, 23));
	ASSERT_EQ(23, read(after[0], buf, sizeof(buf)));

	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, before[0]);
	EXPECT_EQ(0, t.in_calls);
	EXPECT_EQ(0, t.in_bytes);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, after[0]);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(23, t.in_bytes);
	ft_counters_free(&fc);
	close(before[0]);
	close(before[1]);
	close(after[0]);
	close(after[1]);
	if (!was_loaded)
		EXPECT_EQ(0, ft_unload_module());
}

TEST_HARNESS_MAIN
