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
 * use. So a return probe on should_fail_ex(), the one function every
 * fault-injection point goes through, records each fault this task is
 * given (it returned true) with the kernel stack it was given in (the
 * trace's stacktrace option): a stack holding a frame of the module
 * ("... [ftagent]") is the module's. A stack that does not reach the
 * system call entry cannot say, and fails the sweep.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail_nth.h"

#define TRACING	  "/sys/kernel/tracing"
#define EVENT	  "fail_nth/fault"
#define EVENT_DIR TRACING "/events/" EVENT
/* Every slab allocation passes the probe: instances for all CPUs' nests. */
#define PROBE "r64:" EVENT " should_fail_ex ret=$retval:u8"

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

int where_start(void)
{
	char filter[64];
	struct stat st;

	if (stat(TRACING "/kprobe_events", &st) &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL)) {
		diag("mount tracefs on " TRACING ": %s", strerror(errno));
		return -1;
	}
	/* A run that died before where_stop() left its event: gone first. */
	if (!stat(EVENT_DIR, &st)) {
		write_file(EVENT_DIR "/enable", "0", 0);
		write_file(TRACING "/kprobe_events", "-:" EVENT "\n", O_APPEND);
	}
	read_word(TRACING "/options/stacktrace", saved_stacktrace,
		  sizeof(saved_stacktrace));
	read_word(TRACING "/options/sym-offset", saved_sym_offset,
		  sizeof(saved_sym_offset));
	snprintf(filter, sizeof(filter), "ret == 1 && common_pid == %d",
		 (int)getpid());
	started = 1;
	if (write_file(TRACING "/kprobe_events", PROBE "\n", O_APPEND) ||
	    write_file(EVENT_DIR "/filter", filter, O_TRUNC) ||
	    /* the module's frames as "name+off/size [ftagent]" */
	    write_file(TRACING "/options/sym-offset", "1", 0) ||
	    write_file(TRACING "/options/stacktrace", "1", 0) ||
	    write_file(TRACING "/tracing_on", "1", 0) ||
	    write_file(EVENT_DIR "/enable", "1", 0)) {
		where_stop();
		return -1;
	}
	return 0;
}

void where_stop(void)
{
	if (!started)
		return;
	started = 0;
	write_file(EVENT_DIR "/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:" EVENT "\n", O_APPEND);
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
 *   fail_nth-113 [000] d..1. 12.3: fault: (__should_failslab+... <- ...
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
		} else if (strstr(line, " fault: (") && strstr(line, "ret=1")) {
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
