// SPDX-License-Identifier: GPL-2.0
/*
 * sd_notify() as a plain datagram (notify.h), so ftagentd need not map
 * libsystemd and what it links for a few bytes at start, reload and stop.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "notify.h"

int ftd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	socklen_t len;
	size_t n;
	ssize_t sent;
	int fd, err;

	if (!path || !path[0])
		return 0;
	n = strlen(path);
	/* A path, or '@' for the abstract namespace; nothing else here. */
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = '\0'; /* abstract: no NUL at the end */
	else
		n++;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/*
	 * Never block: a reader that stopped reading (a test harness, a
	 * wedged manager) would otherwise hold the main loop, signals and
	 * all. systemd reads its socket at once; a full one gets -EAGAIN.
	 */
	do {
		sent = sendto(fd, state, strlen(state),
			      MSG_NOSIGNAL | MSG_DONTWAIT,
			      (struct sockaddr *)&sun, len);
	} while (sent < 0 && errno == EINTR);
	err = sent < 0 ? -errno : 1;
	close(fd);
	return err;
}

int ftd_notifyf(const char *fmt, ...)
{
	char state[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	return ftd_notify(state);
}
