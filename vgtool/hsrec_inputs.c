/*
 * vgtool/hsrec_inputs.c: the input log, written in the light mode and
 * replayed in the rebuild mode (hsrec_inputs.h, hsrec_proto.h).
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Both modes count the superblocks the threads entered (an inline add at
 * each block's entry: VEX fixes a block's shape before any tool sees it,
 * so the count is the same in both modes, unlike Valgrind's own counter;
 * one thread runs at a time, so one count serves them all). An event's
 * count says exactly when it happened. The rebuild finds again, by a gate
 * at each block's entry that fires when the count passes the next
 * event's, a signal delivered at record time between two blocks, and the
 * end of a thread's turn (HSIN_TURN): a thread whose turn it is not leaves
 * its block before it runs and waits in hsin_stop for its turn.
 *
 * This file is the callbacks, the light log written, the gate and the
 * nondeterministic instructions; it calls into hsrec_rebuild.c (the
 * rebuild's syscalls) and hsrec_log.c (the log read back, the turns, the
 * state the three share), and neither calls it back (hsrec_inputs_int.h
 * says which file owns what). What the rebuild does not do yet ends it
 * with HSREC_DIVERGED, naming the event, at the exact point: a wait for a
 * signal, shared memory. docs/record.md lists them.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_gdbserver.h"
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
#include "hsrec_inputs_int.h"
#include "hsrec_sys.h"
#include "hsrec_proto.h"

/* VEX's own helpers (guest_amd64_helpers.c, exported by libvex). */
extern ULong amd64g_dirtyhelper_RDTSC(void);
extern void amd64g_dirtyhelper_RDTSCP(VexGuestAMD64State *st);
extern ULong amd64g_dirtyhelper_RDRAND(void);
extern ULong amd64g_dirtyhelper_RDSEED(void);
/* libcoregrind's, not in the public headers (VALGRIND-NOTES.md): a signal
 * sent to a thread of this process. */
extern Int VG_(tkill)(Int lwpid, Int signo);
/* ... and the file a program name without a slash runs (PATH searched). */
extern const HChar *VG_(find_executable)(const HChar *exec);

#define HSIN_STACK_MAX (256u << 10)
#define HSIN_BUF (1u << 16)

enum hsin_mode hsin_mode;
static const HChar *hsin_in_path;
static Bool hsin_stack_done;

/* Light: the thread that ran last; another logs HSIN_TURN first. */
static ThreadId hsin_cur = 1;
/* Set by the gate when the thread must leave its block before it runs
 * (read by the translated code right after the gate). */
static ULong hsin_leave;
/* A signal's frame under way: light, its writes are logged (the siginfo
 * the program reads); rebuild, they are the recorded ones. */
static Bool hsin_in_frame;
static ThreadId hsin_frame_tid;

/* Light: the write buffer. */
static UChar hsin_buf[HSIN_BUF];
static UInt hsin_len;

/* --- Light: the log written ------------------------------------------- */

/* @n bytes at @p into the log, all of them; a failure stops the log. */
static void hsin_write(const UChar *p, SizeT n)
{
	while (hsin_fd >= 0 && n > 0) {
		Int w = VG_(write)(hsin_fd, p, n > 0x40000000 ? 0x40000000 : (Int)n);

		if (w <= 0) {
			VG_(umsg)("hsrec: cannot write the input log (%d); recording stops\n", w);
			VG_(close)(hsin_fd);
			hsin_fd = -1;
			return;
		}
		p += w;
		n -= (SizeT)w;
	}
}

static void hsin_flush(void)
{
	hsin_write(hsin_buf, hsin_len);
	hsin_len = 0;
}

static void hsin_put(const void *p, SizeT n)
{
	if (hsin_fd < 0)
		return;
	if (hsin_len + n > HSIN_BUF)
		hsin_flush();
	if (n > HSIN_BUF) {
		hsin_write(p, n);      /* a big read's bytes: straight out */
		return;
	}
	VG_(memcpy)(hsin_buf + hsin_len, p, n);
	hsin_len += (UInt)n;
}

static void hsin_put32(UInt v) { hsin_put(&v, 4); }
static void hsin_put64(ULong v) { hsin_put(&v, 8); }

static void hsin_head(UInt kind, SizeT len)
{
	hsin_put32(kind);
	hsin_put32((UInt)len);
}

Bool hsin_stack_range(Addr sp, Addr *from, Addr *end)
{
	NSegment const *seg = VG_(am_find_nsegment)(sp);

	if (!seg || seg->kind != SkAnonC)
		return False;
	*end = seg->end + 1;
	*from = *end - seg->start > HSIN_STACK_MAX ? *end - HSIN_STACK_MAX : seg->start;
	return VG_(am_is_valid_for_client)(*from, *end - *from, VKI_PROT_READ);
}

static void hsin_light_stack(ThreadId tid)
{
	Addr from, end;

	if (!hsin_stack_range(VG_(get_SP)(tid), &from, &end))
		return;
	hsin_head(HSIN_STACK, 8 + (end - from));
	hsin_put64(from);
	hsin_put((const void *)from, end - from);
}

/* The program's descriptor @fd, if a regular file: its identity into
 * @st, its path into @path (NUL-ended, at most 4095 bytes), and the
 * path's length (else 0). */
static SSizeT hsin_fd_file(Int fd, struct vg_stat *st, HChar path[4096])
{
	HChar link[64];
	SSizeT n;

	if (fd < 0 || fd >= HSIN_MAX_FD || VG_(fstat)(fd, st) != 0 || !VKI_S_ISREG(st->mode))
		return 0;
	VG_(sprintf)(link, "/proc/self/fd/%d", fd);
	n = VG_(readlink)(link, path, 4095);
	if (n <= 0 || n >= 4095)
		return 0;
	path[n] = 0;
	return n;
}

/* A file descriptor the program just opened: a regular file is logged
 * with its identity, so that the rebuild opens the same file. */
static void hsin_light_file(Int fd)
{
	struct vg_stat st;
	HChar path[4096];
	SSizeT n = hsin_fd_file(fd, &st, path);

	if (!n)
		return;
	hsin_head(HSIN_FILE, 44 + n);
	hsin_put32((UInt)fd);
	hsin_put64(st.dev);
	hsin_put64(st.ino);
	hsin_put64((ULong)st.size);
	hsin_put64(st.mtime);
	hsin_put64(st.mtime_nsec);
	hsin_put(path, (SizeT)n);
}

/* Light: the regular file the program mapped through @fd, copied into
 * hsin_keep_dir under its identity (once), unless it is the system's (a
 * package changes it, never the program; nor /proc, /sys, /dev), read-only
 * to everyone (a file made so is replaced, not changed: git's objects and
 * packs), larger than HSIN_KEEP_MAX, or over HSIN_KEEP_ALL in all: the
 * rebuild maps the copy if the file has been replaced by then (a file the
 * program itself replaces as it runs, as git its index). Read through the
 * program's own descriptor with pread (another descriptor, closed, would
 * let go of the program's POSIX locks on the file), written to a name of
 * its own, then renamed: a copy is whole or absent, and one the file
 * changed under (its identity then) is dropped. */
#define HSIN_KEEP_ALL (256ull << 20)
#define HSIN_O_NOFOLLOW 0400000

extern SysRes VG_(pread)(Int fd, void *buf, Int count, OffT offset);

static void hsin_light_keep(Int fd)
{
	static const HChar *const sys[] = { "/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
					    "/etc/", "/opt/", "/nix/store/", "/gnu/store/",
					    "/snap/", "/proc/", "/sys/", "/dev/" };
	static UChar buf[65536];
	static ULong kept;         /* bytes, this run */
	HChar path[4096], name[4200], tmp[4300];
	struct vg_stat st, now;
	SysRes out, r;
	ULong off = 0;

	if (!hsin_keep_dir || !hsin_fd_file(fd, &st, path) ||
	    !(st.mode & (VKI_S_IWUSR | VKI_S_IWGRP | VKI_S_IWOTH)) ||
	    (ULong)st.size > HSIN_KEEP_MAX || kept + (ULong)st.size > HSIN_KEEP_ALL)
		return;
	for (UInt i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (!VG_(strncmp)(path, sys[i], VG_(strlen)(sys[i])))
			return;
	hsin_keep_name(name, st.dev, st.ino, (ULong)st.size, st.mtime, st.mtime_nsec);
	if (!sr_isError(VG_(stat)(name, &now)))
		return;            /* (kept already) */
	VG_(sprintf)(tmp, "%s.%d", name, VG_(getpid)());
	out = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL | HSIN_O_NOFOLLOW, 0600);
	if (sr_isError(out))
		return;
	for (;;) {
		r = VG_(pread)(fd, buf, sizeof(buf), (OffT)off);
		if (sr_isError(r) || sr_Res(r) == 0 ||
		    VG_(write)(sr_Res(out), buf, (Int)sr_Res(r)) != (Int)sr_Res(r))
			break;
		off += sr_Res(r);
	}
	VG_(close)(sr_Res(out));
	if (sr_isError(r) || sr_Res(r) != 0 || off != (ULong)st.size ||
	    VG_(fstat)(fd, &now) != 0 || now.size != st.size || now.mtime != st.mtime ||
	    now.mtime_nsec != st.mtime_nsec || VG_(rename)(tmp, name) != 0) {
		VG_(unlink)(tmp);  /* (changed as it was read, a full disk: none) */
		return;
	}
	kept += off;
}

/* Light: @tid runs now; if another ran last, its turn is logged. */
static void hsin_light_turn(ThreadId tid)
{
	if (tid == hsin_cur)
		return;
	hsin_cur = tid;
	hsin_head(HSIN_TURN, 12);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put64(hsin_count);
}

/* Light: @tid read @size bytes (at most 8) at @a from shared memory
 * (hsrec_shared.c). */
void hsin_light_load(ThreadId tid, Addr a, UInt size, const UChar *bytes)
{
	hsin_light_turn(tid);
	hsin_head(HSIN_LOAD, 16 + size);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put32(size);
	hsin_put64(a);
	hsin_put(bytes, size);
}

/* --- Rebuild: the gate ------------------------------------------------- */

/* The running thread leaves the block it is entering, before it runs
 * (@ip: its first instruction), through the spent event counter that
 * hands it to the scheduler (hsin_stop). */
static void hsin_leave_block(VexGuestAMD64State *g, ULong ip)
{
	hsin_count--;              /* the block is entered again */
	hsin_limit = hsin_count;   /* ... and left again if nothing changed */
	g->guest_RIP = ip;
	g->host_EvC_COUNTER = 0;
	hsin_leave = 1;
	hsin_at = 0;
}

/* --- Light and rebuild: where a debugger stopped the run ---------------- */

/* Light, --hsrec-stop-at-end: stop for the debugger as the syscall that
 * ends the program starts; the thread stopped so, and its call. */
static Bool hsin_stop_at_end;
static ThreadId hsin_end_tid;
static UInt hsin_end_nr;

/* @g's hash for a HSIN_HERE with @flags: with HSIN_HERE_SYSCALL, its rcx
 * and r11 left out (the light run's syscall instruction set them before
 * the stop; the rebuild stops before it). */
static ULong hsin_here_hash(const VexGuestAMD64State *g, UInt flags)
{
	VexGuestAMD64State h;

	if (!(flags & HSIN_HERE_SYSCALL))
		return hsin_hash(g);
	h = *g;
	h.guest_RCX = 0;
	h.guest_R11 = 0;
	return hsin_hash(&h);
}

/* @c's value as a hex digit, or -1. */
static Int hsin_hex_nibble(HChar c)
{
	if (VG_(isdigit)(c))
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* @s, after a space, as hex digits: its value, and *@s past them (False:
 * none). */
static Bool hsin_hex_word(const HChar **s, ULong *v)
{
	const HChar *p = *s;

	if (*p != ' ' || hsin_hex_nibble(p[1]) < 0)
		return False;
	for (*v = 0, p++; hsin_hex_nibble(*p) >= 0; p++) {
		if (*v >> 60)
			return False;      /* more than 64 bits */
		*v = *v * 16 + (ULong)hsin_hex_nibble(*p);
	}
	*s = p;
	return True;
}

/* The program's brk heap, as Valgrind grows and shrinks it. */
static Addr hsin_brk_lo, hsin_brk_hi;

void hsin_brk_moved(Addr a, SizeT len, Bool grew)
{
	if (grew) {
		if (!hsin_brk_lo || a < hsin_brk_lo)
			hsin_brk_lo = a;
		if (a + len > hsin_brk_hi)
			hsin_brk_hi = a + len;
	} else if (a + len >= hsin_brk_hi && a >= hsin_brk_lo) {
		hsin_brk_hi = a;
	}
}

/* Whether @s holds no code the program may run: not executable. A write
 * into code would not be seen by translations made from it (and a
 * rebuild cannot discard them where it makes the write, inside a
 * superblock). */
static Bool hsin_no_code(NSegment const *s)
{
	return s && !s->hasX;
}

/* Whether the debugger may write @len bytes at @a: memory the program
 * may write, holding no code; or its brk heap, which Valgrind maps
 * executable where the kernel would not, and which no program runs. */
static Bool hsin_pokable(Addr a, SizeT len)
{
	if (!len || !VG_(am_is_valid_for_client)(a, len, VKI_PROT_WRITE))
		return False;
	if (a >= hsin_brk_lo && a + len <= hsin_brk_hi)
		return True;
	return hsin_no_code(VG_(am_find_nsegment)(a)) &&
	       hsin_no_code(VG_(am_find_nsegment)(a + len - 1));
}

/* The debugger's write (`hindsight.poke ... ADDR HEX`): @len bytes from
 * @hex at @a, if it may write there (hsin_pokable); False, said why,
 * else. */
static Bool hsin_poke_here(Addr a, const HChar *hex, SizeT len)
{
	SizeT i;

	if (!hsin_pokable(a, len)) {
		VG_(gdb_printf)("hindsight.poke: the program cannot write %lu bytes at %#lx "
				"(not mapped writable, or code)\n", len, a);
		return False;
	}
	for (i = 0; i < len; i++)
		((UChar *)a)[i] = (UChar)(hsin_hex_nibble(hex[2 * i]) << 4 |
					  hsin_hex_nibble(hex[2 * i + 1]));
	return True;
}

/* Whether @pc holds a syscall instruction (0f 05) the program can read. */
static Bool hsin_syscall_insn_at(Addr pc)
{
	return VG_(am_is_valid_for_client)(pc, 2, VKI_PROT_READ) &&
	       ((const UChar *)pc)[0] == 0x0f && ((const UChar *)pc)[1] == 0x05;
}

/* HSIN_HERE's (or HSIN_POKE's) 48 bytes: the place and its check fields,
 * after a head of @kind with @more bytes to follow them. */
static void hsin_put_here(UInt kind, SizeT more, UInt lwp, ULong count, ULong pc, ULong sp,
			  ULong hash, ULong rax, UInt flags)
{
	hsin_head(kind, 48 + more);
	hsin_put32(lwp);
	hsin_put64(count);
	hsin_put64(pc);
	hsin_put64(sp);
	hsin_put64(hash);
	hsin_put64(rax);
	hsin_put32(flags);
}

/* `hindsight.born`: "hindsight.born N", then a line for each of the N
 * threads a clone made that have not run yet (Valgrind's gdbserver lists
 * a thread only once it has: it is VgTs_Init until then): its id and its
 * registers in hex, as the clone left them (the parent's, with its own
 * stack pointer, rax 0 and its TLS), laid out as hsrec_proto.h says
 * (HSREC_BORN_FXSAVE, HSREC_BORN_YMMH, HSREC_BORN_BYTES). */
static void hsin_born(void)
{
	static HChar hex[2 * HSREC_BORN_BYTES + 1];
	static const HChar digits[] = "0123456789abcdef";
	VexGuestAMD64State g;
	UChar raw[HSREC_BORN_BYTES] __attribute__((aligned(16)));
	ULong *w = (ULong *)raw;
	UInt n = 0, i, k;

	for (i = 1; i < HSIN_MAX_TID; i++)
		n += hsin_th[i].born && hsin_th[i].born_lwp > 0 ? 1 : 0;
	VG_(gdb_printf)("hindsight.born %u\n", n);
	for (i = 1; i < HSIN_MAX_TID; i++) {
		if (!hsin_th[i].born || hsin_th[i].born_lwp <= 0)
			continue;
		hsin_regs(i, &g);
		VG_(memset)(raw, 0, sizeof(raw));
		w[0] = g.guest_RAX; w[1] = g.guest_RBX; w[2] = g.guest_RCX; w[3] = g.guest_RDX;
		w[4] = g.guest_RSI; w[5] = g.guest_RDI; w[6] = g.guest_RBP; w[7] = g.guest_RSP;
		w[8] = g.guest_R8; w[9] = g.guest_R9; w[10] = g.guest_R10; w[11] = g.guest_R11;
		w[12] = g.guest_R12; w[13] = g.guest_R13; w[14] = g.guest_R14; w[15] = g.guest_R15;
		w[16] = g.guest_RIP;
		w[17] = LibVEX_GuestAMD64_get_rflags(&g);
		w[18] = g.guest_FS_CONST;
		LibVEX_GuestAMD64_fxsave(&g, (HWord)(raw + HSREC_BORN_FXSAVE));
		for (k = 0; k < 16; k++)
			VG_(memcpy)(raw + HSREC_BORN_YMMH + 16 * k,
				    (const UChar *)&g.guest_YMM0 + 32 * k + 16, 16);
		for (k = 0; k < HSREC_BORN_BYTES; k++) {
			hex[2 * k] = digits[raw[k] >> 4];
			hex[2 * k + 1] = digits[raw[k] & 15];
		}
		hex[2 * HSREC_BORN_BYTES] = 0;
		VG_(gdb_printf)("%d %s\n", hsin_th[i].born_lwp, hex);
	}
}

/* `hindsight.here` while every thread waits in a syscall (a Ctrl-C, a
 * deadlock): the place is the last of them entering its own, the syscall
 * instruction run (HSIN_HERE_INSIDE), with the check fields its syscall's
 * record will have; the rebuild stops there, every other thread in its
 * syscall too. The reply's pc is past that thread's syscall instruction. */
static Bool hsin_here_inside(void)
{
	struct hsin_thread *last = NULL;
	ThreadId tid = VG_INVALID_THREADID;

	for (UInt i = 1; i < HSIN_MAX_TID; i++)
		if (hsin_th[i].in_sys && (!last || hsin_th[i].sys_count > last->sys_count)) {
			last = &hsin_th[i];
			tid = i;
		}
	/* (The place must be the run's latest: no superblock since, and
	 * no turn to log first, which a thread that ran since and ended
	 * would leave.) */
	if (!last || last->sys_count != hsin_count || tid != hsin_cur) {
		VG_(gdb_printf)("hindsight.here: every thread waits in a syscall, and the last "
				"to run has ended since\n");
		return True;
	}
	if (!hsin_syscall_insn_at(last->sys_pc - 2)) {
		VG_(gdb_printf)("hindsight.here: every thread waits in a syscall, the last not "
				"made by a syscall instruction\n");
		return True;
	}
	hsin_put_here(HSIN_HERE, 0, (UInt)last->sys_lwp, last->sys_count, last->sys_pc,
		      last->sys_sp, last->sys_hash, last->sys_rax, HSIN_HERE_INSIDE);
	hsin_flush();
	VG_(gdb_printf)("hindsight.here %llu %#llx\n", last->sys_count, last->sys_pc);
	return True;
}

/* "hindsight.here", "hindsight.poke ADDR HEX", each optionally followed
 * (before ADDR) by " between" or " syscall": where the stop is (below). */
Bool hsin_monitor(ThreadId tid, const HChar *cmd)
{
	VexGuestAMD64State g;
	Bool between, sys, poke;
	const HChar *rest;
	ULong a = 0, count;
	SizeT len = 0;
	UInt flags;
	Addr pc;

	if (VG_(strcmp)(cmd, "hindsight.stop") == 0) {
		/* The debugger let go of the program: the log ends at the
		 * last HSIN_HERE, and the program runs on unrecorded. */
		if (hsin_mode == HSIN_MODE_LIGHT && hsin_fd >= 0) {
			hsin_flush();
			VG_(close)(hsin_fd);
			hsin_fd = -1;
		}
		VG_(gdb_printf)("hindsight.stop\n");
		return True;
	}
	if (VG_(strcmp)(cmd, "hindsight.born") == 0) {
		hsin_born();
		return True;
	}
	if (VG_(strncmp)(cmd, "hindsight.insys ", 16) == 0) {
		/* Whether the thread of this id is inside a syscall (one that
		 * waits: another thread has the turn meanwhile). */
		Int lwp = (Int)VG_(strtoll10)(cmd + 16, NULL);
		Bool in = False;

		for (UInt i = 1; i < HSIN_MAX_TID && lwp > 0; i++)
			in |= hsin_th[i].in_sys && hsin_th[i].sys_lwp == lwp;
		VG_(gdb_printf)("hindsight.insys %d\n", in ? 1 : 0);
		return True;
	}
	if (VG_(strcmp)(cmd, "hindsight.why") == 0) {
		/* Why the thread stopped, if the tool stopped it. */
		VG_(gdb_printf)("hindsight.why %s\n", tid == VG_INVALID_THREADID ||
				tid != hsin_end_tid ? "none" :
				hsin_end_nr == __NR_exit ? "exit" : "exit_group");
		return True;
	}
	if (VG_(strncmp)(cmd, "hindsight.here", 14) == 0)
		poke = False;
	else if (VG_(strncmp)(cmd, "hindsight.poke", 14) == 0)
		poke = True;
	else
		return False;
	rest = cmd + 14;
	/* "between": the debugger knows the stop came between two superblocks
	 * (Ctrl-C, a signal from outside: Valgrind takes them in its
	 * scheduler), at the first instruction of the next one, which the
	 * count has not entered yet; "syscall": as the thread entered the
	 * syscall that ends its superblock (a caught syscall: its pc is past
	 * the instruction, which the stop stands before); else it came inside
	 * the one entered last (a breakpoint, a step, a fault). */
	between = VG_(strncmp)(rest, " between", 8) == 0;
	sys = VG_(strncmp)(rest, " syscall", 8) == 0;
	rest += between || sys ? 8 : 0;
	if (poke) {
		if (!hsin_hex_word(&rest, &a) || *rest != ' ' || !VG_(strlen)(rest + 1) ||
		    VG_(strlen)(rest + 1) % 2) {
			VG_(gdb_printf)("hindsight.poke: expected an address and hex bytes\n");
			return True;
		}
		rest++;
		len = VG_(strlen)(rest) / 2;
		for (SizeT i = 0; i < 2 * len; i++)
			if (hsin_hex_nibble(rest[i]) < 0) {
				VG_(gdb_printf)("hindsight.poke: expected hex bytes\n");
				return True;
			}
	} else if (*rest) {
		return False;
	}
	if (hsin_mode != HSIN_MODE_LIGHT || hsin_fd < 0) {
		VG_(gdb_printf)("%s: not recording inputs\n", poke ? "hindsight.poke" : "hindsight.here");
		return True;
	}
	if (tid == VG_INVALID_THREADID || tid != VG_(get_running_tid)()) {
		/* Stopped while every thread waits in a syscall: the place
		 * is where the last of them entered its own (hsin_here_inside). */
		if (!poke)
			return hsin_here_inside();
		VG_(gdb_printf)("hindsight.poke: every thread waits in a syscall\n");
		return True;
	}
	hsin_regs(tid, &g);
	pc = g.guest_RIP;
	if (sys) {
		pc -= 2;
		if (!hsin_thr(tid)->in_sys || !hsin_syscall_insn_at(pc)) {
			VG_(gdb_printf)("%s: not at the start of a syscall instruction\n",
					poke ? "hindsight.poke" : "hindsight.here");
			return True;
		}
	}
	if (poke && !hsin_poke_here((Addr)a, rest, len))
		return True;
	count = hsin_count + (between ? 1 : 0);
	flags = sys ? HSIN_HERE_SYSCALL : 0;
	hsin_light_turn(tid);
	hsin_put_here(poke ? HSIN_POKE : HSIN_HERE, poke ? 8 + len : 0, (UInt)VG_(gettid)(), count,
		      pc, g.guest_RSP, hsin_here_hash(&g, flags), g.guest_RAX, flags);
	if (poke) {
		hsin_put64(a);
		hsin_put((const void *)(Addr)a, len);
	}
	hsin_flush();
	VG_(gdb_printf)("%s %llu %#llx\n", poke ? "hindsight.poke" : "hindsight.here", count,
			(ULong)pc);
	return True;
}

/* Whether @g is the thread as the debugger's stop found it: its stack
 * pointer, rax and the hash of the other general registers. */
static Bool hsin_here_same(const VexGuestAMD64State *g)
{
	UInt flags = hsin_rlen >= 48 ? hsin_u32(hsin_rec + 44) : 0;

	return g->guest_RSP == hsin_u64(hsin_rec + 20) &&
	       hsin_here_hash(g, flags) == hsin_u64(hsin_rec + 28) &&
	       g->guest_RAX == hsin_u64(hsin_rec + 36);
}

/* Rebuild: the instruction HSIN_HERE names, once the gate found its
 * superblock (0: not yet); the superblock translated again with a check
 * before each of its instructions (hsin_here_check), and whether the gate
 * left it for that and it is entered again. */
static Addr hsin_here_pc;
static Addr hsin_here_block;
static Bool hsin_here_again;
/* ... and the translation to discard as the thread leaves client code. */
static Addr hsin_here_stale;

Addr hsin_here_retranslate(void)
{
	Addr a = hsin_here_stale;

	hsin_here_stale = 0;
	return a;
}

Bool hsin_here_block_at(Addr ip)
{
	return hsin_here_block && ip == hsin_here_block;
}

/* Follow mode: after a stop, the next record, read when the live run
 * logs it. Another stop in the superblock running now, at the same
 * count, is found by its checks; anything else by the gate, and the
 * checked translation goes. */
static void hsin_here_next(void)
{
	hsin_take();
	hsin_here_pc = 0;
	hsin_arm();
	if (hsin_is_point(hsin_peek()) && hsin_rlen >= 44 && hsin_u64(hsin_rec + 4) == hsin_count &&
	    hsin_here_block) {
		hsin_here_pc = hsin_u64(hsin_rec + 12);
		return;
	}
	hsin_here_stale = hsin_here_block;
	hsin_here_block = 0;
}

/* The debugger's write of the HSIN_POKE read last, made again where the
 * run stands (@at, @how as for hsin_here_end). */
static void hsin_poke(ThreadId tid, Addr at, UInt how)
{
	Addr a = hsin_rlen > 56 ? hsin_u64(hsin_rec + 48) : 0;
	SizeT len = hsin_rlen > 56 ? hsin_rlen - 56 : 0;
	UChar *old;

	if (!hsin_pokable(a, len))
		hsin_diverge("at event %llu: the debugger wrote %lu bytes at %#lx there when "
			     "recorded, where the rebuild cannot write", hsin_events, len, a);
	old = VG_(malloc)("hsin.poke", len);
	VG_(memcpy)(old, (void *)a, len);
	VG_(memcpy)((void *)a, hsin_rec + 56, len);
	hsin_out->poke(tid, at, how, a, old, hsin_rec + 56, len);
	VG_(free)(old);
}

/* The run is where the debugger stopped it when recorded: the same
 * thread, stack pointer and registers, or it diverged. @how: 1 between
 * two superblocks, 2 + N before instruction N of the running one. At a
 * stop (HSIN_HERE) the rebuild ends there, or (following the log) goes
 * on when it grows; a write the debugger made there (HSIN_POKE) is made
 * again, and the run goes on. So is every record of this same place
 * next (a check before this instruction has passed already). */
static void hsin_here_end(ThreadId tid, const VexGuestAMD64State *g, Addr at, UInt how)
{
	if (!hsin_here_same(g))
		hsin_diverge("at event %llu: where the debugger stopped the program when recorded "
			     "(%#llx), its %s differ", hsin_events, (ULong)at,
			     g->guest_RSP != hsin_u64(hsin_rec + 20) ? "stack pointer does" :
			     "registers do");
	do {
		ULong count = hsin_u64(hsin_rec + 4);

		if (hsin_peek() == HSIN_POKE) {
			hsin_poke(tid, at, how);
			hsin_here_next();
			if (!hsin_follow && !hsin_peek()) {
				/* The log ends with the write: the live run
				 * stood here when it was cut (killed). */
				hsin_out->here(tid, at, how, count);
				VG_(exit)(0);
			}
		} else {
			hsin_out->here(tid, at, how, count);
			if (!hsin_follow)
				VG_(exit)(0);
			hsin_here_next();
		}
	} while (hsin_is_point(hsin_peek()) && hsin_rlen >= 44 &&
		 hsin_u64(hsin_rec + 4) == hsin_count && hsin_u64(hsin_rec + 12) == at &&
		 (Int)hsin_u32(hsin_rec) == hsin_thr(tid)->lwp && hsin_here_same(g));
}

/* The gate at the entry of the superblock the debugger stopped inside:
 * at its first instruction, the run stops here (True: following the log,
 * it goes on, and the gate looks at the next record); else the block is
 * translated again, with a check before each instruction
 * (hsin_here_check), and entered again. */
static Bool hsin_here_gate(VexGuestAMD64State *g, ULong ip)
{
	ThreadId tid = VG_(get_running_tid)();
	ULong want = hsin_u64(hsin_rec + 4), pc = hsin_u64(hsin_rec + 12);

	const HChar *what = hsin_peek() == HSIN_POKE ? "wrote into" : "stopped";

	if (hsin_count != want)
		hsin_diverge("at event %llu: the debugger %s the program at %#llx inside its "
			     "superblock %llu when recorded; the rebuild has passed it", hsin_events,
			     what, pc, want);
	if ((Int)hsin_u32(hsin_rec) != hsin_thr(tid)->lwp)
		hsin_diverge("at event %llu: the debugger %s thread %u when recorded; thread "
			     "%d runs here", hsin_events, what, hsin_u32(hsin_rec), hsin_thr(tid)->lwp);
	if (hsin_rlen >= 48 && (hsin_u32(hsin_rec + 44) & HSIN_HERE_INSIDE))
		return False;      /* it runs to its syscall: hsin_syscall stops it */
	if (hsin_here_again) {
		hsin_here_again = False;
		hsin_here_pc = pc;
		return False;      /* checked now: it runs to the stop */
	}
	if (ip == pc && hsin_here_same(g)) {
		hsin_here_end(tid, g, ip, 1);
		return True;
	}
	hsin_here_pc = pc;
	hsin_here_block = ip;
	hsin_here_again = True;
	hsin_here_stale = ip;      /* discarded as the thread leaves client code */
	hsin_leave_block(g, ip);
	return False;
}

VG_REGPARM(2) void hsin_here_check(Addr pc, ULong idx)
{
	ThreadId tid = VG_(get_running_tid)();
	VexGuestAMD64State g;

	if (!hsin_here_pc || pc != hsin_here_pc || !hsin_is_point(hsin_peek()) ||
	    hsin_count != hsin_u64(hsin_rec + 4))
		return;
	hsin_regs(tid, &g);
	if (!hsin_here_same(&g))
		return;            /* an earlier pass of a loop unrolled in the block */
	hsin_here_end(tid, &g, pc, 2 + (UInt)idx);
}

/* Called by translated code at a block's entry when the count passed the
 * gate. A thread whose turn it is not leaves the block at once; so does
 * the owner when the recorded turn ends here, handing it on. Else the
 * recorded signal came before this block, from outside the program (a
 * timer, another process or thread). It is sent again, to this thread,
 * and the block left before it runs (entered again after the handler): a
 * signal Valgrind takes between blocks, which it does at once when the
 * event counter is spent. Its siginfo becomes the recorded one as the
 * frame is written (hsin_post_write). */
static void hsin_gate(VexGuestAMD64State *g, ULong ip)
{
	UInt k;
	Int sig;

	hsin_at = ip;
	hsin_at_how = HSREC_DIV_WHOLE;
	if (hsin_trail_gate() && VG_(get_running_tid)() == hsin_owner)
		return;                    /* the light run got further: on */
	if (hsin_from && hsin_count - 1 >= hsin_from) {
		hsin_leave_block(g, ip);   /* the window opens: hsin_window_due */
		return;
	}
	if (VG_(get_running_tid)() != hsin_owner) {
		hsin_leave_block(g, ip);
		return;
	}
	k = hsin_peek();
	sig = (Int)hsin_u32(hsin_rec + 4);
	if (k == HSIN_TURN && hsin_turn_here(hsin_count - 1)) {
		hsin_take_turn();
		hsin_leave_block(g, ip);
		return;
	}
	if (hsin_is_point(k)) {
		/* Stopped here (following the log), or written here: the
		 * next record may be due at this block too. */
		if (hsin_here_gate(g, ip) && hsin_count > hsin_limit)
			hsin_gate(g, ip);
		return;
	}
	if (k == HSIN_TURN)
		hsin_diverge("at event %llu: thread %u ran next after %llu superblocks when "
			     "recorded; the rebuild has passed it", hsin_events, hsin_u32(hsin_rec),
			     hsin_u64(hsin_rec + 4));
	if (k == HSIN_END && hsin_follow)
		hsin_diverge("at event %llu: the recorded run ended here, after %llu superblocks "
			     "(a signal it did not handle killed it)", hsin_events, hsin_limit);
	if (k == HSIN_END) {
		/* The recorded run ended here, between two superblocks: a
		 * signal it did not handle killed it, from outside (Ctrl-C,
		 * a timeout's), or the rebuild has gone otherwise. It ends
		 * here too, where the run stands; hindsight, which knows how
		 * the run ended, says which (stub_vgrec.c, vgrec_killed_check). */
		hsin_out->killed(VG_(get_running_tid)(), ip);
		VG_(exit)(0);
	}
	if (hsin_deliver)
		hsin_diverge("at event %llu: signal %d, sent again, is blocked here: it was taken "
			     "here when recorded", hsin_events, sig);
	if (ip != hsin_u64(hsin_rec + 8))
		hsin_diverge("at event %llu: signal %d came after %llu superblocks when recorded, "
			     "at %#llx; the rebuild is at %#llx then", hsin_events, sig, hsin_limit,
			     hsin_u64(hsin_rec + 8), ip);
	if (k != HSIN_SIGNAL)
		hsin_diverge("at event %llu: the gate fired with no event due", hsin_events);
	if (VG_(tkill)(VG_(gettid)(), sig) != 0)
		hsin_diverge("at event %llu: cannot send signal %d again", hsin_events, sig);
	hsin_deliver = True;
	hsin_leave_block(g, ip);   /* ... and back here if the signal was not taken */
}

/* --- Nondeterministic instructions --------------------------------------- */

static void hsin_light_insn(UInt which, ULong pc, ULong a, ULong b, ULong c)
{
	hsin_head(HSIN_INSN, 48);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put32(which);
	hsin_put64(pc);
	hsin_put64(hsin_count);
	hsin_put64(a);
	hsin_put64(b);
	hsin_put64(c);
}

/* Rebuild: the recorded results of instruction @which at @pc. */
static const UChar *hsin_replay_insn(UInt which, ULong pc)
{
	static const HChar *const names[] = { "rdtsc", "rdtscp", "rdrand", "rdseed" };
	const UChar *v;

	hsin_at = pc;
	hsin_at_how = HSREC_DIV_FIND;
	hsin_expect(HSIN_INSN, 48, names[which]);
	if (hsin_u32(hsin_rec + 4) != which)
		hsin_diverge("at event %llu: the program runs %s where the recording has another "
			     "instruction's result", hsin_events, names[which]);
	hsin_check(names[which], pc, hsin_u64(hsin_rec + 8), hsin_count, hsin_u64(hsin_rec + 16));
	v = hsin_rec + 24;
	hsin_at = 0;
	hsin_at_how = HSREC_DIV_FIND;
	return v;
}

static ULong hsin_l_rdtsc(ULong pc)
{
	ULong v = amd64g_dirtyhelper_RDTSC();

	hsin_light_insn(HSIN_INSN_RDTSC, pc, v, 0, 0);
	return v;
}

static void hsin_l_rdtscp(VexGuestAMD64State *g, ULong pc)
{
	amd64g_dirtyhelper_RDTSCP(g);
	hsin_light_insn(HSIN_INSN_RDTSCP, pc, g->guest_RAX, g->guest_RDX, g->guest_RCX);
}

static ULong hsin_l_rdrand(ULong pc)
{
	ULong v = amd64g_dirtyhelper_RDRAND();

	hsin_light_insn(HSIN_INSN_RDRAND, pc, v, 0, 0);
	return v;
}

static ULong hsin_l_rdseed(ULong pc)
{
	ULong v = amd64g_dirtyhelper_RDSEED();

	hsin_light_insn(HSIN_INSN_RDSEED, pc, v, 0, 0);
	return v;
}

static ULong hsin_r_one(UInt which, ULong pc)
{
	ULong v = hsin_u64(hsin_replay_insn(which, pc));

	hsin_take();
	hsin_arm();
	return v;
}

static ULong hsin_r_rdtsc(ULong pc) { return hsin_r_one(HSIN_INSN_RDTSC, pc); }
static ULong hsin_r_rdrand(ULong pc) { return hsin_r_one(HSIN_INSN_RDRAND, pc); }
static ULong hsin_r_rdseed(ULong pc) { return hsin_r_one(HSIN_INSN_RDSEED, pc); }

static void hsin_r_rdtscp(VexGuestAMD64State *g, ULong pc)
{
	const UChar *v = hsin_replay_insn(HSIN_INSN_RDTSCP, pc);

	g->guest_RAX = hsin_u64(v);
	g->guest_RDX = hsin_u64(v + 8);
	g->guest_RCX = hsin_u64(v + 16);
	hsin_take();
	hsin_arm();
}

/* --- The tool's callbacks ------------------------------------------------ */

Bool hsin_option(const HChar *arg)
{
	const HChar *s;
	Long from;

	if VG_STR_CLO(arg, "--hsrec-mode", s) {
		if (!VG_(strcmp)(s, "full"))
			hsin_mode = HSIN_MODE_FULL;
		else if (!VG_(strcmp)(s, "light"))
			hsin_mode = HSIN_MODE_LIGHT;
		else if (!VG_(strcmp)(s, "rebuild"))
			hsin_mode = HSIN_MODE_REBUILD;
		else
			VG_(fmsg_bad_option)(arg, "full, light or rebuild\n");
	} else if VG_STR_CLO(arg, "--hsrec-in", s) {
		hsin_in_path = s;
	} else if VG_INT_CLO(arg, "--hsrec-from", from) {
		hsin_from = from > 0 ? (ULong)from : 0;
	} else if VG_INT_CLO(arg, "--hsrec-trail", from) {
		hsin_trail = from > 0 ? (ULong)from : 0;
		hsin_trailing = hsin_trail > 0;
	} else if VG_STR_CLO(arg, "--hsrec-trail-log", s) {
		hsin_trail_log = s;
	} else if VG_STR_CLO(arg, "--hsrec-keep", s) {
		hsin_keep_dir = s;
	} else if VG_BOOL_CLO(arg, "--hsrec-follow", hsin_follow) {
	} else if VG_BOOL_CLO(arg, "--hsrec-stop-at-end", hsin_stop_at_end) {
	} else {
		return False;
	}
	return True;
}

/* The file the program @exe (as it was given to Valgrind) is. */
static const HChar *hsin_exe_file(const HChar *exe)
{
	const HChar *f = VG_(strchr)(exe, '/') ? exe : VG_(find_executable)(exe);

	return f ? f : exe;
}

/* The CPU features VEX presents to the program (HSIN_CPU). */
static ULong hsin_hwcaps(void)
{
	VexArch arch;
	VexArchInfo ai;

	VG_(machine_get_VexArchInfo)(&arch, &ai);
	return ai.hwcaps;
}

/* Rebuild: the features the recording ran with must be these; the ones
 * that differ are named. */
static void hsin_check_cpu(void)
{
	static const struct { ULong bit; const HChar *name; } caps[] = {
		{ VEX_HWCAPS_AMD64_SSE3, "SSE3" }, { VEX_HWCAPS_AMD64_SSSE3, "SSSE3" },
		{ VEX_HWCAPS_AMD64_CX16, "CX16" }, { VEX_HWCAPS_AMD64_LZCNT, "LZCNT" },
		{ VEX_HWCAPS_AMD64_AVX, "AVX" }, { VEX_HWCAPS_AMD64_RDTSCP, "RDTSCP" },
		{ VEX_HWCAPS_AMD64_BMI, "BMI" }, { VEX_HWCAPS_AMD64_AVX2, "AVX2" },
		{ VEX_HWCAPS_AMD64_RDRAND, "RDRAND" }, { VEX_HWCAPS_AMD64_F16C, "F16C" },
		{ VEX_HWCAPS_AMD64_RDSEED, "RDSEED" },
	};
	HChar names[160] = "";
	ULong was, now = hsin_hwcaps();

	hsin_expect(HSIN_CPU, 8, "its start");
	was = hsin_u64(hsin_rec);
	if (was == now) {
		hsin_take();
		return;
	}
	for (UInt i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if ((was ^ now) & caps[i].bit)
			VG_(snprintf)(names + VG_(strlen)(names), sizeof(names) - VG_(strlen)(names),
				      "%s%s %s", names[0] ? ", " : "", caps[i].name,
				      was & caps[i].bit ? "there, not here" : "here, not there");
	hsin_diverge("the recording ran on a CPU with other features (hwcaps 0x%llx there, 0x%llx "
		     "here%s%s): CPUID would answer it otherwise; rebuild it on a machine of the "
		     "recording's kind", was, now, names[0] ? ": " : "", names);
}

void hsin_init(const HChar *out_path, const struct hsin_stream *stream, Int pid,
	       const HChar *exe)
{
	SizeT n = VG_(strlen)(exe);
	struct vg_stat st;
	UInt version;
	SysRes sr;

	hsin_out = stream;
	hsin_th[1].alive = True;   /* the program's first thread (Valgrind's 1) */
	if (hsin_mode == HSIN_MODE_LIGHT) {
		sr = VG_(open)(out_path, VKI_O_WRONLY, 0);
		if (sr_isError(sr)) {
			VG_(umsg)("hsrec: cannot open %s; nothing is recorded\n", out_path);
			return;
		}
		hsin_fd = VG_(safe_fd)(sr_Res(sr));
		sr = VG_(stat)(hsin_exe_file(exe), &st);
		if (sr_isError(sr))
			VG_(memset)(&st, 0, sizeof(st));
		hsin_head(HSIN_HELLO, 32 + n);
		hsin_put32(HSIN_VERSION);
		hsin_put32((UInt)pid);
		hsin_put64((ULong)st.size);
		hsin_put64(st.mtime);
		hsin_put64(st.mtime_nsec);
		hsin_put(exe, n);
		hsin_head(HSIN_CPU, 8);
		hsin_put64(hsin_hwcaps());
		hsin_flush();
		return;
	}
	if (hsin_mode != HSIN_MODE_REBUILD)
		return;
	if (!hsin_in_path)
		VG_(fmsg_bad_option)("--hsrec-in", "the rebuild needs --hsrec-in=PATH\n");
	if (hsin_trail && !hsin_trail_log)
		VG_(fmsg_bad_option)("--hsrec-trail-log",
				     "a rebuild that trails the run needs its log file\n");
	sr = VG_(open)(hsin_in_path, VKI_O_RDONLY, 0);
	if (sr_isError(sr))
		hsin_diverge("cannot open the input log %s", hsin_in_path);
	hsin_fd = VG_(safe_fd)(sr_Res(sr));
	hsin_expect(HSIN_HELLO, 8, "its start");
	if (hsin_u32(hsin_rec) < 1 || hsin_u32(hsin_rec) > HSIN_VERSION || hsin_rlen < 32)
		hsin_diverge("the input log is of version %u; this tool reads %u",
			     hsin_u32(hsin_rec), HSIN_VERSION);
	hsin_pid = (Int)hsin_u32(hsin_rec + 4);
	hsin_th[1].lwp = hsin_pid;
	hsin_th[1].real_lwp = pid;
	if (hsin_rlen - 32 != n || VG_(memcmp)(hsin_rec + 32, exe, n))
		hsin_diverge("the program is %s where the recording ran %.*s", exe,
			     (Int)(hsin_rlen - 32), (const HChar *)hsin_rec + 32);
	/* The same program: not rebuilt, moved or replaced since. */
	sr = VG_(stat)(hsin_exe_file(exe), &st);
	if (sr_isError(sr) || (ULong)st.size != hsin_u64(hsin_rec + 8) ||
	    st.mtime != hsin_u64(hsin_rec + 16) || st.mtime_nsec != hsin_u64(hsin_rec + 24))
		hsin_diverge("%s is not the program the recording ran (changed, or gone, since)",
			     exe);
	version = hsin_u32(hsin_rec);
	hsin_take();
	if (version >= 3)
		hsin_check_cpu();
}

Int hsin_recorded_tid(Int lwp)
{
	ThreadId t;

	if (hsin_mode != HSIN_MODE_REBUILD)
		return lwp;
	for (t = 1; t < HSIN_MAX_TID; t++)
		if (hsin_th[t].real_lwp == lwp && hsin_th[t].lwp)
			return hsin_th[t].lwp;
	return lwp;
}

/* Rebuild: the recorded initial stack put in place. AT_RANDOM's 16 bytes
 * differ from run to run, and 4 more bytes Valgrind writes there: a few
 * dozen bytes may; more say the arguments or the environment differ. */
static void hsin_rebuild_stack(ThreadId tid)
{
	Addr from, end, a;
	UInt diff = 0;

	hsin_expect(HSIN_STACK, 8, "its first instruction");
	if (!hsin_stack_range(VG_(get_SP)(tid), &from, &end) ||
	    hsin_u64(hsin_rec) != from || hsin_rlen - 8 != end - from)
		hsin_diverge("the initial stack is not where it was when recorded: the arguments, "
			     "the environment or the limits differ");
	for (a = 0; a < end - from; a++)
		diff += ((const UChar *)from)[a] != hsin_rec[8 + a];
	if (diff > 64)
		hsin_diverge("the initial stack differs from the recording's in %u bytes: the "
			     "arguments or the environment differ", diff);
	VG_(memcpy)((void *)from, hsin_rec + 8, end - from);
	hsin_take();
	hsin_arm();
}

/* Light: the words the kernel clears as threads that ended end (their
 * CLONE_CHILD_CLEARTID or set_tid_address pointer, which pthread_join
 * waits on). The kernel clears one only after Valgrind let go of the
 * thread, so a thread that runs next may find it set or not, as the
 * machine is loaded: it waits until it is clear (at most a second), as
 * the rebuild clears it at the thread's exit (hsrec_rebuild.c,
 * hsin_clear_ctid). Else the log could not tell a join that waited from
 * one that did not. */
#define HSIN_CTID_WAIT 16
static Addr hsin_ctid_wait[HSIN_CTID_WAIT];
static UInt hsin_nctid_wait;

static void hsin_light_ctids(void)
{
	for (UInt i = 0; i < hsin_nctid_wait; i++) {
		Addr a = hsin_ctid_wait[i];

		for (UInt ms = 0; ms < 1000 && VG_(am_is_valid_for_client)(a, 4, VKI_PROT_READ) &&
				  *(volatile const UInt *)a != 0; ms++)
			VG_(poll)(NULL, 0, 1);
	}
	hsin_nctid_wait = 0;
}

Bool hsin_start(ThreadId tid)
{
	if (hsin_mode == HSIN_MODE_FULL)
		return True;
	if (hsin_mode == HSIN_MODE_REBUILD) {
		hsin_leave = 0;
		if (tid != hsin_owner) {
			hsin_limit = hsin_count;   /* it leaves at its first block */
			return False;
		}
	}
	if (hsin_in_frame) {
		hsin_in_frame = False;     /* the frame is written */
		if (hsin_mode == HSIN_MODE_REBUILD)
			hsin_drop_writes();
	}
	if (hsin_mode == HSIN_MODE_LIGHT) {
		hsin_light_ctids();
		hsin_light_turn(tid);
	}
	if (!hsin_stack_done) {
		hsin_stack_done = True;
		if (hsin_mode == HSIN_MODE_LIGHT)
			hsin_light_stack(tid);
		else
			hsin_rebuild_stack(tid);
	} else if (hsin_mode == HSIN_MODE_REBUILD) {
		hsin_arm();
	}
	return True;
}

Bool hsin_window_shut(void)
{
	return hsin_mode == HSIN_MODE_REBUILD && (hsin_from || hsin_trailing);
}

Bool hsin_window_due(void)
{
	return hsin_mode == HSIN_MODE_REBUILD && hsin_from && hsin_count >= hsin_from;
}

void hsin_window_open(void)
{
	hsin_from = 0;             /* the next hsin_arm sets the gate as before */
	hsin_trailing = False;
}

/* Light: how far the run has come, now and then (HSIN_TICK), for a
 * rebuild that trails it; flushed with what came before it. */
static void hsin_light_tick(void)
{
	static ULong ticked;

	if (hsin_fd < 0 || hsin_count - ticked < HSIN_TICK_EVERY)
		return;
	ticked = hsin_count;
	hsin_head(HSIN_TICK, 8);
	hsin_put64(hsin_count);
	hsin_flush();
}

void hsin_stop(ThreadId tid)
{
	if (hsin_mode == HSIN_MODE_LIGHT)
		hsin_light_tick();
	if (hsin_mode != HSIN_MODE_REBUILD)
		return;
	hsin_leave = 0;
	if (hsin_wait_turn(tid) && hsin_thr(tid)->unfinished)
		hsin_finish(tid);
}

void hsin_thread_create(ThreadId parent, ThreadId child)
{
	(void)parent;
	hsin_child = child;
	hsin_thr(child)->alive = True;
	hsin_thr(child)->born = True;
}

void hsin_thread_first(ThreadId tid)
{
	hsin_thr(tid)->born = False;
}

/* Light: the threads alive. */
static UInt hsin_alive(void)
{
	UInt n = 0;

	for (UInt i = 1; i < HSIN_MAX_TID; i++)
		n += hsin_th[i].alive ? 1 : 0;
	return n;
}

/* Light, --hsrec-stop-at-end (serve): @tid enters the syscall that ends
 * the program (exit_group, or the last thread's exit). It stops there,
 * for the debugger, before Valgrind acts on the call: every other thread
 * still alive and where it was, as GDB's `record full` and the
 * single-stepper stop there (`hindsight.why` says so to the debugger's
 * end). Not once the debugger let go (`hindsight.stop`). */
static void hsin_stop_at_the_end(ThreadId tid, UInt nr)
{
	if (!hsin_stop_at_end || hsin_fd < 0 ||
	    !(nr == __NR_exit_group || (nr == __NR_exit && hsin_alive() == 1)))
		return;
	hsin_end_tid = tid;
	hsin_end_nr = nr;
	VG_(gdbserver)(tid);
	hsin_end_tid = VG_INVALID_THREADID;
}

void hsin_thread_exit(ThreadId tid)
{
	struct hsin_thread *t = hsin_thr(tid);

	if (hsin_mode == HSIN_MODE_LIGHT && tid == hsin_cur)
		hsin_cur = VG_INVALID_THREADID;    /* the next to run logs its turn */
	if (hsin_mode == HSIN_MODE_LIGHT && t->ctid && hsin_nctid_wait < HSIN_CTID_WAIT)
		hsin_ctid_wait[hsin_nctid_wait++] = t->ctid;
	if (hsin_mode == HSIN_MODE_REBUILD && tid == hsin_owner) {
		if (hsin_turn_here(hsin_count))
			hsin_take_turn();
		else
			hsin_owner = VG_INVALID_THREADID;
	}
	if (tid == hsin_child)
		hsin_child = VG_INVALID_THREADID;  /* its clone failed */
	VG_(memset)(t, 0, sizeof(*t));
}

/* Whether @t's syscall @nr maps memory writable and shared, as the
 * program asked (the rebuild makes it private: hsin_complete). */
static Bool hsin_shared_map(const struct hsin_thread *t, UInt nr, const UWord *args)
{
	if (nr != __NR_mmap)
		return False;
	return hsin_mode == HSIN_MODE_REBUILD ? t->sh_map : hsin_shared_flags(args[2], args[3]);
}

void hsin_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	struct hsin_thread *t = hsin_thr(tid);
	VexGuestAMD64State g;

	(void)nargs;
	hsin_shared_pre(nr, args, hsin_shared_map(t, nr, args));
	if (hsin_mode == HSIN_MODE_REBUILD)
		hsin_rebuild_pre(tid, nr);
	if (hsin_mode != HSIN_MODE_LIGHT)
		return;
	hsin_light_turn(tid);
	if (nr == __NR_execve || nr == __NR_execveat) {
		hsin_head(HSIN_EXEC, 16);
		hsin_put32((UInt)VG_(gettid)());
		hsin_put32(nr);
		hsin_put64(VG_(get_IP)(tid));
		hsin_flush();
	} else if (hsrec_sys_may_wait(nr)) {
		hsin_flush();
	}
	hsin_regs(tid, &g);
	t->nreads = t->reads_more = 0;
	t->in_sys = True;
	t->sys_lwp = VG_(gettid)();
	t->sys_rax = g.guest_RAX;
	t->sys_pc = g.guest_RIP;
	t->sys_sp = g.guest_RSP;
	t->sys_hash = hsin_hash(&g);
	t->sys_count = hsin_count;
	hsin_stop_at_the_end(tid, nr);
}

/* Light: what @t's syscall @nr read and the kernel changed with no write
 * reported, logged as the kernel's writes (HSIN_MEMW): the rebuild makes
 * them, and the state log has them. Only for the calls of
 * hsrec_sys_writes_reads (Valgrind's wrappers read a length the kernel
 * then writes, as getsockname's, accept's and recvfrom's, and report only
 * the buffer); in others, such as a futex wait, what changed is another
 * thread's store. Ranges of at most HSIN_CHANGED_MAX bytes. */
#define HSIN_CHANGED_MAX 4096

static void hsin_light_changed(struct hsin_thread *t, UInt nr)
{
	UChar now[HSIN_CHANGED_MAX];

	if (!hsrec_sys_writes_reads(nr))
		return;            /* (a futex word another thread changed: its store) */
	for (UInt i = 0; i < t->nreads; i++) {
		const struct hsin_read *r = &t->reads[i];

		if (r->written || !r->hash || r->len > HSIN_CHANGED_MAX ||
		    hsin_client_read(now, r->a, r->len) != r->len ||
		    hsin_buf_hash(now, r->len) == r->hash)
			continue;
		hsin_head(HSIN_MEMW, 12 + (UInt)r->len);
		hsin_put32((UInt)VG_(gettid)());
		hsin_put64(r->a);
		hsin_put(now, r->len);
	}
}

/* Light: the argument registers of @tid that are not the @args the
 * program passed as its syscall @nr returns (HSIN_ARGS), if the rebuild
 * completes it from the log: Valgrind's wrapper of a call that may block
 * leaves the arguments it changed in the registers (ppoll's and pselect6's
 * mask, pointed at its own copy), and the rebuild runs no wrapper. */
static void hsin_light_args(ThreadId tid, UInt nr, const UWord *args, UInt nargs)
{
	VexGuestAMD64State g;
	UInt mask = 0, n = 0, i;

	if (hsrec_sys_core_does(nr) || nr == __NR_execve || nr == __NR_execveat)
		return;
	hsin_regs(tid, &g);
	for (i = 0; i < 6 && i < nargs; i++)
		if (*(const ULong *)((const UChar *)&g + hsin_arg_off[i]) != args[i]) {
			mask |= 1u << i;
			n++;
		}
	if (!mask)
		return;
	hsin_head(HSIN_ARGS, 8 + 8 * n);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put32(mask);
	for (i = 0; i < 6; i++)
		if (mask & (1u << i))
			hsin_put64(*(const ULong *)((const UChar *)&g + hsin_arg_off[i]));
}

void hsin_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	Long r = sr_isError(res) ? -(Long)sr_Err(res) : (Long)sr_Res(res);
	struct hsin_thread *t = hsin_thr(tid);
	Bool shared = hsin_shared_map(t, nr, args);
	UInt i;

	if (hsin_mode == HSIN_MODE_REBUILD) {
		hsin_rebuild_post(tid, nr, args, r);
		hsin_shared_post(nr, args, r, shared);
		t->sh_map = t->sh_flags = False;
		return;
	}
	hsin_shared_post(nr, args, r, shared);
	if (hsin_mode != HSIN_MODE_LIGHT)
		return;
	hsin_light_turn(tid);
	t->in_sys = False;
	hsin_light_changed(t, nr);
	hsin_light_args(tid, nr, args, nargs);
	if (t->nreads || t->reads_more) {
		hsin_head(HSIN_READS, 16 + 24 * t->nreads);
		hsin_put32((UInt)VG_(gettid)());
		hsin_put32(t->nreads);
		hsin_put32(t->reads_more);
		hsin_put32(0);
		for (i = 0; i < t->nreads; i++) {
			hsin_put64(t->reads[i].a);
			hsin_put64(t->reads[i].len);
			hsin_put64(t->reads[i].hash);
		}
	}
	hsin_head(HSIN_SYSCALL, 96);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put32(nr);
	for (i = 0; i < 6; i++)
		hsin_put64(i < nargs ? args[i] : 0);
	hsin_put64((ULong)r);
	hsin_put64(t->sys_pc);
	hsin_put64(t->sys_sp);
	hsin_put64(t->sys_hash);
	hsin_put64(t->sys_count);
	if (hsrec_sys_is_open(nr) && r >= 0)
		hsin_light_file((Int)r);
	if (nr == __NR_mmap && (ULong)r < (ULong)-4095 && !(args[3] & VKI_MAP_ANONYMOUS) &&
	    !(args[2] & VKI_PROT_EXEC) && !hsin_shared_flags(args[2], args[3]))
		hsin_light_keep((Int)args[4]);   /* (shared and writable: not mapped again) */
	/* The words the kernel clears as threads end (hsin_light_ctids). */
	if (nr == __NR_clone && r > 0 && hsin_child != VG_INVALID_THREADID) {
		hsin_thr(hsin_child)->ctid = (args[0] & VKI_CLONE_CHILD_CLEARTID) ? args[3] : 0;
		hsin_thr(hsin_child)->born_lwp = (Int)r;
		hsin_child = VG_INVALID_THREADID;
	}
	if (nr == __NR_set_tid_address)
		t->ctid = args[0];
}

void hsin_pre_read(ThreadId tid, Addr a, SizeT len)
{
	struct hsin_thread *t;

	if (hsin_mode != HSIN_MODE_LIGHT || tid >= HSIN_MAX_TID || !(t = &hsin_th[tid])->in_sys)
		return;
	if (!len) {                /* to its NUL, page by page */
		HChar page[4096];

		while (VG_(am_is_valid_for_client)(a + len, 1, VKI_PROT_READ)) {
			SizeT want = 4096 - ((a + len) & 4095);
			SizeT got = hsin_client_read(page, a + len, want), i;

			for (i = 0; i < got && page[i]; i++)
				;
			len += i;
			if (i < got) {
				len++;     /* the NUL */
				break;
			}
			if (got < want)
				break;     /* a fault: as far as it could be read */
		}
	}
	/* Memory another process may write: the rebuild's copy has only
	 * the bytes the program read there itself (hsrec_shared.c). */
	if (hsin_shared_at(a, len))
		return;
	/* A wrapper reads some again after the call (the length a
	 * getsockname or an accept wrote): the kernel read it as it started. */
	for (UInt i = 0; i < t->nreads; i++)
		if (t->reads[i].a == a && t->reads[i].len == len)
			return;
	if (t->nreads == HSIN_READS_MAX) {
		t->reads_more++;
		return;
	}
	t->reads[t->nreads++] = (struct hsin_read){ a, len, hsin_bytes_hash(a, len), False };
}

void hsin_post_write(ThreadId tid, Addr a, SizeT len)
{
	if (hsin_mode == HSIN_MODE_REBUILD && hsin_in_frame && tid == hsin_frame_tid) {
		hsin_frame_write(a, len);  /* the siginfo its sender wrote */
		return;
	}
	if (hsin_mode != HSIN_MODE_LIGHT || !len || tid >= HSIN_MAX_TID ||
	    !(hsin_th[tid].in_sys || (hsin_in_frame && tid == hsin_frame_tid)) ||
	    !VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ))
		return;
	for (UInt i = 0; hsin_th[tid].in_sys && i < hsin_th[tid].nreads; i++) {
		struct hsin_read *r = &hsin_th[tid].reads[i];

		if (r->a >= a && r->a + r->len <= a + len)
			r->written = True;
	}
	hsin_light_turn(tid);
	hsin_head(HSIN_MEMW, 12 + len);
	hsin_put32((UInt)VG_(gettid)());
	hsin_put64(a);
	hsin_put((const void *)a, len);
}

void hsin_signal(ThreadId tid, Int sig)
{
	Addr ip = VG_(get_IP)(tid);

	if (hsin_mode == HSIN_MODE_LIGHT) {
		hsin_light_turn(tid);
		hsin_head(HSIN_SIGNAL, 24);
		hsin_put32((UInt)VG_(gettid)());
		hsin_put32((UInt)sig);
		hsin_put64(ip);
		hsin_put64(hsin_count);
		hsin_in_frame = True;
		hsin_frame_tid = tid;
		return;
	}
	if (hsin_mode != HSIN_MODE_REBUILD)
		return;
	hsin_expect(HSIN_SIGNAL, 24, "a signal's delivery");
	if (hsin_thr(tid)->suspending && ip + 2 == hsin_u64(hsin_rec + 8)) {
		hsin_wait_taken(tid);  /* let in outside the wait too */
		ip += 2;
	}
	if ((Int)hsin_u32(hsin_rec + 4) != sig)
		hsin_diverge("at event %llu: signal %d is delivered where the recording has signal "
			     "%d", hsin_events, sig, (Int)hsin_u32(hsin_rec + 4));
	hsin_check("a signal", ip, hsin_u64(hsin_rec + 8), hsin_count, hsin_u64(hsin_rec + 16));
	hsin_take();
	hsin_deliver = False;
	hsin_drop_writes();        /* the frame's are applied as it is written */
	hsin_in_frame = True;
	hsin_frame_tid = tid;
	hsin_arm();
}

void hsin_fini(Int exitcode)
{
	if (hsin_mode == HSIN_MODE_LIGHT) {
		hsin_head(HSIN_END, 12);
		hsin_put32((UInt)exitcode);
		hsin_put64(hsin_count);
		hsin_flush();
	} else if (hsin_mode == HSIN_MODE_REBUILD) {
		while (hsin_torn && hsin_peek() && hsin_peek() != HSIN_END)
			hsin_take();
		hsin_expect(HSIN_END, 12, "its end");
		hsin_check("the end", 0, 0, hsin_count, hsin_u64(hsin_rec + 4));
		if ((Int)hsin_u32(hsin_rec) != exitcode)
			hsin_diverge("at its end: the program exits with %d where it exited with %d "
				     "when recorded", exitcode, (Int)hsin_u32(hsin_rec));
		hsin_take();
	}
}

void hsin_atfork_child(void)
{
	hsin_keep_dir = NULL;      /* (not recorded: nothing to keep) */
	if (hsin_fd >= 0)
		VG_(close)(hsin_fd);
	hsin_fd = -1;
	hsin_len = 0;
}

/* --- Instrumentation -------------------------------------------------------- */

static IRExpr *hsin_c64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

static IRTemp hsin_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return t;
}

/* @d reads or writes (@fx) @size bytes of the guest state at @off. */
static void hsin_fx(IRDirty *d, IREffect fx, Int off, Int size)
{
	Int i = d->nFxState++;

	d->fxState[i].fx = fx;
	d->fxState[i].offset = off;
	d->fxState[i].size = size;
	d->fxState[i].nRepeats = 0;
	d->fxState[i].repeatLen = 0;
}

void hsin_instrument_in(IRSB *in)
{
	ULong pc = 0;
	Int i;

	if (hsin_mode == HSIN_MODE_FULL)
		return;
	/* VEX's helper, and ours in each mode (same arguments but the pc). */
	static const struct {
		const HChar *vex, *light, *rebuild;
		void *lfn, *rfn;
		Bool gs;               /* the guest state first (rdtscp writes it) */
	} swaps[] = {
		{ "amd64g_dirtyhelper_RDTSC", "hsin_l_rdtsc", "hsin_r_rdtsc",
		  (void *)hsin_l_rdtsc, (void *)hsin_r_rdtsc, False },
		{ "amd64g_dirtyhelper_RDTSCP", "hsin_l_rdtscp", "hsin_r_rdtscp",
		  (void *)hsin_l_rdtscp, (void *)hsin_r_rdtscp, True },
		{ "amd64g_dirtyhelper_RDRAND", "hsin_l_rdrand", "hsin_r_rdrand",
		  (void *)hsin_l_rdrand, (void *)hsin_r_rdrand, False },
		{ "amd64g_dirtyhelper_RDSEED", "hsin_l_rdseed", "hsin_r_rdseed",
		  (void *)hsin_l_rdseed, (void *)hsin_r_rdseed, False },
	};
	Bool light = hsin_mode == HSIN_MODE_LIGHT;

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *s = in->stmts[i];
		IRDirty *d;
		UInt k;

		if (s->tag == Ist_IMark)
			pc = s->Ist.IMark.addr;
		if (s->tag != Ist_Dirty)
			continue;
		d = s->Ist.Dirty.details;
		for (k = 0; k < sizeof(swaps) / sizeof(swaps[0]); k++) {
			if (VG_(strcmp)(d->cee->name, swaps[k].vex))
				continue;
			d->cee = mkIRCallee(0, light ? swaps[k].light : swaps[k].rebuild,
					    light ? swaps[k].lfn : swaps[k].rfn);
			d->args = swaps[k].gs ? mkIRExprVec_2(IRExpr_GSPTR(), hsin_c64(pc)) :
						mkIRExprVec_1(hsin_c64(pc));
		}
	}
}

/* At a block's entry, before anything else: the count, and (rebuild)
 * the gate. */
void hsin_instrument_entry(IRSB *out, Addr ip)
{
	IRTemp c, c1;

	if (hsin_mode == HSIN_MODE_FULL)
		return;
	c = hsin_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hsin_c64((Addr)&hsin_count)));
	c1 = hsin_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(c), hsin_c64(1)));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, hsin_c64((Addr)&hsin_count), IRExpr_RdTmp(c1)));
	if (hsin_mode == HSIN_MODE_REBUILD) {
		IRTemp lim = hsin_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
							      hsin_c64((Addr)&hsin_limit)));
		IRDirty *d = unsafeIRDirty_0_N(0, "hsin_gate", VG_(fnptr_to_fnentry)(hsin_gate),
					       mkIRExprVec_2(IRExpr_GSPTR(), hsin_c64(ip)));
		IRTemp go;

		/* Entering it makes the count pass the next event's (a
		 * signal, another thread's turn, the end; or the thread's
		 * turn is not now: hsin_start). */
		d->guard = IRExpr_RdTmp(hsin_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U,
							IRExpr_RdTmp(lim), IRExpr_RdTmp(c1))));
		hsin_fx(d, Ifx_Modify, offsetof(VexGuestAMD64State, guest_RIP), 8);
		d->mFx = Ifx_Modify;
		d->mAddr = hsin_c64((Addr)&hsin_leave);
		d->mSize = 8;
		addStmtToIRSB(out, IRStmt_Dirty(d));
		/* Left, to the scheduler (an exit of the yield kind: never
		 * chained, as a direct one is, so that no other thread chains
		 * it while this one waits for its turn in hsin_stop); the
		 * spent event counter makes it take the signal sent. */
		go = hsin_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
							hsin_c64((Addr)&hsin_leave)));
		go = hsin_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(go),
							hsin_c64(0)));
		addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(go), Ijk_Yield, IRConst_U64(ip),
					       offsetof(VexGuestAMD64State, guest_RIP)));
	}
}

void hsin_instrument_out(IRSB *out, const IRSB *in, const VexGuestLayout *layout)
{
	IRTemp done;
	IRDirty *d;

	if (hsin_mode != HSIN_MODE_REBUILD || in->jumpkind != Ijk_Sys_syscall)
		return;
	if (in->next->tag != Iex_Const)
		VG_(tool_panic)("hsrec: a syscall block without a constant successor");
	done = newIRTemp(out->tyenv, Ity_I64);
	d = unsafeIRDirty_1_N(done, 0, "hsin_syscall", VG_(fnptr_to_fnentry)(hsin_syscall),
			      mkIRExprVec_2(IRExpr_GSPTR(), in->next));
	/* It reads the registers and may set rax, rdi, rsi and rip; it
	 * writes the stream's buffer and the program's memory. */
	hsin_fx(d, Ifx_Modify, offsetof(VexGuestAMD64State, guest_RAX),
		offsetof(VexGuestAMD64State, guest_R15) + 8 - offsetof(VexGuestAMD64State, guest_RAX));
	hsin_fx(d, Ifx_Modify, offsetof(VexGuestAMD64State, guest_RIP), 8);
	hsin_fx(d, Ifx_Read, offsetof(VexGuestAMD64State, guest_FS_CONST), 8);  /* hsin_hash */
	d->mFx = Ifx_Modify;
	d->mAddr = hsin_c64((Addr)&hsin_count);
	d->mSize = 8;
	addStmtToIRSB(out, IRStmt_Dirty(d));
	/* A signal first: back to the syscall instruction, through the
	 * scheduler (as the gate's exit). */
	addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(hsin_tmp(out, Ity_I1,
					IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(done), hsin_c64(2)))),
				       Ijk_Yield, IRConst_U64(in->next->Iex.Const.con->Ico.U64 - 2),
				       layout->offset_IP));
	/* It waited when recorded: on to the next block, through the
	 * scheduler, the syscall completed at the thread's next turn. */
	addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(hsin_tmp(out, Ity_I1,
					IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(done), hsin_c64(3)))),
				       Ijk_Yield, in->next->Iex.Const.con, layout->offset_IP));
	/* Not done: the core makes the syscall, as it would have. */
	addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(hsin_tmp(out, Ity_I1,
					IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(done), hsin_c64(0)))),
				       Ijk_Sys_syscall, in->next->Iex.Const.con,
				       layout->offset_IP));
	out->jumpkind = Ijk_Boring;
}
