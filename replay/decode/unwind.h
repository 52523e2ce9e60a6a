/*
 * replay/decode/unwind.h: the call stack at a position, unwound from the
 * registers and memory of that position as GDB unwinds a live process.
 *
 * Frame 0 is the registers given. Each caller is found, in GDB's order:
 *
 *   signal frames  the sigreturn trampoline (__restore_rt: `mov $0xf,%rax;
 *                  syscall`, at the pc or 7 bytes before it) is a signal
 *                  frame ("<signal handler called>"); the interrupted
 *                  registers are the ucontext's, in the rt_sigframe at its
 *                  rsp (sigcontext at rsp + 40), as GDB's amd64-linux
 *                  sigtramp unwinder reads them. An FDE whose CIE says 'S'
 *                  is a signal frame too, unwound by its CFI.
 *   DWARF CFI      the rules of the FDE holding the pc (dwarf/dw_cfi.h),
 *                  looked up at pc - 1 for a caller (its pc is a return
 *                  address, maybe past the function's end after a noreturn
 *                  call), at the pc itself for frame 0 and above a signal
 *                  frame.
 *   prologue       no FDE: GDB's amd64 prologue analysis: `push %rbp; mov
 *                  %rsp,%rbp` at the function's start (after an endbr64)
 *                  puts the frame at rbp, only the push at rsp, neither (or
 *                  no function known) the return address at rsp.
 *
 * It stops where GDB stops, and says why: after main (GDB's `backtrace
 * past-main off`), at a return address the CFI says is undefined (_start,
 * clone3), after a frame whose pc is 0; with GDB's "Backtrace stopped:"
 * reasons when the stack is corrupt (a caller identical to its callee, or
 * inner to it); and with a reason of its own when the recording cannot
 * tell (memory never recorded, a register the rules need not known, CFI
 * this reader refuses). Never a guessed frame past such a point.
 *
 * Nothing here prints or reads a process: memory, CFI rows and names come
 * through the callbacks of struct replay_unwind_env.
 */
#ifndef HINDSIGHT_REPLAY_UNWIND_H
#define HINDSIGHT_REPLAY_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/symbols.h"

struct dw_cfi_row;

struct replay_unwind_env {
	/* Up to @len bytes at @addr: the count read, or < 0. */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *read_ctx;
	/* The CFI row at @pc: 0, -ENOENT (no FDE), -ESRCH (no image), < 0. */
	int (*cfi)(void *ctx, uint64_t pc, struct dw_cfi_row *out);
	void *cfi_ctx;
	const struct replay_symbolizer *sym;
};

/* DWARF x86-64 registers a frame carries: rax rdx rcx rbx rsi rdi rbp rsp
 * r8 .. r15 (0..15) and rip (16). */
#define REPLAY_UNWIND_NREGS 17
#define REPLAY_UNWIND_RIP 16

enum replay_frame_kind {
	REPLAY_FRAME_NORMAL,
	REPLAY_FRAME_SIGTRAMP,     /* "<signal handler called>" */
};

struct replay_frame {
	enum replay_frame_kind kind;
	uint64_t pc;               /* frame 0 and above a signal frame: where it
				    * is; other callers: the return address */
	uint64_t lookup_pc;        /* where its function and line are: pc, or
				    * pc - 1 for a caller after a call */
	bool has_sym;
	struct replay_symbol sym;  /* of lookup_pc */
	uint64_t cfa;              /* its frame's address (GDB's "frame at"): the
				    * CFA its CFI gives, once it was unwound */
	bool has_cfa;              /* cfa is known */
	/* Its DWARF registers 0..16 (rip is 16: its pc), as GDB shows them
	 * in this frame: frame 0's all; a caller's rsp is its callee's CFA,
	 * the callee-saved ones from the callee's rules, the others as the
	 * callee had them ("same value", GDB's default for amd64) unless a
	 * rule says undefined: bit i of regs_known. */
	uint64_t regs[REPLAY_UNWIND_NREGS];
	uint32_t regs_known;
	/* Where this frame saved its caller's register i (the CFI's
	 * offset(N) rules, the sigcontext's slots, the prologue's push):
	 * GDB's "Saved registers:" of `info frame`; bit i of saved_mask. */
	uint64_t saved_at[REPLAY_UNWIND_NREGS];
	uint32_t saved_mask;
	/* The frame's base, GDB's amd64 "Arglist at" / "Locals at" (its
	 * prologue analysis: rbp after `push %rbp; mov %rsp,%rbp`, else from
	 * rsp); has_base when known. */
	uint64_t base;
	bool has_base;
};

enum replay_unwind_stop {
	REPLAY_UNWIND_MAIN,        /* the last frame is main */
	REPLAY_UNWIND_OUTERMOST,   /* its return address is undefined (_start, clone3) */
	REPLAY_UNWIND_ZERO_PC,     /* the last frame's pc is 0 */
	REPLAY_UNWIND_MORE,        /* @max frames: more follow */
	REPLAY_UNWIND_SAME,        /* "previous frame identical to this frame (corrupt stack?)" */
	REPLAY_UNWIND_INNER,       /* "previous frame inner to this frame (corrupt stack?)" */
	REPLAY_UNWIND_MEMORY,      /* the memory at @addr is not in the recording */
	REPLAY_UNWIND_REGISTER,    /* the CFI needs a register that is not known */
	REPLAY_UNWIND_BAD_CFI,     /* CFI this reader refuses (@err) */
};

struct replay_unwind_end {
	enum replay_unwind_stop stop;
	uint64_t addr;             /* MEMORY: the address; BAD_CFI: the pc */
	int err;                   /* BAD_CFI: dw_cfi_row_at's or the expression's error */
};

/* rip .. of struct user_regs_struct, as replay_state_raw_at gives them. */
#define REPLAY_UNWIND_NGP 27

/* Unwinds from @gp (struct user_regs_struct's fields, rip the position's
 * pc) into up to @max frames, innermost first, each with its registers and
 * CFA (the last one's too when it can be computed); why it stopped into
 * *@end.
 * Returns the number of frames (>= 1 when @max is), or -ENOMEM. */
int replay_unwind(const uint64_t gp[REPLAY_UNWIND_NGP], const struct replay_unwind_env *env,
		  struct replay_frame *frames, size_t max, struct replay_unwind_end *end);

/* The line GDB prints after a backtrace that stopped so ("Backtrace
 * stopped: ..."), into @buf; false when it stops silently (MAIN,
 * OUTERMOST, ZERO_PC, MORE). */
bool replay_unwind_end_text(const struct replay_unwind_end *end, char *buf, size_t size);

/* The struct user_regs_struct slot (enum rsp_user_slot) of DWARF register
 * @dw (< REPLAY_UNWIND_NREGS). */
int replay_unwind_user_slot(unsigned dw);
/* GDB's name of DWARF register @dw ("rax", ..., "rip"), from the one
 * register table (protocol/rsp_regs.h), or NULL past REPLAY_UNWIND_NREGS. */
const char *replay_unwind_reg_name(unsigned dw);
/* The DWARF number of user_regs_struct slot @slot, or -1 when a frame
 * does not carry it (eflags, segments: GDB shows frame 0's). */
int replay_unwind_dwarf_reg(int slot);

/* Whether a backtrace prints frame @i's pc before its function (GDB's
 * frame_show_address): always for a caller after a call (its pc is a
 * return address, mid-line), for frame 0 and the frame a signal
 * interrupted unless the pc starts a line. Only on level 0 of a frame with
 * inlined functions: the outer levels never show it. */
bool replay_frame_show_pc(const struct replay_symbolizer *sym, const struct replay_frame *frames,
			  size_t i);
/* Whether @pc starts a line: it has one, and the line-table row it comes
 * from starts at @pc (GDB's sal.pc); for a symbolizer that does not say,
 * pc - 1 is another function or line (or nothing). */
bool replay_pc_starts_line(const struct replay_symbolizer *sym, uint64_t pc);

/* The frames GDB shows for one physical frame @f: one per function
 * inlined at its pc (innermost first), then the function itself; 1 when it
 * has no symbol. */
size_t replay_frame_levels(const struct replay_frame *f);
/* What level @level (< replay_frame_levels) of @f shows, as a symbol with
 * no inlined functions: level 0 the innermost function at its pc's line,
 * each outer one at the file:line where the one inside it was inlined. */
void replay_frame_level(const struct replay_frame *f, size_t level, struct replay_symbol *out);

#endif
