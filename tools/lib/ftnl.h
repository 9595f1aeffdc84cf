/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnl: the small generic netlink client that ftctl, ftagentd and the tests
 * share. It resolves a family by name, always asks the kernel for extended
 * ACKs, and turns every failure into an errno plus the kernel's own message,
 * never a bare errno.
 */
#ifndef FTNL_H
#define FTNL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

/* One failed netlink exchange, as the kernel described it. */
struct ftnl_error {
	int err;	 /* positive errno; 0 when there was no error */
	char msg[256];	 /* extended ACK message; "" when none was sent */
	int has_offset;	 /* the kernel pointed at a request byte */
	uint32_t offset; /* that byte's offset in the request */
};

struct ftnl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	uint16_t family_id;
	uint32_t family_version;
	/*
	 * A dump given up on may still run in the kernel: it could not be
	 * read out yet (ftnl_transact() tries again before the next request).
	 */
	int dump_pending;
};

/*
 * ftnl_open() - open a generic netlink socket and resolve @family.
 * Returns 0, or -1 with @err filled (ENOENT: no such family, i.e. the
 * module is not loaded).
 */
int ftnl_open(struct ftnl *nl, const char *family, struct ftnl_error *err);
void ftnl_close(struct ftnl *nl);

/*
 * ftnl_family_listed() - whether generic netlink lists @family now. Uses a
 * dump, which (unlike a lookup by name) never makes the kernel try to load
 * a module for a missing family. 1, 0, or -1 with @err.
 */
int ftnl_family_listed(const char *family, struct ftnl_error *err);

/*
 * ftnl_join_group() - receive @family's multicast @group on @nl from now
 * on. Multicast messages then arrive between replies, so a socket that
 * joins a group is for listening only: make requests on another one.
 * Returns 0, or -1 with @err (ENOENT: no such group).
 */
int ftnl_join_group(struct ftnl *nl, const char *family, const char *group,
		    struct ftnl_error *err);

/*
 * ftnl_put_request() - start a request for @cmd in @buf (at least
 * MNL_SOCKET_BUFFER_SIZE bytes). Add attributes with mnl_attr_put_*().
 */
struct nlmsghdr *ftnl_put_request(struct ftnl *nl, void *buf, uint8_t cmd,
				  uint16_t flags);

/*
 * ftnl_transact() - send @req and feed every reply message to @cb until the
 * kernel's ACK (or the end of a dump). Returns 0, or -1 with @err filled.
 *
 * A dump is whole only when it returns 0: an NLMSG_DONE carrying an error
 * fails it. Messages flagged NLM_F_DUMP_INTR (the data changed while it
 * was dumped) reach @cb like the others, and the dump is read to its end:
 * @cb notes the flag, and its caller asks again. A dump that fails for
 * any other reason (ENOBUFS: the kernel had no memory for its next part;
 * @cb's error; no memory here) is read out to its end before this
 * returns, or if it cannot be yet (@nl->dump_pending), before the next
 * request, so the next dump on @nl does not meet the old one (EBUSY) or
 * its parts; what @cb saw of it must be thrown away, and asking again is
 * safe. Reading out drops whatever else waits on @nl: make dumps on a
 * socket that joined no multicast group.
 */
int ftnl_transact(struct ftnl *nl, struct nlmsghdr *req, mnl_cb_t cb,
		  void *data, struct ftnl_error *err);

/*
 * ftnl_parse_error() - decode an NLMSG_ERROR message, including the
 * extended ACK attributes, into @out. Returns 0 for a plain ACK (error 0),
 * 1 for an error, -1 if the message is malformed (then @out->err is EBADMSG).
 */
int ftnl_parse_error(const struct nlmsghdr *nlh, struct ftnl_error *out);

/*
 * ftnl_parse_done() - decode the NLMSG_DONE that ends a dump: the kernel
 * puts the dump's own error there (a dump callback that failed half-way),
 * with its extended ACK message. Returns 0 for a dump that ended whole, 1
 * for an error (in @out), -1 if the message is malformed (EBADMSG).
 */
int ftnl_parse_done(const struct nlmsghdr *nlh, struct ftnl_error *out);

/* ftnl_format_error() - "Operation not permitted: <kernel message>". */
const char *ftnl_format_error(const struct ftnl_error *e, char *buf,
			      size_t len);

#endif /* FTNL_H */
