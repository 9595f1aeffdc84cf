/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte and call totals since the collector started, by what was counted.
 * Byte and call counters must never go down, but the tables they could
 * be summed from forget rows (eviction). So the collector owns these
 * beside its tables, fed one counter at a time by ftd_totals_account();
 * they only grow, are saved with the collector, and the metrics page
 * reads them. (The types keep their ftd_metrics_ names: the page is
 * what they are for.)
 */
#ifndef FTAGENTD_TOTALS_H
#define FTAGENTD_TOTALS_H

#include <stdint.h>

enum ftd_metrics_dir { FTD_MD_IN, FTD_MD_OUT, __FTD_MD_MAX };

/* Socket protocols; "other" for every non-IP socket. */
enum ftd_metrics_proto { FTD_MP_TCP, FTD_MP_UDP, FTD_MP_OTHER, __FTD_MP_MAX };

enum ftd_metrics_family {
	FTD_MF_IPV4,
	FTD_MF_IPV6,
	FTD_MF_UNIX,
	FTD_MF_OTHER,
	__FTD_MF_MAX
};

struct ftd_metrics_io {
	uint64_t bytes, calls;
};

/*
 * Everything the module counted since the collector started, by what it
 * was. Plain numbers only, so it can be saved with the collector.
 */
struct ftd_metrics_totals {
	struct ftd_metrics_io net[__FTD_MF_MAX][__FTD_MP_MAX][__FTD_MD_MAX];
	struct ftd_metrics_io file[__FTD_MD_MAX];
	struct ftd_metrics_io transfer; /* sendfile, splice: file to socket */
};

/* Add one dumped counter (struct ftagent_counter) to @t. */
struct ftagent_counter;
void ftd_totals_account(struct ftd_metrics_totals *t,
			const struct ftagent_counter *k);

#endif /* FTAGENTD_TOTALS_H */
