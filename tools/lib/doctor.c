// SPDX-License-Identifier: GPL-2.0
/* ftctl doctor's findings (doctor.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"

void doctor_add(struct doctor_report *r, const char *check,
		enum doctor_status status, const char *fix, const char *fmt,
		...)
{
	struct doctor_finding *f;
	va_list ap;

	if (r->n >= DOCTOR_FINDINGS_MAX)
		return;
	f = &r->f[r->n++];
	snprintf(f->check, sizeof(f->check), "%s", check);
	f->status = status;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
}

const char *doctor_status_name(enum doctor_status s)
{
	switch (s) {
	case DOCTOR_OK: return "ok";
	case DOCTOR_WARN: return "warn";
	case DOCTOR_FAIL: return "fail";
	}
	return "fail";
}

enum doctor_status doctor_worst(const struct doctor_report *r)
{
	enum doctor_status worst = DOCTOR_OK;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->f[i].status > worst)
			worst = r->f[i].status;
	return worst;
}

const struct doctor_finding *doctor_find(const struct doctor_report *r,
					 const char *check)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].check, check))
			return &r->f[i];
	return NULL;
}
