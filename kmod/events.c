// SPDX-License-Identifier: GPL-2.0
/*
 * The event channel.
 *
 * Records go into a relay channel, one buffer per CPU, each cut into
 * sub-buffers. The channel never overwrites: when a CPU's sub-buffers are
 * all unread, a record is lost and counted by cause. Every record
 * generated on a CPU takes that CPU's next sequence number, written or
 * not, so emitted = delivered + lost holds per CPU; the first record
 * written after a loss is preceded by a GAP record that says how many and
 * why, in the same reservation, so the two are never separated.
 *
 * Writers run with preemption off (tracepoints, ftrace callbacks); a
 * record is built in the CPU's scratch area and copied into the buffer
 * with interrupts off, and the buffer's write offset moves only after the
 * copy, so a reader on another CPU never sees half a record. The channel
 * pointer is RCU-protected: resizing swaps it out, waits for writers,
 * then closes the old one.
 *
 * The channel lives as long as the module (or until a resize), not as
 * long as a mount: relay gets no files, and the module makes one file
 * per CPU buffer itself in ftagentfs while it is mounted. So records
 * written while no daemon runs (nothing mounted, or a mount in another
 * namespace gone) wait in the buffer, up to its size, for the next reader;
 * mounting and unmounting never discard any. A CPU brought online after
 * the mount gets its file at the next mount or resize.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <asm/local64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "eventfs.h"
#include "events.h"
#include "ftagent.h"

struct ftagent_ev_cpu {
	local64_t seq;			/* next record number: emitted */
	local64_t lost[__FTAGENT_EV_LOSS_MAX];
	u64 delivered;
	u64 discarded;			/* delivered, dropped with a channel */
	u64 next_written;		/* the record number a GAP must follow */
	u64 lost_at_gap[__FTAGENT_EV_LOSS_MAX]; /* lost[] at the last write */
	u64 peak_bytes;
	seqcount_t pos_seq;		/* around every change of the position */
	int busy;			/* a record is being built */
	u8 rec[FTAGENT_EV_REC_MAX] __aligned(8);
	char path[FTAGENT_REC_PATH_MAX];
} ____cacheline_aligned;

static struct ftagent_ev_cpu *ftagent_ev_cpus;
static struct rchan __rcu *ftagent_chan;
/* Serialises channel replacement and the mount's file attach/detach. */
static DEFINE_MUTEX(ftagent_chan_lock);
static struct dentry *ftagent_files_root;	/* fs root while mounted */
static struct dentry **ftagent_files;		/* per CPU, while mounted */
static struct ftagent_events_geometry ftagent_geo;

/* Loss alerts: at most one per interval, armed by the first loss. */
static void ftagent_loss_alert_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ftagent_loss_alert_work, ftagent_loss_alert_fn);
static unsigned long ftagent_alert_armed;
static unsigned long ftagent_last_alert;	/* jiffies */
static u64 ftagent_alerted[__FTAGENT_EV_LOSS_MAX];

/* Preemption is off in every caller. */
static struct ftagent_ev_cpu *ftagent_ev_this_cpu(void)
{
	return &ftagent_ev_cpus[smp_processor_id()];
}

static int ftagent_subbuf_start(struct rchan_buf *buf, void *subbuf,
				void *prev_subbuf, size_t prev_padding)
{
	/* No overwriting: a full buffer refuses the record instead. */
	return !relay_buf_full(buf);
}

static struct dentry *ftagent_create_buf_file(const char *filename,
					      struct dentry *parent,
					      umode_t mode,
					      struct rchan_buf *buf,
					      int *is_global)
{
	/*
	 * The channel has no files of relay's (ftagent_files_create() makes
	 * them): relay asks with no name and only wants a non-NULL answer.
	 */
	return filename ? NULL : ZERO_SIZE_PTR;
}

static int ftagent_remove_buf_file(struct dentry *dentry)
{
	return 0;
}

static const struct rchan_callbacks ftagent_relay_callbacks = {
	.subbuf_start = ftagent_subbuf_start,
	.create_buf_file = ftagent_create_buf_file,
	.remove_buf_file = ftagent_remove_buf_file,
};

u32 ftagent_events_default_size(unsigned int mode)
{
	u32 size = mode == FTAGENT_MODE_MINIMAL ? FTAGENT_RING_MINIMAL_DEFAULT :
						  FTAGENT_RING_STANDARD_DEFAULT;

	return max_t(u32, size, num_possible_cpus() * FTAGENT_RING_PER_CPU_MIN);
}

const char *ftagent_events_size_invalid(u32 bytes)
{
	if (bytes > FTAGENT_RING_SIZE_MAX)
		return "ring_buffer_size is larger than 1 GiB";
	if (bytes / num_possible_cpus() < FTAGENT_RING_PER_CPU_MIN)
		return "ring_buffer_size must give every CPU at least 64 KiB";
	/*
	 * relay_open() takes every page at once (and a resize holds both
	 * rings for a moment): past this, the allocation wakes the OOM
	 * killer instead of failing. Found by the netlink fuzzer.
	 */
	if (bytes > ((u64)totalram_pages() << PAGE_SHIFT) / 8)
		return "ring_buffer_size is more than an eighth of this machine's memory";
	return NULL;
}

/*
 * Sub-buffers: 4 a CPU below 512 KiB, else 8; whole pages, so at least
 * 16 KiB each, three times the largest record.
 */
static void ftagent_geometry_for(u32 bytes, struct ftagent_events_geometry *g)
{
	u32 per_cpu = bytes / num_possible_cpus();

	g->n_subbufs = per_cpu < (512U << 10) ? 4 : 8;
	g->subbuf_size = rounddown(per_cpu / g->n_subbufs, PAGE_SIZE);
	g->ring_bytes = bytes;
}

/* Caller holds ftagent_chan_lock. Buffers only: the files are ours. */
static struct rchan *ftagent_chan_open(const struct ftagent_events_geometry *g)
{
	return relay_open(NULL, NULL, g->subbuf_size, g->n_subbufs,
			  &ftagent_relay_callbacks, NULL);
}

/* Caller holds ftagent_chan_lock. Take the per-CPU files away. */
static void ftagent_files_remove(void)
{
	int cpu;

	if (!ftagent_files)
		return;
	for_each_possible_cpu(cpu)
		ftagent_eventfs_remove_file(ftagent_files[cpu]);
	kfree(ftagent_files);
	ftagent_files = NULL;
}

/*
 * Caller holds ftagent_chan_lock. One file per CPU buffer of the channel
 * in force, in the mount's root (the names relay would give, events<N>).
 */
static int ftagent_files_create(void)
{
	struct rchan *chan = rcu_dereference_protected(ftagent_chan,
				lockdep_is_held(&ftagent_chan_lock));
	char name[sizeof(FTAGENT_EVENTS_FILE) + 12];
	struct rchan_buf *buf;
	struct dentry *d;
	int cpu;

	if (!ftagent_files_root || !chan || ftagent_files)
		return 0;
	ftagent_files = kcalloc(nr_cpu_ids, sizeof(*ftagent_files),
				GFP_KERNEL);
	if (!ftagent_files)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		buf = *per_cpu_ptr(chan->buf, cpu);
		if (!buf)
			continue;
		snprintf(name, sizeof(name), "%s%d", FTAGENT_EVENTS_FILE, cpu);
		d = ftagent_eventfs_create_file(name, ftagent_files_root,
						0400, buf);
		if (IS_ERR(d)) {
			ftagent_files_remove();
			return PTR_ERR(d);
		}
		ftagent_files[cpu] = d;
	}
	return 0;
}

/*
 * Records in @buf not yet wholly read: walked from the start of the first
 * sub-buffer not handed back (a record a reader has only part of counts),
 * through each complete one up to its padding, and the current one up to
 * the write offset. No writer runs; readers are kept out by the caller.
 */
static u64 ftagent_unread_records(struct rchan_buf *buf)
{
	size_t sb = buf->chan->subbuf_size, n = buf->chan->n_subbufs;
	size_t i, off, end, first = buf->subbufs_consumed;
	const struct ftagent_rec_hdr *hdr;
	u64 count = 0;

	for (i = first; i <= buf->subbufs_produced; i++) {
		if (i < buf->subbufs_produced)
			end = sb - buf->padding[i % n];
		else	/* the current one; none while the buffer is full */
			end = buf->offset > sb ? 0 : buf->offset;
		if (i - first >= n)
			break;	/* full: the current one is the first again */
		for (off = 0; off + sizeof(*hdr) <= end; off += hdr->size) {
			hdr = buf->start + (i % n) * sb + off;
			if (hdr->size < sizeof(*hdr) || off + hdr->size > end)
				break;
			if (hdr->type != FTAGENT_REC_GAP &&
			    (i != first || off + hdr->size > buf->bytes_consumed))
				count++;
		}
	}
	return count;
}

/*
 * Count what nobody read and close the buffers to readers in one step:
 * a read() after this returns nothing (eventfs.c checks finalized under
 * the same lock), so no record is both discarded and read.
 */
static void ftagent_count_discarded(struct rchan *chan)
{
	struct rchan_buf *buf;
	int cpu;

	ftagent_eventfs_readers_lock();
	for_each_possible_cpu(cpu) {
		buf = *per_cpu_ptr(chan->buf, cpu);
		if (!buf)
			continue;
		ftagent_ev_cpus[cpu].discarded += ftagent_unread_records(buf);
		WRITE_ONCE(buf->finalized, 1);
	}
	ftagent_eventfs_readers_unlock();
}

/* Caller holds ftagent_chan_lock: no writer uses the channel after this. */
static void ftagent_chan_close(void)
{
	struct rchan *old;
	int cpu, k;

	old = rcu_replace_pointer(ftagent_chan, NULL,
				  lockdep_is_held(&ftagent_chan_lock));
	if (!old)
		return;
	ftagent_files_remove();
	synchronize_rcu();
	ftagent_count_discarded(old);
	relay_close(old);
	/* A new channel starts with empty buffers: no gap to report. */
	for_each_possible_cpu(cpu) {
		struct ftagent_ev_cpu *c = &ftagent_ev_cpus[cpu];

		c->next_written = local64_read(&c->seq);
		for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
			c->lost_at_gap[k] = local64_read(&c->lost[k]);
	}
}

static int ftagent_chan_replace(const struct ftagent_events_geometry *g)
{
	struct rchan *chan;

	ftagent_chan_close();
	chan = ftagent_chan_open(g);
	if (!chan)
		return -ENOMEM;
	ftagent_geo = *g;
	rcu_assign_pointer(ftagent_chan, chan);
	if (ftagent_files_create())
		pr_err("event files not created: remount %s\n", FTAGENT_FS_TYPE);
	return 0;
}

int ftagent_events_resize(u32 bytes)
{
	struct ftagent_events_geometry g, old;
	int err;

	ftagent_geometry_for(bytes, &g);
	mutex_lock(&ftagent_chan_lock);
	old = ftagent_geo;
	if (g.subbuf_size == old.subbuf_size && g.n_subbufs == old.n_subbufs &&
	    rcu_access_pointer(ftagent_chan)) {
		ftagent_geo.ring_bytes = bytes;
		mutex_unlock(&ftagent_chan_lock);
		return 0;
	}
	err = ftagent_chan_replace(&g);
	if (err && ftagent_chan_replace(&old))
		pr_err("event channel lost: events are counted as no_buffer\n");
	mutex_unlock(&ftagent_chan_lock);
	return err;
}

/*
 * Mounted: files for the channel in force, which stays; what it holds
 * (written while nothing was mounted) is there to read.
 */
int ftagent_events_attach_files(struct dentry *root)
{
	int err;

	mutex_lock(&ftagent_chan_lock);
	ftagent_files_root = root;
	err = ftagent_files_create();
	if (err)
		ftagent_files_root = NULL;
	mutex_unlock(&ftagent_chan_lock);
	return err;
}

/*
 * Unmounted: the files go, the channel and its unread records stay for
 * the next mount (nobody could be reading: open files keep the mount).
 */
void ftagent_events_detach_files(void)
{
	mutex_lock(&ftagent_chan_lock);
	ftagent_files_remove();
	ftagent_files_root = NULL;
	mutex_unlock(&ftagent_chan_lock);
}

/* Jiffies until the next loss alert may go out: 0 if it may now. */
static unsigned long ftagent_loss_alert_wait(void)
{
	unsigned long due = READ_ONCE(ftagent_last_alert) +
			    msecs_to_jiffies(FTAGENT_ALERT_INTERVAL_MS);
	unsigned long now = jiffies;

	return time_after(due, now) ? due - now : 0;
}

static void ftagent_loss_alert_fn(struct work_struct *work)
{
	unsigned long wait = ftagent_loss_alert_wait();
	u64 delta[__FTAGENT_EV_LOSS_MAX], total = 0, any = 0;
	int cpu, k;

	/*
	 * A loss while the last run was sending armed this one from the
	 * last alert but one: the interval is kept here, where the last
	 * alert is known (only this work writes it, one run at a time).
	 */
	if (wait) {
		schedule_delayed_work(&ftagent_loss_alert_work, wait);
		return;
	}
	/* Cleared first: a loss from now on arms the next alert. */
	clear_bit(0, &ftagent_alert_armed);
	/*
	 * Pairs with the barrier in ftagent_arm_loss_alert(): a loss this
	 * run does not read saw the bit clear, and arms the next run.
	 */
	smp_mb__after_atomic();
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += local64_read(&ftagent_ev_cpus[cpu].lost[k]);
		delta[k] = sum - ftagent_alerted[k];
		any |= delta[k];
		total += sum;
	}
	if (!any)
		return;
	if (!ftagent_genl_loss_alert(delta, __FTAGENT_EV_LOSS_MAX, total)) {
		for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
			ftagent_alerted[k] += delta[k];
	}
	WRITE_ONCE(ftagent_last_alert, jiffies);
}

static void ftagent_arm_loss_alert(void)
{
	/*
	 * The loss counted before the bit is read, against the work's clear
	 * then read of the counts: one of the two sees the other. Only on a
	 * loss, never on a record that fits.
	 */
	smp_mb();
	if (test_bit(0, &ftagent_alert_armed) ||
	    test_and_set_bit(0, &ftagent_alert_armed))
		return;
	schedule_delayed_work(&ftagent_loss_alert_work,
			      ftagent_loss_alert_wait());
}

static void ftagent_event_lost(struct ftagent_ev_cpu *c,
			       enum ftagent_event_loss cause)
{
	local64_inc(&c->lost[cause]);
	/* Workqueues are not for NMI context; the next loss reports it. */
	if (!in_nmi())
		ftagent_arm_loss_alert();
}

struct ftagent_rec_hdr *ftagent_event_begin(unsigned int type)
{
	struct ftagent_ev_cpu *c = ftagent_ev_this_cpu();
	struct ftagent_rec_hdr *hdr;

	if (unlikely(in_nmi())) {
		local64_inc(&c->seq);
		ftagent_event_lost(c, FTAGENT_EV_LOSS_NMI);
		return NULL;
	}
	if (unlikely(c->busy)) {
		local64_inc(&c->seq);
		ftagent_event_lost(c, FTAGENT_EV_LOSS_RECURSION);
		return NULL;
	}
	c->busy = 1;
	hdr = (struct ftagent_rec_hdr *)c->rec;
	memset(hdr, 0, sizeof(*hdr));
	hdr->type = type;
	hdr->tgid = current->tgid;
	hdr->pid = current->pid;
	return hdr;
}

void ftagent_event_cancel(struct ftagent_rec_hdr *hdr)
{
	ftagent_ev_this_cpu()->busy = 0;
}

char *ftagent_event_path_buf(void)
{
	return ftagent_ev_this_cpu()->path;
}

size_t ftagent_event_put_str(struct ftagent_rec_hdr *hdr, size_t *size,
			     const char *s, size_t len, size_t max,
			     u16 trunc_flag)
{
	if (len > max) {
		len = max;
		hdr->flags |= trunc_flag;
	}
	memcpy((u8 *)hdr + *size, s, len);
	*size += len;
	return len;
}

/* Fill @gap for the records lost since the last one written. */
static size_t ftagent_gap_record(struct ftagent_ev_cpu *c, u64 seq, int cpu,
				 u64 now, u8 *out)
{
	struct ftagent_rec_hdr *hdr = (struct ftagent_rec_hdr *)out;
	struct ftagent_rec_gap *gap = (struct ftagent_rec_gap *)(hdr + 1);
	size_t size = sizeof(*hdr) + sizeof(*gap);
	int k;

	memset(out, 0, size);
	hdr->type = FTAGENT_REC_GAP;
	hdr->size = size;
	hdr->body_size = sizeof(*gap);
	hdr->cpu = cpu;
	hdr->seq = seq;
	hdr->time_ns = now;
	gap->first_seq = c->next_written;
	gap->lost = seq - c->next_written;
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		gap->lost_by_cause[k] = local64_read(&c->lost[k]) -
					c->lost_at_gap[k];
	return size;
}

/*
 * Reserve @len bytes in @buf's current sub-buffer; NULL when full. The
 * switch is refused here, before relay completes the current sub-buffer:
 * relay's own refusal bumps the produced count first, and a read() on
 * another CPU in that window takes it for an overrun and skips an unread
 * sub-buffer. So relay never sees a full buffer, and never skips one.
 */
static void *ftagent_relay_reserve(struct rchan_buf *buf, size_t len)
{
	struct rchan *chan = buf->chan;

	if (unlikely(buf->offset + len > chan->subbuf_size)) {
		if (buf->subbufs_produced + 1 -
		    READ_ONCE(buf->subbufs_consumed) >= chan->n_subbufs)
			return NULL;
		if (!relay_switch_subbuf(buf, len))
			return NULL;
	}
	return buf->data + buf->offset;
}

void ftagent_event_commit(struct ftagent_rec_hdr *hdr, size_t size)
{
	struct ftagent_ev_cpu *c = ftagent_ev_this_cpu();
	struct rchan_buf *buf = NULL;
	u8 gap[sizeof(struct ftagent_rec_hdr) + sizeof(struct ftagent_rec_gap)];
	size_t gap_size = 0, padded = ALIGN(size, FTAGENT_REC_ALIGN);
	unsigned long flags;
	struct rchan *chan;
	u64 seq, now, fill;
	int cpu = smp_processor_id(), k;
	u8 *dst;

	memset((u8 *)hdr + size, 0, padded - size);
	hdr->size = padded;
	hdr->cpu = cpu;
	now = ktime_get_ns();
	hdr->time_ns = now;

	local_irq_save(flags);
	seq = local64_inc_return(&c->seq) - 1;
	hdr->seq = seq;
	chan = rcu_dereference_sched(ftagent_chan);
	if (chan)
		buf = *per_cpu_ptr(chan->buf, cpu);
	if (unlikely(!buf)) {
		ftagent_event_lost(c, FTAGENT_EV_LOSS_NO_BUFFER);
		goto out;
	}
	if (seq != c->next_written)
		gap_size = ftagent_gap_record(c, seq, cpu, now, gap);
	if (unlikely(padded + gap_size > chan->subbuf_size)) {
		ftagent_event_lost(c, FTAGENT_EV_LOSS_TOO_BIG);
		goto out;
	}
	/* mmap readers take the position only between whole records. */
	raw_write_seqcount_begin(&c->pos_seq);
	dst = ftagent_relay_reserve(buf, padded + gap_size);
	if (!dst) {
		raw_write_seqcount_end(&c->pos_seq);
		ftagent_event_lost(c, FTAGENT_EV_LOSS_BUFFER_FULL);
		goto out;
	}
	memcpy(dst, gap, gap_size);
	memcpy(dst + gap_size, hdr, padded);
	/* Readers on other CPUs trust the offset: data first. */
	smp_wmb();
	WRITE_ONCE(buf->offset, buf->offset + padded + gap_size);
	raw_write_seqcount_end(&c->pos_seq);
	c->delivered++;
	c->next_written = seq + 1;
	if (gap_size)
		for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
			c->lost_at_gap[k] = local64_read(&c->lost[k]);
	fill = (u64)(buf->subbufs_produced - buf->subbufs_consumed) *
	       chan->subbuf_size + buf->offset;
	if (fill > c->peak_bytes)
		c->peak_bytes = fill;
out:
	local_irq_restore(flags);
	c->busy = 0;
}

void ftagent_events_buf_pos(struct rchan_buf *buf, struct ftagent_buf_pos *pos)
{
	struct ftagent_ev_cpu *c = &ftagent_ev_cpus[buf->cpu];
	size_t offset;
	unsigned int seq;

	memset(pos, 0, sizeof(*pos));
	do {
		seq = raw_read_seqcount_begin(&c->pos_seq);
		offset = READ_ONCE(buf->offset);
		pos->produced = READ_ONCE(buf->subbufs_produced);
		pos->consumed = READ_ONCE(buf->subbufs_consumed);
	} while (read_seqcount_retry(&c->pos_seq, seq));
	pos->subbuf_size = buf->chan->subbuf_size;
	pos->n_subbufs = buf->chan->n_subbufs;
	/* The writer refuses the switch when no sub-buffer is free. */
	pos->full = pos->produced + 1 - pos->consumed >= pos->n_subbufs;
	pos->offset = min_t(size_t, offset, pos->subbuf_size);
}

void ftagent_events_cpu_view(int cpu, struct ftagent_event_cpu_view *v)
{
	struct ftagent_ev_cpu *c = &ftagent_ev_cpus[cpu];
	int k;

	v->emitted = local64_read(&c->seq);
	v->delivered = READ_ONCE(c->delivered);
	v->discarded = READ_ONCE(c->discarded);
	v->peak_bytes = READ_ONCE(c->peak_bytes);
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		v->lost[k] = local64_read(&c->lost[k]);
}

void ftagent_events_geometry(struct ftagent_events_geometry *g)
{
	mutex_lock(&ftagent_chan_lock);
	*g = ftagent_geo;
	mutex_unlock(&ftagent_chan_lock);
}

size_t ftagent_events_memory(void)
{
	struct ftagent_events_geometry g;

	ftagent_events_geometry(&g);
	return (size_t)nr_cpu_ids * sizeof(struct ftagent_ev_cpu) +
	       (size_t)num_online_cpus() *
	       PAGE_ALIGN((size_t)g.subbuf_size * g.n_subbufs);
}

int ftagent_events_init(u32 ring_bytes)
{
	struct ftagent_events_geometry g;
	int err, cpu;

	ftagent_ev_cpus = kvcalloc(nr_cpu_ids, sizeof(*ftagent_ev_cpus),
				   GFP_KERNEL);
	if (!ftagent_ev_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		seqcount_init(&ftagent_ev_cpus[cpu].pos_seq);
	ftagent_geometry_for(ring_bytes, &g);
	mutex_lock(&ftagent_chan_lock);
	err = ftagent_chan_replace(&g);
	mutex_unlock(&ftagent_chan_lock);
	if (err)
		goto err_free;
	return 0;

err_free:
	kvfree(ftagent_ev_cpus);
	return err;
}

/* Every writer (hook, tracepoint) is gone before this runs. */
void ftagent_events_exit(void)
{
	/* The filesystem is gone (main.c), so no files exist by now. */
	mutex_lock(&ftagent_chan_lock);
	ftagent_chan_close();
	mutex_unlock(&ftagent_chan_lock);
	cancel_delayed_work_sync(&ftagent_loss_alert_work);
	kvfree(ftagent_ev_cpus);
}
