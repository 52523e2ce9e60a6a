/*
 * vgtool/hsrec_main.c: hsrec, the Valgrind tool under hindsight's fast
 * recorder (`hindsight record --record=valgrind`).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the
 * Free Software Foundation; either version 2 of the License, or (at your
 * option) any later version. It links Valgrind's libraries, hence the
 * licence; it is a separate program whose output hindsight reads
 * (vgtool/COPYING, docs/record.md).
 *
 * What it does: every superblock Valgrind translates is described once to
 * hindsight (its instructions' addresses, lengths and bytes, its side
 * exits), and instrumented with inline stores (no helper call): entering
 * it appends its id to a buffer, leaving it through a side exit appends
 * the exit's number. A guarded helper call writes the buffer out when it
 * is nearly full. Thread switches, signal deliveries, executable mappings
 * and the end come from Valgrind's callbacks as control records in the
 * same stream. hindsight turns all this into the same Intel PT bundle
 * the single-stepping recorder writes. Superblock chasing is turned off,
 * so every conditional branch ends a superblock or is a side exit of its
 * own. vgtool/hsrec_proto.h is the stream's format.
 *
 * Options: --hsrec-out=PATH (a FIFO or file to write to), --hsrec-pid=PID
 * (record only in this process: a forked child writes nothing, and what
 * it execs runs natively), --hsrec-verify=PATH (tests: every instruction started, as
 * "tid ip" lines, by a helper call per instruction: the independent
 * address trace the decoded history is compared with).
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_aspacehl.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs.h"
#include "hsrec_proto.h"
#include "hsrec_sys.h"

/* Exported by libcoregrind, not declared in the public headers: moves a
 * file descriptor out of the client's range (VALGRIND-NOTES.md). */
extern Int VG_(safe_fd)(Int oldfd);
/* The core's (pub_core_transtab.h): the tool's own wrapper of it asserts
 * it is called from a client request. */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);
/* The core's --trace-children (m_options.c), not in the public headers
 * either: cleared in a forked child, so that what it execs runs natively. */
extern Bool VG_(clo_trace_children);
/* VEX's own helper (guest_amd64_helpers.c, exported by libvex): the O S Z A
 * C P flags from the lazy flags thunk, as VEX's generated code computes
 * them. */
extern ULong amd64g_calculate_rflags_all(ULong cc_op, ULong cc_dep1, ULong cc_dep2,
					 ULong cc_ndep);

#define HS_BUF (1u << 20)          /* flushed when fuller than this */
#define HS_SLACK (1u << 16)        /* room for one superblock's records (at most
				    * ~60 instructions, each a few registers and
				    * stores of <= 32 bytes: well under this) */
#define HS_VBUF (1u << 16)
#define HS_MAX_TID 4096

static const HChar *hs_out_path;
static Int hs_want_pid = -1;
static const HChar *hs_verify_path;
static Bool hs_verify_regs;        /* the verify lines carry every register */
static Bool hs_state = True;       /* registers and memory, not only control flow */
/* The stream has the instructions and the state (False: a rebuild's
 * window, --hsrec-from, is not open yet: only the mappings go out). */
static Bool hs_on = True;
static Bool hs_mem_due;            /* the window opened: memory as it is, at the next start */

static Int hs_fd = -1;             /* -1: recording nothing */
static Int hs_vfd = -1;
static UInt hs_next_id;
static UChar hs_buf[HS_BUF + HS_SLACK];
/* The write position, read and written by the instrumentation. */
static Addr hs_ptr = (Addr)hs_buf;
static UChar hs_vbuf[HS_VBUF];
static UInt hs_vlen;

static Int hs_lwp[HS_MAX_TID];     /* Valgrind ThreadId -> Linux tid */
static Bool hs_dumped[HS_MAX_TID]; /* its registers are known to hindsight */
static ThreadId hs_last = VG_INVALID_THREADID; /* the thread that ran last */
static Bool hs_stack_sent;         /* this image's initial stack is logged */
static Bool hs_hello_sent;         /* the stream's HELLO is out */

static void hs_write_all(Int fd, const UChar *p, SizeT n)
{
	while (n > 0) {
		Int w = VG_(write)(fd, p, n > 0x40000000 ? 0x40000000 : (Int)n);

		if (w <= 0) {
			VG_(umsg)("hsrec: cannot write the recording (%d); recording stops\n", w);
			VG_(close)(hs_fd);
			hs_fd = -1;
			return;
		}
		p += w;
		n -= (SizeT)w;
	}
}

/* Called from translated code when the buffer is nearly full. */
static VG_REGPARM(0) void hs_flush(void)
{
	SizeT n = hs_ptr - (Addr)hs_buf;

	if (hs_fd >= 0 && n)
		hs_write_all(hs_fd, hs_buf, n);
	hs_ptr = (Addr)hs_buf;
}

static void hs_vflush(void)
{
	if (hs_vfd >= 0 && hs_vlen)
		VG_(write)(hs_vfd, hs_vbuf, hs_vlen);
	hs_vlen = 0;
}

static void hs_verify_line_regs(ThreadId tid);
static Int hs_tid(ThreadId tid);

static VG_REGPARM(1) void hs_verify(Addr ip)
{
	ThreadId tid = VG_(get_running_tid)();

	if (hs_vlen > HS_VBUF - 512)
		hs_vflush();
	hs_vlen += VG_(sprintf)((HChar *)hs_vbuf + hs_vlen, "%d %lx",
				tid < HS_MAX_TID ? hs_tid(tid) : 0, ip);
	if (hs_verify_regs)
		hs_verify_line_regs(tid);
	hs_vbuf[hs_vlen++] = '\n';
}

static void hs_put(const void *p, SizeT n)
{
	VG_(memcpy)((void *)hs_ptr, p, n);
	hs_ptr += n;
}

static void hs_put32(UInt v) { hs_put(&v, 4); }
static void hs_put64(ULong v) { hs_put(&v, 8); }

/* Starts a control record of @len payload bytes, making room for it. */
static void hs_ctl(UInt kind, UInt len)
{
	tl_assert(len <= 0xFFFF);
	if (hs_ptr + 4 + len > (Addr)hs_buf + HS_BUF)
		hs_flush();
	hs_put32(HSREC_CTL | (kind << 16) | len);
}

static Int hs_tid(ThreadId tid)
{
	if (tid >= HS_MAX_TID)
		VG_(tool_panic)("hsrec: more threads than it can name");
	if (!hs_lwp[tid])
		hs_lwp[tid] = hsin_recorded_tid(VG_(gettid)());
	return hs_lwp[tid];
}

/* --- Mappings ------------------------------------------------------- */

static void hs_map(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *name = "";
	ULong off = 0;
	SizeT n;

	if (hs_fd < 0)
		return;
	if (seg && seg->kind == SkFileC) {
		const HChar *f = VG_(am_get_filename)(seg);

		if (f)
			name = f;
		off = seg->offset + (a - seg->start);
	}
	n = VG_(strlen)(name);
	if (n > 4096)
		n = 4096;
	hs_ctl(HSREC_MAP, 28 + n);
	hs_put64(a);
	hs_put64(len);
	hs_put64(off);
	hs_put32((rr ? 1 : 0) | (ww ? 2 : 0) | (xx ? 4 : 0));
	hs_put(name, n);
}

static void hs_new_mem(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	(void)di;
	hs_map(a, len, rr, ww, xx);
}

static void hs_memu(ThreadId tid, Addr a, SizeT len, UInt how);

/* A new mapping: zeros if anonymous, else what the file holds (unknown
 * to the state log: the reader takes it from the images). */
static void hs_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);

	hs_new_mem(a, len, rr, ww, xx, di);
	hs_memu(VG_(get_running_tid)(), a, len, seg && seg->kind == SkAnonC ? 1 : 0);
}

static void hs_unmap(Addr a, SizeT len)
{
	if (hs_fd < 0)
		return;
	hs_ctl(HSREC_UNMAP, 16);
	hs_put64(a);
	hs_put64(len);
	hs_memu(VG_(get_running_tid)(), a, len, 2);
}

static void hs_remap(Addr from, Addr to, SizeT len)
{
	NSegment const *seg = VG_(am_find_nsegment)(to);

	hs_unmap(from, len);
	if (seg)
		hs_map(to, len, seg->hasR, seg->hasW, seg->hasX);
	hs_memu(VG_(get_running_tid)(), to, len, 0);
}

/* --- Threads and signals --------------------------------------------- */

/* @between: at a switch, between two of its superblocks (HSREC_PAUSE). */
static void hs_pause(ThreadId tid, Bool between)
{
	hs_ctl(HSREC_PAUSE, 16);
	hs_put32(hs_tid(tid));
	hs_put64(VG_(get_IP)(tid));
	hs_put32(between ? 1 : 0);
}

static void hs_dump(ThreadId tid);
static void hs_pw_clear(ThreadId tid);
static void hs_initial_stack(ThreadId tid);
static void hs_window_memory(ThreadId tid);
static void hs_window_open(void);

/* @tid runs (from here on, in the stream). */
static void hs_start(ThreadId tid)
{
	if (hs_fd < 0 || !hs_on)
		return;
	if (tid != hs_last) {
		if (hs_last != VG_INVALID_THREADID)
			hs_pause(hs_last, True);
		hs_ctl(HSREC_SWITCH, 4);
		hs_put32(hs_tid(tid));
		hs_last = tid;
	}
	if (tid < HS_MAX_TID && !hs_dumped[tid])
		hs_dump(tid);
	if (!hs_stack_sent && hs_state)
		hs_initial_stack(tid);
	if (hs_mem_due)
		hs_window_memory(tid);
	hs_pw_clear(tid);          /* what a syscall or signal frame wrote is in */
}

/* Valgrind's start_client_code and stop_client_code. */
static void hs_start_client(ThreadId tid, ULong blocks)
{
	(void)blocks;
	if (hsin_start(tid))       /* the rebuild's recorded stack: before the dump */
		hs_start(tid);
}

static void hs_stop_client(ThreadId tid, ULong blocks)
{
	(void)blocks;
	if (hsin_window_due())
		hs_window_open();
	hsin_stop(tid);
}

static void hs_thread_exit(ThreadId tid)
{
	hsin_thread_exit(tid);
	if (hs_fd >= 0 && hs_on) {
		hs_ctl(HSREC_THREAD_EXIT, 12);
		hs_put32(hs_tid(tid));
		hs_put64(VG_(get_IP)(tid));
	}
	if (tid < HS_MAX_TID) {
		hs_lwp[tid] = 0;
		hs_dumped[tid] = False;
	}
	if (tid == hs_last)
		hs_last = VG_INVALID_THREADID;
}

static void hs_signal(ThreadId tid, Int sig, Bool alt)
{
	(void)alt;
	hsin_signal(tid, sig);
	if (hs_fd < 0 || !hs_on)
		return;
	hs_start(tid);
	hs_ctl(HSREC_SIGNAL, 16);
	hs_put32(hs_tid(tid));
	hs_put32((UInt)sig);
	hs_put64(VG_(get_IP)(tid));
	if (tid < HS_MAX_TID)
		hs_dumped[tid] = False;    /* the handler's registers */
}

static void hs_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	hsin_pre_syscall(tid, nr, args, nargs);
	if (nr != __NR_execve && nr != __NR_execveat) {
		if (hsrec_sys_may_wait(nr))
			hs_flush();
		return;
	}
	if (hs_fd >= 0 && hs_on) {
		hs_ctl(HSREC_SYSCALL, 8);
		hs_put32(nr);
		hs_put32(hs_tid(tid));
		hs_flush();
	}
	hs_vflush();
}

static void hs_pw_clear(ThreadId tid);

static void hs_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	hsin_post_syscall(tid, nr, args, nargs, res);
	hs_pw_clear(tid);
	if (tid < HS_MAX_TID)
		hs_dumped[tid] = False;    /* rax, and what the kernel set */
}

/* A forked child is not recorded (hindsight follows the parent): it runs
 * on under Valgrind until it execs, and what it execs runs natively (a
 * compiler's cc1, as and ld under make: all of Valgrind's cost and nothing
 * recorded, otherwise). The recorded process's own execs are still
 * followed: only the child's copy of the option changes. */
static void hs_atfork_child(ThreadId tid)
{
	(void)tid;
	VG_(clo_trace_children) = False;
	hsin_atfork_child();
	if (hs_fd >= 0)
		VG_(close)(hs_fd);
	if (hs_vfd >= 0)
		VG_(close)(hs_vfd);
	hs_fd = hs_vfd = -1;
	hs_ptr = (Addr)hs_buf;
	hs_vlen = 0;
}

/* --- State outside instructions ------------------------------------ */

#define HS_GOFF(f) ((Int)offsetof(VexGuestAMD64State, f))

/* user_regs_struct slots of the general registers, by guest offset. */
static const struct { Int off; UInt slot; } hs_gprs[] = {
	{ HS_GOFF(guest_RAX), 10 }, { HS_GOFF(guest_RCX), 11 }, { HS_GOFF(guest_RDX), 12 },
	{ HS_GOFF(guest_RBX), 5 },  { HS_GOFF(guest_RSP), 19 }, { HS_GOFF(guest_RBP), 4 },
	{ HS_GOFF(guest_RSI), 13 }, { HS_GOFF(guest_RDI), 14 }, { HS_GOFF(guest_R8), 9 },
	{ HS_GOFF(guest_R9), 8 },   { HS_GOFF(guest_R10), 7 },  { HS_GOFF(guest_R11), 6 },
	{ HS_GOFF(guest_R12), 3 },  { HS_GOFF(guest_R13), 2 },  { HS_GOFF(guest_R14), 1 },
	{ HS_GOFF(guest_R15), 0 },  { HS_GOFF(guest_FS_CONST), 21 },
};
#define HS_NGPRS (sizeof(hs_gprs) / sizeof(hs_gprs[0]))
#define HS_SLOT_EFLAGS 18

/* eflags as the CPU shows it, from VEX's thunk and flag words; the inline
 * code computes the same. */
static ULong hs_eflags(const VexGuestAMD64State *g)
{
	return amd64g_calculate_rflags_all(g->guest_CC_OP, g->guest_CC_DEP1, g->guest_CC_DEP2,
					   g->guest_CC_NDEP) |
	       (g->guest_DFLAG & 0x400) | ((g->guest_ACFLAG & 1) << 18) |
	       ((g->guest_IDFLAG & 1) << 21) | 0x202;
}

/* Every general register of @tid, as ptrace would give them. */
static void hs_dump(ThreadId tid)
{
	VexGuestAMD64State g;
	ULong r[HSREC_NGP];
	UInt i;

	if (!hs_on)
		return;
	VG_(get_shadow_regs_area)(tid, (UChar *)&g, 0, 0, sizeof(g));
	VG_(memset)(r, 0, sizeof(r));
	for (i = 0; i < HS_NGPRS; i++)
		r[hs_gprs[i].slot] = *(const ULong *)((const UChar *)&g + hs_gprs[i].off);
	r[15] = ~0ull;             /* orig_rax: not in a syscall */
	r[16] = g.guest_RIP;
	r[17] = 0x33;              /* cs, ss as on x86-64 Linux */
	r[20] = 0x2b;
	r[HS_SLOT_EFLAGS] = hs_eflags(&g);
	r[22] = g.guest_GS_CONST;
	hs_ctl(HSREC_DUMP, 4 + 8 * HSREC_NGP);
	hs_put32(hs_tid(tid));
	hs_put(r, sizeof(r));
	hs_dumped[tid] = True;
}

/* Memory the kernel or Valgrind is about to write (a syscall's output, a
 * signal frame): its old bytes, until it was written. */
#define HS_PW 16
#define HS_PW_MAX (1u << 20)
static struct { ThreadId tid; Addr a; SizeT len; UChar *old; } hs_pw[HS_PW];
static UInt hs_npw;

static void hs_memu(ThreadId tid, Addr a, SizeT len, UInt how)
{
	if (hs_fd < 0 || !hs_on || !len)
		return;
	hs_ctl(HSREC_MEMU, 24);
	hs_put32(hs_tid(tid));
	hs_put64(a);
	hs_put64(len);
	hs_put32(how);
}

static void hs_pre_write(CorePart part, ThreadId tid, const HChar *what, Addr a, SizeT len)
{
	(void)part;
	(void)what;
	if (hs_fd < 0 || !hs_on || hs_npw >= HS_PW || !len || len > HS_PW_MAX ||
	    !VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ))
		return;
	hs_pw[hs_npw].old = VG_(malloc)("hsrec.pw", len);
	VG_(memcpy)(hs_pw[hs_npw].old, (const void *)a, len);
	hs_pw[hs_npw].tid = tid;   /* threads in blocking syscalls overlap */
	hs_pw[hs_npw].a = a;
	hs_pw[hs_npw].len = len;
	hs_npw++;
}

/* MEMW records: @len bytes at @a written for @tid, from @old to @now. */
static void hs_memw(ThreadId tid, Addr a, const UChar *old, const UChar *now, SizeT len)
{
	if (hs_fd < 0 || !hs_on)
		return;
	while (len > 0) {
		SizeT n = len > 30000 ? 30000 : len;

		hs_ctl(HSREC_MEMW, 12 + 2 * n);
		hs_put32(hs_tid(tid));
		hs_put64(a);
		hs_put(old, n);
		hs_put(now, n);
		a += n;
		old += n;
		now += n;
		len -= n;
	}
}

static void hs_post_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
	const UChar *old = NULL;
	UInt i;

	(void)part;
	hsin_post_write(tid, a, len);
	if (hs_fd < 0 || !len)
		return;
	for (i = 0; i < hs_npw && !old; i++)
		if (hs_pw[i].tid == tid && a >= hs_pw[i].a && a + len <= hs_pw[i].a + hs_pw[i].len)
			old = hs_pw[i].old + (a - hs_pw[i].a);
	if (!old || !VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ)) {
		hs_memu(tid, a, len, 0);
		return;
	}
	hs_memw(tid, a, old, (const UChar *)a, len);
}

/* The stack mapping @tid starts on, as Valgrind built it (argc, argv,
 * envp, auxv and the zeros below them), at most its top 256 KiB
 * (hsin_stack_range, which the light mode logs too):
 * as the software recorder logs it at an exec. A debugger reads around the
 * stack pointer in whole lines (LLDB: 512 bytes), and a frame's padding the
 * program never writes would otherwise leave such a line unknown. Sent as
 * a write of the bytes over themselves: before the first instruction there
 * is no earlier value to show. */
static void hs_initial_stack(ThreadId tid)
{
	Addr from, end;

	hs_stack_sent = True;
	if (hsin_stack_range(VG_(get_SP)(tid), &from, &end))
		hs_memw(tid, from, (const UChar *)from, (const UChar *)from, end - from);
}

/* A rebuild's window opens (--hsrec-from): from here the stream has
 * everything, as if the full recorder ran, and the code translated
 * before, which only counts, goes. Called as the thread the gate stopped
 * there leaves client code (stop_client_code): no translation runs, and
 * the scheduler has not looked up the next one yet (it does so before
 * start_client_code, which would run a discarded one once). */
static void hs_window_open(void)
{
	hsin_window_open();
	VG_(discard_translations)(0, ~0ull, "hsrec: the rebuild's window opens");
	hs_on = True;
	hs_stack_sent = True;      /* hs_window_memory has it */
	hs_mem_due = True;
}

static Bool hs_page_zero(Addr p)
{
	const ULong *w = (const ULong *)p;
	UInt i;

	for (i = 0; i < VKI_PAGE_SIZE / sizeof(*w); i++)
		if (w[i])
			return False;
	return True;
}

/* [@a, + @len), readable and page-aligned, as it is: its pages of zeros
 * as such (a thread's stack is mostly untouched), the others' bytes. */
static void hs_window_range(ThreadId tid, Addr a, SizeT len)
{
	Addr p = a, q, end = a + len;

	while (p < end) {
		Bool zero = hs_page_zero(p);

		for (q = p + VKI_PAGE_SIZE; q < end && hs_page_zero(q) == zero; q += VKI_PAGE_SIZE)
			;
		if (zero)
			hs_memu(tid, p, q - p, 1);
		else
			hs_memw(tid, p, (const UChar *)p, (const UChar *)p, q - p);
		p = q;
	}
}

/* The memory the window starts with, sent with the first thread's
 * registers as a write of the bytes over themselves (as the initial
 * stack): every readable client mapping but code mapped from a file
 * (the images hold it), the rest (no read access now) unknown. A file
 * mapping is read only as far as its file goes (a read past its end
 * would fault). */
static void hs_window_memory(ThreadId tid)
{
	Int n = 0, i;
	Addr *starts = VG_(get_segment_starts)(SkFileC | SkAnonC | SkShmC, &n);

	hs_mem_due = False;
	for (i = 0; starts && i < n; i++) {
		NSegment const *seg = VG_(am_find_nsegment)(starts[i]);
		SizeT len, keep;

		if (!seg || seg->start != starts[i])
			continue;
		len = keep = seg->end - seg->start + 1;
		if (seg->kind == SkFileC) {
			const HChar *f = VG_(am_get_filename)(seg);
			struct vg_stat st;

			if (seg->hasX && !seg->hasW)
				continue;
			keep = 0;
			if (f && !sr_isError(VG_(stat)(f, &st)) && (ULong)st.size > (ULong)seg->offset)
				keep = VG_PGROUNDUP((ULong)st.size - (ULong)seg->offset);
			if (keep > len)
				keep = len;
		}
		if (!seg->hasR)
			keep = 0;
		hs_window_range(tid, seg->start, keep);
		hs_memu(tid, seg->start + keep, len - keep, 0);
	}
	if (starts)
		VG_(free)(starts);
}

/* rax rbx rcx rdx rsi rdi rbp rsp r8-r15 eflags fs_base, in hex. */
static void hs_verify_line_regs(ThreadId tid)
{
	VexGuestAMD64State g;
	ULong r[18];
	UInt i;

	VG_(get_shadow_regs_area)(tid, (UChar *)&g, 0, 0, sizeof(g));
	r[0] = g.guest_RAX; r[1] = g.guest_RBX; r[2] = g.guest_RCX; r[3] = g.guest_RDX;
	r[4] = g.guest_RSI; r[5] = g.guest_RDI; r[6] = g.guest_RBP; r[7] = g.guest_RSP;
	r[8] = g.guest_R8; r[9] = g.guest_R9; r[10] = g.guest_R10; r[11] = g.guest_R11;
	r[12] = g.guest_R12; r[13] = g.guest_R13; r[14] = g.guest_R14; r[15] = g.guest_R15;
	r[16] = hs_eflags(&g);
	r[17] = g.guest_FS_CONST;
	for (i = 0; i < 18; i++)
		hs_vlen += VG_(sprintf)((HChar *)hs_vbuf + hs_vlen, " %llx", r[i]);
}

/* @tid's syscall or signal frame is done: its old bytes go. */
static void hs_pw_clear(ThreadId tid)
{
	UInt i, k = 0;

	for (i = 0; i < hs_npw; i++) {
		if (hs_pw[i].tid == tid)
			VG_(free)(hs_pw[i].old);
		else
			hs_pw[k++] = hs_pw[i];
	}
	hs_npw = k;
}

static void hs_brk_new(Addr a, SizeT len, ThreadId tid)
{
	hs_memu(tid, a, len, 1);
}

static void hs_brk_die(Addr a, SizeT len)
{
	hs_memu(VG_(get_running_tid)(), a, len, 2);
}

/* --- Instrumentation ------------------------------------------------- */

static IRExpr *hs_u32(UInt v) { return IRExpr_Const(IRConst_U32(v)); }
static IRExpr *hs_u64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

static IRTemp hs_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return t;
}

/* Appends @word to the buffer if @guard (NULL: always); then, if @check,
 * writes the buffer out when it is past HS_BUF. */
static void hs_emit(IRSB *sb, UInt word, IRExpr *guard, Bool check)
{
	IRTemp p = hs_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hs_u64((Addr)&hs_ptr)));
	IRTemp p2;

	if (guard) {
		IRTemp one = hs_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64, guard));
		IRTemp inc = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(one),
							      IRExpr_Const(IRConst_U8(2))));

		addStmtToIRSB(sb, IRStmt_StoreG(Iend_LE, IRExpr_RdTmp(p), hs_u32(word), guard));
		p2 = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
						      IRExpr_RdTmp(inc)));
	} else {
		addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p), hs_u32(word)));
		p2 = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p), hs_u64(4)));
	}
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, hs_u64((Addr)&hs_ptr), IRExpr_RdTmp(p2)));
	if (check) {
		IRTemp full = hs_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U,
			hs_u64((Addr)hs_buf + HS_BUF), IRExpr_RdTmp(p2)));
		IRDirty *d = unsafeIRDirty_0_N(0, "hs_flush", VG_(fnptr_to_fnentry)(hs_flush),
					       mkIRExprVec_0());

		d->guard = IRExpr_RdTmp(full);
		d->mFx = Ifx_Modify;
		d->mAddr = hs_u64((Addr)&hs_ptr);
		d->mSize = 8;
		addStmtToIRSB(sb, IRStmt_Dirty(d));
	}
}

/* Describes @in to hindsight: a BLOCK record. */
static void hs_describe(IRSB *in, UInt id)
{
	UInt ninsn = 0, nexit = 0, nbytes = 0, len, idx = 0;
	Bool seen = False;
	Int i;

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0) {
			ninsn++;
			nbytes += st->Ist.IMark.len;
			seen = True;
		} else if (st->tag == Ist_Exit && seen) {
			nexit++;
		}
	}
	len = 12 + ninsn * 9 + nexit * 12 + nbytes;
	if (len > 0xFFFF)
		VG_(tool_panic)("hsrec: a superblock too large to describe");
	hs_ctl(HSREC_BLOCK, len);
	hs_put32(id);
	hs_put32(ninsn);
	hs_put32(nexit);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0) {
			UChar l = (UChar)st->Ist.IMark.len;

			hs_put64(st->Ist.IMark.addr);
			hs_put(&l, 1);
		}
	}
	seen = False;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0) {
			if (seen)
				idx++;
			seen = True;
		} else if (st->tag == Ist_Exit && seen) {
			hs_put32(idx);
			hs_put64(st->Ist.Exit.dst->Ico.U64);
		}
	}
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0)
			hs_put((const void *)(Addr)st->Ist.IMark.addr, st->Ist.IMark.len);
	}
}

/* A value to append: an atom of type @ty. */
struct hs_val {
	IRExpr *e;
	IRType ty;
};

/* Appends @word and @nv values to the buffer, unconditionally (the check
 * at the superblock's entry left room for its records). */
static void hs_emit_rec(IRSB *sb, UInt word, const struct hs_val *v, UInt nv)
{
	IRTemp p = hs_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hs_u64((Addr)&hs_ptr)));
	UInt off = 4, i;
	IRTemp p2;

	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p), hs_u32(word)));
	for (i = 0; i < nv; i++) {
		IRTemp a = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
							    hs_u64(off)));

		addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(a), v[i].e));
		off += sizeofIRType(v[i].ty);
	}
	p2 = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p), hs_u64(off)));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, hs_u64((Addr)&hs_ptr), IRExpr_RdTmp(p2)));
}

static UInt hs_st_word(UInt kind, UInt insn, UInt arg)
{
	return HSREC_ST | (kind << 24) | ((insn & 0xFFFF) << 8) | (arg & 0xFF);
}

static IRExpr *hs_get(IRSB *sb, Int off)
{
	return IRExpr_RdTmp(hs_tmp(sb, Ity_I64, IRExpr_Get(off, Ity_I64)));
}

/* What an instruction changed in the guest state, so far. */
struct hs_touch {
	UInt slots;                /* user_regs slots of general registers */
	Bool flags;
};

static Bool hs_overlap(Int a, Int alen, Int b, Int blen)
{
	return a < b + blen && b < a + alen;
}

static void hs_touch(struct hs_touch *t, Int off, Int len)
{
	UInt i;

	for (i = 0; i < HS_NGPRS; i++)
		if (hs_overlap(off, len, hs_gprs[i].off, 8))
			t->slots |= 1u << hs_gprs[i].slot;
	if (hs_overlap(off, len, HS_GOFF(guest_CC_OP), 32) ||
	    hs_overlap(off, len, HS_GOFF(guest_DFLAG), 8) ||
	    hs_overlap(off, len, HS_GOFF(guest_ACFLAG), 8) ||
	    hs_overlap(off, len, HS_GOFF(guest_IDFLAG), 8))
		t->flags = True;
}

/* The registers instruction @insn changed, as they are now. */
static void hs_emit_regs(IRSB *sb, UInt insn, const struct hs_touch *t)
{
	struct hs_val v;
	UInt i;

	for (i = 0; i < HS_NGPRS; i++) {
		if (!(t->slots & (1u << hs_gprs[i].slot)))
			continue;
		v.e = hs_get(sb, hs_gprs[i].off);
		v.ty = Ity_I64;
		hs_emit_rec(sb, hs_st_word(HSREC_ST_REG, insn, hs_gprs[i].slot), &v, 1);
	}
	if (t->flags) {
		IRTemp f, df, ac, id, x, y, z;

		f = hs_tmp(sb, Ity_I64, mkIRExprCCall(Ity_I64, 0, "amd64g_calculate_rflags_all",
			&amd64g_calculate_rflags_all,
			mkIRExprVec_4(hs_get(sb, HS_GOFF(guest_CC_OP)),
				      hs_get(sb, HS_GOFF(guest_CC_DEP1)),
				      hs_get(sb, HS_GOFF(guest_CC_DEP2)),
				      hs_get(sb, HS_GOFF(guest_CC_NDEP)))));
		df = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, hs_get(sb, HS_GOFF(guest_DFLAG)),
						      hs_u64(0x400)));
		ac = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, hs_get(sb, HS_GOFF(guest_ACFLAG)),
						      hs_u64(1)));
		id = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, hs_get(sb, HS_GOFF(guest_IDFLAG)),
						      hs_u64(1)));
		ac = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(ac),
						      IRExpr_Const(IRConst_U8(18))));
		id = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(id),
						      IRExpr_Const(IRConst_U8(21))));
		x = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(f), IRExpr_RdTmp(df)));
		y = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(ac), IRExpr_RdTmp(id)));
		z = hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(x), IRExpr_RdTmp(y)));
		v.e = IRExpr_RdTmp(hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(z),
								     hs_u64(0x202))));
		v.ty = Ity_I64;
		hs_emit_rec(sb, hs_st_word(HSREC_ST_REG, insn, HS_SLOT_EFLAGS), &v, 1);
	}
}

static void hs_emit_unknown(IRSB *sb, UInt insn, IRExpr *addr, IRExpr *len)
{
	struct hs_val v[2] = { { addr, Ity_I64 }, { len, Ity_I64 } };

	hs_emit_rec(sb, hs_st_word(HSREC_ST_UNKNOWN, insn, 0), v, 2);
}

/* A store of @data at @addr by instruction @insn: its old and new bytes,
 * before it happens. */
static void hs_emit_store(IRSB *sb, UInt insn, IRExpr *addr, IRExpr *data)
{
	IRType ty = typeOfIRExpr(sb->tyenv, data);
	Int size = sizeofIRType(ty);
	struct hs_val v[3];

	if (size <= 0 || size > 32 || ty == Ity_I1) {
		hs_emit_unknown(sb, insn, addr, hs_u64(size > 0 ? (ULong)size : 64));
		return;
	}
	v[0].e = addr;
	v[0].ty = Ity_I64;
	v[1].e = IRExpr_RdTmp(hs_tmp(sb, ty, IRExpr_Load(Iend_LE, ty, addr)));
	v[1].ty = ty;
	v[2].e = data;
	v[2].ty = ty;
	hs_emit_rec(sb, hs_st_word(HSREC_ST_STORE, insn, (UInt)size), v, 3);
}

/* After a compare-and-swap: the old value it returned and what is there
 * now (unchanged if the comparison failed). */
static void hs_emit_cas(IRSB *sb, UInt insn, const IRCAS *c)
{
	IRType ty = typeOfIRTemp(sb->tyenv, c->oldLo);
	Int size = sizeofIRType(ty);
	struct hs_val v[3];
	Int half;

	for (half = 0; half < (c->oldHi == IRTemp_INVALID ? 1 : 2); half++) {
		IRExpr *a = c->addr;

		if (half)
			a = IRExpr_RdTmp(hs_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, c->addr,
									hs_u64(size))));
		v[0].e = a;
		v[0].ty = Ity_I64;
		v[1].e = IRExpr_RdTmp(half ? c->oldHi : c->oldLo);
		v[1].ty = ty;
		v[2].e = IRExpr_RdTmp(hs_tmp(sb, ty, IRExpr_Load(Iend_LE, ty, a)));
		v[2].ty = ty;
		hs_emit_rec(sb, hs_st_word(HSREC_ST_STORE, insn, (UInt)size), v, 3);
	}
}

static void hs_emit_dirty(IRSB *sb, UInt insn, const IRDirty *d, struct hs_touch *t)
{
	Int i;

	if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
		hs_emit_unknown(sb, insn, d->mAddr, hs_u64((ULong)d->mSize));
	for (i = 0; i < d->nFxState; i++)
		if (d->fxState[i].fx != Ifx_Read && d->fxState[i].fx != Ifx_None)
			hs_touch(t, d->fxState[i].offset, d->fxState[i].size +
				 d->fxState[i].nRepeats * d->fxState[i].repeatLen);
}

/* Tests: the instruction of @imark starts (the verify trace). */
static void hs_add_verify(IRSB *out, const IRStmt *imark)
{
	IRDirty *d;

	if (hs_vfd < 0)
		return;
	d = unsafeIRDirty_0_N(1, "hs_verify", VG_(fnptr_to_fnentry)(hs_verify),
			      mkIRExprVec_1(hs_u64(imark->Ist.IMark.addr)));
	if (hs_verify_regs) {
		/* The registers must be in the guest state for it. */
		d->nFxState = 1;
		d->fxState[0].fx = Ifx_Read;
		d->fxState[0].offset = HS_GOFF(guest_RAX);
		d->fxState[0].size = HS_GOFF(guest_FS_CONST) + 8 - HS_GOFF(guest_RAX);
		d->fxState[0].nRepeats = 0;
		d->fxState[0].repeatLen = 0;
	}
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* The address of @in's first instruction. */
static Addr hs_first_ip(const IRSB *in)
{
	Int i;

	for (i = 0; i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_IMark)
			return (Addr)in->stmts[i]->Ist.IMark.addr;
	return 0;
}

static IRSB *hs_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	struct hs_touch touch = { 0, False };
	Bool rec = hs_fd >= 0 && hs_on, st = rec && hs_state;
	IRSB *out;
	UInt id, nexit = 0, insn = 0;
	Bool seen = False;
	Int i;

	(void)closure;
	(void)vge;
	(void)archinfo_host;
	(void)gWordTy;
	(void)hWordTy;
	hsin_instrument_in(in);
	if (hsin_mode == HSIN_MODE_LIGHT || (hsin_mode == HSIN_MODE_REBUILD && !hs_on)) {
		/* The light run, and a rebuild before its window: the count,
		 * the gate and the syscalls only. */
		out = deepCopyIRSBExceptStmts(in);
		hsin_instrument_entry(out, hs_first_ip(in));
		for (i = 0; i < in->stmts_used; i++) {
			addStmtToIRSB(out, in->stmts[i]);
			if (in->stmts[i]->tag == Ist_IMark && in->stmts[i]->Ist.IMark.len > 0)
				hs_add_verify(out, in->stmts[i]);
		}
		hsin_instrument_out(out, in, layout);
		return out;
	}
	if (!rec && hs_vfd < 0)
		return in;
	id = hs_next_id++;
	if (id >= HSREC_EXIT_BIT)
		VG_(tool_panic)("hsrec: out of superblock ids");
	if (rec)
		hs_describe(in, id);
	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *s = in->stmts[i];

		if (!seen) {
			addStmtToIRSB(out, s);
			if (s->tag == Ist_IMark && s->Ist.IMark.len > 0) {
				seen = True;
				/* Before the block's id: a rebuild that stops
				 * at its gate stops with the block before it
				 * run whole (HSREC_DIV_WHOLE). */
				hsin_instrument_entry(out, s->Ist.IMark.addr);
				if (rec)
					hs_emit(out, id, NULL, True);
				goto verify;
			}
			continue;
		}
		switch (s->tag) {
		case Ist_IMark:
			if (s->Ist.IMark.len == 0)
				break;
			if (st && (touch.slots || touch.flags))
				hs_emit_regs(out, insn, &touch);
			touch.slots = 0;
			touch.flags = False;
			insn++;
			addStmtToIRSB(out, s);
			goto verify;
		case Ist_Put:
			hs_touch(&touch, s->Ist.Put.offset,
				 sizeofIRType(typeOfIRExpr(in->tyenv, s->Ist.Put.data)));
			break;
		case Ist_PutI:
			break;
		case Ist_Store:
			if (st)
				hs_emit_store(out, insn, s->Ist.Store.addr, s->Ist.Store.data);
			break;
		case Ist_StoreG:
			if (st)
				hs_emit_unknown(out, insn, s->Ist.StoreG.details->addr,
					hs_u64((ULong)sizeofIRType(typeOfIRExpr(in->tyenv,
						s->Ist.StoreG.details->data))));
			break;
		case Ist_CAS:
			addStmtToIRSB(out, s);
			if (st)
				hs_emit_cas(out, insn, s->Ist.CAS.details);
			continue;
		case Ist_Dirty:
			if (st)
				hs_emit_dirty(out, insn, s->Ist.Dirty.details, &touch);
			break;
		case Ist_Exit:
			if (st && (touch.slots || touch.flags))
				hs_emit_regs(out, insn, &touch);
			if (nexit >= HSREC_MAX_EXITS)
				VG_(tool_panic)("hsrec: too many side exits");
			if (rec)
				hs_emit(out, HSREC_EXIT_BIT | nexit, s->Ist.Exit.guard, False);
			nexit++;
			break;
		default:
			break;
		}
		addStmtToIRSB(out, s);
		continue;
verify:
		hs_add_verify(out, s);
	}
	if (st && (touch.slots || touch.flags))
		hs_emit_regs(out, insn, &touch);
	hsin_instrument_out(out, in, layout);
	return out;
}

/* --- Start and end --------------------------------------------------- */

static Bool hs_option(const HChar *arg)
{
	const HChar *s;

	Long pid;

	if (hsin_option(arg))
		return True;
	if VG_STR_CLO(arg, "--hsrec-out", s)
		hs_out_path = s;
	else if VG_INT_CLO(arg, "--hsrec-pid", pid)
		hs_want_pid = (Int)pid;
	else if VG_STR_CLO(arg, "--hsrec-verify", s)
		hs_verify_path = s;
	else if VG_BOOL_CLO(arg, "--hsrec-verify-regs", hs_verify_regs) {}
	else if VG_BOOL_CLO(arg, "--hsrec-state", hs_state) {}
	else
		return False;
	return True;
}

static void hs_usage(void)
{
	VG_(printf)("    --hsrec-out=PATH       where the recording stream goes\n"
		    "    --hsrec-pid=PID        record only in process PID\n"
		    "    --hsrec-verify=PATH    every instruction started, as text (tests)\n"
		    "    --hsrec-verify-regs=no|yes  ... with the general registers before it\n"
		    "    --hsrec-state=yes|no   registers and memory writes too [yes]\n"
		    "    --hsrec-mode=full|light|rebuild  everything; only the inputs; or the\n"
		    "                           rebuild of everything from them [full]\n"
		    "    --hsrec-in=PATH        the rebuild's input log\n"
		    "    --hsrec-from=N         rebuild: everything only from the N-th superblock\n"
		    "                           on (a window; before it, only the mappings)\n");
}

static void hs_debug_usage(void)
{
}

/* The rebuild cannot go on: the thread that ran last stopped where it
 * is, and the stream says why and ends. */
static void hs_diverged(const HChar *text, Addr at, UInt how)
{
	SizeT n = VG_(strlen)(text);
	ThreadId tid = hs_last != VG_INVALID_THREADID ? hs_last : VG_(get_running_tid)();

	if (hs_fd < 0)
		return;
	if (n > 4000)
		n = 4000;
	if (!hs_hello_sent) {
		/* Stopped before it started (hsin_init): a stream still. */
		const HChar *exe = VG_(args_the_exename) ? VG_(args_the_exename) : "";
		SizeT k = VG_(strlen)(exe) < 4000 ? VG_(strlen)(exe) : 4000;

		hs_ctl(HSREC_HELLO, 8 + k);
		hs_put32(HSREC_VERSION);
		hs_put32((UInt)VG_(getpid)());
		hs_put(exe, k);
		hs_hello_sent = True;
	}
	hs_ctl(HSREC_DIVERGED, 16 + n);
	if (tid == VG_INVALID_THREADID || !hs_on) {
		/* Before any thread ran (the rebuild's start, or its window's):
		 * no place in a history. */
		hs_put32((UInt)VG_(getpid)());
		hs_put32(HSREC_DIV_FIND);
		hs_put64(0);
	} else {
		hs_put32(hs_tid(tid));
		hs_put32(how);
		hs_put64(at ? at : VG_(get_IP)(tid));
	}
	hs_put(text, n);
	hs_flush();
	hs_vflush();
}

static const struct hsin_stream hs_stream = { hs_memw, hs_dump, hs_diverged };

static void hs_post_clo_init(void)
{
	HChar exe[4096];
	Int pid = VG_(getpid)();
	SizeT n = 0;
	SysRes sr;

	if (!hs_out_path)
		VG_(fmsg_bad_option)("--hsrec-out", "hsrec needs --hsrec-out=PATH\n");
	if (hs_want_pid >= 0 && pid != hs_want_pid)
		return;                    /* a forked child that exec'd */
	if (VG_(args_the_exename))
		n = VG_(strlen)(VG_(args_the_exename));
	if (n >= sizeof(exe))
		n = sizeof(exe) - 1;
	if (n)
		VG_(memcpy)(exe, VG_(args_the_exename), n);
	exe[n] = 0;
	if (hs_state || hsin_mode == HSIN_MODE_LIGHT) {
		/* Every instruction's register writes must stay in the IR the
		 * tool sees: otherwise VEX drops a write that a later one
		 * overwrites (the value between the two would be lost). */
		VG_(clo_vex_control).iropt_register_updates_default = VexRegUpdAllregsAtEachInsn;
		VG_(clo_px_file_backed) = VexRegUpdAllregsAtEachInsn;
	}
	if (hs_verify_path) {
		sr = VG_(open)(hs_verify_path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_APPEND, 0644);
		if (!sr_isError(sr))
			hs_vfd = VG_(safe_fd)(sr_Res(sr));
	}
	if (hsin_mode == HSIN_MODE_LIGHT) {
		/* Only the inputs: no stream, no state. */
		hsin_init(hs_out_path, &hs_stream, pid, exe);
		return;
	}
	sr = VG_(open)(hs_out_path, VKI_O_WRONLY, 0);
	if (sr_isError(sr)) {
		VG_(umsg)("hsrec: cannot open %s; nothing is recorded\n", hs_out_path);
		return;
	}
	hs_fd = VG_(safe_fd)(sr_Res(sr));
	hs_on = !hsin_window_shut();
	hsin_init(hs_out_path, &hs_stream, pid, exe);
	hs_ctl(HSREC_HELLO, 8 + n);
	hs_put32(HSREC_VERSION);
	hs_put32((UInt)hsin_recorded_tid(pid));
	hs_put(exe, n);
	hs_hello_sent = True;
}

static void hs_fini(Int exitcode)
{
	ThreadId tid;

	hsin_fini(exitcode);
	if (hs_fd >= 0) {
		/* The one that ran last may have stopped inside a superblock
		 * (a fatal fault); the others were switched away from. */
		if (hs_last != VG_INVALID_THREADID)
			hs_pause(hs_last, False);
		for (tid = 1; tid < HS_MAX_TID && hs_on; tid++)
			if (hs_lwp[tid] && tid != hs_last)
				hs_pause(tid, True);
		hs_ctl(HSREC_END, 4);
		hs_put32((UInt)exitcode);
		hs_flush();
	}
	hs_vflush();
}

static void hs_pre_clo_init(void)
{
	VG_(details_name)("hsrec");
	VG_(details_version)(NULL);
	VG_(details_description)("hindsight's recorder");
	VG_(details_copyright_author)("Copyright (C) 2026 the hindsight authors; GPL-2.0-or-later.");
	VG_(details_bug_reports_to)("the hindsight project");
	VG_(details_avg_translation_sizeB)(275);

	VG_(basic_tool_funcs)(hs_post_clo_init, hs_instrument, hs_fini);
	VG_(needs_command_line_options)(hs_option, hs_usage, hs_debug_usage);
	VG_(needs_syscall_wrapper)(hs_pre_syscall, hs_post_syscall);
	VG_(track_new_mem_startup)(hs_new_mem);
	VG_(track_new_mem_mmap)(hs_mmap);
	VG_(track_new_mem_brk)(hs_brk_new);
	VG_(track_die_mem_brk)(hs_brk_die);
	VG_(track_pre_mem_write)(hs_pre_write);
	VG_(track_post_mem_write)(hs_post_write);
	VG_(track_change_mem_mprotect)(hs_map);
	VG_(track_die_mem_munmap)(hs_unmap);
	VG_(track_copy_mem_remap)(hs_remap);
	VG_(track_start_client_code)(hs_start_client);
	VG_(track_stop_client_code)(hs_stop_client);
	VG_(track_pre_thread_ll_create)(hsin_thread_create);
	VG_(track_pre_thread_ll_exit)(hs_thread_exit);
	VG_(track_pre_deliver_signal)(hs_signal);
	VG_(atfork)(NULL, NULL, hs_atfork_child);
	/* Chasing merges two conditional branches into one exit: off. */
	VG_(clo_vex_control).guest_chase = False;
}

VG_DETERMINE_INTERFACE_VERSION(hs_pre_clo_init)
