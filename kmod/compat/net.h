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

/*
 * The alerts group is restricted with GENL_MCAST_CAP_SYS_ADMIN, which
 * genl_bind() checks (6.6, and the 6.1 stable series has it: Debian's
 * 6.1.192 does). Older kernels' genl_bind() checks nothing a family can
 * ask for and struct genl_family has no bind callback: any user could
 * listen. Refuse to build rather than leak.
 */
#include <net/genetlink.h>
#ifndef GENL_MCAST_CAP_SYS_ADMIN
#error "genl_bind() cannot restrict the alerts group on this kernel"
#endif

/*
 * Both sides are probed: a probe that fails for a reason of its own must
 * not quietly leave sendfile and splice ungated.
 */
#if defined(FTAGENT_HAVE_KERNEL_SENDPAGE) && \
	!defined(FTAGENT_HAVE_SPLICE_TO_SOCKET)
#define FTAGENT_SENDPAGE_SYMBOL "kernel_sendpage"
#elif defined(FTAGENT_HAVE_SPLICE_TO_SOCKET) && \
	!defined(FTAGENT_HAVE_KERNEL_SENDPAGE)
#define FTAGENT_SENDPAGE_SYMBOL NULL
#else
#error "ftagent: how sendfile and splice reach a socket is not known (see kmod/compat/probes/)"
#endif

#endif /* _FTAGENT_COMPAT_NET_H */
