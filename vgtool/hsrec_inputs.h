/*
 * vgtool/hsrec_inputs.h: the tool's light mode and its rebuild mode
 * (hsrec_proto.h, "The input log").
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Light (--hsrec-mode=light): the program runs uninstrumented but for its
 * nondeterministic instructions, and the log gets its inputs: every
 * syscall with what the kernel wrote, rdtsc and its kin, signals, the
 * initial stack, the files it opens. Rebuild (--hsrec-mode=rebuild): the
 * same program runs again under the full recorder's instrumentation
 * (hsrec_instr.c), and this file completes its syscalls and those
 * instructions from the log instead of the kernel and the CPU; only the
 * calls that shape the process itself (memory maps, signal set-up,
 * exit, exec) reach the core. At every event the thread must be where it
 * was: otherwise the stream says HSREC_DIVERGED and the rebuild stops.
 *
 * hsrec_main.c calls into this file from its callbacks, hsrec_instr.c
 * from its instrumentation; what this file needs of the full stream comes
 * through struct hsin_stream, so no call goes back up. Behind it:
 * hsrec_inputs.c, hsrec_rebuild.c and hsrec_log.c (hsrec_inputs_int.h).
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_INPUTS_H
#define HINDSIGHT_VGTOOL_HSREC_INPUTS_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

enum hsin_mode {
	HSIN_MODE_FULL = 0,        /* no inputs: today's full recorder */
	HSIN_MODE_LIGHT,
	HSIN_MODE_REBUILD,
};

/* What the rebuild writes into the full stream, from hsrec_main.c. */
struct hsin_stream {
	/* Memory the tool wrote for @tid: its old and new bytes. */
	void (*memw)(ThreadId tid, Addr a, const UChar *old, const UChar *now, SizeT len);
	/* Every general register of @tid, as they are now. */
	void (*dump)(ThreadId tid);
	/* The rebuild cannot go on: @text says why (one line); the running
	 * thread stands before the instruction at @at (0: where Valgrind
	 * says it is), having run @how (HSREC_DIV_*) of its superblock. */
	void (*diverged)(const HChar *text, Addr at, UInt how);
	/* The rebuild came to where the live run stands (HSIN_HERE, the
	 * live run's superblock @count): @tid stands before the
	 * instruction at @at, between two of its superblocks (@how 1) or
	 * before instruction N of the one it runs (@how 2 + N); the others
	 * where they wait. The stream ends there (the process is still
	 * running: no HSREC_END), or goes on (--hsrec-follow). */
	void (*here)(ThreadId tid, Addr at, UInt how, ULong count);
	/* At such a place (@at, @how as for here), a debugger wrote @len
	 * bytes at @a when recorded: written again, their @old and @now
	 * bytes; the run goes on from there. */
	void (*poke)(ThreadId tid, Addr at, UInt how, Addr a, const UChar *old, const UChar *now,
		     SizeT len);
	/* The rebuild came to where the recorded run ended between two
	 * superblocks (HSIN_END at a block's entry): @tid stands before the
	 * superblock at @at, the others where they wait; the stream ends. */
	void (*killed)(ThreadId tid, Addr at);
};

extern enum hsin_mode hsin_mode;

/* Light: a debugger's `monitor hindsight.here` (serve --record valgrind):
 * HSIN_HERE for the thread stopped at @tid, the log flushed; its count
 * and pc told back through Valgrind's gdbserver. `monitor hindsight.poke
 * ADDR HEX`: the debugger's write, made here and logged (HSIN_POKE).
 * `monitor hindsight.born`: the threads made and not yet run, with their
 * registers (hsin_born); `hindsight.insys LWP`: whether that thread is
 * inside a syscall. */
Bool hsin_monitor(ThreadId tid, const HChar *cmd);
/* Rebuild: the superblock starting at @ip is where the run is to stop
 * (HSIN_HERE): the instrumentation calls hsin_here_check before each of
 * its instructions but the first (@idx: its number in the block). */
Bool hsin_here_block_at(Addr ip);
VG_REGPARM(2) void hsin_here_check(Addr pc, ULong idx);
/* Rebuild, as a thread leaves client code: the superblock whose
 * translation is to be discarded (translated again with the check), once;
 * 0: none. */
Addr hsin_here_retranslate(void);

/* Option parsing: --hsrec-mode=full|light|rebuild, --hsrec-in=PATH,
 * --hsrec-from=N, --hsrec-follow=yes|no. */
Bool hsin_option(const HChar *arg);
/* After the options: light opens @out_path for the log and writes HELLO;
 * rebuild opens --hsrec-in and checks its HELLO. @pid, @exe: this
 * process and its image. */
void hsin_init(const HChar *out_path, const struct hsin_stream *stream, Int pid,
	       const HChar *exe);
/* The recorded process's id for @lwp, a thread of this one: the rebuild
 * shows the recorded run's ids. */
Int hsin_recorded_tid(Int lwp);
/* The stack mapping @sp is in, at most its top 256 KiB, readable: the
 * initial stack both modes log. */
Bool hsin_stack_range(Addr sp, Addr *from, Addr *end);
/* @tid starts running client code (before the stream's register dump):
 * False if it must not run now (the rebuild: another thread's turn; it
 * leaves at its first block's entry and waits in hsin_stop). */
Bool hsin_start(ThreadId tid);
/* Rebuild with --hsrec-from=N (a window): whether the run has come to
 * the N-th superblock, where the full instrumentation starts (the gate
 * stops the running thread between two blocks there, and the tool asks
 * as it leaves client code); hsin_window_open says it did. */
Bool hsin_window_shut(void);   /* not open yet */
Bool hsin_window_due(void);
void hsin_window_open(void);
/* @tid stopped running client code: the rebuild waits there for its
 * turn, and completes a syscall it waited in when recorded. */
void hsin_stop(ThreadId tid);
/* A thread is made, and one ends (before Valgrind lets go of it). */
void hsin_thread_create(ThreadId parent, ThreadId child);
/* ... and runs its first instruction. */
void hsin_thread_first(ThreadId tid);
void hsin_thread_exit(ThreadId tid);
void hsin_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs);
void hsin_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res);
/* The program's break grew by, or shrank by, @len bytes at @a. */
void hsin_brk_moved(Addr a, SizeT len, Bool grew);
/* The kernel or the core wrote memory for @tid. */
void hsin_post_write(ThreadId tid, Addr a, SizeT len);
/* A syscall of @tid is to read @len bytes of the program's memory at @a
 * (Valgrind's PRE_MEM_READ; @len 0: the string there). */
void hsin_pre_read(ThreadId tid, Addr a, SizeT len);
/* Up to @len bytes of the program's memory at @a into @buf, without
 * touching it (through /proc/self/mem: a fault is a short count): how
 * many. */
SizeT hsin_client_read(void *buf, Addr a, SizeT len);
void hsin_signal(ThreadId tid, Int sig);
void hsin_fini(Int exitcode);
void hsin_atfork_child(void);
/* Before the full instrumentation: nondeterministic instructions' helpers
 * swapped for the logging or replaying ones, in place. */
void hsin_instrument_in(IRSB *in);
/* At a block's entry, before anything else (@ip: its first instruction):
 * the thread's superblock count, and (rebuild) the gate of the next
 * recorded signal. */
void hsin_instrument_entry(IRSB *out, Addr ip);
/* After it (rebuild): a block that ends in a syscall completes it from
 * the log, or hands it to the core. */
void hsin_instrument_out(IRSB *out, const IRSB *in, const VexGuestLayout *layout);
/* Memory another process may write (hsrec_shared.c): a load of it, in
 * the block @out is made of, @st (a load, a guarded load, a cmpxchg) of
 * the instruction at @pc,
 * logged after it (light: @after) or given the logged bytes before it
 * (rebuild: !@after). Nothing before the program maps such memory. */
void hsin_instrument_load(IRSB *out, IRTypeEnv *tyenv, const IRStmt *st, Addr pc, Bool after);
/* Whether [@a, @a + @len) is memory another process may write, or is
 * being mapped as such now (the state log has it volatile). */
Bool hsin_shared_at(Addr a, SizeT len);

#endif
