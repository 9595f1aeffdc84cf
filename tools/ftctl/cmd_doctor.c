// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl doctor: what is wrong with ftagent on this host, and what to do.
 * This file gathers the facts (the module over netlink, the daemon over
 * its socket, the host through doctor_host.c), hands them to the checks
 * in tools/lib/doctor*.c, and prints the findings. A check that needs a
 * privilege the caller lacks says "not checked" (warn), never "clean".
 *
 * Exit: 0 when nothing failed (warnings are printed but need no action
 * to keep ftagent working), 1 when a check failed, 2 on a usage error.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "../lib/api_client.h"
#include "../lib/api_version.h"
#include "../lib/counters.h"
#include "../lib/doctor.h"
#include "../lib/module_view.h"
#include "../lib/selfcheck.h"
#include "../lib/status.h"
#include "doctor_host.h"
#include "ftctl.h"
#include "human.h"

#define EFI_SECURE_BOOT                                                        \
	"/sys/firmware/efi/efivars/"                                           \
	"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define DKMS_MOK_PUB "/var/lib/dkms/mok.pub"
#define KERNELS_MAX  64
#define HOOKED_MAX   128
#define NOT_ROOT     "needs root to check"

/* What the daemon said, once: its stats reply (NULL when it did not). */
struct daemon_facts {
	struct json_object *stats;
	int rc;
	char err[256];
};

/* ---- the module, ftctl and the daemon ---- */

static void check_versions(struct doctor_report *r,
			   const struct daemon_facts *d,
			   struct ftagent_status *st)
{
	struct doctor_versions v = {
		.ftctl_version = FTAGENTD_VERSION,
		.ftctl_api_major = FTAGENT_API_MAJOR,
		.ftctl_api_minor = FTAGENT_API_MINOR,
		.module = st,
	};
	char why[384];
	struct ftnl_error err;

	if (ftagent_query_version(st, &err) == 0) {
		v.module_loaded = 1;
	} else if (err.err == ENOENT && !err.msg[0]) {
		v.module_loaded = 0;
	} else {
		v.module_loaded = -1;
		v.module_why = ftnl_format_error(&err, why, sizeof(why));
	}
	if (d->stats) {
		v.daemon_version = ftctl_jstr(d->stats, "daemon.version");
		v.daemon_api_major = ftagent_api_reply_major(d->stats);
		/* No api_version: a 1.0 daemon. */
		v.daemon_api_minor =
			(int)ftctl_ji64(d->stats, "api_version.minor");
	}
	doctor_check_versions(r, &v);
}

static void check_daemon(struct doctor_report *r, const struct daemon_facts *d)
{
	struct doctor_daemon_in in = {
		.socket_path = ftagent_api_socket_path(),
		.call_rc = d->rc,
		.call_err = d->err,
		.caller_uid = geteuid(),
		.group = (gid_t)-1,
	};
	gid_t groups[256 + 1];
	struct group *gr = getgrnam("ftagent");
	struct stat sb;
	int n;

	if (gr)
		in.group = gr->gr_gid;
	if (stat(in.socket_path, &sb) < 0) {
		in.stat_errno = errno;
	} else {
		in.mode = sb.st_mode;
		in.uid = sb.st_uid;
		in.gid = sb.st_gid;
	}
	n = getgroups(256, groups);
	if (n < 0)
		n = 0;
	groups[n++] = getegid();
	in.caller_groups = groups;
	in.n_caller_groups = (size_t)n;
	doctor_check_daemon(r, &in);
}

/*
 * The module's resources: root asks the module; anyone else takes the
 * daemon's sample of them (at most a second old), when it answers.
 * 0, or -1 with @why.
 */
static int read_resources(struct ftagent_resources *res, const char **why)
{
	struct json_object *reply = NULL;
	struct ftagent_status st;
	struct ftnl_error err;
	struct ftnl stats;
	char msg[256];
	int rc;

	memset(res, 0, sizeof(*res));
	if (geteuid() == 0) {
		if (ftnl_open(&stats, FTAGENT_GENL_STATS_NAME, &err) < 0) {
			*why = "the module's stats family did not open";
			return -1;
		}
		rc = ftagent_get_resources(&stats, res, &err);
		ftnl_close(&stats);
		if (rc < 0)
			*why = "the module refused GET_RESOURCES";
		return rc < 0 ? -1 : 0;
	}
	if (ftctl_daemon_cmd("stats", &reply, msg, sizeof(msg)) ||
	    ftagent_module_view_parse(ftctl_jget(reply, "module"), &st, res) <
		    0) {
		json_object_put(reply);
		*why = NOT_ROOT " (the module), and ftagentd did not give its "
				"sample";
		return -1;
	}
	json_object_put(reply);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Hooks proven firing, and the names of those attached (for owners). */
static void check_hooks(struct doctor_report *r, int module_loaded,
			struct ftagent_resources *after, int *have_after)
{
	struct ftagent_resources before;
	const char *why = "the module is not loaded";

	*have_after = 0;
	if (module_loaded && read_resources(&before, &why) == 0) {
		ftagent_call_every_traced_syscall();
		/* The daemon samples the module at most once a second. */
		if (geteuid() != 0)
			sleep_ms(1100);
		if (read_resources(after, &why) == 0)
			*have_after = 1;
		doctor_check_hooks(r, &before, *have_after ? after : NULL, why);
		ftagent_resources_free(&before);
		return;
	}
	doctor_check_hooks(r, NULL, NULL, why);
}

static void check_loss_and_tables(struct doctor_report *r,
				  const struct daemon_facts *d,
				  const struct ftagent_resources *res)
{
	struct doctor_table tables[8];
	struct doctor_loss_in loss = {0};
	struct json_object *w, *t;
	size_t n = 0;
	char why[160];

	w = d->stats ? ftctl_jget(d->stats, "collector.loss_last_hour") : NULL;
	if (w && json_object_get_type(w) == json_type_object) {
		loss.known = 1;
		loss.window_s = ftctl_ju64(w, "window_s");
		loss.events = ftctl_ju64(w, "events");
		loss.counters = ftctl_ju64(w, "counters");
	} else if (!d->stats) {
		loss.why = "ftagentd did not answer";
	} else {
		snprintf(why, sizeof(why),
			 "ftagentd %s keeps no hourly loss figure (API 1.2 "
			 "has it)",
			 ftctl_jstr(d->stats, "daemon.version"));
		loss.why = why;
	}
	doctor_check_loss(r, &loss);

	t = d->stats ? ftctl_jget(d->stats, "collector.tables") : NULL;
	if (t && json_object_get_type(t) == json_type_object) {
		json_object_object_foreach(t, name, v)
		{
			if (n == sizeof(tables) / sizeof(tables[0]))
				break;
			tables[n].name = name;
			tables[n].used = ftctl_ju64(v, "used");
			tables[n].capacity = ftctl_ju64(v, "capacity");
			tables[n].evicted = ftctl_ju64(v, "evicted");
			n++;
		}
	}
	doctor_check_tables(r, t ? tables : NULL, n, "ftagentd did not answer",
			    res);
}

/* ---- the host ---- */

static void check_dkms(struct doctor_report *r)
{
	static const char *const argv[] = {"dkms", "status", "-m", "ftagent",
					   NULL};
	char *kernels[KERNELS_MAX], *out;
	struct utsname u;
	size_t n, i;
	int status;

	uname(&u);
	out = doctor_run(argv, &status);
	n = doctor_installed_kernels(kernels, KERNELS_MAX);
	doctor_check_dkms(
		r, out, u.release,
		doctor_newest_kernel((const char *const *)kernels, n));
	for (i = 0; i < n; i++)
		free(kernels[i]);
	free(out);
}

static int read_sig_enforce(void)
{
	char *s = doctor_read_file("/sys/module/module/parameters/sig_enforce",
				   16, NULL);
	int v = s ? s[0] == 'Y' || s[0] == '1' : -1;

	free(s);
	return v;
}

static void read_secure_boot(struct doctor_signing *s)
{
	static const char *const argv[] = {"mokutil", "--sb-state", NULL};
	unsigned char *var;
	char *out;
	size_t len;
	int status;

	out = doctor_run(argv, &status);
	if (out) {
		s->sb = doctor_sb_from_mokutil(out);
		s->sb_why = "mokutil --sb-state said neither enabled nor "
			    "disabled";
		free(out);
		if (s->sb != DOCTOR_SB_UNKNOWN)
			return;
	}
	if (access("/sys/firmware/efi", F_OK) < 0) {
		s->sb = DOCTOR_SB_LEGACY;
		return;
	}
	var = (unsigned char *)doctor_read_file(EFI_SECURE_BOOT, 16, &len);
	if (var) {
		s->sb = doctor_sb_from_efivar(var, len);
		s->sb_why = "the SecureBoot EFI variable has an odd size";
	} else {
		s->sb = DOCTOR_SB_UNKNOWN;
		s->sb_why = errno == ENOENT
				    ? "EFI without a SecureBoot variable"
			    : errno == EACCES ? NOT_ROOT
					      : "the SecureBoot EFI variable "
						"is unreadable";
	}
	free(var);
}

static void read_signer(struct doctor_signing *s)
{
	static const char *const argv[] = {"modinfo", "-F", "signer", "ftagent",
					   NULL};
	static const char *const mok[] = {"mokutil", "--test-key", DKMS_MOK_PUB,
					  NULL};
	char *out;
	int status;

	out = doctor_run(argv, &status);
	s->signer_known = out && status == 0;
	if (s->signer_known)
		snprintf(s->signer, sizeof(s->signer), "%.*s",
			 (int)strcspn(out, "\n"), out);
	free(out);
	s->mok_enrolled = -1;
	if (access(DKMS_MOK_PUB, R_OK) < 0)
		return;
	out = doctor_run(mok, &status);
	if (out && strstr(out, "is already enrolled"))
		s->mok_enrolled = 1;
	else if (out && strstr(out, "is not enrolled"))
		s->mok_enrolled = 0;
	free(out);
}

static void check_signing(struct doctor_report *r)
{
	struct doctor_signing s = {0};
	char *text =
		doctor_read_file("/sys/kernel/security/lockdown", 256, NULL);

	if (text &&
	    doctor_lockdown_level(text, s.lockdown, sizeof(s.lockdown)) < 0)
		s.lockdown[0] = 0;
	free(text);
	read_secure_boot(&s);
	s.sig_enforce = read_sig_enforce();
	read_signer(&s);
	doctor_check_signing(r, &s);
}

static void check_ftrace_enabled(struct doctor_report *r)
{
	char *text =
		doctor_read_file("/proc/sys/kernel/ftrace_enabled", 16, NULL);

	doctor_check_ftrace_enabled(r, text);
	free(text);
}

static char *read_enabled_functions(const char **why)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/enabled_functions",
		"/sys/kernel/debug/tracing/enabled_functions",
	};
	int denied = 0;
	size_t i;
	char *text;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		text = doctor_read_file(paths[i], 16u << 20, NULL);
		if (text)
			return text;
		denied |= errno == EACCES || errno == EPERM;
	}
	*why = denied ? NOT_ROOT " (tracefs)"
		      : "tracefs is not mounted (mount -t tracefs nodev "
			"/sys/kernel/tracing)";
	return NULL;
}

static void check_owners(struct doctor_report *r,
			 const struct ftagent_resources *res)
{
	struct doctor_owners_in in = {.direct_calls_param = -1};
	const char *hooked[HOOKED_MAX];
	char *lps[16], *param;
	size_t i, n = 0;

	for (i = 0; res && i < res->n_hooks && n < HOOKED_MAX; i++)
		if (res->hook[i].state != FTAGENT_HOOK_DETACHED)
			hooked[n++] = res->hook[i].name;
	in.hooked = res ? hooked : NULL;
	in.n_hooked = n;
	in.why = "which functions ftagent hooks is not known (see hooks)";
	if (res)
		in.enabled_functions = read_enabled_functions(&in.why);
	in.n_livepatches = doctor_list_dir("/sys/kernel/livepatch", lps, 16);
	in.livepatches = (const char *const *)lps;
	param = doctor_read_file("/sys/module/ftagent/parameters/direct_calls",
				 16, NULL);
	if (param)
		in.direct_calls_param = param[0] == 'Y' || param[0] == '1';
	doctor_check_owners(r, &in);
	free(param);
	free((char *)in.enabled_functions);
	for (i = 0; i < in.n_livepatches; i++)
		free(lps[i]);
}

/*
 * The module's status (its EXIT_WORK): root asks the module (GET_STATUS
 * needs CAP_NET_ADMIN); anyone else takes the daemon's view of it. 0, or
 * -1 with @why.
 */
static int read_status(struct ftagent_status *st, const char **why)
{
	struct ftagent_resources res = {0};
	struct json_object *reply = NULL;
	struct ftnl_error err;
	char msg[256];
	int rc;

	memset(st, 0, sizeof(*st));
	if (geteuid() == 0) {
		if (ftagent_query_status(st, &err) < 0) {
			*why = "the module refused GET_STATUS";
			return -1;
		}
		return 0;
	}
	rc = ftctl_daemon_cmd("stats", &reply, msg, sizeof(msg)) ||
	     ftagent_module_view_parse(ftctl_jget(reply, "module"), st, &res) <
		     0;
	ftagent_resources_free(&res);
	json_object_put(reply);
	if (rc) {
		*why = NOT_ROOT " (the module), and ftagentd did not give its "
				"view";
		return -1;
	}
	return 0;
}

/* Whether the ftrace set fell back from the exit work it was asked for. */
static void check_return_path(struct doctor_report *r,
			      const struct ftagent_resources *res)
{
	struct doctor_return_in in = {
		.hooks = res ? (int)res->hooks : -1,
		.exit_work = -1,
		.param = -1,
		.ftrace_enabled = -1,
		.why = "the module's hooks are not known (see hooks)",
	};
	struct ftagent_status st;
	char *text;

	if (res && read_status(&st, &in.why) == 0) {
		if (st.present & FTAGENT_STATUS_HAVE_EXIT_WORK)
			in.exit_work = st.exit_work;
		else
			in.why = "the module is older than ABI 0.7 and does "
				 "not say";
	}
	text = doctor_read_file("/sys/module/ftagent/parameters/exit_work", 16,
				NULL);
	if (text)
		in.param = text[0] == 'Y' || text[0] == '1';
	free(text);
	text = doctor_read_file("/proc/sys/kernel/ftrace_enabled", 16, NULL);
	if (text)
		in.ftrace_enabled = atoi(text) == 1;
	free(text);
	doctor_check_return_path(r, &in);
}

/* ---- output ---- */

/*
 * @first, a space, then @text wrapped at 80 columns, each further line
 * indented to @indent (where the text of the first line starts).
 */
static void print_wrapped(const char *first, const char *text, int indent)
{
	int col = printf("%s", first), width, fresh = 0;
	const char *p = text;

	while (*p) {
		width = (int)strcspn(p, " ");
		if (!fresh && col + 1 + width > FTCTL_COLUMNS && col > indent) {
			col = printf("\n%*s", indent, "") - 1;
			fresh = 1;
		}
		if (!fresh) {
			putchar(' ');
			col++;
		}
		col += printf("%.*s", width, p);
		fresh = 0;
		p += width;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

static void print_text(const struct doctor_report *r)
{
	unsigned int count[3] = {0};
	char head[64], shown[DOCTOR_TEXT_MAX];
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct doctor_finding *f = &r->f[i];

		count[f->status]++;
		snprintf(head, sizeof(head), "%-5s %-14s",
			 f->status == DOCTOR_FAIL   ? "FAIL"
			 : f->status == DOCTOR_WARN ? "warn"
						    : "ok",
			 f->check);
		/* What the kernel or a file named: text, never controls. */
		print_wrapped(head,
			      ftctl_printable(f->what, shown, sizeof(shown)),
			      21);
		if (f->fix[0])
			print_wrapped(
				"                     fix:",
				ftctl_printable(f->fix, shown, sizeof(shown)),
				26);
	}
	printf("%s: %u ok, %u warnings, %u failed\n",
	       count[DOCTOR_FAIL] ? "NEEDS ACTION" : "healthy",
	       count[DOCTOR_OK], count[DOCTOR_WARN], count[DOCTOR_FAIL]);
}

static void print_json(const struct doctor_report *r)
{
	struct json_object *all = json_object_new_array();
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct doctor_finding *f = &r->f[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "check",
				       json_object_new_string(f->check));
		json_object_object_add(
			o, "status",
			json_object_new_string(doctor_status_name(f->status)));
		json_object_object_add(o, "what",
				       json_object_new_string(f->what));
		json_object_object_add(
			o, "fix",
			f->fix[0] ? json_object_new_string(f->fix) : NULL);
		json_object_array_add(all, o);
	}
	puts(json_object_to_json_string_ext(
		all, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(all);
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct doctor_report *r;
	struct ftagent_resources res;
	struct ftagent_status st;
	struct daemon_facts d = {0};
	int first, have_res, worst;

	first = ftctl_parse_options(&ftctl_cmd_doctor, opts, argc, argv, NULL,
				    NULL);
	if (first < 0)
		return ftctl_parse_exit(first);
	if (first != argc)
		return ftctl_usage_error(&ftctl_cmd_doctor,
					 "takes no arguments");
	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "ftctl: doctor: out of memory\n");
		return FTCTL_FAILED;
	}
	memset(&st, 0, sizeof(st));
	d.rc = ftctl_daemon_cmd("stats", &d.stats, d.err, sizeof(d.err));
	check_dkms(r);
	check_versions(r, &d, &st);
	check_daemon(r, &d);
	check_signing(r);
	check_ftrace_enabled(r);
	check_hooks(r, st.present & FTAGENT_STATUS_HAVE_ABI, &res, &have_res);
	check_owners(r, have_res ? &res : NULL);
	check_return_path(r, have_res ? &res : NULL);
	check_loss_and_tables(r, &d, have_res ? &res : NULL);
	if (opts->json)
		print_json(r);
	else
		print_text(r);
	worst = doctor_worst(r);
	if (have_res)
		ftagent_resources_free(&res);
	json_object_put(d.stats);
	free(r);
	return worst == DOCTOR_FAIL ? FTCTL_FAILED : FTCTL_OK;
}

const struct ftctl_command ftctl_cmd_doctor = {
	.name = "doctor",
	.summary = "what is wrong with ftagent here, and what to do",
	.usage = "doctor",
	.run = run,
};
