/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's multicast alerts (FTAGENT_GENL_ALERTS_GROUP on the control
 * family): event loss reports, at most one per FTAGENT_ALERT_INTERVAL_MS.
 */
#ifndef FTAGENT_LIB_ALERTS_H
#define FTAGENT_LIB_ALERTS_H

#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"

struct ftagent_alert {
	uint32_t kind;		 /* enum ftagent_alert_kind */
	int has_lost, has_total; /* EV_LOST, EV_LOST_TOTAL seen */
	uint64_t ev_lost[__FTAGENT_EV_LOSS_MAX]; /* since the previous alert */
	uint64_t ev_lost_total;			 /* since load */
};

/*
 * Open a control-family socket that listens to the alerts group. It is
 * for listening only (see ftnl_join_group()). 0, or -1 with @err.
 */
int ftagent_alerts_open(struct ftnl *nl, struct ftnl_error *err);

/* Decode one ALERT message. MNL_CB_OK, or MNL_CB_ERROR (errno EBADMSG). */
int ftagent_alert_parse(const struct nlmsghdr *nlh, struct ftagent_alert *a);

/*
 * Wait up to @timeout_ms for the next alert (other messages are skipped).
 * 1: @a holds it; 0: none came in time; -1 with @err (ENOBUFS: the socket
 * overflowed and alerts were dropped).
 */
int ftagent_alert_recv(struct ftnl *nl, struct ftagent_alert *a, int timeout_ms,
		       struct ftnl_error *err);

/* Lost records an alert reports, all causes. */
uint64_t ftagent_alert_lost(const struct ftagent_alert *a);

#endif /* FTAGENT_LIB_ALERTS_H */
