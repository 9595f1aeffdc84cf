/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit trail's format and its hash chain (docs/audit.md), shared by
 * the writer in ftagentd and by `ftctl audit verify|show`.
 *
 * One record per line, a JSON object whose members come in this order:
 *
 *   {"seq":N,"time":"ISO 8601 UTC","time_ns":NS,"kind":"K",
 *    "record":{...},"prev":"HEX","hash":"HEX"}
 *
 * hash is SHA-256 over the line's bytes as written, without the hash
 * member (everything before ,"hash": then the closing brace); prev is
 * the hash of the record before, across files; the very first record
 * has prev of 64 zeros. Hashing the bytes as written, not a re-encoding,
 * makes the check independent of any JSON library's formatting.
 */
#ifndef FTAGENT_LIB_AUDIT_CHAIN_H
#define FTAGENT_LIB_AUDIT_CHAIN_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define FTAGENT_AUDIT_HEX_LEN 64
/* The file the writer appends to; rotated files are audit-SEQ.jsonl. */
#define FTAGENT_AUDIT_CURRENT  "audit.jsonl"
#define FTAGENT_AUDIT_KIND_MAX 32

extern const char ftagent_audit_genesis[FTAGENT_AUDIT_HEX_LEN + 1];

/* SHA-256 of @len bytes, as 64 lowercase hex digits and a NUL. */
void ftagent_sha256_hex(const void *data, size_t len,
			char out[FTAGENT_AUDIT_HEX_LEN + 1]);

/*
 * Compose a record's line, newline included, into *@buf (grown as
 * needed; *@cap its size). @record_json is a JSON object's text. Fills
 * @hash. Returns the line's length, or -1 when memory ran out.
 */
long ftagent_audit_line(char **buf, size_t *cap, uint64_t seq, uint64_t time_ns,
			const char *kind, const char *record_json,
			const char *prev, char hash[FTAGENT_AUDIT_HEX_LEN + 1]);

/* What one line holds, once its hash checked out. */
struct ftagent_audit_rec {
	uint64_t seq, time_ns;
	char kind[FTAGENT_AUDIT_KIND_MAX];
	char prev[FTAGENT_AUDIT_HEX_LEN + 1];
	char hash[FTAGENT_AUDIT_HEX_LEN + 1];
	struct json_object *json; /* the whole line; the caller puts it */
};

/*
 * Parse and check one line (@len bytes, without its newline): the hash
 * matches the bytes and every member is there with its type. 0, or -1
 * with *@why a static reason.
 */
int ftagent_audit_parse(const char *line, size_t len,
			struct ftagent_audit_rec *r, const char **why);

/*
 * The trail's files in chain order: DIR/audit-*.jsonl by name (the name
 * is the first seq, zero-padded), then DIR/audit.jsonl. *@paths is an
 * allocated array of allocated strings (ftagent_audit_list_free). 0, or
 * -1 with errno.
 */
int ftagent_audit_list(const char *dir, char ***paths, size_t *n);
void ftagent_audit_list_free(char **paths, size_t n);

/*
 * Where a file's chain ends, for a writer resuming it: the last record
 * whose hash checks out, and whether the line after it is damaged (a
 * crash cut it, or it does not check out). Only the last line is looked
 * at for damage: an earlier bad line is for verify to report.
 */
struct ftagent_audit_tail {
	uint64_t lines;	    /* lines in the file, a torn last one too */
	uint64_t first_seq; /* of the first good record; 0 when none */
	uint64_t last_seq;  /* of the last good record; 0 when none */
	char last_hash[FTAGENT_AUDIT_HEX_LEN + 1];
	uint64_t bytes; /* the file's size */
	/* The last line, when it is not a good record: */
	int damaged;
	int torn; /* no newline at the end */
	uint64_t damaged_line, damaged_bytes;
	char damaged_sha256[FTAGENT_AUDIT_HEX_LEN + 1];
	const char *damaged_why;
};

/* 0, or -1 with errno (the file could not be read). */
int ftagent_audit_tail(const char *path, struct ftagent_audit_tail *t);

/*
 * Verification, file after file in chain order. Each record must check
 * out and follow the one before (seq + 1, prev = its hash); a file after
 * the first starts with a "rotated" record naming the file before and its
 * last hash. A damaged line is accepted only when the next record is a
 * "damaged" record that names it (line, length and SHA-256 of its bytes)
 * and chains to the record before it: what the writer appends when it
 * finds a line cut by a crash.
 */
struct ftagent_audit_verify {
	/* Called for every good record (may be NULL); non-zero stops. */
	int (*on_record)(const char *path, uint64_t line,
			 const struct ftagent_audit_rec *r, void *arg);
	void *arg;
	/* The chain so far. */
	int have_prev;
	uint64_t last_seq;
	char last_hash[FTAGENT_AUDIT_HEX_LEN + 1];
	char last_file[256]; /* basename of the file it ended in */
	uint64_t first_seq;
	int mid_chain; /* the first record's predecessor is not given */
	uint64_t records, files, damaged_accounted;
	/* A damaged line waiting for its "damaged" record. */
	int pending;
	char pending_file[256];
	uint64_t pending_line, pending_bytes;
	char pending_sha256[FTAGENT_AUDIT_HEX_LEN + 1];
	const char *pending_why;
	/* The first failure: file, line, seq (0: unknown), what is wrong. */
	int failed;
	char bad_file[4096];
	uint64_t bad_line, bad_seq;
	char bad_why[256];
};

void ftagent_audit_verify_init(struct ftagent_audit_verify *v);
/* One file. 0, or -1 when the chain broke (v->failed) or I/O failed. */
int ftagent_audit_verify_file(struct ftagent_audit_verify *v, const char *path);
/* After the last file: a damaged line never accounted for fails. */
int ftagent_audit_verify_end(struct ftagent_audit_verify *v);

#endif /* FTAGENT_LIB_AUDIT_CHAIN_H */
