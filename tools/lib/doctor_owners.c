// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: does anyone else own a function ftagent hooks? ftrace's
 * enabled_functions lists every function with a user and its flags: "I"
 * an IPMODIFY user (a livepatch, or a tool that redirects the call), "D"
 * a direct caller (a BPF trampoline, or ftagent's own ftrace set), whose
 * target follows on a "\tdirect-->SYMBOL [MODULE]" line. ftagent never
 * hooks a syscall entry point with IPMODIFY, so any "I" there is someone
 * else; a direct call is ftagent's when its target is in [ftagent].
 */
#include <stdio.h>
#include <string.h>

#include "doctor.h"

#define DOC_HOOKS "docs/hooks.md"

struct owned {
	int ipmodify, direct;
	char direct_to[128]; /* the direct target, "" when not ftagent's */
};

static int hooked(const struct doctor_owners_in *in, const char *name,
		  size_t len)
{
	size_t i;

	for (i = 0; i < in->n_hooked; i++)
		if (strlen(in->hooked[i]) == len &&
		    !strncmp(in->hooked[i], name, len))
			return 1;
	return 0;
}

/* The flags after "(N)", up to the tab or the end of the line. */
static void line_flags(const char *p, const char *end, struct owned *o)
{
	p = memchr(p, ')', end - p);
	for (; p && p < end && *p != '\t'; p++) {
		if (p[-1] != ' ')
			continue;
		if (*p == 'I')
			o->ipmodify = 1;
		if (*p == 'D')
			o->direct = 1;
	}
}

/* "\tdirect-->SYM+0x0/0x40 [mod]": "" when the target is ftagent's. */
static void direct_target(const char *p, const char *end, struct owned *o)
{
	size_t len;

	p += strlen("\tdirect-->");
	len = end - p < (long)sizeof(o->direct_to) - 1
		      ? (size_t)(end - p)
		      : sizeof(o->direct_to) - 1;
	if (memmem(p, end - p, "[ftagent]", 9))
		return;
	memcpy(o->direct_to, p, len);
	o->direct_to[len] = 0;
}

static void report_ipmodify(struct doctor_report *r,
			    const struct doctor_owners_in *in, const char *fn,
			    size_t len)
{
	char lp[160] = "";
	size_t i, off = 0;

	for (i = 0; i < in->n_livepatches && off < sizeof(lp) - 1; i++)
		off += snprintf(lp + off, sizeof(lp) - off, "%s%s",
				i ? ", " : "", in->livepatches[i]);
	doctor_add(r, "owners", DOCTOR_WARN,
		   "nothing, if that is a livepatch you meant to load; "
		   "otherwise find it in /sys/kernel/tracing/enabled_functions "
		   "(" DOC_HOOKS ", How ftagent hooks)",
		   "%.*s has an IPMODIFY user (%s%s): calls go where it "
		   "sends them; ftagent shares the function and still counts",
		   (int)len, fn, lp[0] ? "livepatch " : "not a livepatch", lp);
}

static void report_direct(struct doctor_report *r,
			  const struct doctor_owners_in *in, const char *fn,
			  size_t len, const char *to)
{
	if (in->direct_calls_param == 0)
		doctor_add(r, "owners", DOCTOR_WARN,
			   "nothing: ftagent was loaded with direct_calls=0 "
			   "for this (" DOC_HOOKS ")",
			   "%.*s's direct call belongs to %s; ftagent uses "
			   "plain ftrace_ops, as direct_calls=0 asks",
			   (int)len, fn, to);
	else
		doctor_add(r, "owners", DOCTOR_FAIL,
			   "detach that program (bpftool prog; bpftrace), or "
			   "reload ftagent with direct_calls=0 if it must "
			   "stay (" DOC_HOOKS ", Direct calls)",
			   "%.*s's direct call belongs to %s: ftagent runs "
			   "without direct calls (slower on every traced "
			   "call)",
			   (int)len, fn, to);
}

static void flush(struct doctor_report *r, const struct doctor_owners_in *in,
		  const char *fn, size_t len, const struct owned *o)
{
	if (fn && o->ipmodify)
		report_ipmodify(r, in, fn, len);
	if (fn && o->direct && o->direct_to[0])
		report_direct(r, in, fn, len, o->direct_to);
}

void doctor_check_owners(struct doctor_report *r,
			 const struct doctor_owners_in *in)
{
	const char *line = in->enabled_functions, *end, *fn = NULL;
	size_t fn_len = 0, before = r->n;
	struct owned o = {0};

	if (!line || !in->hooked) {
		doctor_add(r, "owners", DOCTOR_WARN,
			   !in->hooked ? "see the hooks finding"
			   : in->why && strstr(in->why, "mount")
				   ? "mount -t tracefs nodev "
				     "/sys/kernel/tracing"
				   : "run ftctl doctor as root (tracefs needs "
				     "CAP_SYS_ADMIN)",
			   "other owners of ftagent's functions not checked: "
			   "%s",
			   in->why ? in->why : "unknown");
		return;
	}
	/* Each function line, then its continuation lines (tab first). */
	for (;; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (*line != '\t') {
			flush(r, in, fn, fn_len, &o);
			memset(&o, 0, sizeof(o));
			fn_len = strcspn(line, " \t\n");
			fn = hooked(in, line, fn_len) ? line : NULL;
			if (fn)
				line_flags(line, end, &o);
		} else if (fn && !strncmp(line, "\tdirect-->", 10)) {
			direct_target(line, end, &o);
		}
		if (!*end)
			break;
	}
	flush(r, in, fn, fn_len, &o);
	if (r->n == before)
		doctor_add(r, "owners", DOCTOR_OK, NULL,
			   "no other owner of the %zu functions ftagent "
			   "hooks%s",
			   in->n_hooked,
			   in->n_livepatches ? " (a livepatch is loaded; it "
					       "patches none of them)"
					     : "");
}
