/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel sockets a user accepted (usersock.c): connections that inherit
 * the kernel's mark (sk_kern_sock) from a kernel listener a user's file
 * holds (AF_SMC after its fallback), yet are the user's own.
 */
#ifndef FTAGENT_USERSOCK_H
#define FTAGENT_USERSOCK_H

#include <linux/types.h>

struct socket;

/* sock_close(): @sock's file is released, by whichever task. */
void ftagent_usersock_close(const struct socket *sock);
/* Whether @sock was accepted for a user on such a listener. */
bool ftagent_usersock_has(const struct socket *sock);
/* Accepts refused for want of a mark, since load. */
u64 ftagent_usersock_refused(void);
/*
 * After lifecycle.c's points (@close_hooked: sock_close is): 0, or the
 * load fails (strict=1, or no memory).
 */
int ftagent_usersock_init(bool close_hooked, bool strict);
/* Before lifecycle.c's points go. */
void ftagent_usersock_unhook(void);
/* After lifecycle.c's points are off and the gate's. */
void ftagent_usersock_exit(void);

#endif /* FTAGENT_USERSOCK_H */
