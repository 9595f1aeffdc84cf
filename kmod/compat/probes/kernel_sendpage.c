// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_sendpage() exists: sendfile and splice to a socket go through it
 * and not through security_socket_sendmsg (up to 6.4). From 6.5 on they
 * call sock_sendmsg() with MSG_SPLICE_PAGES, which the send gate sees.
 */
#include <linux/module.h>
#include <linux/net.h>

int (*probe)(struct socket *, struct page *, int, size_t, int) =
	kernel_sendpage;

MODULE_LICENSE("GPL");
