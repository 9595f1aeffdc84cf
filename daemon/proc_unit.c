// SPDX-License-Identifier: GPL-2.0
/* A process's systemd unit, from its cgroup (proc_unit.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "proc_unit.h"

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

int ftd_unit_of_cgroup(const char *path, char *unit, size_t size)
{
	const char *best = NULL, *slice = NULL, *p, *end;
	size_t best_len = 0, slice_len = 0, len;

	if (path[0] != '/')
		return -1;
	for (p = path; *p; p = end) {
		while (*p == '/')
			p++;
		end = p + strcspn(p, "/");
		len = (size_t)(end - p);
		if (ends_with(p, len, ".service") ||
		    ends_with(p, len, ".scope")) {
			best = p;
			best_len = len;
		} else if (ends_with(p, len, ".slice")) {
			slice = p;
			slice_len = len;
		}
	}
	if (!best) {
		best = slice ? slice : "-.slice";
		best_len = slice ? slice_len : strlen("-.slice");
	}
	if (best_len >= size)
		return -1;
	memcpy(unit, best, best_len);
	unit[best_len] = '\0';
	return 0;
}

int ftd_proc_cgroup(uint32_t pid, const char *cgroup_root, char *path,
		    size_t size, uint64_t *id)
{
	char name[64], line[4096], dir[4352];
	struct stat st;
	int found = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%u/cgroup", pid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue; /* a cgroup v1 hierarchy */
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) >= size)
			break;
		strcpy(path, line + 3);
		found = 1;
	}
	fclose(f);
	if (!found)
		return -1;
	snprintf(dir, sizeof(dir), "%s%s", cgroup_root, path);
	*id = stat(dir, &st) == 0 ? (uint64_t)st.st_ino : 0;
	return 0;
}
