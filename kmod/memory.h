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
#include <asm/pgtable_types.h>

/*
 * The bytes a kvmalloc() of @size that returned @p holds: kmalloc's
 * bucket, which for a large table is the next power of two pages (a
 * 3 MB table takes 4 MB); from vmalloc whole pages, or whole 2 MB pages
 * where vmalloc could map the table with them (kvmalloc() allows it
 * from 2 MB up). Not ksize(): that would unpoison the slack for KASAN.
 * 0 for NULL.
 */
static inline size_t ftagent_kv_bytes(const void *p, size_t size)
{
	unsigned int level;

	if (!p)
		return 0;
	if (!is_vmalloc_addr(p))
		return kmalloc_size_roundup(size);
	if (size >= PMD_SIZE && lookup_address((unsigned long)p, &level) &&
	    level == PG_LEVEL_2M)
		return ALIGN(size, PMD_SIZE);
	return PAGE_ALIGN(size);
}

/* A per-CPU allocation of @size: one copy per possible CPU. */
static inline size_t ftagent_percpu_bytes(size_t size)
{
	return size * num_possible_cpus();
}

struct kretprobe;
/*
 * What a kretprobe holds once registered: its instances, as the running
 * kernel allocates them (kprobe_memory.c). Read right after
 * register_kretprobe() succeeded and kept for the unregister: the
 * structures it is worked out from are gone after that.
 */
size_t ftagent_kretprobe_bytes(const struct kretprobe *rp);

/* Each part's share; process context, any lock the part needs taken. */
size_t ftagent_hooks_memory(void);
size_t ftagent_mmsg_memory(void);
size_t ftagent_iouring_memory(void);
size_t ftagent_aio_memory(void);
/* usersock.c: the pool of accept marks. */
size_t ftagent_usersock_memory(void);
size_t ftagent_policy_memory(void);
size_t ftagent_budget_memory(void);
size_t ftagent_gate_memory(void);
size_t ftagent_zerocopy_memory(void);

#endif /* _FTAGENT_MEMORY_H */
