/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus page: ftagentd's figures in the text exposition format
 * (0.0.4), served by libmicrohttpd at http://LISTEN/metrics when
 * [metrics] listen is set (docs/metrics.md lists every metric).
 *
 * Byte and call counters must never go down, but the tables they could
 * be summed from forget rows (eviction). So the collector keeps
 * struct ftd_metrics_totals beside its tables, fed one counter at a time
 * by ftd_metrics_account(); it only grows.
 *
 * Labelled series count against [limits] metric_series: the fixed ones
 * come first, then the busiest processes; what does not fit is left out
 * and counted (ftagent_metric_series_overflow).
 */
#ifndef FTAGENTD_METRICS_H
#define FTAGENTD_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

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
void ftd_metrics_account(struct ftd_metrics_totals *t,
			 const struct ftagent_counter *k);

/*
 * The whole page, NUL-terminated and malloc'd (*@len bytes without the
 * NUL), or NULL when memory ran out. The caller holds d->col.lock, which
 * also covers d->self, d->res and d->have_res. Sets
 * d->metric_series_overflow to the label sets left out of this page.
 */
struct ftagentd;
char *ftd_metrics_render(struct ftagentd *d, size_t *len);

/*
 * Parse "A.B.C.D:PORT" or "[IPv6]:PORT" (numeric only: names are
 * refused, not resolved; the port is 1 to 65535). 0, or -1 with @err.
 */
int ftd_metrics_parse_listen(const char *listen, struct sockaddr_storage *ss,
			     socklen_t *len, char *err, size_t err_size);

/*
 * Serve the page on @listen. No thread of its own: the caller polls
 * ftd_metrics_fd() (readable: call ftd_metrics_run()) and calls
 * ftd_metrics_run() again after ftd_metrics_timeout_ms() (-1: none), so
 * an idle page costs no wakeup. The page is rendered in ftd_metrics_run(),
 * after d->refresh, under d->col.lock. NULL with @err when the address is
 * bad or can't be bound.
 */
struct ftd_metrics_server;
struct ftd_metrics_server *ftd_metrics_start(struct ftagentd *d,
					     const char *listen, char *err,
					     size_t err_size);
int ftd_metrics_fd(const struct ftd_metrics_server *s);
void ftd_metrics_run(struct ftd_metrics_server *s);
int ftd_metrics_timeout_ms(const struct ftd_metrics_server *s);
/* Stop serving (waits for a scrape in progress) and free @s. NULL: no-op. */
void ftd_metrics_stop(struct ftd_metrics_server *s);

#endif /* FTAGENTD_METRICS_H */
