/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl doctor's findings and the checks that make them. Every check is
 * a pure function of facts gathered elsewhere (tools/ftctl/doctor_host.c
 * reads the host), so each can be tested on made-up inputs: the checks
 * decide, they never read a file or ask the kernel.
 *
 * A finding is ok, warn (worth knowing, nothing broken: "needs root to
 * check", not installed through DKMS, a table filling up) or fail
 * (something needs action). Every finding that is not ok has a fix line:
 * a command to run or the doc section to read.
 */
#ifndef FTAGENT_LIB_DOCTOR_H
#define FTAGENT_LIB_DOCTOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters.h"
#include "status.h"

enum doctor_status { DOCTOR_OK, DOCTOR_WARN, DOCTOR_FAIL };

#define DOCTOR_CHECK_MAX    24
#define DOCTOR_TEXT_MAX	    384
#define DOCTOR_FINDINGS_MAX 48

struct doctor_finding {
	char check[DOCTOR_CHECK_MAX];
	enum doctor_status status;
	char what[DOCTOR_TEXT_MAX];
	char fix[DOCTOR_TEXT_MAX]; /* "" for ok */
};

struct doctor_report {
	struct doctor_finding f[DOCTOR_FINDINGS_MAX];
	size_t n;
};

/* Add a finding (what from @fmt); silently dropped past the maximum. */
void doctor_add(struct doctor_report *r, const char *check,
		enum doctor_status status, const char *fix, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));
const char *doctor_status_name(enum doctor_status s);
/* The worst status in @r. */
enum doctor_status doctor_worst(const struct doctor_report *r);
/* The finding of @check, or NULL (tests). */
const struct doctor_finding *doctor_find(const struct doctor_report *r,
					 const char *check);

/* ---- the module's packaging and the kernel (doctor_kernel.c) ---- */

/*
 * `dkms status -m ftagent` (@dkms_out; NULL when dkms is not installed)
 * against the running kernel and the newest installed one (a release
 * with both /lib/modules/R and /boot/vmlinuz-R; NULL: none found).
 */
void doctor_check_dkms(struct doctor_report *r, const char *dkms_out,
		       const char *running, const char *newest);
/* Whether `dkms status` says ftagent is installed for @kver. */
int doctor_dkms_installed_for(const char *dkms_out, const char *kver);
/* The newest of @n kernel releases (version order), or NULL. */
const char *doctor_newest_kernel(const char *const *kvers, size_t n);

/* The level in brackets of /sys/kernel/security/lockdown ("none"...). */
int doctor_lockdown_level(const char *text, char *level, size_t len);

enum doctor_secure_boot {
	DOCTOR_SB_UNKNOWN, /* could not tell (say why) */
	DOCTOR_SB_LEGACY,  /* no EFI: legacy BIOS boot */
	DOCTOR_SB_OFF,
	DOCTOR_SB_ON,
};
/* From `mokutil --sb-state` output ("SecureBoot enabled"...). */
enum doctor_secure_boot doctor_sb_from_mokutil(const char *out);
/* From the SecureBoot EFI variable: 4 bytes of attributes, then 1 value. */
enum doctor_secure_boot doctor_sb_from_efivar(const unsigned char *buf,
					      size_t len);

struct doctor_signing {
	char lockdown[32]; /* "" when the file is absent */
	enum doctor_secure_boot sb;
	const char *sb_why; /* for DOCTOR_SB_UNKNOWN */
	int sig_enforce;    /* 1, 0, or -1 unknown */
	int signer_known;   /* modinfo ran on the module */
	char signer[128];   /* "" unsigned */
	int mok_enrolled;   /* 1, 0, or -1 unknown (no mokutil, no key) */
};
/* Lockdown, Secure Boot, the module's signature and the MOK. */
void doctor_check_signing(struct doctor_report *r,
			  const struct doctor_signing *s);

/* /proc/sys/kernel/ftrace_enabled's content (NULL: unreadable). */
void doctor_check_ftrace_enabled(struct doctor_report *r, const char *text);

/*
 * How the ftrace set sees its calls return (the module's GET_STATUS
 * EXIT_WORK) against what was asked of it (the exit_work= parameter):
 * the exit work by default; the settle through TIF_NOTIFY_RESUME, about
 * 160 instructions more per traced call, when asked or as a fallback.
 */
struct doctor_return_in {
	int hooks;     /* FTAGENT_HOOKS_*; -1 unknown */
	int exit_work; /* the module's status: 1, 0; -1 unknown (@why) */
	const char *why;
	int param;	    /* exit_work=: 1, 0; -1 unknown */
	int ftrace_enabled; /* kernel.ftrace_enabled now: 1, 0; -1 unknown */
};
void doctor_check_return_path(struct doctor_report *r,
			      const struct doctor_return_in *in);

/* ---- other owners of the functions ftagent hooks (doctor_owners.c) ---- */

struct doctor_owners_in {
	/* enabled_functions' text; NULL: not read (why in @why). */
	const char *enabled_functions;
	const char *why;
	const char *const *hooked; /* functions ftagent hooks */
	size_t n_hooked;
	const char *const *livepatches; /* /sys/kernel/livepatch entries */
	size_t n_livepatches;
	int direct_calls_param; /* ftagent's direct_calls=: 1, 0, -1 unknown */
};
void doctor_check_owners(struct doctor_report *r,
			 const struct doctor_owners_in *in);

/* ---- the module, the daemon and ftctl (doctor_agent.c) ---- */

struct doctor_versions {
	int module_loaded; /* 1 yes, 0 no, -1 could not ask (why) */
	const char *module_why;
	const struct ftagent_status *module; /* GET_VERSION, when loaded */
	/* The daemon: its version and API, when it answered. */
	const char *daemon_version;
	int daemon_api_major, daemon_api_minor;
	const char *ftctl_version;
	int ftctl_api_major, ftctl_api_minor;
};
void doctor_check_versions(struct doctor_report *r,
			   const struct doctor_versions *v);

struct doctor_daemon_in {
	const char *socket_path;
	int stat_errno; /* 0: @mode, @uid, @gid are the socket's */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	gid_t group; /* the ftagent group's id; (gid_t)-1 none */
	int call_rc; /* ftagent_api_call()'s return */
	const char *call_err;
	uid_t caller_uid;
	const gid_t *caller_groups; /* primary and supplementary */
	size_t n_caller_groups;
};
void doctor_check_daemon(struct doctor_report *r,
			 const struct doctor_daemon_in *in);

/*
 * Hooks attached and proven firing: @before and @after are the module's
 * resources around one harmless call of each traced syscall (selfcheck.c);
 * NULL @after with @why when they could not be read.
 */
void doctor_check_hooks(struct doctor_report *r,
			const struct ftagent_resources *before,
			const struct ftagent_resources *after, const char *why);

struct doctor_loss_in {
	int known;	 /* the daemon's loss_last_hour was read */
	const char *why; /* when not */
	uint64_t window_s, events, counters;
};
void doctor_check_loss(struct doctor_report *r,
		       const struct doctor_loss_in *in);

struct doctor_table {
	const char *name;
	uint64_t used, capacity, evicted;
};
/*
 * The daemon's tables (@n of them; NULL @tables with @why when unknown)
 * and the module's per-CPU counter tables (@res; NULL when unknown).
 */
void doctor_check_tables(struct doctor_report *r,
			 const struct doctor_table *tables, size_t n,
			 const char *why, const struct ftagent_resources *res);

/* A table this full (percent) is "near full". */
#define DOCTOR_NEAR_FULL_PCT 90

#endif /* FTAGENT_LIB_DOCTOR_H */
