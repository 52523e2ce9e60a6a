/*
 * vgtool/hsrec_inputs_int.h: what the files of the light and rebuild modes
 * share, by the file that owns it. Calls go one way: hsrec_inputs.c (the
 * callbacks, the light log written, the gate) calls into hsrec_rebuild.c
 * (the rebuild's syscalls) and hsrec_log.c (the log read back, the turns,
 * the state they all share); hsrec_rebuild.c calls only hsrec_log.c. Not
 * for hsrec_main.c, which sees hsrec_inputs.h only.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_INPUTS_INT_H
#define HINDSIGHT_VGTOOL_HSREC_INPUTS_INT_H

#include "pub_tool_basics.h"
#include "libvex_guest_amd64.h"
#include "hsrec_inputs.h"
#include "hsrec_proto.h"

#define HSIN_MAX_FD 4096
#define HSIN_MAX_TID 4096          /* as hsrec_main_int.h's HS_MAX_TID */
#define HSIN_NR_CLONE3 435
#define HSIN_NR_IO_URING_SETUP 425

/* Per Valgrind thread. */
struct hsin_thread {
	/* Light: its syscall under way, whose writes are logged, and the
	 * check fields as they were when it started (as the rebuild sees
	 * them: other threads may run while it waits). Rebuild: the count
	 * when its unfinished syscall started. */
	Bool in_sys;
	ULong sys_pc, sys_sp, sys_hash, sys_count;
	/* Light: its id and rax, as its syscall started (`hindsight.insys`,
	 * a stop while every thread waits: hsin_here_inside). */
	Int sys_lwp;
	ULong sys_rax;
	/* Light: the memory the kernel reads for its syscall under way
	 * (HSIN_READS: the first HSIN_READS_MAX ranges, and how many more). */
	/* (@written: a write the syscall reported covers it.) */
	struct hsin_read { ULong a, len, hash; Bool written; } reads[HSIN_READS_MAX];
	UInt nreads, reads_more;
	/* Light: made by a clone and not ended yet (the first thread is
	 * not marked). */
	Bool alive;
	/* Light: made by a clone (its id there @born_lwp, once the clone
	 * returned it) and not yet run: Valgrind's gdbserver does not list it
	 * until it has (VgTs_Init), `hindsight.born` does. */
	Bool born;
	Int born_lwp;
	/* Rebuild: its id when recorded, and in this run (0: not known). */
	Int lwp, real_lwp;
	/* The word the kernel clears when it ends (its CLONE_CHILD_CLEARTID
	 * or set_tid_address pointer; 0: none): the rebuild clears it at
	 * the exit, the light run waits until the kernel has. */
	Addr ctid;
	/* Rebuild: it waited in the syscall ending before this address
	 * while others ran, when recorded: completed at its next turn. */
	Addr unfinished;
	/* Rebuild: its syscall handed to the core, checked when it returns
	 * (deferred: its record comes after other threads' turns, and is
	 * read then); the result recorded; a kill of itself whose pid
	 * arguments were rewritten, and their recorded values. */
	Bool pending, deferred, translated;
	UInt pending_nr;
	Long pending_res;
	/* Rebuild: the signal that ended its wait under a mask of its own
	 * (rt_sigsuspend, or ppoll, pselect6, epoll_pwait made by the core as
	 * an rt_sigsuspend with their mask: hsin_wait_mask) when recorded,
	 * sent again as the core makes the call (0: none); sent, the call
	 * not back yet. */
	Int suspend_sig;
	Bool suspending;
	/* Rebuild: an rt_sigsuspend it waited in while others ran, when
	 * recorded: handed to the core, whose call waits first (in the
	 * tool's pre-syscall) for the thread's turn to come back, and reads
	 * its record then (hsin_rebuild_pre). */
	Bool turn_first;
	ULong saved_rdi, saved_rsi;
	/* Rebuild: the call made as an rt_sigsuspend instead (its number
	 * @pending_nr), whose mask's 8 bytes at @mask_at the core's wrapper
	 * may change (it lets VG_SIGVGKILL in) and are put back. */
	Bool as_suspend;
	Addr mask_at;
	ULong saved_mask;
	/* Rebuild: its mmap maps memory writable and shared (@sh_map), made
	 * private and anonymous at the recorded address; or read-only and
	 * shared, made private. @sh_flags: its flags changed so (and its
	 * descriptor and offset as the program passed them), put back as it
	 * returns. */
	Bool sh_map, sh_flags;
	ULong saved_r10, saved_r8, saved_r9;
};

/* hsrec_log.c: the state the three files share. */
extern struct hsin_thread hsin_th[HSIN_MAX_TID];
struct hsin_thread *hsin_thr(ThreadId tid);
/* The thread a clone is making (Valgrind's pre_thread_ll_create). */
extern ThreadId hsin_child;
/* Rebuild: the thread whose turn it is (the others wait at their next
 * block's entry). */
extern ThreadId hsin_owner;
/* Rebuild: a fatal signal took the threads down in another order than
 * when recorded (hsin_take_turn): what the log has before its end was
 * their way out. */
extern Bool hsin_torn;

/* libcoregrind's, not in the public headers: a descriptor moved out of
 * the program's range. */
extern Int VG_(safe_fd)(Int oldfd);

extern Int hsin_fd;                /* light: the log written; rebuild: read */
extern const struct hsin_stream *hsin_out;
extern Int hsin_pid;               /* the recorded process's pid */
/* The superblocks all threads entered (read and written inline), and the
 * gate: translated code calls hsin_gate when the count passes it. */
extern ULong hsin_count, hsin_limit;
/* Rebuild, --hsrec-from: the count the window opens at (0: open, or none). */
extern ULong hsin_from;
/* The recorded signal was sent again and is not taken yet. */
extern Bool hsin_deliver;
/* Rebuild, --hsrec-follow: the log grows as it is read; every HSIN_HERE
 * is a stop. */
extern Bool hsin_follow;

/* Rebuild, --hsrec-trail=W: the rebuild trails a light run still going,
 * W superblocks short of its latest HSIN_TICK, its window not open yet
 * (hsin_trailing) until the log's end places it (hsin_from); the log
 * file (--hsrec-trail-log) is looked over for the ticks and the end. */
extern ULong hsin_trail;
extern Bool hsin_trailing;
extern const HChar *hsin_trail_log;   /* the log file, looked over ahead */

/* --hsrec-keep=DIR (the recording's files/): the light run copies there
 * each file of the program's it maps that is not the system's (up to
 * HSIN_KEEP_MAX bytes), named by its identity as the log has it
 * (hsin_keep_name); the rebuild maps the copy where the file is no longer
 * that one (git replaces its index by rename as it runs). */
extern const HChar *hsin_keep_dir;
#define HSIN_KEEP_MAX (64ull << 20)
static inline void hsin_keep_name(HChar *out, ULong dev, ULong ino, ULong size, ULong mtime,
				  ULong mtime_ns)
{
	VG_(sprintf)(out, "%s/%llx-%llx-%llx-%llx.%llx", hsin_keep_dir, dev, ino, size, mtime,
		     mtime_ns);
}

/* Rebuild: the record read last (hsin_peek), its payload and length;
 * the events consumed, for messages. */
extern UChar *hsin_rec;
extern UInt hsin_rlen;
extern ULong hsin_events;
/* Where the running thread stands when a helper of translated code runs
 * (the guest state's pc may be stale there; 0: Valgrind knows), and how
 * much of its block ran (HSREC_DIV_*). */
extern Addr hsin_at;
extern UInt hsin_at_how;

/* A record of a place a debugger stopped the recorded run at (HSIN_HERE)
 * or wrote into it at (HSIN_POKE): the rebuild comes to it exactly. */
static inline Bool hsin_is_point(UInt kind)
{
	return kind == HSIN_HERE || kind == HSIN_POKE;
}

/* @len bytes (a few) into the program's memory at @a, through
 * /proc/self/mem: read-only pages too. */
Bool hsin_client_write(Addr a, const void *buf, SizeT len);
ULong hsin_u64(const UChar *p);
UInt hsin_u32(const UChar *p);
/* FNV-1a over the general registers a syscall leaves alone. */
ULong hsin_hash(const VexGuestAMD64State *g);
/* A hash of the @len bytes at @a if the program may read them, else 0
 * (HSIN_READS). */
ULong hsin_bytes_hash(Addr a, ULong len);
/* The same of @len bytes already read whole, at @p. */
ULong hsin_buf_hash(const void *p, ULong len);
void hsin_regs(ThreadId tid, VexGuestAMD64State *g);
/* Where a syscall's arguments 1-6 are in the guest state (rdi rsi rdx
 * r10 r8 r9). */
extern const Int hsin_arg_off[6];

/* hsrec_log.c: the log read back, and the threads' turns. */
/* The rebuild cannot go on: the stream says why, and the run ends. */
void hsin_diverge(const HChar *fmt, ...) PRINTF_CHECK(1, 2);
/* The next record's kind, loaded (0: the log ends); consumed. */
UInt hsin_peek(void);
void hsin_take(void);
/* The next record must be of @kind, at least @len bytes, else the rebuild
 * diverged (@what: what the program does now). */
void hsin_expect(UInt kind, UInt len, const HChar *what);
/* After an event: the gate set for the next one (trailing: no further
 * than the light run has got). */
void hsin_arm(void);
/* At the gate: trailing, the rebuild waits there until the light run
 * gets further or ends. True: the block runs on (nothing else due). */
Bool hsin_trail_gate(void);
void hsin_check(const HChar *what, ULong pc, ULong want_pc, ULong count, ULong want_count);
/* The next record hands the turn on at @count; it is taken (its thread
 * the owner); the thread waits for its turn (False: it is ending). */
Bool hsin_turn_here(ULong count);
void hsin_take_turn(void);
Bool hsin_wait_turn(ThreadId tid);

/* hsrec_inputs.c, for hsrec_shared.c: light, @tid read @size bytes (at
 * most 8) at @a from shared memory: logged (HSIN_LOAD). */
void hsin_light_load(ThreadId tid, Addr a, UInt size, const UChar *bytes);

/* hsrec_shared.c: memory another process may write. Whether an mmap's
 * @prot and @flags map such memory; the syscall @nr of the running thread
 * is about to be made, and it returned @r (@shared: it is such an mmap,
 * as the program asked): the ranges follow the mappings. */
Bool hsin_shared_flags(ULong prot, ULong flags);
void hsin_shared_pre(UInt nr, const UWord *args, Bool shared);
void hsin_shared_post(UInt nr, const UWord *args, Long r, Bool shared);

/* hsrec_rebuild.c: the rebuild's syscalls, for hsrec_inputs.c. */
/* Called by translated code at a syscall (hsin_instrument_out). */
ULong hsin_syscall(VexGuestAMD64State *g, ULong next);
/* @tid's turn came back: the syscall it waited in completes. */
void hsin_finish(ThreadId tid);
/* @tid's syscall @nr, handed to the core, is about to be made. */
void hsin_rebuild_pre(ThreadId tid, UInt nr);
/* @tid's syscall @nr, handed to the core, returned @r. */
void hsin_rebuild_post(ThreadId tid, UInt nr, const UWord *args, Long r);
/* @tid's wait's signal, sent again, came before the call started: the
 * call is taken as made. */
void hsin_wait_taken(ThreadId tid);
/* The kernel's writes gathered for a syscall, dropped. */
void hsin_drop_writes(void);
/* A signal frame's write of @len bytes at @a: the recorded bytes, if the
 * log has them next. */
void hsin_frame_write(Addr a, SizeT len);

#endif
