// SPDX-License-Identifier: GPL-2.0
/* no_llseek() still exists (removed in 6.12, where NULL means the same). */
#include <linux/fs.h>
#include <linux/module.h>

loff_t (*probe)(struct file *, loff_t, int) = no_llseek;

MODULE_LICENSE("GPL");
