/*
 * replay/frontend/frontend_history.h: the current thread's history as `hindsight
 * replay` reads it: where the session is in it (position, size, pc), the
 * instruction listing of a range (`history`, GDB's record
 * instruction-history) in replay/decode/history_format.h's words, and the stack
 * from the recorded calls for a recording without registers (GDB's record
 * btrace `bt`). Listings go into the caller's stream; nothing here prints
 * to the terminal.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_HISTORY_H
#define HINDSIGHT_REPLAY_FRONTEND_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/decode/symbols.h"

struct replay_frontend;
struct replay_history_opts;

/* The current thread's position (1 .. size + 1: size + 1 is the end, past
 * its last instruction) and the number of its items. */
uint64_t replay_frontend_position(struct replay_frontend *f);
uint64_t replay_frontend_size(struct replay_frontend *f);
/* The pc at the current position: 0, or < 0 when the history does not
 * know it (a gap, the end of a trace cut short). */
int replay_frontend_pc(struct replay_frontend *f, uint64_t *pc);

/* Items @begin .. @end of the current thread into @out as they are
 * decoded (GDB's record instruction-history lines, @o's modifiers, "=>"
 * at the current position); stops early when *f->interrupt is set. 0,
 * -ECANCELED (interrupted), or the decoder's negative errno. */
int replay_frontend_history(struct replay_frontend *f, const struct replay_history_opts *o,
			    uint64_t begin, uint64_t end, FILE *out);

/* One frame of the stack from the recorded calls. */
struct replay_frontend_call_frame {
	uint64_t pc;               /* frame 0: the position's; outer: the call instruction */
	struct replay_symbol sym;
};

/* The stack at the current position from the recorded calls: up to @max
 * frames into @frames, innermost first; *@more set when outer frames were
 * left out. The number of frames, or -ESRCH (the position is in a gap),
 * -ECANCELED (interrupted building the calls), the calls' other errors. */
int replay_frontend_call_stack(struct replay_frontend *f, struct replay_frontend_call_frame *frames,
			       size_t max, bool *more);

#endif
