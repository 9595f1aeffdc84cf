// SPDX-License-Identifier: GPL-2.0
/*
 * ftagentfs: a filesystem of the module's own for the event files.
 *
 * Why not debugfs: under lockdown debugfs refuses files that can be
 * mmap()ed, and kernels under lockdown are the ones we are for. Why not
 * an internal mount (simple_pin_fs): a superblock holds a reference on
 * its filesystem's module, so a mount made by the module itself could
 * never be dropped and the module could never be unloaded.
 *
 * So the files exist only while the user has the filesystem mounted
 * (one superblock, shared by all mounts): mounting asks the event
 * channel to create its files in the new superblock's root, and the
 * last umount asks it to take them away before the superblock dies.
 * The channel itself, and the records nobody has read yet, outlive
 * both (events.c): a mount only makes them readable.
 * While mounted, the superblock holds the module: unmount before
 * unloading. The directory /sys/fs/ftagent is made for the mount.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/mm.h>
#include <linux/relay.h>
#include <linux/rwsem.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/ftagent.h>

#include "compat/fs.h"
#include "eventfs.h"
#include "events.h"

/*
 * relay's file operations plus two ioctls for mmap() readers: where the
 * writer is, and which sub-buffers the reader is done with (read() tells
 * relay that by itself). Owned by this module, so an open file keeps it;
 * relay's own functions are static, hence the forwarders.
 *
 * Two locks close relay's gaps. An inode outlives its buffer (relay
 * frees the buffer once the file is removed and the last reader gone),
 * so removal clears i_private under ftagent_files_lock and open() takes
 * its reference under it. And once a closing channel has counted what
 * nobody read, read() must not hand those records out after all: the
 * count and every read() exclude each other through ftagent_read_sem.
 */
static DEFINE_MUTEX(ftagent_files_lock);
static DECLARE_RWSEM(ftagent_read_sem);

void ftagent_eventfs_readers_lock(void)
{
	down_write(&ftagent_read_sem);
}

void ftagent_eventfs_readers_unlock(void)
{
	up_write(&ftagent_read_sem);
}

/*
 * The events are every user's activity: reading them takes CAP_SYS_ADMIN
 * in the initial user namespace, as the netlink families do. The files'
 * 0400 root mode alone would let CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH
 * through.
 */
static int ftagent_relay_open(struct inode *inode, struct file *file)
{
	int err = -ENOENT;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&ftagent_files_lock);
	if (inode->i_private)
		err = relay_file_operations.open(inode, file);
	mutex_unlock(&ftagent_files_lock);
	return err;
}

static int ftagent_relay_release(struct inode *inode, struct file *file)
{
	return relay_file_operations.release(inode, file);
}

static ssize_t ftagent_relay_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	ssize_t n = 0;

	down_read(&ftagent_read_sem);
	/* A closed channel's leftovers were counted as discarded. */
	if (!READ_ONCE(buf->finalized))
		n = relay_file_operations.read(file, ubuf, count, ppos);
	up_read(&ftagent_read_sem);
	return n;
}

static __poll_t ftagent_relay_poll(struct file *file, poll_table *wait)
{
	return relay_file_operations.poll(file, wait);
}

static int ftagent_relay_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* The buffer is the module's to write; readers only look. */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	ftagent_vma_clear_maywrite(vma);
	return relay_file_operations.mmap(file, vma);
}

static long ftagent_relay_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	struct rchan_buf *buf = file->private_data;
	struct ftagent_buf_pos pos;
	u32 n;

	switch (cmd) {
	case FTAGENT_IOC_BUF_POS:
		ftagent_events_buf_pos(buf, &pos);
		return copy_to_user((void __user *)arg, &pos, sizeof(pos)) ?
		       -EFAULT : 0;
	case FTAGENT_IOC_CONSUMED:
		if (get_user(n, (u32 __user *)arg))
			return -EFAULT;
		if (n > buf->chan->n_subbufs)
			return -EINVAL;
		inode_lock(file_inode(file));	/* as relay's read() does */
		relay_subbufs_consumed(buf->chan, buf->cpu, n);
		inode_unlock(file_inode(file));
		return 0;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ftagent_relay_fops = {
	.owner = THIS_MODULE,
	.open = ftagent_relay_open,
	.release = ftagent_relay_release,
	.read = ftagent_relay_read,
	.poll = ftagent_relay_poll,
	.mmap = ftagent_relay_mmap,
	.llseek = FTAGENT_NO_LLSEEK,
	.unlocked_ioctl = ftagent_relay_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static const struct super_operations ftagent_eventfs_super_ops = {
	.statfs = simple_statfs,
	.drop_inode = generic_delete_inode,
};

static int ftagent_eventfs_fill_super(struct super_block *sb,
				      struct fs_context *fc)
{
	static const struct tree_descr no_files[] = { { "" } };
	int err;

	err = simple_fill_super(sb, FTAGENT_FS_MAGIC, no_files);
	if (err)
		return err;
	sb->s_op = &ftagent_eventfs_super_ops;
	return ftagent_events_attach_files(sb->s_root);
}

static int ftagent_eventfs_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, ftagent_eventfs_fill_super);
}

static const struct fs_context_operations ftagent_eventfs_context_ops = {
	.get_tree = ftagent_eventfs_get_tree,
};

static int ftagent_eventfs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &ftagent_eventfs_context_ops;
	return 0;
}

static void ftagent_eventfs_kill_sb(struct super_block *sb)
{
	/* The channel must let go of its dentries before they die. */
	if (sb->s_root)
		ftagent_events_detach_files();
	kill_litter_super(sb);
}

static struct file_system_type ftagent_eventfs_type = {
	.owner = THIS_MODULE,
	.name = FTAGENT_FS_TYPE,
	.init_fs_context = ftagent_eventfs_init_fs_context,
	.kill_sb = ftagent_eventfs_kill_sb,
};

struct dentry *ftagent_eventfs_create_file(const char *name,
					   struct dentry *parent, umode_t mode,
					   void *data)
{
	struct inode *dir = d_inode(parent);
	struct dentry *dentry;
	struct inode *inode;

	inode_lock(dir);
	dentry = lookup_one_len(name, parent, strlen(name));
	if (IS_ERR(dentry))
		goto out;
	if (d_really_is_positive(dentry)) {
		dput(dentry);
		dentry = ERR_PTR(-EEXIST);
		goto out;
	}
	inode = new_inode(dir->i_sb);
	if (!inode) {
		dput(dentry);
		dentry = ERR_PTR(-ENOMEM);
		goto out;
	}
	inode->i_ino = get_next_ino();
	inode->i_mode = S_IFREG | (mode & 0444);
	ftagent_inode_init_times(inode);
	inode->i_fop = &ftagent_relay_fops;
	inode->i_private = data;
	/* The reference lookup_one_len() gave us keeps the file alive. */
	d_instantiate(dentry, inode);
out:
	inode_unlock(dir);
	return dentry;
}

void ftagent_eventfs_remove_file(struct dentry *dentry)
{
	struct inode *dir;

	if (IS_ERR_OR_NULL(dentry))
		return;
	/* No open() may take a reference on the buffer after this. */
	mutex_lock(&ftagent_files_lock);
	d_inode(dentry)->i_private = NULL;
	mutex_unlock(&ftagent_files_lock);
	dir = d_inode(dentry->d_parent);
	inode_lock(dir);
	/*
	 * simple_unlink() drops the reference creation kept; d_delete()
	 * unhashes the name even while a reader holds the file open, so a
	 * new channel can create it again.
	 */
	dget(dentry);
	if (simple_positive(dentry))
		simple_unlink(dir, dentry);
	d_delete(dentry);
	dput(dentry);
	inode_unlock(dir);
}

int ftagent_eventfs_init(void)
{
	int err;

	err = sysfs_create_mount_point(fs_kobj, "ftagent");
	if (err)
		return err;
	err = register_filesystem(&ftagent_eventfs_type);
	if (err)
		sysfs_remove_mount_point(fs_kobj, "ftagent");
	return err;
}

void ftagent_eventfs_exit(void)
{
	unregister_filesystem(&ftagent_eventfs_type);
	sysfs_remove_mount_point(fs_kobj, "ftagent");
}
