/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where sendfile and splice to a socket can be gated.
 *
 * Up to 6.4 they hand pages to kernel_sendpage(), which never calls
 * security_socket_sendmsg(): the gate hooks kernel_sendpage as well.
 * From 6.5 on (MSG_SPLICE_PAGES) splice_to_socket() calls sock_sendmsg(),
 * so the send hook already sees them and there is nothing more to hook.
 *
 * Checked on Debian's 6.1.0-57 (6.1.192: kernel_sendpage) and
 * 6.12.117+deb12 (sock_sendmsg).
 */
#ifndef _FTAGENT_COMPAT_NET_H
#define _FTAGENT_COMPAT_NET_H

#include "features.h"

#ifdef FTAGENT_HAVE_KERNEL_SENDPAGE
#define FTAGENT_SENDPAGE_SYMBOL "kernel_sendpage"
#else
#define FTAGENT_SENDPAGE_SYMBOL NULL
#endif

#endif /* _FTAGENT_COMPAT_NET_H */
