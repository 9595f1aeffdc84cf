/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driving a real ia32 program (tests/helpers/ia32_exec) from a 64-bit
 * selftest: start it with two of our descriptors as its 3 and 4, have it
 * make system calls through int $0x80 or the vDSO, and know every byte
 * it moved itself (its commands in, its answers out), so that the test
 * can hold the kernel's /proc/PID/io for it against the calls it asked.
 */
#ifndef FTAGENT_IA32_EXEC_TEST_H
#define FTAGENT_IA32_EXEC_TEST_H

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ftagent_test.h"
#include "../helpers/ia32_exec.h"

struct ia32_child {
	pid_t pid;
	int cmd, answers;	/* our ends of its descriptors 0 and 1 */
	uint32_t base;		/* where its buffer is */
	uint64_t read_by_it;	/* command bytes it read() */
	uint64_t written_by_it; /* answer bytes it write()s */
};

/* tests/helpers/ia32_exec, beside the selftests it was built with. */
static inline const char *ia32_exec_path(void)
{
	static char path[PATH_MAX + 32];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/../helpers/ia32_exec", dirname(exe));
	return path;
}

static inline int ia32_read_all(int fd, void *p, size_t len)
{
	char *c = p;
	ssize_t n;

	while (len) {
		n = read(fd, c, len);
		if (n <= 0)
			return -1;
		c += n;
		len -= n;
	}
	return 0;
}

/*
 * Send one command (and @len bytes of @data after it); its answer in
 * @answer unless it is EXIT. 0, or -1 if the program has gone.
 */
static inline int ia32_send(struct ia32_child *c, struct ia32_cmd *cmd,
			    const void *data, size_t len, int32_t *answer)
{
	cmd->len = len;
	if (ft_write_all(c->cmd, cmd, sizeof(*cmd)) ||
	    (len && ft_write_all(c->cmd, data, len)))
		return -1;
	c->read_by_it += sizeof(*cmd) + len;
	if (cmd->op == IA32_OP_EXIT)
		return 0;
	if (ia32_read_all(c->answers, answer, sizeof(*answer)))
		return -1;
	c->written_by_it += sizeof(*answer);
	return 0;
}

/*
 * Start it with @fd3 and @fd4 (-1: none) as its descriptors 3 and 4.
 * 0, or -1.
 */
static inline int ia32_start(struct ia32_child *c, int fd3, int fd4)
{
	struct ia32_cmd base = {.op = IA32_OP_BASE};
	const char *path = ia32_exec_path();
	int to[2], from[2];
	int32_t answer;

	memset(c, 0, sizeof(*c));
	/* A program that died is an error of a write, not a dead test. */
	signal(SIGPIPE, SIG_IGN);
	if (!path || pipe(to) || pipe(from))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		if (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0 ||
		    (fd3 >= 0 && dup2(fd3, 3) < 0) ||
		    (fd4 >= 0 && dup2(fd4, 4) < 0))
			_exit(126);
		execl(path, "ia32_exec", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->cmd = to[1];
	c->answers = from[0];
	if (ia32_send(c, &base, NULL, 0, &answer))
		return -1;
	c->base = (uint32_t)answer;
	return 0;
}

/* Its buffer's address at @off, for a pointer inside what it is given. */
static inline uint32_t ia32_addr(const struct ia32_child *c, uint32_t off)
{
	return c->base + off;
}

/* @len bytes of @data to its buffer at @off. */
static inline int ia32_poke(struct ia32_child *c, uint32_t off,
			    const void *data, size_t len)
{
	struct ia32_cmd cmd = {.op = IA32_OP_POKE, .args = {off}};
	int32_t answer = -1;

	if (ia32_send(c, &cmd, data, len, &answer))
		return -1;
	return answer;
}

/*
 * System call @nr through @entry with @a; bit i of @rel makes a[i] an
 * offset into its buffer. The result (-errno on failure), or INT32_MIN
 * if the program has gone.
 */
static inline int32_t ia32_call(struct ia32_child *c, int entry, uint32_t nr,
				uint32_t rel, const uint32_t a[6])
{
	struct ia32_cmd cmd = {
		.op = IA32_OP_CALL, .entry = entry, .nr = nr, .rel = rel};
	int32_t answer;

	memcpy(cmd.args, a, sizeof(cmd.args));
	if (ia32_send(c, &cmd, NULL, 0, &answer))
		return INT32_MIN;
	return answer;
}

/* ia32_call() with its arguments written out, the rest zero. */
#define IA32_CALL(c, entry, nr, rel, ...)                                      \
	ia32_call(c, entry, nr, rel, (const uint32_t[6]){__VA_ARGS__})

/*
 * Wait (5 s at most) until it sleeps in read() of its commands: every
 * byte of its last answer is in its wchar by then, and its next read is
 * not yet in its rchar. 0, or -1.
 */
static inline int ia32_wait_idle(const struct ia32_child *c)
{
	struct timespec ms = {0, 1000000};
	char path[64], line[256];
	FILE *f;
	int i, idle;

	snprintf(path, sizeof(path), "/proc/%d/syscall", c->pid);
	for (i = 0; i < 5000; i++) {
		f = fopen(path, "r");
		if (!f)
			return -1;
		idle = fgets(line, sizeof(line), f) &&
		       !strncmp(line, "3 0x0 ", 6);
		fclose(f);
		if (idle)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* Its rchar and wchar from /proc/PID/io. 0, or -1. */
static inline int ia32_proc_io(const struct ia32_child *c, uint64_t *rchar,
			       uint64_t *wchar)
{
	unsigned long long r, w;
	char path[64];
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "/proc/%d/io", c->pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	got = fscanf(f, "rchar: %llu\nwchar: %llu", &r, &w);
	fclose(f);
	if (got != 2)
		return -1;
	*rchar = r;
	*wchar = w;
	return 0;
}

/* Tell it to exit with @code and reap it: its wait status, or -1. */
static inline int ia32_stop(struct ia32_child *c, uint32_t code)
{
	struct ia32_cmd cmd = {.op = IA32_OP_EXIT, .args = {code}};
	int status = -1;

	ia32_send(c, &cmd, NULL, 0, NULL);
	close(c->cmd);
	close(c->answers);
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	return status;
}

#endif /* FTAGENT_IA32_EXEC_TEST_H */
