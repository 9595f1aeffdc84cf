// SPDX-License-Identifier: GPL-2.0
/* ftd_notify(): the datagram systemd reads, to a path or an abstract name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cmocka.h>

#include "../../daemon/notify.h"

/* Bind a datagram socket at @name ('@': abstract) and point at it. */
static int listen_at(const char *name)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t n = strlen(name);
	socklen_t len;
	int fd;

	memcpy(sun.sun_path, name, n);
	if (name[0] == '@')
		sun.sun_path[0] = '\0';
	else
		n++;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(0, bind(fd, (struct sockaddr *)&sun, len));
	assert_int_equal(0, setenv("NOTIFY_SOCKET", name, 1));
	return fd;
}

static void expect(int fd, const char *msg)
{
	char got[256];
	ssize_t n = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	got[n] = '\0';
	assert_string_equal(msg, got);
}

static void to_a_path(void **state)
{
	char path[64];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/ftagent-notify-%d", (int)getpid());
	unlink(path);
	fd = listen_at(path);
	assert_int_equal(1, ftd_notify("READY=1\nSTATUS=running"));
	expect(fd, "READY=1\nSTATUS=running");
	assert_int_equal(1, ftd_notifyf("STATUS=failed\nERRNO=%d", 6));
	expect(fd, "STATUS=failed\nERRNO=6");
	close(fd);
	unlink(path);
	/* Nobody listening any more: the error, as sd_notify() gives it. */
	assert_true(ftd_notify("STOPPING=1") < 0);
}

static void to_an_abstract_name(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@ftagent-notify-%d", (int)getpid());
	fd = listen_at(name);
	assert_int_equal(1, ftd_notify("RELOADING=1"));
	expect(fd, "RELOADING=1");
	close(fd);
}

/*
 * A reader that stops reading: once its queue is full, the daemon gets
 * -EAGAIN at once instead of blocking its main loop (before: blocked
 * in unix_wait_for_peer, deaf to SIGTERM).
 */
static void a_full_socket_does_not_block(void **state)
{
	char name[64];
	int fd, i, rc = 1;

	(void)state;
	snprintf(name, sizeof(name), "@ftagent-notify-full-%d", (int)getpid());
	fd = listen_at(name);
	for (i = 0; i < 100000 && rc == 1; i++)
		rc = ftd_notify("STATUS=filling");
	assert_int_equal(-EAGAIN, rc);
	assert_true(i > 1);
	close(fd);
}

static void not_under_systemd(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(0, ftd_notify("READY=1"));
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(0, ftd_notify("READY=1"));
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(-EINVAL, ftd_notify("READY=1"));
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(to_a_path),
		cmocka_unit_test(to_an_abstract_name),
		cmocka_unit_test(a_full_socket_does_not_block),
		cmocka_unit_test(not_under_systemd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
