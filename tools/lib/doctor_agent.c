// SPDX-License-Identifier: GPL-2.0
/*
 * doctor's checks of ftagent itself: the module, ftagentd and ftctl
 * (versions and ABIs), the daemon's socket and who may use it, the hooks,
 * loss in the last hour and tables near full.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api_client.h"
#include "doctor.h"
#include "selfcheck.h"

#define DOC_INSTALL "docs/install.md"
#define FIX_UPGRADE                                                            \
	"install the module, ftagentd and ftctl of one release: make "         \
	"dkms-install && make install (" DOC_INSTALL ")"

static void check_module(struct doctor_report *r,
			 const struct doctor_versions *v)
{
	const struct ftagent_status *m = v->module;

	if (v->module_loaded == 0) {
		doctor_add(r, "module", DOCTOR_FAIL,
			   "modprobe ftagent (" DOC_INSTALL ")",
			   "the ftagent module is not loaded");
		return;
	}
	if (v->module_loaded < 0) {
		doctor_add(r, "module", DOCTOR_FAIL,
			   "ftctl version; dmesg | grep ftagent",
			   "the module did not answer: %s",
			   v->module_why ? v->module_why : "unknown");
		return;
	}
	if (!ftagent_abi_compatible(m)) {
		doctor_add(r, "module", DOCTOR_FAIL, FIX_UPGRADE,
			   "the module speaks ABI %u.%u, this ftctl %s: they "
			   "cannot work together",
			   m->abi_major, m->abi_minor, FTAGENT_ABI_STRING);
		return;
	}
	if (m->abi_minor != FTAGENT_ABI_MINOR)
		doctor_add(r, "module", DOCTOR_WARN, FIX_UPGRADE,
			   "ftagent %s loaded, ABI %u.%u; this ftctl speaks "
			   "%s: what the %s one adds is not used",
			   m->module_version, m->abi_major, m->abi_minor,
			   FTAGENT_ABI_STRING,
			   m->abi_minor < FTAGENT_ABI_MINOR ? "newer ftctl's"
							    : "newer module's");
	else
		doctor_add(r, "module", DOCTOR_OK, NULL,
			   "ftagent %s loaded, ABI %u.%u (ftctl speaks %s)",
			   m->module_version, m->abi_major, m->abi_minor,
			   FTAGENT_ABI_STRING);
}

static void check_daemon_version(struct doctor_report *r,
				 const struct doctor_versions *v)
{
	const char *module =
		v->module_loaded == 1 ? v->module->module_version : "?";

	if (!v->daemon_version) {
		doctor_add(r, "versions", DOCTOR_WARN, "see the daemon finding",
			   "ftagentd's version not known (it did not answer); "
			   "module %s, ftctl %s",
			   module, v->ftctl_version);
		return;
	}
	if (v->daemon_api_major != v->ftctl_api_major) {
		doctor_add(r, "versions", DOCTOR_FAIL, FIX_UPGRADE,
			   "ftagentd %s speaks API %d.%d, ftctl %s API %d.%d: "
			   "they cannot work together",
			   v->daemon_version, v->daemon_api_major,
			   v->daemon_api_minor, v->ftctl_version,
			   v->ftctl_api_major, v->ftctl_api_minor);
		return;
	}
	if (v->daemon_api_minor < v->ftctl_api_minor ||
	    strcmp(v->daemon_version, v->ftctl_version) ||
	    (v->module_loaded == 1 && strcmp(module, v->ftctl_version))) {
		doctor_add(r, "versions", DOCTOR_WARN, FIX_UPGRADE,
			   "module %s, ftagentd %s (API %d.%d), ftctl %s (API "
			   "%d.%d): not one release",
			   module, v->daemon_version, v->daemon_api_major,
			   v->daemon_api_minor, v->ftctl_version,
			   v->ftctl_api_major, v->ftctl_api_minor);
		return;
	}
	doctor_add(r, "versions", DOCTOR_OK, NULL,
		   "module %s, ftagentd %s, ftctl %s; API %d.%d", module,
		   v->daemon_version, v->ftctl_version, v->daemon_api_major,
		   v->daemon_api_minor);
}

void doctor_check_versions(struct doctor_report *r,
			   const struct doctor_versions *v)
{
	check_module(r, v);
	check_daemon_version(r, v);
}

#define FIX_SOCKET                                                             \
	"systemctl restart ftagentd (it makes the socket root:ftagent "        \
	"0660), and find what changed it"

static void check_socket(struct doctor_report *r,
			 const struct doctor_daemon_in *in)
{
	mode_t perm = in->mode & 07777;

	if (in->stat_errno) {
		doctor_add(r, "socket", DOCTOR_WARN, "see the daemon finding",
			   "%s: %s", in->socket_path, strerror(in->stat_errno));
		return;
	}
	if (in->group == (gid_t)-1) {
		doctor_add(r, "socket", DOCTOR_WARN,
			   "groupadd --system ftagent && systemctl restart "
			   "ftagentd (" DOC_INSTALL ", The daemon)",
			   "no ftagent group: only root may use ftagentd's "
			   "socket %s (mode %04o)",
			   in->socket_path, (unsigned int)perm);
		return;
	}
	if (perm & 0007)
		doctor_add(r, "socket", DOCTOR_FAIL, FIX_SOCKET,
			   "%s is mode %04o: any user can read what every "
			   "process does",
			   in->socket_path, (unsigned int)perm);
	else if (in->uid != 0 || in->gid != in->group || perm != 0660)
		doctor_add(r, "socket", DOCTOR_FAIL, FIX_SOCKET,
			   "%s is uid %u gid %u mode %04o, not root:ftagent "
			   "(gid %u) 0660: members of ftagent are kept out",
			   in->socket_path, (unsigned int)in->uid,
			   (unsigned int)in->gid, (unsigned int)perm,
			   (unsigned int)in->group);
	else
		doctor_add(r, "socket", DOCTOR_OK, NULL,
			   "%s is root:ftagent 0660", in->socket_path);
}

static int in_groups(const struct doctor_daemon_in *in, gid_t g)
{
	size_t i;

	for (i = 0; i < in->n_caller_groups; i++)
		if (in->caller_groups[i] == g)
			return 1;
	return 0;
}

static void check_caller(struct doctor_report *r,
			 const struct doctor_daemon_in *in)
{
	/* The group that counts is the socket's, when it could be read. */
	gid_t g = in->stat_errno ? in->group : in->gid;

	if (in->caller_uid == 0) {
		doctor_add(r, "caller", DOCTOR_OK, NULL, "running as root");
		return;
	}
	if (g == (gid_t)-1 || (!in->stat_errno && g == 0)) {
		doctor_add(r, "caller", DOCTOR_FAIL,
			   "run ftctl as root, or create the ftagent group "
			   "(" DOC_INSTALL ", The daemon)",
			   "uid %u: the daemon's socket is open to root only",
			   (unsigned int)in->caller_uid);
		return;
	}
	if (!in_groups(in, g)) {
		doctor_add(r, "caller", DOCTOR_FAIL,
			   "usermod -aG ftagent $USER, then log in again (or "
			   "run as root)",
			   "uid %u is not in the socket's group (gid %u): "
			   "ftctl's daemon commands are refused",
			   (unsigned int)in->caller_uid, (unsigned int)g);
		return;
	}
	doctor_add(r, "caller", DOCTOR_OK, NULL,
		   "uid %u is in the socket's group (gid %u)",
		   (unsigned int)in->caller_uid, (unsigned int)g);
}

void doctor_check_daemon(struct doctor_report *r,
			 const struct doctor_daemon_in *in)
{
	if (!in->call_rc)
		doctor_add(r, "daemon", DOCTOR_OK, NULL,
			   "ftagentd answers on %s", in->socket_path);
	else if (ftagent_api_not_running(in->call_rc))
		doctor_add(r, "daemon", DOCTOR_FAIL,
			   "systemctl start ftagentd; journalctl -u ftagentd "
			   "says why it stopped",
			   "ftagentd is not running (socket %s: %s)",
			   in->socket_path, in->call_err);
	else if (in->call_rc == -EACCES || in->call_rc == -ECONNRESET)
		doctor_add(r, "daemon", DOCTOR_WARN, "see the caller finding",
			   "ftagentd did not let this user in (socket %s: %s)",
			   in->socket_path, in->call_err);
	else
		doctor_add(r, "daemon", DOCTOR_FAIL,
			   "journalctl -u ftagentd; systemctl restart ftagentd",
			   "ftagentd did not answer (socket %s: %s)",
			   in->socket_path, in->call_err);
	check_socket(r, in);
	check_caller(r, in);
}

/* Append @name to @list (", "-separated), "..." once it is full. */
static void list_add(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	if (len + strlen(name) + 8 >= size) {
		if (len + 4 < size && !strstr(list, "..."))
			strcat(list, ", ...");
		return;
	}
	snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

void doctor_check_hooks(struct doctor_report *r,
			const struct ftagent_resources *before,
			const struct ftagent_resources *after, const char *why)
{
	char failed[200] = "", silent[200] = "";
	unsigned int n_failed = 0, n_silent = 0, n_live = 0;
	size_t i;

	if (!after) {
		doctor_add(r, "hooks", DOCTOR_WARN,
			   why && strstr(why, "root")
				   ? "run ftctl doctor as root, or ftctl "
				     "selfcheck"
				   : "see the module finding",
			   "hooks not checked: %s", why ? why : "unknown");
		return;
	}
	for (i = 0; i < after->n_hooks; i++) {
		const struct ftagent_hook_stats *h = &after->hook[i];

		if (h->state == FTAGENT_HOOK_DETACHED ||
		    ftagent_hook_not_applicable(h))
			continue;
		if (h->state == FTAGENT_HOOK_FAILED) {
			n_failed++;
			list_add(failed, sizeof(failed), h->name);
			continue;
		}
		n_live++;
		/* Our one call of each traced syscall must show as a hit. */
		if (!ftagent_hook_fired(before, h)) {
			n_silent++;
			list_add(silent, sizeof(silent), h->name);
		}
	}
	if (n_failed)
		doctor_add(r, "hooks", DOCTOR_FAIL,
			   "ftctl stats names each errno; docs/hooks.md, "
			   "Kernels; or load with hooks=kprobe",
			   "%u hooks failed to attach: %s", n_failed, failed);
	if (n_silent)
		doctor_add(r, "hooks", DOCTOR_FAIL,
			   "check kernel.ftrace_enabled and the owners "
			   "finding; ftctl selfcheck; docs/hooks.md",
			   "%u of %u attached hooks did not fire on a test "
			   "call: %s",
			   n_silent, n_live, silent);
	if (!n_live && !n_failed)
		doctor_add(r, "hooks", DOCTOR_FAIL,
			   "modprobe -r ftagent && modprobe ftagent; dmesg | "
			   "grep ftagent",
			   "no hook is attached: the module traces nothing");
	else if (!n_failed && !n_silent)
		doctor_add(r, "hooks", DOCTOR_OK, NULL,
			   "%u hooks attached, each fired on a test call",
			   n_live);
}

void doctor_check_loss(struct doctor_report *r, const struct doctor_loss_in *in)
{
	uint64_t min = (in->window_s + 59) / 60;

	if (!in->known) {
		doctor_add(r, "loss", DOCTOR_WARN,
			   "start ftagentd (API 1.2 or newer), then ftctl "
			   "doctor again",
			   "loss in the last hour not checked: %s",
			   in->why ? in->why : "unknown");
		return;
	}
	if (in->events || in->counters)
		doctor_add(r, "loss", DOCTOR_FAIL,
			   "ftctl stats names the causes; raise [agent] "
			   "ring_buffer_size (events) or [limits] "
			   "kernel_counters (counts) (docs/config.md)",
			   "%" PRIu64 " event records and %" PRIu64
			   " counts lost in the last %" PRIu64 " min",
			   in->events, in->counters, min);
	else
		doctor_add(r, "loss", DOCTOR_OK, NULL,
			   "nothing lost in the last %" PRIu64 " min", min);
}

static void check_kernel_table(struct doctor_report *r,
			       const struct ftagent_resources *res)
{
	uint32_t peak = 0;
	size_t i;

	for (i = 0; i < res->n_cpus; i++)
		if (res->cpus[i].peak > peak)
			peak = res->cpus[i].peak;
	if (res->table_capacity &&
	    (uint64_t)peak * 100 >=
		    (uint64_t)res->table_capacity * DOCTOR_NEAR_FULL_PCT)
		doctor_add(r, "tables", DOCTOR_WARN,
			   "raise [limits] kernel_counters, or the module's "
			   "kernel_counters= (docs/memory.md)",
			   "the module's counter table peaked at %u of %u "
			   "keys on its busiest CPU",
			   peak, res->table_capacity);
}

void doctor_check_tables(struct doctor_report *r,
			 const struct doctor_table *tables, size_t n,
			 const char *why, const struct ftagent_resources *res)
{
	size_t i, before = r->n;

	if (!tables)
		doctor_add(r, "tables", DOCTOR_WARN, "see the daemon finding",
			   "ftagentd's tables not checked: %s",
			   why ? why : "unknown");
	for (i = 0; tables && i < n; i++) {
		const struct doctor_table *t = &tables[i];
		char fix[DOCTOR_TEXT_MAX];

		if (!t->capacity ||
		    t->used * 100 < t->capacity * DOCTOR_NEAR_FULL_PCT)
			continue;
		snprintf(fix, sizeof(fix),
			 "raise [limits] %s in /etc/ftagent/ftagent.conf, "
			 "then systemctl restart ftagentd (docs/ftagentd.md, "
			 "Tables)",
			 t->name);
		if (t->used >= t->capacity && t->evicted)
			doctor_add(r, "tables", DOCTOR_FAIL, fix,
				   "the %s table is full (%" PRIu64
				   "): %" PRIu64 " rows evicted since the "
				   "daemon started",
				   t->name, t->capacity, t->evicted);
		else
			doctor_add(r, "tables", DOCTOR_WARN, fix,
				   "the %s table is near full: %" PRIu64
				   " of %" PRIu64,
				   t->name, t->used, t->capacity);
	}
	if (res)
		check_kernel_table(r, res);
	if (r->n == before)
		doctor_add(r, "tables", DOCTOR_OK, NULL,
			   "every table under %d%% full", DOCTOR_NEAR_FULL_PCT);
}
