// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "counters.h"
#include "selfcheck.h"

/* Far above any descriptor a process holds. */
#define FTAGENT_CLOSED_FD 999999

/*
 * Every call fails at once (bad descriptor, or a bad address for the
 * open calls' path), so no event or count comes of it, only a hit.
 */
void ftagent_call_every_traced_syscall(void)
{
	static const long nrs[] = {
		SYS_read,
		SYS_readv,
		SYS_pread64,
		SYS_preadv,
		SYS_preadv2,
		SYS_write,
		SYS_writev,
		SYS_pwrite64,
		SYS_pwritev,
		SYS_pwritev2,
		SYS_recvfrom,
		SYS_recvmsg,
		SYS_recvmmsg,
		SYS_sendto,
		SYS_sendmsg,
		SYS_sendmmsg,
		SYS_sendfile,
		SYS_splice,
		SYS_copy_file_range,
		SYS_connect,
		SYS_accept,
		SYS_accept4,
		SYS_bind,
		SYS_listen,
		SYS_open,
		SYS_openat,
		SYS_openat2,
		SYS_creat,
	};
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		syscall(nrs[i], FTAGENT_CLOSED_FD, 0, 0, FTAGENT_CLOSED_FD, 0,
			0);
	ftagent_call_every_ia32_syscall();
	ftagent_call_every_x32_syscall();
}

/* Set when this system answered int $0x80 with a signal: no ia32 calls. */
static int ftagent_ia32_refused;
/* Set when it answered an x32 call with ENOSYS: x32 is off. */
static int ftagent_x32_refused;

#if defined(__x86_64__)
#define FTAGENT_X32_BIT 0x40000000L

/*
 * Run @calls in a child that dumps no core (a call the system refuses may
 * kill it): the child's wait status, or -1 when it could not be run or
 * waited for.
 */
static int in_child(void (*calls)(void))
{
	struct rlimit no_core = {0, 0};
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		calls();
		_exit(0);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/*
 * x32's own entry points (kmod/calls.c), by their x32 numbers: readv,
 * writev, recvfrom, sendmsg, recvmsg, preadv, pwritev, recvmmsg,
 * sendmmsg, preadv2, pwritev2, each on a closed descriptor. Made in a
 * child, as the ia32 ones: a seccomp filter that refuses foreign
 * architectures (systemd's SystemCallArchitectures=native) may kill the
 * caller for an x32 call. The child exits 0 when x32's read answered
 * EBADF (x32 is on), 2 when it answered anything else (off: ENOSYS; or
 * refused to this process): then no x32 hook can be shown to fire here,
 * which is no fault of theirs.
 */
static void x32_calls(void)
{
	static const long nrs[] = {
		515, 516, 517, 518, 519, 534, 535, 537, 538, 546, 547,
	};
	long ret = syscall(FTAGENT_X32_BIT | SYS_read, FTAGENT_CLOSED_FD, 0, 0);
	size_t i;

	if (ret != -1 || errno != EBADF)
		_exit(2);
	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		syscall(FTAGENT_X32_BIT | nrs[i], FTAGENT_CLOSED_FD, 0, 0,
			FTAGENT_CLOSED_FD, 0, 0);
}

void ftagent_call_every_x32_syscall(void)
{
	int status = in_child(x32_calls);

	ftagent_x32_refused =
		status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
#else
void ftagent_call_every_x32_syscall(void)
{
	ftagent_x32_refused = 1;
}
#endif

#if defined(__x86_64__)
/*
 * A 32-bit system call through int $0x80, from this 64-bit process. The
 * entry code may clear r8-r11 (older kernels did), hence the clobbers.
 */
static long ia32_syscall(long nr, long a1, long a2, long a3, long a4)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(0)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/*
 * The ia32 entry points (kmod/calls.c), numbered as in the kernel's ia32
 * table, the same way: a closed descriptor, or a path at an address
 * nothing is mapped at. socketcall(SYS_SEND) with its argument block at
 * address 0 fails with EFAULT. Made in a child: a kernel built without
 * ia32 emulation, or booted with ia32_emulation=0, answers int $0x80
 * with a signal; then no ia32 hook can fire, which is no fault of its.
 */
static void ia32_calls(void)
{
	static const long nrs[] = {
		3,   145, 180, 333, 378, 4,   146, 181, 334, 379,
		371, 372, 337, 417, 369, 370, 345, 187, 239, 313,
		377, 362, 364, 361, 363, 5,   295, 437, 8,
	};
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		ia32_syscall(nrs[i], FTAGENT_CLOSED_FD, 0, 0,
			     FTAGENT_CLOSED_FD);
	ia32_syscall(102 /* socketcall */, 9 /* SYS_SEND */, 0, 0, 0);
}

void ftagent_call_every_ia32_syscall(void)
{
	int status = in_child(ia32_calls);

	if (status >= 0)
		ftagent_ia32_refused = WIFSIGNALED(status);
}
#else
void ftagent_call_every_ia32_syscall(void)
{
	ftagent_ia32_refused = 1;
}
#endif

int ftagent_hook_not_applicable(const struct ftagent_hook_stats *h)
{
	return (ftagent_ia32_refused && !strncmp(h->name, "__ia32_", 7)) ||
	       (ftagent_x32_refused && !strncmp(h->name, "__x64_compat_", 13));
}

int ftagent_hook_fired(const struct ftagent_resources *before,
		       const struct ftagent_hook_stats *h)
{
	size_t i;

	for (i = 0; before && i < before->n_hooks; i++)
		if (!strcmp(before->hook[i].name, h->name))
			return h->hits > before->hook[i].hits;
	return 0;
}
