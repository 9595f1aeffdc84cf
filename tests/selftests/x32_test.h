/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x32 entry from a 64-bit selftest: its numbers, its structures and
 * a way to call it, shared by the tests that try it as a way around a
 * count or a budget.
 */
#ifndef FTAGENT_X32_TEST_H
#define FTAGENT_X32_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#define X32_BIT 0x40000000L

/* x32's own numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
#define NRX_READV    515
#define NRX_WRITEV   516
#define NRX_RECVFROM 517
#define NRX_SENDMSG  518
#define NRX_RECVMSG  519
#define NRX_PREADV   534
#define NRX_PWRITEV  535
#define NRX_RECVMMSG 537
#define NRX_SENDMMSG 538
#define NRX_PREADV2  546
#define NRX_PWRITEV2 547

/* What struct iovec, msghdr and mmsghdr are to an x32 caller. */
struct iovecx {
	uint32_t base, len;
};

struct msghdrx {
	uint32_t name, namelen, iov, iovlen, control, controllen, flags;
};

struct mmsghdrx {
	struct msghdrx hdr;
	uint32_t msg_len;
};

static inline uint32_t lo32(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* An x32 system call: the result, or -errno. */
static inline long callx(long nr, long a1, long a2, long a3, long a4, long a5)
{
	long ret = syscall(X32_BIT | nr, a1, a2, a3, a4, a5);

	return ret < 0 ? -errno : ret;
}

/*
 * Whether the running kernel builds x32 in: Debian's switch for it
 * (syscall.x32=) is there exactly then; else the config in /boot.
 */
static inline int kernel_has_x32(void)
{
	char path[128], line[256];
	struct utsname u;
	int found = 0;
	FILE *f;

	if (!access("/sys/module/syscall/parameters/x32", F_OK))
		return 1;
	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "CONFIG_X86_X32_ABI=y\n");
	fclose(f);
	return found;
}

#endif /* FTAGENT_X32_TEST_H */
