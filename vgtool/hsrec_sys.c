/*
 * vgtool/hsrec_sys.c: syscalls by number (vgtool/hsrec_sys.h).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"
#include "pub_tool_vkiscnums.h"

#include "hsrec_proto.h"
#include "hsrec_sys.h"

const HChar *hsrec_sys_name(UInt nr)
{
	switch (nr) {
	case __NR_read: return "read";
	case __NR_write: return "write";
	case __NR_openat: return "openat";
	case __NR_close: return "close";
	case __NR_mmap: return "mmap";
	case __NR_munmap: return "munmap";
	case __NR_mprotect: return "mprotect";
	case __NR_brk: return "brk";
	case __NR_clone: return "clone";
	case __NR_execve: return "execve";
	case __NR_exit_group: return "exit_group";
	case __NR_rt_sigsuspend: return "rt_sigsuspend";
	case __NR_pause: return "pause";
	case __NR_futex: return "futex";
	case __NR_nanosleep: return "nanosleep";
	default: return "syscall";
	}
}

Bool hsrec_sys_is_open(UInt nr)
{
	return nr == __NR_open || nr == __NR_openat || nr == __NR_creat || nr == 437 /* openat2 */;
}

Bool hsrec_sys_may_wait(UInt nr)
{
#define HSIN_CASE(name) case __NR_##name:
	switch (nr) {
	HSREC_MAY_WAIT_SYSCALLS(HSIN_CASE)
		return True;
	default:
		return False;
	}
#undef HSIN_CASE
}

/* Calls the core must do itself at the rebuild: they shape the process
 * (its memory, its signal set-up, its end) and give the same results. */
Bool hsrec_sys_core_does(UInt nr)
{
	switch (nr) {
	case __NR_mmap: case __NR_munmap: case __NR_mprotect: case __NR_mremap: case __NR_brk:
	case __NR_madvise: case __NR_exit: case __NR_exit_group: case __NR_rt_sigaction:
	case __NR_rt_sigprocmask: case __NR_rt_sigreturn: case __NR_sigaltstack:
	case __NR_arch_prctl: case __NR_set_tid_address: case __NR_set_robust_list:
	case __NR_prlimit64: case __NR_getrlimit: case __NR_setrlimit:
		return True;
	default:
		return False;
	}
}

Bool hsrec_sys_writes_reads(UInt nr)
{
	switch (nr) {
	case __NR_accept: case __NR_accept4: case __NR_recvfrom: case __NR_recvmsg:
	case __NR_recvmmsg: case __NR_getsockname: case __NR_getpeername: case __NR_getsockopt:
	case __NR_select: case __NR_pselect6: case __NR_fcntl:
		return True;
	default:
		return False;
	}
}
