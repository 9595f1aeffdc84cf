// SPDX-License-Identifier: GPL-2.0
/* get_file_rcu() takes the file and may fail (up to 6.6). */
#include <linux/fs.h>
#include <linux/module.h>

static __maybe_unused bool probe(struct file *file)
{
	return get_file_rcu(file);
}

MODULE_LICENSE("GPL");
