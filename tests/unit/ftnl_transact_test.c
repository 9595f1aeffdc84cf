// SPDX-License-Identifier: GPL-2.0
/*
 * ftnl_transact() against a fake kernel. NETLINK_USERSOCK lets one user
 * socket send to another, so the request ftnl sends (mnl_socket_sendto(),
 * wrapped at link time: -Wl,--wrap) is handed to a script that answers
 * from a second socket, message by message, the way the kernel lays its
 * answers out. What only a kernel can do, answer ENOBUFS to a read when it
 * had no memory for a dump's next part, is out of reach here and of a
 * single fail-nth fault too (netlink_dump() tries a second allocation);
 * the scripts play what the kernel then does: the dump runs on, and its
 * next part comes with the next read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <cmocka.h>

#include "../../tools/lib/ftnl.h"

#define FAMILY	   0x20
#define VALUE_ATTR 1

static int peer_fd = -1; /* the fake kernel's socket */
static uint32_t client_portid;

/* What the client sent, in order. */
static struct nlmsghdr sent[16];
static int n_sent;

/* The fake kernel's answer to each request; set by each test. */
static void (*script)(const struct nlmsghdr *req);
/* The sequence of a dump the fake kernel still runs; 0: none. */
static uint32_t running_seq;

ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
				 size_t len);
ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
				 size_t len)
{
	const struct nlmsghdr *req = buf;

	(void)nl;
	if (n_sent < (int)(sizeof(sent) / sizeof(sent[0])))
		sent[n_sent++] = *req;
	if (script)
		script(req);
	return (ssize_t)len;
}

/* A datagram under construction, sent by flush(). */
static char out[8192];
static size_t out_len;

static struct nlmsghdr *put(uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(out + out_len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = client_portid;
	return nlh;
}

static void end(struct nlmsghdr *nlh)
{
	out_len += MNL_ALIGN(nlh->nlmsg_len);
}

/* One dump message carrying @value, with @flags besides NLM_F_MULTI. */
static void part_flagged(uint32_t seq, uint32_t value, uint16_t flags)
{
	struct nlmsghdr *nlh = put(FAMILY, NLM_F_MULTI | flags, seq);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = 1;
	mnl_attr_put_u32(nlh, VALUE_ATTR, value);
	end(nlh);
}

static void part(uint32_t seq, uint32_t value)
{
	part_flagged(seq, value, 0);
}

static void done(uint32_t seq, int32_t error, const char *msg)
{
	struct nlmsghdr *nlh = put(NLMSG_DONE, NLM_F_MULTI, seq);
	int32_t *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	*e = error;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	end(nlh);
}

/* The ACK of @req: @error 0, or a negative errno. */
static void ack_with(const struct nlmsghdr *req, int error)
{
	struct nlmsghdr *nlh = put(NLMSG_ERROR, NLM_F_CAPPED, req->nlmsg_seq);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = error;
	e->msg = *req;
	end(nlh);
}

static void ack(const struct nlmsghdr *req)
{
	ack_with(req, 0);
}

static void flush(void)
{
	struct sockaddr_nl to = {.nl_family = AF_NETLINK,
				 .nl_pid = client_portid};

	assert_int_equal(sendto(peer_fd, out, out_len, 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)out_len);
	out_len = 0;
}

/* ---- the client's side ---- */

struct seen {
	uint32_t values[16];
	int n;
	uint32_t fail_at; /* the callback fails on this value; 0: never */
	int interrupted;  /* a message said NLM_F_DUMP_INTR */
};

static int value_attr(const struct nlattr *attr, void *data)
{
	struct seen *s = data;

	if (mnl_attr_get_type(attr) == VALUE_ATTR && s->n < 16)
		s->values[s->n++] = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int on_part(const struct nlmsghdr *nlh, void *data)
{
	struct seen *s = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		s->interrupted = 1;
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), value_attr, s) !=
	    MNL_CB_OK)
		return MNL_CB_ERROR;
	if (s->fail_at && s->n && s->values[s->n - 1] == s->fail_at) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int setup(void **state)
{
	struct ftnl *nl = calloc(1, sizeof(*nl));

	assert_non_null(nl);
	nl->sock = mnl_socket_open(NETLINK_USERSOCK);
	assert_non_null(nl->sock);
	assert_int_equal(mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID), 0);
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = 100;
	nl->family_id = FAMILY;
	nl->family_version = 1;
	client_portid = nl->portid;

	peer_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
	assert_true(peer_fd >= 0);
	n_sent = 0;
	out_len = 0;
	script = NULL;
	running_seq = 0;
	*state = nl;
	return 0;
}

static int teardown(void **state)
{
	struct ftnl *nl = *state;

	mnl_socket_close(nl->sock);
	free(nl);
	close(peer_fd);
	peer_fd = -1;
	return 0;
}

static int dump(struct ftnl *nl, struct seen *s, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return ftnl_transact(nl, ftnl_put_request(nl, buf, 1, NLM_F_DUMP),
			     on_part, s, err);
}

/* Nothing waits in the client's queue, and no error is pending. */
static void assert_queue_empty(struct ftnl *nl)
{
	char buf[256];

	assert_int_equal(recv(mnl_socket_get_fd(nl->sock), buf, sizeof(buf),
			      MSG_DONTWAIT),
			 -1);
	assert_int_equal(errno, EAGAIN);
}

/* ---- the scripts ---- */

/* Values 1, 2 and 3 in two datagrams, then the end of the dump. */
static void whole_dump(const struct nlmsghdr *req)
{
	if (req->nlmsg_type == NLMSG_NOOP) {
		ack(req);
		flush();
		return;
	}
	part(req->nlmsg_seq, 1);
	flush();
	part(req->nlmsg_seq, 2);
	part(req->nlmsg_seq, 3);
	flush();
	done(req->nlmsg_seq, 0, NULL);
	flush();
}

static void dump_that_fails_half_way(const struct nlmsghdr *req)
{
	part(req->nlmsg_seq, 1);
	flush();
	done(req->nlmsg_seq, -ENOMEM, "no memory for the next rule");
	flush();
}

/*
 * A kernel's dump: it makes the next part only when the client reads
 * (here: the rest comes after the NOOP that settle_dump() sends, as the
 * kernel would make it on the reads that follow).
 */
static void lazy_dump(const struct nlmsghdr *req)
{
	if (req->nlmsg_type == NLMSG_NOOP) {
		ack(req);
		flush();
		if (running_seq) {
			part(running_seq, 3);
			flush();
			done(running_seq, 0, NULL);
			flush();
			running_seq = 0;
		}
		return;
	}
	running_seq = req->nlmsg_seq;
	part(req->nlmsg_seq, 1);
	part(req->nlmsg_seq, 2);
	flush();
}

/* The data changed between two parts: the second says so. */
static void interrupted_dump(const struct nlmsghdr *req)
{
	part(req->nlmsg_seq, 1);
	flush();
	part_flagged(req->nlmsg_seq, 2, NLM_F_DUMP_INTR);
	flush();
	part_flagged(req->nlmsg_seq, 3, NLM_F_DUMP_INTR);
	done(req->nlmsg_seq, 0, NULL);
	flush();
}

/*
 * A dump given up on earlier still runs (its read-out failed): a new one
 * is refused EBUSY until the old one's rest has been read.
 */
static void busy_then_whole(const struct nlmsghdr *req)
{
	if (running_seq) {
		if (req->nlmsg_type == NLMSG_NOOP) {
			ack(req);
			part(running_seq, 9);
			done(running_seq, 0, NULL);
			flush();
			running_seq = 0;
		} else {
			ack_with(req, -EBUSY);
			flush();
		}
		return;
	}
	whole_dump(req);
}

/*
 * __netlink_dump_start() when the first part found no memory: it answers
 * ENOBUFS, and the dump runs on, waiting for a read.
 */
static void first_part_without_memory(const struct nlmsghdr *req)
{
	if (req->nlmsg_type != NLMSG_NOOP) {
		running_seq = req->nlmsg_seq;
		ack_with(req, -ENOBUFS);
		flush();
		return;
	}
	lazy_dump(req);
}

static void dump_refused(const struct nlmsghdr *req)
{
	ack_with(req, -EPERM);
	flush();
}

/* A kernel that answers nothing to a NOOP (no kernel does). */
static void dump_then_silence(const struct nlmsghdr *req)
{
	if (req->nlmsg_type == NLMSG_NOOP)
		return;
	part(req->nlmsg_seq, 1);
	flush();
}

/* ---- the tests ---- */

static void a_whole_dump_succeeds(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	script = whole_dump;
	assert_int_equal(dump(nl, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.values[0] + s.values[1] + s.values[2], 6);
	assert_int_equal(n_sent, 1);
	assert_queue_empty(nl);
}

static void a_dump_ended_by_an_error_fails_with_its_message(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};
	char text[512];

	script = dump_that_fails_half_way;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, ENOMEM);
	assert_string_equal(ftnl_format_error(&err, text, sizeof(text)),
			    "Cannot allocate memory: no memory for the next "
			    "rule");
	/* The dump ended: nothing to read out, no NOOP sent. */
	assert_int_equal(n_sent, 1);
	assert_queue_empty(nl);
}

static void a_dump_given_up_is_read_out_before_the_next(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {.fail_at = 2};

	script = lazy_dump;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, EPROTO);
	/* It asked for the rest of the old dump, and read it all. */
	assert_int_equal(n_sent, 2);
	assert_int_equal(sent[1].nlmsg_type, NLMSG_NOOP);
	assert_int_equal(sent[1].nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(running_seq, 0);
	assert_int_equal(nl->dump_pending, 0);
	assert_queue_empty(nl);

	/* The next dump sees only its own parts. */
	memset(&s, 0, sizeof(s));
	script = whole_dump;
	assert_int_equal(dump(nl, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.values[0], 1);
	assert_int_equal(s.values[2], 3);
	assert_queue_empty(nl);
}

static void a_dump_answered_enobufs_is_read_out(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	script = first_part_without_memory;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, ENOBUFS);
	assert_int_equal(n_sent, 2);
	assert_int_equal(sent[1].nlmsg_type, NLMSG_NOOP);
	assert_int_equal(running_seq, 0);
	assert_int_equal(nl->dump_pending, 0);
	assert_queue_empty(nl);
}

static void a_refused_dump_needs_no_reading_out(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	script = dump_refused;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, EPERM);
	assert_int_equal(n_sent, 1);
}

static void a_dump_given_up_after_its_end_settles_at_once(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {.fail_at = 1};

	script = whole_dump;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, EPROTO);
	/* The rest of the dump (2, 3, its end) and the NOOP's ACK were read. */
	assert_int_equal(n_sent, 2);
	assert_int_equal(nl->dump_pending, 0);
	assert_queue_empty(nl);
}

static void an_interrupted_dump_is_read_whole_and_flagged(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	script = interrupted_dump;
	/* libmnl's own loop would stop at the flag (EINTR), half-read. */
	assert_int_equal(dump(nl, &s, &err), 0);
	assert_int_equal(s.interrupted, 1);
	assert_int_equal(s.n, 3);
	assert_int_equal(n_sent, 1);
	assert_queue_empty(nl);
}

static void a_dump_left_running_is_read_out_before_the_next(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	/* As after a read-out that failed: the old dump still runs. */
	running_seq = 7;
	nl->dump_pending = 1;
	script = busy_then_whole;
	assert_int_equal(dump(nl, &s, &err), 0);
	assert_int_equal(nl->dump_pending, 0);
	assert_int_equal(sent[0].nlmsg_type, NLMSG_NOOP);
	assert_int_equal(s.n, 3); /* not the old dump's 9 */
	assert_int_equal(s.values[0] + s.values[1] + s.values[2], 6);
	assert_queue_empty(nl);
}

static void a_dump_refused_busy_reads_the_old_one_out(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {0};

	/* Nothing told ftnl a dump was left running; the kernel says EBUSY. */
	running_seq = 7;
	script = busy_then_whole;
	assert_int_equal(dump(nl, &s, &err), -1);
	assert_int_equal(err.err, EBUSY);
	assert_int_equal(n_sent, 2);
	assert_int_equal(sent[1].nlmsg_type, NLMSG_NOOP);
	assert_int_equal(running_seq, 0);
	assert_int_equal(nl->dump_pending, 0);
	/* Asking again works. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(dump(nl, &s, &err), 0);
	assert_int_equal(s.n, 3);
}

static void a_peer_that_never_acks_does_not_hang_the_client(void **state)
{
	struct ftnl *nl = *state;
	struct ftnl_error err;
	struct seen s = {.fail_at = 1};

	script = dump_then_silence;
	alarm(10); /* a hang fails the test rather than the whole run */
	assert_int_equal(dump(nl, &s, &err), -1);
	/* The callback's error is what the caller hears. */
	assert_int_equal(err.err, EPROTO);
	assert_int_equal(n_sent, 2);
	/* Not read out: the next request tries again first. */
	assert_int_equal(nl->dump_pending, 1);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_whole_dump_succeeds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_ended_by_an_error_fails_with_its_message, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_given_up_is_read_out_before_the_next, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_answered_enobufs_is_read_out, setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_refused_dump_needs_no_reading_out, setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_given_up_after_its_end_settles_at_once, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_peer_that_never_acks_does_not_hang_the_client, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			an_interrupted_dump_is_read_whole_and_flagged, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_left_running_is_read_out_before_the_next, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_dump_refused_busy_reads_the_old_one_out, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
