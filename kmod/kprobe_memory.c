// SPDX-License-Identifier: GPL-2.0
/*
 * The memory a registered kretprobe holds, for the module's memory
 * figure (memory.h).
 *
 * Up to 6.6, register_kretprobe() allocates each of its maxactive
 * instances on its own (kzalloc of the instance and its data). From 6.7
 * the instances live in an objpool inside the probe's rethook: one
 * allocation per possible CPU, each holding a ring of pointers with room
 * for every instance (capacity, maxactive rounded up to a power of two)
 * and that CPU's share of the instances, from vmalloc (so at least a
 * page), plus the array of those slots. On many CPUs that is far more
 * than maxactive instances: 64 CPUs hold 64 rings of 256 pointers for a
 * probe of 256 instances. The pool's own fields give its geometry; the
 * layout is lib/objpool.c's (objpool_init_percpu_slots(), 6.9 to 6.12;
 * 6.7 and 6.8 name the pool's fields otherwise, and the probe then
 * leaves them the per-instance count). A slot that vmalloc could not
 * give comes from kmalloc: each is counted as what it is. The array of
 * slot pointers is 16 bytes an entry before a 2026 fix, 8 after: at most
 * one kmalloc bucket apart, counted as 8.
 *
 * From the unregister on the figure leaves the probe out, though a task
 * still inside a probed function keeps the pool until it returns.
 */
#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "features.h"
#include "memory.h"

#ifdef FTAGENT_HAVE_KRETPROBE_OBJPOOL
#include <linux/objpool.h>
#include <linux/rethook.h>

size_t ftagent_kretprobe_bytes(const struct kretprobe *rp)
{
	const struct objpool_head *pool = &rp->rh->pool;
	const struct objpool_slot *slot = NULL;
	int cpus = pool->nr_possible_cpus, nth = 0, cpu, share;
	size_t bytes;

	if (cpus <= 0)
		return 0;
	bytes = kmalloc_size_roundup(sizeof(struct rethook)) +
		kmalloc_size_roundup(nr_cpu_ids * sizeof(*pool->cpu_slots));
	for_each_possible_cpu(cpu) {
		/* The first nr_objs % cpus CPUs take one more. */
		share = pool->nr_objs / cpus + (nth++ < pool->nr_objs % cpus);
		bytes += ftagent_kv_bytes(pool->cpu_slots[cpu],
					  struct_size(slot, entries,
						      pool->capacity) +
					  (size_t)pool->obj_size * share);
	}
	return bytes;
}
#else
size_t ftagent_kretprobe_bytes(const struct kretprobe *rp)
{
	/* The rethook (or holder) is small beside the instances. */
	return rp->maxactive *
	       kmalloc_size_roundup(sizeof(struct kretprobe_instance) +
				    rp->data_size);
}
#endif
