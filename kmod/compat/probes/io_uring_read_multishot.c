// SPDX-License-Identifier: GPL-2.0
/* IORING_OP_READ_MULTISHOT exists (6.7 on): an opcode that moves bytes. */
#include <linux/io_uring.h>
#include <linux/module.h>

int probe = IORING_OP_READ_MULTISHOT;

MODULE_LICENSE("GPL");
