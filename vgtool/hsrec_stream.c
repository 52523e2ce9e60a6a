/*
 * vgtool/hsrec_stream.c: the full recorder's stream as it is written: its
 * buffer (filled by the inline code hsrec_instr.c emits and by the
 * control records of hsrec_main.c's callbacks, written out when it is
 * nearly full), the verify trace (tests), the threads' ids as the stream
 * names them, and the general registers' user_regs_struct slots.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The lowest of the full recorder's files: hsrec_main.c and hsrec_instr.c
 * both call into it and it calls neither (hsrec_main_int.h declares what
 * it shares). The recording's switches (hs_on, hs_state, ...) are here
 * because both read them; the inline code refers to hs_buf, hs_ptr,
 * hs_flush and hs_verify by address: each is one object, here.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs.h"
#include "hsrec_main_int.h"
#include "hsrec_proto.h"

#define HS_VBUF (1u << 16)

Bool hs_verify_regs;               /* the verify lines carry every register */
Bool hs_state = True;              /* registers and memory, not only control flow */
/* The stream has the instructions and the state (False: a rebuild's
 * window, --hsrec-from, is not open yet: only the mappings go out). */
Bool hs_on = True;

Int hs_fd = -1;                    /* -1: recording nothing */
Int hs_vfd = -1;
UChar hs_buf[HS_BUF + HS_SLACK];
/* The write position, read and written by the instrumentation. */
Addr hs_ptr = (Addr)hs_buf;
static UChar hs_vbuf[HS_VBUF];
UInt hs_vlen;

Int hs_lwp[HS_MAX_TID];            /* Valgrind ThreadId -> Linux tid */

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
VG_REGPARM(0) void hs_flush(void)
{
	SizeT n = hs_ptr - (Addr)hs_buf;

	if (hs_fd >= 0 && n)
		hs_write_all(hs_fd, hs_buf, n);
	hs_ptr = (Addr)hs_buf;
}

void hs_vflush(void)
{
	if (hs_vfd >= 0 && hs_vlen)
		VG_(write)(hs_vfd, hs_vbuf, hs_vlen);
	hs_vlen = 0;
}

static void hs_verify_line_regs(ThreadId tid);

VG_REGPARM(1) void hs_verify(Addr ip)
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

void hs_put(const void *p, SizeT n)
{
	VG_(memcpy)((void *)hs_ptr, p, n);
	hs_ptr += n;
}

void hs_put32(UInt v) { hs_put(&v, 4); }
void hs_put64(ULong v) { hs_put(&v, 8); }

/* Starts a control record of @len payload bytes, making room for it. */
void hs_ctl(UInt kind, UInt len)
{
	tl_assert(len <= 0xFFFF);
	if (hs_ptr + 4 + len > (Addr)hs_buf + HS_BUF)
		hs_flush();
	hs_put32(HSREC_CTL | (kind << 16) | len);
}

Int hs_tid(ThreadId tid)
{
	if (tid >= HS_MAX_TID)
		VG_(tool_panic)("hsrec: more threads than it can name");
	if (!hs_lwp[tid])
		hs_lwp[tid] = hsin_recorded_tid(VG_(gettid)());
	return hs_lwp[tid];
}

/* --- The general registers ------------------------------------------- */

/* user_regs_struct slots of the general registers, by guest offset. */
const struct hs_gpr hs_gprs[] = {
	{ HS_GOFF(guest_RAX), 10 }, { HS_GOFF(guest_RCX), 11 }, { HS_GOFF(guest_RDX), 12 },
	{ HS_GOFF(guest_RBX), 5 },  { HS_GOFF(guest_RSP), 19 }, { HS_GOFF(guest_RBP), 4 },
	{ HS_GOFF(guest_RSI), 13 }, { HS_GOFF(guest_RDI), 14 }, { HS_GOFF(guest_R8), 9 },
	{ HS_GOFF(guest_R9), 8 },   { HS_GOFF(guest_R10), 7 },  { HS_GOFF(guest_R11), 6 },
	{ HS_GOFF(guest_R12), 3 },  { HS_GOFF(guest_R13), 2 },  { HS_GOFF(guest_R14), 1 },
	{ HS_GOFF(guest_R15), 0 },  { HS_GOFF(guest_FS_CONST), 21 },
};
const UInt hs_ngprs = sizeof(hs_gprs) / sizeof(hs_gprs[0]);

/* eflags as the CPU shows it, from VEX's thunk and flag words; the inline
 * code computes the same. */
ULong hs_eflags(const VexGuestAMD64State *g)
{
	return amd64g_calculate_rflags_all(g->guest_CC_OP, g->guest_CC_DEP1, g->guest_CC_DEP2,
					   g->guest_CC_NDEP) |
	       (g->guest_DFLAG & 0x400) | ((g->guest_ACFLAG & 1) << 18) |
	       ((g->guest_IDFLAG & 1) << 21) | 0x202;
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
