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
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
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
const HChar *hsin_keep_dir;        /* --hsrec-keep */

struct hsin_thread hsin_th[HSIN_MAX_TID];
/* Rebuild: the thread whose turn it is (the others wait at their next
 * block's entry), and the one a thread's clone is creating. */
ThreadId hsin_owner = 1;
/* Rebuild: a fatal signal took the threads down in another order than
 * when recorded: the log's records up to its end were their way out. */
Bool hsin_torn;
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

/* The program's memory is read through /proc/self/mem, not touched: a
 * page it may read can still fault (a file mapping past its file's end:
 * SIGBUS), which this makes a short count. Opened for each read, so that
 * no descriptor of the tool's stays open among the program's (and a
 * forked child reads its own). Called from translated code too, where a
 * fault catcher may not be set. */
/* /proc/self/mem opened (@flags) at @a: the descriptor, or -1. */
static Int hsin_client_mem(Addr a, Int flags)
{
	SysRes sr = VG_(open)("/proc/self/mem", flags, 0);

	if (sr_isError(sr))
		return -1;
	if (VG_(lseek)((Int)sr_Res(sr), (Off64T)a, VKI_SEEK_SET) != (Off64T)a) {
		VG_(close)((Int)sr_Res(sr));
		return -1;
	}
	return (Int)sr_Res(sr);
}

SizeT hsin_client_read(void *buf, Addr a, SizeT len)
{
	Int fd = hsin_client_mem(a, VKI_O_RDONLY), n;
	SizeT done = 0;

	if (fd < 0)
		return 0;
	while (done < len && (n = VG_(read)(fd, (UChar *)buf + done,
					     len - done > (1u << 30) ? 1 << 30 :
					     (Int)(len - done))) > 0)
		done += (SizeT)n;
	VG_(close)(fd);
	return done;
}

/* @len bytes from @buf into the program's memory at @a the same way,
 * whatever its protection (the kernel writes a private copy of a
 * read-only page): whether all of them went. */
Bool hsin_client_write(Addr a, const void *buf, SizeT len)
{
	Int fd = hsin_client_mem(a, VKI_O_RDWR);
	Bool ok;

	if (fd < 0)
		return False;
	ok = VG_(write)(fd, buf, (Int)len) == (Int)len;
	VG_(close)(fd);
	return ok;
}

static ULong hsin_mix(ULong h, ULong w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* @n bytes at @p mixed into @h, eight at a time (the last ones padded
 * with zeros). */
static ULong hsin_mix_bytes(ULong h, const UChar *p, SizeT n)
{
	SizeT i;
	ULong w;

	for (i = 0; i + 8 <= n; i += 8) {
		VG_(memcpy)(&w, p + i, 8);
		h = hsin_mix(h, w);
	}
	if (i < n) {
		w = 0;
		VG_(memcpy)(&w, p + i, n - i);
		h = hsin_mix(h, w);
	}
	return h;
}

ULong hsin_buf_hash(const void *p, ULong len)
{
	return len ? hsin_mix_bytes(0x9E3779B97F4A7C15ull ^ len, p, (SizeT)len) | 1 : 0;
}

/* Eight bytes at a time, each multiplied in and folded (a write of
 * megabytes costs about a millisecond); never 0. A range that cannot be
 * read to its end hashes what could be, and where it stopped. */
ULong hsin_bytes_hash(Addr a, ULong len)
{
	static UChar buf[1 << 16];
	ULong h = 0x9E3779B97F4A7C15ull ^ len, off = 0;

	if (!len || !VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ))
		return 0;
	while (off < len) {
		SizeT want = len - off < sizeof(buf) ? (SizeT)(len - off) : sizeof(buf);
		SizeT got = hsin_client_read(buf, a + off, want);

		h = hsin_mix_bytes(h, buf, got);
		off += got;
		if (got < want) {
			h = hsin_mix(h, off | 1ull << 63);
			break;
		}
	}
	return h | 1;
}

const Int hsin_arg_off[6] = {
	offsetof(VexGuestAMD64State, guest_RDI), offsetof(VexGuestAMD64State, guest_RSI),
	offsetof(VexGuestAMD64State, guest_RDX), offsetof(VexGuestAMD64State, guest_R10),
	offsetof(VexGuestAMD64State, guest_R8), offsetof(VexGuestAMD64State, guest_R9),
};

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

/* Rebuild, --hsrec-trail=W: the light run is still going (`run`), and the
 * rebuild trails it, W superblocks short of the latest HSIN_TICK, until
 * the log's end says where the window of its last W superblocks opens
 * (hsin_from); up to there only the light instrumentation runs. The log
 * is read from the pipe exactly as it is taken (an exec'd image opens it
 * again and reads on), and looked over ahead of that in the log file
 * itself, through a descriptor of its own: the ticks, the end, and how
 * far whole records go. So nothing read ahead is kept, whatever the
 * run's syscalls brought in meanwhile. */
ULong hsin_trail;
Bool hsin_trailing;                /* ... and the window is not open yet */
const HChar *hsin_trail_log;       /* the log file (--hsrec-trail-log) */
static Int hsin_scan_fd = -1;
static ULong hsin_scan_off;        /* the file looked over up to here */
static ULong hsin_event_end;       /* where its last whole record but a tick ends */
static ULong hsin_data_off;        /* the log's bytes read from the pipe */
static ULong hsin_horizon;         /* the latest tick's count */
static Bool hsin_trail_ended;      /* the log's HSIN_END looked over */

/* Trailing: the furthest block the rebuild may enter before it waits. */
static ULong hsin_trail_limit(void)
{
	return hsin_horizon > hsin_trail ? hsin_horizon - hsin_trail : 0;
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
		hsin_data_off += (ULong)r;
	}
	return True;
}

/* @n bytes of the log file at @off, all there. */
static Bool hsin_scan_read(void *p, ULong off, Int n)
{
	return VG_(lseek)(hsin_scan_fd, (Off64T)off, VKI_SEEK_SET) == (Off64T)off &&
	       VG_(read)(hsin_scan_fd, p, n) == n;
}

/* Trailing: the log file looked over, from where it was last, as far as
 * its records are whole (the file only grows, in order: up to its size
 * now). */
static void hsin_scan(void)
{
	UChar p[HSIN_HEAD + 12];
	struct vg_stat st;
	ULong size;

	if (hsin_scan_fd < 0) {
		SysRes sr = VG_(open)(hsin_trail_log, VKI_O_RDONLY, 0);

		if (sr_isError(sr))
			hsin_diverge("cannot open the input log %s", hsin_trail_log);
		hsin_scan_fd = VG_(safe_fd)(sr_Res(sr));
	}
	if (VG_(fstat)(hsin_scan_fd, &st) != 0 || st.size < 0)
		return;
	size = (ULong)st.size;
	while (hsin_scan_off + HSIN_HEAD <= size &&
	       hsin_scan_read(p, hsin_scan_off, HSIN_HEAD)) {
		UInt kind = hsin_u32(p), len = hsin_u32(p + 4);

		if (len > (1u << 30))
			hsin_diverge("at event %llu: the input log is malformed further on (a "
				     "record of %u bytes)", hsin_events, len);
		if (hsin_scan_off + HSIN_HEAD + len > size)
			return;    /* not whole yet */
		if (kind == HSIN_TICK && len >= 8 && hsin_scan_read(p + HSIN_HEAD,
								 hsin_scan_off + HSIN_HEAD, 8) &&
		    hsin_u64(p + HSIN_HEAD) > hsin_horizon)
			hsin_horizon = hsin_u64(p + HSIN_HEAD);
		if (kind == HSIN_END && len >= 12 && !hsin_trail_ended &&
		    hsin_scan_read(p + HSIN_HEAD, hsin_scan_off + HSIN_HEAD, 12)) {
			ULong end = hsin_u64(p + HSIN_HEAD + 4);

			hsin_trail_ended = True;
			/* (`run` trails only runs longer than the window.) */
			if (hsin_trailing)
				hsin_from = end > hsin_trail + 1 ? end - hsin_trail : 1;
		}
		hsin_scan_off += HSIN_HEAD + len;
		if (kind != HSIN_TICK)
			hsin_event_end = hsin_scan_off;
	}
}

/* One record into hsin_rec: its kind, or 0 at the log's end. Ticks are
 * passed over. */
static UInt hsin_load(void)
{
	UInt head[2];

	for (;;) {
		if (hsin_fd < 0 || !hsin_read_exact(head, sizeof(head)))
			return 0;
		if (head[1] > (1u << 30))
			hsin_diverge("at event %llu: the input log is malformed (a record of %u "
				     "bytes)", hsin_events, head[1]);
		if (head[1] > hsin_rcap) {
			hsin_rcap = head[1];
			hsin_rec = VG_(realloc)("hsin.rec", hsin_rec, hsin_rcap);
		}
		if (!hsin_read_exact(hsin_rec, head[1]))
			return 0;
		if (head[0] == HSIN_TICK)
			continue;
		hsin_rlen = head[1];
		return head[0];
	}
}

/* Trailing: whether the next record is whole in the log already, so that
 * hsin_peek would not wait for the run to write it. */
static Bool hsin_next_here(void)
{
	if (hsin_kind)
		return True;
	hsin_scan();
	return hsin_event_end > hsin_data_off;
}

/* Trailing, at the gate: the rebuild is W superblocks short of the light
 * run's latest tick, and waits until the run gets further or ends. */
static void hsin_trail_wait(void)
{
	while (!hsin_trail_ended && hsin_count > hsin_trail_limit()) {
		ULong was = hsin_scan_off;

		hsin_scan();
		if (hsin_scan_off == was) {
			struct vki_pollfd none;

			VG_(poll)(&none, 0, 2);    /* nothing new: 2 ms */
		}
	}
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
		"where the debugger stopped it", "the debugger's write", "how far the run had come",
		"what a syscall read", "a syscall's argument registers",
		"a read of shared memory",
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
	UInt k;

	hsin_limit = ~0ull;
	if (hsin_trailing && !hsin_trail_ended && !hsin_next_here()) {
		/* Nothing logged yet past where the rebuild stands. */
		hsin_limit = hsin_trail_limit();
		return;
	}
	k = hsin_peek();
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
	if (hsin_trailing && !hsin_trail_ended && hsin_limit > hsin_trail_limit())
		hsin_limit = hsin_trail_limit();       /* the run has got no further */
}

Bool hsin_trail_gate(void)
{
	if (!hsin_trailing || hsin_trail_ended || hsin_count <= hsin_trail_limit())
		return False;
	hsin_trail_wait();
	hsin_arm();
	return hsin_count <= hsin_limit;
}

/* --- Rebuild: threads' turns ------------------------------------------- */

/* The next record hands the turn on at this count. */
Bool hsin_turn_here(ULong count)
{
	return hsin_peek() == HSIN_TURN && hsin_rlen >= 12 && hsin_u64(hsin_rec + 4) == count;
}

/* Every thread of the run is on its way out (Valgrind's nuke after a
 * fatal signal, or the process's exit). */
static Bool hsin_all_exiting(void)
{
	ThreadId t;

	for (t = 1; t < HSIN_MAX_TID; t++)
		if (hsin_th[t].lwp && !VG_(is_exiting)(t))
			return False;
	return True;
}

/* The next record is a turn: its thread is the owner from now. */
void hsin_take_turn(void)
{
	Int lwp = (Int)hsin_u32(hsin_rec);
	ThreadId t;

	for (t = 1; t < HSIN_MAX_TID; t++)
		if (hsin_th[t].lwp == lwp)
			break;
	if (t == HSIN_MAX_TID && hsin_all_exiting()) {
		/* A fatal signal took the process down: the recorded turns
		 * left were its threads' ways out, which Valgrind took here
		 * in another order (one gone already). The history ends. */
		hsin_take();
		hsin_owner = VG_INVALID_THREADID;
		hsin_torn = True;
		return;
	}
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
