/*
 * stub/recorders/stub_rec_state_sys.h: the x86-64 syscalls that write user memory,
 * and how their arguments give the ranges (read's buffer trimmed to what
 * it returned, iovecs, msghdr, struct stat, wait4's status and rusage,
 * the old values of rt_sigaction / sigprocmask / sigaltstack / prlimit,
 * a few ioctl requests, ...). Ranges the kernel keeps writing later
 * (rseq, the clear-child-tid word) are volatile. A syscall neither in the
 * table nor known to write nothing is -ENOSYS: the caller marks the state
 * unknown from there. Mapping changes (mmap, brk, exec) are the caller's.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_STATE_SYS_H
#define HINDSIGHT_STUB_STUB_REC_STATE_SYS_H

#include <stddef.h>
#include <stdint.h>

#include "stub/recorders/stub_rec_state_ops.h"

/* The ranges syscall @nr with @args writes (user memory the arguments
 * point to, e.g. iovecs, is read through @mem_fd). Count, or -ENOSYS when
 * it may write memory the table cannot say (unknown syscall, ioctl
 * request), -E2BIG if more than @max. */
int stub_rec_state_sys(long nr, const uint64_t args[6], int mem_fd,
		       struct stub_rec_span *out, size_t max);

#endif
