/*
 * replay/decode/explain.h: how a recorded program got to where it died.
 *
 * From a recording whose program was killed by a signal: the thread that
 * died and the position of the instruction it died at (the state before
 * it), that instruction with the registers it uses and the address of its
 * memory operand (values from the state log, when the recording has one),
 * the call stack at that point (unwound from the registers and memory
 * there, replay/decode/unwind.h, as GDB unwinds: through signal frames and
 * longjmps; without a state log, from the history's call structure,
 * replay/decode/calls.h: frame 0 is the faulting function, each outer frame the
 * call instruction of the segment one level up), and the last distinct
 * source lines executed before it. `hindsight run` prints it; the
 * `hindsight replay` front end shares the call-structure stack
 * (replay_explain_frames) for recordings without registers.
 *
 * The end of a recording: the software recorder counts the instructions a
 * thread completed (thread.instructions), and the faulting one is not
 * among them; the decoder may walk a few instructions past it at the end
 * of the trace (the stream ends without a disable there), so the fault is
 * found from the count, not from the decoded size. Nothing here prints
 * except replay_explain_print, to a stream the caller owns.
 */
#ifndef HINDSIGHT_REPLAY_EXPLAIN_H
#define HINDSIGHT_REPLAY_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/decode/calls.h"
#include "replay/decode/insn.h"
#include "replay/model/state.h"
#include "replay/decode/symbols.h"
#include "replay/decode/unwind.h"

#define REPLAY_EXPLAIN_FRAMES 32
#define REPLAY_EXPLAIN_LINES 10
#define REPLAY_EXPLAIN_REGS 6

struct replay_bundle;
struct replay_cursor;
struct replay_image;

struct replay_explain_frame {
	enum replay_frame_kind kind;
	uint64_t pc;               /* frame 0: the fault; outer: the return address
				    * (from the calls: the call instruction) */
	uint64_t position;         /* from the calls: the item of @pc */
	bool show_pc;              /* print @pc (GDB's frame_show_address) */
	struct replay_symbol sym;  /* function NULL if unknown */
	struct replay_symbol shown; /* unwound: what the stack shows, one level
				     * of the functions inlined at @pc */
};

struct replay_explain_line {
	const char *file;          /* owned by the symbolizer */
	unsigned line;
	const char *function;
};

struct replay_explain_reg {
	const char *name;          /* "rax", "rsp", ... (static) */
	uint64_t value;
};

struct replay_explain {
	size_t thread;             /* index into the bundle's threads */
	int64_t tid;
	uint64_t position;         /* of the faulting instruction */
	uint64_t size;             /* items in the thread's history */
	bool has_pc;
	uint64_t pc;
	bool after_sigreturn;      /* @pc restored by the rt_sigreturn just before */
	bool has_insn;
	struct replay_insn insn;
	char text[160];            /* its AT&T text */
	bool has_regs;             /* the state log knew the registers */
	bool regs_cut;             /* ... not: it was cut short before them */
	uint64_t gp[REPLAY_STATE_NGP];
	struct replay_explain_reg regs[REPLAY_EXPLAIN_REGS]; /* the registers it uses */
	size_t nregs;
	bool has_addr;             /* its memory operand's address */
	uint64_t addr;
	bool writes;               /* the memory operand is written */
	struct replay_explain_frame frames[REPLAY_EXPLAIN_FRAMES];
	size_t nframes;
	bool more_frames;          /* outer frames were left out */
	bool unwound;              /* the frames are unwound (else from the calls) */
	struct replay_unwind_end end; /* why the unwinding stopped */
	struct replay_explain_line lines[REPLAY_EXPLAIN_LINES]; /* oldest first */
	size_t nlines;
};

/* The thread that died in @b and the position of its faulting
 * instruction, over @c (a cursor of that thread, found by the caller with
 * replay_explain_thread). */
size_t replay_explain_thread(const struct replay_bundle *b, struct replay_state *st);
uint64_t replay_explain_position(const struct replay_bundle *b, size_t thread,
				 struct replay_cursor *c);
/* The same from the thread's index. */
uint64_t replay_explain_position_of(const struct replay_bundle *b, size_t thread,
				    const struct replay_index *idx);

/* Fills @e for thread @thread of @b, whose cursor is @c (moved), with
 * code bytes from @img, values from @st (NULL without a state log), names
 * from @sym and call frame rules from @cfi (replay_unwind_env's, with its
 * @cfi_ctx). 0, or a negative errno from decoding (-ENOMEM, ...). */
int replay_explain_build(const struct replay_bundle *b, size_t thread, struct replay_cursor *c,
			 struct replay_image *img, struct replay_state *st,
			 const struct replay_symbolizer *sym,
			 int (*cfi)(void *ctx, uint64_t pc, struct dw_cfi_row *out), void *cfi_ctx,
			 struct replay_explain *e);

/* The call stack at position @pos of @c's thread from @calls (built over
 * the same thread from item @calls_first): up to @max frames into
 * @frames, innermost first, frame 0's pc @pc. Returns the number of
 * frames; *@more is set when outer frames were left out. */
size_t replay_explain_frames(const struct replay_calls *calls, struct replay_cursor *c,
			     const struct replay_symbolizer *sym, uint64_t pos, uint64_t pc,
			     struct replay_explain_frame *frames, size_t max, bool *more);

/* Writes @e as the explanation `hindsight run` prints: the faulting
 * instruction and its line (with the source text when the file is here),
 * registers, the backtrace, the last lines. @signo names the signal. */
void replay_explain_print(FILE *out, const struct replay_explain *e, int signo);

#endif
