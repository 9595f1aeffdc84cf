/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's systemd unit, from its cgroup v2 path: what [metrics]
 * group_by = unit groups by. The module's exec records carry the cgroup
 * id (the inode of the cgroup's directory), not its path, so the path is
 * read from /proc/PID/cgroup when a process is first seen, and the unit
 * is remembered by cgroup id for every later process of that cgroup
 * (short-lived ones included, which are gone before /proc can be read).
 */
#ifndef FTAGENTD_PROC_UNIT_H
#define FTAGENTD_PROC_UNIT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The unit a cgroup path belongs to: its deepest component ending in
 * .service or .scope, else its deepest .slice, else "-.slice" (the root
 * cgroup). "/system.slice/nginx.service/worker" is nginx.service. 0, or
 * -1 for a path that is not absolute or a unit name too long for @size.
 */
int ftd_unit_of_cgroup(const char *path, char *unit, size_t size);

/*
 * @pid's cgroup v2 path (the "0::" line of /proc/PID/cgroup) and its
 * id (the directory's inode under @cgroup_root, 0 if it can't be read).
 * 0, or -1 (the process is gone, or no cgroup v2).
 */
int ftd_proc_cgroup(uint32_t pid, const char *cgroup_root, char *path,
		    size_t size, uint64_t *id);

#endif /* FTAGENTD_PROC_UNIT_H */
