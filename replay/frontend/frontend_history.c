/*
 * replay/frontend/frontend_history.c: the current thread's history for `hindsight
 * replay` (see frontend_history.h).
 */
#include "replay/frontend/frontend_history.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "replay/decode/cursor.h"
#include "replay/decode/decode.h"
#include "replay/decode/explain.h"
#include "replay/frontend/frontend.h"
#include "replay/decode/history_format.h"
#include "replay/decode/index.h"

#define CALL_FRAMES_MAX 64

uint64_t replay_frontend_position(struct replay_frontend *f)
{
	return replay_cursor_position(replay_frontend_cursor(f));
}

uint64_t replay_frontend_size(struct replay_frontend *f)
{
	return replay_cursor_size(replay_frontend_cursor(f));
}

int replay_frontend_pc(struct replay_frontend *f, uint64_t *pc)
{
	return replay_cursor_pc(replay_frontend_cursor(f), pc);
}

static bool interrupted(const struct replay_frontend *f)
{
	return f->interrupt && *f->interrupt;
}

int replay_frontend_history(struct replay_frontend *f, const struct replay_history_opts *o,
			    uint64_t begin, uint64_t end, FILE *out)
{
	struct replay_cursor *cur = replay_frontend_cursor(f);
	uint64_t pos = replay_cursor_position(cur);
	struct replay_history_src last = { 0 };
	struct replay_decoder *d = NULL;
	struct replay_item it;
	int rc = replay_decoder_new(f->b, f->current, &d);

	if (rc == 0)
		rc = replay_index_seek(replay_cursor_index(cur), d, begin);
	while (rc == 0 && !interrupted(f) && (rc = replay_decoder_next(d, &it)) == 1 &&
	       it.index <= end) {
		rc = 0;
		if (it.kind == REPLAY_ITEM_GAP) {
			fprintf(out, "%" PRIu64 "\t", it.index);
			replay_history_print_gap(out, it.error, it.text);
		} else {
			replay_history_print_insn(out, &f->sym, o, &it, it.index == pos, &last);
		}
	}
	replay_history_src_release(&last);
	replay_decoder_free(d);
	f->sym_pinned = false;
	if (interrupted(f))
		return -ECANCELED;
	return rc < 0 ? rc : 0;
}

int replay_frontend_call_stack(struct replay_frontend *f, struct replay_frontend_call_frame *frames,
			       size_t max, bool *more)
{
	struct replay_explain_frame ef[CALL_FRAMES_MAX];
	struct replay_cursor *cur = replay_frontend_cursor(f);
	const struct replay_calls *calls;
	uint64_t pos = replay_cursor_position(cur), pc;
	size_t n;
	int rc;

	if (replay_cursor_pc(cur, &pc) < 0)
		return -ESRCH;
	rc = replay_frontend_calls(f, &calls);
	if (rc < 0)
		return rc;
	if (pos > replay_cursor_size(cur))
		pos = replay_cursor_size(cur);
	n = replay_explain_frames(calls, cur, &f->sym, pos, pc, ef,
				  max < CALL_FRAMES_MAX ? max : CALL_FRAMES_MAX, more);
	for (size_t i = 0; i < n; i++) {
		frames[i].pc = ef[i].pc;
		frames[i].sym = ef[i].sym;
	}
	return (int)n;
}
