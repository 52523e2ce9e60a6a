/*
 * vgtool/hsrec_log.c: the input log read back for the rebuild, and what
 * the files of the light and rebuild modes share: the threads, the
 * superblock count and the gate's limit, the record read last, where the
 * running thread stands; the records' fields, the register hash, the
 * divergence that ends a rebuild; whose turn it is (hsrec_proto.h, "The
 * input log").
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The lowest of the three: hsrec_inputs.c (the callbacks, the light log
 * written, the gate) calls into hsrec_rebuild.c (the rebuild's syscalls)
 * and into this file; hsrec_rebuild.c calls only this file, and this file
 * calls neither (hsrec_inputs_int.h says which file owns what). The
 * inline code refers to hsin_count and hsin_limit by address: each is one
 * object, here.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"

#include "hsrec_inputs_int.h"
#include "hsrec_proto.h"

/* libcoregrind's, not in the public headers (VALGRIND-NOTES.md): the big
 * lock handed on, and whether a thread is ending. */
extern void VG_(vg_yield)(void);
extern Bool VG_(is_exiting)(ThreadId tid);

Int hsin_fd = -1;                  /* light: the log written; rebuild: read */
const struct hsin_stream *hsin_out;
Int hsin_pid;                      /* the recorded process's pid */

/* The superblocks all threads entered (read and written inline), and
 * the gate: the rebuild calls hsin_gate when the count passes it. */
ULong hsin_count;
ULong hsin_limit = ~0ull;
/* Rebuild, --hsrec-from: the count the window opens at (0: open, or none). */
ULong hsin_from;
/* The recorded signal was sent again and is not taken yet. */
Bool hsin_deliver;
/* Rebuild, --hsrec-follow: the log grows while the rebuild reads it (a
 * live run's), and every HSIN_HERE is a stop. */
Bool hsin_follow;

struct hsin_thread hsin_th[HSIN_MAX_TID];
/* Rebuild: the thread whose turn it is (the others wait at their next
 * block's entry), and the one a thread's clone is creating. */
ThreadId hsin_owner = 1;
ThreadId hsin_child;

/* Rebuild: the record read last and not yet consumed. */
static UInt hsin_kind;             /* 0: none loaded */
UInt hsin_rlen;
UChar *hsin_rec;
static UInt hsin_rcap;
ULong hsin_events;                 /* events consumed, for messages */
/* Where the running thread stands when a helper of translated code runs
 * (the guest state's pc may be stale there); 0: Valgrind knows. */
Addr hsin_at;
UInt hsin_at_how;                  /* HSREC_DIV_*: how much of its block ran */

/* --- Helpers ----------------------------------------------------------- */

ULong hsin_u64(const UChar *p)
{
	ULong v;

	VG_(memcpy)(&v, p, 8);
	return v;
}

UInt hsin_u32(const UChar *p)
{
	UInt v;

	VG_(memcpy)(&v, p, 4);
	return v;
}

/* FNV-1a over the general registers a syscall leaves alone (all but rax,
 * rsp and rip, which are checked apart) and fs_base. */
ULong hsin_hash(const VexGuestAMD64State *g)
{
	const ULong r[] = { g->guest_RBX, g->guest_RCX, g->guest_RDX, g->guest_RSI, g->guest_RDI,
			    g->guest_RBP, g->guest_R8, g->guest_R9, g->guest_R10, g->guest_R11,
			    g->guest_R12, g->guest_R13, g->guest_R14, g->guest_R15,
			    g->guest_FS_CONST };
	ULong h = 0xcbf29ce484222325ull;
	UInt i, b;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		for (b = 0; b < 8; b++) {
			h ^= (r[i] >> (8 * b)) & 0xFF;
			h *= 0x100000001b3ull;
		}
	return h;
}

void hsin_regs(ThreadId tid, VexGuestAMD64State *g)
{
	VG_(get_shadow_regs_area)(tid, (UChar *)g, 0, 0, sizeof(*g));
}

struct hsin_thread *hsin_thr(ThreadId tid)
{
	if (tid >= HSIN_MAX_TID)
		VG_(tool_panic)("hsrec: more threads than it can name");
	return &hsin_th[tid];
}

/* --- Rebuild: the log read --------------------------------------------- */

void hsin_diverge(const HChar *fmt, ...)
{
	HChar text[1024];
	va_list ap;

	va_start(ap, fmt);
	VG_(vsnprintf)(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (hsin_out)
		hsin_out->diverged(text, hsin_at, hsin_at_how);
	VG_(exit)(0);
}

static Bool hsin_read_exact(void *p, SizeT n)
{
	UChar *c = p;

	while (n > 0) {
		Int r = VG_(read)(hsin_fd, c, n > 0x40000000 ? 0x40000000 : (Int)n);

		if (r <= 0)
			return False;
		c += r;
		n -= (SizeT)r;
	}
	return True;
}

/* One record read into hsin_rec: its kind, or 0 at the log's end. */
static UInt hsin_load(void)
{
	UInt head[2];

	if (hsin_fd < 0 || !hsin_read_exact(head, sizeof(head)))
		return 0;
	if (head[1] > (1u << 30))
		hsin_diverge("at event %llu: the input log is malformed (a record of %u bytes)",
			     hsin_events, head[1]);
	if (head[1] > hsin_rcap) {
		hsin_rcap = head[1];
		hsin_rec = VG_(realloc)("hsin.rec", hsin_rec, hsin_rcap);
	}
	if (!hsin_read_exact(hsin_rec, head[1]))
		return 0;
	hsin_rlen = head[1];
	return head[0];
}

/* The next record's kind, loaded (0: the log ends). A debugger's stop
 * (HSIN_HERE) that more of the log follows is passed over: the rebuild
 * stops only at the last one, where the live run stands (following the
 * log, at every one: the log may not have more yet). */
UInt hsin_peek(void)
{
	static UChar here[64];
	UInt k, n;

	if (hsin_kind)
		return hsin_kind;
	k = hsin_load();
	while (k == HSIN_HERE && !hsin_follow) {
		n = hsin_rlen < sizeof(here) ? hsin_rlen : sizeof(here);
		VG_(memcpy)(here, hsin_rec, n);
		k = hsin_load();
		if (k == 0) {
			VG_(memcpy)(hsin_rec, here, n);
			hsin_rlen = n;
			k = HSIN_HERE;
			break;
		}
		hsin_events++;
	}
	hsin_kind = k;
	return hsin_kind;
}

void hsin_take(void)
{
	hsin_kind = 0;
	hsin_events++;
}

/* The next record must be of @kind, at least @len bytes: else the
 * rebuild has diverged (@what: what the program does now). */
void hsin_expect(UInt kind, UInt len, const HChar *what)
{
	static const HChar *const names[] = {
		"nothing", "an exec's start", "the initial stack", "a syscall's write",
		"a syscall", "an instruction's result", "a signal", "an exec",
		"an opened file", "the end", "another thread's turn", "the CPU's features",
		"where the debugger stopped it", "the debugger's write",
	};
	UInt k = hsin_peek();

	if (k == kind && hsin_rlen >= len)
		return;
	if (k == HSIN_SIGNAL && hsin_rlen >= 8)
		hsin_diverge("at event %llu: the program does %s where a signal (%d) came when "
			     "recorded", hsin_events, what, (Int)hsin_u32(hsin_rec + 4));
	if (k == HSIN_TURN && hsin_rlen >= 12)
		hsin_diverge("at event %llu: the program does %s where thread %u ran next when "
			     "recorded", hsin_events, what, hsin_u32(hsin_rec));
	hsin_diverge("at event %llu: the program does %s where the recording has %s%s",
		     hsin_events, what, k < sizeof(names) / sizeof(names[0]) ? names[k] : "a record of a newer kind",
		     k ? "" : " (the input log ends: the recording was cut short)");
}

/* After an event: a signal next in the log sets the gate, and so does
 * the end (a run killed by a signal it did not handle ends between two
 * events: the rebuild must stop there too). */
void hsin_arm(void)
{
	UInt k = hsin_peek();

	hsin_limit = ~0ull;
	if (k == HSIN_SIGNAL && hsin_rlen >= 24)
		hsin_limit = hsin_u64(hsin_rec + 16);
	else if (k == HSIN_END && hsin_rlen >= 12)
		hsin_limit = hsin_u64(hsin_rec + 4);   /* the run ended there */
	else if (k == HSIN_TURN && hsin_rlen >= 12)
		hsin_limit = hsin_u64(hsin_rec + 4);   /* another thread ran from there */
	else if (hsin_is_point(k) && hsin_rlen >= 44 && hsin_u64(hsin_rec + 4) > 0)
		hsin_limit = hsin_u64(hsin_rec + 4) - 1; /* the live run stands inside that one */
	if (hsin_from && hsin_limit > hsin_from)
		hsin_limit = hsin_from;                /* the window starts there */
}

/* --- Rebuild: threads' turns ------------------------------------------- */

/* The next record hands the turn on at this count. */
Bool hsin_turn_here(ULong count)
{
	return hsin_peek() == HSIN_TURN && hsin_rlen >= 12 && hsin_u64(hsin_rec + 4) == count;
}

/* The next record is a turn: its thread is the owner from now. */
void hsin_take_turn(void)
{
	Int lwp = (Int)hsin_u32(hsin_rec);
	ThreadId t;

	for (t = 1; t < HSIN_MAX_TID; t++)
		if (hsin_th[t].lwp == lwp)
			break;
	if (t == HSIN_MAX_TID)
		hsin_diverge("at event %llu: thread %d ran next when recorded, which this run does "
			     "not have", hsin_events, lwp);
	hsin_take();
	hsin_owner = t;
}

void hsin_check(const HChar *what, ULong pc, ULong want_pc, ULong count, ULong want_count)
{
	if (pc != want_pc)
		hsin_diverge("at event %llu (%s): the pc is %#llx where the recording has %#llx",
			     hsin_events, what, pc, want_pc);
	if (count != want_count)
		hsin_diverge("at event %llu (%s): %llu superblocks ran before it where the "
			     "recording has %llu", hsin_events, what, count, want_count);
}

/* Rebuild: until it is @tid's turn, the big lock goes round. False if
 * the thread is ending instead (the process exits). */
Bool hsin_wait_turn(ThreadId tid)
{
	while (tid != hsin_owner) {
		if (VG_(is_exiting)(tid))
			return False;
		if (hsin_owner == VG_INVALID_THREADID)
			hsin_diverge("at event %llu: a thread ended where the recording has no other "
				     "thread's turn after it", hsin_events);
		VG_(vg_yield)();
	}
	return True;
}
