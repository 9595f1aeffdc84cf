// SPDX-License-Identifier: GPL-2.0
/*
 * A kretprobe's instances live in an objpool (6.7 on, through its
 * rethook): register_kretprobe() then makes one vmalloc per possible CPU,
 * each with room for every instance's pointer and that CPU's share of the
 * instances, not one kmalloc per instance as up to 6.6. What the memory
 * figure counts follows (kmod/kprobe_memory.c).
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/objpool.h>
#include <linux/rethook.h>

int probe(const struct kretprobe *rp);

int probe(const struct kretprobe *rp)
{
	const struct objpool_head *pool = &rp->rh->pool;

	return pool->capacity + pool->obj_size + pool->nr_objs +
	       pool->nr_possible_cpus;
}

MODULE_LICENSE("GPL");
