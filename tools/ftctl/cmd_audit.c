// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl audit: the audit trail, read from its files (docs/audit.md),
 * without the daemon: a member of the ftagent group can read them.
 *
 *   verify [PATH...]  check the hash chain across the files; exit 0 when
 *                     intact, 1 naming the first bad record
 *   show [--since WHEN] [PATH...]  the records, one line each (--json:
 *                     the records' own lines)
 *
 * PATH is the trail's directory ([audit] dir, by default from the config
 * file) or files, taken in the order given.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "../lib/audit_chain.h"
#include "../lib/config.h"
#include "ftctl.h"
#include "human.h"
#include "when.h"

enum {
	OPT_SINCE = FTCTL_OPT_FIRST_LOCAL,
	OPT_CONFIG,
};

static const struct option audit_longopts[] = {
	{"since", required_argument, NULL, OPT_SINCE},
	{"config", required_argument, NULL, OPT_CONFIG},
	{NULL, 0, NULL, 0},
};

static const char *const audit_words[] = {"verify", "show", NULL};

struct audit_args {
	uint64_t now, since;
	const char *config;
	int json;
};

static int on_option(void *ctx, int opt, const char *val)
{
	struct audit_args *a = ctx;

	switch (opt) {
	case OPT_SINCE:
		if (ftctl_parse_when(val, a->now, &a->since) < 0) {
			fprintf(stderr,
				"ftctl: audit: --since: not a time: '%s' "
				"(30s, 5m, 2h, 1d, seconds since the epoch "
				"or 2026-12-01T10:00:00)\n",
				val);
			return -1;
		}
		return 0;
	case OPT_CONFIG: a->config = val; return 0;
	}
	return -1;
}

/* The directory the config file names, or the default one. */
static int default_dir(const struct audit_args *a, char *dir, size_t len)
{
	struct ftagentd_config cfg;
	char why[512];

	if (access(a->config, F_OK) < 0 && errno == ENOENT &&
	    !strcmp(a->config, FTAGENTD_CONFIG_PATH)) {
		snprintf(dir, len, "%s", FTAGENTD_AUDIT_DIR);
		return 0;
	}
	if (ftagentd_config_load(a->config, &cfg, why, sizeof(why)) < 0) {
		fprintf(stderr, "ftctl: audit: %s\n", why);
		return -1;
	}
	snprintf(dir, len, "%s", cfg.audit.dir);
	ftagentd_config_free(&cfg);
	return 0;
}

/* The files to read, in chain order. */
static int collect(const struct audit_args *a, int argc, char **argv,
		   char ***paths, size_t *n)
{
	char dir[256], *dirs[1] = {dir};
	struct stat st;
	int i;

	if (argc == 0) {
		if (default_dir(a, dir, sizeof(dir)) < 0)
			return -1;
		argv = dirs;
		argc = 1;
	}
	if (argc == 1 && stat(argv[0], &st) == 0 && S_ISDIR(st.st_mode)) {
		if (ftagent_audit_list(argv[0], paths, n) < 0) {
			fprintf(stderr, "ftctl: audit: %s: %s\n", argv[0],
				strerror(errno));
			return -1;
		}
		if (!*n) {
			fprintf(stderr, "ftctl: audit: %s: no audit files\n",
				argv[0]);
			return -1;
		}
		return 0;
	}
	*paths = calloc((size_t)argc, sizeof(**paths));
	if (!*paths)
		return -1;
	for (i = 0; i < argc; i++)
		(*paths)[i] = strdup(argv[i]);
	*n = (size_t)argc;
	return 0;
}

static int verify(const struct audit_args *a, char **paths, size_t n)
{
	struct ftagent_audit_verify v;
	struct json_object *o;
	size_t i;
	int rc = 0;

	ftagent_audit_verify_init(&v);
	for (i = 0; i < n && rc == 0; i++)
		rc = ftagent_audit_verify_file(&v, paths[i]);
	if (rc == 0)
		rc = ftagent_audit_verify_end(&v);
	if (a->json) {
		o = json_object_new_object();
		json_object_object_add(o, "intact",
				       json_object_new_boolean(rc == 0));
		json_object_object_add(o, "files",
				       json_object_new_uint64(v.files));
		json_object_object_add(o, "records",
				       json_object_new_uint64(v.records));
		json_object_object_add(o, "first_seq",
				       json_object_new_uint64(v.first_seq));
		json_object_object_add(o, "last_seq",
				       json_object_new_uint64(v.last_seq));
		json_object_object_add(o, "last_hash",
				       json_object_new_string(v.last_hash));
		json_object_object_add(o, "starts_mid_chain",
				       json_object_new_boolean(v.mid_chain));
		json_object_object_add(
			o, "damaged_lines_accounted",
			json_object_new_uint64(v.damaged_accounted));
		if (rc) {
			json_object_object_add(
				o, "bad_file",
				json_object_new_string(v.bad_file));
			json_object_object_add(
				o, "bad_line",
				json_object_new_uint64(v.bad_line));
			json_object_object_add(
				o, "bad_seq",
				v.bad_seq ? json_object_new_uint64(v.bad_seq)
					  : NULL);
			json_object_object_add(
				o, "why", json_object_new_string(v.bad_why));
		}
		puts(json_object_to_json_string_ext(o,
						    JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
		return rc ? FTCTL_FAILED : FTCTL_OK;
	}
	if (rc) {
		char seq[32] = "";

		if (v.bad_seq)
			snprintf(seq, sizeof(seq), " (seq %" PRIu64 ")",
				 v.bad_seq);
		fprintf(stderr, "%s:%" PRIu64 ":%s %s\n", v.bad_file,
			v.bad_line, seq, v.bad_why);
		printf("BROKEN: the chain holds up to seq %" PRIu64 " (%" PRIu64
		       " records checked)\n",
		       v.last_seq, v.records);
		return FTCTL_FAILED;
	}
	printf("intact: %" PRIu64 " records in %" PRIu64 " files, seq %" PRIu64
	       " to %" PRIu64 "\n",
	       v.records, v.files, v.first_seq, v.last_seq);
	printf("last hash: %s\n", v.last_hash);
	if (v.mid_chain)
		printf("note: the first record follows one that is not here "
		       "(older files removed?)\n");
	if (v.damaged_accounted)
		printf("note: %" PRIu64 " line(s) cut by a crash, each named "
		       "by a \"damaged\" record\n",
		       v.damaged_accounted);
	return FTCTL_OK;
}

struct show_ctx {
	const struct audit_args *a;
	uint64_t shown;
};

/* One record in a line: time, seq, kind and the record's own JSON. */
static int show_one(const char *path, uint64_t line,
		    const struct ftagent_audit_rec *r, void *arg)
{
	struct show_ctx *s = arg;
	struct json_object *rec;
	time_t secs = (time_t)(r->time_ns / 1000000000ull);
	char when[32], text[4096];
	struct tm tm;

	(void)path;
	(void)line;
	if (r->time_ns < s->a->since)
		return 0;
	s->shown++;
	if (s->a->json) {
		puts(json_object_to_json_string_ext(r->json,
						    JSON_C_TO_STRING_PLAIN));
		return 0;
	}
	json_object_object_get_ex(r->json, "record", &rec);
	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s %8" PRIu64 " %-8s %s\n", when, r->seq, r->kind,
	       ftctl_printable(json_object_to_json_string_ext(
				       rec, JSON_C_TO_STRING_PLAIN),
			       text, sizeof(text)));
	return 0;
}

/*
 * Records as they are, whether the chain holds or not (verify says
 * that); a line that is not a record is said on stderr and skipped.
 */
static int show(const struct audit_args *a, char **paths, size_t n, int header)
{
	struct show_ctx s = {.a = a};
	struct ftagent_audit_verify v;
	int rc = FTCTL_OK;
	size_t i;

	if (header && !a->json)
		printf("%-19s %8s %-8s %s\n", "TIME", "SEQ", "KIND", "RECORD");
	for (i = 0; i < n; i++) {
		/* Each file on its own: a break does not hide what follows. */
		ftagent_audit_verify_init(&v);
		v.on_record = show_one;
		v.arg = &s;
		if (ftagent_audit_verify_file(&v, paths[i]) < 0) {
			fprintf(stderr,
				"ftctl: audit: %s:%" PRIu64 ": %s; the rest of "
				"this file is not shown (ftctl audit verify)\n",
				v.bad_file, v.bad_line, v.bad_why);
			rc = FTCTL_FAILED;
		}
	}
	return rc;
}

static int run(struct ftctl_opts *opts, int argc, char **argv)
{
	struct audit_args a = {.now = ftctl_realtime_ns(),
			       .config = FTAGENTD_CONFIG_PATH};
	char **paths = NULL;
	size_t n = 0;
	int rc;

	rc = ftctl_parse_options(&ftctl_cmd_audit, opts, argc, argv, on_option,
				 &a);
	if (rc < 0)
		return ftctl_parse_exit(rc);
	a.json = opts->json;
	if (rc >= argc ||
	    (strcmp(argv[rc], "verify") && strcmp(argv[rc], "show")))
		return ftctl_usage_error(&ftctl_cmd_audit,
					 "the subcommands are 'verify' and "
					 "'show'");
	if (!strcmp(argv[rc], "verify") && a.since)
		return ftctl_usage_error(&ftctl_cmd_audit,
					 "--since goes with 'show'");
	if (collect(&a, argc - rc - 1, argv + rc + 1, &paths, &n) < 0)
		return FTCTL_FAILED;
	if (!strcmp(argv[rc], "verify"))
		rc = verify(&a, paths, n);
	else
		rc = show(&a, paths, n, !opts->no_header);
	ftagent_audit_list_free(paths, n);
	return rc;
}

const struct ftctl_command ftctl_cmd_audit = {
	.name = "audit",
	.summary = "verify|show: the audit trail's hash chain, its records",
	.usage = "audit verify [--config FILE] [DIR|FILE...]\n"
		 "       ftctl audit show [--since WHEN] [--config FILE] "
		 "[DIR|FILE...]",
	.words = audit_words,
	.file_words = audit_words, /* verify|show DIR or FILE */
	.shortopts = "",
	.longopts = audit_longopts,
	.run = run,
};
