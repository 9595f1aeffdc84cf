/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traffic for the unload tests: a thread that preads 4 KiB from a file
 * and sends 1 KiB over a socketpair, both traced calls, and every eighth
 * time reads the file through Linux AIO (io_submit: aio.c's two hooks),
 * until ft_stop_hammer is set. Returns NULL, or (void *)1 on a failed
 * call.
 */
#ifndef FTAGENT_HAMMER_TEST_H
#define FTAGENT_HAMMER_TEST_H

#include <linux/aio_abi.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "ftagent_test.h"

static volatile int ft_stop_hammer;

/* One Linux AIO read of @len from @fd into @buf on @ctx: 0 or -1. */
static inline int ft_aio_read(aio_context_t ctx, int fd, char *buf, size_t len)
{
	struct iocb cb = {0}, *p = &cb;
	struct io_event ev;

	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_fildes = fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len;
	if (syscall(SYS_io_submit, ctx, 1, &p) != 1 ||
	    syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
		return -1;
	return ev.res == (long long)len ? 0 : -1;
}

static inline void *ft_hammer(void *arg)
{
	int n = (int)(long)arg, sv[2], fd, i;
	char buf[4096] = {0}, path[64];
	aio_context_t ctx = 0;

	snprintf(path, sizeof(path), "/tmp/fthm.%d.%d", getpid(), n);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink(path);
	if (fd < 0 || ft_write_all(fd, buf, sizeof(buf)) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) ||
	    syscall(SYS_io_setup, 4, &ctx))
		return (void *)1L;
	for (i = 0; !ft_stop_hammer; i++) {
		if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
		    send(sv[0], buf, 1024, 0) != 1024 ||
		    recv(sv[1], buf, sizeof(buf), 0) != 1024 ||
		    (!(i % 8) && ft_aio_read(ctx, fd, buf, sizeof(buf))))
			return (void *)1L;
		/* Two vCPUs, four threads: leave the loader some CPU time. */
		if (!(i % 64))
			usleep(100);
	}
	syscall(SYS_io_destroy, ctx);
	close(sv[0]);
	close(sv[1]);
	close(fd);
	return NULL;
}

#endif
