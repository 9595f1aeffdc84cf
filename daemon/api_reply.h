/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The local API's requests and replies (docs/api.md): one JSON object per
 * line in, one out. This part knows the commands; the socket, framing and
 * permissions are api.c's.
 */
#ifndef FTAGENTD_API_REPLY_H
#define FTAGENTD_API_REPLY_H

#include <stddef.h>
#include <json-c/json.h>

#include "ftagentd.h"

/* One version for the project: the Makefile passes kmod/ftagent.h's. */
#ifndef FTAGENTD_VERSION
#error "build with -DFTAGENTD_VERSION (the Makefile does)"
#endif

/* The longest request line, the newline not included. */
#define FTD_API_REQUEST_MAX 65536
/* The most rows or events one reply may ask for ("limit"). */
#define FTD_API_LIMIT_MAX 100000

/*
 * The reply to one request line (@len bytes, a trailing newline allowed;
 * it need not be NUL-terminated): {"ok": true, ...} or {"ok": false,
 * "error": "..."}. Any bytes at all are safe to pass. The caller holds
 * d->col.lock and owns the reply (json_object_put). NULL only when
 * memory ran out.
 */
struct json_object *ftd_api_reply(struct ftagentd *d, const char *line,
				  size_t len);

#endif /* FTAGENTD_API_REPLY_H */
