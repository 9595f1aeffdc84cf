// SPDX-License-Identifier: GPL-2.0
/* Watching the cgroups the policy names by path (cgroup_watch.h). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_watch.h"

#define WATCH_MASK                                                             \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |                 \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Watch the nearest existing directory above @path. */
static int watch_above(int fd, const char *path)
{
	char dir[1024], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash)
			return -1;
		if (slash == dir) {
			dir[1] = '\0'; /* "/" */
		} else {
			*slash = '\0';
		}
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return inotify_add_watch(fd, dir, WATCH_MASK) < 0 ? -1
									  : 0;
		if (slash == dir)
			return -1;
	}
}

int ftd_cgroup_watch_set(struct ftd_cgroup_watch *w,
			 const struct ftd_policy_config *pc)
{
	size_t i;
	int rc = 0;

	ftd_cgroup_watch_close(w);
	if (!pc->n_cgroups)
		return 0;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return -1;
	for (i = 0; i < pc->n_cgroups; i++)
		if (watch_above(w->fd, pc->cgroups[i].path) < 0)
			rc = -1;
	return rc;
}

int ftd_cgroup_watch_drain(struct ftd_cgroup_watch *w)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;

	if (w->fd < 0)
		return 0;
	while (read(w->fd, buf, sizeof(buf)) > 0)
		any = 1;
	return any;
}

void ftd_cgroup_watch_close(struct ftd_cgroup_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
