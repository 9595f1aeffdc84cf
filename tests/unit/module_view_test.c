// SPDX-License-Identifier: GPL-2.0
/*
 * The module's status and resources go through the daemon's JSON and
 * come back the same, so a group member's ftctl stats prints the KERNEL
 * section the module itself would give root. Bad input is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/lib/module_view.h"

static void round_trip(void **state)
{
	struct ftagent_cpu_stats cpus[2] = {0};
	struct ftagent_hook_stats hooks[2] = {0};
	struct ftagent_resources r = {0}, back;
	struct ftagent_status st = {0}, st2;
	struct json_object *j, *copy;

	(void)state;
	st.abi_major = 0;
	st.abi_minor = 4;
	strcpy(st.module_version, "0.4.0");
	r.mode = FTAGENT_MODE_STANDARD;
	r.hooks = FTAGENT_HOOKS_FTRACE;
	r.state = 1;
	r.nr_cpus = 2;
	r.table_capacity = 8192;
	r.memory_bytes = 123456789;
	r.flush_count = 77;
	r.gen_seq = 154;
	r.ring_buffer_size = 4 << 20;
	r.subbuf_size = 1 << 18;
	r.n_subbufs = 8;
	r.excluded_tgids = 3;
	r.exclude_missed = 1;
	cpus[1].cpu = 1;
	cpus[1].fill = 10;
	cpus[1].peak = 99;
	cpus[1].lost[FTAGENT_LOSS_COUNTER_TABLE] = 5;
	cpus[0].ev_emitted = 1000;
	cpus[0].ev_delivered = 990;
	cpus[0].ev_discarded = 2;
	cpus[0].ev_peak_bytes = 65536;
	cpus[0].ev_lost[FTAGENT_EV_LOSS_BUFFER_FULL] = 10;
	r.cpus = cpus;
	r.n_cpus = 2;
	strcpy(hooks[0].name, "__x64_sys_read");
	hooks[0].state = FTAGENT_HOOK_VERIFIED;
	hooks[0].hits = 42;
	strcpy(hooks[1].name, "__x64_sys_write");
	hooks[1].state = FTAGENT_HOOK_FAILED;
	hooks[1].error = 22;
	hooks[1].missed = 4;
	r.hook = hooks;
	r.n_hooks = 2;

	j = ftagent_module_view_json(&st, &r);
	/* Through text, as the API sends it. */
	copy = json_tokener_parse(json_object_to_json_string(j));
	assert_non_null(copy);
	assert_int_equal(0, ftagent_module_view_parse(copy, &st2, &back));
	assert_int_equal(4, st2.abi_minor);
	assert_string_equal("0.4.0", st2.module_version);
	assert_int_equal(r.memory_bytes, back.memory_bytes);
	assert_int_equal(r.ring_buffer_size, back.ring_buffer_size);
	assert_int_equal(r.exclude_missed, back.exclude_missed);
	assert_int_equal(2, back.n_cpus);
	assert_memory_equal(cpus, back.cpus, sizeof(cpus));
	assert_int_equal(2, back.n_hooks);
	assert_memory_equal(hooks, back.hook, sizeof(hooks));
	ftagent_resources_free(&back);
	/* A missing field is refused, not taken as zero. */
	json_object_object_del(copy, "memory_bytes");
	assert_int_equal(-1, ftagent_module_view_parse(copy, &st2, &back));
	assert_int_equal(-1, ftagent_module_view_parse(NULL, &st2, &back));
	json_object_put(copy);
	json_object_put(j);
}

/* ABI 0.5's degraded features, missing names and direct calls too. */
static void degraded_round_trip(void **state)
{
	struct ftagent_cpu_stats cpus[1] = {0};
	struct ftagent_resources r = {0}, back;
	struct ftagent_status st = {0}, st2;
	struct json_object *j, *copy;

	(void)state;
	st.abi_minor = 5;
	strcpy(st.module_version, "0.4.0");
	st.present = FTAGENT_STATUS_HAVE_DEGRADED | FTAGENT_STATUS_HAVE_DIRECT |
		     FTAGENT_STATUS_HAVE_EXIT_WORK |
		     FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED;
	st.degraded = (1u << FTAGENT_FEATURE_CLOSE_RECORDS) |
		      (1u << FTAGENT_FEATURE_GATE_SEND);
	st.n_missing = 2;
	strcpy(st.missing[0], "sock_close");
	strcpy(st.missing[1], "security_socket_sendmsg");
	st.direct_calls = 1;
	st.exit_work = 1;
	st.accepts_refused = 4097;
	r.cpus = cpus;
	r.n_cpus = 1;
	j = ftagent_module_view_json(&st, &r);
	copy = json_tokener_parse(json_object_to_json_string(j));
	assert_non_null(copy);
	assert_int_equal(0, ftagent_module_view_parse(copy, &st2, &back));
	assert_true(st2.present & FTAGENT_STATUS_HAVE_DEGRADED);
	assert_true(st2.present & FTAGENT_STATUS_HAVE_DIRECT);
	assert_int_equal(st.degraded, st2.degraded);
	assert_int_equal(2, st2.n_missing);
	assert_string_equal("sock_close", st2.missing[0]);
	assert_string_equal("security_socket_sendmsg", st2.missing[1]);
	assert_int_equal(1, st2.direct_calls);
	assert_true(st2.present & FTAGENT_STATUS_HAVE_EXIT_WORK);
	assert_int_equal(1, st2.exit_work);
	assert_true(st2.present & FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED);
	assert_int_equal(4097, st2.accepts_refused);
	ftagent_resources_free(&back);
	/* A degraded mask without the names is refused. */
	json_object_object_del(copy, "missing");
	assert_int_equal(-1, ftagent_module_view_parse(copy, &st2, &back));
	json_object_put(copy);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(degraded_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
