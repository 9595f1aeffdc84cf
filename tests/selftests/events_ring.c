// SPDX-License-Identifier: GPL-2.0
/*
 * The event ring's size: one file per possible CPU; SET_CONFIG
 * RING_BUFFER_SIZE gives each CPU size / CPUs bytes in 4 sub-buffers
 * (8 from 512 KiB a CPU), which the buffer relay maps must have (mmap()
 * takes exactly the buffer's size); 0 is the mode's default; a size under
 * 64 KiB a CPU, over 1 GiB or over an eighth of the machine's memory is
 * refused with a reason and changes nothing;
 * a new size replaces the files, and a reader of the old ones sees
 * POLLERR; the records nobody read are counted as discarded.
 */
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "events_test.h"

FIXTURE(ring)
{
	struct ev_log log;
	unsigned int cpus;
	long page;
};

FIXTURE_SETUP(ring)
{
	self->cpus = ev_possible_cpus();
	self->page = sysconf(_SC_PAGESIZE);
	ASSERT_LT(0, self->cpus);
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(ring)
{
	struct ftnl_error err;

	EXPECT_EQ(0, ev_set_ring(NULL, 0, &err)) TH_LOG("%s", err.msg);
	ev_close(&self->log);
}

/* The geometry reported, checked against the spec and against mmap(). */
static void expect_geometry(struct __test_metadata *_metadata,
			    FIXTURE_DATA(ring) * self, uint32_t bytes)
{
	struct ftagent_resources res;
	uint32_t per_cpu = bytes / self->cpus;
	size_t alloc;
	void *p;

	ASSERT_EQ(0, ev_resources(&res));
	EXPECT_EQ(self->cpus, res.nr_cpus);
	EXPECT_EQ(self->cpus, res.n_cpus);
	EXPECT_EQ(self->cpus, self->log.rd.n);
	EXPECT_EQ(bytes, res.ring_buffer_size);
	EXPECT_EQ(per_cpu < (512u << 10) ? 4 : 8, res.n_subbufs);
	/* Whole pages, as much of the CPU's share as they can hold. */
	EXPECT_EQ(0, res.subbuf_size % self->page);
	EXPECT_GE(per_cpu, res.subbuf_size * res.n_subbufs);
	EXPECT_LT(per_cpu - res.n_subbufs * self->page,
		  res.subbuf_size * res.n_subbufs);
	alloc = res.subbuf_size * res.n_subbufs;
	ftagent_resources_free(&res);
	/* relay maps a buffer only whole: the size is the buffer's own. */
	p = mmap(NULL, alloc, PROT_READ, MAP_SHARED, self->log.rd.fds[0], 0);
	EXPECT_NE(MAP_FAILED, p) TH_LOG("mmap %zu: %s", alloc, strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, alloc);
	p = mmap(NULL, alloc + self->page, PROT_READ, MAP_SHARED,
		 self->log.rd.fds[0], 0);
	EXPECT_EQ(MAP_FAILED, p);
}

TEST_F(ring, sizes_give_the_geometry_the_buffers_have)
{
	uint32_t min = self->cpus * FTAGENT_RING_PER_CPU_MIN;
	uint32_t def = FTAGENT_RING_STANDARD_DEFAULT;
	struct ftnl_error err;

	if (ev_mode() == FTAGENT_MODE_MINIMAL)
		def = FTAGENT_RING_MINIMAL_DEFAULT;
	/* The default never gives a CPU less than the minimum. */
	def = def > min ? def : min;
	ASSERT_EQ(0, ev_set_ring(&self->log, min, &err)) TH_LOG("%s", err.msg);
	expect_geometry(_metadata, self, min);
	ASSERT_EQ(0, ev_set_ring(&self->log, self->cpus * (1u << 20), &err))
	TH_LOG("%s", err.msg);
	expect_geometry(_metadata, self, self->cpus * (1u << 20));
	ASSERT_EQ(0, ev_set_ring(&self->log, 0, &err)) TH_LOG("%s", err.msg);
	expect_geometry(_metadata, self, def);
}

/* MemTotal from /proc/meminfo (totalram, in bytes); 0 if unreadable. */
static uint64_t ft_memtotal_bytes(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

TEST_F(ring, bad_sizes_are_refused_and_change_nothing)
{
	const char *small = "ring_buffer_size must give every CPU at least "
			    "64 KiB",
		   *large = "ring_buffer_size is larger than 1 GiB";
	const struct {
		uint32_t bytes;
		const char *msg;
	} bad[] = {
		{self->cpus * FTAGENT_RING_PER_CPU_MIN - 1, small},
		{4096, small},
		{FTAGENT_RING_SIZE_MAX + 1, large},
		{0xffffffffu, large},
	};
	uint32_t set = self->cpus * (256u << 10);
	/* An eighth of MemTotal (the kernel's totalram), and one byte more. */
	const char *ram = "ring_buffer_size is more than an eighth of this "
			  "machine's memory";
	uint64_t eighth = ft_memtotal_bytes() / 8;
	struct ftagent_resources res;
	struct ftnl_error err;
	size_t i;

	ASSERT_LT(0, eighth);
	ASSERT_EQ(0, ev_set_ring(&self->log, set, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-1, ev_set_ring(NULL, bad[i].bytes, &err));
		EXPECT_EQ(EINVAL, err.err);
		EXPECT_STREQ(bad[i].msg, err.msg)
		TH_LOG("%u bytes", bad[i].bytes);
	}
	/* The guest has 1 GiB or so: an eighth is well under the 1 GiB cap. */
	ASSERT_GT(FTAGENT_RING_SIZE_MAX, eighth);
	EXPECT_EQ(-1, ev_set_ring(NULL, (uint32_t)eighth + 1, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ(ram, err.msg);
	ASSERT_EQ(0, ev_reopen(&self->log));
	expect_geometry(_metadata, self, set);
	ASSERT_EQ(0, ev_resources(&res));
	EXPECT_EQ(set, res.ring_buffer_size);
	ftagent_resources_free(&res);
}

TEST_F(ring, a_new_size_replaces_the_files)
{
	struct ftagent_events_reader old = self->log.rd;
	struct ftnl_error err;
	struct pollfd pfd;
	unsigned int i;
	int s;

	/* The old reader stays open; the log gets a fresh one. */
	memset(&self->log.rd, 0, sizeof(self->log.rd));
	ASSERT_EQ(0, ev_set_ring(&self->log, self->cpus * (128u << 10), &err))
	TH_LOG("%s", err.msg);
	for (i = 0; i < old.n; i++) {
		pfd = (struct pollfd){old.fds[i], POLLIN, 0};
		EXPECT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_TRUE(pfd.revents & POLLERR) TH_LOG("cpu %u", i);
	}
	ftagent_events_close(&old);
	/* The new files work: a record made now is read from them. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	close(s);
	ASSERT_LE(0, ev_drain(&self->log));
	EXPECT_EQ(1, ev_count(&self->log, FTAGENT_REC_CLOSE, getpid()));
}

/* Delivered and discarded records of every CPU, summed. */
static int delivered_discarded(uint64_t *delivered, uint64_t *discarded)
{
	struct ftagent_resources res;
	size_t i;

	if (ev_resources(&res) < 0)
		return -1;
	*delivered = *discarded = 0;
	for (i = 0; i < res.n_cpus; i++) {
		*delivered += res.cpus[i].ev_delivered;
		*discarded += res.cpus[i].ev_discarded;
	}
	ftagent_resources_free(&res);
	return 0;
}

TEST_F(ring, records_nobody_read_are_counted_when_the_ring_goes)
{
	uint64_t d0, x0, d1, x1, d2, x2;
	struct ftnl_error err;
	int i, s;

	/* Everything written so far is read; the partial read too. */
	ASSERT_LE(0, ev_drain(&self->log));
	ASSERT_EQ(0, delivered_discarded(&d0, &x0));
	for (i = 0; i < 50; i++) {
		s = socket(AF_INET, SOCK_DGRAM, 0);
		ASSERT_LE(0, s);
		close(s);
	}
	ASSERT_EQ(0, delivered_discarded(&d1, &x1));
	EXPECT_EQ(x0, x1);
	ASSERT_LE(50, d1 - d0);
	ASSERT_EQ(0, ev_set_ring(&self->log, self->cpus * (128u << 10), &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(0, delivered_discarded(&d2, &x2));
	/* Each record delivered since the drain, and no other, went unread. */
	EXPECT_LE(d1 - d0, x2 - x0);
	EXPECT_GE(d2 - d0, x2 - x0);
}

TEST_HARNESS_MAIN
