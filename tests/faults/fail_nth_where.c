// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: where an injected fault hit, for the set sweep. In the
 * module (its handler, or anything the handler called), which then owes
 * an extended-ACK message with its refusal; or in the netlink and
 * genetlink core before or around the handler (copying the message in,
 * the skb, genetlink's attribute table, the ACK), which refuses with a
 * bare errno.
 *
 * Neither a count of the core's points nor the kernel's own fault report
 * tells it. The number of points the core passes varies with the request
 * and, with --page-alloc, with the page allocator's state; and
 * fail_dump() prints nothing for an allocation made with __GFP_NOWARN
 * (FAULT_NOWARN), which kvmalloc()'s first try and much of the skb code
 * use. So return probes record each slab and page fault this task is
 * given (__should_failslab() and should_fail_alloc_page() returned true)
 * with the kernel stack it was given in (the trace's stacktrace option):
 * a stack holding a frame of the module ("... [ftagent]") is the
 * module's. A stack that does not reach the system call entry cannot
 * say, and fails the sweep.
 *
 * should_fail_ex() itself, which every point goes through, cannot be
 * probed: lib/ is built without ftrace, and kprobe events refuse what
 * ftrace cannot trace. So a user-copy fault (should_fail_usercopy(), in
 * lib/ too) is seen by no probe: it is "unseen", and account() holds its
 * refusal to the module's standard.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail_nth.h"

#define TRACING "/sys/kernel/tracing"
#define GROUP	"fail_nth"

/* Every slab allocation passes a probe: instances for all CPUs' nests. */
static const char *const probes[][2] = {
	{"slab", "__should_failslab"},
	{"page", "should_fail_alloc_page"},
};
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

static char saved_stacktrace[8], saved_sym_offset[8];
static int started;

static int write_file(const char *path, const char *text, int flags)
{
	ssize_t n = -1;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		if (n < 0)
			diag("%s: write '%s': %s", path, text, strerror(errno));
		close(fd);
	} else {
		diag("%s: %s", path, strerror(errno));
	}
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void read_word(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* Take the probes out: at the end, and left over from a run that died. */
static void probes_remove(void)
{
	char path[256], cmd[64];
	struct stat st;
	size_t i;

	for (i = 0; i < N_PROBES; i++) {
		snprintf(path, sizeof(path), TRACING "/events/" GROUP "/%s",
			 probes[i][0]);
		if (stat(path, &st))
			continue;
		strcat(path, "/enable");
		write_file(path, "0", 0);
		snprintf(cmd, sizeof(cmd), "-:" GROUP "/%s\n", probes[i][0]);
		write_file(TRACING "/kprobe_events", cmd, O_APPEND);
	}
}

static int probe_add(const char *event, const char *func)
{
	char path[256], text[128];

	snprintf(text, sizeof(text), "r64:" GROUP "/%s %s ret=$retval:u8\n",
		 event, func);
	if (write_file(TRACING "/kprobe_events", text, O_APPEND))
		return -1;
	/* This task's faults only (nothing else is armed, but still). */
	snprintf(path, sizeof(path), TRACING "/events/" GROUP "/%s/filter",
		 event);
	snprintf(text, sizeof(text), "ret == 1 && common_pid == %d",
		 (int)getpid());
	if (write_file(path, text, O_TRUNC))
		return -1;
	snprintf(path, sizeof(path), TRACING "/events/" GROUP "/%s/enable",
		 event);
	return write_file(path, "1", 0);
}

int where_start(void)
{
	struct stat st;
	size_t i;

	if (stat(TRACING "/kprobe_events", &st) &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL)) {
		diag("mount tracefs on " TRACING ": %s", strerror(errno));
		return -1;
	}
	probes_remove();
	read_word(TRACING "/options/stacktrace", saved_stacktrace,
		  sizeof(saved_stacktrace));
	read_word(TRACING "/options/sym-offset", saved_sym_offset,
		  sizeof(saved_sym_offset));
	started = 1;
	/* the module's frames as "name+off/size [ftagent]" */
	if (write_file(TRACING "/options/sym-offset", "1", 0) ||
	    write_file(TRACING "/options/stacktrace", "1", 0) ||
	    write_file(TRACING "/tracing_on", "1", 0)) {
		where_stop();
		return -1;
	}
	for (i = 0; i < N_PROBES; i++) {
		if (probe_add(probes[i][0], probes[i][1])) {
			where_stop();
			return -1;
		}
	}
	return 0;
}

void where_stop(void)
{
	if (!started)
		return;
	started = 0;
	probes_remove();
	if (saved_stacktrace[0])
		write_file(TRACING "/options/stacktrace", saved_stacktrace, 0);
	if (saved_sym_offset[0])
		write_file(TRACING "/options/sym-offset", saved_sym_offset, 0);
}

void where_clear(void)
{
	int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

/*
 * The faults recorded since where_clear(). The trace reads, per fault:
 *   fail_nth-113 [000] d..1. 12.3: slab: (should_failslab+... <- ...
 *   fail_nth-113 [000] d..1. 12.3: <stack trace>
 *    => __should_failslab+0xea/0x140
 *    ...
 *    => ftagent_ctl_flush+0x1a/0x80 [ftagent]
 *    ...
 *    => do_syscall_64+0x3c/0x90
 */
int where_read(struct fault_where *w)
{
	int in_stack = 0, module = 0, whole = 0;
	char line[512];
	FILE *f;

	memset(w, 0, sizeof(*w));
	f = fopen(TRACING "/trace", "re");
	if (!f) {
		diag(TRACING "/trace: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (!strncmp(line + strspn(line, " "), "=> ", 3)) {
			if (!in_stack)
				continue;
			if (strstr(line, " [ftagent]"))
				module = 1;
			if (strstr(line, "do_syscall_64") ||
			    strstr(line, "entry_SYSCALL_64"))
				whole = 1;
			continue;
		}
		if (in_stack) { /* the stack before this line ended */
			w->in_module += module;
			w->whole += whole;
			in_stack = 0;
		}
		if (strstr(line, ": <stack trace>")) {
			in_stack = 1;
			module = whole = 0;
		} else if ((strstr(line, " slab: (") ||
			    strstr(line, " page: (")) &&
			   strstr(line, "ret=1")) {
			w->faults++;
		}
	}
	if (in_stack) {
		w->in_module += module;
		w->whole += whole;
	}
	fclose(f);
	return 0;
}
