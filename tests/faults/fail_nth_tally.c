// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: outcome tallies (how many faulted calls ended which way,
 * printed as the "# summary" lines every sweep ends with), the errno
 * names they are written with, and the clock that times a sweep.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fail_nth.h"

void tally_add(struct tally *t, const char *fmt, ...)
{
	char key[80];
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key))
			break;
	if (i == t->n) {
		if (t->n == OUTCOMES_MAX)
			return;
		snprintf(t->key[t->n++], sizeof(t->key[0]), "%s", key);
	}
	t->count[i]++;
}

void tally_print(const char *name, const struct tally *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		diag("summary %s: %-48s %u", name, t->key[i], t->count[i]);
}

const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "ok";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case EMSGSIZE: return "EMSGSIZE";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
