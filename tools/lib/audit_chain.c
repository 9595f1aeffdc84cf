// SPDX-License-Identifier: GPL-2.0
/*
 * The audit trail's hash chain (audit_chain.h). SHA-256 is nettle's
 * (Debian's nettle-dev): small, no global state to initialise, and
 * already on every host that has GnuTLS.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <nettle/sha2.h>

#include "audit_chain.h"

#define HASH_MEMBER ",\"hash\":\""
/* ,"hash":" + 64 hex + "} */
#define HASH_SUFFIX_LEN (sizeof(HASH_MEMBER) - 1 + FTAGENT_AUDIT_HEX_LEN + 2)

const char ftagent_audit_genesis[FTAGENT_AUDIT_HEX_LEN + 1] =
	"0000000000000000000000000000000000000000000000000000000000000000";

static void to_hex(const uint8_t *d, char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < SHA256_DIGEST_SIZE; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[FTAGENT_AUDIT_HEX_LEN] = '\0';
}

void ftagent_sha256_hex(const void *data, size_t len,
			char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(d), d);
	to_hex(d, out);
}

/* The hash of a line whose hash member starts at @body_len: body + "}". */
static void line_hash(const char *line, size_t body_len,
		      char out[FTAGENT_AUDIT_HEX_LEN + 1])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, body_len, (const uint8_t *)line);
	sha256_update(&ctx, 1, (const uint8_t *)"}");
	sha256_digest(&ctx, sizeof(d), d);
	to_hex(d, out);
}

long ftagent_audit_line(char **buf, size_t *cap, uint64_t seq, uint64_t time_ns,
			const char *kind, const char *record_json,
			const char *prev, char hash[FTAGENT_AUDIT_HEX_LEN + 1])
{
	time_t secs = (time_t)(time_ns / 1000000000ull);
	size_t need = strlen(record_json) + strlen(kind) + 256;
	char when[32];
	struct tm tm;
	int n;

	if (need > *cap) {
		char *b = realloc(*buf, need);

		if (!b)
			return -1;
		*buf = b;
		*cap = need;
	}
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(*buf, *cap,
		     "{\"seq\":%" PRIu64 ",\"time\":\"%s.%09" PRIu64 "Z\","
		     "\"time_ns\":%" PRIu64 ",\"kind\":\"%s\",\"record\":%s,"
		     "\"prev\":\"%s\"",
		     seq, when, (uint64_t)(time_ns % 1000000000ull), time_ns,
		     kind, record_json, prev);
	if (n < 0 || (size_t)n + HASH_SUFFIX_LEN + 1 >= *cap)
		return -1;
	line_hash(*buf, (size_t)n, hash);
	n += snprintf(*buf + n, *cap - (size_t)n, HASH_MEMBER "%s\"}\n", hash);
	return n;
}

static int is_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int get_u64(struct json_object *o, const char *key, uint64_t *v)
{
	struct json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_int))
		return -1;
	*v = json_object_get_uint64(m);
	return 0;
}

static int get_str(struct json_object *o, const char *key, char *out,
		   size_t size)
{
	struct json_object *m;
	const char *s;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_string))
		return -1;
	s = json_object_get_string(m);
	if (strlen(s) >= size)
		return -1;
	strcpy(out, s);
	return 0;
}

int ftagent_audit_parse(const char *line, size_t len,
			struct ftagent_audit_rec *r, const char **why)
{
	struct json_tokener *tok;
	struct json_object *rec;
	char want[FTAGENT_AUDIT_HEX_LEN + 1];
	size_t body;

	memset(r, 0, sizeof(*r));
	if (len < HASH_SUFFIX_LEN || line[len - 1] != '}' ||
	    line[len - 2] != '"') {
		*why = "not a record line (no hash at its end)";
		return -1;
	}
	body = len - HASH_SUFFIX_LEN;
	if (memcmp(line + body, HASH_MEMBER, sizeof(HASH_MEMBER) - 1) ||
	    !is_hex(line + len - 2 - FTAGENT_AUDIT_HEX_LEN,
		    FTAGENT_AUDIT_HEX_LEN)) {
		*why = "not a record line (no hash at its end)";
		return -1;
	}
	memcpy(r->hash, line + len - 2 - FTAGENT_AUDIT_HEX_LEN,
	       FTAGENT_AUDIT_HEX_LEN);
	line_hash(line, body, want);
	if (strcmp(want, r->hash)) {
		*why = "hash does not match the record's bytes";
		return -1;
	}
	tok = json_tokener_new();
	if (!tok) {
		*why = "out of memory";
		return -1;
	}
	r->json = json_tokener_parse_ex(tok, line, (int)len);
	if (!r->json || json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(r->json, json_type_object)) {
		json_tokener_free(tok);
		json_object_put(r->json);
		r->json = NULL;
		*why = "not a JSON object";
		return -1;
	}
	json_tokener_free(tok);
	if (get_u64(r->json, "seq", &r->seq) ||
	    get_u64(r->json, "time_ns", &r->time_ns) ||
	    get_str(r->json, "kind", r->kind, sizeof(r->kind)) ||
	    get_str(r->json, "prev", r->prev, sizeof(r->prev)) ||
	    strlen(r->prev) != FTAGENT_AUDIT_HEX_LEN ||
	    !json_object_object_get_ex(r->json, "record", &rec) ||
	    !json_object_is_type(rec, json_type_object)) {
		json_object_put(r->json);
		r->json = NULL;
		*why = "a member is missing or of the wrong type";
		return -1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ftagent_audit_list_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static int list_add(char ***paths, size_t *n, const char *dir, const char *name)
{
	char **p = realloc(*paths, (*n + 1) * sizeof(*p));

	if (!p)
		return -1;
	*paths = p;
	if (asprintf(&p[*n], "%s/%s", dir, name) < 0)
		return -1;
	(*n)++;
	return 0;
}

int ftagent_audit_list(const char *dir, char ***paths, size_t *n)
{
	struct dirent *e;
	int current = 0;
	DIR *d;

	*paths = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (!strcmp(e->d_name, FTAGENT_AUDIT_CURRENT)) {
			current = 1;
			continue;
		}
		if (len > 12 && !strncmp(e->d_name, "audit-", 6) &&
		    !strcmp(e->d_name + len - 6, ".jsonl") &&
		    list_add(paths, n, dir, e->d_name) < 0)
			goto fail;
	}
	closedir(d);
	d = NULL;
	if (*n) /* qsort()'s array may not be NULL, even empty */
		qsort(*paths, *n, sizeof(**paths), by_name);
	if (current && list_add(paths, n, dir, FTAGENT_AUDIT_CURRENT) < 0)
		goto fail;
	return 0;
fail:
	if (d)
		closedir(d);
	ftagent_audit_list_free(*paths, *n);
	*paths = NULL;
	*n = 0;
	errno = ENOMEM;
	return -1;
}

int ftagent_audit_tail(const char *path, struct ftagent_audit_tail *t)
{
	struct ftagent_audit_rec r;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "re");
	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *why = NULL;
		int torn = line[len - 1] != '\n';
		size_t n = (size_t)len - !torn;

		t->lines++;
		t->bytes += (uint64_t)len;
		if (!torn && ftagent_audit_parse(line, n, &r, &why) == 0) {
			if (!t->first_seq)
				t->first_seq = r.seq;
			t->last_seq = r.seq;
			memcpy(t->last_hash, r.hash, sizeof(t->last_hash));
			json_object_put(r.json);
			t->damaged = 0;
			continue;
		}
		t->damaged = 1;
		t->torn = torn;
		t->damaged_line = t->lines;
		t->damaged_bytes = n;
		t->damaged_why = torn ? "cut short (no newline)" : why;
		ftagent_sha256_hex(line, n, t->damaged_sha256);
	}
	free(line);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	return 0;
}

void ftagent_audit_verify_init(struct ftagent_audit_verify *v)
{
	memset(v, 0, sizeof(*v));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int fail(struct ftagent_audit_verify *v, const char *path, uint64_t line,
		uint64_t seq, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(struct ftagent_audit_verify *v, const char *path, uint64_t line,
		uint64_t seq, const char *fmt, ...)
{
	va_list ap;

	if (v->failed++)
		return -1;
	snprintf(v->bad_file, sizeof(v->bad_file), "%s", path);
	v->bad_line = line;
	v->bad_seq = seq;
	va_start(ap, fmt);
	vsnprintf(v->bad_why, sizeof(v->bad_why), fmt, ap);
	va_end(ap);
	return -1;
}

static int pending_fail(struct ftagent_audit_verify *v, const char *why)
{
	return fail(v, v->pending_file, v->pending_line, 0, "%s%s",
		    v->pending_why, why);
}

static const char *rec_str(const struct ftagent_audit_rec *r, const char *k)
{
	struct json_object *rec, *m;

	if (!json_object_object_get_ex(r->json, "record", &rec) ||
	    !json_object_object_get_ex(rec, k, &m) ||
	    !json_object_is_type(m, json_type_string))
		return "";
	return json_object_get_string(m);
}

static uint64_t rec_u64(const struct ftagent_audit_rec *r, const char *k)
{
	struct json_object *rec, *m;

	if (!json_object_object_get_ex(r->json, "record", &rec) ||
	    !json_object_object_get_ex(rec, k, &m) ||
	    !json_object_is_type(m, json_type_int))
		return UINT64_MAX;
	return json_object_get_uint64(m);
}

/* The "damaged" record that accounts for the pending line, or not. */
static int accounts_for_pending(const struct ftagent_audit_verify *v,
				const char *path,
				const struct ftagent_audit_rec *r)
{
	return !strcmp(r->kind, "damaged") &&
	       !strcmp(base_name(path), base_name(v->pending_file)) &&
	       rec_u64(r, "line") == v->pending_line &&
	       rec_u64(r, "bytes") == v->pending_bytes &&
	       !strcmp(rec_str(r, "sha256"), v->pending_sha256);
}

/* One good record, against the chain so far. */
static int check_link(struct ftagent_audit_verify *v, const char *path,
		      uint64_t line, int first_in_file,
		      const struct ftagent_audit_rec *r)
{
	if (v->pending) {
		if (!accounts_for_pending(v, path, r))
			return pending_fail(v, "; no \"damaged\" record "
					       "accounts for it");
		v->pending = 0;
		v->damaged_accounted++;
	}
	if (!v->have_prev) {
		v->first_seq = r->seq;
		v->mid_chain = strcmp(r->prev, ftagent_audit_genesis) != 0;
		return 0;
	}
	if (r->seq != v->last_seq + 1)
		return fail(v, path, line, r->seq,
			    "seq %" PRIu64 " follows seq %" PRIu64
			    " (a record is missing or out of order)",
			    r->seq, v->last_seq);
	if (strcmp(r->prev, v->last_hash))
		return fail(v, path, line, r->seq,
			    "prev does not match the hash of seq %" PRIu64
			    " (a record was removed, reordered or altered)",
			    v->last_seq);
	if (first_in_file &&
	    (strcmp(r->kind, "rotated") ||
	     strcmp(rec_str(r, "previous_file"), v->last_file)))
		return fail(v, path, line, r->seq,
			    "the file does not start with a \"rotated\" "
			    "record naming %s",
			    v->last_file);
	return 0;
}

int ftagent_audit_verify_file(struct ftagent_audit_verify *v, const char *path)
{
	struct ftagent_audit_rec r;
	uint64_t lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int first = 1, rc = 0;
	FILE *f;

	if (v->failed)
		return -1;
	f = fopen(path, "re");
	if (!f)
		return fail(v, path, 0, 0, "cannot open: %s", strerror(errno));
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
		const char *why = "";
		int torn = line[len - 1] != '\n';
		size_t n = (size_t)len - !torn;

		lineno++;
		if (torn || ftagent_audit_parse(line, n, &r, &why) < 0) {
			/* Two damaged lines in a row: the first is unexplained. */
			if (v->pending)
				rc = pending_fail(v, "");
			v->pending = 1;
			snprintf(v->pending_file, sizeof(v->pending_file), "%s",
				 path);
			v->pending_line = lineno;
			v->pending_bytes = n;
			v->pending_why = torn ? "cut short (no newline)" : why;
			ftagent_sha256_hex(line, n, v->pending_sha256);
			continue;
		}
		rc = check_link(v, path, lineno, first && v->files > 0, &r);
		if (rc == 0) {
			v->have_prev = 1;
			v->last_seq = r.seq;
			memcpy(v->last_hash, r.hash, sizeof(v->last_hash));
			v->records++;
			if (v->on_record &&
			    v->on_record(path, lineno, &r, v->arg))
				rc = -1;
		}
		first = 0;
		json_object_put(r.json);
	}
	if (rc == 0 && ferror(f))
		rc = fail(v, path, lineno, 0, "read error");
	free(line);
	fclose(f);
	snprintf(v->last_file, sizeof(v->last_file), "%s", base_name(path));
	v->files++;
	return rc;
}

int ftagent_audit_verify_end(struct ftagent_audit_verify *v)
{
	if (v->failed)
		return -1;
	if (v->pending)
		return pending_fail(v, "; no \"damaged\" record accounts for "
				       "it");
	return 0;
}
