// SPDX-License-Identifier: GPL-2.0
/* Inode timestamps behind accessors: simple_inode_init_ts() (6.7 on). */
#include <linux/fs.h>
#include <linux/module.h>

static __maybe_unused void probe(struct inode *inode)
{
	simple_inode_init_ts(inode);
}

MODULE_LICENSE("GPL");
