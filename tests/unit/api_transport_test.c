// SPDX-License-Identifier: GPL-2.0
/*
 * The API socket itself: requests pipelined in one write, a line split
 * over several writes, garbage, an over-long line (an error reply, then
 * the connection closes) and a client that vanishes mid-request, all
 * served by the same epoll loop ftagentd runs; and who may connect.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../daemon/api.h"
#include "../../daemon/collector.h"

struct fixture {
	char dir[64], path[128];
	int epoll_fd;
	struct ftd_api api;
	struct ftagentd d;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char why[256];

	strcpy(f->dir, "/tmp/ftagent-api-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/s.sock", f->dir);
	ftagentd_config_defaults(&f->d.cfg);
	assert_int_equal(0, ftd_collector_init(&f->d.col, &f->d.cfg));
	f->epoll_fd = epoll_create1(0);
	assert_int_equal(0, ftd_api_open(&f->api, f->path, f->epoll_fd, why,
					 sizeof(why)));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ftd_api_close(&f->api);
	close(f->epoll_fd);
	ftd_collector_free(&f->d.col);
	ftagentd_config_free(&f->d.cfg);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Run the daemon's side for a while: what epoll reports, handled. */
static void serve(struct fixture *f, int rounds)
{
	struct epoll_event ev[8];
	int n, i;

	while (rounds--) {
		n = epoll_wait(f->epoll_fd, ev, 8, 20);
		for (i = 0; i < n; i++)
			ftd_api_event(&f->api, ev[i].data.u64, ev[i].events,
				      &f->d);
	}
}

static int client(struct fixture *f)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sun.sun_path, f->path);
	assert_int_equal(0, connect(fd, (struct sockaddr *)&sun, sizeof(sun)));
	serve(f, 2); /* accept */
	return fd;
}

/* Read reply lines until @want lines or EOF; returns the lines read. */
static int read_lines(struct fixture *f, int fd, struct json_object **out,
		      int want)
{
	static char buf[1 << 20];
	size_t len = 0;
	int n = 0, tries;
	char *p, *nl;

	for (tries = 0; tries < 100 && n < want; tries++) {
		ssize_t r;

		serve(f, 1);
		r = recv(fd, buf + len, sizeof(buf) - len - 1, MSG_DONTWAIT);
		if (r == 0)
			break;
		if (r < 0)
			continue;
		len += (size_t)r;
		buf[len] = '\0';
		n = 0;
		for (p = buf; (nl = strchr(p, '\n')) && n < want; p = nl + 1) {
			*nl = '\0';
			out[n++] = json_tokener_parse(p);
			*nl = '\n';
		}
		if (n < want)
			while (n)
				json_object_put(out[--n]);
	}
	return n;
}

static int ok_of(struct json_object *o)
{
	return json_object_get_boolean(json_object_object_get(o, "ok"));
}

static void pipelined_and_split_requests(void **state)
{
	struct fixture *f = *state;
	const char *two = "{\"cmd\":\"stats\"}\n{\"cmd\":\"nope\"}\n{\"cmd\"";
	struct json_object *r[3];
	int fd = client(f);

	assert_int_equal(strlen(two), send(fd, two, strlen(two), 0));
	serve(f, 2);
	/* The rest of the third line, later. */
	assert_int_equal(14, send(fd, ":\"stats\"}\n\"x\"", 14, 0));
	assert_int_equal(1, send(fd, "\n", 1, 0));
	assert_int_equal(3, read_lines(f, fd, r, 3));
	assert_true(ok_of(r[0]));
	assert_false(ok_of(r[1]));
	assert_non_null(strstr(
		json_object_get_string(json_object_object_get(r[1], "error")),
		"nope"));
	assert_true(ok_of(r[2]));
	json_object_put(r[0]);
	json_object_put(r[1]);
	json_object_put(r[2]);
	assert_int_equal(4, f->api.requests);
	assert_int_equal(2, f->api.errors);
	close(fd);
	serve(f, 2);
}

static void an_overlong_line_is_answered_then_closed(void **state)
{
	struct fixture *f = *state;
	char *junk = malloc(FTD_API_LINE_MAX + 10);
	struct json_object *r[1];
	size_t off = 0;
	int fd = client(f);

	memset(junk, 'a', FTD_API_LINE_MAX + 10);
	while (off < FTD_API_LINE_MAX + 10) {
		ssize_t n = send(fd, junk + off, FTD_API_LINE_MAX + 10 - off,
				 MSG_DONTWAIT);

		if (n > 0)
			off += (size_t)n;
		serve(f, 1);
		if (n <= 0 && off >= FTD_API_LINE_MAX)
			break;
	}
	assert_int_equal(1, read_lines(f, fd, r, 1));
	assert_false(ok_of(r[0]));
	assert_non_null(strstr(
		json_object_get_string(json_object_object_get(r[0], "error")),
		"longer than"));
	json_object_put(r[0]);
	/* Then the daemon hangs up. */
	serve(f, 5);
	{
		char c;
		ssize_t n;
		int tries = 0;

		do {
			serve(f, 1);
			n = recv(fd, &c, 1, MSG_DONTWAIT);
		} while (n < 0 && ++tries < 100);
		assert_int_equal(0, n);
	}
	close(fd);
	free(junk);
}

static void a_vanishing_client_frees_its_slot(void **state)
{
	struct fixture *f = *state;
	int i, fd;

	/* More clients than slots, one after another, each gone mid-line. */
	for (i = 0; i < 3 * FTD_API_MAX_CLIENTS; i++) {
		fd = client(f);
		assert_int_equal(5, send(fd, "{\"cmd", 5, 0));
		close(fd);
		serve(f, 2);
	}
	for (i = 0; i < FTD_API_MAX_CLIENTS; i++)
		assert_int_equal(-1, f->api.client[i].fd);
	assert_int_equal(0, f->api.refused);
}

static void who_may_connect(void **state)
{
	struct stat st;
	struct fixture *f = *state;

	(void)state;
	gid_t some[] = {27, 4243, 100}, mine[256], *peer;
	int sv[2], n;
	size_t k;

	assert_true(ftd_api_peer_allowed(0, 0, NULL, 0, (gid_t)-1));
	assert_false(ftd_api_peer_allowed(1000, 1000, some, 3, (gid_t)-1));
	assert_true(ftd_api_peer_allowed(1000, 4242, NULL, 0, 4242));
	/* A supplementary group, as SO_PEERGROUPS gives them. */
	assert_true(ftd_api_peer_allowed(1000, 1000, some, 3, 4243));
	assert_false(ftd_api_peer_allowed(1000, 1000, some, 3, 4244));
	assert_false(ftd_api_peer_allowed(1000, 1000, NULL, 0, 4243));
	/* The groups come from the socket, as the peer had them. */
	assert_int_equal(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	assert_int_equal(0, ftd_api_peer_groups(sv[0], &peer, &k));
	n = getgroups(256, mine);
	assert_true(n >= 0);
	assert_int_equal((size_t)n, k);
	if (k)
		assert_memory_equal(mine, peer, k * sizeof(gid_t));
	free(peer);
	close(sv[0]);
	close(sv[1]);
	/* The socket file: 0660 with the ftagent group, else 0600. */
	assert_int_equal(0, stat(f->path, &st));
	assert_int_equal(f->api.group != (gid_t)-1 ? 0660 : 0600,
			 st.st_mode & 0777);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pipelined_and_split_requests,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			an_overlong_line_is_answered_then_closed, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_vanishing_client_frees_its_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(who_may_connect, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
