// SPDX-License-Identifier: GPL-2.0
/*
 * ftagentd's local API, client side (api_client.h): connect, write one
 * line, read one line, parse it, all against one deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "api_client.h"
#include "api_version.h"

/* Set by a command-line option, which beats the environment. */
static const char *socket_override;

void ftagent_api_set_socket_path(const char *path)
{
	socket_override = path && path[0] ? path : NULL;
}

const char *ftagent_api_socket_path(void)
{
	const char *env = getenv(FTAGENT_API_SOCKET_ENV);

	if (socket_override)
		return socket_override;
	return env && env[0] ? env : FTAGENT_API_SOCKET_PATH;
}

int ftagent_api_not_running(int rc)
{
	return rc == -ENOENT || rc == -ECONNREFUSED;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (-1: none). 0 or -ETIMEDOUT. */
static int wait_for(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int64_t left;
	int rc;

	for (;;) {
		left = deadline < 0 ? -1 : deadline - now_ms();
		if (deadline >= 0 && left <= 0)
			return -ETIMEDOUT;
		rc = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

static int fail(char *err, size_t size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && size) {
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int connect_to(const char *path, int64_t deadline, char *err,
		      size_t size)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return fail(err, size, -ENAMETOOLONG,
			    "socket path longer than %zu bytes",
			    sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fail(err, size, -errno, "socket: %s", strerror(errno));
	/* A full backlog says EAGAIN: try again until the deadline. */
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN && rc != -EINPROGRESS) {
			close(fd);
			return fail(err, size, rc, "%s", strerror(-rc));
		}
		if (deadline >= 0 && now_ms() >= deadline) {
			close(fd);
			return fail(err, size, -ETIMEDOUT,
				    "the daemon did not accept in time");
		}
		usleep(10000);
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline,
		    char *err, size_t size)
{
	ssize_t n;
	int rc;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return fail(err, size, -errno, "send: %s",
				    strerror(errno));
		rc = wait_for(fd, POLLOUT, deadline);
		if (rc == -ETIMEDOUT)
			return fail(err, size, rc,
				    "the daemon did not read the request in "
				    "time");
		if (rc < 0)
			return fail(err, size, rc, "poll: %s", strerror(-rc));
	}
	return 0;
}

/* Read up to the first newline into *@line (NUL-terminated). */
static int recv_line(int fd, char **line, size_t *len, int64_t deadline,
		     char *err, size_t size)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nl, *bigger;
	ssize_t got;
	int rc;

	if (!buf)
		return fail(err, size, -ENOMEM, "out of memory");
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= FTAGENT_API_REPLY_MAX) {
				free(buf);
				return fail(err, size, -EPROTO,
					    "reply longer than %u bytes",
					    FTAGENT_API_REPLY_MAX);
			}
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return fail(err, size, -ENOMEM,
					    "out of memory");
			}
			buf = bigger;
			cap *= 2;
		}
		got = recv(fd, buf + n, cap - n - 1, 0);
		if (got > 0) {
			nl = memchr(buf + n, '\n', (size_t)got);
			n += (size_t)got;
			if (nl) {
				*nl = '\0';
				*line = buf;
				*len = (size_t)(nl - buf);
				return 0;
			}
			continue;
		}
		if (got == 0) {
			free(buf);
			/* What the daemon does to a peer it does not serve. */
			return fail(err, size, -ECONNRESET,
				    "the daemon closed the connection without "
				    "a reply (it serves only root and the "
				    "ftagent group)");
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			rc = -errno;
			free(buf);
			return fail(err, size, rc, "recv: %s", strerror(-rc));
		}
		rc = wait_for(fd, POLLIN, deadline);
		if (rc < 0) {
			free(buf);
			if (rc == -ETIMEDOUT)
				return fail(err, size, rc,
					    "no reply within the timeout");
			return fail(err, size, rc, "poll: %s", strerror(-rc));
		}
	}
}

/*
 * The reply's API major (docs/api.md, "Versions"): 1 when it has none (a
 * 1.0 daemon), -1 when api_version is there but malformed.
 */
int ftagent_api_reply_major(struct json_object *reply)
{
	struct json_object *v, *major;

	if (!json_object_object_get_ex(reply, "api_version", &v))
		return 1;
	if (!json_object_object_get_ex(v, "major", &major) ||
	    json_object_get_type(major) != json_type_int ||
	    json_object_get_int64(major) < 0 ||
	    json_object_get_int64(major) > 0xffff)
		return -1;
	return (int)json_object_get_int64(major);
}

int ftagent_api_parse_reply(const char *line, size_t len,
			    struct json_object **reply, char *err, size_t size)
{
	int major;

	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *ok, *msg;
	enum json_tokener_error jerr;

	if (!tok)
		return fail(err, size, -ENOMEM, "out of memory");
	o = json_tokener_parse_ex(tok, line, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (jerr != json_tokener_success || !o ||
	    json_object_get_type(o) != json_type_object) {
		json_object_put(o);
		return fail(err, size, -EPROTO,
			    "the daemon's reply is not a JSON object");
	}
	/* Another major may mean what we asked was read otherwise. */
	major = ftagent_api_reply_major(o);
	if (major != FTAGENT_API_MAJOR) {
		json_object_put(o);
		if (major < 0)
			return fail(err, size, -EPROTO,
				    "the daemon's reply has a malformed "
				    "api_version");
		return fail(err, size, -EPROTO,
			    "ftagentd speaks API %d.x, this client %d.%d: "
			    "upgrade one of them",
			    major, FTAGENT_API_MAJOR, FTAGENT_API_MINOR);
	}
	if (!json_object_object_get_ex(o, "ok", &ok) ||
	    json_object_get_type(ok) != json_type_boolean) {
		json_object_put(o);
		return fail(err, size, -EPROTO,
			    "the daemon's reply has no \"ok\"");
	}
	if (!json_object_get_boolean(ok)) {
		fail(err, size, -EREMOTEIO, "%s",
		     json_object_object_get_ex(o, "error", &msg)
			     ? json_object_get_string(msg)
			     : "refused, without a reason");
		json_object_put(o);
		return -EREMOTEIO;
	}
	*reply = o;
	return 0;
}

int ftagent_api_call(const char *sock_path, struct json_object *req,
		     struct json_object **reply, int timeout_ms, char *err,
		     size_t err_size)
{
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : -1;
	const char *text;
	char *line = NULL, *out;
	size_t len = 0, n;
	int fd, rc;

	*reply = NULL;
	if (err && err_size)
		err[0] = '\0';
	if (!sock_path)
		sock_path = ftagent_api_socket_path();
	text = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	if (!text)
		return fail(err, err_size, -ENOMEM, "out of memory");
	n = strlen(text);
	out = malloc(n + 2);
	if (!out)
		return fail(err, err_size, -ENOMEM, "out of memory");
	memcpy(out, text, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	fd = connect_to(sock_path, deadline, err, err_size);
	if (fd < 0) {
		free(out);
		return fd;
	}
	rc = send_all(fd, out, n + 1, deadline, err, err_size);
	free(out);
	if (!rc)
		rc = recv_line(fd, &line, &len, deadline, err, err_size);
	close(fd);
	if (!rc)
		rc = ftagent_api_parse_reply(line, len, reply, err, err_size);
	free(line);
	return rc;
}
