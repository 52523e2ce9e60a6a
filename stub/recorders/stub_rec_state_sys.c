/*
 * stub/recorders/stub_rec_state_sys.c: the table of syscalls that write user memory.
 *
 * Each entry names the pointer argument and how the size is found: fixed
 * (the x86-64 struct size), another argument (times a factor), the
 * pointed-to socklen_t, an iovec array, a fd_set of nfds bits. "trim"
 * entries are cut to what the syscall returned (times the factor).
 * Syscalls whose ranges depend on more than that (recvmsg, ioctl, fcntl,
 * futex, clone, prctl, arch_prctl) have a function each.
 */
#include "stub/recorders/stub_rec_state_sys.h"

#include <errno.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum stub_rec_sz {
	SZ_FIX,        /* n bytes */
	SZ_ARG,        /* args[n] * mul bytes */
	SZ_SOCKLEN,    /* *(socklen_t *)args[n] bytes */
	SZ_IOV,        /* iovec array, count args[n] */
	SZ_FDSET,      /* (args[0] + 63) / 64 * 8 bytes */
	SZ_NONE,       /* writes nothing */
	SZ_SPECIAL,    /* a function below */
};

struct stub_rec_sys {
	int16_t nr;
	uint8_t ptr;   /* argument holding the pointer */
	uint8_t sz;    /* enum stub_rec_sz */
	uint16_t n;
	uint8_t mul;   /* SZ_ARG factor (0: 1) */
	uint8_t trim;  /* cut to ret * trim */
};

#define W(nr_, p, s, n_, m, t) { (int16_t)(nr_), p, s, n_, m, t }
#define FIX(nr_, p, n_) W(nr_, p, SZ_FIX, n_, 0, 0)
#define NONE(nr_) W(nr_, 0, SZ_NONE, 0, 0, 0)
#define SPECIAL(nr_) W(nr_, 0, SZ_SPECIAL, 0, 0, 0)

static const struct stub_rec_sys stub_rec_sys_table[] = {
	W(SYS_read, 1, SZ_ARG, 2, 1, 1), W(SYS_pread64, 1, SZ_ARG, 2, 1, 1),
	W(SYS_readv, 1, SZ_IOV, 2, 0, 0), W(SYS_preadv, 1, SZ_IOV, 2, 0, 0),
	W(SYS_preadv2, 1, SZ_IOV, 2, 0, 0),
	W(SYS_recvfrom, 1, SZ_ARG, 2, 1, 1), W(SYS_recvfrom, 4, SZ_SOCKLEN, 5, 0, 0),
	FIX(SYS_recvfrom, 5, 4),
	W(SYS_getdents64, 1, SZ_ARG, 2, 1, 1), W(SYS_getdents, 1, SZ_ARG, 2, 1, 1),
	FIX(SYS_fstat, 1, 144), FIX(SYS_stat, 1, 144), FIX(SYS_lstat, 1, 144),
	FIX(SYS_newfstatat, 2, 144), FIX(SYS_statx, 4, 256),
	FIX(SYS_statfs, 1, 120), FIX(SYS_fstatfs, 1, 120),
	FIX(SYS_clock_gettime, 1, 16), FIX(SYS_clock_getres, 1, 16),
	FIX(SYS_gettimeofday, 0, 16), FIX(SYS_gettimeofday, 1, 8), FIX(SYS_time, 0, 8),
	FIX(SYS_times, 0, 32), FIX(SYS_getrusage, 1, 144), FIX(SYS_sysinfo, 0, 112),
	FIX(SYS_uname, 0, 390),
	W(SYS_getrandom, 0, SZ_ARG, 1, 1, 1),
	FIX(SYS_pipe, 0, 8), FIX(SYS_pipe2, 0, 8), FIX(SYS_socketpair, 3, 8),
	FIX(SYS_wait4, 1, 4), FIX(SYS_wait4, 3, 144),
	FIX(SYS_waitid, 2, 128), FIX(SYS_waitid, 4, 144),
	FIX(SYS_rt_sigaction, 2, 32), W(SYS_rt_sigprocmask, 2, SZ_ARG, 3, 1, 0),
	W(SYS_rt_sigpending, 0, SZ_ARG, 1, 1, 0), FIX(SYS_rt_sigtimedwait, 1, 128),
	FIX(SYS_sigaltstack, 1, 24),
	FIX(SYS_prlimit64, 3, 16), FIX(SYS_getrlimit, 1, 16),
	W(SYS_getcwd, 0, SZ_ARG, 1, 1, 1),
	W(SYS_readlink, 1, SZ_ARG, 2, 1, 1), W(SYS_readlinkat, 2, SZ_ARG, 3, 1, 1),
	W(SYS_epoll_wait, 1, SZ_ARG, 2, 12, 12), W(SYS_epoll_pwait, 1, SZ_ARG, 2, 12, 12),
	W(SYS_epoll_pwait2, 1, SZ_ARG, 2, 12, 12),
	W(SYS_poll, 0, SZ_ARG, 1, 8, 0), W(SYS_ppoll, 0, SZ_ARG, 1, 8, 0),
	W(SYS_select, 1, SZ_FDSET, 0, 0, 0), W(SYS_select, 2, SZ_FDSET, 0, 0, 0),
	W(SYS_select, 3, SZ_FDSET, 0, 0, 0), FIX(SYS_select, 4, 16),
	W(SYS_pselect6, 1, SZ_FDSET, 0, 0, 0), W(SYS_pselect6, 2, SZ_FDSET, 0, 0, 0),
	W(SYS_pselect6, 3, SZ_FDSET, 0, 0, 0), FIX(SYS_pselect6, 4, 16),
	FIX(SYS_nanosleep, 1, 16), FIX(SYS_clock_nanosleep, 3, 16),
	FIX(SYS_getitimer, 1, 32), FIX(SYS_setitimer, 2, 32),
	FIX(SYS_timer_gettime, 1, 32), FIX(SYS_timer_settime, 3, 32),
	FIX(SYS_timerfd_gettime, 1, 32), FIX(SYS_timerfd_settime, 3, 32),
	FIX(SYS_timer_create, 2, 4),
	FIX(SYS_getresuid, 0, 4), FIX(SYS_getresuid, 1, 4), FIX(SYS_getresuid, 2, 4),
	FIX(SYS_getresgid, 0, 4), FIX(SYS_getresgid, 1, 4), FIX(SYS_getresgid, 2, 4),
	FIX(SYS_sched_getparam, 1, 4), W(SYS_sched_getaffinity, 2, SZ_ARG, 1, 1, 1),
	W(SYS_getgroups, 1, SZ_ARG, 0, 4, 0),
	W(SYS_getsockopt, 3, SZ_SOCKLEN, 4, 0, 0), FIX(SYS_getsockopt, 4, 4),
	W(SYS_getsockname, 1, SZ_SOCKLEN, 2, 0, 0), FIX(SYS_getsockname, 2, 4),
	W(SYS_getpeername, 1, SZ_SOCKLEN, 2, 0, 0), FIX(SYS_getpeername, 2, 4),
	W(SYS_accept, 1, SZ_SOCKLEN, 2, 0, 0), FIX(SYS_accept, 2, 4),
	W(SYS_accept4, 1, SZ_SOCKLEN, 2, 0, 0), FIX(SYS_accept4, 2, 4),
	FIX(SYS_sendfile, 2, 8), FIX(SYS_copy_file_range, 1, 8),
	FIX(SYS_copy_file_range, 3, 8), FIX(SYS_splice, 1, 8), FIX(SYS_splice, 3, 8),
	FIX(SYS_capget, 1, 24), FIX(SYS_get_robust_list, 1, 8), FIX(SYS_get_robust_list, 2, 8),
	SPECIAL(SYS_recvmsg), SPECIAL(SYS_ioctl), SPECIAL(SYS_fcntl), SPECIAL(SYS_futex),
	SPECIAL(SYS_clone), SPECIAL(SYS_clone3), SPECIAL(SYS_prctl), SPECIAL(SYS_arch_prctl),
	SPECIAL(SYS_set_tid_address), SPECIAL(SYS_rseq),
	/* Known to write no user memory (mapping changes are the caller's). */
	NONE(SYS_write), NONE(SYS_writev), NONE(SYS_pwrite64), NONE(SYS_pwritev),
	NONE(SYS_pwritev2), NONE(SYS_open), NONE(SYS_openat), NONE(SYS_openat2),
	NONE(SYS_close), NONE(SYS_close_range), NONE(SYS_lseek), NONE(SYS_mmap),
	NONE(SYS_mprotect), NONE(SYS_munmap), NONE(SYS_brk), NONE(SYS_mremap),
	NONE(SYS_madvise), NONE(SYS_msync), NONE(SYS_mlock), NONE(SYS_munlock),
	NONE(SYS_access), NONE(SYS_faccessat), NONE(SYS_faccessat2),
	NONE(SYS_sched_yield), NONE(SYS_dup), NONE(SYS_dup2), NONE(SYS_dup3),
	NONE(SYS_getpid), NONE(SYS_gettid), NONE(SYS_getppid), NONE(SYS_getuid),
	NONE(SYS_geteuid), NONE(SYS_getgid), NONE(SYS_getegid), NONE(SYS_getpgrp),
	NONE(SYS_getpgid), NONE(SYS_getsid), NONE(SYS_setpgid), NONE(SYS_setsid),
	NONE(SYS_kill), NONE(SYS_tgkill), NONE(SYS_tkill), NONE(SYS_exit),
	NONE(SYS_exit_group), NONE(SYS_rt_sigreturn), NONE(SYS_rt_sigsuspend),
	NONE(SYS_pause), NONE(SYS_alarm), NONE(SYS_set_robust_list),
	NONE(SYS_sendto), NONE(SYS_sendmsg), NONE(SYS_socket), NONE(SYS_connect),
	NONE(SYS_bind), NONE(SYS_listen), NONE(SYS_shutdown), NONE(SYS_setsockopt),
	NONE(SYS_fsync), NONE(SYS_fdatasync), NONE(SYS_ftruncate), NONE(SYS_truncate),
	NONE(SYS_unlink), NONE(SYS_unlinkat), NONE(SYS_mkdir), NONE(SYS_mkdirat),
	NONE(SYS_rmdir), NONE(SYS_rename), NONE(SYS_renameat), NONE(SYS_renameat2),
	NONE(SYS_chdir), NONE(SYS_fchdir), NONE(SYS_chmod), NONE(SYS_fchmod),
	NONE(SYS_fchmodat), NONE(SYS_chown), NONE(SYS_fchown), NONE(SYS_lchown),
	NONE(SYS_fchownat), NONE(SYS_umask), NONE(SYS_link), NONE(SYS_linkat),
	NONE(SYS_symlink), NONE(SYS_symlinkat), NONE(SYS_utimensat), NONE(SYS_flock),
	NONE(SYS_sched_setaffinity), NONE(SYS_sched_setscheduler),
	NONE(SYS_sched_setparam), NONE(SYS_sched_getscheduler),
	NONE(SYS_sched_get_priority_max), NONE(SYS_sched_get_priority_min),
	NONE(SYS_getpriority), NONE(SYS_setpriority), NONE(SYS_epoll_create),
	NONE(SYS_epoll_create1), NONE(SYS_epoll_ctl), NONE(SYS_eventfd),
	NONE(SYS_eventfd2), NONE(SYS_timerfd_create), NONE(SYS_inotify_init1),
	NONE(SYS_inotify_add_watch), NONE(SYS_membarrier), NONE(SYS_memfd_create),
	NONE(SYS_fadvise64), NONE(SYS_pidfd_open), NONE(SYS_setuid), NONE(SYS_setgid),
	NONE(SYS_setreuid), NONE(SYS_setregid), NONE(SYS_setresuid), NONE(SYS_setresgid),
	NONE(SYS_setgroups), NONE(SYS_fork), NONE(SYS_vfork), NONE(SYS_execve),
	NONE(SYS_execveat), NONE(SYS_sync), NONE(SYS_syncfs), NONE(SYS_tee),
	NONE(SYS_personality), NONE(SYS_timer_delete), NONE(SYS_setrlimit),
	NONE(SYS_sched_setattr), NONE(SYS_fallocate), NONE(SYS_mknod), NONE(SYS_mknodat),
	NONE(SYS_signalfd4), NONE(SYS_getcpu),
};

static int stub_rec_sys_add(struct stub_rec_span *out, size_t max, size_t *n, uint64_t addr,
			    uint64_t len, uint8_t kind, uint8_t trim)
{
	if (!addr || !len)
		return 0;
	if (*n >= max)
		return -E2BIG;
	out[(*n)++] = (struct stub_rec_span){ addr, len, kind, trim };
	return 0;
}

static uint64_t stub_rec_sys_u32(int fd, uint64_t addr)
{
	uint32_t v = 0;

	if (!addr || pread(fd, &v, 4, (off_t)addr) != 4)
		return 0;
	return v;
}

/* The buffers of an iovec array (@cnt entries at @iov). */
static int stub_rec_sys_iov(int fd, uint64_t iov, uint64_t cnt, struct stub_rec_span *out,
			    size_t max, size_t *n)
{
	struct iovec v[64];
	int r = 0;

	if (cnt > 64)
		return -E2BIG;
	if (cnt && pread(fd, v, cnt * sizeof(v[0]), (off_t)iov) != (ssize_t)(cnt * sizeof(v[0])))
		return 0;                          /* EFAULT: nothing written */
	for (uint64_t i = 0; i < cnt && r >= 0; i++)
		r = stub_rec_sys_add(out, max, n, (uint64_t)v[i].iov_base, v[i].iov_len,
				     STUB_REC_SPAN_WRITE, 0);
	return r;
}

/* recvmsg: the msghdr (lengths and flags), name, iovecs, control. */
static int stub_rec_sys_recvmsg(int fd, uint64_t msg, struct stub_rec_span *out, size_t max,
				size_t *n)
{
	uint64_t h[7];
	int r;

	if (pread(fd, h, sizeof(h), (off_t)msg) != (ssize_t)sizeof(h))
		return 0;
	r = stub_rec_sys_add(out, max, n, msg, sizeof(h), STUB_REC_SPAN_WRITE, 0);
	if (r >= 0)
		r = stub_rec_sys_add(out, max, n, h[0], (uint32_t)h[1], STUB_REC_SPAN_WRITE, 0);
	if (r >= 0)
		r = stub_rec_sys_add(out, max, n, h[4], h[5], STUB_REC_SPAN_WRITE, 0);
	if (r >= 0)
		r = stub_rec_sys_iov(fd, h[2], h[3], out, max, n);
	return r;
}

static int stub_rec_sys_special(long nr, const uint64_t *a, int fd, struct stub_rec_span *out,
				size_t max, size_t *n)
{
	const uint8_t W_ = STUB_REC_SPAN_WRITE, V = STUB_REC_SPAN_VOLATILE;

	switch (nr) {
	case SYS_recvmsg:
		return stub_rec_sys_recvmsg(fd, a[1], out, max, n);
	case SYS_ioctl:
		switch (a[1]) {
		case 0x5401: return stub_rec_sys_add(out, max, n, a[2], 60, W_, 0); /* TCGETS */
		case 0x5413: return stub_rec_sys_add(out, max, n, a[2], 8, W_, 0);  /* TIOCGWINSZ */
		case 0x541b: return stub_rec_sys_add(out, max, n, a[2], 4, W_, 0);  /* FIONREAD */
		case 0x540f: return stub_rec_sys_add(out, max, n, a[2], 4, W_, 0);  /* TIOCGPGRP */
		default: return -ENOSYS;
		}
	case SYS_fcntl:                                    /* F_GETLK, F_OFD_GETLK */
		return a[1] == 5 || a[1] == 36 ? stub_rec_sys_add(out, max, n, a[2], 32, W_, 0) : 0;
	case SYS_futex:
		if ((a[1] & FUTEX_CMD_MASK) == FUTEX_WAKE_OP)
			return stub_rec_sys_add(out, max, n, a[4], 4, W_, 0);
		return 0;
	case SYS_clone: {
		int r = 0;

		if (a[0] & CLONE_PARENT_SETTID)
			r = stub_rec_sys_add(out, max, n, a[2], 4, W_, 0);
		if (r >= 0 && (a[0] & (CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)))
			r = stub_rec_sys_add(out, max, n, a[3], 4, V, 0);
		return r;
	}
	case SYS_clone3: {
		uint64_t ca[5];                    /* flags, pidfd, child_tid, parent_tid */
		int r = 0;

		if (pread(fd, ca, sizeof(ca), (off_t)a[0]) != (ssize_t)sizeof(ca))
			return 0;
		if (ca[0] & CLONE_PIDFD)
			r = stub_rec_sys_add(out, max, n, ca[1], 4, W_, 0);
		if (r >= 0 && (ca[0] & CLONE_PARENT_SETTID))
			r = stub_rec_sys_add(out, max, n, ca[3], 4, W_, 0);
		if (r >= 0 && (ca[0] & (CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)))
			r = stub_rec_sys_add(out, max, n, ca[2], 4, V, 0);
		return r;
	}
	case SYS_prctl:                                    /* PR_GET_NAME, PR_GET_PDEATHSIG */
		if (a[0] == 16)
			return stub_rec_sys_add(out, max, n, a[1], 16, W_, 0);
		return a[0] == 2 ? stub_rec_sys_add(out, max, n, a[1], 4, W_, 0) : 0;
	case SYS_arch_prctl:                               /* ARCH_GET_FS / _GS */
		if (a[0] == 0x1003 || a[0] == 0x1004)
			return stub_rec_sys_add(out, max, n, a[1], 8, W_, 0);
		return 0;
	case SYS_set_tid_address:
		return stub_rec_sys_add(out, max, n, a[0], 4, V, 0);
	case SYS_rseq:
		return stub_rec_sys_add(out, max, n, a[0], a[1], V, 0);
	default:
		return -ENOSYS;
	}
}

static int stub_rec_sys_entry(const struct stub_rec_sys *e, const uint64_t *a, int fd,
			      struct stub_rec_span *out, size_t max, size_t *n)
{
	uint64_t len;

	switch (e->sz) {
	case SZ_FIX: len = e->n; break;
	case SZ_ARG: len = a[e->n] * (e->mul ? e->mul : 1); break;
	case SZ_SOCKLEN: len = stub_rec_sys_u32(fd, a[e->n]); break;
	case SZ_IOV: return stub_rec_sys_iov(fd, a[e->ptr], a[e->n], out, max, n);
	case SZ_FDSET: len = (a[0] + 63) / 64 * 8; break;
	case SZ_SPECIAL: return stub_rec_sys_special(e->nr, a, fd, out, max, n);
	default: return 0;
	}
	return stub_rec_sys_add(out, max, n, a[e->ptr], len, STUB_REC_SPAN_WRITE, e->trim);
}

int stub_rec_state_sys(long nr, const uint64_t args[6], int mem_fd,
		       struct stub_rec_span *out, size_t max)
{
	size_t n = 0;
	bool known = false;

	for (size_t i = 0; i < sizeof(stub_rec_sys_table) / sizeof(stub_rec_sys_table[0]); i++) {
		const struct stub_rec_sys *e = &stub_rec_sys_table[i];
		int r;

		if (e->nr != nr)
			continue;
		known = true;
		r = stub_rec_sys_entry(e, args, mem_fd, out, max, &n);
		if (r < 0)
			return r;
	}
	return known ? (int)n : -ENOSYS;
}
