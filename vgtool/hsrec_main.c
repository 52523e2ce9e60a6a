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
 * (record only in this process: a forked child, or what it execs, writes
 * nothing), --hsrec-verify=PATH (tests: every instruction started, as
 * "tid ip" lines, by a helper call per instruction: the independent
 * address trace the decoded history is compared with).
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
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

#include "hsrec_proto.h"

/* Exported by libcoregrind, not declared in the public headers: moves a
 * file descriptor out of the client's range (VALGRIND-NOTES.md). */
extern Int VG_(safe_fd)(Int oldfd);

#define HS_BUF (1u << 20)          /* flushed when fuller than this */
#define HS_SLACK (1u << 16)        /* room for one superblock's records */
#define HS_VBUF (1u << 16)
#define HS_MAX_TID 4096

static const HChar *hs_out_path;
static Int hs_want_pid = -1;
static const HChar *hs_verify_path;

static Int hs_fd = -1;             /* -1: recording nothing */
static Int hs_vfd = -1;
static UInt hs_next_id;
static UChar hs_buf[HS_BUF + HS_SLACK];
/* The write position, read and written by the instrumentation. */
static Addr hs_ptr = (Addr)hs_buf;
static UChar hs_vbuf[HS_VBUF];
static UInt hs_vlen;

static Int hs_lwp[HS_MAX_TID];     /* Valgrind ThreadId -> Linux tid */
static ThreadId hs_last = VG_INVALID_THREADID; /* the thread that ran last */

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

static VG_REGPARM(1) void hs_verify(Addr ip)
{
	ThreadId tid = VG_(get_running_tid)();

	if (hs_vlen > HS_VBUF - 64)
		hs_vflush();
	hs_vlen += VG_(sprintf)((HChar *)hs_vbuf + hs_vlen, "%d %lx\n",
				tid < HS_MAX_TID ? hs_lwp[tid] : 0, ip);
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
		hs_lwp[tid] = VG_(gettid)();
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

static void hs_unmap(Addr a, SizeT len)
{
	if (hs_fd < 0)
		return;
	hs_ctl(HSREC_UNMAP, 16);
	hs_put64(a);
	hs_put64(len);
}

static void hs_remap(Addr from, Addr to, SizeT len)
{
	NSegment const *seg = VG_(am_find_nsegment)(to);

	hs_unmap(from, len);
	if (seg)
		hs_map(to, len, seg->hasR, seg->hasW, seg->hasX);
}

/* --- Threads and signals --------------------------------------------- */

static void hs_pause(ThreadId tid)
{
	hs_ctl(HSREC_PAUSE, 12);
	hs_put32(hs_tid(tid));
	hs_put64(VG_(get_IP)(tid));
}

static void hs_start(ThreadId tid, ULong blocks)
{
	(void)blocks;
	if (hs_fd < 0 || tid == hs_last)
		return;
	if (hs_last != VG_INVALID_THREADID)
		hs_pause(hs_last);
	hs_ctl(HSREC_SWITCH, 4);
	hs_put32(hs_tid(tid));
	hs_last = tid;
}

static void hs_thread_exit(ThreadId tid)
{
	if (hs_fd >= 0) {
		hs_ctl(HSREC_THREAD_EXIT, 12);
		hs_put32(hs_tid(tid));
		hs_put64(VG_(get_IP)(tid));
	}
	if (tid < HS_MAX_TID)
		hs_lwp[tid] = 0;
	if (tid == hs_last)
		hs_last = VG_INVALID_THREADID;
}

static void hs_signal(ThreadId tid, Int sig, Bool alt)
{
	(void)alt;
	if (hs_fd < 0)
		return;
	hs_start(tid, 0);
	hs_ctl(HSREC_SIGNAL, 16);
	hs_put32(hs_tid(tid));
	hs_put32((UInt)sig);
	hs_put64(VG_(get_IP)(tid));
}

static void hs_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	(void)args;
	(void)nargs;
	if (nr != __NR_execve && nr != __NR_execveat)
		return;
	if (hs_fd >= 0) {
		hs_ctl(HSREC_SYSCALL, 8);
		hs_put32(nr);
		hs_put32(hs_tid(tid));
		hs_flush();
	}
	hs_vflush();
}

static void hs_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	(void)tid;
	(void)nr;
	(void)args;
	(void)nargs;
	(void)res;
}

/* A forked child is not recorded (hindsight follows the parent). */
static void hs_atfork_child(ThreadId tid)
{
	(void)tid;
	if (hs_fd >= 0)
		VG_(close)(hs_fd);
	if (hs_vfd >= 0)
		VG_(close)(hs_vfd);
	hs_fd = hs_vfd = -1;
	hs_ptr = (Addr)hs_buf;
	hs_vlen = 0;
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

static IRSB *hs_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	IRSB *out;
	UInt id, nexit = 0;
	Bool seen = False;
	Int i;

	(void)closure;
	(void)layout;
	(void)vge;
	(void)archinfo_host;
	(void)gWordTy;
	(void)hWordTy;
	if (hs_fd < 0 && hs_vfd < 0)
		return in;
	id = hs_next_id++;
	if (id >= HSREC_EXIT_BIT)
		VG_(tool_panic)("hsrec: out of superblock ids");
	if (hs_fd >= 0)
		hs_describe(in, id);
	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_Exit && seen) {
			if (nexit >= HSREC_MAX_EXITS)
				VG_(tool_panic)("hsrec: too many side exits");
			if (hs_fd >= 0)
				hs_emit(out, HSREC_EXIT_BIT | nexit, st->Ist.Exit.guard, False);
			nexit++;
		}
		addStmtToIRSB(out, st);
		if (st->tag != Ist_IMark || st->Ist.IMark.len == 0)
			continue;
		if (!seen && hs_fd >= 0)
			hs_emit(out, id, NULL, True);
		seen = True;
		if (hs_vfd >= 0) {
			IRDirty *d = unsafeIRDirty_0_N(1, "hs_verify",
						       VG_(fnptr_to_fnentry)(hs_verify),
						       mkIRExprVec_1(hs_u64(st->Ist.IMark.addr)));

			addStmtToIRSB(out, IRStmt_Dirty(d));
		}
	}
	return out;
}

/* --- Start and end --------------------------------------------------- */

static Bool hs_option(const HChar *arg)
{
	const HChar *s;

	Long pid;

	if VG_STR_CLO(arg, "--hsrec-out", s)
		hs_out_path = s;
	else if VG_INT_CLO(arg, "--hsrec-pid", pid)
		hs_want_pid = (Int)pid;
	else if VG_STR_CLO(arg, "--hsrec-verify", s)
		hs_verify_path = s;
	else
		return False;
	return True;
}

static void hs_usage(void)
{
	VG_(printf)("    --hsrec-out=PATH       where the recording stream goes\n"
		    "    --hsrec-pid=PID        record only in process PID\n"
		    "    --hsrec-verify=PATH    every instruction started, as text (tests)\n");
}

static void hs_debug_usage(void)
{
}

static void hs_post_clo_init(void)
{
	HChar exe[4096];
	Int pid = VG_(getpid)();
	SizeT n;
	SysRes sr;

	if (!hs_out_path)
		VG_(fmsg_bad_option)("--hsrec-out", "hsrec needs --hsrec-out=PATH\n");
	if (hs_want_pid >= 0 && pid != hs_want_pid)
		return;                    /* a forked child that exec'd */
	sr = VG_(open)(hs_out_path, VKI_O_WRONLY, 0);
	if (sr_isError(sr)) {
		VG_(umsg)("hsrec: cannot open %s; nothing is recorded\n", hs_out_path);
		return;
	}
	hs_fd = VG_(safe_fd)(sr_Res(sr));
	if (hs_verify_path) {
		sr = VG_(open)(hs_verify_path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_APPEND, 0644);
		if (!sr_isError(sr))
			hs_vfd = VG_(safe_fd)(sr_Res(sr));
	}
	n = 0;
	if (VG_(args_the_exename))
		n = VG_(strlen)(VG_(args_the_exename));
	if (n >= sizeof(exe))
		n = sizeof(exe) - 1;
	if (n)
		VG_(memcpy)(exe, VG_(args_the_exename), n);
	hs_ctl(HSREC_HELLO, 8 + n);
	hs_put32(HSREC_VERSION);
	hs_put32((UInt)pid);
	hs_put(exe, n);
}

static void hs_fini(Int exitcode)
{
	ThreadId tid;

	if (hs_fd >= 0) {
		if (hs_last != VG_INVALID_THREADID)
			hs_pause(hs_last);
		for (tid = 1; tid < HS_MAX_TID; tid++)
			if (hs_lwp[tid] && tid != hs_last)
				hs_pause(tid);
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
	VG_(track_new_mem_mmap)(hs_new_mem);
	VG_(track_change_mem_mprotect)(hs_map);
	VG_(track_die_mem_munmap)(hs_unmap);
	VG_(track_copy_mem_remap)(hs_remap);
	VG_(track_start_client_code)(hs_start);
	VG_(track_pre_thread_ll_exit)(hs_thread_exit);
	VG_(track_pre_deliver_signal)(hs_signal);
	VG_(atfork)(NULL, NULL, hs_atfork_child);
	/* Chasing merges two conditional branches into one exit: off. */
	VG_(clo_vex_control).guest_chase = False;
}

VG_DETERMINE_INTERFACE_VERSION(hs_pre_clo_init)
