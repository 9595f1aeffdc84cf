// SPDX-License-Identifier: GPL-2.0
/*
 * The audit trail's writer (audit.h). Order matters for a chain that
 * survives crashes: the in-memory chain (seq, last hash) advances only
 * once a whole line is in the file, so whatever is on disk is always a
 * prefix of the chain plus, at worst, one cut line at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "audit.h"
#include "group.h"

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void say(struct ftd_audit *a, const char *what, int err)
{
	snprintf(a->error, sizeof(a->error), "audit %s/%s: %s: %s", a->dir,
		 FTAGENT_AUDIT_CURRENT, what, strerror(err));
}

void ftd_audit_init(struct ftd_audit *a)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}

static void sync_now(struct ftd_audit *a)
{
	if (a->fd < 0 || !a->unsynced)
		return;
	if (fdatasync(a->fd) < 0) {
		a->errors++;
		say(a, "fsync", errno);
		return;
	}
	a->fsyncs++;
	a->unsynced = 0;
}

/* Write all of @len bytes; the bytes written before a failure in *@done. */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len) {
		ssize_t n = write(fd, buf + *done, len - *done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		*done += (size_t)n;
	}
	return 0;
}

/* One record, chained. 0, or -1 (counted, a->error; the chain stays). */
static int write_record(struct ftd_audit *a, uint64_t realtime_ns,
			const char *kind, const char *record_json)
{
	char hash[FTAGENT_AUDIT_HEX_LEN + 1];
	size_t done;
	long len;

	if (a->fd < 0)
		return -1;
	if (!record_json) { /* its text could not be made: no memory */
		errno = ENOMEM;
		goto fail;
	}
	len = ftagent_audit_line(&a->line, &a->line_cap, a->seq + 1,
				 realtime_ns, kind, record_json, a->last_hash,
				 hash);
	if (len < 0) {
		errno = ENOMEM;
		goto fail;
	}
	if (write_all(a->fd, a->line, (size_t)len, &done) < 0) {
		int err = errno;

		/*
		 * Take a cut line back, so the file stays a clean prefix of
		 * the chain; the lost record is said at the next write.
		 */
		if (done && ftruncate(a->fd, (off_t)a->file_bytes) < 0) {
			/*
			 * A cut line stays: stop here; the next open (reload,
			 * restart) names it in a "damaged" record.
			 */
			close(a->fd);
			a->fd = -1;
			a->broken = 1;
		}
		errno = err;
		goto fail;
	}
	a->seq++;
	memcpy(a->last_hash, hash, sizeof(hash));
	a->file_bytes += (uint64_t)len;
	a->written++;
	if (!a->unsynced++)
		a->unsynced_since_ns = now_ns(CLOCK_MONOTONIC);
	if (a->unsynced >= a->fsync_batch)
		sync_now(a);
	return 0;
fail:
	a->errors++;
	say(a, "write", errno);
	return -1;
}

/* A JSON object's text from @o, which is put. */
static int append_object(struct ftd_audit *a, const char *kind,
			 struct json_object *o)
{
	int rc = write_record(
		a, now_ns(CLOCK_REALTIME), kind,
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return rc;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

/* Records that never reached the file, said before the next one. */
static int say_lost(struct ftd_audit *a)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "records", a->lost_pending);
	add_str(o, "why", a->error);
	if (append_object(a, "lost", o) < 0)
		return -1;
	a->lost_pending = 0;
	return 0;
}

static int open_file(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | flags, 0640);

	if (fd < 0)
		return -1;
	/* Readable by the ftagent group whatever the umask (0027). */
	if (ftd_give_to_group(fd) < 0 || fchmod(fd, 0640) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Start a new DIR/audit.jsonl with a "rotated" record naming @prev. */
static int start_next_file(struct ftd_audit *a, const char *prev)
{
	char path[300];
	struct json_object *o;
	uint64_t prev_seq = a->seq;

	snprintf(path, sizeof(path), "%s/%s", a->dir, FTAGENT_AUDIT_CURRENT);
	a->fd = open_file(path, O_CREAT);
	if (a->fd < 0) {
		a->errors++;
		say(a, "open", errno);
		return -1;
	}
	sync_dir(a->dir);
	a->file_bytes = 0;
	a->file_first_seq = a->seq + 1;
	o = json_object_new_object();
	add_str(o, "previous_file", prev);
	add_u64(o, "previous_last_seq", prev_seq);
	add_str(o, "previous_hash", a->last_hash);
	return append_object(a, "rotated", o);
}

static void rotate(struct ftd_audit *a)
{
	char from[300], to[400], name[64];

	sync_now(a);
	snprintf(name, sizeof(name), "audit-%016" PRIu64 ".jsonl",
		 a->file_first_seq);
	snprintf(from, sizeof(from), "%s/%s", a->dir, FTAGENT_AUDIT_CURRENT);
	snprintf(to, sizeof(to), "%s/%s", a->dir, name);
	/* Never over an existing file: that would drop part of the trail. */
	if (access(to, F_OK) == 0) {
		a->errors++;
		say(a, "rotate", EEXIST);
		return;
	}
	if (rename(from, to) < 0) {
		a->errors++;
		say(a, "rotate", errno);
		return;
	}
	close(a->fd);
	a->fd = -1;
	a->rotations++;
	if (start_next_file(a, name) < 0 && a->fd < 0)
		a->broken = 1;
}

int ftd_audit_append(struct ftd_audit *a, uint64_t realtime_ns,
		     const char *kind, const char *record_json)
{
	if (a->fd < 0) {
		if (a->broken)
			goto lost;
		return -1;
	}
	if (a->lost_pending && say_lost(a) < 0)
		goto lost;
	if (write_record(a, realtime_ns, kind, record_json) < 0)
		goto lost;
	if (a->file_bytes >= a->rotate_size)
		rotate(a);
	return 0;
lost:
	a->lost++;
	a->lost_pending++;
	return -1;
}

/* A last line a crash cut or spoiled: named, never hidden. */
static int say_damaged(struct ftd_audit *a, const char *file,
		       const struct ftagent_audit_tail *t)
{
	struct json_object *o = json_object_new_object();

	/* A cut line gets its end, so the next record starts a line. */
	if (t->torn && write(a->fd, "\n", 1) != 1) {
		json_object_put(o);
		a->errors++;
		say(a, "write", errno);
		return -1;
	}
	a->file_bytes += t->torn;
	add_str(o, "file", file);
	add_u64(o, "line", t->damaged_line);
	add_u64(o, "bytes", t->damaged_bytes);
	add_str(o, "sha256", t->damaged_sha256);
	add_str(o, "why", t->damaged_why);
	a->damaged++;
	return append_object(a, "damaged", o);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Take the chain from the newest file that holds anything: append to it
 * if it is DIR/audit.jsonl, else (a crash between a rotation's rename
 * and the next file's first record) mend it and start the next file.
 */
static int resume(struct ftd_audit *a)
{
	struct ftagent_audit_tail t = {0};
	char **paths, path[300];
	size_t n, i;
	int found = 0, rc = -1;

	if (ftagent_audit_list(a->dir, &paths, &n) < 0) {
		say(a, "list", errno);
		return -1;
	}
	for (i = n; i-- > 0;) {
		if (ftagent_audit_tail(paths[i], &t) < 0) {
			a->errors++;
			say(a, base_name(paths[i]), errno);
			goto out;
		}
		if (t.lines) {
			found = 1;
			break;
		}
	}
	memcpy(a->last_hash, ftagent_audit_genesis, sizeof(a->last_hash));
	a->seq = 0;
	if (!found) {
		snprintf(path, sizeof(path), "%s/%s", a->dir,
			 FTAGENT_AUDIT_CURRENT);
		a->fd = open_file(path, O_CREAT);
		if (a->fd < 0) {
			say(a, "open", errno);
			goto out;
		}
		a->file_bytes = 0;
		a->file_first_seq = 1;
		rc = 0;
		goto out;
	}
	if (t.last_seq) {
		a->seq = t.last_seq;
		memcpy(a->last_hash, t.last_hash, sizeof(a->last_hash));
	}
	a->fd = open_file(paths[i], 0);
	if (a->fd < 0) {
		say(a, "open", errno);
		goto out;
	}
	a->file_bytes = t.bytes;
	a->file_first_seq = t.first_seq ? t.first_seq : a->seq + 1;
	if (t.damaged && say_damaged(a, base_name(paths[i]), &t) < 0)
		goto out;
	rc = 0;
	if (strcmp(base_name(paths[i]), FTAGENT_AUDIT_CURRENT)) {
		sync_now(a);
		close(a->fd);
		a->fd = -1;
		rc = start_next_file(a, base_name(paths[i]));
	}
out:
	ftagent_audit_list_free(paths, n);
	return rc;
}

int ftd_audit_open(struct ftd_audit *a, const struct ftagentd_config *cfg)
{
	struct json_object *o;
	int dfd;

	a->fd = -1;
	a->unsynced = 0;
	a->broken = 0;
	if (!cfg->audit.enabled)
		return 0;
	/* Until it opens, what should go in it is lost, and counted. */
	a->broken = 1;
	snprintf(a->dir, sizeof(a->dir), "%s", cfg->audit.dir);
	a->rotate_size = cfg->audit.rotate_size;
	a->fsync_batch = cfg->audit.fsync_batch;
	a->fsync_interval_ns = cfg->audit.fsync_interval_ms * 1000000ull;
	if (mkdir(a->dir, 0750) < 0 && errno != EEXIST) {
		a->errors++;
		say(a, "mkdir", errno);
		return -1;
	}
	/* The group reads the trail: it must be let into the directory. */
	dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || ftd_give_to_group(dfd) < 0) {
		a->errors++;
		say(a, "directory", errno);
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	close(dfd);
	if (resume(a) < 0) {
		a->errors++;
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return -1;
	}
	o = json_object_new_object();
	add_u64(o, "pid", (uint64_t)getpid());
	add_str(o, "version", FTAGENTD_VERSION);
	if (append_object(a, "start", o) < 0)
		return -1;
	a->broken = 0;
	sync_now(a);
	return 0;
}

void ftd_audit_close(struct ftd_audit *a)
{
	sync_now(a);
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->line);
	a->line = NULL;
	a->line_cap = 0;
}

void ftd_audit_tick(struct ftd_audit *a, uint64_t now)
{
	if (a->unsynced && now - a->unsynced_since_ns >= a->fsync_interval_ns)
		sync_now(a);
}

uint64_t ftd_audit_due_ms(const struct ftd_audit *a, uint64_t now)
{
	uint64_t due;

	if (a->fd < 0 || !a->unsynced)
		return 0;
	due = a->unsynced_since_ns + a->fsync_interval_ns;
	return due > now ? (due - now + 999999) / 1000000 : 1;
}
