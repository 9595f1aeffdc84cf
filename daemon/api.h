/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The local API's transport: a Unix stream socket, one JSON request per
 * line, one JSON reply per line (docs/api.md). Only root and members of
 * the ftagent group may connect: the socket file is 0660 root:ftagent,
 * and every peer's credentials are checked again on accept.
 */
#ifndef FTAGENTD_API_H
#define FTAGENTD_API_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ftagentd.h"

#define FTD_API_MAX_CLIENTS 32
#define FTD_API_LINE_MAX    (64 * 1024)

struct ftd_api_client {
	int fd;
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	int closing; /* no more requests: close once replies are out */
};

struct ftd_api {
	int listen_fd, epoll_fd;
	char path[108];
	gid_t group; /* the ftagent group, or (gid_t)-1 when it doesn't exist */
	struct ftd_api_client client[FTD_API_MAX_CLIENTS];
	uint64_t requests, errors, refused;
};

/*
 * Listen on @path (replacing a stale socket) and register with
 * @epoll_fd; event data.u64 is FTD_API_TAG | slot. 0, or -1 with @why.
 */
#define FTD_API_TAG	   (1ull << 40)
#define FTD_API_LISTEN_TAG (FTD_API_TAG | 0xffff)
/* 1 when something listens on @path (another daemon serving there). */
int ftd_api_socket_busy(const char *path);
int ftd_api_open(struct ftd_api *api, const char *path, int epoll_fd, char *why,
		 size_t why_len);
void ftd_api_close(struct ftd_api *api);
/* Handle an epoll event whose data.u64 had FTD_API_TAG set. */
void ftd_api_event(struct ftd_api *api, uint64_t tag, uint32_t events,
		   struct ftagentd *d);
/*
 * Whether a peer with @uid, primary @gid and supplementary @groups (@n)
 * may use the API: root, or a member of @group.
 */
int ftd_api_peer_allowed(uid_t uid, gid_t gid, const gid_t *groups, size_t n,
			 gid_t group);
/*
 * The supplementary groups of the process at the other end of @fd, as
 * the kernel recorded them at connect (SO_PEERGROUPS): nothing read from
 * /proc, so no CAP_SYS_PTRACE or CAP_DAC_READ_SEARCH. A malloc()ed array
 * in *@groups (NULL when none), its length in *@n. 0, or -1.
 */
int ftd_api_peer_groups(int fd, gid_t **groups, size_t *n);

#endif /* FTAGENTD_API_H */
