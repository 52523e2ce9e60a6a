/*
 * vgtool/hsrec_instr.c: the full recorder's instrumentation (hs_instrument,
 * Valgrind's instrument callback): every superblock Valgrind translates
 * described once to hindsight (a BLOCK record), and given inline stores
 * (no helper call) that append its id on entry and the exit's number on a
 * side exit, each instruction's written registers and flags at its end,
 * each store's old and new bytes before it; a guarded helper call writes
 * the buffer out when it is nearly full; the verify trace's helper call
 * per instruction (tests).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * hsrec_main.c hands hs_instrument to Valgrind. It writes only into
 * hsrec_stream.c's buffer, below it (hsrec_main_int.h), and calls into
 * hsrec_inputs.c for what the light and rebuild modes add to a block.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs.h"
#include "hsrec_main_int.h"
#include "hsrec_proto.h"
#include "hsrec_watch.h"

static UInt hs_next_id;

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

static const UChar hs_special[HSREC_SPECIAL_LEN] = HSREC_SPECIAL;

/* The instructions of the history that @st, an IMark of a length, stands
 * for: one, or five for a special sequence whose marker is a client
 * request (`xchg %rbx,%rbx`, a jump to the next instruction once the core
 * has answered it) or asks for the address a wrapped function had
 * (`xchg %rcx,%rcx`, a write of rax): the rotates do nothing under
 * Valgrind, and the marker does what it did. The other two markers (a
 * call without redirection, IR injection) transfer control in a way the
 * bytes do not say: they stay one instruction of 19 bytes, which
 * hindsight refuses. */
static UInt hs_imark_insns(const IRStmt *st)
{
	const UChar *p = (const UChar *)(Addr)st->Ist.IMark.addr;

	if (st->Ist.IMark.len != 19 || VG_(memcmp)(p, hs_special, sizeof(hs_special)) ||
	    p[16] != 0x48 || p[17] != 0x87 || (p[18] != 0xdb && p[18] != 0xc9))
		return 1;
	return 5;
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
			ninsn += hs_imark_insns(st);
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
			UInt n = hs_imark_insns(st);

			for (UInt k = 0; k < n; k++) {
				/* A special sequence: four rotates of 4 bytes,
				 * its marker of 3. */
				UChar l = n == 1 ? (UChar)st->Ist.IMark.len : k < 4 ? 4 : 3;

				hs_put64(st->Ist.IMark.addr + 4 * k);
				hs_put(&l, 1);
			}
		}
	}
	seen = False;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0) {
			/* Its words and exits are its last instruction's. */
			idx += hs_imark_insns(st) - !seen;
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
	UInt n = hs_imark_insns(imark);

	if (hs_vfd < 0)
		return;
	/* A special sequence's five instructions, the registers the same
	 * at each (hs_imark_insns). */
	for (UInt k = 0; k < n; k++) {
		IRDirty *d = unsafeIRDirty_0_N(1, "hs_verify", VG_(fnptr_to_fnentry)(hs_verify),
					       mkIRExprVec_1(hs_u64(imark->Ist.IMark.addr + 4 * k)));

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

/* Before the instruction at @pc, number @idx of a superblock where a
 * debugger stopped the recorded run (a rebuild's HSIN_HERE):
 * hsin_here_check, which reads the general registers (so they are in the
 * guest state there). */
static void hs_add_here_check(IRSB *sb, Addr pc, UInt idx)
{
	IRDirty *d = unsafeIRDirty_0_N(2, "hsin_here_check", VG_(fnptr_to_fnentry)(hsin_here_check),
				       mkIRExprVec_2(hs_u64(pc), hs_u64(idx)));

	hs_fx_regs(d);
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

void hs_fx_regs(IRDirty *d)
{
	d->nFxState = 3;
	VG_(memset)(&d->fxState, 0, sizeof(d->fxState));
	d->fxState[0].fx = Ifx_Read;
	d->fxState[0].offset = HS_GOFF(guest_RAX);
	d->fxState[0].size = HS_GOFF(guest_R15) + 8 - HS_GOFF(guest_RAX);
	d->fxState[1].fx = Ifx_Read;
	d->fxState[1].offset = HS_GOFF(guest_RIP);
	d->fxState[1].size = 8;
	d->fxState[2].fx = Ifx_Read;
	d->fxState[2].offset = HS_GOFF(guest_FS_CONST);
	d->fxState[2].size = 8;
}

IRSB *hs_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
		    IRType gWordTy, IRType hWordTy)
{
	struct hs_touch touch = { 0, False };
	Bool rec = hs_fd >= 0 && hs_on, st = rec && hs_state;
	IRSB *out;
	UInt id, nexit = 0, insn = 0;
	Bool seen = False, here = hsin_here_block_at(hs_first_ip(in));
	Addr pc = 0;
	Int i;

	(void)closure;
	(void)vge;
	(void)archinfo_host;
	(void)gWordTy;
	(void)hWordTy;
	hsin_instrument_in(in);
	if (hsin_mode == HSIN_MODE_LIGHT || (hsin_mode == HSIN_MODE_REBUILD && !hs_on)) {
		/* The light run, and a rebuild before its window: the count,
		 * the gate and the syscalls only (and the checks of a place
		 * a debugger wrote at: a rebuild makes the write there). */
		out = deepCopyIRSBExceptStmts(in);
		for (i = 0; i < in->stmts_used; i++) {
			/* The count and the gate after VEX's check of code
			 * that may have changed (the statements before the
			 * first IMark), as in the full instrumentation below:
			 * an entry that finds its code changed, and leaves to
			 * translate it again, is no entry in any mode. (Before
			 * the IMark, as before: Valgrind's gdbserver checks
			 * after it, and sees the count of the block it stops
			 * in.) */
			if (!seen && in->stmts[i]->tag == Ist_IMark &&
			    in->stmts[i]->Ist.IMark.len > 0) {
				hsin_instrument_entry(out, in->stmts[i]->Ist.IMark.addr);
				seen = True;
			}
			if (hsin_mode == HSIN_MODE_LIGHT)
				hs_watch_stmt(out, in->tyenv, in->stmts[i]);
			hsin_instrument_load(out, in->tyenv, in->stmts[i], pc, False);
			addStmtToIRSB(out, in->stmts[i]);
			hsin_instrument_load(out, in->tyenv, in->stmts[i], pc, True);
			if (in->stmts[i]->tag == Ist_IMark && in->stmts[i]->Ist.IMark.len > 0) {
				pc = in->stmts[i]->Ist.IMark.addr;
				if (here && insn > 0)
					hs_add_here_check(out, in->stmts[i]->Ist.IMark.addr, insn);
				insn += hs_imark_insns(in->stmts[i]);
				hs_add_verify(out, in->stmts[i]);
				if (hsin_mode == HSIN_MODE_LIGHT)
					hs_watch_imark(out);
			}
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

		if (s->tag == Ist_IMark && s->Ist.IMark.len > 0)
			pc = s->Ist.IMark.addr;
		/* (A rebuild's read of shared memory: the logged bytes first.) */
		hsin_instrument_load(out, in->tyenv, s, pc, False);
		if (!seen) {
			addStmtToIRSB(out, s);
			if (s->tag == Ist_IMark && s->Ist.IMark.len > 0) {
				seen = True;
				insn = hs_imark_insns(s) - 1;
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
			if (here)
				hs_add_here_check(out, s->Ist.IMark.addr, insn);
			insn += hs_imark_insns(s) - 1;
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
	if (rec && in->jumpkind == Ijk_ClientReq) {
		/* The core answers the request in a register after the block
		 * (rdx: RUNNING_ON_VALGRIND's 1): the thread's registers are
		 * sent again as it goes on. */
		IRDirty *d = unsafeIRDirty_0_N(0, "hs_clreq", VG_(fnptr_to_fnentry)(hs_clreq),
					       mkIRExprVec_0());

		addStmtToIRSB(out, IRStmt_Dirty(d));
	}
	hsin_instrument_out(out, in, layout);
	return out;
}
