/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VFS interfaces that changed under the module:
 *
 * - vma->vm_flags became read-only behind vm_flags_clear() (6.3);
 * - no_llseek went away (6.12), a NULL llseek now means the same;
 * - inode timestamps moved behind accessors (simple_inode_init_ts, 6.7);
 * - get_file_rcu() takes the address of the __rcu pointer and retries
 *   itself (6.7), instead of the file.
 *
 * Checked on Debian's 6.1.0-57 (6.1.192) and 6.12.117+deb12.
 */
#ifndef _FTAGENT_COMPAT_FS_H
#define _FTAGENT_COMPAT_FS_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include "features.h"

static inline void ftagent_vma_clear_maywrite(struct vm_area_struct *vma)
{
#if defined(FTAGENT_HAVE_VM_FLAGS_SET)
	vm_flags_clear(vma, VM_MAYWRITE);
#elif defined(FTAGENT_HAVE_VM_FLAGS_WRITABLE)
	vma->vm_flags &= ~VM_MAYWRITE;
#else
#error "ftagent: neither vm_flags_clear() nor a writable vm_flags (see kmod/compat/probes/)"
#endif
}

#ifdef FTAGENT_HAVE_NO_LLSEEK
#define FTAGENT_NO_LLSEEK no_llseek
#else
#define FTAGENT_NO_LLSEEK NULL
#endif

/* A new inode's three times, now. */
static inline void ftagent_inode_init_times(struct inode *inode)
{
#if defined(FTAGENT_HAVE_INODE_INIT_TS)
	simple_inode_init_ts(inode);
#elif !defined(FTAGENT_HAVE_INODE_TIME_FIELDS)
#error "ftagent: no way to set an inode's times (see kmod/compat/probes/)"
#else
	inode->i_atime = current_time(inode);
	inode->i_mtime = inode->i_atime;
	inode->i_ctime = inode->i_atime;
#endif
}

/*
 * A reference on the file *@fp points to, or NULL if there is none or it
 * is being freed. The caller holds rcu_read_lock().
 */
static inline struct file *ftagent_get_file_rcu(struct file __rcu **fp)
{
#if defined(FTAGENT_HAVE_GET_FILE_RCU_PP)
	return get_file_rcu(fp);
#elif !defined(FTAGENT_HAVE_GET_FILE_RCU_FILE)
#error "ftagent: this kernel's get_file_rcu() is not known (see kmod/compat/probes/)"
#else
	struct file *file = rcu_dereference(*fp);

	return file && get_file_rcu(file) ? file : NULL;
#endif
}

#endif /* _FTAGENT_COMPAT_FS_H */
