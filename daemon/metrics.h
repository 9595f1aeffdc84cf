/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus page: ftagentd's figures in the text exposition format
 * (0.0.4), served by libmicrohttpd at http://LISTEN/metrics when
 * [metrics] listen is set (docs/metrics.md lists every metric).
 *
 * Byte and call counters come from the collector's totals (totals.h),
 * which only grow; the page only reads them.
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
