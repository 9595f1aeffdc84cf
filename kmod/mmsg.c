// SPDX-License-Identifier: GPL-2.0
/*
 * sendmmsg and recvmmsg: each message's bytes, as the kernel counts them.
 *
 * A *mmsg call returns how many messages moved; each message's byte
 * count goes only into the caller's msg_len field. Reading those back at
 * return would let a sibling thread zero them, or unmap the vector,
 * between the kernel's write and the read. So the count is taken from
 * the kernel instead: __sys_sendmmsg() and do_recvmmsg() move each
 * message with a call to ___sys_sendmsg() or ___sys_recvmsg(), whose
 * return value is that message's count. A kprobe on the instruction
 * after each such call finds it in %eax and charges it at once, to the
 * call's descriptor; the settle then counts the call itself without
 * bytes. A message whose msg_len the kernel then fails to write (an
 * unmapped vector) moved its bytes all the same, and is charged.
 *
 * The call sites are found at load: the caller's code is scanned for
 * direct calls (E8 rel32) whose target the kernel's symbol table names
 * as the callee, and the kprobe core accepts only an address on an
 * instruction boundary (it decodes the function from its start). Both
 * callers call once for native and once for compat messages, so fewer
 * sites than that means the compiler inlined one: the feature is then
 * off (DEGRADED, with the caller as MISSING) and the settle reads the
 * lengths back from the caller's memory, as before. The kprobes cost
 * nothing outside *mmsg calls.
 *
 * The kprobes are registered before the syscall hooks attach and taken
 * off after they are gone, and a kprobe charges only a call the hooks
 * trace (ftagent_account_message()), so a call is charged by one scheme
 * from entry to return.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "account.h"
#include "mmsg.h"
#include "symbols.h"

/* Sites per caller: the native and the compat branch of its loop. */
#define FTAGENT_MMSG_SITES	4
#define FTAGENT_MMSG_MAX_TEXT	16384	/* a caller larger is not scanned */
#define FTAGENT_CALL_REL32	0xe8
#define FTAGENT_CALL_LEN	5

struct ftagent_mmsg_caller {
	const char *caller;	/* the loop over the messages */
	const char *callee;	/* what moves one message */
	enum ftagent_dir dir;
	struct kprobe kps[FTAGENT_MMSG_SITES];
	unsigned int nr_kps;	/* registered */
};

static int ftagent_mmsg_sent(struct kprobe *p, struct pt_regs *regs)
{
	/* ___sys_sendmsg() returns int: bytes, or an errno that ends the loop. */
	int ret = (int)regs->ax;

	if (ret > 0)
		ftagent_account_message(FTAGENT_DIR_OUT, ret);
	return 0;
}

static int ftagent_mmsg_received(struct kprobe *p, struct pt_regs *regs)
{
	int ret = (int)regs->ax;

	if (ret > 0)
		ftagent_account_message(FTAGENT_DIR_IN, ret);
	return 0;
}

static struct ftagent_mmsg_caller ftagent_mmsg_callers[] = {
	{ "__sys_sendmmsg", "___sys_sendmsg", FTAGENT_DIR_OUT },
	{ "do_recvmmsg", "___sys_recvmsg", FTAGENT_DIR_IN },
};

bool ftagent_mmsg_exact;

/*
 * Where function @name starts and how long it is, from the kernel's
 * symbol table ("name+0x4/0x210": kprobes may place a function's address
 * past its ENDBR). 0 if it is not there.
 */
static unsigned long ftagent_mmsg_function(const char *name,
					   unsigned long *size)
{
	struct kprobe kp = { .symbol_name = name,
			     .flags = KPROBE_FLAG_DISABLED };
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr, off;
	size_t len = strlen(name);
	char *p;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, len) || buf[len] != '+')
		return 0;
	p = buf + len + 1;
	if (sscanf(p, "%lx/%lx", &off, size) != 2 || off > addr)
		return 0;
	return addr - off;
}

/* Whether a call at @site to @target calls @callee at its start. */
static bool ftagent_mmsg_calls(unsigned long target, const char *callee)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(callee);

	sprint_symbol(buf, target);
	return !strncmp(buf, callee, len) && !strncmp(buf + len, "+0x0/", 5);
}

/* Probe the return site of every call @c->caller makes to @c->callee. */
static int ftagent_mmsg_probe(struct ftagent_mmsg_caller *c)
{
	unsigned long start, size, i;
	unsigned int expect = IS_ENABLED(CONFIG_COMPAT) ? 2 : 1;
	u8 *text;
	int err = 0;

	start = ftagent_mmsg_function(c->caller, &size);
	if (!start || size < FTAGENT_CALL_LEN || size > FTAGENT_MMSG_MAX_TEXT)
		return -ENOENT;
	text = kmalloc(size, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	if (copy_from_kernel_nofault(text, (void *)start, size)) {
		kfree(text);
		return -EFAULT;
	}
	for (i = 0; i + FTAGENT_CALL_LEN <= size; i++) {
		unsigned long ret_site = start + i + FTAGENT_CALL_LEN;
		struct kprobe *kp;
		s32 rel;

		if (text[i] != FTAGENT_CALL_REL32)
			continue;
		memcpy(&rel, text + i + 1, sizeof(rel));
		if (!ftagent_mmsg_calls(ret_site + rel, c->callee))
			continue;
		if (c->nr_kps == FTAGENT_MMSG_SITES) {
			err = -E2BIG;
			break;
		}
		kp = &c->kps[c->nr_kps];
		memset(kp, 0, sizeof(*kp));
		kp->addr = (kprobe_opcode_t *)ret_site;
		kp->pre_handler = c->dir == FTAGENT_DIR_OUT ?
				  ftagent_mmsg_sent : ftagent_mmsg_received;
		err = register_kprobe(kp);
		/* Not an instruction boundary: bytes inside another one. */
		if (err == -EILSEQ) {
			err = 0;
			continue;
		}
		if (err)
			break;
		c->nr_kps++;
	}
	kfree(text);
	if (!err && c->nr_kps < expect)
		err = -ENOENT;
	return err;
}

static void ftagent_mmsg_unprobe(void)
{
	struct kprobe *kps[ARRAY_SIZE(ftagent_mmsg_callers) *
			   FTAGENT_MMSG_SITES];
	unsigned int i, j, n = 0;

	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		for (j = 0; j < c->nr_kps; j++)
			kps[n++] = &c->kps[j];
		c->nr_kps = 0;
	}
	/* One grace period for all: no handler runs after this. */
	if (n)
		unregister_kprobes(kps, n);
}

int ftagent_mmsg_init(bool strict)
{
	unsigned int i;
	int err;

	if (ftagent_feature_off(FTAGENT_FEATURE_MMSG_LENGTHS))
		return 0;	/* pretend_missing=: said at load */
	for (i = 0; i < ARRAY_SIZE(ftagent_mmsg_callers); i++) {
		struct ftagent_mmsg_caller *c = &ftagent_mmsg_callers[i];

		err = ftagent_mmsg_probe(c);
		if (!err)
			continue;
		ftagent_mmsg_unprobe();
		if (strict) {
			pr_err("cannot probe the calls %s makes to %s (%d): strict=1 refuses the load\n",
			       c->caller, c->callee, err);
			return err;
		}
		pr_warn("cannot probe the calls %s makes to %s (%d): *mmsg lengths are read from the caller's memory\n",
			c->caller, c->callee, err);
		ftagent_symbol_unusable(c->caller);
		return 0;
	}
	WRITE_ONCE(ftagent_mmsg_exact, true);
	return 0;
}

void ftagent_mmsg_exit(void)
{
	WRITE_ONCE(ftagent_mmsg_exact, false);
	ftagent_mmsg_unprobe();
}
