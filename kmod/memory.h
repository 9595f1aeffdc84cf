/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module holds, for GET_RESOURCES MEMORY_BYTES (ftctl stats
 * "Memory:"): each part reports its own tables, in the bytes the kernel
 * really set aside for them, not the bytes asked for.
 */
#ifndef _FTAGENT_MEMORY_H
#define _FTAGENT_MEMORY_H

#include <linux/mm.h>
#include <linux/slab.h>

/*
 * The bytes a kvmalloc() of @size that returned @p holds: whole pages
 * when it came from vmalloc, else kmalloc's bucket, which for a large
 * table is the next power of two pages (a 3 MB table takes 4 MB). Not
 * ksize(): that would unpoison the slack for KASAN. 0 for NULL.
 */
static inline size_t ftagent_kv_bytes(const void *p, size_t size)
{
	if (!p)
		return 0;
	return is_vmalloc_addr(p) ? PAGE_ALIGN(size) :
				    kmalloc_size_roundup(size);
}

/* A per-CPU allocation of @size: one copy per possible CPU. */
static inline size_t ftagent_percpu_bytes(size_t size)
{
	return size * num_possible_cpus();
}

/* Each part's share; process context, any lock the part needs taken. */
size_t ftagent_hooks_memory(void);
size_t ftagent_mmsg_memory(void);
size_t ftagent_iouring_memory(void);
size_t ftagent_policy_memory(void);
size_t ftagent_budget_memory(void);
size_t ftagent_gate_memory(void);
size_t ftagent_zerocopy_memory(void);

#endif /* _FTAGENT_MEMORY_H */
