/*
 * replay/frontend/frontend_frame.h: the selected frame of `hindsight replay`, as
 * GDB's `frame`, `up`, `down` choose it.
 *
 * Frames are numbered as GDB numbers them: a level for every function
 * inlined at a frame's pc, then the function itself, and one for a signal
 * frame (replay_frame_levels). Frame 0 is selected after every move and
 * thread switch (replay_frontend.frame, reset by the moves). The selected
 * frame's registers are its unwound ones (replay/decode/unwind.h): rsp its
 * callee's CFA, rip its pc, callee-saved registers from the CFI; what
 * the frame does not carry (eflags, segments) is frame 0's, as GDB shows
 * them. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_FRAME_H
#define HINDSIGHT_REPLAY_FRONTEND_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/unwind.h"

struct replay_frontend;

/* One level of the stack at the current position. */
struct replay_frontend_frame {
	size_t level;              /* GDB's */
	size_t index;              /* the physical frame's index in the unwind */
	size_t inline_level;       /* which of its replay_frame_levels (0: innermost) */
	struct replay_frame frame; /* the physical frame */
	struct replay_symbol sym;  /* what this level shows (replay_frame_level) */
	bool show_pc;              /* GDB prints its pc before the function */
	bool has_caller, has_callee; /* the physical frames around it */
	uint64_t caller_cfa, callee_cfa, caller_pc;
	bool caller_has_cfa;
	bool outermost;            /* no frame above it */
};

/* The selected frame's registers. */
struct replay_frontend_frame_regs {
	size_t level;              /* its level */
	uint64_t gp[27];           /* struct user_regs_struct's slots */
	uint32_t known;            /* bit i: gp[i] is known (unknown: GDB's <not saved>) */
	uint64_t cfa;              /* its own CFA (DW_OP_call_frame_cfa in it) */
	bool has_cfa;
	bool no_pc;                /* the history does not know the pc here (frame 0 only) */
};

/* Level @level of the stack at the current position into *@out. 0,
 * -ENOENT (no frame at that level), or replay_frontend_backtrace's
 * errors (-ENODATA no registers, -ERANGE, -ESRCH, -ENOMEM). */
int replay_frontend_frame_get(struct replay_frontend *f, size_t level,
			      struct replay_frontend_frame *out);

/* Selects level @level: 0 or replay_frontend_frame_get's errors (the
 * selection is then unchanged). */
int replay_frontend_frame_select(struct replay_frontend *f, size_t level);
/* The selected level. */
size_t replay_frontend_frame_selected(const struct replay_frontend *f);

/* The selected frame's registers and CFA into *@out. 0; 1 as
 * replay_frontend_regs (frame 0 only: the pc is not known, no_pc set);
 * -ENODATA (no state log), -ERANGE (past where it was cut short); for a
 * frame above 0, the unwinder's errors. */
int replay_frontend_frame_regs(struct replay_frontend *f, struct replay_frontend_frame_regs *out);

/* finish out of frame @level (above 0): forward until its caller's pc
 * with rsp its CFA (GDB's finish: after a longjmp past it, where the
 * caller resumes at that pc), or a user's breakpoint. An enum
 * replay_frontend_stop or < 0 (-ENOENT: no caller). */
int replay_frontend_finish_frame(struct replay_frontend *f, size_t level);
/* advance LOCATION / until LOCATION (@same_frame: only in the current
 * frame, GDB's until): forward until one of @addrs, the current frame's
 * return (as finish_frame), or a user's breakpoint. An enum
 * replay_frontend_stop or < 0. */
int replay_frontend_advance(struct replay_frontend *f, const uint64_t *addrs, size_t n,
			   bool same_frame);

#endif
