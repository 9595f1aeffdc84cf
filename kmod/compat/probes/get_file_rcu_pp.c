// SPDX-License-Identifier: GPL-2.0
/* get_file_rcu() takes the __rcu pointer's address (6.7 on). */
#include <linux/fs.h>
#include <linux/module.h>

static __maybe_unused struct file *probe(struct file __rcu **fp)
{
	return get_file_rcu(fp);
}

MODULE_LICENSE("GPL");
