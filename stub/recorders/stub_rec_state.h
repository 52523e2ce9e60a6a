/*
 * stub/recorders/stub_rec_state.h: the software recorder's state log, one per thread.
 *
 * For every instruction a thread executes: the general registers it
 * changed (differences, so the log runs both ways), the x87 / SSE / AVX /
 * AVX-512 state it changed (only read when the instruction may write such
 * a register: XOR of the changed 8-byte words of the XSAVE area), and
 * every range of memory it wrote with the bytes before and after. Writes
 * are found from the instruction's operands (Zydis: explicit and hidden
 * memory operands, push / call / enter, rep string stores over RCX
 * elements, VSIB scatters element by element, the xsave family), from a
 * table of the syscalls that write user memory, and around signal
 * delivery (the frame below the stack pointer). Mapping changes (mmap,
 * munmap, brk, exec, ...) are logged as such; what cannot be known is a
 * "state-unknown" gap in the bundle. A full checkpoint starts the log and
 * follows every STUB_REC_STATE_CKPT instructions. docs/bundle.md ("State
 * log") is the format, replay/model/state_format.h its definition, replay/model/state.h
 * the reader.
 *
 * Registers are given by the caller (it already has them from
 * PTRACE_GETREGS); the XSAVE area is read here (PTRACE_GETREGSET) and
 * memory through /proc/PID/mem. Lifetime: stub_rec_state_init /
 * stub_rec_state_release; the process-wide part: stub_rec_state_proc_init.
 * Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_STATE_H
#define HINDSIGHT_STUB_STUB_REC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/user.h>

#include <Zydis/Zydis.h>

#include "replay/model/state_format.h"
#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_sum.h"

struct replay_bundle;

#define STUB_REC_STATE_CKPT 16384      /* instructions between checkpoints */
#define STUB_REC_STATE_BIG (64u << 20) /* a larger write range is a gap */
#define STUB_REC_VFORK_STACK (64u << 10) /* stack below rsp a vfork child may write */

/* What a MAP record says: the writer's names for replay/model/state_format.h's
 * values (the format is defined there, nowhere else). */
enum stub_rec_state_map {
	STUB_REC_MAP_UNKNOWN = REPLAY_STATE_MAP_UNKNOWN,
	STUB_REC_MAP_ZERO = REPLAY_STATE_MAP_ZERO,
	STUB_REC_MAP_GONE = REPLAY_STATE_MAP_GONE,
	STUB_REC_MAP_VOLATILE = REPLAY_STATE_MAP_VOLATILE,
	STUB_REC_MAP_ALL = REPLAY_STATE_MAP_ALL,
};

/* What all threads of a process share. */
struct stub_rec_state_proc {
	const int *mem_fd;             /* /proc/PID/mem, reopened on exec */
	struct replay_bundle *b;       /* for gaps */
	ZydisDecoder dec;
	uint32_t xsave_size;           /* CPUID 0xD: what XSAVE* may store */
	uint64_t brk;                  /* the last program break seen, or 0 */
	FILE *check;                   /* --state-check output, or NULL */
	uint64_t check_every;
};

/* A range written by the instruction (or syscall, or signal) in flight. */
struct stub_rec_state_range {
	uint64_t addr;
	uint64_t len;
	size_t old;                    /* offset of its old bytes in pend */
};

struct stub_rec_state_sample;

struct stub_rec_state {
	pid_t tid;
	FILE *out;                     /* borrowed: must outlive the log */
	struct stub_sum *sum;          /* @out's checksums, or NULL; owned */
	bool started;                  /* the first checkpoint is written */
	uint64_t bytes;                /* written so far */
	uint64_t last_index;           /* of the last record */
	uint64_t base;                 /* time - index of the last record */
	uint64_t last_ckpt;            /* index of the last checkpoint */
	uint64_t last_ckpt_off;        /* its byte offset in the log */
	bool ended;                    /* the SYNC that ends the log is written */
	uint64_t header_len;           /* bytes before the first checkpoint */
	bool ckpt_next;                /* a checkpoint after the next instruction */
	uint64_t mem_end;              /* end of the last MEM / MAP range */
	uint64_t last_write;           /* address of the last MEM range */
	struct user_regs_struct regs;  /* as of the last record */
	uint8_t *xs, *xs_new;          /* XSAVE area as of the last record */
	size_t xs_len;
	/* Writes of the step in flight: ranges and their old bytes. */
	struct stub_rec_state_range *rg;
	size_t nrg, caprg;
	uint8_t *pend;
	size_t npend, cappend;
	uint64_t pend_ip;              /* the instruction they belong to */
	uint64_t pend_index;           /* ... and its thread index */
	bool pend_valid;
	bool pend_syscall;
	long sc_nr;                    /* the syscall in flight */
	uint64_t sc_rsp;               /* ... and rsp when it was entered */
	uint64_t sc_args[6];
	uint64_t vol[4][2];            /* the syscall's volatile ranges (addr, len) */
	size_t nvol;
	uint64_t alt_sp, alt_size;     /* sigaltstack, if the thread set one */
	struct stub_rec_state_sample *chk;  /* --state-check: the sample not written yet */
	bool chk_pending;
	uint8_t *rec;                  /* the record being built */
	struct stub_rec_writer *w;     /* borrowed: writes @rec's batches out, or NULL */
	/* stub_rec_state_known_mem: the write being grown (contiguous writes
	 * of one instruction, such as a rep string instruction's iterations,
	 * become one MEM record), written before any other record. */
	uint64_t kw_addr, kw_len, kw_index, kw_time;
	uint8_t *kw_old, *kw_new;
	size_t kw_cap;
	/* The last write logged at each of a few addresses since the last
	 * checkpoint or MAP record (seen_gen), for MEM records whose old
	 * bytes it gives (REPLAY_STATE_MEM_SAME). */
	struct stub_rec_seen *seen;
	uint32_t seen_gen;
	size_t nrec, caprec;
};

/* CPUID and the decoder; @mem_fd must outlive it, @check (samples every
 * @every logical time, or NULL) too. 0 or -EINVAL. */
int stub_rec_state_proc_init(struct stub_rec_state_proc *p, const int *mem_fd,
			     struct replay_bundle *b, FILE *check, uint64_t every);

/* The log of @tid on @out (header written). 0 or a negative errno. */
int stub_rec_state_init(struct stub_rec_state *s, pid_t tid, FILE *out);

/* A thread that writes state logs out (fwrite, checksums) while their
 * owners build the next records: the Valgrind recorder's worker builds
 * them at the speed of one CPU, and a third of that went to writing.
 * Batches are handed over whole, in order; the first write error (ENOSPC)
 * is returned by the next hand-over or stub_rec_writer_wait of any log. */
struct stub_rec_writer;
int stub_rec_writer_start(struct stub_rec_writer **out);
/* Everything handed over is written: 0 or the first error. NULL: 0. */
int stub_rec_writer_wait(struct stub_rec_writer *w);
/* Waits, stops the thread, frees; before the logs it wrote are released. */
void stub_rec_writer_stop(struct stub_rec_writer *w);
/* @s's batches go to @w from now on (NULL: written by the caller again,
 * after stub_rec_writer_wait); one thread at a time hands a log's batches
 * over, as one builds its records. Ignored for a log with no file. */
void stub_rec_state_writer(struct stub_rec_state *s, struct stub_rec_writer *w);
void stub_rec_state_release(struct stub_rec_state *s);

/* The thread is stopped before instruction @index + 1 with @regs, at
 * logical time @time: the first call writes the checkpoint; later ones log
 * what changed since the last record without an instruction (signal
 * delivery, exec). 0 or a negative errno. */
int stub_rec_state_ready(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			 const struct user_regs_struct *regs, uint64_t index, uint64_t time);
/* Before stepping @insn with @regs: the ranges it will write and their old
 * bytes (kept across the iterations of a rep string instruction, whose
 * whole range is taken at the first). 0 or a negative errno. */
int stub_rec_state_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			  const struct stub_rec_insn *insn,
			  const struct user_regs_struct *regs, uint64_t index);
/* Before resuming over syscall @nr with @regs (its arguments): the ranges
 * the table says it writes, and their old bytes. 0 or a negative errno. */
int stub_rec_state_syscall(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			   long nr, const struct user_regs_struct *regs, uint64_t index,
			   uint64_t time);
/* @insn executed as instruction @index at @time and the registers are now
 * @regs: the register, XSAVE and memory records. 0 or a negative errno. */
int stub_rec_state_insn(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			const struct stub_rec_insn *insn,
			const struct user_regs_struct *regs, uint64_t index, uint64_t time);
/* Around the delivery of a caught signal (stopped at the handler):
 * _signal_before saves the frame area below @regs->rsp (and the top of the
 * alternate stack), _signal_after logs it and checks that the handler's
 * stack lies in it (else a gap). 0 or a negative errno. */
int stub_rec_state_signal_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 const struct user_regs_struct *regs, uint64_t index);
int stub_rec_state_signal_after(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				const struct user_regs_struct *regs, uint64_t index,
				uint64_t time);
/* A successful execve at @index, @time: all memory is new (a MAP record
 * for everything). 0 or a negative errno. */
int stub_rec_state_exec(struct stub_rec_state *s, uint64_t index, uint64_t time);
/* Instructions ran unseen after instruction @index (a lost single-step
 * trap): memory is unknown across @time as across an exec (a MAP record
 * for everything), and a "state-unknown" gap at @time says @text. 0 or a
 * negative errno. */
int stub_rec_state_lost(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			uint64_t index, uint64_t time, const char *text);
/* Around a write into the process by someone else (the debugger), while
 * the thread is stopped before instruction @index + 1: _poke_before saves
 * the old bytes of [@addr, +@len), _poke_after logs them with the new
 * ones at @time. 0 or a negative errno. */
int stub_rec_state_poke_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			       uint64_t addr, uint64_t len);
int stub_rec_state_poke_after(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			      uint64_t index, uint64_t time);
/* Whatever is pending did not happen (the step was interrupted). */
void stub_rec_state_drop(struct stub_rec_state *s);

/* The stack of the process's first thread when its log starts (its whole
 * mapping, at most the top STUB_REC_STATE_STACK bytes: argc, argv, envp,
 * the auxiliary vector and their strings, and below @rsp what is there:
 * zeros at an exec),
 * logged as memory that did not change before instruction @index + 1: a
 * debugger reads it at once (LLDB on connecting) and the past would not
 * otherwise know it. 0 (also when it cannot be read: the past then does
 * not know it, as before) or -ENOMEM. */
#define STUB_REC_STATE_STACK (256u << 10)
int stub_rec_state_initial_stack(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 uint64_t rsp, uint64_t index, uint64_t time);
/* fflush; 0 or -EIO. */
int stub_rec_state_flush(struct stub_rec_state *s);

/* What a reader of a log cut short (a recorder killed, a disk full) may
 * trust, written before a flush: every record of the thread's
 * instructions before @index and of the times before @until is in the log
 * before this one. stub_rec_state_end instead: the log is whole, nothing
 * follows (the thread exited or the recording ended); later calls of
 * either write nothing. @until is not 0. A log without an end is trusted up to its last
 * sync only (docs/bundle.md, "State log"). 0 or a negative errno. */
int stub_rec_state_sync(struct stub_rec_state *s, uint64_t index, uint64_t until);
int stub_rec_state_end(struct stub_rec_state *s);

/* --- For a recorder that knows every value itself (stub/recorders/stub_vgrec.c),
 * with no process to read: the same log, written from what it is told. */

/* The header (no XSAVE area: x87, SSE and AVX registers are unknown) and
 * a checkpoint of @regs before instruction @index + 1. 0 or a negative
 * errno. */
int stub_rec_state_known_start(struct stub_rec_state *s, const struct user_regs_struct *regs,
			       uint64_t index, uint64_t time);
/* Instruction @index ran at @time: a TIME record if other threads ran
 * since the last record (the time of every instruction must be known). */
int stub_rec_state_known_time(struct stub_rec_state *s, uint64_t index, uint64_t time);
/* After instruction @index the registers are @regs, of which only the
 * user_regs_struct slots in the bit mask @slots may have changed (~0u:
 * any): what changed, and a checkpoint when one is due. Records are
 * written out in batches, and at stub_rec_state_flush. */
int stub_rec_state_known_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
			      uint32_t slots, uint64_t index, uint64_t time);
/* Instruction @index wrote @now over @old, @len bytes at @addr (joined
 * to the previous write if it continues it). */
int stub_rec_state_known_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     const void *old, const void *now, uint64_t index, uint64_t time);
/* Memory changed other than by a logged write (@kind), after @index. */
int stub_rec_state_known_map(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     enum stub_rec_state_map kind, uint64_t index, uint64_t time);
/* A checkpoint after @index (a --snapshot cut, where the trace has a PSB),
 * after everything held back; last_ckpt_off is its offset. */
int stub_rec_state_known_ckpt(struct stub_rec_state *s, uint64_t index, uint64_t time);

/* The hidden --state-check dump: registers, XSAVE area, the stack page
 * and the page of the last write, at instruction @index (after it), i.e.
 * what the reader gives for position @index + 1. The sample is written
 * when the thread logs its next instruction (or at stub_rec_state_check_end):
 * if something is logged at @index in between (a signal delivered, the
 * registers changed without an instruction), it is taken again then, as
 * the position before instruction @index + 1 is what follows. A thread
 * whose state cannot be read (it exited) gives no sample. */
int stub_rec_state_check(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			 const struct user_regs_struct *regs, uint64_t index, uint64_t time);
/* Writes the sample still held, if any. 0 or -EIO. */
int stub_rec_state_check_end(struct stub_rec_state *s, struct stub_rec_state_proc *p);

#endif
