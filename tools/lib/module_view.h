/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's status and resources as JSON, in a form that reads back
 * into the same structs: ftagentd puts it in its stats reply ("module"),
 * so a member of the ftagent group, who may not ask the module itself
 * (its control family needs CAP_NET_ADMIN), gets ftctl stats' KERNEL
 * section from the daemon's last sample.
 */
#ifndef FTAGENT_LIB_MODULE_VIEW_H
#define FTAGENT_LIB_MODULE_VIEW_H

#include <json-c/json.h>

#include "counters.h"
#include "status.h"

struct json_object *ftagent_module_view_json(const struct ftagent_status *st,
					     const struct ftagent_resources *r);
/* Fill @st and @r (zeroed first; free @r after) from @j. 0, or -1. */
int ftagent_module_view_parse(struct json_object *j, struct ftagent_status *st,
			      struct ftagent_resources *r);

#endif /* FTAGENT_LIB_MODULE_VIEW_H */
