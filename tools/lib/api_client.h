/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client of ftagentd's local API (docs/api.md): one request, one reply
 * over the daemon's Unix socket.
 */
#ifndef FTAGENT_LIB_API_CLIENT_H
#define FTAGENT_LIB_API_CLIENT_H

#include <stddef.h>
#include <json-c/json.h>

#define FTAGENT_API_SOCKET_PATH "/run/ftagent/ftagentd.sock"
/* An environment variable naming another socket (tests, containers). */
#define FTAGENT_API_SOCKET_ENV "FTAGENT_SOCKET"
#define FTAGENT_API_TIMEOUT_MS 5000
/* The longest reply line accepted. */
#define FTAGENT_API_REPLY_MAX (256u << 20)

/*
 * The path given to ftagent_api_set_socket_path() (ftctl --socket), else
 * $FTAGENT_SOCKET if set and not empty, else FTAGENT_API_SOCKET_PATH.
 */
const char *ftagent_api_socket_path(void);
/* Name the socket for this process (@path is kept, not copied). */
void ftagent_api_set_socket_path(const char *path);

/*
 * Send @req on @sock_path (NULL: ftagent_api_socket_path()) and read one
 * reply line, all within @timeout_ms (<= 0: no limit). Returns 0 with
 * *@reply set (the caller puts it) when the daemon answered {"ok": true};
 * otherwise a negative errno, with @err (@err_size bytes) saying why and
 * *@reply NULL:
 *   -ENOENT, -ECONNREFUSED  no daemon listens (see ftagent_api_not_running)
 *   -EACCES                 the socket is not open to this user
 *   -ECONNRESET             closed without a reply (a refused peer)
 *   -ETIMEDOUT              no whole reply in time
 *   -EPROTO                 the reply was not one JSON object, or
 *                           came from another API major (api_version.h)
 *   -EREMOTEIO              the daemon refused: @err is its "error"
 *   others                  from socket(), connect(), send() or recv()
 */
int ftagent_api_call(const char *sock_path, struct json_object *req,
		     struct json_object **reply, int timeout_ms, char *err,
		     size_t err_size);

/*
 * The checks ftagent_api_call() makes of a reply line (@len bytes, NUL at
 * @line[@len]): one JSON object, this API major, "ok" true. 0 with
 * *@reply, or -EPROTO / -EREMOTEIO with @err, as ftagent_api_call().
 */
int ftagent_api_parse_reply(const char *line, size_t len,
			    struct json_object **reply, char *err, size_t size);

/* A reply's api_version.major: 1 when absent (1.0), -1 when malformed. */
int ftagent_api_reply_major(struct json_object *reply);

/* Whether @rc from ftagent_api_call() means the daemon is not running. */
int ftagent_api_not_running(int rc);

#endif /* FTAGENT_LIB_API_CLIENT_H */
