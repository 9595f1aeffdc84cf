/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ftctl doctor reads from the host: files, the output of a few
 * commands (dkms, mokutil, modinfo), the installed kernels. The checks
 * themselves (tools/lib/doctor*.c) never touch the host.
 */
#ifndef FTCTL_DOCTOR_HOST_H
#define FTCTL_DOCTOR_HOST_H

#include <stddef.h>

/* @path's content, NUL-terminated (at most @max bytes), or NULL (errno). */
char *doctor_read_file(const char *path, size_t max, size_t *len);

/*
 * Run @argv (no shell) and return its stdout, or NULL when it could not
 * be run (not installed: errno ENOENT). *@status: its exit status.
 * stderr is discarded.
 */
char *doctor_run(const char *const argv[], int *status);

/*
 * Kernel releases installed: directories in /lib/modules with a
 * /boot/vmlinuz-RELEASE beside. Fills @out (each malloc'd); returns how
 * many, at most @max.
 */
size_t doctor_installed_kernels(char **out, size_t max);

/* Entries of a directory (not . or ..), each malloc'd; how many. */
size_t doctor_list_dir(const char *dir, char **out, size_t max);

#endif /* FTCTL_DOCTOR_HOST_H */
