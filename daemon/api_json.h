/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the local API's replies say (docs/api.md): the stats sections
 * (daemon, resources, collector) and the rows of each table, as JSON.
 * api_reply.c checks the requests and runs the commands with these.
 */
#ifndef FTAGENTD_API_JSON_H
#define FTAGENTD_API_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "ftagentd.h"

/* stats: "daemon", "resources", "collector". */
struct json_object *ftd_api_daemon_json(const struct ftagentd *d);
struct json_object *ftd_api_resources_json(const struct ftd_self_usage *s);
struct json_object *ftd_api_collector_json(const struct ftagentd *d);

/* A process's calls, all kinds (top's "calls" order). */
uint64_t ftd_api_proc_calls(const struct ftd_proc *p);
/*
 * A process row; @off turns the row's CLOCK_MONOTONIC times into
 * CLOCK_REALTIME.
 */
struct json_object *ftd_api_proc_json(const struct ftd_proc *p, uint64_t off);
/* A row of table @id. */
struct json_object *ftd_api_row_json(const struct ftd_collector *c,
				     enum ftd_table_id id, const void *row,
				     uint64_t off);
/* Every used row of @t (*@n of them), malloc'd; NULL when memory ran out. */
const void **ftd_api_table_rows(const struct ftd_table *t, size_t *n);

#endif /* FTAGENTD_API_JSON_H */
