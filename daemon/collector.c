// SPDX-License-Identifier: GPL-2.0
/*
 * Merging the module's output into the collector's tables. Counters carry
 * the figures; event records carry the names (command, executable, path,
 * addresses) that make the figures readable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

#include "../tools/lib/counters.h"
#include "../tools/lib/records.h"
#include "collector.h"
#include "proc_group.h"

static const char *const table_names[__FTD_T_MAX] = {
	[FTD_T_PROCESSES] = "processes", [FTD_T_SOCKETS] = "sockets",
	[FTD_T_FLOWS] = "flows",	 [FTD_T_FILES] = "files",
	[FTD_T_TRANSFERS] = "transfers",
};

static const char *const drop_names[__FTD_DROP_MAX] = {
	[FTD_DROP_BAD_RECORD] = "bad_record",
	[FTD_DROP_EVENT_LOG] = "event_log",
	[FTD_DROP_DUMP_RETRY] = "dump_retry",
};

const char *ftd_table_name(enum ftd_table_id id)
{
	return id < __FTD_T_MAX ? table_names[id] : "unknown";
}

const char *ftd_drop_name(enum ftd_drop d)
{
	return d < __FTD_DROP_MAX ? drop_names[d] : "unknown";
}

uint64_t ftd_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ftd_realtime_offset_ns(void)
{
	return ftd_clock_ns(CLOCK_REALTIME) - ftd_clock_ns(CLOCK_MONOTONIC);
}

int ftd_collector_init(struct ftd_collector *c,
		       const struct ftagentd_config *cfg)
{
	static const size_t key_size[__FTD_T_MAX] = {
		sizeof(struct ftd_proc_key), sizeof(struct ftd_sock_key),
		sizeof(struct ftd_flow_key), sizeof(struct ftd_file_key),
		sizeof(struct ftd_xfer_key),
	};
	static const size_t row_size[__FTD_T_MAX] = {
		sizeof(struct ftd_proc), sizeof(struct ftd_sock),
		sizeof(struct ftd_flow), sizeof(struct ftd_file),
		sizeof(struct ftd_xfer),
	};
	const uint64_t cap[__FTD_T_MAX] = {
		cfg->limits.processes, cfg->limits.sockets,   cfg->limits.flows,
		cfg->limits.files,     cfg->limits.transfers,
	};
	int i;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	for (i = 0; i < __FTD_T_MAX; i++) {
		if (ftd_table_init(&c->table[i], table_names[i], cap[i],
				   key_size[i], row_size[i]) < 0) {
			ftd_collector_free(c);
			return -1;
		}
	}
	if (ftd_groups_init(&c->groups, cfg->metrics.group_by,
			    cfg->metrics.group_limit) < 0 ||
	    ftd_table_init(&c->units, "units", FTD_UNIT_CACHE, sizeof(uint64_t),
			   sizeof(struct ftd_unit_entry)) < 0 ||
	    ftd_verdicts_init(&c->verdicts) < 0) {
		ftd_collector_free(c);
		return -1;
	}
	c->cgroup_root = "/sys/fs/cgroup";
	ftd_eventlog_init(&c->log, cfg->agent.event_log_size);
	c->attribute_transfers = cfg->agent.mode == FTAGENT_MODE_STANDARD;
	c->start_mono_ns = ftd_clock_ns(CLOCK_MONOTONIC);
	return 0;
}

void ftd_collector_free(struct ftd_collector *c)
{
	int i;

	for (i = 0; i < __FTD_T_MAX; i++)
		ftd_table_free(&c->table[i]);
	ftd_groups_free(&c->groups);
	ftd_table_free(&c->units);
	ftd_verdicts_free(&c->verdicts);
	ftd_eventlog_free(&c->log);
	pthread_mutex_destroy(&c->lock);
}

static void add(struct ftd_counts *to, const struct ftagent_dir_counts *d)
{
	to->bytes += d->bytes;
	to->calls += d->calls;
	to->errors += d->errors;
}

static void add_io(struct ftd_inout *to, const struct ftd_inout *d)
{
	to->in.bytes += d->in.bytes;
	to->in.calls += d->in.calls;
	to->in.errors += d->in.errors;
	to->out.bytes += d->out.bytes;
	to->out.calls += d->out.calls;
	to->out.errors += d->out.errors;
}

static void copy_comm(char *to, const char *from)
{
	memcpy(to, from, FTAGENT_COMM_LEN);
	to[FTAGENT_COMM_LEN - 1] = '\0';
}

static void copy_str(char *to, size_t size, const char *from, size_t len,
		     int *truncated)
{
	if (len >= size) {
		len = size - 1;
		if (truncated)
			*truncated = 1;
	}
	memcpy(to, from, len);
	to[len] = '\0';
}

static void comm_from_proc(struct ftd_proc *p)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", p->key.tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(p->comm, sizeof(p->comm), f))
		p->comm[strcspn(p->comm, "\n")] = '\0';
	fclose(f);
}

static struct ftd_proc *proc_row(struct ftd_collector *c, uint32_t tgid,
				 uint64_t now)
{
	struct ftd_proc_key key = {.tgid = tgid};
	struct ftd_proc *p;
	int created;

	p = ftd_table_get(&c->table[FTD_T_PROCESSES], &key, &created);
	if (created) {
		p->first_ns = now;
		if (c->read_proc_names)
			comm_from_proc(p);
		ftd_proc_group_first_sight(c, p);
	}
	p->last_ns = now;
	return p;
}

/* A socket's flow became known: its figures so far join the flow. */
static void sock_learn(struct ftd_collector *c, struct ftd_sock *s,
		       const struct ftagent_rec_sock *rs, uint64_t now)
{
	struct ftd_flow_key fk = {0};
	struct ftd_flow *f;

	fk.family = rs->family;
	fk.protocol = rs->protocol;
	fk.local_port = rs->local_port;
	fk.remote_port = rs->remote_port;
	memcpy(fk.local_addr, rs->local_addr, 16);
	memcpy(fk.remote_addr, rs->remote_addr, 16);
	s->family = fk.family;
	s->protocol = fk.protocol;
	if (s->known && !memcmp(&s->flow, &fk, sizeof(fk)))
		return;
	s->flow = fk;
	/* Only a connected socket (both ends known) is a flow. */
	if (!fk.remote_port)
		return;
	s->known = 1;
	f = ftd_table_get(&c->table[FTD_T_FLOWS], &fk, NULL);
	add_io(&f->io, &s->io);
	f->last_ns = now;
}

static void on_sock_record(struct ftd_collector *c,
			   const struct ftagent_rec *rec, uint64_t now)
{
	const struct ftagent_rec_sock *rs = rec->body;
	struct ftd_sock_key key = {.tgid = rec->hdr->tgid, .ino = rs->sock_ino};
	struct ftd_sock *s;

	if (rec->hdr->type == FTAGENT_REC_CLOSE) {
		/* The last reference may be dropped by another process. */
		s = ftd_table_find(&c->table[FTD_T_SOCKETS], &key);
		if (s)
			s->closed = 1;
		return;
	}
	if (rs->result < 0 && rs->result != -115 /* -EINPROGRESS */)
		return;
	s = ftd_table_get(&c->table[FTD_T_SOCKETS], &key, NULL);
	s->last_ns = now;
	sock_learn(c, s, rs, now);
}

static void on_open_record(struct ftd_collector *c,
			   const struct ftagent_rec *rec, uint64_t now)
{
	const struct ftagent_rec_open *ro = rec->body;
	struct ftd_file_key key = {.dev = ro->dev, .ino = ro->ino};
	struct ftd_file *f;

	if (!S_ISREG(ro->mode) || rec->n_str < 1)
		return;
	f = ftd_table_get(&c->table[FTD_T_FILES], &key, NULL);
	f->path_truncated = !!(rec->hdr->flags & FTAGENT_REC_F_STR0_TRUNCATED);
	copy_str(f->path, sizeof(f->path), rec->str[0], rec->str_len[0],
		 &f->path_truncated);
	f->last_ns = now;
}

uint64_t ftd_record_realtime_ns(uint64_t mono_ns)
{
	return mono_ns + ftd_realtime_offset_ns();
}

void ftd_collector_event(struct ftd_collector *c, const struct ftagent_rec *rec)
{
	ftd_collector_event_at(c, rec,
			       ftd_record_realtime_ns(rec->hdr->time_ns));
}

void ftd_collector_event_at(struct ftd_collector *c,
			    const struct ftagent_rec *rec, uint64_t realtime_ns)
{
	const struct ftagent_rec_hdr *hdr = rec->hdr;
	uint64_t now = ftd_clock_ns(CLOCK_MONOTONIC);
	const char *comm = NULL;
	struct ftd_proc *p;
	unsigned int i;

	if (hdr->type < __FTAGENT_REC_MAX)
		c->events[hdr->type]++;
	switch (hdr->type) {
	case FTAGENT_REC_GAP: {
		const struct ftagent_rec_gap *g = rec->body;

		for (i = 0; i < __FTAGENT_EV_LOSS_MAX; i++)
			c->events_lost[i] += g->lost_by_cause[i];
		break;
	}
	case FTAGENT_REC_FORK: {
		const struct ftagent_rec_fork *f = rec->body;
		struct ftd_proc_key parent_key = {.tgid = hdr->tgid};
		const struct ftd_proc *parent;

		p = proc_row(c, f->child_tgid, now);
		p->ppid = hdr->tgid;
		copy_comm(p->comm, f->comm);
		/* A fork runs the parent's program in the parent's cgroup. */
		parent =
			ftd_table_find(&c->table[FTD_T_PROCESSES], &parent_key);
		if (parent && !p->exe[0])
			memcpy(p->exe, parent->exe, sizeof(p->exe));
		if (parent && !p->cgroup_id)
			p->cgroup_id = parent->cgroup_id;
		comm = p->comm;
		break;
	}
	case FTAGENT_REC_EXEC: {
		const struct ftagent_rec_exec *e = rec->body;

		p = proc_row(c, hdr->tgid, now);
		p->ppid = e->ppid;
		p->uid = e->uid;
		p->cgroup_id = e->cgroup_id;
		ftd_proc_group_cgroup_known(c, p);
		p->exited = 0;
		copy_comm(p->comm, e->comm);
		if (rec->n_str >= 1)
			copy_str(p->exe, sizeof(p->exe), rec->str[0],
				 rec->str_len[0], NULL);
		comm = p->comm;
		break;
	}
	case FTAGENT_REC_EXIT: {
		const struct ftagent_rec_exit *x = rec->body;

		p = proc_row(c, hdr->tgid, now);
		p->exited = 1;
		p->exit_code = x->exit_code;
		p->io = *x;
		copy_comm(p->comm, x->comm);
		comm = p->comm;
		break;
	}
	case FTAGENT_REC_CONNECT:
	case FTAGENT_REC_ACCEPT:
	case FTAGENT_REC_CLOSE:
	case FTAGENT_REC_BIND:
	case FTAGENT_REC_LISTEN: on_sock_record(c, rec, now); break;
	case FTAGENT_REC_OPEN: on_open_record(c, rec, now); break;
	case FTAGENT_REC_VERDICT: {
		struct ftagent_rec_verdict v;

		memcpy(&v, rec->body, sizeof(v));
		ftd_verdicts_add(&c->verdicts, &v);
		break;
	}
	default: break;
	}
	if (!comm) {
		struct ftd_proc_key key = {.tgid = hdr->tgid};

		p = ftd_table_find(&c->table[FTD_T_PROCESSES], &key);
		comm = p ? p->comm : NULL;
	}
	if (hdr->type == FTAGENT_REC_GAP)
		return; /* counted above; not an event of a process */
	if (ftd_eventlog_append(&c->log, hdr, hdr->size, realtime_ns, comm) < 0)
		c->drops[FTD_DROP_EVENT_LOG]++;
}

/* One process's counters within a generation, for transfer attribution. */
struct gen_group {
	const struct ftagent_counter **file_reads, **sock_sends;
	size_t n_reads, n_sends;
	uint64_t read, sent, direct;
};

#define ATTRIBUTE_MAX_ENDS 8 /* files or sockets per process and generation */

/*
 * Read-then-send: a process that read R bytes from files and sent S bytes
 * on sockets in one generation (beyond what sendfile moved directly) is
 * taken to have sent min(R, S) bytes of those files, split in proportion
 * to what each file gave and each socket took. A process with more than
 * ATTRIBUTE_MAX_ENDS files or sockets in a generation is not attributed:
 * a guess spread that thin would mislead.
 */
static void attribute(struct ftd_collector *c, uint32_t tgid,
		      const struct gen_group *g, uint64_t now)
{
	uint64_t read, sent, moved;
	size_t i, j;

	if (!g->n_reads || !g->n_sends || g->n_reads > ATTRIBUTE_MAX_ENDS ||
	    g->n_sends > ATTRIBUTE_MAX_ENDS)
		return;
	read = g->read > g->direct ? g->read - g->direct : 0;
	sent = g->sent > g->direct ? g->sent - g->direct : 0;
	moved = read < sent ? read : sent;
	if (!moved)
		return;
	for (i = 0; i < g->n_reads; i++) {
		for (j = 0; j < g->n_sends; j++) {
			const struct ftagent_counter *f = g->file_reads[i];
			const struct ftagent_counter *s = g->sock_sends[j];
			struct ftd_xfer_key key = {
				.tgid = tgid,
				.dev = f->dev,
				.ino = f->ino,
				.sock_ino = s->ino,
				.attributed = 1,
			};
			unsigned __int128 share =
				(unsigned __int128)moved * f->in.bytes *
				s->out.bytes /
				((unsigned __int128)g->read * g->sent);
			struct ftd_xfer *x;

			if (!share)
				continue;
			x = ftd_table_get(&c->table[FTD_T_TRANSFERS], &key,
					  NULL);
			x->bytes += (uint64_t)share;
			x->last_ns = now;
		}
	}
}

static void merge_counter(struct ftd_collector *c,
			  const struct ftagent_counter *k, uint64_t now)
{
	struct ftd_inout d = {0};
	struct ftd_proc *p;

	if (k->kind == FTAGENT_OBJ_TRANSFER) {
		struct ftd_xfer_key key = {.tgid = k->tgid,
					   .dev = k->dev,
					   .ino = k->ino,
					   .sock_ino = k->peer_ino};
		struct ftd_xfer *x =
			ftd_table_get(&c->table[FTD_T_TRANSFERS], &key, NULL);

		x->bytes += k->out.bytes;
		x->calls += k->out.calls;
		x->last_ns = now;
		return; /* its bytes are in the file and socket counters too */
	}
	add(&d.in, &k->in);
	add(&d.out, &k->out);
	p = proc_row(c, k->tgid, now);
	switch (k->kind) {
	case FTAGENT_OBJ_SOCKET: {
		struct ftd_sock_key key = {.tgid = k->tgid, .ino = k->ino};
		struct ftd_sock *s =
			ftd_table_get(&c->table[FTD_T_SOCKETS], &key, NULL);

		add_io(&p->net, &d);
		add_io(&s->io, &d);
		ftd_groups_add(&c->groups, ftd_proc_group_name(c, p),
			       FTD_GO_SOCKET, d.in.bytes, d.out.bytes);
		s->family = k->family;
		s->protocol = ftagent_counter_protocol(k);
		s->last_ns = now;
		if (s->known) {
			struct ftd_flow *f = ftd_table_get(
				&c->table[FTD_T_FLOWS], &s->flow, NULL);

			add_io(&f->io, &d);
			f->last_ns = now;
		}
		break;
	}
	case FTAGENT_OBJ_FILE: {
		struct ftd_file_key key = {.dev = k->dev, .ino = k->ino};
		struct ftd_file *f =
			ftd_table_get(&c->table[FTD_T_FILES], &key, NULL);

		add_io(&p->file, &d);
		add_io(&f->io, &d);
		ftd_groups_add(&c->groups, ftd_proc_group_name(c, p),
			       FTD_GO_FILE, d.in.bytes, d.out.bytes);
		f->last_ns = now;
		break;
	}
	default: add_io(&p->other, &d); break;
	}
}

static int by_tgid(const void *a, const void *b)
{
	const struct ftagent_counter *x =
		*(const struct ftagent_counter *const *)a;
	const struct ftagent_counter *y =
		*(const struct ftagent_counter *const *)b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static void attribute_generation(struct ftd_collector *c,
				 const struct ftagent_generation *gen,
				 uint64_t now)
{
	const struct ftagent_counter **order, **reads, **sends;
	size_t i = 0, j;

	order = calloc(gen->n_counters, sizeof(*order));
	reads = calloc(ATTRIBUTE_MAX_ENDS + 1, sizeof(*reads));
	sends = calloc(ATTRIBUTE_MAX_ENDS + 1, sizeof(*sends));
	if (!order || !reads || !sends)
		goto out;
	for (j = 0; j < gen->n_counters; j++)
		order[j] = &gen->counters[j];
	qsort(order, gen->n_counters, sizeof(*order), by_tgid);
	while (i < gen->n_counters) {
		struct gen_group g = {.file_reads = reads, .sock_sends = sends};
		uint32_t tgid = order[i]->tgid;

		for (; i < gen->n_counters && order[i]->tgid == tgid; i++) {
			const struct ftagent_counter *k = order[i];

			if (k->kind == FTAGENT_OBJ_TRANSFER) {
				g.direct += k->out.bytes;
			} else if (k->kind == FTAGENT_OBJ_FILE && k->in.bytes) {
				g.read += k->in.bytes;
				if (g.n_reads <= ATTRIBUTE_MAX_ENDS)
					reads[g.n_reads] = k;
				g.n_reads++;
			} else if (k->kind == FTAGENT_OBJ_SOCKET &&
				   k->out.bytes) {
				g.sent += k->out.bytes;
				if (g.n_sends <= ATTRIBUTE_MAX_ENDS)
					sends[g.n_sends] = k;
				g.n_sends++;
			}
		}
		attribute(c, tgid, &g, now);
	}
out:
	free(order);
	free(reads);
	free(sends);
}

void ftd_collector_generation(struct ftd_collector *c,
			      const struct ftagent_generation *gen)
{
	uint64_t now = ftd_clock_ns(CLOCK_MONOTONIC);
	size_t i;
	int l;

	for (i = 0; i < gen->n_counters; i++) {
		merge_counter(c, &gen->counters[i], now);
		ftd_totals_account(&c->totals, &gen->counters[i]);
	}
	if (c->attribute_transfers)
		attribute_generation(c, gen, now);
	for (i = 0; i < gen->n_cpus; i++)
		for (l = 0; l < __FTAGENT_LOSS_MAX; l++)
			c->kernel_lost[l] += gen->cpus[i].lost[l];
	c->generations++;
	c->counters += gen->n_counters;
	c->last_gen_seq = gen->seq;
}
