/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoders for the module's status and version replies, and the module
 * queries built on them.
 */
#ifndef FTAGENT_STATUS_H
#define FTAGENT_STATUS_H

#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"

#define FTAGENT_STR(x)	#x
#define FTAGENT_XSTR(x) FTAGENT_STR(x)
/* The ABI this client was built for, as "major.minor". */
#define FTAGENT_ABI_STRING                                                     \
	FTAGENT_XSTR(FTAGENT_ABI_MAJOR) "." FTAGENT_XSTR(FTAGENT_ABI_MINOR)

/* Kernel functions a status lists as missing, at most (the rest: "..."). */
#define FTAGENT_MISSING_MAX	 16
#define FTAGENT_MISSING_NAME_MAX 64

struct ftagent_status {
	uint32_t abi_major;
	uint32_t abi_minor;
	char module_version[FTAGENT_VERSION_STR_MAX];
	uint32_t state;	      /* enum ftagent_state; 0 if absent */
	unsigned int present; /* FTAGENT_STATUS_HAVE_* bits */
	/* Since ABI 0.5, GET_STATUS only: */
	uint32_t degraded; /* bits of enum ftagent_feature that are off */
	uint8_t direct_calls;
	/* Since ABI 0.7: */
	uint8_t exit_work;
	/* Since ABI 0.9: AF_SMC fallback accepts refused, no mark left. */
	uint64_t accepts_refused;
	unsigned int n_missing; /* names in missing[], all of them if <= MAX */
	char missing[FTAGENT_MISSING_MAX][FTAGENT_MISSING_NAME_MAX];
};

#define FTAGENT_STATUS_HAVE_ABI		    (1u << 0)
#define FTAGENT_STATUS_HAVE_VERSION	    (1u << 1)
#define FTAGENT_STATUS_HAVE_STATE	    (1u << 2)
#define FTAGENT_STATUS_HAVE_DEGRADED	    (1u << 3)
#define FTAGENT_STATUS_HAVE_DIRECT	    (1u << 4)
#define FTAGENT_STATUS_HAVE_EXIT_WORK	    (1u << 5)
#define FTAGENT_STATUS_HAVE_ACCEPTS_REFUSED (1u << 6)

/*
 * Parse a control-family GET_STATUS reply (stats=0) or a stats-family
 * GET_VERSION reply (stats=1). Returns MNL_CB_OK, or MNL_CB_ERROR with errno
 * EBADMSG when an attribute has the wrong type or size.
 */
int ftagent_status_parse(const struct nlmsghdr *nlh, int stats,
			 struct ftagent_status *st);

/* What an enum ftagent_feature is, in a few words; NULL if unknown. */
const char *ftagent_feature_name(unsigned int feature);

/* "ready", …; "unknown" for values this client doesn't know. */
const char *ftagent_state_name(uint32_t state);

/* Ask the module: control GET_STATUS (needs CAP_NET_ADMIN). */
int ftagent_query_status(struct ftagent_status *st, struct ftnl_error *err);
/* Ask the module: stats GET_VERSION (any user). */
int ftagent_query_version(struct ftagent_status *st, struct ftnl_error *err);

/* Whether a module speaking @st's ABI can serve this client. */
int ftagent_abi_compatible(const struct ftagent_status *st);

#endif /* FTAGENT_STATUS_H */
