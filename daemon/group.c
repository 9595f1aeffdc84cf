// SPDX-License-Identifier: GPL-2.0
/* The ftagent group (group.h). */
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "group.h"

/*
 * /etc/group first, where the install puts it: a getgrnam() loads the
 * NSS modules nsswitch.conf names (libnss_systemd: 300 kB) and keeps
 * them mapped for the daemon's whole life, for one lookup at start.
 * Through NSS only when the file does not have it.
 */
const char *ftd_group_file = "/etc/group";

gid_t ftd_ftagent_gid(void)
{
	gid_t gid = (gid_t)-1;
	struct group *gr;
	FILE *f;

	f = fopen(ftd_group_file, "re");
	if (f) {
		while ((gr = fgetgrent(f)))
			if (!strcmp(gr->gr_name, "ftagent")) {
				gid = gr->gr_gid;
				break;
			}
		fclose(f);
	}
	if (gid == (gid_t)-1 && !strcmp(ftd_group_file, "/etc/group")) {
		gr = getgrnam("ftagent");
		if (gr)
			gid = gr->gr_gid;
	}
	return gid;
}

int ftd_give_to_group(int fd)
{
	gid_t gid = ftd_ftagent_gid();
	struct stat st;

	if (gid == (gid_t)-1)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_gid == gid)
		return 0;
	return fchown(fd, (uid_t)-1, gid);
}

int ftd_give_logs_directory(void)
{
	const char *dir = getenv("LOGS_DIRECTORY");
	int fd, rc;

	/* systemd may list several, separated by ':'; ours is one. */
	if (!dir || !*dir || strchr(dir, ':'))
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = ftd_give_to_group(fd);
	close(fd);
	return rc;
}
