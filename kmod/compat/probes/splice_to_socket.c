// SPDX-License-Identifier: GPL-2.0
/*
 * splice_to_socket() (6.5 on): sendfile and splice hand pages to
 * sock_sendmsg() with MSG_SPLICE_PAGES, so security_socket_sendmsg() sees
 * them. (MSG_SPLICE_PAGES alone is no sign: 6.1's stable series defines
 * it.) The other side of kernel_sendpage.c: exactly one must hold.
 */
#include <linux/module.h>
#include <linux/splice.h>

ssize_t (*probe)(struct pipe_inode_info *, struct file *, loff_t *, size_t,
		 unsigned int) = splice_to_socket;

MODULE_LICENSE("GPL");
