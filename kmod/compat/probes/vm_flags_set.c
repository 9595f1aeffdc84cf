// SPDX-License-Identifier: GPL-2.0
/* vm_flags read-only behind vm_flags_set()/vm_flags_clear() (6.3 on). */
#include <linux/mm.h>
#include <linux/module.h>

static __maybe_unused void probe(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
}

MODULE_LICENSE("GPL");
