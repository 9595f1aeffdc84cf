// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the rule and budget compiler. The bytes are a config
 * file's text (the seeds hold [policy], [policy.NAME] and [budget.NAME]
 * sections). Once ftagentd_config_parse() takes it, the sets are
 * compiled as ftagentd and `ftctl policy load` do: ftd_policy_resolve()
 * (cgroup paths to ids), then the SET_POLICY and SET_BUDGETS attributes
 * (ftagent_policy_put(), ftagent_budgets_put()) into a buffer of exactly
 * the size the senders allocate, so ASan sees a write past it. The
 * message is read back with the GET_POLICY and GET_BUDGETS decoders and
 * must compare equal to what was compiled: a field lost or changed on
 * the way to the module aborts too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "../../tools/lib/budgets.h"
#include "../../tools/lib/config.h"
#include "../../tools/lib/ftnl.h"
#include "../../tools/lib/policy.h"
#include "../../tools/lib/policy_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A request as the senders build it: header, genl header, attributes. */
static struct nlmsghdr *request(char *buf, uint8_t cmd)
{
	struct ftnl nl = {0};

	return ftnl_put_request(&nl, buf, cmd, 0);
}

static void policy_round_trip(const struct ftagent_policy_spec *p)
{
	char *buf = calloc(1, ftagent_policy_msg_size(p));
	struct ftagent_policy_spec back;
	struct nlmsghdr *req;

	if (!buf)
		return;
	req = request(buf, FTAGENT_CTL_CMD_SET_POLICY);
	ftagent_policy_put(req, p);
	ftagent_policy_spec_init(&back);
	if (ftagent_policy_parse(req, &back) < MNL_CB_STOP ||
	    !ftagent_policy_spec_equal(p, &back))
		abort();
	ftagent_policy_spec_free(&back);
	free(buf);
}

static void budgets_round_trip(const struct ftagent_budget_set *s)
{
	char *buf = calloc(1, ftagent_budgets_msg_size(s));
	struct ftagent_budget_set back = {0};
	struct nlmsghdr *req;

	if (!buf)
		return;
	req = request(buf, FTAGENT_CTL_CMD_SET_BUDGETS);
	ftagent_budgets_put(req, s);
	if (ftagent_budgets_parse(req, &back) < MNL_CB_STOP ||
	    !ftagent_budget_set_equal(s, &back))
		abort();
	ftagent_budget_set_free(&back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftagentd_config cfg;
	struct ftagent_policy_spec spec;
	struct ftagent_budget_set budgets;
	char err[512], missing[512];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ftagentd_config_parse("fuzz.conf", text, &cfg, err, sizeof(err))) {
		free(text);
		return 0;
	}
	if (ftd_policy_resolve(&cfg.policy, &spec, &budgets, missing,
			       sizeof(missing)) >= 0) {
		policy_round_trip(&spec);
		budgets_round_trip(&budgets);
		ftagent_policy_spec_free(&spec);
		ftagent_budget_set_free(&budgets);
	}
	ftagentd_config_free(&cfg);
	free(text);
	return 0;
}
