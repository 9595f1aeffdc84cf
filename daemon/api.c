// SPDX-License-Identifier: GPL-2.0
/*
 * API transport: non-blocking, edge cases bounded. A line longer than
 * FTD_API_LINE_MAX gets an error reply and the connection is closed; a
 * client that stops reading its replies holds at most its own buffer and
 * is dropped once that passes a bound, so no client can stall the loop.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <json-c/json.h>

#include "api.h"
#include "api_reply.h"
#include "group.h"

#define OUT_MAX (64u << 20) /* one reply may be a large event query */

static void client_close(struct ftd_api *api, struct ftd_api_client *c)
{
	epoll_ctl(api->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

int ftd_api_socket_busy(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, busy;

	if (strlen(path) >= sizeof(sun.sun_path))
		return 0;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	/* EAGAIN: a listener whose backlog is full is still a listener. */
	busy = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 ||
	       errno == EAGAIN;
	close(fd);
	return busy;
}

int ftd_api_open(struct ftd_api *api, const char *path, int epoll_fd, char *why,
		 size_t why_len)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct epoll_event ev = {.events = EPOLLIN,
				 .data.u64 = FTD_API_LISTEN_TAG};
	char dir[sizeof(api->path)], *slash;
	int i;

	memset(api, 0, sizeof(*api));
	api->listen_fd = -1;
	api->epoll_fd = epoll_fd;
	for (i = 0; i < FTD_API_MAX_CLIENTS; i++)
		api->client[i].fd = -1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(why, why_len, "%s: path too long", path);
		return -1;
	}
	snprintf(api->path, sizeof(api->path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	api->group = ftd_ftagent_gid();
	strcpy(sun.sun_path, path);
	api->listen_fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (api->listen_fd < 0)
		goto fail;
	/*
	 * A socket left by a daemon that was killed: nobody listens there,
	 * so it goes. One that answers belongs to a daemon still serving.
	 */
	if (ftd_api_socket_busy(path)) {
		snprintf(why, why_len,
			 "API socket %s: another ftagentd listens on it", path);
		close(api->listen_fd);
		api->listen_fd = -1;
		return -1;
	}
	unlink(path);
	if (bind(api->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		goto fail;
	if (chmod(path, api->group != (gid_t)-1 ? 0660 : 0600) < 0 ||
	    (api->group != (gid_t)-1 && chown(path, 0, api->group) < 0))
		goto fail;
	if (listen(api->listen_fd, 16) < 0 ||
	    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, api->listen_fd, &ev) < 0)
		goto fail;
	return 0;
fail:
	snprintf(why, why_len, "API socket %s: %s", path, strerror(errno));
	if (api->listen_fd >= 0)
		close(api->listen_fd);
	api->listen_fd = -1;
	return -1;
}

void ftd_api_close(struct ftd_api *api)
{
	int i;

	for (i = 0; i < FTD_API_MAX_CLIENTS; i++)
		if (api->client[i].fd >= 0)
			client_close(api, &api->client[i]);
	if (api->listen_fd >= 0) {
		close(api->listen_fd);
		unlink(api->path);
	}
	api->listen_fd = -1;
}

int ftd_api_peer_allowed(uid_t uid, gid_t gid, const gid_t *groups, size_t n,
			 gid_t group)
{
	size_t i;

	if (uid == 0)
		return 1;
	if (group == (gid_t)-1)
		return 0;
	if (gid == group)
		return 1;
	for (i = 0; i < n; i++)
		if (groups[i] == group)
			return 1;
	return 0;
}

int ftd_api_peer_groups(int fd, gid_t **groups, size_t *n)
{
	socklen_t len = 0;
	gid_t *g = NULL;

	*groups = NULL;
	*n = 0;
	/* The first call says how much room the list needs. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, NULL, &len) == 0)
		return 0; /* no supplementary groups */
	if (errno != ERANGE)
		return -1;
	g = malloc(len ? len : 1);
	if (!g)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		free(g);
		return -1;
	}
	*groups = g;
	*n = len / sizeof(gid_t);
	return 0;
}

static void accept_clients(struct ftd_api *api)
{
	for (;;) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct epoll_event ev = {.events = EPOLLIN};
		gid_t *groups = NULL;
		size_t n_groups = 0;
		int fd, i, allowed;

		fd = accept4(api->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		allowed = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
				     &len) == 0 &&
			  ftd_api_peer_groups(fd, &groups, &n_groups) == 0 &&
			  ftd_api_peer_allowed(cred.uid, cred.gid, groups,
					       n_groups, api->group);
		free(groups);
		groups = NULL;
		if (!allowed) {
			api->refused++;
			close(fd);
			continue;
		}
		for (i = 0; i < FTD_API_MAX_CLIENTS; i++)
			if (api->client[i].fd < 0)
				break;
		if (i == FTD_API_MAX_CLIENTS) {
			api->refused++;
			close(fd);
			continue;
		}
		ev.data.u64 = FTD_API_TAG | (uint64_t)i;
		if (epoll_ctl(api->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			continue;
		}
		api->client[i].fd = fd;
	}
}

static int queue_reply(struct ftd_api_client *c, struct json_object *reply)
{
	const char *s =
		json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(s);
	char *out;

	if (c->out_len - c->out_off + len + 1 > OUT_MAX)
		return -1;
	out = realloc(c->out, c->out_len + len + 1);
	if (!out)
		return -1;
	memcpy(out + c->out_len, s, len);
	out[c->out_len + len] = '\n';
	c->out = out;
	c->out_len += len + 1;
	return 0;
}

static struct json_object *error_reply(const char *msg)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "error", json_object_new_string(msg));
	return o;
}

/* Answer every whole line in the input buffer. -1: drop the client. */
static int serve_lines(struct ftd_api *api, struct ftd_api_client *c,
		       struct ftagentd *d)
{
	char *nl;

	if (d->refresh && memchr(c->in, '\n', c->in_len))
		d->refresh(d->refresh_arg);
	while ((nl = memchr(c->in, '\n', c->in_len))) {
		size_t len = (size_t)(nl - c->in);
		struct json_object *reply;
		int rc;

		pthread_mutex_lock(&d->col.lock);
		reply = ftd_api_reply(d, c->in, len);
		pthread_mutex_unlock(&d->col.lock);
		api->requests++;
		if (!reply)
			return -1;
		if (!json_object_get_boolean(
			    json_object_object_get(reply, "ok")))
			api->errors++;
		rc = queue_reply(c, reply);
		json_object_put(reply);
		if (rc < 0)
			return -1;
		memmove(c->in, nl + 1, c->in_len - len - 1);
		c->in_len -= len + 1;
	}
	if (c->in_len >= FTD_API_LINE_MAX) {
		struct json_object *reply =
			error_reply("request line longer than 65536 bytes");

		api->errors++;
		queue_reply(c, reply);
		json_object_put(reply);
		return 1; /* answer, then close */
	}
	return 0;
}

static int flush_out(struct ftd_api *api, struct ftd_api_client *c, int slot)
{
	struct epoll_event ev = {.data.u64 = FTD_API_TAG | (uint64_t)slot};

	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return -1;
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		ev.events = EPOLLIN;
	} else {
		ev.events = EPOLLIN | EPOLLOUT;
	}
	if (c->closing)
		ev.events &= ~(uint32_t)EPOLLIN;
	return epoll_ctl(api->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
}

void ftd_api_event(struct ftd_api *api, uint64_t tag, uint32_t events,
		   struct ftagentd *d)
{
	struct ftd_api_client *c;
	unsigned int slot = (unsigned int)(tag & 0xffff);
	int close_after = 0;

	if (tag == FTD_API_LISTEN_TAG) {
		accept_clients(api);
		return;
	}
	if (slot >= FTD_API_MAX_CLIENTS || api->client[slot].fd < 0)
		return;
	c = &api->client[slot];
	if (events & EPOLLIN) {
		for (;;) {
			ssize_t n;

			if (!c->in) {
				c->in = malloc(FTD_API_LINE_MAX);
				if (!c->in)
					goto drop;
			}
			n = recv(c->fd, c->in + c->in_len,
				 FTD_API_LINE_MAX - c->in_len, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n <= 0) {
				/* EOF: answer what came, then close. */
				close_after = 1;
				break;
			}
			c->in_len += (size_t)n;
			close_after = serve_lines(api, c, d);
			if (close_after)
				break;
		}
		if (close_after < 0)
			goto drop;
		if (close_after)
			c->closing = 1;
	}
	if (events & (EPOLLERR | EPOLLHUP) && !(events & EPOLLIN))
		goto drop;
	if (flush_out(api, c, (int)slot) < 0)
		goto drop;
	if (c->closing && c->out_len == 0)
		goto drop;
	return;
drop:
	client_close(api, c);
}
