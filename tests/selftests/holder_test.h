/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests that put other ftrace users beside ftagent share: the
 * holder module (tests/kmod/ftagent_test_holder.c, FTAGENT_HOLDER_KO),
 * which takes a function's direct-call slot as a BPF trampoline does, or
 * an IPMODIFY hook on it as a livepatch does; and the kernel log, where
 * ftagent says what it fell back to.
 */
#ifndef FTAGENT_HOLDER_TEST_H
#define FTAGENT_HOLDER_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ftagent_test.h"

/*
 * Load the holder with @params ("symbol=F", "symbol=F ipmodify=1"), or
 * unload it: 0 or -errno.
 */
static inline int holder_as(int load, const char *params)
{
	if (!load)
		return syscall(SYS_delete_module, "ftagent_test_holder",
			       O_NONBLOCK)
			       ? -errno
			       : 0;
	return ft_load_ko(getenv("FTAGENT_HOLDER_KO"), params);
}

/* Whether the kernel log since the last clear holds @needle. */
static inline int klog_has(const char *needle)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static inline void klog_clear(void)
{
	klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
}

#endif /* FTAGENT_HOLDER_TEST_H */
