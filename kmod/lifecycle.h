/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lifecycle events: processes (fork, exec, exit), sockets (bind, listen,
 * connect, accept, close) and file opens, written to the event channel.
 */
#ifndef _FTAGENT_LIFECYCLE_H
#define _FTAGENT_LIFECYCLE_H

#include <linux/limits.h>
#include <linux/types.h>

struct file;
struct socket;
struct task_struct;

int ftagent_lifecycle_init(bool strict);
void ftagent_lifecycle_exit(void);
/* Whether sock_close() is hooked (its records, and usersock.c's marks). */
bool ftagent_lifecycle_close_hooked(void);

/*
 * From the accounting of returned calls (preemption off): a socket event
 * for descriptor @fd, and an open event for the descriptor an open call
 * returned. Filters are applied here.
 */
void ftagent_event_sock_fd(unsigned int type, unsigned int fd, long result,
			   u32 backlog);
/*
 * @flags: the O_* flags of the call, or FTAGENT_OPEN_FLAGS_FILE for the
 * file's own (f_flags, and O_CREAT if this open created it; O_EXCL and
 * O_TRUNC are not kept there).
 */
#define FTAGENT_OPEN_FLAGS_FILE	U32_MAX
void ftagent_event_open_fd(unsigned int fd, u32 flags);

/*
 * For io_uring (iouring.c), from a file the caller holds: an open record
 * for @file, which it is installing as descriptor @fd; and a socket
 * record about @file in the name of @who (the submitting thread of a
 * request whose completion the caller runs, or current).
 */
void ftagent_event_open_file(unsigned int fd, struct file *file, u32 flags);
void ftagent_event_sock_file_as(const struct task_struct *who,
				unsigned int type, struct file *file,
				long result, u32 backlog);

#endif /* _FTAGENT_LIFECYCLE_H */
