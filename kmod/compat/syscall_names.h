/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the syscall entry points the hooks attach to. Kernels with
 * syscall wrappers (CONFIG_ARCH_HAS_SYSCALL_WRAPPER) give each 64-bit
 * syscall an entry point taking the user's pt_regs; this is the one place
 * that knows their architecture prefix.
 */
#ifndef _FTAGENT_COMPAT_SYSCALL_NAMES_H
#define _FTAGENT_COMPAT_SYSCALL_NAMES_H

#if defined(CONFIG_X86_64) && defined(CONFIG_ARCH_HAS_SYSCALL_WRAPPER)
#define FTAGENT_SYSCALL_SYM(name)	"__x64_sys_" #name
/*
 * The 32-bit entry points (int $0x80, sysenter, syscall from ia32 code):
 * one per row of the ia32 table, __ia32_compat_sys_* where the call has a
 * compat version, __ia32_sys_* where it has not.
 */
#define FTAGENT_IA32_SYM(name)		"__ia32_sys_" #name
#define FTAGENT_IA32_COMPAT_SYM(name)	"__ia32_compat_sys_" #name
/*
 * x32 calls enter through the 64-bit entry points, except where x32's
 * structures differ: __x64_compat_sys_*, on kernels built with the x32
 * ABI (off at run time unless booted with syscall.x32=y on Debian).
 */
#define FTAGENT_X32_COMPAT_SYM(name)	"__x64_compat_sys_" #name
#else
#error "ftagent: this architecture's syscall entry points are not known yet"
#endif

#endif /* _FTAGENT_COMPAT_SYSCALL_NAMES_H */
