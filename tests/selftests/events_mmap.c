// SPDX-License-Identifier: GPL-2.0
/*
 * The mmap() reader: map one CPU's event buffer, find the records from
 * FTAGENT_IOC_BUF_POS and the sequence numbers, hand sub-buffers back
 * with FTAGENT_IOC_CONSUMED, and lose nothing while doing so, on the
 * smallest buffer, where an mmap reader that did not hand back would
 * lose most records.
 *
 * Ground truth: the paths this process opened, and the module's per-CPU
 * emitted/delivered/lost counts, which must match what the mapping held.
 */
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define ROUNDS		20
#define OPENS_PER_ROUND 300 /* about two 16 KiB sub-buffers of opens */

struct mapped {
	int fd;
	unsigned char *map;
	size_t len;
	struct ftagent_buf_pos pos;
	uint64_t next_seq; /* the record number expected next */
	int have_seq;
	uint64_t ours, others, gaps;
};

static const char *marker = "/tmp/ftagent-mmap-test";

static int map_cpu(struct mapped *m, unsigned int cpu)
{
	char path[64];

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%s%u", FTAGENT_FS_MOUNTPOINT,
		 FTAGENT_EVENTS_FILE, cpu);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0 || ioctl(m->fd, FTAGENT_IOC_BUF_POS, &m->pos) < 0)
		return -1;
	m->len = (size_t)m->pos.subbuf_size * m->pos.n_subbufs;
	m->map = mmap(NULL, m->len, PROT_READ, MAP_SHARED, m->fd, 0);
	return m->map == MAP_FAILED ? -1 : 0;
}

/* Walk the records of sub-buffer @n from @from up to @end bytes. */
static size_t walk(struct mapped *m, uint64_t n, size_t from, size_t end)
{
	const unsigned char *sb =
		m->map + (n % m->pos.n_subbufs) * m->pos.subbuf_size;
	struct ftagent_rec_hdr h;
	size_t off = from;

	while (off + sizeof(h) <= end) {
		memcpy(&h, sb + off, sizeof(h));
		/* Padding or an older lap: the numbers stop following on. */
		if (!h.size || h.size % 8 || off + h.size > end ||
		    (m->have_seq && h.seq != m->next_seq))
			break;
		if (h.type == FTAGENT_REC_GAP) {
			m->gaps++;
		} else {
			m->next_seq = h.seq + 1;
			m->have_seq = 1;
			if (h.type == FTAGENT_REC_OPEN &&
			    (pid_t)h.tgid == getpid() &&
			    h.body_size >= sizeof(struct ftagent_rec_open) &&
			    !memcmp(sb + off + sizeof(h) + h.body_size, marker,
				    strlen(marker)))
				m->ours++;
			else
				m->others++;
		}
		off += h.size;
	}
	return off;
}

/*
 * Read every complete sub-buffer not yet handed back, hand them back,
 * and read the current one up to the writer's offset (it is read again,
 * from where we stopped, once it completes).
 */
static size_t cur_done;

static int drain(struct mapped *m)
{
	uint64_t n;
	uint32_t done;

	if (ioctl(m->fd, FTAGENT_IOC_BUF_POS, &m->pos) < 0)
		return -1;
	for (n = m->pos.consumed; n < m->pos.produced; n++) {
		walk(m, n, n == m->pos.consumed ? cur_done : 0,
		     m->pos.subbuf_size);
		cur_done = 0;
	}
	done = m->pos.produced - m->pos.consumed;
	if (done && ioctl(m->fd, FTAGENT_IOC_CONSUMED, &done) < 0)
		return -1;
	cur_done = walk(m, m->pos.produced, cur_done, m->pos.offset);
	return 0;
}

static int cpu_events(unsigned int cpu, uint64_t *emitted, uint64_t *delivered,
		      uint64_t *lost)
{
	struct ftagent_resources res;
	size_t i;

	if (ev_resources(&res) < 0)
		return -1;
	for (i = 0; i < res.n_cpus; i++) {
		if (res.cpus[i].cpu != cpu)
			continue;
		*emitted = res.cpus[i].ev_emitted;
		*delivered = res.cpus[i].ev_delivered;
		*lost = ftagent_cpu_ev_lost(&res.cpus[i]);
	}
	ftagent_resources_free(&res);
	return 0;
}

FIXTURE(mmap_reader)
{
	struct mapped m;
};

FIXTURE_SETUP(mmap_reader)
{
	struct ftnl_error err;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, ftagent_events_mount(NULL));
	/* The smallest buffer: 4 sub-buffers of 16 KiB a CPU. */
	ASSERT_EQ(0, ev_set_ring(NULL, ev_possible_cpus() * 65536, &err))
	TH_LOG("SET_CONFIG ring: %s", err.msg);
	ASSERT_EQ(0, map_cpu(&self->m, 0));
	cur_done = 0;
}

FIXTURE_TEARDOWN(mmap_reader)
{
	struct ftnl_error err;

	if (self->m.map && self->m.map != MAP_FAILED)
		munmap(self->m.map, self->m.len);
	if (self->m.fd >= 0)
		close(self->m.fd);
	ev_set_ring(NULL, 0, &err);
}

TEST_F(mmap_reader, handing_back_sub_buffers_loses_nothing)
{
	uint64_t e0, d0, l0, e1, d1, l1;
	char path[64];
	int round, i, fd;

	ASSERT_EQ(4, self->m.pos.n_subbufs);
	ASSERT_EQ(16384, self->m.pos.subbuf_size);
	ASSERT_EQ(0, drain(&self->m));
	ASSERT_EQ(0, cpu_events(0, &e0, &d0, &l0));
	/* Everything before S0 is read: count from S0's number on. */
	self->m.next_seq = e0;
	self->m.have_seq = 1;
	self->m.ours = self->m.others = 0;
	snprintf(path, sizeof(path), "%s.%d", marker, getpid());
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < OPENS_PER_ROUND; i++) {
			fd = open(path, O_RDONLY | O_CREAT, 0600);
			ASSERT_LE(0, fd);
			close(fd);
		}
		ASSERT_EQ(0, drain(&self->m));
	}
	ASSERT_EQ(0, cpu_events(0, &e1, &d1, &l1));
	ASSERT_EQ(0, drain(&self->m));
	unlink(path);

	/* The workload alone is 15 times what the buffer holds. */
	EXPECT_EQ((uint64_t)ROUNDS * OPENS_PER_ROUND, self->m.ours);
	EXPECT_EQ(0, l1 - l0);
	EXPECT_EQ(0, self->m.gaps);
	/* Every record generated since S0 was found in the mapping. */
	EXPECT_LE(e1 - e0, self->m.ours + self->m.others);
	EXPECT_EQ(e1 - e0, d1 - d0);
}

TEST_F(mmap_reader, without_handing_back_the_buffer_fills_and_counts)
{
	uint64_t e0, d0, l0, e1, d1, l1;
	struct pollfd pfd = {.fd = self->m.fd, .events = POLLIN};
	char path[64];
	int i, fd;

	ASSERT_EQ(0, drain(&self->m));
	ASSERT_EQ(0, cpu_events(0, &e0, &d0, &l0));
	snprintf(path, sizeof(path), "%s.%d", marker, getpid());
	for (i = 0; i < ROUNDS * OPENS_PER_ROUND; i++) {
		fd = open(path, O_RDONLY | O_CREAT, 0600);
		ASSERT_LE(0, fd);
		close(fd);
	}
	unlink(path);
	/* Complete sub-buffers wait: poll says so. */
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, ioctl(self->m.fd, FTAGENT_IOC_BUF_POS, &self->m.pos));
	EXPECT_EQ(1, self->m.pos.full);
	ASSERT_EQ(0, cpu_events(0, &e1, &d1, &l1));
	EXPECT_LT(0, l1 - l0);
	EXPECT_EQ(e1 - e0, (d1 - d0) + (l1 - l0));
	/* Handing back lets the writer go on: the next record is a gap. */
	ASSERT_EQ(0, drain(&self->m));
	fd = open(path, O_RDONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	unlink(path);
	ASSERT_EQ(0, ioctl(self->m.fd, FTAGENT_IOC_BUF_POS, &self->m.pos));
	EXPECT_EQ(0, self->m.pos.full);
	self->m.have_seq = 0;
	self->m.gaps = 0;
	cur_done = 0;
	walk(&self->m, self->m.pos.produced, 0, self->m.pos.offset);
	EXPECT_LE(1, self->m.gaps);
}

TEST_F(mmap_reader, bad_ioctls_are_refused)
{
	uint32_t too_many = 5;

	EXPECT_EQ(-1, ioctl(self->m.fd, FTAGENT_IOC_CONSUMED, &too_many));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->m.fd, _IO(FTAGENT_IOC_MAGIC, 9)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->m.fd, FTAGENT_IOC_BUF_POS, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
