/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ftagent group: members read the API socket, the event file and
 * the audit trail. The install creates it (make install); a host
 * without it keeps everything root's.
 */
#ifndef FTAGENTD_GROUP_H
#define FTAGENTD_GROUP_H

#include <sys/types.h>

/* Where the group is looked up first; tests point it elsewhere. */
extern const char *ftd_group_file;

/* Its gid, or (gid_t)-1 when there is no such group. */
gid_t ftd_ftagent_gid(void);

/*
 * Give @fd (a file or directory we created) to the group, keeping the
 * owner: 0 done or no group, -1 with errno. Needs CAP_CHOWN (the unit
 * grants it) unless the caller already owns it with that group.
 */
int ftd_give_to_group(int fd);

/*
 * The directory systemd made for the unit's logs ($LOGS_DIRECTORY,
 * LogsDirectory=): systemd creates it root:root, and the group could
 * not reach the event file and the audit trail inside. Given to the
 * group (mode stays LogsDirectoryMode=, 0750). Nothing without the
 * variable or the group. 0, or -1 with errno.
 */
int ftd_give_logs_directory(void);

#endif /* FTAGENTD_GROUP_H */
