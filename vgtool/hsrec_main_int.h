/*
 * vgtool/hsrec_main_int.h: what the files of the full recorder share:
 * hsrec_main.c (Valgrind's callbacks, the start and the end) calls into
 * hsrec_instr.c (the instrumentation) and hsrec_stream.c (the stream's
 * buffer, the verify trace, the threads' ids, the general registers'
 * slots); hsrec_instr.c calls into hsrec_stream.c; no call goes back up.
 * Not for hsrec_inputs.c and hsrec_rebuild.c, which see the stream only
 * through struct hsin_stream (hsrec_inputs.h).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_MAIN_INT_H
#define HINDSIGHT_VGTOOL_HSREC_MAIN_INT_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

/* VEX's own helper (guest_amd64_helpers.c, exported by libvex): the O S Z A
 * C P flags from the lazy flags thunk, as VEX's generated code computes
 * them. */
extern ULong amd64g_calculate_rflags_all(ULong cc_op, ULong cc_dep1, ULong cc_dep2,
					 ULong cc_ndep);

#define HS_BUF (1u << 20)          /* flushed when fuller than this */
#define HS_SLACK (1u << 16)        /* room for one superblock's records (at most
				    * ~60 instructions, each a few registers and
				    * stores of <= 32 bytes: well under this) */
#define HS_MAX_TID 4096

/* hsrec_stream.c: the stream as it is written. */
extern Bool hs_verify_regs;        /* the verify lines carry every register */
extern Bool hs_state;              /* registers and memory, not only control flow */
/* The stream has the instructions and the state (False: a rebuild's
 * window, --hsrec-from, is not open yet: only the mappings go out). */
extern Bool hs_on;
extern Int hs_fd;                  /* -1: recording nothing */
extern Int hs_vfd;
extern UChar hs_buf[HS_BUF + HS_SLACK];
/* The write position, read and written by the instrumentation. */
extern Addr hs_ptr;
extern UInt hs_vlen;
extern Int hs_lwp[HS_MAX_TID];     /* Valgrind ThreadId -> Linux tid */

/* Called from translated code when the buffer is nearly full. */
VG_REGPARM(0) void hs_flush(void);
void hs_vflush(void);
/* Called from translated code before a client request: the running
 * thread's registers are sent again when it next runs. */
VG_REGPARM(0) void hs_clreq(void);
/* Called from translated code (tests): the instruction at @ip starts. */
VG_REGPARM(1) void hs_verify(Addr ip);
void hs_put(const void *p, SizeT n);
void hs_put32(UInt v);
void hs_put64(ULong v);
/* Starts a control record of @len payload bytes, making room for it. */
void hs_ctl(UInt kind, UInt len);
/* @tid's Linux id as the stream names it (a rebuild's: the recorded one). */
Int hs_tid(ThreadId tid);

#define HS_GOFF(f) ((Int)offsetof(VexGuestAMD64State, f))

/* user_regs_struct slots of the general registers, by guest offset. */
struct hs_gpr { Int off; UInt slot; };
extern const struct hs_gpr hs_gprs[];
extern const UInt hs_ngprs;
#define HS_NGPRS hs_ngprs
#define HS_SLOT_EFLAGS 18

/* eflags as the CPU shows it, from VEX's thunk and flag words. */
ULong hs_eflags(const VexGuestAMD64State *g);

/* hsrec_instr.c: Valgrind's instrument callback, and a dirty helper @d
 * made to read the general registers, rip and fs_base (they are in the
 * guest state when it runs: a check of them, a stop there). */
void hs_fx_regs(IRDirty *d);
IRSB *hs_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
		    IRType gWordTy, IRType hWordTy);

#endif
