/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the cgroups the policy names by path. A cgroup's id (its
 * directory's inode) changes when it is made anew, as when systemd
 * restarts a service, and a cgroup may not exist yet when the daemon
 * starts. inotify on each path's parent directory (or, while that is
 * missing too, its nearest existing ancestor) wakes the daemon when one
 * is made or removed; the daemon then resolves the paths again and
 * pushes the sets that changed (ftd_module_apply_policy).
 *
 * What remains: between the moment a cgroup is made and the moment the
 * daemon has pushed its new id (one wakeup, one netlink request), a
 * process already in it is not matched by those rules.
 */
#ifndef FTAGENTD_CGROUP_WATCH_H
#define FTAGENTD_CGROUP_WATCH_H

#include "../tools/lib/policy_config.h"

struct ftd_cgroup_watch {
	int fd; /* inotify; -1 when no rule names a cgroup by path */
};

/* Watch what @pc's cgroup paths need (replacing earlier watches). 0/-1. */
int ftd_cgroup_watch_set(struct ftd_cgroup_watch *w,
			 const struct ftd_policy_config *pc);
/* Read what is waiting on w->fd: 1 when a watched directory changed. */
int ftd_cgroup_watch_drain(struct ftd_cgroup_watch *w);
void ftd_cgroup_watch_close(struct ftd_cgroup_watch *w);

#endif /* FTAGENTD_CGROUP_WATCH_H */
