// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/self/stat fields 14 and 15 (utime, stime, in clock ticks) and
 * /proc/self/statm (pages); the descriptor count is the entries of
 * /proc/self/fd less the one opendir() itself holds.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "self_usage.h"

static int read_cpu_seconds(double *seconds)
{
	unsigned long long utime, stime;
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces: start after its ')'. */
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &utime, &stime) != 2)
		return -1;
	*seconds = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

static unsigned int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n ? n - 1 : 0;
}

int ftd_self_usage_sample(struct ftd_self_usage *u, uint64_t now_mono_ns)
{
	static uint64_t last_ns;
	static double last_cpu;
	unsigned long long size, resident;
	double cpu;
	FILE *f;

	if (read_cpu_seconds(&cpu) < 0)
		return -1;
	if (last_ns && now_mono_ns > last_ns)
		u->cpu_percent = 100.0 * (cpu - last_cpu) /
				 ((double)(now_mono_ns - last_ns) / 1e9);
	last_ns = now_mono_ns;
	last_cpu = cpu;
	u->cpu_seconds = cpu;
	f = fopen("/proc/self/statm", "re");
	if (!f)
		return -1;
	if (fscanf(f, "%llu %llu", &size, &resident) == 2) {
		u->vm_bytes = size * (uint64_t)sysconf(_SC_PAGESIZE);
		u->rss_bytes = resident * (uint64_t)sysconf(_SC_PAGESIZE);
	}
	fclose(f);
	u->open_fds = count_fds();
	return 0;
}
