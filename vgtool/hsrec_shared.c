/*
 * vgtool/hsrec_shared.c: memory another process may write (a writable
 * MAP_SHARED mapping: a POSIX semaphore, multiprocessing's locks and
 * values, a database's shared index), in the light and rebuild modes.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What the program reads there is an input, as a syscall's result is:
 * another process may have written it at any moment. From the first such
 * mapping on, every load, guarded load and cmpxchg of the program is
 * translated with a check of its address against the shared ranges'
 * bounds (inline: a subtract and a compare with constants; every
 * translation is made again when the bounds grow). One that falls in them
 * calls a helper:
 *   - light, after the load: the bytes it read are logged (HSIN_LOAD);
 *   - rebuild, before it: the logged bytes are written there, so the load
 *     reads them. The rebuild maps such memory private and anonymous at
 *     the recorded address (hsrec_rebuild.c): nothing it does reaches the
 *     other processes or the file.
 * Both modes keep the same ranges, changed at the same syscalls, and
 * discard every translation as the bounds grow, so that each load is
 * checked in both or in neither. The state log has such memory volatile:
 * its bytes are not known at any time (the registers the program loaded
 * from it are). A vector load is logged as 8-byte parts; a load made by
 * a helper of VEX's (x87 state, fxrstor) is not checked: what it read is
 * caught at the next event if it mattered (registers, syscalls).
 *
 * hsrec_inputs.c calls in here; this file calls hsrec_inputs.c's
 * hsin_light_load and hsrec_log.c's reading of the log.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_ir.h"

#include "hsrec_inputs_int.h"

/* libcoregrind's, not in the public headers (VALGRIND-NOTES.md). */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);

#define HSIN_SH_MAX 256

/* The shared ranges, and the bounds the translations check against,
 * as constants: an address a is checked further if a - hsin_sh_lo <
 * hsin_sh_span. They only grow (a range that goes leaves them as they
 * were: the helper checks the ranges themselves), and every translation
 * is discarded as they do. */
static struct { Addr a, end; } hsin_sh[HSIN_SH_MAX];
static UInt hsin_nsh;
static ULong hsin_sh_lo, hsin_sh_span;
/* Loads are translated with the check (since the first mapping). */
static Bool hsin_sh_on;
/* A mapping being made now, for the state log (hsin_shared_at). */
static Addr hsin_sh_new, hsin_sh_new_end;

Bool hsin_shared_flags(ULong prot, ULong flags)
{
	return (flags & VKI_MAP_SHARED) && (prot & VKI_PROT_WRITE);
}

static Bool hsin_sh_in(Addr a, SizeT len)
{
	for (UInt i = 0; i < hsin_nsh; i++)
		if (a < hsin_sh[i].end && a + len > hsin_sh[i].a)
			return True;
	return False;
}

Bool hsin_shared_at(Addr a, SizeT len)
{
	return (a < hsin_sh_new_end && a + len > hsin_sh_new) || hsin_sh_in(a, len);
}

static void hsin_sh_add(Addr a, SizeT len)
{
	if (!len)
		return;
	if (hsin_nsh == HSIN_SH_MAX) {
		/* Full: the last range grows over the new one (both modes
		 * alike; a load between them is checked too, and logged). */
		Addr *last_a = &hsin_sh[hsin_nsh - 1].a, *last_end = &hsin_sh[hsin_nsh - 1].end;

		*last_a = a < *last_a ? a : *last_a;
		*last_end = a + len > *last_end ? a + len : *last_end;
	} else {
		hsin_sh[hsin_nsh].a = a;
		hsin_sh[hsin_nsh].end = a + len;
		hsin_nsh++;
	}
	if (hsin_sh_on && a >= hsin_sh_lo && a + len <= hsin_sh_lo + hsin_sh_span)
		return;
	if (hsin_sh_on) {
		Addr hi = hsin_sh_lo + hsin_sh_span;

		hsin_sh_lo = a < hsin_sh_lo ? a : hsin_sh_lo;
		hsin_sh_span = (a + len > hi ? a + len : hi) - hsin_sh_lo;
	} else {
		hsin_sh_lo = a;
		hsin_sh_span = len;
		hsin_sh_on = True;
	}
	/* Called from the syscall's post hook: no translation runs. */
	VG_(discard_translations)(0, ~0ull, "hsrec: shared memory is mapped");
}

/* [@a, @a + @len) is no longer mapped: the ranges it covers go, those it
 * cuts are trimmed (one it splits is kept whole: its checks cost, and
 * both modes keep the same). */
static void hsin_sh_remove(Addr a, SizeT len)
{
	Addr end = a + len;

	for (UInt i = 0; i < hsin_nsh;) {
		if (a <= hsin_sh[i].a && end >= hsin_sh[i].end) {
			hsin_sh[i] = hsin_sh[--hsin_nsh];
			continue;
		}
		if (a <= hsin_sh[i].a && end > hsin_sh[i].a)
			hsin_sh[i].a = end;
		else if (a < hsin_sh[i].end && end >= hsin_sh[i].end)
			hsin_sh[i].end = a;
		i++;
	}
}

void hsin_shared_pre(UInt nr, const UWord *args, Bool shared)
{
	hsin_sh_new = hsin_sh_new_end = 0;
	if (nr == __NR_mmap && shared) {
		hsin_sh_new = args[0];
		hsin_sh_new_end = args[0] ? args[0] + args[1] : ~(Addr)0;   /* anywhere */
	}
}

void hsin_shared_post(UInt nr, const UWord *args, Long r, Bool shared)
{
	hsin_sh_new = hsin_sh_new_end = 0;
	if (hsin_mode == HSIN_MODE_FULL || (ULong)r >= (ULong)-4095)
		return;
	if (nr == __NR_mmap && shared)
		hsin_sh_add((Addr)r, VG_PGROUNDUP(args[1]));
	else if (nr == __NR_munmap || (nr == __NR_mmap && (args[3] & VKI_MAP_FIXED)))
		hsin_sh_remove(nr == __NR_mmap ? (Addr)r : args[0], VG_PGROUNDUP(args[1]));
	else if (nr == __NR_mremap && hsin_sh_in(args[0], args[1])) {
		/* Moved or resized whole: still shared, where it went. */
		hsin_sh_remove(args[0], VG_PGROUNDUP(args[1]));
		hsin_sh_add((Addr)r, VG_PGROUNDUP(args[2]));
	}
}

/* --- The helpers the translated checks call ------------------------------- */

/* Light: @size bytes (1 to 8) read at @a, the low bytes of @v. */
static void hsin_sh_logged(ULong a, ULong size, ULong v)
{
	if (hsin_sh_in(a, size))
		hsin_light_load(VG_(get_running_tid)(), a, (UInt)size, (const UChar *)&v);
}

/* Rebuild: the @size bytes the load of the instruction at @pc is about to
 * read at @a are the logged ones. A load the ranges cover whose memory is
 * not mapped faults, as it did when recorded (with nothing logged). */
static void hsin_sh_put(ULong a, ULong size, ULong pc)
{
	ThreadId tid = VG_(get_running_tid)();
	Int lwp = hsin_thr(tid)->lwp;

	if (!hsin_sh_in(a, size) || (!VG_(am_is_valid_for_client)(a, size, VKI_PROT_READ) &&
				     !VG_(am_is_valid_for_client)(a, size, VKI_PROT_WRITE)))
		return;
	hsin_at = pc;              /* it has not run: the history ends before it */
	hsin_at_how = HSREC_DIV_FIND;
	if (hsin_peek() == HSIN_LOAD && hsin_rlen >= 16 &&
	    (hsin_u64(hsin_rec + 8) != a || hsin_u32(hsin_rec + 4) != size))
		hsin_diverge("at event %llu: the program reads %llu bytes of shared memory at %#llx "
			     "where it read %u at %#llx when recorded", hsin_events, size, a,
			     hsin_u32(hsin_rec + 4), hsin_u64(hsin_rec + 8));
	hsin_expect(HSIN_LOAD, 16, "a read of shared memory");
	if (lwp && (Int)hsin_u32(hsin_rec) != lwp)
		hsin_diverge("at event %llu: thread %d reads shared memory at %#llx where thread %u "
			     "did when recorded", hsin_events, lwp, a, hsin_u32(hsin_rec));
	if (hsin_rlen != 16 + size)
		hsin_diverge("at event %llu: a record of a read of shared memory is damaged",
			     hsin_events);
	/* A page the program made read-only since (or write-only) is
	 * written all the same, through /proc/self/mem. */
	if (VG_(am_is_valid_for_client)(a, size, VKI_PROT_READ | VKI_PROT_WRITE))
		VG_(memcpy)((void *)a, hsin_rec + 16, size);
	else if (!hsin_client_write(a, hsin_rec + 16, size))
		hsin_diverge("at event %llu: the program reads shared memory at %#llx, which the "
			     "rebuild cannot write there", hsin_events, a);
	hsin_take();
	/* The gate, for what comes next: another thread's turn, a signal
	 * (a read may be the last thing before either). */
	hsin_arm();
	hsin_at = 0;
}

/* --- Instrumentation ---------------------------------------------------- */

static IRExpr *hsin_sh_c64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

static IRExpr *hsin_sh_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

/* One part of a load: @size bytes at @addr + @off, @v (light: the value,
 * as an I64 atom), under @guard (NULL: always). */
static void hsin_sh_part(IRSB *out, IRExpr *addr, UInt off, UInt size, IRExpr *v,
			 IRExpr *guard, Addr pc, Bool after)
{
	IRExpr *a = off ? hsin_sh_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, addr,
								   hsin_sh_c64(off))) : addr;
	IRExpr *in = hsin_sh_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U,
				 hsin_sh_tmp(out, Ity_I64, IRExpr_Binop(Iop_Sub64, a,
									hsin_sh_c64(hsin_sh_lo))),
				 hsin_sh_c64(hsin_sh_span)));
	IRDirty *d;

	if (guard)
		in = hsin_sh_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, guard, in));
	if (after) {
		d = unsafeIRDirty_0_N(0, "hsin_sh_logged", VG_(fnptr_to_fnentry)(hsin_sh_logged),
				      mkIRExprVec_3(a, hsin_sh_c64(size), v));
	} else {
		d = unsafeIRDirty_0_N(0, "hsin_sh_put", VG_(fnptr_to_fnentry)(hsin_sh_put),
				      mkIRExprVec_3(a, hsin_sh_c64(size), hsin_sh_c64(pc)));
		/* It writes the bytes the load then reads: no load of them
		 * moves before it. */
		d->mFx = Ifx_Write;
		d->mAddr = a;
		d->mSize = (Int)size;
	}
	d->guard = in;
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* How a load's value of each type is taken as 8-byte parts (I64),
 * low first: @pre (if any) then each part's op (none: the value). */
static const struct {
	IRType ty;
	IROp pre;
	UInt n;
	IROp op[4];
} hsin_sh_types[] = {
	{ Ity_I8, Iop_INVALID, 1, { Iop_8Uto64 } },
	{ Ity_I16, Iop_INVALID, 1, { Iop_16Uto64 } },
	{ Ity_I32, Iop_INVALID, 1, { Iop_32Uto64 } },
	{ Ity_I64, Iop_INVALID, 1, { Iop_INVALID } },
	{ Ity_F32, Iop_ReinterpF32asI32, 1, { Iop_32Uto64 } },
	{ Ity_F64, Iop_INVALID, 1, { Iop_ReinterpF64asI64 } },
	{ Ity_I128, Iop_INVALID, 2, { Iop_128to64, Iop_128HIto64 } },
	{ Ity_V128, Iop_INVALID, 2, { Iop_V128to64, Iop_V128HIto64 } },
	{ Ity_V256, Iop_INVALID, 4, { Iop_V256to64_0, Iop_V256to64_1, Iop_V256to64_2,
				      Iop_V256to64_3 } },
};

/* How many 8-byte parts a load of @ty is checked as (0: a type it does
 * not split, which is then not checked), and with @v (light: the value)
 * each part's I64 atom into @part. */
static UInt hsin_sh_split(IRSB *out, IRType ty, IRExpr *v, IRExpr *part[4])
{
	for (UInt k = 0; k < sizeof(hsin_sh_types) / sizeof(hsin_sh_types[0]); k++) {
		if (hsin_sh_types[k].ty != ty)
			continue;
		if (v && hsin_sh_types[k].pre != Iop_INVALID)
			v = hsin_sh_tmp(out, Ity_I32, IRExpr_Unop(hsin_sh_types[k].pre, v));
		for (UInt i = 0; v && i < hsin_sh_types[k].n; i++)
			part[i] = hsin_sh_types[k].op[i] == Iop_INVALID ? v :
				  hsin_sh_tmp(out, Ity_I64, IRExpr_Unop(hsin_sh_types[k].op[i], v));
		return hsin_sh_types[k].n;
	}
	return 0;
}

/* A load of type @ty at @addr whose value is @v (light), under @guard;
 * @size: the bytes it reads (a guarded load's may be fewer than @ty's). */
static void hsin_sh_load(IRSB *out, IRExpr *addr, IRType ty, UInt size, IRExpr *v,
			 IRExpr *guard, Addr pc, Bool after)
{
	IRExpr *part[4] = { NULL, NULL, NULL, NULL };
	UInt n = hsin_sh_split(out, ty, after ? v : NULL, part);

	for (UInt i = 0; i < n; i++)
		hsin_sh_part(out, addr, 8 * i, n == 1 ? size : 8, part[i], guard, pc, after);
}

void hsin_instrument_load(IRSB *out, IRTypeEnv *tyenv, const IRStmt *st, Addr pc, Bool after)
{
	if (!hsin_sh_on || hsin_mode == HSIN_MODE_FULL || after != (hsin_mode == HSIN_MODE_LIGHT))
		return;
	if (st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load) {
		const IRExpr *ld = st->Ist.WrTmp.data;

		hsin_sh_load(out, ld->Iex.Load.addr, ld->Iex.Load.ty, sizeofIRType(ld->Iex.Load.ty),
			     IRExpr_RdTmp(st->Ist.WrTmp.tmp), NULL, pc, after);
	} else if (st->tag == Ist_LoadG) {
		const IRLoadG *g = st->Ist.LoadG.details;
		IRType ty = typeOfIRTemp(tyenv, g->dst);
		UInt size;

		switch (g->cvt) {
		case ILGop_IdentV128: size = 16; break;
		case ILGop_Ident64: size = 8; break;
		case ILGop_Ident32: size = 4; break;
		case ILGop_16Uto32: case ILGop_16Sto32: size = 2; break;
		case ILGop_8Uto32: case ILGop_8Sto32: size = 1; break;
		default: return;
		}
		hsin_sh_load(out, g->addr, ty, size, IRExpr_RdTmp(g->dst), g->guard, pc, after);
	} else if (st->tag == Ist_CAS) {
		/* The old value it compared: then it does as it did. */
		const IRCAS *c = st->Ist.CAS.details;
		IRType ty = typeOfIRExpr(tyenv, c->expdLo);
		UInt size = sizeofIRType(ty);

		if (size > 8)
			return;
		hsin_sh_load(out, c->addr, ty, size, IRExpr_RdTmp(c->oldLo), NULL, pc, after);
		if (c->oldHi != IRTemp_INVALID) {
			IRExpr *hi = hsin_sh_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, c->addr,
									   hsin_sh_c64(size)));

			hsin_sh_load(out, hi, ty, size, IRExpr_RdTmp(c->oldHi), NULL, pc, after);
		}
	}
}
