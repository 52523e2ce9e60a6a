/*
 * vgtool/hsrec_watch.c: watchpoints for Valgrind's gdbserver in the light
 * mode (hsrec_watch.h).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs.h"
#include "hsrec_main_int.h"
#include "hsrec_watch.h"

#define HS_MAX_WATCH 32

/* --hsrec-watchable=yes: the light run's code checks memory accesses
 * (serve's). */
Bool hs_watchable;
/* The ranges Valgrind's gdbserver watches, each for one kind, as it keys
 * them (an address, a length and a kind); their number is read inline. */
static struct {
	Addr a;
	SizeT len;
	PointKind kind;
} hs_watch[HS_MAX_WATCH];
static UInt hs_nwatch;

/* How the program touched memory, for hs_watch_access. */
enum { HS_W_READ = 0, HS_W_WRITE = 1, HS_W_BOTH = 2 };

/* A read of a watched range, told to Valgrind's gdbserver at the thread's
 * next instruction (hs_watch_due: nonzero then, read inline). */
static ULong hs_watch_due;
static ThreadId hs_due_tid;
static Addr hs_due_a;
static UWord hs_due_len;

/* Called by translated code before the program reads or writes @len
 * bytes at @a (@how: HS_W_*): a watched range it touches is told to
 * Valgrind's gdbserver, which stops the program after the instruction,
 * as a CPU's debug registers do: a write at once (Valgrind steps to the
 * next instruction and stops there), a read at the next instruction
 * (hs_watch_next; Valgrind would stop before it). A read-modify-write is
 * the write a write watchpoint waits for, else a read. */
static VG_REGPARM(3) void hs_watch_access(Addr a, UWord len, UWord how)
{
	for (UInt i = 0; i < hs_nwatch; i++) {
		Bool write;

		if (a + len <= hs_watch[i].a || a >= hs_watch[i].a + hs_watch[i].len)
			continue;
		write = how == HS_W_WRITE || (how == HS_W_BOTH && hs_watch[i].kind == write_watchpoint);
		if (write) {
			if (VG_(is_watched)(write_watchpoint, a, (Int)len))
				return;
		} else if (hs_watch[i].kind != write_watchpoint) {
			hs_watch_due = 1;
			hs_due_tid = VG_(get_running_tid)();
			hs_due_a = a;
			hs_due_len = len;
			return;
		}
	}
}

/* Called by translated code at an instruction's start while a read is
 * due: the instruction that read ran, the stop is here. */
static void hs_watch_next(void)
{
	if (VG_(get_running_tid)() != hs_due_tid)
		return;
	hs_watch_due = 0;
	VG_(is_watched)(read_watchpoint, hs_due_a, (Int)hs_due_len);
}

/* Valgrind's gdbserver inserts or removes a watchpoint (Z2-Z4). Every
 * translation of the light run checks accesses while any is set, the
 * one running now too: one set at a stop inside a superblock sees the
 * rest of it. */
static Bool hs_watchpoint(PointKind kind, Bool insert, Addr addr, SizeT len)
{
	UInt i;

	if (hsin_mode != HSIN_MODE_LIGHT || !hs_watchable ||
	    (kind != write_watchpoint && kind != read_watchpoint && kind != access_watchpoint))
		return False;
	for (i = 0; i < hs_nwatch; i++)
		if (hs_watch[i].a == addr && hs_watch[i].len == len && hs_watch[i].kind == kind)
			break;
	if (insert) {
		if (i == hs_nwatch && hs_nwatch == HS_MAX_WATCH)
			return False;
		if (i == hs_nwatch)
			hs_nwatch++;
		hs_watch[i].a = addr;
		hs_watch[i].len = len;
		hs_watch[i].kind = kind;
	} else if (i < hs_nwatch) {
		hs_watch[i] = hs_watch[--hs_nwatch];
	}
	if (hs_nwatch == 0)
		hs_watch_due = 0;
	return True;
}

void hs_watch_init(void)
{
	VG_(needs_watchpoint)(hs_watchpoint);
}

/* A guard (an atom, as a dirty call's must be): the word at @a (of type
 * @ty) is not 0, and @also (an atom; NULL: true). */
static IRExpr *hs_watch_guard(IRSB *out, void *a, IRType ty, IRExpr *also)
{
	IRTemp v = newIRTemp(out->tyenv, ty), go = newIRTemp(out->tyenv, Ity_I1), both;

	addStmtToIRSB(out, IRStmt_WrTmp(v, IRExpr_Load(Iend_LE, ty, mkIRExpr_HWord((HWord)a))));
	addStmtToIRSB(out, IRStmt_WrTmp(go, ty == Ity_I64 ?
		IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(v), IRExpr_Const(IRConst_U64(0))) :
		IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(v), IRExpr_Const(IRConst_U32(0)))));
	if (!also)
		return IRExpr_RdTmp(go);
	both = newIRTemp(out->tyenv, Ity_I1);
	addStmtToIRSB(out, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(go),
							   deepCopyIRExpr(also))));
	return IRExpr_RdTmp(both);
}

/* The check of @len bytes at @addr (an atom), under @guard (NULL: none),
 * made while anything is watched. */
static void hs_watch_add(IRSB *out, IRExpr *addr, UInt len, UInt how, IRExpr *guard)
{
	IRDirty *d = unsafeIRDirty_0_N(3, "hs_watch_access", VG_(fnptr_to_fnentry)(hs_watch_access),
				       mkIRExprVec_3(deepCopyIRExpr(addr), mkIRExpr_HWord(len),
						     mkIRExpr_HWord(how)));

	hs_fx_regs(d);
	d->guard = hs_watch_guard(out, &hs_nwatch, Ity_I32, guard);
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

void hs_watch_imark(IRSB *out)
{
	IRDirty *d;

	if (!hs_watchable)
		return;
	d = unsafeIRDirty_0_N(0, "hs_watch_next", VG_(fnptr_to_fnentry)(hs_watch_next),
			      mkIRExprVec_0());
	hs_fx_regs(d);
	d->guard = hs_watch_guard(out, &hs_watch_due, Ity_I64, NULL);
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

void hs_watch_stmt(IRSB *out, const IRTypeEnv *tyenv, const IRStmt *s)
{
	IRType ty, arg;

	if (!hs_watchable)
		return;
	switch (s->tag) {
	case Ist_Store:
		hs_watch_add(out, s->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, s->Ist.Store.data)),
			     HS_W_WRITE, NULL);
		break;
	case Ist_StoreG:
		hs_watch_add(out, s->Ist.StoreG.details->addr,
			     sizeofIRType(typeOfIRExpr(tyenv, s->Ist.StoreG.details->data)), HS_W_WRITE,
			     s->Ist.StoreG.details->guard);
		break;
	case Ist_WrTmp:
		if (s->Ist.WrTmp.data->tag == Iex_Load)
			hs_watch_add(out, s->Ist.WrTmp.data->Iex.Load.addr,
				     sizeofIRType(s->Ist.WrTmp.data->Iex.Load.ty), HS_W_READ, NULL);
		break;
	case Ist_LoadG:
		typeOfIRLoadGOp(s->Ist.LoadG.details->cvt, &ty, &arg);
		hs_watch_add(out, s->Ist.LoadG.details->addr, sizeofIRType(arg), HS_W_READ,
			     s->Ist.LoadG.details->guard);
		break;
	case Ist_CAS:
		hs_watch_add(out, s->Ist.CAS.details->addr,
			     sizeofIRType(typeOfIRExpr(tyenv, s->Ist.CAS.details->expdLo)) *
			     (s->Ist.CAS.details->expdHi ? 2 : 1), HS_W_BOTH, NULL);
		break;
	case Ist_LLSC:
		ty = s->Ist.LLSC.storedata ? typeOfIRExpr(tyenv, s->Ist.LLSC.storedata) :
					     typeOfIRTemp(tyenv, s->Ist.LLSC.result);
		hs_watch_add(out, s->Ist.LLSC.addr, sizeofIRType(ty),
			     s->Ist.LLSC.storedata ? HS_W_WRITE : HS_W_READ, NULL);
		break;
	case Ist_Dirty:
		if (s->Ist.Dirty.details->mFx != Ifx_None && s->Ist.Dirty.details->mAddr)
			hs_watch_add(out, s->Ist.Dirty.details->mAddr,
				     (UInt)s->Ist.Dirty.details->mSize,
				     s->Ist.Dirty.details->mFx == Ifx_Read ? HS_W_READ :
				     s->Ist.Dirty.details->mFx == Ifx_Write ? HS_W_WRITE : HS_W_BOTH,
				     s->Ist.Dirty.details->guard);
		break;
	default:
		break;
	}
}
