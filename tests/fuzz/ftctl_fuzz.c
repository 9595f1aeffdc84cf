// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: ftctl's readers of the daemon's JSON replies. The
 * first byte picks a command (stats, stats resources, top --once, events),
 * --json or text, and whether ftctl runs as root; the rest is the reply
 * line the daemon sends. ftctl runs whole (main() is built as
 * ftctl_main()), and the link wraps the three calls that leave the
 * process (-Wl,--wrap, see the Makefile): ftagent_api_call() gives the
 * bytes to ftagent_api_parse_reply(), the checks the real call makes of a
 * reply (tools/lib/api_client.c); ftagent_query_status() says the module
 * is not loaded; geteuid() returns the picked user, since a non-root
 * `ftctl stats` reads the module's figures from the reply
 * (ftagent_module_view_parse(), tools/lib/module_view.c). Then every
 * field the command prints or re-emits is read from the fuzzed reply.
 * ftctl's stdout and stderr go to /dev/null; sanitizer reports still
 * reach fd 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/lib/api_client.h"
#include "../../tools/lib/ftnl.h"
#include "../../tools/lib/status.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int ftctl_main(int argc, char **argv);
int __wrap_ftagent_api_call(const char *sock_path, struct json_object *req,
			    struct json_object **reply, int timeout_ms,
			    char *err, size_t err_size);
int __wrap_ftagent_query_status(struct ftagent_status *st,
				struct ftnl_error *err);
uid_t __wrap_geteuid(void);

static const char *reply_line; /* NUL-terminated */
static size_t reply_len;
static uid_t euid;

int __wrap_ftagent_api_call(const char *sock_path, struct json_object *req,
			    struct json_object **reply, int timeout_ms,
			    char *err, size_t err_size)
{
	(void)sock_path;
	(void)req;
	(void)timeout_ms;
	*reply = NULL;
	if (err && err_size)
		err[0] = '\0';
	return ftagent_api_parse_reply(reply_line, reply_len, reply, err,
				       err_size);
}

int __wrap_ftagent_query_status(struct ftagent_status *st,
				struct ftnl_error *err)
{
	memset(st, 0, sizeof(*st));
	memset(err, 0, sizeof(*err));
	err->err = ENOENT;
	return -1;
}

uid_t __wrap_geteuid(void)
{
	return euid;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	if (!null)
		abort();
	stdout = null;
	stderr = null;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cmds[][3] = {
		{"stats", NULL},
		{"stats", "resources", NULL},
		{"top", "--once", NULL},
		{"events", NULL},
	};
	char *argv[6], *line, *nl;
	int argc = 0, i;

	if (size < 1)
		return 0;
	/* The reply up to its newline, as the client's recv_line() cuts. */
	line = malloc(size);
	if (!line)
		return 0;
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';
	nl = memchr(line, '\n', size - 1);
	if (nl)
		*nl = '\0';
	reply_line = line;
	reply_len = nl ? (size_t)(nl - line) : size - 1;
	euid = data[0] & 8 ? 1000 : 0;
	argv[argc++] = (char *)"ftctl";
	if (data[0] & 4)
		argv[argc++] = (char *)"--json";
	for (i = 0; cmds[data[0] & 3][i]; i++)
		argv[argc++] = (char *)cmds[data[0] & 3][i];
	argv[argc] = NULL;
	optind = 0; /* getopt starts afresh */
	ftctl_main(argc, argv);
	free(line);
	return 0;
}
