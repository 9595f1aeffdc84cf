// SPDX-License-Identifier: GPL-2.0
/* vma->vm_flags may be written directly (up to 6.2). */
#include <linux/mm.h>
#include <linux/module.h>

static __maybe_unused void probe(struct vm_area_struct *vma)
{
	vma->vm_flags &= ~VM_MAYWRITE;
}

MODULE_LICENSE("GPL");
