/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the adversarial gate selftests (evasion_*.c) share: each tries to
 * slip a call a rule denies past the gate by another way to the same
 * operation, and checks the refusal (or, where docs/policy.md names a
 * limit, shows what happens). Rules are set and cleared per test.
 */
#ifndef FTAGENT_EVASION_TEST_H
#define FTAGENT_EVASION_TEST_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "gate_test.h"
#include "../../tools/lib/policy.h"

static inline int ev_clear_policy(void)
{
	struct ftagent_policy_spec p;
	struct ftnl_error err;
	int rc;

	ftagent_policy_spec_init(&p);
	rc = set_policy(&p, &err);
	if (rc)
		fprintf(stderr, "# clear policy: %s\n", err.msg);
	ftagent_policy_spec_free(&p);
	return rc;
}

static inline struct ftagent_rule_spec *ev_rule(struct ftagent_policy_spec *p,
						const char *name, uint32_t ops,
						uint32_t action)
{
	struct ftagent_rule_spec *r = ftagent_policy_spec_add(p);

	if (!r)
		abort();
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ops = ops;
	r->action = action;
	return r;
}

static inline void ev_port(struct ftagent_rule_spec *r, uint16_t lo,
			   uint16_t hi)
{
	r->set |= FTAGENT_RULE_SET_PORT;
	r->port_min = lo;
	r->port_max = hi;
}

/* An address rule: @len 4 or 16 bytes of @addr, @prefix bits. */
static inline void ev_cidr(struct ftagent_rule_spec *r, const void *addr,
			   int len, int prefix)
{
	r->set |= FTAGENT_RULE_SET_ADDR | FTAGENT_RULE_SET_PREFIX_LEN;
	memcpy(r->addr, addr, len);
	r->addr_len = len;
	r->prefix_len = prefix;
}

static inline void ev_path(struct ftagent_rule_spec *r, const char *prefix)
{
	r->set |= FTAGENT_RULE_SET_PATH;
	snprintf(r->path_prefix, sizeof(r->path_prefix), "%s", prefix);
}

/* Connections a non-blocking listener got (accepted and closed). */
static inline int ev_accepts(int lfd)
{
	int n = 0, c;

	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

/* connect() @fd to @sa: 0 or -errno. */
static inline int ev_connect(int fd, const void *sa, socklen_t len)
{
	return connect(fd, (const struct sockaddr *)sa, len) ? -errno : 0;
}

/* sendto() one byte from @fd to @sa: 0 or -errno. */
static inline int ev_sendto(int fd, const void *sa, socklen_t len)
{
	return sendto(fd, "x", 1, 0, (const struct sockaddr *)sa, len) == 1
		       ? 0
		       : -errno;
}

/* Run @fn in a child; its exit status is fn's result (-1: it died). */
static inline int ev_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* FTAGENT_EVASION_TEST_H */
