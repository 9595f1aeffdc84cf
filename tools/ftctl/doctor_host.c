// SPDX-License-Identifier: GPL-2.0
/* What ftctl doctor reads from the host (doctor_host.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "doctor_host.h"

/* A command's output beyond this is cut: dkms status is a few lines. */
#define RUN_OUTPUT_MAX (64u << 10)

static char *read_fd(int fd, size_t max, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap + 1), *bigger;
	ssize_t got;

	while (buf) {
		if (n == cap && cap < max) {
			cap = cap * 2 < max ? cap * 2 : max;
			bigger = realloc(buf, cap + 1);
			if (!bigger)
				break;
			buf = bigger;
		}
		if (n == cap)
			break;
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	if (!buf)
		return NULL;
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *doctor_read_file(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	int e;

	if (fd < 0)
		return NULL;
	buf = read_fd(fd, max, len);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

char *doctor_run(const char *const argv[], int *status)
{
	int out[2], null_fd, wstatus;
	char *buf;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		return NULL;
	}
	if (!pid) {
		null_fd = open("/dev/null", O_RDWR);
		dup2(out[1], STDOUT_FILENO);
		if (null_fd >= 0) {
			dup2(null_fd, STDERR_FILENO);
			dup2(null_fd, STDIN_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		/* 127: not found, as a shell says it. */
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(out[1]);
	buf = read_fd(out[0], RUN_OUTPUT_MAX, NULL);
	close(out[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128;
	if (*status == 127) {
		free(buf);
		errno = ENOENT;
		return NULL;
	}
	return buf;
}

size_t doctor_list_dir(const char *dir, char **out, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (out[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	return n;
}

size_t doctor_installed_kernels(char **out, size_t max)
{
	char path[512];
	struct stat st;
	size_t n, i, kept = 0;

	n = doctor_list_dir("/lib/modules", out, max);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/boot/vmlinuz-%s", out[i]);
		if (stat(path, &st) == 0)
			out[kept++] = out[i];
		else
			free(out[i]);
	}
	return kept;
}
