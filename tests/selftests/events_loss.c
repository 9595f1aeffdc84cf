// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow: with the smallest ring, 20000 opens on one CPU make far more
 * records than fit. Between two snapshots S0 and S1 of the per-CPU
 * figures, every record generated on a CPU is either read back (its
 * number in [emitted@S0, emitted@S1)) or counted lost, exactly; the
 * delivered count grows by what was read; GAP records account for every
 * hole in the numbering; and the loss alerts (multicast, at most one a
 * second) add up to the same losses, cause by cause.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define FLOOD	 20000
#define QUIET_MS 2500 /* no alert for this long: none is pending */

FIXTURE(loss)
{
	struct ev_log log;
	struct ftnl alerts;
	char dir[64];
	uint32_t mode;
};

FIXTURE_SETUP(loss)
{
	struct ftnl_error err;

	strcpy(self->dir, "/tmp/ftel.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* Listening before anything is lost, so no alert goes unseen. */
	ASSERT_EQ(0, ftagent_alerts_open(&self->alerts, &err))
	TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ev_reset_filters());
	ASSERT_EQ(0, ev_open(&self->log));
	self->mode = ev_mode();
	if (self->mode != FTAGENT_MODE_STANDARD)
		ASSERT_EQ(0, ev_set_mode(&self->log, FTAGENT_MODE_STANDARD));
}

FIXTURE_TEARDOWN(loss)
{
	struct ftnl_error err;
	char cmd[128];

	EXPECT_EQ(0, ev_set_ring(NULL, 0, &err)) TH_LOG("%s", err.msg);
	if (ev_mode() != self->mode)
		EXPECT_EQ(0, ev_set_mode(NULL, self->mode));
	ftnl_close(&self->alerts);
	ev_close(&self->log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Per-CPU figures with emitted = delivered + lost on every CPU: a record
 * being written on some CPU right then is numbered but not yet counted
 * either way, so try again a few times before handing back what was seen.
 */
static int snapshot(struct ftagent_resources *res)
{
	int tries, ok;
	size_t i;

	for (tries = 0; tries < 50; tries++) {
		if (ev_resources(res) < 0)
			return -1;
		for (ok = 1, i = 0; i < res->n_cpus; i++)
			ok &= res->cpus[i].ev_emitted ==
			      res->cpus[i].ev_delivered +
				      ftagent_cpu_ev_lost(&res->cpus[i]);
		if (ok)
			return 0;
		ftagent_resources_free(res);
		ev_sleep_ms(2);
	}
	return ev_resources(res);
}

static const struct ftagent_cpu_stats *cpu_of(const struct ftagent_resources *r,
					      uint32_t cpu)
{
	size_t i;

	for (i = 0; i < r->n_cpus; i++)
		if (r->cpus[i].cpu == cpu)
			return &r->cpus[i];
	return NULL;
}

static uint64_t lost_all(const struct ftagent_resources *r, int cause)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n_cpus; i++)
		n += cause < 0 ? ftagent_cpu_ev_lost(&r->cpus[i])
			       : r->cpus[i].ev_lost[cause];
	return n;
}

/* Alerts until none has come for QUIET_MS; returns how many, or -1. */
static int alerts_until_quiet(struct ftnl *nl, struct ftagent_alert *a, int max,
			      uint64_t *last_ns)
{
	struct ftnl_error err;
	int n = 0, rc;

	while ((rc = ftagent_alert_recv(nl, &a[n < max ? n : max - 1], QUIET_MS,
					&err)) == 1) {
		n++;
		*last_ns = ev_now_ns();
	}
	if (rc < 0)
		fprintf(stderr, "# alerts: %s\n", err.msg);
	return rc < 0 ? -1 : n;
}

static void open_close(const char *path, int times)
{
	int i, fd;

	for (i = 0; i < times; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * Alerts come at most one a second: room for as many as the test's 300 s
 * can bring (the flood took 123 s on the debug kernel under load, with
 * 116 alerts).
 */
#define MAX_ALERTS 320

TEST_F_TIMEOUT(loss, overflow_is_counted_exactly, 300)
{
	static struct ftagent_alert a[MAX_ALERTS];
	struct ftagent_resources s0, s1, s2;
	struct ftagent_alert pre;
	struct ftnl_error err;
	uint64_t t0, t_last = 0, sum, gap_lost = 0;
	char path[128];
	size_t i, bytes_c = 0;
	int n_alerts, k, fd, cpu;
	cpu_set_t set;

	snprintf(path, sizeof(path), "%s/f", self->dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	/* One CPU makes every record of the flood. */
	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, ev_set_ring(&self->log,
				 ev_possible_cpus() * FTAGENT_RING_PER_CPU_MIN,
				 &err))
	TH_LOG("%s", err.msg);
	/*
	 * Losses made now bring an alert that reports every loss not yet
	 * reported (from before anyone listened, or from the resize); once
	 * quiet, nothing is pending and the alerts from S0 on are ours.
	 */
	open_close(path, FLOOD / 4);
	ASSERT_LE(0, ev_drain(&self->log));
	open_close(path, 1); /* a pending GAP goes out before S0 */
	ASSERT_LE(0, ev_drain(&self->log));
	ev_forget(&self->log);
	ASSERT_LT(0, alerts_until_quiet(&self->alerts, &pre, 1, &t_last));
	ASSERT_EQ(0, snapshot(&s0));
	t0 = ev_now_ns();

	open_close(path, FLOOD);
	ASSERT_EQ(0, snapshot(&s1));
	ASSERT_LE(0, ev_drain(&self->log));
	for (i = 0; i < self->log.n; i++)
		if (self->log.rec[i].r.hdr->cpu == (uint32_t)cpu)
			bytes_c += self->log.rec[i].r.hdr->size;
	/* The first record after the losses comes with their GAP. */
	open_close(path, 1);
	ASSERT_LE(0, ev_drain(&self->log));
	n_alerts = alerts_until_quiet(&self->alerts, a, MAX_ALERTS, &t_last);
	ASSERT_EQ(0, snapshot(&s2));

	TH_LOG("cpu %d: %lu records, %lu lost, %zu read; %d alerts in %lu ms",
	       cpu,
	       (unsigned long)(cpu_of(&s1, cpu)->ev_emitted -
			       cpu_of(&s0, cpu)->ev_emitted),
	       (unsigned long)(ftagent_cpu_ev_lost(cpu_of(&s1, cpu)) -
			       ftagent_cpu_ev_lost(cpu_of(&s0, cpu))),
	       self->log.n, n_alerts, (unsigned long)((t_last - t0) / 1000000));
	/* It did overflow, for want of room, on that CPU. */
	ASSERT_NE(NULL, cpu_of(&s1, cpu));
	EXPECT_LE(FLOOD,
		  cpu_of(&s1, cpu)->ev_emitted - cpu_of(&s0, cpu)->ev_emitted);
	ASSERT_LT(
		0,
		cpu_of(&s1, cpu)->ev_lost[FTAGENT_EV_LOSS_BUFFER_FULL] -
			cpu_of(&s0, cpu)->ev_lost[FTAGENT_EV_LOSS_BUFFER_FULL]);
	/*
	 * The buffer held at least what was read back. (The peak is the
	 * most since load, so a larger ring before may have held more.)
	 */
	EXPECT_LE(bytes_c, cpu_of(&s1, cpu)->ev_peak_bytes);

	for (i = 0; i < s1.n_cpus; i++) {
		const struct ftagent_cpu_stats *c0 =
			cpu_of(&s0, s1.cpus[i].cpu);
		const struct ftagent_cpu_stats *c1 = &s1.cpus[i];
		const struct ftagent_cpu_stats *c2 = cpu_of(&s2, c1->cpu);
		uint64_t n_read = 0;
		size_t j = 0;
		const struct ftagent_rec *r;

		ASSERT_NE(NULL, c0);
		ASSERT_NE(NULL, c2);
		ASSERT_GT(self->log.rd.n, c1->cpu);
		while ((r = ev_next(&self->log, &j, 0, 0))) {
			if (r->hdr->cpu != c1->cpu)
				continue;
			if (r->hdr->type != FTAGENT_REC_GAP) {
				n_read += r->hdr->seq >= c0->ev_emitted &&
					  r->hdr->seq < c1->ev_emitted;
				continue;
			}
			if (r->hdr->seq > c0->ev_emitted &&
			    r->hdr->seq <= c2->ev_emitted)
				gap_lost += EV_BODY(r, struct ftagent_rec_gap)
						    ->lost;
		}
		EXPECT_EQ(c1->ev_emitted - c0->ev_emitted,
			  n_read + ftagent_cpu_ev_lost(c1) -
				  ftagent_cpu_ev_lost(c0))
		TH_LOG("cpu %u", c1->cpu);
		EXPECT_EQ(c1->ev_delivered - c0->ev_delivered, n_read)
		TH_LOG("cpu %u", c1->cpu);
		/* Every hole has its GAP, on every CPU. */
		EXPECT_EQ(0, self->log.rd.streams[c1->cpu].unexplained);
		EXPECT_EQ(0, self->log.rd.streams[c1->cpu].bad);
		if (c1->cpu == (uint32_t)cpu)
			EXPECT_EQ(ftagent_cpu_ev_lost(c2) -
					  ftagent_cpu_ev_lost(c0),
				  gap_lost);
		gap_lost = 0;
	}

	/*
	 * Alerts: at least one, at most one a second, adding up. The module
	 * counts the second in jiffies from its last alert: a jiffy (4 ms at
	 * HZ=250) short of a second, read on this clock; 20 ms allows it.
	 */
	ASSERT_LT(0, n_alerts);
	ASSERT_GE(MAX_ALERTS, n_alerts);
	EXPECT_GE((t_last - t0 + 20000000ull) / 1000000000ull + 1,
		  (uint64_t)n_alerts);
	EXPECT_EQ(lost_all(&s0, -1),
		  a[0].ev_lost_total - ftagent_alert_lost(&a[0]));
	for (k = 0; k < n_alerts; k++) {
		EXPECT_EQ(FTAGENT_ALERT_EVENT_LOSS, a[k].kind);
		EXPECT_TRUE(a[k].has_lost && a[k].has_total);
		if (k)
			EXPECT_EQ(a[k - 1].ev_lost_total +
					  ftagent_alert_lost(&a[k]),
				  a[k].ev_lost_total);
	}
	EXPECT_EQ(lost_all(&s2, -1), a[n_alerts - 1].ev_lost_total);
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++) {
		for (sum = 0, i = 0; i < (size_t)n_alerts; i++)
			sum += a[i].ev_lost[k];
		EXPECT_EQ(lost_all(&s2, k) - lost_all(&s0, k), sum)
		TH_LOG("cause %s", ftagent_event_loss_name(k));
	}
	ftagent_resources_free(&s0);
	ftagent_resources_free(&s1);
	ftagent_resources_free(&s2);
}

TEST_HARNESS_MAIN
