/*
 * vgtool/hsrec_rebuild.c: the rebuild's syscalls (hsrec_inputs.h): each one
 * completed from the input log, or handed to Valgrind's core and checked
 * when it returns; the files the program opened, opened again; the
 * threads a clone makes, with their recorded ids.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A block that ends in a syscall calls hsin_syscall at its end
 * (hsin_instrument_out). What the kernel did is in the log: rax and the
 * bytes it wrote go into the thread and the stream, unless the call shapes
 * the process itself (hsrec_sys_core_does), which the core makes again. A
 * thread that waited in its syscall while others ran when recorded leaves
 * its block there, and the syscall completes at its next turn (hsin_finish,
 * from hsin_stop).
 *
 * hsrec_inputs.c calls into this file; it calls only hsrec_log.c (the log
 * read back, the turns), below both (hsrec_inputs_int.h).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs_int.h"
#include "hsrec_sys.h"
#include "hsrec_proto.h"

/* libcoregrind's, not in the public headers (VALGRIND-NOTES.md): a signal
 * sent to a thread of this process. */
extern Int VG_(tkill)(Int lwpid, Int signo);

/* mmap's MAP_SYNC (only with MAP_SHARED_VALIDATE), MAP_HUGETLB and its
 * page size bits (not in Valgrind's vki headers). */
#define HSIN_MAP_SYNC 0x80000
#define HSIN_MAP_HUGETLB 0x40000
#define HSIN_MAP_HUGE_MASK (0x3full << 26)

static Bool hsin_real_fd[HSIN_MAX_FD];  /* opened for real by the rebuild */
/* Regular files the recorded program opened that are not the same now
 * (changed or gone): their paths, said if the program maps one. */
static HChar *hsin_stale[HSIN_MAX_FD];

/* @t's mmap, which the program made MAP_SHARED, made MAP_PRIVATE: the
 * registers it changes (the flags, and those the caller changes then)
 * put back as it returns (hsin_untranslate). */
static void hsin_map_private(struct hsin_thread *t, VexGuestAMD64State *g)
{
	t->sh_flags = t->translated = True;
	t->saved_rdi = g->guest_RDI;
	t->saved_rsi = g->guest_RSI;
	t->saved_r10 = g->guest_R10;
	t->saved_r8 = g->guest_R8;
	t->saved_r9 = g->guest_R9;
	g->guest_R10 = (g->guest_R10 & ~(ULong)(VKI_MAP_SHARED | VKI_MAP_PRIVATE | HSIN_MAP_SYNC)) |
		       VKI_MAP_PRIVATE;
}

/* A kill of the process or of the calling thread itself (@tid): made
 * for real, with this run's ids. One aimed at another thread is not: its
 * signal is sent again at the recorded point in that thread's turn. */
static Bool hsin_kills_itself(ThreadId tid, UInt nr, const VexGuestAMD64State *g)
{
	Long me = hsin_thr(tid)->lwp;

	if (nr == __NR_kill)
		return (Long)g->guest_RDI == hsin_pid;
	if (nr == __NR_tkill)
		return (Long)g->guest_RDI == me;
	if (nr == __NR_tgkill)
		return (Long)g->guest_RDI == hsin_pid && (Long)g->guest_RSI == me;
	return False;
}

/* A clone that makes a thread: the core makes it (hsin_post_syscall). */
static Bool hsin_makes_thread(UInt nr, const VexGuestAMD64State *g)
{
	return nr == __NR_clone && (g->guest_RDI & VKI_CLONE_THREAD);
}

/* What the kernel wrote, in the log before the syscall: kept until the
 * syscall is matched. */
struct hsin_w {
	Addr a;
	SizeT len;
	UChar *bytes;
};

static struct hsin_w *hsin_ws;
static UInt hsin_nws, hsin_cws;

/* ... and what it read of the program's memory (HSIN_READS), checked as
 * the syscall starts. */
static struct hsin_read hsin_rd[HSIN_READS_MAX];
static UInt hsin_nrd;

/* ... and the argument registers Valgrind's wrapper changed (HSIN_ARGS):
 * bit i of the mask, argument i's value as it returned. */
static UInt hsin_args_mask;
static ULong hsin_args_val[6];

static void hsin_gather_writes(void)
{
	for (;;) {
		struct hsin_w *w;

		if (hsin_peek() == HSIN_READS && hsin_rlen >= 16) {
			hsin_nrd = hsin_u32(hsin_rec + 4);
			if (hsin_nrd > HSIN_READS_MAX || hsin_rlen < 16 + 24 * hsin_nrd)
				hsin_diverge("at event %llu: a record of the memory a syscall read "
					     "is cut short or damaged", hsin_events);
			for (UInt i = 0; i < hsin_nrd; i++)
				hsin_rd[i] = (struct hsin_read){ hsin_u64(hsin_rec + 16 + 24 * i),
								 hsin_u64(hsin_rec + 24 + 24 * i),
								 hsin_u64(hsin_rec + 32 + 24 * i) };
			hsin_take();
			continue;
		}
		if (hsin_peek() == HSIN_ARGS && hsin_rlen >= 8) {
			UInt m = hsin_u32(hsin_rec + 4), k = 8;

			if (m >> 6 || hsin_rlen != 8 + 8 * (UInt)__builtin_popcount(m))
				hsin_diverge("at event %llu: a record of a syscall's argument "
					     "registers is damaged", hsin_events);
			for (UInt i = 0; i < 6; i++)
				if (m & (1u << i)) {
					hsin_args_val[i] = hsin_u64(hsin_rec + k);
					k += 8;
				}
			hsin_args_mask = m;
			hsin_take();
			continue;
		}
		if (hsin_peek() != HSIN_MEMW || hsin_rlen < 12)
			break;

		if (hsin_nws == hsin_cws) {
			hsin_cws = hsin_cws ? 2 * hsin_cws : 8;
			hsin_ws = VG_(realloc)("hsin.ws", hsin_ws, hsin_cws * sizeof(*hsin_ws));
		}
		w = &hsin_ws[hsin_nws++];
		w->a = hsin_u64(hsin_rec + 4);
		w->len = hsin_rlen - 12;
		w->bytes = VG_(malloc)("hsin.w", w->len ? w->len : 1);
		VG_(memcpy)(w->bytes, hsin_rec + 12, w->len);
		hsin_take();
	}
}

void hsin_drop_writes(void)
{
	UInt i;

	for (i = 0; i < hsin_nws; i++)
		VG_(free)(hsin_ws[i].bytes);
	hsin_nws = 0;
	hsin_nrd = 0;
	hsin_args_mask = 0;
}

/* The argument registers as the recorded call left them, into @g. */
static void hsin_apply_args(VexGuestAMD64State *g)
{
	for (UInt i = 0; i < 6; i++)
		if (hsin_args_mask & (1u << i))
			*(ULong *)((UChar *)g + hsin_arg_off[i]) = hsin_args_val[i];
	hsin_args_mask = 0;
}

/* The memory the syscall @name at @next - 2 reads is what it was when
 * recorded: the program's output (a write's bytes, a path) is the same,
 * though its registers may be. */
static void hsin_check_reads(const HChar *name, ULong next)
{
	for (UInt i = 0; i < hsin_nrd; i++)
		if (hsin_bytes_hash(hsin_rd[i].a, hsin_rd[i].len) != hsin_rd[i].hash)
			hsin_diverge("at event %llu (%s at %#llx): the program gives the kernel other "
				     "bytes than when recorded (the %llu bytes at %#llx)", hsin_events,
				     name, next - 2, hsin_rd[i].len, hsin_rd[i].a);
	hsin_nrd = 0;
}

/* The frame's writes were logged from the same callbacks, in the same
 * order, as it was written when recorded: each one next in the log whose
 * place is this write's is the recorded bytes (what follows the frame in
 * the log, such as the next syscall's writes, is left there). */
void hsin_frame_write(Addr a, SizeT len)
{
	if (hsin_peek() != HSIN_MEMW || hsin_rlen < 12 || hsin_u64(hsin_rec + 4) != a ||
	    hsin_rlen - 12 != len)
		return;
	VG_(memcpy)((void *)a, hsin_rec + 12, len);
	hsin_take();
}

/* The writes done here, as the kernel did them, and into the stream. */
static void hsin_apply_writes(ThreadId tid, UInt nr)
{
	UInt i;

	for (i = 0; i < hsin_nws; i++) {
		struct hsin_w *w = &hsin_ws[i];
		UChar *old;

		if (!w->len)
			continue;
		if (!VG_(am_is_valid_for_client)(w->a, w->len, VKI_PROT_WRITE))
			hsin_diverge("at event %llu (%s): the kernel wrote %lu bytes at %#lx when "
				     "recorded, which is not writable memory now", hsin_events,
				     hsrec_sys_name(nr), w->len, w->a);
		old = VG_(malloc)("hsin.old", w->len);
		VG_(memcpy)(old, (const void *)w->a, w->len);
		VG_(memcpy)((void *)w->a, w->bytes, w->len);
		hsin_out->memw(tid, w->a, old, w->bytes, w->len);
		VG_(free)(old);
	}
	hsin_drop_writes();
}

static void hsin_closed(ULong fd);

/* The file the recorded program opened as @fd, opened again at that
 * number if it is the same file (a mapping of it reads it); if it is not
 * (changed or gone since), only a mapping of it ends the rebuild: what
 * the program read from it is in the log. */
static void hsin_reopen(void)
{
	struct vg_stat st;
	Bool there;
	HChar path[4097];
	ULong size, mtime, mtime_ns, dev, ino;
	UInt fd, n;
	SysRes sr;

	if (hsin_peek() != HSIN_FILE || hsin_rlen < 44)
		return;
	fd = hsin_u32(hsin_rec);
	dev = hsin_u64(hsin_rec + 4);
	ino = hsin_u64(hsin_rec + 12);
	size = hsin_u64(hsin_rec + 20);
	mtime = hsin_u64(hsin_rec + 28);
	mtime_ns = hsin_u64(hsin_rec + 36);
	n = hsin_rlen - 44 < 4096 ? hsin_rlen - 44 : 4096;
	VG_(memcpy)(path, hsin_rec + 44, n);
	path[n] = 0;
	hsin_take();
	if (fd >= HSIN_MAX_FD)
		return;
	hsin_closed(fd);           /* whatever the number held before */
	sr = VG_(open)(path, VKI_O_RDONLY, 0);
	there = !sr_isError(sr) && VG_(fstat)(sr_Res(sr), &st) == 0;
	if (!there || (ULong)st.size != size || st.mtime != mtime || st.mtime_nsec != mtime_ns ||
	    st.dev != dev || st.ino != ino) {
		HChar kept[4200];
		Bool replaced = !there || st.dev != dev || st.ino != ino;

		if (!sr_isError(sr))
			VG_(close)(sr_Res(sr));
		/* Another file there by now, or none (replaced, as git
		 * replaces its index, or removed): the light run's copy of it,
		 * if it mapped it (named by this identity, and as long). Not
		 * where it is the same file changed in place, which the
		 * program may have seen through its mapping. */
		if (hsin_keep_dir && replaced) {
			hsin_keep_name(kept, dev, ino, size, mtime, mtime_ns);
			sr = VG_(open)(kept, VKI_O_RDONLY, 0);
			if (!sr_isError(sr) && (VG_(fstat)(sr_Res(sr), &st) != 0 ||
						(ULong)st.size != size)) {
				VG_(close)(sr_Res(sr));
				replaced = False;
			}
		}
		if (!hsin_keep_dir || !replaced || sr_isError(sr)) {
			hsin_stale[fd] = VG_(strdup)("hsin.stale", path);
			return;
		}
	}
	if ((UInt)sr_Res(sr) != fd) {
		SysRes d = VG_(dup2)(sr_Res(sr), fd);

		VG_(close)(sr_Res(sr));
		if (sr_isError(d))
			hsin_diverge("at event %llu: cannot open %s again as descriptor %u",
				     hsin_events, path, fd);
	}
	hsin_real_fd[fd] = True;
}

/* The program closed @fd: the rebuild's own copy too. */
static void hsin_closed(ULong fd)
{
	if (fd >= HSIN_MAX_FD)
		return;
	if (hsin_real_fd[fd])
		VG_(close)((Int)fd);
	hsin_real_fd[fd] = False;
	VG_(free)(hsin_stale[fd]);
	hsin_stale[fd] = NULL;
}

/* @fd2 is now what @fd was, for the rebuild's own copies too. */
static void hsin_dup_fd(ULong fd, ULong fd2)
{
	if (fd >= HSIN_MAX_FD || fd2 >= HSIN_MAX_FD || fd == fd2)
		return;
	hsin_closed(fd2);
	if (hsin_real_fd[fd] && !sr_isError(VG_(dup2)((Int)fd, (Int)fd2)))
		hsin_real_fd[fd2] = True;
	else if (hsin_stale[fd])
		hsin_stale[fd2] = VG_(strdup)("hsin.stale", hsin_stale[fd]);
}

/* A completed call that made a descriptor a copy of another (dup, dup2,
 * dup3, fcntl F_DUPFD) or closed a range of them. */
static void hsin_duped(UInt nr, const VexGuestAMD64State *g, Long res)
{
	switch (nr) {
	case __NR_dup:
		hsin_dup_fd(g->guest_RDI, (ULong)res);
		break;
	case __NR_dup2:
	case __NR_dup3:
		hsin_dup_fd(g->guest_RDI, g->guest_RSI);
		break;
	case __NR_fcntl:
		if (g->guest_RSI == VKI_F_DUPFD || g->guest_RSI == VKI_F_DUPFD_CLOEXEC)
			hsin_dup_fd(g->guest_RDI, (ULong)res);
		break;
	case 436:                  /* close_range */
		for (ULong fd = g->guest_RDI; fd <= g->guest_RSI && fd < HSIN_MAX_FD; fd++)
			hsin_closed(fd);
		break;
	default:
		break;
	}
}

/* The recorded signal came as the thread made the syscall ending before
 * @next (and the syscall was made again after the handler): it is sent
 * again, and the thread goes back before the syscall to take it. */
static Bool hsin_signal_at_syscall(VexGuestAMD64State *g, ULong next)
{
	Int sig;

	if (hsin_peek() != HSIN_SIGNAL || hsin_rlen < 24 || hsin_u64(hsin_rec + 16) != hsin_count ||
	    hsin_u64(hsin_rec + 8) != next - 2)
		return False;
	sig = (Int)hsin_u32(hsin_rec + 4);
	hsin_limit = hsin_count;   /* the gate, if the signal was not taken */
	g->guest_RIP = next - 2;
	g->host_EvC_COUNTER = 0;
	if (VG_(tkill)(VG_(gettid)(), sig) != 0)
		hsin_diverge("at event %llu: cannot send signal %d again", hsin_events, sig);
	hsin_deliver = True;
	return True;
}

/* The mask a wait for a signal takes for its own time, where the core
 * can make it as rt_sigsuspend (8 bytes the program can read and write;
 * 0: none): rt_sigsuspend's, ppoll's, pselect6's (its sixth argument
 * points at the mask's address and size), epoll_pwait's. */
static Addr hsin_wait_mask(UInt nr, const VexGuestAMD64State *g)
{
	Addr m = 0;
	ULong len = 0;

	if (nr == __NR_rt_sigsuspend) {
		m = g->guest_RDI;
		len = g->guest_RSI;
	} else if (nr == __NR_ppoll) {
		m = g->guest_R10;
		len = g->guest_R8;
	} else if (nr == __NR_epoll_pwait) {
		m = g->guest_R8;
		len = g->guest_R9;
	} else if (nr == __NR_pselect6 && g->guest_R9 &&
		   VG_(am_is_valid_for_client)(g->guest_R9, 16, VKI_PROT_READ)) {
		m = ((const Addr *)g->guest_R9)[0];
		len = ((const ULong *)g->guest_R9)[1];
	}
	if (!m || len != 8 || !VG_(am_is_valid_for_client)(m, 8, VKI_PROT_READ | VKI_PROT_WRITE))
		return 0;
	return m;
}

/* The syscall @tid makes before @next as recorded (@count: the count as
 * it started): 1 if it is completed from the log (rax and memory set as
 * the kernel did), 0 if the core must make it (checked when it returns). */
static ULong hsin_complete(ThreadId tid, VexGuestAMD64State *g, UInt nr, ULong next, ULong count,
			   Bool now)
{
	struct hsin_thread *t = hsin_thr(tid);
	const HChar *name = hsrec_sys_name(nr);
	Bool itself = hsin_kills_itself(tid, nr, g);
	Addr mask;
	Long res;

	hsin_gather_writes();
	hsin_expect(HSIN_SYSCALL, 96, name);
	if (hsin_u32(hsin_rec + 4) != nr)
		hsin_diverge("at event %llu: the program makes syscall %u where the recording "
			     "has syscall %u", hsin_events, nr, hsin_u32(hsin_rec + 4));
	hsin_check(name, next, hsin_u64(hsin_rec + 64), count, hsin_u64(hsin_rec + 88));
	if (g->guest_RSP != hsin_u64(hsin_rec + 72) || hsin_hash(g) != hsin_u64(hsin_rec + 80))
		hsin_diverge("at event %llu (%s at %#llx): the registers differ from the "
			     "recording's", hsin_events, name, next);
	/* A syscall that waited while others ran, its record read at its
	 * next turn: its memory may have changed since it started. */
	if (count == hsin_count)
		hsin_check_reads(name, next);
	res = (Long)hsin_u64(hsin_rec + 56);
	hsin_take();
	if (nr == HSIN_NR_CLONE3 && res >= 0) {
		hsin_diverge("at event %llu: clone3 made a thread or process when recorded: not "
			     "rebuilt", hsin_events);
	} else if (res == -VKI_EINTR && (now || nr == __NR_rt_sigsuspend) &&
		   hsin_peek() == HSIN_SIGNAL && hsin_rlen >= 24 && hsin_u64(hsin_rec + 8) == next &&
		   hsin_u64(hsin_rec + 16) == hsin_count && (mask = hsin_wait_mask(nr, g)) != 0) {
		/* A wait that a signal ended, under a mask of its own: the
		 * signal is blocked outside it as a rule, and only the call's
		 * mask lets it in. The core makes the call as rt_sigsuspend
		 * with that mask (a ppoll's descriptors are not there to
		 * wait on), the signal sent again (hsin_rebuild_pre), and
		 * Valgrind delivers it as it did when recorded; if the signal
		 * was let in outside too, Valgrind takes it before the call
		 * starts, and the call is taken as made (hsin_signal). (A
		 * wait with no mask, such as pause: completed from the log,
		 * its signal is sent again at the next block's entry, as
		 * after any call a signal interrupted; so is one whose thread
		 * waited in it while others ran, @now false: the core would
		 * have to wait in it, and its signal, if it was let in outside
		 * the call, comes the same way.) */
		t->suspend_sig = (Int)hsin_u32(hsin_rec + 4);
		if (nr != __NR_rt_sigsuspend) {
			t->as_suspend = True;
			t->mask_at = mask;
			t->saved_mask = *(const ULong *)mask;
			t->translated = True;
			t->saved_rdi = g->guest_RDI;
			t->saved_rsi = g->guest_RSI;
			g->guest_RAX = __NR_rt_sigsuspend;
			g->guest_RDI = mask;
			g->guest_RSI = 8;
		}
	} else if (nr == __NR_rt_sigsuspend && res == -VKI_EINTR) {
		hsin_diverge("at event %llu: rt_sigsuspend ended with EINTR when recorded, and no "
			     "signal came then (or its mask is not where the program can write it)",
			     hsin_events);
	} else if (nr == __NR_shmat) {
		hsin_diverge("at event %llu: the program attaches shared memory: not rebuilt",
			     hsin_events);
	} else if (nr == HSIN_NR_IO_URING_SETUP && res >= 0) {
		hsin_diverge("at event %llu: the program sets up io_uring: what the kernel writes "
			     "into its rings is not in the input log: not rebuilt", hsin_events);
	} else if (nr == __NR_mmap && hsin_shared_flags(g->guest_RDX, g->guest_R10) &&
		   (ULong)res < (ULong)-4095) {
		/* Memory another process may write: made private and
		 * anonymous where it was (the core places it there, or the
		 * result differs); what the program reads from it comes from
		 * the log (hsrec_shared.c), and nothing it writes there leaves
		 * the rebuild. */
		t->sh_map = True;
		hsin_map_private(t, g);
		g->guest_RDI = (ULong)res;
		g->guest_R10 = (g->guest_R10 & ~(ULong)(HSIN_MAP_HUGETLB | HSIN_MAP_HUGE_MASK)) |
			       VKI_MAP_ANONYMOUS;
		g->guest_R8 = (ULong)-1;
		g->guest_R9 = 0;
	} else if (nr == __NR_mmap && (g->guest_R10 & VKI_MAP_SHARED) &&
		   (ULong)res < (ULong)-4095) {
		/* Shared and read-only: the same file, private, so that
		 * nothing the rebuild does reaches it (should the program
		 * make it writable). */
		hsin_map_private(t, g);
	}
	if (nr == __NR_mmap && !(g->guest_R10 & VKI_MAP_ANONYMOUS) && g->guest_R8 < HSIN_MAX_FD &&
	    hsin_stale[g->guest_R8])
		hsin_diverge("at event %llu: the program maps %s, which is not the file it was when "
			     "recorded (changed, or gone, since)", hsin_events, hsin_stale[g->guest_R8]);
	if (hsrec_sys_core_does(nr) || itself || hsin_makes_thread(nr, g) || t->suspend_sig) {
		/* The core writes them again: compared when it is done. */
		if (itself) {
			t->translated = True;
			t->saved_rdi = g->guest_RDI;
			t->saved_rsi = g->guest_RSI;
			if (nr == __NR_kill) {
				g->guest_RDI = (ULong)VG_(getpid)();
			} else if (nr == __NR_tgkill) {
				g->guest_RDI = (ULong)VG_(getpid)();
				g->guest_RSI = (ULong)VG_(gettid)();
			} else {
				g->guest_RDI = (ULong)VG_(gettid)();
			}
		}
		t->pending = True;
		t->pending_res = res;
		t->pending_nr = nr;
		return 0;
	}
	hsin_apply_args(g);
	hsin_apply_writes(tid, nr);
	g->guest_RAX = (ULong)res;
	if (hsrec_sys_is_open(nr) && res >= 0)
		hsin_reopen();
	if (nr == __NR_close && res == 0)
		hsin_closed(g->guest_RDI);
	else if (res >= 0)
		hsin_duped(nr, g, res);
	return 1;
}

/* The thread waits in its syscall (a recorded stop where every thread
 * did, or others ran while it did): made now by the core, its record read
 * at its next turn, if the core must make it (hsin_rebuild_post); else it
 * leaves its block, to complete it at its next turn from the log
 * (hsin_stop, hsin_finish). hsin_syscall's 0 or 3. */
static ULong hsin_wait_in(struct hsin_thread *t, VexGuestAMD64State *g, UInt nr, ULong next)
{
	t->sys_count = hsin_count;
	if (nr == __NR_rt_sigsuspend) {
		/* A signal ended it (its only way back while others ran):
		 * the core makes it at the thread's turn, the signal sent
		 * again just before, so that Valgrind delivers it inside the
		 * call with the masks of the recorded run (hsin_rebuild_pre). */
		t->pending = t->turn_first = True;
		t->pending_nr = nr;
		return 0;
	}
	if (hsrec_sys_core_does(nr)) {
		/* The core makes it now (Valgrind lets go of the thread in
		 * it, as when recorded). */
		t->pending = t->deferred = True;
		t->pending_nr = nr;
		return 0;
	}
	t->unfinished = next;
	hsin_limit = hsin_count;
	g->guest_RIP = next;
	g->host_EvC_COUNTER = 0;
	return 3;
}

/* Whether the debugger stopped the recorded run here, every thread
 * waiting in a syscall, this one the last to enter its own
 * (HSIN_HERE_INSIDE): the rebuild stops with the syscall instruction run
 * (or, following the log, goes on when it grows). */
static Bool hsin_inside_here(ThreadId tid, const VexGuestAMD64State *g, ULong next)
{
	if (hsin_peek() != HSIN_HERE || hsin_rlen < 48 ||
	    !(hsin_u32(hsin_rec + 44) & HSIN_HERE_INSIDE) || hsin_u64(hsin_rec + 4) != hsin_count)
		return False;
	if ((Int)hsin_u32(hsin_rec) != hsin_thr(tid)->lwp || hsin_u64(hsin_rec + 12) != next ||
	    g->guest_RSP != hsin_u64(hsin_rec + 20) || hsin_hash(g) != hsin_u64(hsin_rec + 28) ||
	    g->guest_RAX != hsin_u64(hsin_rec + 36))
		hsin_diverge("at event %llu: where the debugger stopped the program when recorded, "
			     "every thread in a syscall (thread %u's at %#llx the last), thread %d "
			     "makes its syscall at %#llx, or its registers differ", hsin_events,
			     hsin_u32(hsin_rec), hsin_u64(hsin_rec + 12) - 2, hsin_thr(tid)->lwp,
			     next - 2);
	/* Following the log: every stop the debugger made here (a second
	 * Ctrl-C before the call returned), each told; then the turn of the
	 * thread that ran next, if another did, as for a thread that waited
	 * while others ran. */
	do {
		hsin_out->here(tid, next, 1, hsin_count);
		if (!hsin_follow)
			VG_(exit)(0);
		hsin_take();
		hsin_arm();
	} while (hsin_peek() == HSIN_HERE && hsin_rlen >= 48 &&
		 (hsin_u32(hsin_rec + 44) & HSIN_HERE_INSIDE) &&
		 hsin_u64(hsin_rec + 4) == hsin_count && hsin_u64(hsin_rec + 12) == next &&
		 (Int)hsin_u32(hsin_rec) == hsin_thr(tid)->lwp);
	if (hsin_turn_here(hsin_count))
		hsin_take_turn();
	return True;
}

/* Called by translated code at a syscall: 1 if it was completed from the
 * log, 0 if the core must do it, 2 if a recorded signal comes first (the
 * thread goes back to the syscall instruction, the signal sent), 3 if
 * the thread waited in it while others ran when recorded (it leaves its
 * block, to complete the syscall at its next turn: hsin_stop). */
ULong hsin_syscall(VexGuestAMD64State *g, ULong next)
{
	ThreadId tid = VG_(get_running_tid)();
	struct hsin_thread *t = hsin_thr(tid);
	UInt nr = (UInt)g->guest_RAX;
	ULong done;

	hsin_at = next - 2;        /* the syscall instruction (0f 05) */
	hsin_at_how = HSREC_DIV_BUT_LAST;
	if (nr == __NR_execve || nr == __NR_execveat) {
		hsin_expect(HSIN_EXEC, 16, "an exec");
		hsin_check("an exec", next, hsin_u64(hsin_rec + 8), hsin_count, hsin_count);
		hsin_take();
		if (hsin_trail && hsin_peek() == HSIN_HELLO)
			hsin_diverge("at event %llu: the run execs another image, whose count of "
				     "superblocks starts again: a rebuild that trails the run "
				     "does not follow it there (the run is rebuilt after it)",
				     hsin_events);
		t->pending = True;     /* its result, if it fails */
		t->pending_nr = nr;
		done = 0;
	} else if (hsin_signal_at_syscall(g, next)) {
		done = 2;
	} else if (hsin_inside_here(tid, g, next)) {
		done = hsin_wait_in(t, g, nr, next);
	} else if (hsin_turn_here(hsin_count)) {
		/* Others ran while it was in the syscall, when recorded. */
		hsin_take_turn();
		done = hsin_wait_in(t, g, nr, next);
	} else {
		done = hsin_complete(tid, g, nr, next, hsin_count, True);
		if (done) {
			hsin_out->dump(tid);
			hsin_arm();
		}
	}
	hsin_at = 0;
	hsin_at_how = HSREC_DIV_FIND;
	return done;
}

/* Rebuild: @tid's turn came back; the syscall it waited in when recorded
 * completes now (or the signal that ended the wait is taken first). */
void hsin_finish(ThreadId tid)
{
	struct hsin_thread *t = hsin_thr(tid);
	VexGuestAMD64State g;
	Addr next = t->unfinished;
	Bool signal;

	t->unfinished = 0;
	hsin_regs(tid, &g);
	hsin_at = next - 2;
	hsin_at_how = HSREC_DIV_BUT_LAST;
	signal = hsin_signal_at_syscall(&g, next);
	if (!signal && !hsin_complete(tid, &g, (UInt)g.guest_RAX, next, t->sys_count, False))
		hsin_diverge("at event %llu: %s waited while other threads ran when recorded; the "
			     "rebuild hands it to Valgrind's core, which cannot wait",
			     hsin_events, hsrec_sys_name((UInt)g.guest_RAX));
	VG_(set_shadow_regs_area)(tid, 0, 0, sizeof(g), (const UChar *)&g);
	if (!signal) {
		hsin_out->dump(tid);
		hsin_arm();
	}
	hsin_at = 0;
	hsin_at_how = HSREC_DIV_FIND;
}

/* --- Threads a clone makes, and syscalls back from the core ------------ */

/* Rebuild: @t ends by its exit call. The kernel clears its word as the
 * thread ends, after Valgrind let go of it: it is cleared here, before,
 * so that the thread whose turn comes next sees it cleared. */
static void hsin_clear_ctid(ThreadId tid, struct hsin_thread *t)
{
	UInt zero = 0, old;

	if (!t->ctid || !VG_(am_is_valid_for_client)(t->ctid, 4, VKI_PROT_WRITE))
		return;
	old = *(const UInt *)t->ctid;
	*(UInt *)t->ctid = 0;
	hsin_out->memw(tid, t->ctid, (const UChar *)&old, (const UChar *)&zero, 4);
}

/* Rebuild: the core made the thread @child (this run's id) that the
 * recording made as its pending result: the program sees the recorded
 * id, in rax and in the words the kernel wrote it to. */
static void hsin_made_thread(ThreadId tid, const UWord *args, Long child)
{
	Long recorded = hsin_thr(tid)->pending_res;
	struct hsin_thread *c;

	if (hsin_child == VG_INVALID_THREADID)
		hsin_diverge("at event %llu: clone made no thread Valgrind knows", hsin_events);
	c = hsin_thr(hsin_child);
	c->lwp = (Int)recorded;
	c->real_lwp = (Int)child;
	c->ctid = (args[0] & VKI_CLONE_CHILD_CLEARTID) ? args[3] : 0;
	hsin_child = VG_INVALID_THREADID;
	hsin_apply_writes(tid, __NR_clone);
	VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX), 8,
				  (const UChar *)&recorded);
	hsin_arm();
}

/* Rebuild: @tid's syscall @nr, handed to the core, is about to be made:
 * an rt_sigsuspend that a signal ended when recorded gets it again now,
 * pending until the call's mask lets it in (at once). */
void hsin_rebuild_pre(ThreadId tid, UInt nr)
{
	struct hsin_thread *t = hsin_thr(tid);
	Int sig;

	if (t->turn_first) {
		/* The others' turns first, then its record (hsin_wait_in). */
		VexGuestAMD64State g;

		t->turn_first = t->pending = False;
		if (!hsin_wait_turn(tid))
			return;            /* the process ends: Valgrind's kill ends it */
		hsin_regs(tid, &g);
		hsin_at = g.guest_RIP - 2;  /* the syscall instruction */
		hsin_at_how = HSREC_DIV_BUT_LAST;
		if (hsin_complete(tid, &g, nr, g.guest_RIP, t->sys_count, False) || !t->suspend_sig)
			hsin_diverge("at event %llu: rt_sigsuspend waited while other threads ran "
				     "when recorded, and no signal ended it then", hsin_events);
		hsin_at = 0;
		hsin_at_how = HSREC_DIV_FIND;
	}
	sig = t->suspend_sig;
	if (!sig || !t->pending || nr != __NR_rt_sigsuspend)
		return;
	t->suspend_sig = 0;
	if (VG_(tkill)(VG_(gettid)(), sig) != 0)
		hsin_diverge("at event %llu: cannot send signal %d again", hsin_events, sig);
	hsin_deliver = True;
	t->suspending = True;
}

/* The argument registers of @t's syscall, handed to the core, as the
 * recorded call left them: the program's where the core made it with
 * others (a kill of itself, a wait made as rt_sigsuspend), then those
 * Valgrind's wrapper changed when recorded (HSIN_ARGS); for the wait,
 * the bytes its mask had, and the writes of the call it made when
 * recorded. */
static void hsin_untranslate(ThreadId tid, struct hsin_thread *t)
{
	VexGuestAMD64State g;

	if (!t->translated && !hsin_args_mask)
		return;
	hsin_regs(tid, &g);
	if (t->translated) {
		g.guest_RDI = t->saved_rdi;
		g.guest_RSI = t->saved_rsi;
	}
	if (t->translated && t->sh_flags) {
		g.guest_R10 = t->saved_r10;
		g.guest_R8 = t->saved_r8;
		g.guest_R9 = t->saved_r9;
	}
	hsin_apply_args(&g);
	VG_(set_shadow_regs_area)(tid, 0, 0, sizeof(g), (const UChar *)&g);
	if (!t->translated)
		return;
	t->translated = False;
	if (t->as_suspend) {
		t->as_suspend = False;
		*(ULong *)t->mask_at = t->saved_mask;   /* no write of the program's */
		hsin_apply_writes(tid, t->pending_nr);
	}
}

/* Rebuild: the signal sent again for @tid's wait (hsin_rebuild_pre) is
 * delivered before the call started, where the recorded run took it
 * inside the call, which then ended with EINTR: the signal was let in
 * outside the call too. Valgrind would make the call again after the
 * handler; it is taken as made instead, as it was when recorded: its
 * result, its writes and the pc after it, which the signal's frame
 * keeps. Called as the signal is delivered, before its frame is built. */
void hsin_wait_taken(ThreadId tid)
{
	struct hsin_thread *t = hsin_thr(tid);
	ULong rip = VG_(get_IP)(tid) + 2, rax = (ULong)t->pending_res;

	t->suspending = False;
	t->pending = False;
	hsin_untranslate(tid, t);
	hsin_apply_writes(tid, t->pending_nr);
	VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX), 8,
				  (const UChar *)&rax);
	VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RIP), 8,
				  (const UChar *)&rip);
}

/* Rebuild: @tid's syscall @nr, handed to the core, returned @r. */
void hsin_rebuild_post(ThreadId tid, UInt nr, const UWord *args, Long r)
{
	struct hsin_thread *t = hsin_thr(tid);
	VexGuestAMD64State g;

	t->suspending = False;
	if (!t->pending)
		return;
	t->pending = False;
	if (t->deferred) {
		/* Other threads' turns came first, when recorded: its own
		 * comes back, then its record is read. */
		t->deferred = False;
		if (!hsin_wait_turn(tid))
			return;
		hsin_regs(tid, &g);
		hsin_at = g.guest_RIP;
		if (hsin_complete(tid, &g, nr, g.guest_RIP, t->sys_count, False) || !t->pending ||
		    t->translated)
			hsin_diverge("at event %llu: %s waited while other threads ran when "
				     "recorded, and the rebuild cannot make it so", hsin_events,
				     hsrec_sys_name(nr));
		t->pending = False;
		hsin_at = 0;
	}
	hsin_untranslate(tid, t);
	if (t->pending_nr == __NR_execve || t->pending_nr == __NR_execveat) {
		hsin_gather_writes();  /* none; what it read is not checked */
		hsin_expect(HSIN_SYSCALL, 96, "a failed exec");
		t->pending_res = (Long)hsin_u64(hsin_rec + 56);
		hsin_take();
	}
	if (t->pending_nr == __NR_clone && r >= 0 && t->pending_res >= 0) {
		hsin_made_thread(tid, args, r);
		return;
	}
	for (UInt i = 0; i < hsin_nws; i++)
		if (!VG_(am_is_valid_for_client)(hsin_ws[i].a, hsin_ws[i].len, VKI_PROT_READ) ||
		    VG_(memcmp)((const void *)hsin_ws[i].a, hsin_ws[i].bytes, hsin_ws[i].len)) {
			hsin_at_how = HSREC_DIV_WHOLE;
			hsin_diverge("at event %llu: %s wrote other bytes at %#lx than when "
				     "recorded (%lu bytes)", hsin_events, hsrec_sys_name(t->pending_nr),
				     hsin_ws[i].a, hsin_ws[i].len);
		}
	hsin_drop_writes();
	if (t->pending_nr == __NR_exit)
		hsin_clear_ctid(tid, t);
	if (t->pending_nr == __NR_set_tid_address) {
		/* The thread's id: the recorded one, as getpid's. */
		t->ctid = args[0];
		VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX),
					  8, (const UChar *)&t->pending_res);
	} else if (r != t->pending_res) {
		hsin_at_how = HSREC_DIV_WHOLE;
		hsin_diverge("at event %llu: %s returned %lld where it returned %lld when "
			     "recorded", hsin_events, hsrec_sys_name(t->pending_nr), r, t->pending_res);
	}
	hsin_arm();
}
