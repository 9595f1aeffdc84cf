// SPDX-License-Identifier: GPL-2.0
/*
 * Counter generations and resources: strict decoding (a wrongly sized
 * attribute fails the message) and the flush/dump/ack cycle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "counters.h"

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -1;
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = n;
	return 0;
}

static int u32_attr(const struct nlattr *a, uint32_t *out)
{
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -1;
	*out = mnl_attr_get_u32(a);
	return 0;
}

static int u64_attr(const struct nlattr *a, uint64_t *out)
{
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return -1;
	*out = mnl_attr_get_u64(a);
	return 0;
}

static int ev_lost_attr(const struct nlattr *a, void *data)
{
	uint64_t *lost = data;
	uint16_t type = mnl_attr_get_type(a);

	/* Type 0 is left for padding; unknown causes are a newer ABI's. */
	if (type < 1 || type > __FTAGENT_EV_LOSS_MAX)
		return MNL_CB_OK;
	return u64_attr(a, &lost[type - 1]) ? MNL_CB_ERROR : MNL_CB_OK;
}

int ftagent_ev_lost_parse(const struct nlattr *nest,
			  uint64_t lost[__FTAGENT_EV_LOSS_MAX])
{
	memset(lost, 0, sizeof(lost[0]) * __FTAGENT_EV_LOSS_MAX);
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0 ||
	    mnl_attr_parse_nested(nest, ev_lost_attr, lost) != MNL_CB_OK)
		return -1;
	return 0;
}

uint64_t ftagent_cpu_ev_lost(const struct ftagent_cpu_stats *c)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < __FTAGENT_EV_LOSS_MAX; k++)
		n += c->ev_lost[k];
	return n;
}

static int cpu_attr(const struct nlattr *a, void *data)
{
	struct ftagent_cpu_stats *c = data;
	uint64_t *val = NULL;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_CPU_A_ID:
		return u32_attr(a, &c->cpu) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CPU_A_FILL:
		return u32_attr(a, &c->fill) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CPU_A_PEAK:
		return u32_attr(a, &c->peak) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CPU_A_ENTRIES:
		return u32_attr(a, &c->entries) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_CPU_A_LOST_COUNTER_TABLE:
		val = &c->lost[FTAGENT_LOSS_COUNTER_TABLE];
		break;
	case FTAGENT_CPU_A_LOST_RECURSION:
		val = &c->lost[FTAGENT_LOSS_RECURSION];
		break;
	case FTAGENT_CPU_A_LOST_USER_READ:
		val = &c->lost[FTAGENT_LOSS_USER_READ];
		break;
	case FTAGENT_CPU_A_LOST_PENDING_TABLE:
		val = &c->lost[FTAGENT_LOSS_PENDING_TABLE];
		break;
	case FTAGENT_CPU_A_LOST_IOURING:
		val = &c->lost[FTAGENT_LOSS_IOURING];
		break;
	case FTAGENT_CPU_A_EV_EMITTED: val = &c->ev_emitted; break;
	case FTAGENT_CPU_A_EV_DELIVERED: val = &c->ev_delivered; break;
	case FTAGENT_CPU_A_EV_PEAK_BYTES: val = &c->ev_peak_bytes; break;
	case FTAGENT_CPU_A_EV_DISCARDED: val = &c->ev_discarded; break;
	case FTAGENT_CPU_A_EV_LOST:
		return ftagent_ev_lost_parse(a, c->ev_lost) ? MNL_CB_ERROR
							    : MNL_CB_OK;
	default: return MNL_CB_OK; /* newer minor ABI */
	}
	return u64_attr(a, val) ? MNL_CB_ERROR : MNL_CB_OK;
}

static int parse_cpu(const struct nlattr *nest, struct ftagent_cpu_stats *c)
{
	memset(c, 0, sizeof(*c));
	return mnl_attr_parse_nested(nest, cpu_attr, c);
}

static int generation_attr(const struct nlattr *a, void *data)
{
	struct ftagent_generation *gen = data;
	uint32_t acked;
	size_t len;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_STATS_A_GEN_SEQ:
		return u64_attr(a, &gen->seq) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_STATS_A_GEN_ACKED:
		if (u32_attr(a, &acked))
			return MNL_CB_ERROR;
		gen->acked = acked != 0;
		return MNL_CB_OK;
	case FTAGENT_STATS_A_CPU:
		if (grow((void **)&gen->cpus, &gen->cap_cpus, gen->n_cpus + 1,
			 sizeof(*gen->cpus)))
			return MNL_CB_ERROR;
		if (parse_cpu(a, &gen->cpus[gen->n_cpus]) != MNL_CB_OK)
			return MNL_CB_ERROR;
		gen->n_cpus++;
		return MNL_CB_OK;
	case FTAGENT_STATS_A_COUNTER:
		/*
		 * A newer minor ABI may append fields; a module of ABI 0.5
		 * or older sends fewer (protocol_full and after read 0);
		 * never accept less than that.
		 */
		len = mnl_attr_get_payload_len(a);
		if (len < FTAGENT_COUNTER_SIZE_V5)
			return MNL_CB_ERROR;
		if (len > sizeof(struct ftagent_counter))
			len = sizeof(struct ftagent_counter);
		if (grow((void **)&gen->counters, &gen->cap_counters,
			 gen->n_counters + 1, sizeof(*gen->counters)))
			return MNL_CB_ERROR;
		memset(&gen->counters[gen->n_counters], 0,
		       sizeof(*gen->counters));
		memcpy(&gen->counters[gen->n_counters++],
		       mnl_attr_get_payload(a), len);
		return MNL_CB_OK;
	}
	return MNL_CB_OK;
}

int ftagent_generation_parse(const struct nlmsghdr *nlh,
			     struct ftagent_generation *gen)
{
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		gen->interrupted = 1;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), generation_attr,
			   gen) != MNL_CB_OK) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

void ftagent_generation_free(struct ftagent_generation *gen)
{
	free(gen->counters);
	free(gen->cpus);
	memset(gen, 0, sizeof(*gen));
}

static int generation_reply(const struct nlmsghdr *nlh, void *data)
{
	return ftagent_generation_parse(nlh, data);
}

int ftagent_dump_generation(struct ftnl *stats, struct ftagent_generation *gen,
			    struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;

	memset(gen, 0, sizeof(*gen));
	req = ftnl_put_request(stats, buf, FTAGENT_STATS_CMD_DUMP_COUNTERS,
			       NLM_F_DUMP);
	if (ftnl_transact(stats, req, generation_reply, gen, err) < 0) {
		ftagent_generation_free(gen);
		return -1;
	}
	return 0;
}

static int flush_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == FTAGENT_CTL_A_GEN_SEQ)
		return u64_attr(a, data) ? MNL_CB_ERROR : MNL_CB_OK;
	return MNL_CB_OK;
}

static int flush_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), flush_attr, data);
}

int ftagent_flush(struct ftnl *ctl, uint64_t *seq, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	*seq = 0;
	return ftnl_transact(
		ctl, ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_FLUSH, 0),
		flush_reply, seq, err);
}

int ftagent_ack_generation(struct ftnl *ctl, uint64_t seq,
			   struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;

	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_ACK_GENERATION, 0);
	mnl_attr_put_u64(req, FTAGENT_CTL_A_GEN_SEQ, seq);
	return ftnl_transact(ctl, req, NULL, NULL, err);
}

/* Dump the idle generation until it is consistent; hand it over; ack. */
/* Dump the idle generation whole (redone while it changes). 0/-1. */
static int dump_whole(struct ftnl *stats, struct ftagent_generation *gen,
		      struct ftnl_error *err)
{
	int tries;

	for (tries = 0; tries < 8; tries++) {
		if (ftagent_dump_generation(stats, gen, err) < 0)
			return -1;
		if (!gen->interrupted)
			return 0;
		ftagent_generation_free(gen);
	}
	err->err = EAGAIN;
	strcpy(err->msg, "the generation kept changing during the dump");
	return -1;
}

int ftagent_peek_idle(struct ftnl *stats, ftagent_generation_fn fn, void *data,
		      int *seen, struct ftnl_error *err)
{
	struct ftagent_generation gen;

	*seen = 0;
	if (dump_whole(stats, &gen, err) < 0)
		return -1;
	if (!gen.acked) {
		fn(&gen, data);
		*seen = 1;
	}
	ftagent_generation_free(&gen);
	return 0;
}

static int consume_idle(struct ftnl *ctl, struct ftnl *stats,
			ftagent_generation_fn fn, void *data,
			struct ftnl_error *err)
{
	struct ftagent_generation gen;
	uint64_t seq;

	if (dump_whole(stats, &gen, err) < 0)
		return -1;
	if (gen.acked) {
		ftagent_generation_free(&gen);
		return 0;
	}
	seq = gen.seq;
	fn(&gen, data);
	ftagent_generation_free(&gen);
	if (ftagent_ack_generation(ctl, seq, err) < 0 && err->err != ESTALE)
		return -1;
	return 0;
}

int ftagent_collect(struct ftnl *ctl, struct ftnl *stats,
		    ftagent_generation_fn fn, void *data,
		    struct ftnl_error *err)
{
	uint64_t seq;
	int tries;

	/*
	 * The module's own timer may swap at any time; a swap is only
	 * refused while the idle generation is unread. Consume, then ask
	 * for our own swap, until ours goes through.
	 */
	for (tries = 0; tries < 16; tries++) {
		if (consume_idle(ctl, stats, fn, data, err) < 0)
			return -1;
		if (ftagent_flush(ctl, &seq, err) == 0)
			return consume_idle(ctl, stats, fn, data, err);
		if (err->err != EBUSY)
			return -1;
	}
	err->err = EBUSY;
	strcpy(err->msg, "could not swap generations");
	return -1;
}

static int hook_attr(const struct nlattr *a, void *data)
{
	struct ftagent_hook_stats *h = data;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_HOOK_A_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(a) > sizeof(h->name))
			return MNL_CB_ERROR;
		strcpy(h->name, mnl_attr_get_str(a));
		return MNL_CB_OK;
	case FTAGENT_HOOK_A_KIND:
		return u32_attr(a, &h->kind) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_HOOK_A_STATE:
		return u32_attr(a, &h->state) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_HOOK_A_ERROR:
		return u32_attr(a, &h->error) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_HOOK_A_HITS:
		return u64_attr(a, &h->hits) ? MNL_CB_ERROR : MNL_CB_OK;
	case FTAGENT_HOOK_A_MISSED:
		return u64_attr(a, &h->missed) ? MNL_CB_ERROR : MNL_CB_OK;
	}
	return MNL_CB_OK;
}

static int resources_attr(const struct nlattr *a, void *data)
{
	struct ftagent_resources *r = data;
	uint32_t *u32p = NULL;
	uint64_t *u64p = NULL;

	switch (mnl_attr_get_type(a)) {
	case FTAGENT_STATS_A_MODE: u32p = &r->mode; break;
	case FTAGENT_STATS_A_HOOKS: u32p = &r->hooks; break;
	case FTAGENT_STATS_A_STATE: u32p = &r->state; break;
	case FTAGENT_STATS_A_NR_CPUS: u32p = &r->nr_cpus; break;
	case FTAGENT_STATS_A_TABLE_CAPACITY: u32p = &r->table_capacity; break;
	case FTAGENT_STATS_A_GEN_ACKED: u32p = &r->gen_acked; break;
	case FTAGENT_STATS_A_MEMORY_BYTES: u64p = &r->memory_bytes; break;
	case FTAGENT_STATS_A_FLUSH_COUNT: u64p = &r->flush_count; break;
	case FTAGENT_STATS_A_GEN_SEQ: u64p = &r->gen_seq; break;
	case FTAGENT_STATS_A_RING_BUFFER_SIZE:
		u32p = &r->ring_buffer_size;
		break;
	case FTAGENT_STATS_A_SUBBUF_SIZE: u32p = &r->subbuf_size; break;
	case FTAGENT_STATS_A_N_SUBBUFS: u32p = &r->n_subbufs; break;
	case FTAGENT_STATS_A_EXCLUDED_TGIDS: u32p = &r->excluded_tgids; break;
	case FTAGENT_STATS_A_EXCLUDE_MISSED: u64p = &r->exclude_missed; break;
	case FTAGENT_STATS_A_CPU:
		if (grow((void **)&r->cpus, &r->cap_cpus, r->n_cpus + 1,
			 sizeof(*r->cpus)) ||
		    parse_cpu(a, &r->cpus[r->n_cpus]) != MNL_CB_OK)
			return MNL_CB_ERROR;
		r->n_cpus++;
		return MNL_CB_OK;
	case FTAGENT_STATS_A_HOOK:
		if (grow((void **)&r->hook, &r->cap_hooks, r->n_hooks + 1,
			 sizeof(*r->hook)) ||
		    mnl_attr_parse_nested(a, hook_attr, &r->hook[r->n_hooks]) !=
			    MNL_CB_OK)
			return MNL_CB_ERROR;
		r->n_hooks++;
		return MNL_CB_OK;
	default: return MNL_CB_OK;
	}
	if (u32p)
		return u32_attr(a, u32p) ? MNL_CB_ERROR : MNL_CB_OK;
	return u64_attr(a, u64p) ? MNL_CB_ERROR : MNL_CB_OK;
}

int ftagent_resources_parse(const struct nlmsghdr *nlh,
			    struct ftagent_resources *res)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), resources_attr,
			   res) != MNL_CB_OK) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int resources_reply(const struct nlmsghdr *nlh, void *data)
{
	return ftagent_resources_parse(nlh, data);
}

void ftagent_hook_states(const struct ftagent_resources *res,
			 unsigned int counts[__FTAGENT_HOOK_STATE_MAX])
{
	size_t i;

	memset(counts, 0, sizeof(counts[0]) * __FTAGENT_HOOK_STATE_MAX);
	for (i = 0; i < res->n_hooks; i++)
		if (res->hook[i].state < __FTAGENT_HOOK_STATE_MAX)
			counts[res->hook[i].state]++;
}

void ftagent_resources_free(struct ftagent_resources *res)
{
	free(res->cpus);
	free(res->hook);
	memset(res, 0, sizeof(*res));
}

int ftagent_get_resources(struct ftnl *stats, struct ftagent_resources *res,
			  struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(res, 0, sizeof(*res));
	if (ftnl_transact(stats,
			  ftnl_put_request(stats, buf,
					   FTAGENT_STATS_CMD_GET_RESOURCES, 0),
			  resources_reply, res, err) < 0) {
		ftagent_resources_free(res);
		return -1;
	}
	return 0;
}

const char *ftagent_mode_name(uint32_t mode)
{
	return mode == FTAGENT_MODE_MINIMAL    ? "minimal"
	       : mode == FTAGENT_MODE_STANDARD ? "standard"
					       : "unknown";
}

const char *ftagent_hooks_name(uint32_t hooks)
{
	return hooks == FTAGENT_HOOKS_FTRACE   ? "ftrace"
	       : hooks == FTAGENT_HOOKS_KPROBE ? "kprobe"
					       : "unknown";
}

const char *ftagent_hook_state_name(uint32_t state)
{
	static const char *const names[] = {
		[FTAGENT_HOOK_DETACHED] = "detached",
		[FTAGENT_HOOK_ATTACHED] = "attached",
		[FTAGENT_HOOK_VERIFIED] = "verified",
		[FTAGENT_HOOK_FAILED] = "failed",
	};

	return state < __FTAGENT_HOOK_STATE_MAX ? names[state] : "unknown";
}

const char *ftagent_loss_name(unsigned int cause)
{
	static const char *const names[] = {
		[FTAGENT_LOSS_COUNTER_TABLE] = "counter_table",
		[FTAGENT_LOSS_RECURSION] = "recursion",
		[FTAGENT_LOSS_USER_READ] = "user_read",
		[FTAGENT_LOSS_PENDING_TABLE] = "pending_table",
		[FTAGENT_LOSS_IOURING] = "iouring",
	};

	return cause < __FTAGENT_LOSS_MAX ? names[cause] : "unknown";
}
