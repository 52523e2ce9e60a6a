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
 *
 * This file is Valgrind's callbacks (mappings, threads and signals, the
 * state outside instructions, a rebuild's window), the start and the end;
 * it calls into hsrec_instr.c (the instrumentation) and hsrec_stream.c
 * (the stream's buffer, below both), hsrec_main_int.h between them, and
 * into hsrec_inputs.c for the light and rebuild modes.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_aspacehl.h"
#include "pub_tool_aspacemgr.h"
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
#include "valgrind.h"

#include "hsrec_inputs.h"
#include "hsrec_main_int.h"
#include "hsrec_proto.h"
#include "hsrec_sys.h"
#include "hsrec_watch.h"

/* Exported by libcoregrind, not declared in the public headers: moves a
 * file descriptor out of the client's range (VALGRIND-NOTES.md). */
extern Int VG_(safe_fd)(Int oldfd);
/* The core's (pub_core_transtab.h): the tool's own wrapper of it asserts
 * it is called from a client request. */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);
/* The core's --trace-children (m_options.c), not in the public headers
 * either: cleared in a forked child, so that what it execs runs natively. */
extern Bool VG_(clo_trace_children);

static const HChar *hs_out_path;
static Int hs_want_pid = -1;
static const HChar *hs_verify_path;
static Bool hs_mem_due;            /* the window opened: memory as it is, at the next start */

static Bool hs_dumped[HS_MAX_TID]; /* its registers are known to hindsight */
static UInt hs_sys_nr[HS_MAX_TID];  /* the syscall it is in, or was last */
static ThreadId hs_last = VG_INVALID_THREADID; /* the thread that ran last */
static Bool hs_stack_sent;         /* this image's initial stack is logged */
static Bool hs_hello_sent;         /* the stream's HELLO is out */

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
 * to the state log: the reader takes it from the images); shared and
 * writable, volatile. */
static void hs_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);

	hs_new_mem(a, len, rr, ww, xx, di);
	/* Memory another process may write: volatile (how 3), whatever
	 * the program writes there. */
	hs_memu(VG_(get_running_tid)(), a, len, hsin_shared_at(a, len) ? 3 :
						seg && seg->kind == SkAnonC ? 1 : 0);
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
	hs_memu(VG_(get_running_tid)(), to, len, hsin_shared_at(from, len) ? 3 : 0);
}

/* --- Threads and signals --------------------------------------------- */

/* HSREC_PAUSE: @tid stopped before @at, @how (hsrec_proto.h). */
static void hs_pause_at(ThreadId tid, Addr at, UInt how)
{
	hs_ctl(HSREC_PAUSE, 16);
	hs_put32(hs_tid(tid));
	hs_put64(at);
	hs_put32(how);
}

/* @between: at a switch, between two of its superblocks. */
static void hs_pause(ThreadId tid, Bool between)
{
	hs_pause_at(tid, VG_(get_IP)(tid), between ? 1 : 0);
}

/* Where the stream stops: @tid before @at, @how; every other thread
 * between two of its superblocks, where it waits. */
static void hs_pause_all(ThreadId tid, Addr at, UInt how)
{
	ThreadId t;

	hs_pause_at(tid, at, how);
	for (t = 1; t < HS_MAX_TID; t++)
		if (hs_lwp[t] && t != tid)
			hs_pause(t, True);
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

VG_REGPARM(0) void hs_clreq(void)
{
	ThreadId tid = VG_(get_running_tid)();

	if (tid < HS_MAX_TID)
		hs_dumped[tid] = False;
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
	Addr stale = hsin_here_retranslate();

	(void)blocks;
	if (stale)
		VG_(discard_translations)(stale, 1, "hsrec: where the debugger stopped the run");
	if (hsin_window_due())
		hs_window_open();
	hsin_stop(tid);
}

static void hs_thread_exit(ThreadId tid)
{
	hsin_thread_exit(tid);
	/* (One the stream never named did not run: a clone that failed
	 * lets go of the thread it was making. hs_tid would name it by the
	 * running thread's id.) */
	if (hs_fd >= 0 && hs_on && tid < HS_MAX_TID && hs_lwp[tid]) {
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
	if (tid < HS_MAX_TID)
		hs_sys_nr[tid] = nr;
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
static void hs_rd_changed(ThreadId tid);

static void hs_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	hsin_post_syscall(tid, nr, args, nargs, res);
	hs_rd_changed(tid);
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

/* Memory a syscall of hsrec_sys_writes_reads reads (Valgrind's wrappers
 * name it), of at most HS_RD_MAX bytes: its old bytes, until the syscall
 * returns. The kernel writes some of it without a write reported (the
 * length getsockname, accept and recvfrom write back): hs_rd_changed logs
 * what changed. Read through /proc/self/mem (hsin_client_read), as the
 * light mode reads: a file mapping past its file's end is no fault. */
#define HS_RD_MAX 4096u
static struct hs_rd { ThreadId tid; Addr a; SizeT len; UChar *old; Bool written; } *hs_rd;
static UInt hs_nrd, hs_crd;        /* (as many as the threads in such calls need) */

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

/* What a syscall reads of the program's memory (its outputs), for the
 * light log (HSIN_READS). */
static void hs_pre_read(CorePart part, ThreadId tid, const HChar *what, Addr a, SizeT len)
{
	UInt i;

	(void)what;
	if (part != Vg_CoreSysCall || !len)
		return;
	hsin_pre_read(tid, a, len);
	if (hs_fd < 0 || !hs_on || len > HS_RD_MAX || tid >= HS_MAX_TID ||
	    !hsrec_sys_writes_reads(hs_sys_nr[tid]))
		return;
	/* (A wrapper reads a length again after the call: its old bytes
	 * are the first read's.) */
	for (i = 0; i < hs_nrd; i++)
		if (hs_rd[i].tid == tid && hs_rd[i].a == a && hs_rd[i].len == len)
			return;
	if (hs_nrd == hs_crd) {
		hs_crd = hs_crd ? 2 * hs_crd : 16;
		hs_rd = VG_(realloc)("hsrec.rd", hs_rd, hs_crd * sizeof(*hs_rd));
	}
	hs_rd[hs_nrd].old = VG_(malloc)("hsrec.rd", len);
	if (hsin_client_read(hs_rd[hs_nrd].old, a, len) != len) {
		VG_(free)(hs_rd[hs_nrd].old);
		return;
	}
	hs_rd[hs_nrd].tid = tid;
	hs_rd[hs_nrd].a = a;
	hs_rd[hs_nrd].len = len;
	hs_rd[hs_nrd].written = False;
	hs_nrd++;
}

/* @tid's syscall returned: what it read and the kernel changed, with no
 * write reported, as MEMW records. */
static void hs_rd_changed(ThreadId tid)
{
	UChar now[HS_RD_MAX];

	for (UInt i = 0; i < hs_nrd; i++)
		if (hs_rd[i].tid == tid && !hs_rd[i].written &&
		    hsin_client_read(now, hs_rd[i].a, hs_rd[i].len) == hs_rd[i].len &&
		    VG_(memcmp)(hs_rd[i].old, now, hs_rd[i].len))
			hs_memw(tid, hs_rd[i].a, hs_rd[i].old, now, hs_rd[i].len);
}

static void hs_pre_read_asciiz(CorePart part, ThreadId tid, const HChar *what, Addr a)
{
	(void)what;
	if (part == Vg_CoreSysCall)
		hsin_pre_read(tid, a, 0);
}

static void hs_post_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
	const UChar *old = NULL;
	UInt i;

	(void)part;
	hsin_post_write(tid, a, len);
	if (hs_fd < 0 || !len)
		return;
	for (i = 0; i < hs_nrd; i++)
		if (hs_rd[i].tid == tid && hs_rd[i].a >= a && hs_rd[i].a + hs_rd[i].len <= a + len)
			hs_rd[i].written = True;
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
 * (the images hold it), the rest (no read access now) unknown, memory
 * shared with other processes volatile. A file
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
		if (hsin_shared_at(seg->start, len)) {
			hs_memu(tid, seg->start, len, 3);    /* another process's too */
			continue;
		}
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
	for (i = 0, k = 0; i < hs_nrd; i++) {
		if (hs_rd[i].tid == tid)
			VG_(free)(hs_rd[i].old);
		else
			hs_rd[k++] = hs_rd[i];
	}
	hs_nrd = k;
}

static void hs_brk_new(Addr a, SizeT len, ThreadId tid)
{
	hsin_brk_moved(a, len, True);
	hs_memu(tid, a, len, 1);
}

static void hs_brk_die(Addr a, SizeT len)
{
	hsin_brk_moved(a, len, False);
	hs_memu(VG_(get_running_tid)(), a, len, 2);
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
	else if VG_BOOL_CLO(arg, "--hsrec-watchable", hs_watchable) {}
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
		    "                           on (a window; before it, only the mappings)\n"
		    "    --hsrec-trail=W        rebuild: the input log grows as it is read (a\n"
		    "                           light run still going); run W superblocks short\n"
		    "                           of its latest tick, then its last W in full\n"
		    "    --hsrec-watchable=yes  light: every memory access checked against the\n"
		    "                           watchpoints of Valgrind's gdbserver [no]\n"
		    "    --hsrec-follow=yes     rebuild: the input log grows as it is read (a live\n"
		    "                           run's); stop at every HSIN_HERE and go on [no]\n"
		    "    --hsrec-stop-at-end=yes  light: stop for Valgrind's gdbserver as the\n"
		    "                           syscall that ends the program starts [no]\n");
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

/* The rebuild came to where a debugger stopped the recorded run (its
 * superblock @count): every thread stands where it is (@how: as
 * hsin_stream's here says), and the stream ends there, the program still
 * running (no HSREC_END), or goes on from there (--hsrec-follow). */
static void hs_here(ThreadId tid, Addr at, UInt how, ULong count)
{
	if (hs_fd < 0)
		return;
	hs_pause_all(tid, at, how);
	hs_ctl(HSREC_HERE, 16);
	hs_put64(count);
	hs_put64(at);
	hs_flush();
	hs_vflush();
}

/* Valgrind's gdbserver hands the tool the monitor commands it does not
 * know itself (serve --record valgrind: `hindsight.here`). */
static Bool hs_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
	if (arg[0] != VG_USERREQ__GDB_MONITOR_COMMAND)
		return False;
	*ret = hsin_monitor(tid, (const HChar *)arg[1]) ? 1 : 0;
	return *ret != 0;
}

/* A debugger wrote into the recorded run there (hsin_stream's poke): the
 * thread stopped inside its superblock for it is paused there (so the
 * write comes after the instructions it ran), written, and goes on. */
static void hs_poke(ThreadId tid, Addr at, UInt how, Addr a, const UChar *old, const UChar *now,
		    SizeT len)
{
	if (hs_fd < 0 || !hs_on)
		return;            /* (before a window: its start's memory has it) */
	hs_pause_at(tid, at, how);
	hs_memw(tid, a, old, now, len);
	if (how >= 2) {
		hs_ctl(HSREC_GOON, 4);
		hs_put32(hs_tid(tid));
	}
}

/* The recorded run ended here, killed between two superblocks
 * (hsin_stream's killed): every thread paused where it stands, and the
 * stream's last record. */
static void hs_killed(ThreadId tid, Addr at)
{
	if (hs_fd < 0)
		return;
	hs_pause_all(tid, at, 1);
	hs_ctl(HSREC_KILLED, 8);
	hs_put64(at);
	hs_flush();
	hs_vflush();
}

static const struct hsin_stream hs_stream = { hs_memw, hs_dump, hs_diverged, hs_here, hs_poke,
					      hs_killed };

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
	if (hs_state || hsin_mode != HSIN_MODE_FULL) {
		/* Every instruction's register writes must stay in the IR the
		 * tool sees: otherwise VEX drops a write that a later one
		 * overwrites (the value between the two would be lost). The
		 * light run and its rebuilds, with or without the state
		 * (--hsrec-state=no: the history only), run the same IR. */
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
	VG_(needs_client_requests)(hs_client_request);
	hs_watch_init();
	VG_(track_new_mem_startup)(hs_new_mem);
	VG_(track_new_mem_mmap)(hs_mmap);
	VG_(track_new_mem_brk)(hs_brk_new);
	VG_(track_die_mem_brk)(hs_brk_die);
	VG_(track_pre_mem_read)(hs_pre_read);
	VG_(track_pre_mem_read_asciiz)(hs_pre_read_asciiz);
	VG_(track_pre_mem_write)(hs_pre_write);
	VG_(track_post_mem_write)(hs_post_write);
	VG_(track_change_mem_mprotect)(hs_map);
	VG_(track_die_mem_munmap)(hs_unmap);
	VG_(track_copy_mem_remap)(hs_remap);
	VG_(track_start_client_code)(hs_start_client);
	VG_(track_stop_client_code)(hs_stop_client);
	VG_(track_pre_thread_ll_create)(hsin_thread_create);
	VG_(track_pre_thread_first_insn)(hsin_thread_first);
	VG_(track_pre_thread_ll_exit)(hs_thread_exit);
	VG_(track_pre_deliver_signal)(hs_signal);
	VG_(atfork)(NULL, NULL, hs_atfork_child);
	/* Chasing merges two conditional branches into one exit: off. */
	VG_(clo_vex_control).guest_chase = False;
}

VG_DETERMINE_INTERFACE_VERSION(hs_pre_clo_init)
