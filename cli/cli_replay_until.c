/*
 * cli/cli_replay_until.c: `until` with no argument, as GDB 13's
 * until_next_command: a `next` whose stepping range is from the entry of
 * the current function to the end of the line-table row holding the pc,
 * so that a backward jump (the end of a loop body going back to its
 * condition) keeps going and it stops only on reaching code after the
 * current line, or in the caller. Made of the session's `next` moves
 * (replay_frontend_step over calls): after each, a stop at a line start
 * still inside that range, in the same frame (same CFA), goes on.
 */
#include "cli/cli_replay_until.h"

#include <stdlib.h>

#include "cli/cli_replay_out.h"
#include "cli/cli_replay_stop.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_insn.h"

#define ROW_SCAN_MAX 4096          /* bytes looked through for a row's end */

/* Frame 0's pc and CFA: false when they cannot be had. */
static bool frame0(struct cli_session *s, uint64_t *pc, uint64_t *cfa, uint64_t *entry)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	bool ok = fr && replay_frontend_frame_get(s->f, 0, fr) == 0 && fr->frame.has_cfa &&
		  fr->frame.has_sym && fr->frame.sym.function;

	if (ok) {
		*pc = fr->frame.pc;
		*cfa = fr->frame.cfa;
		*entry = fr->frame.sym.start;
	}
	free(fr);
	return ok;
}

/* The end of the line-table row holding @pc: the next address starting a
 * row (GDB's sal.end). */
static uint64_t row_end(struct cli_session *s, uint64_t pc)
{
	uint64_t a = pc + 1;

	while (a < pc + ROW_SCAN_MAX && !replay_frontend_starts_line(s->f, a))
		a++;
	return a;
}

int cli_replay_until_next(struct cli_session *s)
{
	const char *prev = cli_replay_current_function(s);
	uint64_t pc, cfa, entry, end, npc, ncfa, nentry;
	bool ranged;
	int r;

	if (cli_replay_need_calls(s) < 0)
		return -1;
	ranged = frame0(s, &pc, &cfa, &entry);
	end = ranged ? row_end(s, pc) : 0;
	do {
		r = replay_frontend_step(s->f, false, true);
		if (r == REPLAY_FRONTEND_DONE && cli_replay_interrupted)
			r = REPLAY_FRONTEND_INTERRUPTED;
	} while (r == REPLAY_FRONTEND_DONE && ranged && frame0(s, &npc, &ncfa, &nentry) &&
		 ncfa == cfa && npc >= entry && npc < end);
	return cli_replay_report_stop(s, r, prev, false);
}
