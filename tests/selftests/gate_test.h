/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the policy gate and budget selftests share: the control socket
 * (reopened after a test reloads the module) and loopback TCP helpers.
 */
#ifndef FTAGENT_GATE_TEST_H
#define FTAGENT_GATE_TEST_H

#include <pthread.h>

#include "events_test.h"
#include "../../tools/lib/iouring_raw.h"
#include "../../tools/lib/policy.h"

static struct ftnl ctl_nl;
static int ctl_open;

static inline struct ftnl *ctl(void)
{
	struct ftnl_error err;

	if (!ctl_open) {
		if (ftnl_open(&ctl_nl, FTAGENT_GENL_CTL_NAME, &err) < 0) {
			fprintf(stderr, "# netlink: %s\n", err.msg);
			abort();
		}
		ctl_open = 1;
	}
	return &ctl_nl;
}

/* After a module reload: the next ctl() resolves the family again. */
static inline void ctl_forget(void)
{
	if (ctl_open)
		ftnl_close(&ctl_nl);
	ctl_open = 0;
}

/* Load the rule set @p (its generation is not wanted). */
static inline int set_policy(struct ftagent_policy_spec *p,
			     struct ftnl_error *err)
{
	uint64_t gen;

	return ftagent_set_policy(ctl(), p, &gen, err);
}

/* The hit count of rule @i of the set in force; aborts if it has none. */
static inline uint64_t hits_of(uint32_t i)
{
	struct ftagent_policy_spec got;
	struct ftnl_error err;
	uint64_t h;

	ftagent_policy_spec_init(&got);
	if (ftagent_get_policy(ctl(), &got, &err) || i >= got.n)
		abort();
	h = got.rules[i].hits;
	ftagent_policy_spec_free(&got);
	return h;
}

/* A non-blocking TCP listener on 127.0.0.1; returns its fd and port. */
static inline int listener(uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(fd, 16) || getsockname(fd, (struct sockaddr *)&sin, &len))
		abort();
	*port = ntohs(sin.sin_port);
	return fd;
}

/* connect() to 127.0.0.1:@port: 0 or -errno. */
static inline int try_connect(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) ? -errno : 0;
	close(fd);
	return rc;
}

/*
 * A loopback TCP pair (ev_tcp_pair: listener, client, accepted) whose
 * accepted end is read to EOF in a thread, counting the bytes that
 * arrived; the test sends on the client, k->fds[1].
 */
struct sink {
	int fds[3];
	pthread_t t;
	uint64_t got;
};

static inline void *sink_drain(void *arg)
{
	struct sink *k = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(k->fds[2], buf, sizeof(buf))) > 0)
		k->got += n;
	return NULL;
}

static inline int sink_open(struct sink *k)
{
	memset(k, 0, sizeof(*k));
	if (ev_tcp_pair(AF_INET, k->fds))
		return -1;
	return pthread_create(&k->t, NULL, sink_drain, k);
}

/* Close the sending end and wait for the reader: bytes received. */
static inline uint64_t sink_close(struct sink *k)
{
	close(k->fds[1]);
	pthread_join(k->t, NULL);
	close(k->fds[0]);
	close(k->fds[2]);
	return k->got;
}

static inline uint16_t sink_port(const struct sink *k)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(k->fds[0], (struct sockaddr *)&sin, &len))
		return 0;
	return ntohs(sin.sin_port);
}

/*
 * Tcp ActiveOpens from /proc/net/snmp: the connections connect() (or a
 * Fast Open send) started, each with its SYN; for the network namespace.
 */
static inline long tcp_active_opens(void)
{
	char names[1024], values[1024];
	char *n, *v, *ns, *vs;
	long found = -1;
	FILE *f = fopen("/proc/net/snmp", "r");

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f)) {
		if (strncmp(names, "Tcp:", 4) ||
		    !fgets(values, sizeof(values), f))
			continue;
		n = strtok_r(names, " \n", &ns);
		v = strtok_r(values, " \n", &vs);
		while (n && v) {
			if (!strcmp(n, "ActiveOpens"))
				found = atol(v);
			n = strtok_r(NULL, " \n", &ns);
			v = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	fclose(f);
	return found;
}

/* How an io_uring request is run: by the submitter, io-wq or SQPOLL. */
enum iour_mode { IOUR_INLINE, IOUR_ASYNC, IOUR_SQPOLL, IOUR_MODES };

/* One request on a ring of its own, run as @mode: its CQE's result. */
static inline int iour_one(enum iour_mode mode, int op, int fd, uint64_t addr,
			   uint32_t len, uint64_t off)
{
	struct io_uring_cqe cqe;
	struct io_uring_sqe *sqe;
	struct ring r;
	int res = -ENODATA;

	if (ring_init(&r, 4, mode == IOUR_SQPOLL ? IORING_SETUP_SQPOLL : 0, 0))
		return -errno;
	sqe = ring_sqe(&r, op, fd, 1);
	sqe->addr = addr;
	sqe->len = len;
	sqe->off = off;
	if (mode == IOUR_ASYNC)
		sqe->flags |= IOSQE_ASYNC;
	if (op == IORING_OP_OPENAT)
		sqe->open_flags = O_RDONLY;
	if (ring_submit(&r, 1) == 1 && !ring_wait(&r, &cqe, 1))
		res = cqe.res;
	ring_exit(&r);
	return res;
}

#endif /* FTAGENT_GATE_TEST_H */
