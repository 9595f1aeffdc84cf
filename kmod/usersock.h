/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel sockets a user accepted (usersock.c): connections that inherit
 * the kernel's mark (sk_kern_sock) from a kernel listener a user's file
 * holds, yet are the user's own.
 */
#ifndef FTAGENT_USERSOCK_H
#define FTAGENT_USERSOCK_H

#include <linux/types.h>

struct sock;
struct socket;

/* security_sock_graft(sk, parent): @sk is accepted into @parent. */
void ftagent_usersock_graft(struct sock *sk, struct socket *parent);
/* sock_close(): @sock's file is released, by whichever task. */
void ftagent_usersock_close(struct socket *sock);
/* Whether the kernel-marked @sk is a connection a user accepted. */
bool ftagent_usersock_has(const struct sock *sk);
/* Connections that found no free mark, since load. */
u64 ftagent_usersock_unmarked(void);
/* Whether both points are hooked: marks are taken only then. */
void ftagent_usersock_enable(bool on);
/* After both points are off: the references the marks hold go. */
void ftagent_usersock_exit(void);

#endif /* FTAGENT_USERSOCK_H */
