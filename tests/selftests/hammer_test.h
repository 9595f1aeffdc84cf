/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traffic for the unload tests: a thread that preads 4 KiB from a file
 * and sends 1 KiB over a socketpair, both traced calls, until
 * ft_stop_hammer is set. Returns NULL, or (void *)1 on a failed call.
 */
#ifndef FTAGENT_HAMMER_TEST_H
#define FTAGENT_HAMMER_TEST_H

#include <sys/socket.h>

#include "ftagent_test.h"

static volatile int ft_stop_hammer;

static inline void *ft_hammer(void *arg)
{
	int n = (int)(long)arg, sv[2], fd, i;
	char buf[4096] = {0}, path[64];

	snprintf(path, sizeof(path), "/tmp/fthm.%d.%d", getpid(), n);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink(path);
	if (fd < 0 || ft_write_all(fd, buf, sizeof(buf)) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return (void *)1L;
	for (i = 0; !ft_stop_hammer; i++) {
		if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
		    send(sv[0], buf, 1024, 0) != 1024 ||
		    recv(sv[1], buf, sizeof(buf), 0) != 1024)
			return (void *)1L;
		/* Two vCPUs, four threads: leave the loader some CPU time. */
		if (!(i % 64))
			usleep(100);
	}
	close(sv[0]);
	close(sv[1]);
	close(fd);
	return NULL;
}

#endif
