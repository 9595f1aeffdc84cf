// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot and journal files (see state.h). Formats are private to one
 * build of ftagentd: the snapshot header records the row sizes, and a
 * snapshot from a different layout is set aside, not misread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "state.h"

#define SNAP_MAGIC 0x32504e5347415446ull /* "FTAGSNP2" */
/*
 * ftagentd 0.4.0 before ABI 0.6's iouring loss: the same header with 4
 * kernel loss causes. Read and widened, so an upgrade keeps its totals.
 */
#define SNAP_MAGIC_V1  0x31504e5347415446ull /* "FTAGSNP1" */
#define SNAP_V1_LOSSES 4
#define JOURNAL_MAGIC  0x4c4e524au /* "JRNL" */
/*
 * What the metrics page sums beyond the tables, after the event log. A
 * snapshot of an older build ends before it: its groups start empty.
 */
#define SNAP_PAGE_MAGIC 0x31454741504e5346ull /* "FSNPAGE1" */

struct snap_page_hdr {
	uint64_t magic;
	uint32_t group_by, pad;
	uint64_t row_size[3]; /* groups, units, verdicts */
	struct ftd_group other;
	uint64_t group_overflow, verdict_overflow;
};

enum { J_GENERATION = 1, J_RECORDS = 2 };

struct j_hdr {
	uint32_t magic, type;
	uint64_t len;
};

struct j_gen {
	uint64_t seq;
	uint32_t n_counters, n_cpus;
	/* then counters, then n_cpus * __FTAGENT_LOSS_MAX u64 */
};

struct j_recs {
	uint64_t realtime_offset_ns;
	/* then whole records */
};

/* The collector's scalar figures, as saved, with @nlost loss causes. */
#define SNAP_HDR(name, nlost)                                                  \
	struct name {                                                          \
		uint64_t magic;                                                \
		uint64_t row_size[__FTD_T_MAX];                                \
		uint64_t events[__FTAGENT_REC_MAX];                            \
		uint64_t events_lost[__FTAGENT_EV_LOSS_MAX];                   \
		uint64_t drops[__FTD_DROP_MAX];                                \
		uint64_t kernel_lost[nlost];                                   \
		uint64_t generations, counters, last_gen_seq;                  \
		uint64_t evicted[__FTD_T_MAX];                                 \
		uint64_t log_appended, log_aged_out, log_too_big;              \
		uint64_t queue_peak;                                           \
		struct ftd_metrics_totals totals;                              \
	}

SNAP_HDR(snap_hdr, __FTAGENT_LOSS_MAX);
SNAP_HDR(snap_hdr_v1, SNAP_V1_LOSSES);

struct snap_event {
	uint64_t realtime_ns;
	char comm[FTAGENT_COMM_LEN];
	uint64_t size;
};

static void path_of(const struct ftd_state *st, const char *name, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s/%s", st->dir, name);
}

static int read_all(FILE *f, void *buf, size_t len)
{
	return fread(buf, 1, len, f) == len ? 0 : -1;
}

/* One journal entry in one writev, so a killed daemon leaves whole ones. */
static int journal_append(struct ftd_state *st, uint32_t type,
			  const struct iovec *parts, int n_parts)
{
	struct iovec iov[4];
	struct j_hdr h = {.magic = JOURNAL_MAGIC, .type = type};
	size_t total;
	ssize_t done;
	int i;

	if (st->journal_fd < 0)
		return -1;
	for (i = 0; i < n_parts; i++)
		h.len += parts[i].iov_len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	memcpy(&iov[1], parts, (size_t)n_parts * sizeof(*parts));
	total = sizeof(h) + h.len;
	do
		done = writev(st->journal_fd, iov, n_parts + 1);
	while (done < 0 && errno == EINTR);
	if (done != (ssize_t)total) {
		/* Take a partial entry back, so later entries stay readable. */
		if (done > 0 &&
		    ftruncate(st->journal_fd, (off_t)st->journal_bytes) == 0)
			lseek(st->journal_fd, (off_t)st->journal_bytes,
			      SEEK_SET);
		st->journal_errors++;
		snprintf(st->error, sizeof(st->error), "journal write: %s",
			 strerror(done < 0 ? errno : ENOSPC));
		return -1;
	}
	st->journal_bytes += total;
	return 0;
}

int ftd_state_log_generation(struct ftd_state *st,
			     const struct ftagent_generation *gen)
{
	struct j_gen jg = {.seq = gen->seq,
			   .n_counters = (uint32_t)gen->n_counters,
			   .n_cpus = (uint32_t)gen->n_cpus};
	uint64_t *lost =
		calloc(gen->n_cpus + 1, sizeof(uint64_t) * __FTAGENT_LOSS_MAX);
	struct iovec iov[3];
	size_t i;
	int rc;

	if (!lost)
		return -1;
	for (i = 0; i < gen->n_cpus; i++)
		memcpy(&lost[i * __FTAGENT_LOSS_MAX], gen->cpus[i].lost,
		       sizeof(uint64_t) * __FTAGENT_LOSS_MAX);
	iov[0] = (struct iovec){&jg, sizeof(jg)};
	iov[1] = (struct iovec){gen->counters,
				gen->n_counters * sizeof(*gen->counters)};
	iov[2] = (struct iovec){lost, gen->n_cpus * sizeof(uint64_t) *
					      __FTAGENT_LOSS_MAX};
	rc = journal_append(st, J_GENERATION, iov, 3);
	free(lost);
	return rc;
}

int ftd_state_log_records(struct ftd_state *st, const void *recs, size_t len,
			  uint64_t realtime_offset_ns)
{
	struct j_recs jr = {.realtime_offset_ns = realtime_offset_ns};
	struct iovec iov[2] = {{&jr, sizeof(jr)}, {(void *)recs, len}};

	return journal_append(st, J_RECORDS, iov, 2);
}

static void snap_header(struct snap_hdr *h, const struct ftd_collector *c)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->magic = SNAP_MAGIC;
	for (i = 0; i < __FTD_T_MAX; i++) {
		h->row_size[i] = c->table[i].row_size;
		h->evicted[i] = c->table[i].evicted;
	}
	memcpy(h->events, c->events, sizeof(h->events));
	memcpy(h->events_lost, c->events_lost, sizeof(h->events_lost));
	memcpy(h->drops, c->drops, sizeof(h->drops));
	memcpy(h->kernel_lost, c->kernel_lost, sizeof(h->kernel_lost));
	h->generations = c->generations;
	h->counters = c->counters;
	h->last_gen_seq = c->last_gen_seq;
	h->log_appended = c->log.appended;
	h->log_aged_out = c->log.aged_out;
	h->log_too_big = c->log.too_big;
	h->queue_peak = c->queue_peak;
	h->totals = c->totals;
}

static int write_rows(FILE *f, const struct ftd_table *tab)
{
	uint64_t n = tab->used;
	const void *row;

	if (fwrite(&n, sizeof(n), 1, f) != 1)
		return -1;
	/* Oldest first, so reloading keeps the eviction order. */
	for (row = ftd_table_first(tab); row;
	     row = ftd_table_next_row(tab, row))
		if (fwrite(row, tab->row_size, 1, f) != 1)
			return -1;
	return 0;
}

/*
 * Rows written by write_rows(); @skip: read them, keep none. -ENOMEM,
 * or -1 when the file ends early.
 */
static int read_rows(FILE *f, struct ftd_table *tab, int skip)
{
	unsigned char *row;
	uint64_t n, i;
	int rc = 0;

	if (read_all(f, &n, sizeof(n)))
		return -1;
	row = malloc(tab->row_size);
	if (!row)
		return -ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		rc = read_all(f, row, tab->row_size) ? -1 : 0;
		/* A smaller table now: the oldest rows go first. */
		if (!rc && !skip)
			memcpy(ftd_table_get(tab, row, NULL), row,
			       tab->row_size);
	}
	free(row);
	return rc;
}

static int write_page_sums(FILE *f, const struct ftd_collector *c)
{
	struct snap_page_hdr h = {
		.magic = SNAP_PAGE_MAGIC,
		.group_by = c->groups.by,
		.row_size = {c->groups.table.row_size, c->units.row_size,
			     c->verdicts.table.row_size},
		.other = c->groups.other,
		.group_overflow = c->groups.overflow,
		.verdict_overflow = c->verdicts.overflow,
	};

	if (fwrite(&h, sizeof(h), 1, f) != 1 ||
	    write_rows(f, &c->groups.table) < 0 ||
	    write_rows(f, &c->units) < 0 ||
	    write_rows(f, &c->verdicts.table) < 0)
		return -1;
	return 0;
}

/*
 * Groups of another group_by are not these groups: they are read and
 * dropped. 0, or -1 when the section is cut short.
 */
static int read_page_sums(FILE *f, struct ftd_collector *c)
{
	struct snap_page_hdr h;
	int other_by;

	if (read_all(f, &h, sizeof(h)))
		return 0; /* an older build's snapshot: nothing to add */
	if (h.magic != SNAP_PAGE_MAGIC ||
	    h.row_size[0] != c->groups.table.row_size ||
	    h.row_size[1] != c->units.row_size ||
	    h.row_size[2] != c->verdicts.table.row_size)
		return -1;
	other_by = h.group_by != c->groups.by;
	if (!other_by) {
		c->groups.other = h.other;
		c->groups.overflow = h.group_overflow;
	}
	c->verdicts.overflow = h.verdict_overflow;
	if (read_rows(f, &c->groups.table, other_by) < 0 ||
	    read_rows(f, &c->units, 0) < 0 ||
	    read_rows(f, &c->verdicts.table, 0) < 0)
		return -1;
	return 0;
}

static int write_snapshot(FILE *f, const struct ftd_collector *c)
{
	struct snap_hdr h;
	uint64_t n;
	size_t i;
	int t;

	snap_header(&h, c);
	if (fwrite(&h, sizeof(h), 1, f) != 1)
		return -1;
	for (t = 0; t < __FTD_T_MAX; t++)
		if (write_rows(f, &c->table[t]) < 0)
			return -1;
	n = c->log.n;
	if (fwrite(&n, sizeof(n), 1, f) != 1)
		return -1;
	for (i = 0; i < c->log.n; i++) {
		const struct ftd_event *ev =
			c->log.ring[(c->log.head + i) % c->log.cap];
		struct snap_event se = {.realtime_ns = ev->realtime_ns,
					.size = ev->rec_size};

		memcpy(se.comm, ev->comm, sizeof(se.comm));
		if (fwrite(&se, sizeof(se), 1, f) != 1 ||
		    fwrite(ev->rec, ev->rec_size, 1, f) != 1)
			return -1;
	}
	return write_page_sums(f, c);
}

int ftd_state_snapshot(struct ftd_state *st, const struct ftd_collector *c)
{
	char tmp[300], path[300];
	FILE *f;
	int ok;

	path_of(st, "snapshot.tmp", tmp, sizeof(tmp));
	path_of(st, "snapshot", path, sizeof(path));
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	ok = write_snapshot(f, c) == 0;
	if (fclose(f) != 0 || !ok) {
		unlink(tmp);
		goto fail;
	}
	if (rename(tmp, path) < 0)
		goto fail;
	/* The snapshot holds everything the journal did. */
	if (st->journal_fd >= 0 && ftruncate(st->journal_fd, 0) == 0) {
		lseek(st->journal_fd, 0, SEEK_SET);
		st->journal_bytes = 0;
	}
	st->snapshots++;
	return 0;
fail:
	st->snapshot_errors++;
	snprintf(st->error, sizeof(st->error), "snapshot %s: %s", path,
		 strerror(errno));
	return -1;
}

/* A header of the layout before the iouring loss cause, widened. */
static int read_snap_hdr_v1(FILE *f, struct snap_hdr *h)
{
	struct snap_hdr_v1 v;

	_Static_assert(SNAP_V1_LOSSES <= __FTAGENT_LOSS_MAX,
		       "loss causes are only ever added");
	v.magic = h->magic;
	if (read_all(f, (char *)&v + sizeof(v.magic),
		     sizeof(v) - sizeof(v.magic)))
		return -1;
	memset(h, 0, sizeof(*h));
	h->magic = SNAP_MAGIC;
	memcpy(h->row_size, v.row_size, sizeof(h->row_size));
	memcpy(h->events, v.events, sizeof(h->events));
	memcpy(h->events_lost, v.events_lost, sizeof(h->events_lost));
	memcpy(h->drops, v.drops, sizeof(h->drops));
	memcpy(h->kernel_lost, v.kernel_lost, sizeof(v.kernel_lost));
	h->generations = v.generations;
	h->counters = v.counters;
	h->last_gen_seq = v.last_gen_seq;
	memcpy(h->evicted, v.evicted, sizeof(h->evicted));
	h->log_appended = v.log_appended;
	h->log_aged_out = v.log_aged_out;
	h->log_too_big = v.log_too_big;
	h->queue_peak = v.queue_peak;
	h->totals = v.totals;
	return 0;
}

static int read_snap_hdr(FILE *f, struct snap_hdr *h)
{
	if (read_all(f, &h->magic, sizeof(h->magic)))
		return -1;
	if (h->magic == SNAP_MAGIC_V1)
		return read_snap_hdr_v1(f, h);
	if (h->magic != SNAP_MAGIC)
		return -1;
	return read_all(f, (char *)h + sizeof(h->magic),
			sizeof(*h) - sizeof(h->magic));
}

static int load_snapshot(FILE *f, struct ftd_collector *c, char *why,
			 size_t why_len)
{
	struct snap_hdr h;
	uint64_t n, i;
	int t, rc;

	if (read_snap_hdr(f, &h)) {
		snprintf(why, why_len, "not a snapshot of this version");
		return -1;
	}
	for (t = 0; t < __FTD_T_MAX; t++)
		if (h.row_size[t] != c->table[t].row_size) {
			snprintf(why, why_len, "written by another build");
			return -1;
		}
	memcpy(c->events, h.events, sizeof(h.events));
	memcpy(c->events_lost, h.events_lost, sizeof(h.events_lost));
	memcpy(c->drops, h.drops, sizeof(h.drops));
	memcpy(c->kernel_lost, h.kernel_lost, sizeof(h.kernel_lost));
	c->generations = h.generations;
	c->counters = h.counters;
	c->last_gen_seq = h.last_gen_seq;
	c->queue_peak = h.queue_peak;
	c->totals = h.totals;
	for (t = 0; t < __FTD_T_MAX; t++) {
		rc = read_rows(f, &c->table[t], 0);
		if (rc == -ENOMEM)
			return -1;
		if (rc < 0)
			goto truncated;
		c->table[t].evicted += h.evicted[t];
	}
	if (read_all(f, &n, sizeof(n)))
		goto truncated;
	for (i = 0; i < n; i++) {
		struct snap_event se;
		void *rec;

		if (read_all(f, &se, sizeof(se)) || se.size > 0x10000)
			goto truncated;
		rec = malloc(se.size);
		if (!rec)
			return -1;
		if (read_all(f, rec, se.size)) {
			free(rec);
			goto truncated;
		}
		se.comm[FTAGENT_COMM_LEN - 1] = '\0';
		ftd_eventlog_append(&c->log, rec, se.size, se.realtime_ns,
				    se.comm);
		free(rec);
	}
	c->log.appended = h.log_appended;
	c->log.aged_out += h.log_aged_out;
	c->log.too_big += h.log_too_big;
	if (read_page_sums(f, c) < 0)
		goto truncated;
	return 0;
truncated:
	snprintf(why, why_len, "truncated");
	return -1;
}

static void replay_generation(struct ftd_collector *c, const void *p,
			      uint64_t len)
{
	struct ftagent_generation gen = {0};
	struct ftagent_counter *old = NULL;
	const char *counters;
	struct j_gen jg;
	const uint64_t *lost;
	uint64_t tail;
	size_t i, size, nlost;

	if (len < sizeof(jg))
		return;
	memcpy(&jg, p, sizeof(jg));
	/*
	 * Counters as this daemon's ABI has them, or (journaled before an
	 * upgrade) as ABI 0.5 had them: widened here; and loss causes as
	 * now, or the 4 before the iouring one.
	 */
	for (i = 0; i < 4; i++) {
		size = i % 2 ? FTAGENT_COUNTER_SIZE_V5 : sizeof(*gen.counters);
		nlost = i < 2 ? __FTAGENT_LOSS_MAX : SNAP_V1_LOSSES;
		tail = (uint64_t)jg.n_cpus * sizeof(uint64_t) * nlost;
		if (len == sizeof(jg) + (uint64_t)jg.n_counters * size + tail)
			break;
	}
	if (i == 4)
		return;
	counters = (const char *)p + sizeof(jg);
	gen.seq = jg.seq;
	gen.n_counters = jg.n_counters;
	gen.counters = (struct ftagent_counter *)counters;
	if (size != sizeof(*gen.counters)) {
		old = calloc(jg.n_counters + 1, sizeof(*old));
		if (!old)
			return;
		for (i = 0; i < jg.n_counters; i++)
			memcpy(&old[i], counters + i * size, size);
		gen.counters = old;
	}
	gen.n_cpus = jg.n_cpus;
	gen.cpus = calloc(jg.n_cpus + 1, sizeof(*gen.cpus));
	if (!gen.cpus) {
		free(old);
		return;
	}
	lost = (const uint64_t *)(counters + jg.n_counters * size);
	for (i = 0; i < jg.n_cpus; i++)
		memcpy(gen.cpus[i].lost, &lost[i * nlost],
		       sizeof(uint64_t) * nlost);
	ftd_collector_generation(c, &gen);
	free(gen.cpus);
	free(old);
}

static uint64_t replay_records(struct ftd_collector *c, const void *p,
			       uint64_t len)
{
	const unsigned char *b = p;
	struct j_recs jr;
	uint64_t off, n = 0;

	if (len < sizeof(jr))
		return 0;
	memcpy(&jr, b, sizeof(jr));
	for (off = sizeof(jr); off < len;) {
		struct ftagent_rec rec;
		size_t used;

		if (ftagent_rec_next(b + off, len - off, &rec, &used, NULL) !=
		    FTAGENT_REC_OK)
			break;
		ftd_collector_event_at(
			c, &rec, rec.hdr->time_ns + jr.realtime_offset_ns);
		off += used;
		n++;
	}
	return n;
}

/* Replay whole entries; stop at the first damaged or partial one. */
static int replay_journal(struct ftd_state *st, FILE *f,
			  struct ftd_collector *c, uint64_t *good_bytes)
{
	struct j_hdr h;
	void *buf;

	*good_bytes = 0;
	for (;;) {
		size_t got = fread(&h, 1, sizeof(h), f);

		if (got == 0)
			return 0; /* the end, between entries */
		if (got != sizeof(h))
			return -1; /* a torn entry header */
		if (h.magic != JOURNAL_MAGIC || h.len > (1ull << 31))
			return -1;
		buf = malloc(h.len ? h.len : 1);
		if (!buf)
			return -1;
		if (read_all(f, buf, h.len)) {
			free(buf);
			return -1;
		}
		if (h.type == J_GENERATION) {
			replay_generation(c, buf, h.len);
			st->replayed_generations++;
		} else if (h.type == J_RECORDS) {
			/* Aligned: the records decoder reads fields in place. */
			st->replayed_records += replay_records(c, buf, h.len);
		}
		free(buf);
		*good_bytes += sizeof(h) + h.len;
	}
}

int ftd_state_open(struct ftd_state *st, const char *dir,
		   struct ftd_collector *c)
{
	char path[300], why[128];
	uint64_t good = 0;
	int damaged = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	st->journal_fd = -1;
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		snprintf(st->error, sizeof(st->error), "%s: %s", dir,
			 strerror(errno));
		return -1;
	}
	path_of(st, "snapshot", path, sizeof(path));
	f = fopen(path, "re");
	if (f) {
		if (load_snapshot(f, c, why, sizeof(why)) < 0) {
			snprintf(st->error, sizeof(st->error),
				 "%s: %s; set aside", path, why);
			damaged = 1;
		}
		fclose(f);
		if (damaged) {
			char aside[320];

			snprintf(aside, sizeof(aside), "%s.bad", path);
			rename(path, aside);
		}
	}
	path_of(st, "journal", path, sizeof(path));
	f = fopen(path, "re");
	if (f) {
		if (replay_journal(st, f, c, &good) < 0) {
			snprintf(st->error, sizeof(st->error),
				 "%s: damaged after %llu bytes; rest dropped",
				 path, (unsigned long long)good);
			damaged = 1;
		}
		fclose(f);
	}
	st->journal_fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
	if (st->journal_fd < 0 || ftruncate(st->journal_fd, (off_t)good) < 0 ||
	    lseek(st->journal_fd, (off_t)good, SEEK_SET) < 0) {
		snprintf(st->error, sizeof(st->error), "%s: %s", path,
			 strerror(errno));
		return -1;
	}
	st->journal_bytes = good;
	return damaged;
}

int ftd_state_lock(const char *dir, char *why, size_t why_len)
{
	char path[300], pid[32];
	ssize_t n;
	int fd;

	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		snprintf(why, why_len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;

		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (err == EWOULDBLOCK)
			snprintf(why, why_len,
				 "another ftagentd (pid %s) is running with "
				 "state directory %s",
				 pid[0] ? pid : "unknown", dir);
		else
			snprintf(why, why_len, "%s: lock: %s", path,
				 strerror(err));
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void ftd_state_close(struct ftd_state *st)
{
	if (st->journal_fd >= 0)
		close(st->journal_fd);
	st->journal_fd = -1;
}
