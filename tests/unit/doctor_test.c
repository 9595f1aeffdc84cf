// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for ftctl doctor's checks (tools/lib/doctor*.c) on made-up
 * facts: each check is ok on a healthy input and names the fault, with a
 * fix line, on each broken one; what could not be read is "not checked"
 * (warn), never ok.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/lib/doctor.h"

static struct doctor_report report;

static int reset(void **state)
{
	(void)state;
	memset(&report, 0, sizeof(report));
	return 0;
}

/* The one finding of @check: its status; the fix must be there if not ok. */
static enum doctor_status status_of(const char *check)
{
	const struct doctor_finding *f = doctor_find(&report, check);

	assert_non_null(f);
	if (f->status != DOCTOR_OK)
		assert_true(f->fix[0]);
	return f->status;
}

static void assert_what(const char *check, const char *words)
{
	const struct doctor_finding *f = doctor_find(&report, check);

	assert_non_null(f);
	if (!strstr(f->what, words))
		fail_msg("%s: \"%s\" not in \"%s\"", check, words, f->what);
}

/* ---- dkms ---- */

#define RUNNING "6.1.0-57-amd64"
#define NEWER	"6.12.117+deb12-amd64"

static void dkms_installed_for_both_is_ok(void **state)
{
	const char *out = "ftagent/0.4.0, 6.1.0-57-amd64, x86_64: installed\n"
			  "ftagent/0.4.0, 6.12.117+deb12-amd64, x86_64: "
			  "installed\n";

	(void)state;
	doctor_check_dkms(&report, out, RUNNING, NEWER);
	assert_int_equal(DOCTOR_OK, status_of("dkms"));
}

static void dkms_old_format_is_read(void **state)
{
	(void)state;
	assert_true(doctor_dkms_installed_for(
		"ftagent, 0.3.0, 6.1.0-57-amd64, x86_64: installed", RUNNING));
	/* A prefix of another release is not that release. */
	assert_false(doctor_dkms_installed_for(
		"ftagent/0.4.0, 6.1.0-57-amd64-extra, x86_64: installed",
		RUNNING));
	/* Built is not installed. */
	assert_false(doctor_dkms_installed_for(
		"ftagent/0.4.0, 6.1.0-57-amd64, x86_64: built", RUNNING));
	/* Another module's line does not count. */
	assert_false(doctor_dkms_installed_for(
		"wireguard/1.0, 6.1.0-57-amd64, x86_64: installed", RUNNING));
}

static void dkms_missing_the_newest_kernel_fails(void **state)
{
	(void)state;
	doctor_check_dkms(&report,
			  "ftagent/0.4.0, 6.1.0-57-amd64, x86_64: installed\n",
			  RUNNING, NEWER);
	assert_int_equal(DOCTOR_FAIL, status_of("dkms"));
	assert_what("dkms", NEWER);
	assert_non_null(strstr(doctor_find(&report, "dkms")->fix, NEWER));
}

static void dkms_missing_the_running_kernel_fails(void **state)
{
	(void)state;
	doctor_check_dkms(&report,
			  "ftagent/0.4.0, " NEWER ", x86_64: installed\n",
			  RUNNING, NEWER);
	assert_int_equal(DOCTOR_FAIL, status_of("dkms"));
	assert_what("dkms", "running kernel " RUNNING);
}

static void no_dkms_or_not_through_dkms_is_a_warning(void **state)
{
	(void)state;
	doctor_check_dkms(&report, NULL, RUNNING, RUNNING);
	assert_int_equal(DOCTOR_WARN, status_of("dkms"));
	reset(NULL);
	doctor_check_dkms(&report, "", RUNNING, RUNNING);
	assert_int_equal(DOCTOR_WARN, status_of("dkms"));
	assert_what("dkms", "not installed through DKMS");
}

static void newest_kernel_is_by_version(void **state)
{
	const char *k[] = {"6.1.0-9-amd64", NEWER, "6.1.0-57-amd64",
			   "5.10.0-30-amd64"};

	(void)state;
	assert_string_equal(NEWER, doctor_newest_kernel(k, 4));
	/* 57 after 9: numbers, not strings. */
	assert_string_equal("6.1.0-57-amd64", doctor_newest_kernel(&k[2], 1));
	assert_string_equal(
		"6.1.0-57-amd64",
		doctor_newest_kernel(
			(const char *[]){"6.1.0-9-amd64", "6.1.0-57-amd64"},
			2));
	assert_null(doctor_newest_kernel(k, 0));
}

/* ---- lockdown, Secure Boot, signature ---- */

static void lockdown_level_is_the_bracketed_one(void **state)
{
	char level[32];

	(void)state;
	assert_int_equal(
		0, doctor_lockdown_level("none [integrity] confidentiality\n",
					 level, sizeof(level)));
	assert_string_equal("integrity", level);
	assert_int_equal(-1, doctor_lockdown_level("none integrity", level,
						   sizeof(level)));
}

static void secure_boot_sources(void **state)
{
	const unsigned char on[5] = {6, 0, 0, 0, 1}, off[5] = {6, 0, 0, 0, 0};

	(void)state;
	assert_int_equal(DOCTOR_SB_ON,
			 doctor_sb_from_mokutil("SecureBoot enabled\n"));
	assert_int_equal(DOCTOR_SB_OFF,
			 doctor_sb_from_mokutil("SecureBoot disabled\n"));
	assert_int_equal(DOCTOR_SB_LEGACY,
			 doctor_sb_from_mokutil("EFI variables are not "
						"supported on this system\n"));
	assert_int_equal(DOCTOR_SB_ON, doctor_sb_from_efivar(on, 5));
	assert_int_equal(DOCTOR_SB_OFF, doctor_sb_from_efivar(off, 5));
	assert_int_equal(DOCTOR_SB_UNKNOWN, doctor_sb_from_efivar(on, 4));
}

static void unsigned_under_secure_boot_fails(void **state)
{
	struct doctor_signing s = {
		.sb = DOCTOR_SB_ON, .sig_enforce = 0, .signer_known = 1};

	(void)state;
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_FAIL, status_of("signature"));
	assert_what("signature", "Secure Boot is on");
	assert_int_equal(DOCTOR_OK, status_of("secure_boot"));
}

static void unsigned_under_lockdown_fails(void **state)
{
	struct doctor_signing s = {.sb = DOCTOR_SB_LEGACY, .signer_known = 1};

	(void)state;
	strcpy(s.lockdown, "integrity");
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_FAIL, status_of("signature"));
	assert_what("signature", "locked down");
	assert_int_equal(DOCTOR_OK, status_of("lockdown"));
	assert_what("lockdown", "integrity");
}

static void unsigned_where_nothing_requires_it_is_ok(void **state)
{
	struct doctor_signing s = {.sb = DOCTOR_SB_LEGACY, .signer_known = 1};

	(void)state;
	strcpy(s.lockdown, "none");
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_OK, status_of("signature"));
	assert_int_equal(DOCTOR_OK, status_of("secure_boot"));
	assert_what("secure_boot", "legacy BIOS");
}

static void key_not_enrolled_fails(void **state)
{
	struct doctor_signing s = {
		.sb = DOCTOR_SB_ON, .signer_known = 1, .mok_enrolled = 0};

	(void)state;
	strcpy(s.signer, "DKMS module signing key");
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_FAIL, status_of("signature"));
	assert_non_null(strstr(doctor_find(&report, "signature")->fix,
			       "mokutil --import"));
	reset(NULL);
	s.mok_enrolled = 1;
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_OK, status_of("signature"));
}

static void unknown_secure_boot_and_signer_are_not_checked(void **state)
{
	struct doctor_signing s = {.sb = DOCTOR_SB_UNKNOWN,
				   .sb_why = "needs root to check"};

	(void)state;
	doctor_check_signing(&report, &s);
	assert_int_equal(DOCTOR_WARN, status_of("secure_boot"));
	assert_int_equal(DOCTOR_WARN, status_of("signature"));
}

static void ftrace_enabled_values(void **state)
{
	(void)state;
	doctor_check_ftrace_enabled(&report, "1\n");
	assert_int_equal(DOCTOR_OK, status_of("ftrace_enabled"));
	reset(NULL);
	doctor_check_ftrace_enabled(&report, "0\n");
	assert_int_equal(DOCTOR_FAIL, status_of("ftrace_enabled"));
	reset(NULL);
	doctor_check_ftrace_enabled(&report, NULL);
	assert_int_equal(DOCTOR_WARN, status_of("ftrace_enabled"));
}

/* ---- how the ftrace set sees its calls return ---- */

static void return_path_on_the_exit_work_is_ok(void **state)
{
	struct doctor_return_in in = {
		.hooks = FTAGENT_HOOKS_FTRACE,
		.exit_work = 1,
		.param = 1,
		.ftrace_enabled = 1,
	};

	(void)state;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("return_path"));
	assert_what("return_path", "syscall exit work");
	/* The kprobe set has no exit work to fall back from. */
	reset(NULL);
	in.hooks = FTAGENT_HOOKS_KPROBE;
	in.exit_work = 0;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("return_path"));
	assert_what("return_path", "kretprobe");
}

static void return_path_asked_for_the_settle_is_ok(void **state)
{
	struct doctor_return_in in = {
		.hooks = FTAGENT_HOOKS_FTRACE,
		.exit_work = 0,
		.param = 0,
		.ftrace_enabled = 1,
	};

	(void)state;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("return_path"));
	assert_what("return_path", "exit_work=0 was asked for");
}

static void return_path_fallen_back_warns(void **state)
{
	struct doctor_return_in in = {
		.hooks = FTAGENT_HOOKS_FTRACE,
		.exit_work = 0,
		.param = 1,
		.ftrace_enabled = 1,
	};
	const struct doctor_finding *f;

	(void)state;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("return_path"));
	assert_what("return_path", "fell back");
	f = doctor_find(&report, "return_path");
	assert_non_null(strstr(f->fix, "modprobe -r ftagent"));
	/* An unreadable parameter is not taken as "asked for". */
	reset(NULL);
	in.param = -1;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("return_path"));
	/* With the sysctl still 0, the fix sets it first. */
	reset(NULL);
	in.param = 1;
	in.ftrace_enabled = 0;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("return_path"));
	assert_what("return_path", "kernel.ftrace_enabled=0");
	f = doctor_find(&report, "return_path");
	assert_non_null(strstr(f->fix, "sysctl kernel.ftrace_enabled=1"));
}

static void return_path_unknown_is_not_clean(void **state)
{
	struct doctor_return_in in = {
		.hooks = FTAGENT_HOOKS_FTRACE,
		.exit_work = -1,
		.param = 1,
		.ftrace_enabled = 1,
		.why = "needs root to check (the module)",
	};

	(void)state;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("return_path"));
	assert_what("return_path", "needs root");
	reset(NULL);
	in.exit_work = 1;
	in.hooks = -1;
	in.why = NULL;
	doctor_check_return_path(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("return_path"));
}

/* ---- other owners ---- */

static const char *const hooked[] = {"__x64_sys_read", "__x64_sys_pread64"};

/* enabled_functions as 6.1 prints it, with ftagent's own direct calls. */
#define OURS_READ                                                              \
	"__x64_sys_read (1)      D \n"                                         \
	"\tdirect-->ftagent_entry_tramp+0x0/0x40 [ftagent]\n"
#define OURS_PREAD                                                             \
	"__x64_sys_pread64 (1)      D \n"                                      \
	"\tdirect-->ftagent_entry_tramp+0x0/0x40 [ftagent]\n"

static void run_owners(const char *text, int direct_param,
		       const char *const *lps, size_t n_lps)
{
	struct doctor_owners_in in = {
		.enabled_functions = text,
		.hooked = hooked,
		.n_hooked = 2,
		.livepatches = lps,
		.n_livepatches = n_lps,
		.direct_calls_param = direct_param,
	};

	doctor_check_owners(&report, &in);
}

static void only_ftagent_is_clean(void **state)
{
	(void)state;
	run_owners(OURS_READ OURS_PREAD
		   "vfs_read (1) R         \ttramp: 0xffffffffc0 (x)\n"
		   "__x64_sys_write (1)      D \n"
		   "\tdirect-->bpf_trampoline_6442+0x0/0x100\n",
		   1, NULL, 0);
	/* Others' users of functions ftagent does not hook don't matter. */
	assert_int_equal(1, report.n);
	assert_int_equal(DOCTOR_OK, status_of("owners"));
}

static void a_foreign_direct_call_fails(void **state)
{
	(void)state;
	run_owners(OURS_READ
		   "__x64_sys_pread64 (2)      D \ttramp: 0xffff (ftagent_"
		   "entry+0x0/0x90 [ftagent])\n"
		   "\tdirect-->ftagent_holder_tramp+0x0/0x10 "
		   "[ftagent_test_holder]\n",
		   1, NULL, 0);
	assert_int_equal(DOCTOR_FAIL, status_of("owners"));
	assert_what("owners", "__x64_sys_pread64");
	assert_what("owners", "[ftagent_test_holder]");
	/* With direct_calls=0 the operator chose this: a warning. */
	reset(NULL);
	run_owners(OURS_READ "__x64_sys_pread64 (2)      D \n"
			     "\tdirect-->bpf_trampoline_6442+0x0/0x100\n",
		   0, NULL, 0);
	assert_int_equal(DOCTOR_WARN, status_of("owners"));
}

static void an_ipmodify_user_is_named(void **state)
{
	const char *const lps[] = {"livepatch_fix_read"};

	(void)state;
	/* Last line without a newline: still seen. */
	run_owners(OURS_READ "__x64_sys_pread64 (2)    I D \n"
			     "\tdirect-->ftagent_entry_tramp+0x0/0x40 "
			     "[ftagent]",
		   1, lps, 1);
	assert_int_equal(DOCTOR_WARN, status_of("owners"));
	assert_what("owners", "__x64_sys_pread64 has an IPMODIFY user");
	assert_what("owners", "livepatch_fix_read");
}

static void owners_not_readable_is_not_clean(void **state)
{
	struct doctor_owners_in in = {.hooked = hooked,
				      .n_hooked = 2,
				      .why = "needs root to check (tracefs)"};

	(void)state;
	doctor_check_owners(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("owners"));
	assert_what("owners", "not checked: needs root");
}

/* ---- the module, the daemon, the caller ---- */

static void versions_module_not_loaded_fails(void **state)
{
	struct doctor_versions v = {.module_loaded = 0,
				    .ftctl_version = "0.4.0"};

	(void)state;
	doctor_check_versions(&report, &v);
	assert_int_equal(DOCTOR_FAIL, status_of("module"));
	assert_int_equal(DOCTOR_WARN, status_of("versions"));
}

static void versions_abi_and_api(void **state)
{
	struct ftagent_status st = {.abi_major = FTAGENT_ABI_MAJOR,
				    .abi_minor = FTAGENT_ABI_MINOR,
				    .present = FTAGENT_STATUS_HAVE_ABI};
	struct doctor_versions v = {.module_loaded = 1,
				    .module = &st,
				    .daemon_version = "0.4.0",
				    .daemon_api_major = 1,
				    .daemon_api_minor = 2,
				    .ftctl_version = "0.4.0",
				    .ftctl_api_major = 1,
				    .ftctl_api_minor = 2};

	(void)state;
	strcpy(st.module_version, "0.4.0");
	doctor_check_versions(&report, &v);
	assert_int_equal(DOCTOR_OK, status_of("module"));
	assert_int_equal(DOCTOR_OK, status_of("versions"));
	reset(NULL);
	st.abi_major++;
	v.daemon_api_major = 2;
	doctor_check_versions(&report, &v);
	assert_int_equal(DOCTOR_FAIL, status_of("module"));
	assert_int_equal(DOCTOR_FAIL, status_of("versions"));
	reset(NULL);
	st.abi_major--;
	v.daemon_api_major = 1;
	v.daemon_api_minor = 1;
	v.daemon_version = "0.3.0";
	doctor_check_versions(&report, &v);
	assert_int_equal(DOCTOR_WARN, status_of("versions"));
	assert_what("versions", "ftagentd 0.3.0");
}

#define GROUP 4242

static struct doctor_daemon_in healthy_daemon(void)
{
	static const gid_t member[] = {100, GROUP};
	struct doctor_daemon_in in = {
		.socket_path = "/run/ftagent/ftagentd.sock",
		.mode = 0140660,
		.uid = 0,
		.gid = GROUP,
		.group = GROUP,
		.caller_uid = 1000,
		.caller_groups = member,
		.n_caller_groups = 2,
		.call_err = "",
	};

	return in;
}

static void daemon_healthy(void **state)
{
	struct doctor_daemon_in in = healthy_daemon();

	(void)state;
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("daemon"));
	assert_int_equal(DOCTOR_OK, status_of("socket"));
	assert_int_equal(DOCTOR_OK, status_of("caller"));
	assert_int_equal(DOCTOR_OK, doctor_worst(&report));
}

static void daemon_not_running_fails(void **state)
{
	struct doctor_daemon_in in = healthy_daemon();

	(void)state;
	in.call_rc = -ECONNREFUSED;
	in.call_err = "Connection refused";
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("daemon"));
	assert_what("daemon", "not running");
}

static void socket_open_to_all_or_wrong_group_fails(void **state)
{
	struct doctor_daemon_in in = healthy_daemon();

	(void)state;
	in.mode = 0140666;
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("socket"));
	assert_what("socket", "any user");
	reset(NULL);
	in.mode = 0140660;
	in.gid = 0;
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("socket"));
	/* The member of ftagent is kept out of a root:root socket too. */
	assert_int_equal(DOCTOR_FAIL, status_of("caller"));
	reset(NULL);
	in.gid = GROUP;
	in.mode = 0140600;
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("socket"));
}

static void caller_outside_the_group_fails(void **state)
{
	static const gid_t nobody[] = {65534};
	struct doctor_daemon_in in = healthy_daemon();

	(void)state;
	in.caller_uid = 65534;
	in.caller_groups = nobody;
	in.n_caller_groups = 1;
	in.call_rc = -EACCES;
	in.call_err = "Permission denied";
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("caller"));
	assert_non_null(strstr(doctor_find(&report, "caller")->fix,
			       "usermod -aG ftagent"));
	/* Refused, not down: the daemon finding says see the caller one. */
	assert_int_equal(DOCTOR_WARN, status_of("daemon"));
	reset(NULL);
	in.caller_uid = 0;
	doctor_check_daemon(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("caller"));
}

/* ---- hooks ---- */

static struct ftagent_hook_stats hooks_a[3], hooks_b[3];

static void set_hook(struct ftagent_hook_stats *h, const char *name,
		     uint32_t state, uint64_t hits)
{
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->state = state;
	h->hits = hits;
}

static void hooks_setup(struct ftagent_resources *before,
			struct ftagent_resources *after)
{
	memset(before, 0, sizeof(*before));
	memset(after, 0, sizeof(*after));
	set_hook(&hooks_a[0], "__x64_sys_read", FTAGENT_HOOK_VERIFIED, 10);
	set_hook(&hooks_a[1], "__x64_sys_pread64", FTAGENT_HOOK_ATTACHED, 0);
	set_hook(&hooks_a[2], "__x64_sys_openat2", FTAGENT_HOOK_DETACHED, 0);
	memcpy(hooks_b, hooks_a, sizeof(hooks_a));
	hooks_b[0].hits = 11;
	hooks_b[1].hits = 1;
	hooks_b[1].state = FTAGENT_HOOK_VERIFIED;
	before->hook = hooks_a;
	after->hook = hooks_b;
	before->n_hooks = after->n_hooks = 3;
}

static void hooks_that_fire_are_ok(void **state)
{
	struct ftagent_resources before, after;

	(void)state;
	hooks_setup(&before, &after);
	doctor_check_hooks(&report, &before, &after, NULL);
	assert_int_equal(DOCTOR_OK, status_of("hooks"));
	assert_what("hooks", "2 hooks attached");
}

static void a_verified_hook_gone_silent_fails(void **state)
{
	struct ftagent_resources before, after;

	(void)state;
	hooks_setup(&before, &after);
	/* Verified long ago, but our call did not go through it now. */
	hooks_b[0].hits = 10;
	doctor_check_hooks(&report, &before, &after, NULL);
	assert_int_equal(DOCTOR_FAIL, status_of("hooks"));
	assert_what("hooks", "1 of 2 attached hooks did not fire");
	assert_what("hooks", "__x64_sys_read");
}

static void a_failed_hook_fails(void **state)
{
	struct ftagent_resources before, after;

	(void)state;
	hooks_setup(&before, &after);
	hooks_b[1].state = FTAGENT_HOOK_FAILED;
	doctor_check_hooks(&report, &before, &after, NULL);
	assert_int_equal(DOCTOR_FAIL, status_of("hooks"));
	assert_what("hooks", "1 hooks failed to attach: __x64_sys_pread64");
}

static void no_hook_attached_fails(void **state)
{
	struct ftagent_resources before, after;

	(void)state;
	hooks_setup(&before, &after);
	before.n_hooks = after.n_hooks = 0;
	doctor_check_hooks(&report, &before, &after, NULL);
	assert_int_equal(DOCTOR_FAIL, status_of("hooks"));
	reset(NULL);
	doctor_check_hooks(&report, NULL, NULL, "needs root to check");
	assert_int_equal(DOCTOR_WARN, status_of("hooks"));
}

/* ---- loss and tables ---- */

static void loss_in_the_last_hour(void **state)
{
	struct doctor_loss_in in = {.known = 1, .window_s = 3600};

	(void)state;
	doctor_check_loss(&report, &in);
	assert_int_equal(DOCTOR_OK, status_of("loss"));
	assert_what("loss", "last 60 min");
	reset(NULL);
	in.events = 12;
	doctor_check_loss(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("loss"));
	assert_what("loss", "12 event records and 0 counts");
	reset(NULL);
	in.events = 0;
	in.counters = 3;
	in.window_s = 125;
	doctor_check_loss(&report, &in);
	assert_int_equal(DOCTOR_FAIL, status_of("loss"));
	assert_what("loss", "last 3 min");
	reset(NULL);
	in.known = 0;
	in.why = "ftagentd did not answer";
	doctor_check_loss(&report, &in);
	assert_int_equal(DOCTOR_WARN, status_of("loss"));
}

static void tables_near_full_and_full(void **state)
{
	struct doctor_table t[] = {
		{"processes", 57, 4096, 0},
		{"sockets", 100, 16384, 0},
	};

	(void)state;
	doctor_check_tables(&report, t, 2, NULL, NULL);
	assert_int_equal(DOCTOR_OK, status_of("tables"));
	reset(NULL);
	t[1].used = 15000; /* 91 % */
	doctor_check_tables(&report, t, 2, NULL, NULL);
	assert_int_equal(DOCTOR_WARN, status_of("tables"));
	assert_what("tables", "sockets table is near full");
	assert_non_null(strstr(doctor_find(&report, "tables")->fix,
			       "[limits] sockets"));
	reset(NULL);
	t[1].used = 16384;
	t[1].evicted = 40;
	doctor_check_tables(&report, t, 2, NULL, NULL);
	assert_int_equal(DOCTOR_FAIL, status_of("tables"));
	assert_what("tables", "40 rows evicted");
	reset(NULL);
	doctor_check_tables(&report, NULL, 0, "ftagentd did not answer", NULL);
	assert_int_equal(DOCTOR_WARN, status_of("tables"));
}

static void kernel_counter_table_near_full_warns(void **state)
{
	struct ftagent_cpu_stats cpus[2] = {{.peak = 10}, {.peak = 950}};
	struct ftagent_resources res = {
		.table_capacity = 1000, .cpus = cpus, .n_cpus = 2};
	struct doctor_table t[] = {{"processes", 1, 4096, 0}};

	(void)state;
	doctor_check_tables(&report, t, 1, NULL, &res);
	assert_int_equal(DOCTOR_WARN, status_of("tables"));
	assert_what("tables", "950 of 1000");
}

static void exit_follows_the_worst(void **state)
{
	(void)state;
	doctor_add(&report, "a", DOCTOR_OK, NULL, "fine");
	doctor_add(&report, "b", DOCTOR_WARN, "x", "hm");
	assert_int_equal(DOCTOR_WARN, doctor_worst(&report));
	doctor_add(&report, "c", DOCTOR_FAIL, "y", "bad");
	assert_int_equal(DOCTOR_FAIL, doctor_worst(&report));
	assert_string_equal("fail", doctor_status_name(DOCTOR_FAIL));
}

#define T(f) cmocka_unit_test_setup(f, reset)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(dkms_installed_for_both_is_ok),
		T(dkms_old_format_is_read),
		T(dkms_missing_the_newest_kernel_fails),
		T(dkms_missing_the_running_kernel_fails),
		T(no_dkms_or_not_through_dkms_is_a_warning),
		T(newest_kernel_is_by_version),
		T(lockdown_level_is_the_bracketed_one),
		T(secure_boot_sources),
		T(unsigned_under_secure_boot_fails),
		T(unsigned_under_lockdown_fails),
		T(unsigned_where_nothing_requires_it_is_ok),
		T(key_not_enrolled_fails),
		T(unknown_secure_boot_and_signer_are_not_checked),
		T(ftrace_enabled_values),
		T(return_path_on_the_exit_work_is_ok),
		T(return_path_asked_for_the_settle_is_ok),
		T(return_path_fallen_back_warns),
		T(return_path_unknown_is_not_clean),
		T(only_ftagent_is_clean),
		T(a_foreign_direct_call_fails),
		T(an_ipmodify_user_is_named),
		T(owners_not_readable_is_not_clean),
		T(versions_module_not_loaded_fails),
		T(versions_abi_and_api),
		T(daemon_healthy),
		T(daemon_not_running_fails),
		T(socket_open_to_all_or_wrong_group_fails),
		T(caller_outside_the_group_fails),
		T(hooks_that_fire_are_ok),
		T(a_verified_hook_gone_silent_fails),
		T(a_failed_hook_fails),
		T(no_hook_attached_fails),
		T(loss_in_the_last_hour),
		T(tables_near_full_and_full),
		T(kernel_counter_table_near_full_warns),
		T(exit_follows_the_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
