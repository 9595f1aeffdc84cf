// SPDX-License-Identifier: GPL-2.0
/*
 * doctor's checks of the module's packaging and of the kernel it runs on:
 * DKMS builds for the running and the newest kernel, lockdown, Secure
 * Boot, the module's signature and the MOK, ftrace_enabled, and how the
 * ftrace set sees its calls return.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

#define DOC_INSTALL "docs/install.md"

/*
 * One line of `dkms status`: "ftagent/0.4.0, 6.1.0-57-amd64, x86_64:
 * installed" (dkms 3), or "ftagent, 0.4.0, KVER, ARCH: installed"
 * (older). The kernel is a whole comma-separated field.
 */
static int line_installed_for(const char *line, size_t len, const char *kver)
{
	const char *colon = memchr(line, ':', len);
	size_t klen = strlen(kver);
	const char *p;

	if (!colon || strncmp(line, "ftagent", 7) ||
	    (line[7] != '/' && line[7] != ','))
		return 0;
	for (p = colon + 1; p < line + len && *p == ' '; p++)
		;
	if ((size_t)(line + len - p) < 9 || strncmp(p, "installed", 9))
		return 0;
	for (p = line; p + klen <= colon; p++)
		if (p > line && p[-1] == ' ' && p[-2] == ',' &&
		    !strncmp(p, kver, klen) &&
		    (p[klen] == ',' || p[klen] == ':'))
			return 1;
	return 0;
}

int doctor_dkms_installed_for(const char *dkms_out, const char *kver)
{
	const char *line = dkms_out, *end;

	while (line && *line) {
		end = strchr(line, '\n');
		if (line_installed_for(
			    line, end ? (size_t)(end - line) : strlen(line),
			    kver))
			return 1;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

const char *doctor_newest_kernel(const char *const *kvers, size_t n)
{
	const char *newest = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!newest || strverscmp(kvers[i], newest) > 0)
			newest = kvers[i];
	return newest;
}

void doctor_check_dkms(struct doctor_report *r, const char *dkms_out,
		       const char *running, const char *newest)
{
	char fix[DOCTOR_TEXT_MAX];

	if (!dkms_out) {
		doctor_add(r, "dkms", DOCTOR_WARN,
			   "apt-get install dkms, then make dkms-install "
			   "(" DOC_INSTALL ")",
			   "dkms is not installed: the module is not rebuilt "
			   "when the kernel is upgraded");
		return;
	}
	if (!strstr(dkms_out, "ftagent")) {
		doctor_add(r, "dkms", DOCTOR_WARN,
			   "make dkms-install (" DOC_INSTALL ")",
			   "ftagent is not installed through DKMS (a module "
			   "loaded from a path is not rebuilt for a new "
			   "kernel)");
		return;
	}
	if (!doctor_dkms_installed_for(dkms_out, running)) {
		snprintf(fix, sizeof(fix),
			 "apt-get install linux-headers-%s && dkms "
			 "autoinstall -k %s",
			 running, running);
		doctor_add(r, "dkms", DOCTOR_FAIL, fix,
			   "DKMS has no ftagent installed for the running "
			   "kernel %s",
			   running);
		return;
	}
	if (newest && strcmp(newest, running) &&
	    !doctor_dkms_installed_for(dkms_out, newest)) {
		snprintf(fix, sizeof(fix),
			 "apt-get install linux-headers-%s && dkms "
			 "autoinstall -k %s",
			 newest, newest);
		doctor_add(r, "dkms", DOCTOR_FAIL, fix,
			   "DKMS has no ftagent for the newest installed "
			   "kernel %s: booting it leaves the host without "
			   "ftagent",
			   newest);
		return;
	}
	doctor_add(r, "dkms", DOCTOR_OK, NULL,
		   "installed through DKMS for the running kernel %s%s%s",
		   running,
		   newest && strcmp(newest, running) ? " and for " : "",
		   newest && strcmp(newest, running) ? newest : "");
}

int doctor_lockdown_level(const char *text, char *level, size_t len)
{
	const char *open = strchr(text, '['), *close;

	if (!open || !(close = strchr(open, ']')) ||
	    (size_t)(close - open - 1) >= len)
		return -1;
	memcpy(level, open + 1, close - open - 1);
	level[close - open - 1] = 0;
	return 0;
}

enum doctor_secure_boot doctor_sb_from_mokutil(const char *out)
{
	if (strstr(out, "SecureBoot enabled"))
		return DOCTOR_SB_ON;
	if (strstr(out, "SecureBoot disabled"))
		return DOCTOR_SB_OFF;
	if (strstr(out, "EFI variables are not supported"))
		return DOCTOR_SB_LEGACY;
	return DOCTOR_SB_UNKNOWN;
}

enum doctor_secure_boot doctor_sb_from_efivar(const unsigned char *buf,
					      size_t len)
{
	/* efivarfs: a u32 of attributes, then the variable (one byte). */
	if (len != 5)
		return DOCTOR_SB_UNKNOWN;
	return buf[4] == 1 ? DOCTOR_SB_ON : DOCTOR_SB_OFF;
}

static void check_lockdown(struct doctor_report *r, const char *level)
{
	if (!level[0])
		doctor_add(r, "lockdown", DOCTOR_OK, NULL,
			   "no lockdown on this kernel");
	else if (!strcmp(level, "none"))
		doctor_add(r, "lockdown", DOCTOR_OK, NULL, "lockdown: none");
	else
		doctor_add(r, "lockdown", DOCTOR_OK, NULL,
			   "lockdown: %s (ftagent works under it; only a "
			   "signed module can be loaded)",
			   level);
}

static void check_secure_boot(struct doctor_report *r,
			      const struct doctor_signing *s)
{
	switch (s->sb) {
	case DOCTOR_SB_ON:
		doctor_add(r, "secure_boot", DOCTOR_OK, NULL,
			   "Secure Boot is on: modules must be signed by a "
			   "key the kernel trusts");
		break;
	case DOCTOR_SB_OFF:
		doctor_add(r, "secure_boot", DOCTOR_OK, NULL,
			   "Secure Boot is off");
		break;
	case DOCTOR_SB_LEGACY:
		doctor_add(r, "secure_boot", DOCTOR_OK, NULL,
			   "booted without EFI (legacy BIOS): no Secure Boot");
		break;
	default:
		doctor_add(r, "secure_boot", DOCTOR_WARN,
			   "mokutil --sb-state (as root)",
			   "Secure Boot state unknown: %s",
			   s->sb_why ? s->sb_why : "not checked");
	}
}

#define FIX_SIGN                                                               \
	"make dkms-install (DKMS signs with /var/lib/dkms/mok.key), then "     \
	"mokutil --import /var/lib/dkms/mok.pub and reboot "                   \
	"(" DOC_INSTALL ", Secure Boot)"
#define FIX_ENROLL                                                             \
	"mokutil --import /var/lib/dkms/mok.pub, reboot and enroll it "        \
	"(" DOC_INSTALL ", Secure Boot)"

static void check_signature(struct doctor_report *r,
			    const struct doctor_signing *s)
{
	int locked = s->lockdown[0] && strcmp(s->lockdown, "none");
	int required = s->sb == DOCTOR_SB_ON || s->sig_enforce == 1 || locked;
	const char *why = s->sb == DOCTOR_SB_ON ? "Secure Boot is on"
			  : s->sig_enforce == 1 ? "module.sig_enforce is set"
						: "the kernel is locked down";

	if (!s->signer_known) {
		doctor_add(r, "signature", DOCTOR_WARN,
			   "modinfo -F signer ftagent",
			   "the module's signature was not checked (modinfo "
			   "could not read the module)");
		return;
	}
	if (!s->signer[0]) {
		if (required)
			doctor_add(r, "signature", DOCTOR_FAIL, FIX_SIGN,
				   "the module is not signed and %s: the "
				   "kernel will refuse to load it",
				   why);
		else
			doctor_add(r, "signature", DOCTOR_OK, NULL,
				   "the module is not signed; this kernel "
				   "does not require it (it marks itself "
				   "tainted)");
		return;
	}
	if (s->sb == DOCTOR_SB_ON && s->mok_enrolled == 0) {
		doctor_add(r, "signature", DOCTOR_FAIL, FIX_ENROLL,
			   "the module is signed by \"%s\" but the DKMS key "
			   "is not enrolled: Secure Boot will refuse it",
			   s->signer);
		return;
	}
	doctor_add(r, "signature", DOCTOR_OK, NULL,
		   "the module is signed by \"%s\"%s", s->signer,
		   s->sb != DOCTOR_SB_ON ? ""
		   : s->mok_enrolled == 1
			   ? "; the DKMS key is enrolled"
			   : "; whether the DKMS key is enrolled was not "
			     "checked (no mokutil or no "
			     "/var/lib/dkms/mok.pub)");
}

void doctor_check_signing(struct doctor_report *r,
			  const struct doctor_signing *s)
{
	check_lockdown(r, s->lockdown);
	check_secure_boot(r, s);
	check_signature(r, s);
}

void doctor_check_ftrace_enabled(struct doctor_report *r, const char *text)
{
	if (!text)
		doctor_add(r, "ftrace_enabled", DOCTOR_WARN,
			   "cat /proc/sys/kernel/ftrace_enabled",
			   "could not read /proc/sys/kernel/ftrace_enabled");
	else if (atoi(text) == 1)
		doctor_add(r, "ftrace_enabled", DOCTOR_OK, NULL,
			   "function tracing is on (kernel.ftrace_enabled=1)");
	else
		doctor_add(r, "ftrace_enabled", DOCTOR_FAIL,
			   "sysctl kernel.ftrace_enabled=1, and remove "
			   "ftrace_enabled=0 from /etc/sysctl.d",
			   "kernel.ftrace_enabled=0: no ftrace hook fires, "
			   "ftagent sees nothing");
}

#define FIX_REATTACH                                                           \
	"modprobe -r ftagent && modprobe ftagent (a reattach takes the exit "  \
	"work again); dmesg | grep ftagent says why it could not start "       \
	"(docs/hooks.md, The settle)"

void doctor_check_return_path(struct doctor_report *r,
			      const struct doctor_return_in *in)
{
	if (in->hooks == FTAGENT_HOOKS_KPROBE) {
		doctor_add(r, "return_path", DOCTOR_OK, NULL,
			   "the kprobe set sees each traced call return "
			   "through its kretprobe");
		return;
	}
	if (in->exit_work < 0 || in->hooks != FTAGENT_HOOKS_FTRACE) {
		doctor_add(r, "return_path", DOCTOR_WARN,
			   in->why && strstr(in->why, "root")
				   ? "run ftctl doctor as root"
				   : "see the module finding",
			   "how traced calls are seen returning was not "
			   "checked: %s",
			   in->why ? in->why : "unknown");
		return;
	}
	if (in->exit_work) {
		doctor_add(r, "return_path", DOCTOR_OK, NULL,
			   "traced calls are seen returning through the "
			   "kernel's syscall exit work");
		return;
	}
	if (in->param == 0) {
		doctor_add(r, "return_path", DOCTOR_OK, NULL,
			   "exit_work=0 was asked for: traced calls are seen "
			   "returning through TIF_NOTIFY_RESUME, about 160 "
			   "instructions more per call than the exit work");
		return;
	}
	if (in->ftrace_enabled == 0) {
		doctor_add(r, "return_path", DOCTOR_WARN,
			   "sysctl kernel.ftrace_enabled=1, then " FIX_REATTACH,
			   "the exit work could not start "
			   "(kernel.ftrace_enabled=0): traced calls are seen "
			   "through TIF_NOTIFY_RESUME once the sysctl is 1, "
			   "about 160 instructions more per call");
		return;
	}
	doctor_add(r, "return_path", DOCTOR_WARN, FIX_REATTACH,
		   "the ftrace set fell back from the syscall exit work "
		   "(kernel.ftrace_enabled was 0 when it attached, or this "
		   "kernel has no syscall tracepoints): traced calls cost "
		   "about 160 instructions more each, through "
		   "TIF_NOTIFY_RESUME");
}
