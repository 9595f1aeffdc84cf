// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: the kernel log (/dev/kmsg) a sweep reads after each faulted
 * call. It tells kernel reports (BUG, WARNING, KASAN, lockdep, ...),
 * which fail a sweep, from what an injected fault is expected to print:
 * warn_alloc()'s allocation failures, kmemleak's scan-area notice, and
 * kprobes' warning about a probe it could not disarm, which the module
 * must answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fail_nth.h"

/* Opened by main(); -1: no kernel log, reports are left to the harness. */
int kmsg_fd = -1;

/*
 * kmsg_read() is inside a multi-line report (one flag per kind) that a
 * read ended in the middle of: the rest follows in the next read.
 */
static int in_alloc_report, in_disarm_warn;

/*
 * Skip what the log holds now. A report cut by the skip is dropped whole:
 * left set, its flag would swallow the next report's lines.
 */
void kmsg_skip(void)
{
	char rec[8192];

	in_alloc_report = in_disarm_warn = 0;
	if (kmsg_fd < 0)
		return;
	lseek(kmsg_fd, 0, SEEK_END);
	while (read(kmsg_fd, rec, sizeof(rec)) > 0)
		;
}

static const char *const splat_words[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"KASAN",
	"UBSAN",
	"kmemleak",
	"unreferenced object",
	"general protection fault",
	"kernel BUG",
	"Kernel panic",
	"Unable to handle kernel",
	"double fault",
	"stack-protector",
	"possible circular locking",
	"possible recursive locking",
	"inconsistent lock state",
	"lockdep",
	"blocked for more than",
	"RCU stall",
	"soft lockup",
	"hard LOCKUP",
	"list_add corruption",
	"list_del corruption",
	"FAULT_INJECTION",
	"Call Trace",
};

/* Lines of a warn_alloc() report: its header, then dump_stack(). */
static int alloc_report_start(const char *text)
{
	return strstr(text, "page allocation failure: order:") ||
	       strstr(text, "vmalloc error: size") ||
	       strstr(text, ": vmalloc: allocation failure");
}

/*
 * kmemleak's own answer to an injected fault: add_scan_area() could not
 * allocate its bookkeeping and marks the object for a full scan instead
 * (mm/kmemleak.c, pr_warn_once). A full scan can only hide a leak behind
 * a stray pointer, never report a false one; the module's sections get
 * scan areas at every load, so the first fault there prints it. Not a
 * report. kmemleak disabling itself ("Cannot allocate a kmemleak_object
 * structure") still is: the leak check would be void.
 */
static int kmemleak_fallback(const char *text)
{
	return strstr(text, "kmemleak: Cannot allocate a scan area, "
			    "scanning the full object") != NULL;
}

/*
 * The kernel's warning (kernel/kprobes.c __disarm_kprobe_ftrace(),
 * WARN_ONCE) when an injected fault left ftrace no memory to take a
 * kprobe's address out of its filter: unregister_kretprobes() then keeps
 * the probe in its table, which the module must notice and answer by
 * leaving the probe's memory allocated ("the kernel kept N
 * kprobe(s)", kmod/kprobe_kept.c). Its report runs to "---[ end trace"; a
 * warning without the module's answer is a failure (kmsg_read()).
 */
static int kprobe_disarm_warn(const char *text)
{
	return strstr(text, "Failed to disarm kprobe-ftrace at ") &&
	       strstr(text, "(error -12)");
}

/*
 * Read the kernel log written since the last call. A warn_alloc() report
 * runs from its header to the stack's "</TASK>"; "Call Trace" inside it
 * is the allocation failure's own trace, not a splat.
 */
void kmsg_read(struct kmsg_scan *s)
{
	char rec[8192];
	ssize_t n;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (kmsg_fd < 0)
		return;
	for (;;) {
		char *text;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overrun: records were lost, go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		if (alloc_report_start(text)) {
			in_alloc_report = 1;
			s->alloc_reports++;
			continue;
		}
		if (in_alloc_report) {
			if (strstr(text, "</TASK>"))
				in_alloc_report = 0;
			continue;
		}
		if (kprobe_disarm_warn(text)) {
			in_disarm_warn = 1;
			s->disarm_warns++;
			diag("kernel: %.*s (an injected fault in ftrace's "
			     "filter)",
			     (int)strcspn(text, "\n"), text);
			continue;
		}
		if (in_disarm_warn) {
			if (strstr(text, "---[ end trace"))
				in_disarm_warn = 0;
			continue;
		}
		if (strstr(text, "ftagent: the kernel kept ")) {
			s->kept++;
			diag("kernel: %.*s", (int)strcspn(text, "\n"), text);
			continue;
		}
		if (kmemleak_fallback(text)) {
			s->fallbacks++;
			diag("kernel: %.*s (an injected fault in kmemleak's "
			     "own allocation)",
			     (int)strcspn(text, "\n"), text);
			continue;
		}
		if (strstr(text, "ftagent: load failed"))
			s->load_failed = 1;
		for (i = 0; i < sizeof(splat_words) / sizeof(splat_words[0]);
		     i++) {
			if (!strstr(text, splat_words[i]))
				continue;
			if (!s->splat++)
				snprintf(s->first, sizeof(s->first), "%.*s",
					 (int)strcspn(text, "\n"), text);
			diag("kernel: %.*s", (int)strcspn(text, "\n"), text);
			break;
		}
	}
	/* The module answers each kept probe at once, in the same request. */
	if (s->disarm_warns && !s->kept && !s->splat++)
		snprintf(s->first, sizeof(s->first),
			 "the kernel kept a kprobe it could not disarm, and "
			 "the module did not say so");
}
