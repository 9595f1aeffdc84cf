// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the event loss figures: ALERT messages and the per-CPU
 * EV_* attributes of GET_RESOURCES, laid out as the kernel writes them
 * (nla_put_u64_64bit may put a zero-length PAD attribute before a u64,
 * inside the EV_LOST nest too), causes from a newer ABI, and wrong sizes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/genetlink.h>

#include "genl_msg.h"

#include "../../tools/lib/alerts.h"
#include "../../tools/lib/counters.h"

/* One u64 per cause, each after a PAD, and a cause this client lacks. */
static void put_lost(struct nlmsghdr *nlh, uint16_t type, uint16_t pad,
		     uint64_t base)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	int k;

	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++) {
		mnl_attr_put(nlh, pad, 0, NULL);
		mnl_attr_put_u64(nlh, k + 1, base + k);
	}
	mnl_attr_put_u64(nlh, __FTAGENT_EV_LOSS_MAX + 1, 1000);
	mnl_attr_nest_end(nlh, nest);
}

static void alert_decodes(void **state)
{
	char buf[1024] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_ALERT);
	struct ftagent_alert a;
	int k;

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_ALERT_KIND,
			 FTAGENT_ALERT_EVENT_LOSS);
	mnl_attr_put(nlh, FTAGENT_CTL_A_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, FTAGENT_CTL_A_EV_LOST_TOTAL, 12345);
	put_lost(nlh, FTAGENT_CTL_A_EV_LOST, FTAGENT_CTL_A_PAD, 10);
	assert_int_equal(ftagent_alert_parse(nlh, &a), MNL_CB_OK);
	assert_int_equal(a.kind, FTAGENT_ALERT_EVENT_LOSS);
	assert_true(a.has_lost && a.has_total);
	assert_int_equal(a.ev_lost_total, 12345);
	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		assert_int_equal(a.ev_lost[k], 10 + k);
	/* The newer ABI's cause is not summed into the known ones. */
	assert_int_equal(ftagent_alert_lost(&a),
			 10 * __FTAGENT_EV_LOSS_MAX +
				 __FTAGENT_EV_LOSS_MAX *
					 (__FTAGENT_EV_LOSS_MAX - 1) / 2);
}

static void short_total_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_ALERT);
	struct ftagent_alert a;

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_CTL_A_EV_LOST_TOTAL, 5);
	errno = 0;
	assert_int_equal(ftagent_alert_parse(nlh, &a), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
}

static void short_cause_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_CTL_CMD_ALERT);
	struct ftagent_alert a;
	struct nlattr *nest;

	(void)state;
	nest = mnl_attr_nest_start(nlh, FTAGENT_CTL_A_EV_LOST);
	mnl_attr_put_u32(nlh, FTAGENT_EV_LOSS_BUFFER_FULL + 1, 5);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(ftagent_alert_parse(nlh, &a), MNL_CB_ERROR);
}

static void resources_carry_event_figures(void **state)
{
	char buf[2048] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_STATS_CMD_GET_RESOURCES);
	struct ftagent_resources res = {0};
	const struct ftagent_cpu_stats *c;
	struct nlattr *cpu;

	(void)state;
	mnl_attr_put_u32(nlh, FTAGENT_STATS_A_RING_BUFFER_SIZE, 1u << 20);
	mnl_attr_put_u32(nlh, FTAGENT_STATS_A_SUBBUF_SIZE, 65536);
	mnl_attr_put_u32(nlh, FTAGENT_STATS_A_N_SUBBUFS, 8);
	mnl_attr_put_u32(nlh, FTAGENT_STATS_A_EXCLUDED_TGIDS, 3);
	mnl_attr_put_u64(nlh, FTAGENT_STATS_A_EXCLUDE_MISSED, 4);
	cpu = mnl_attr_nest_start(nlh, FTAGENT_STATS_A_CPU);
	mnl_attr_put_u32(nlh, FTAGENT_CPU_A_ID, 1);
	mnl_attr_put_u64(nlh, FTAGENT_CPU_A_EV_EMITTED, 100);
	mnl_attr_put_u64(nlh, FTAGENT_CPU_A_EV_DELIVERED, 40);
	mnl_attr_put_u64(nlh, FTAGENT_CPU_A_EV_PEAK_BYTES, 4096);
	put_lost(nlh, FTAGENT_CPU_A_EV_LOST, FTAGENT_CPU_A_PAD, 10);
	mnl_attr_nest_end(nlh, cpu);
	assert_int_equal(ftagent_resources_parse(nlh, &res), MNL_CB_OK);
	assert_int_equal(res.ring_buffer_size, 1u << 20);
	assert_int_equal(res.subbuf_size, 65536);
	assert_int_equal(res.n_subbufs, 8);
	assert_int_equal(res.excluded_tgids, 3);
	assert_int_equal(res.exclude_missed, 4);
	assert_int_equal(res.n_cpus, 1);
	c = &res.cpus[0];
	assert_int_equal(c->cpu, 1);
	assert_int_equal(c->ev_emitted, 100);
	assert_int_equal(c->ev_delivered, 40);
	assert_int_equal(c->ev_peak_bytes, 4096);
	assert_int_equal(c->ev_lost[FTAGENT_EV_LOSS_NO_BUFFER],
			 10 + FTAGENT_EV_LOSS_NO_BUFFER);
	/* 10+11+12+13+14: emitted = delivered + lost holds here. */
	assert_int_equal(ftagent_cpu_ev_lost(c), 60);
	ftagent_resources_free(&res);
}

static void short_emitted_is_rejected(void **state)
{
	char buf[512] = {0};
	struct nlmsghdr *nlh = genl_msg(buf, FTAGENT_STATS_CMD_GET_RESOURCES);
	struct ftagent_resources res = {0};
	struct nlattr *cpu;

	(void)state;
	cpu = mnl_attr_nest_start(nlh, FTAGENT_STATS_A_CPU);
	mnl_attr_put_u32(nlh, FTAGENT_CPU_A_EV_EMITTED, 100);
	mnl_attr_nest_end(nlh, cpu);
	errno = 0;
	assert_int_equal(ftagent_resources_parse(nlh, &res), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
	ftagent_resources_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alert_decodes),
		cmocka_unit_test(short_total_is_rejected),
		cmocka_unit_test(short_cause_is_rejected),
		cmocka_unit_test(resources_carry_event_figures),
		cmocka_unit_test(short_emitted_is_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
