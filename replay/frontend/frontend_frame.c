/*
 * replay/frontend/frontend_frame.c: the selected frame of `hindsight replay`, its
 * levels and registers (see frontend_frame.h).
 */
#include "replay/frontend/frontend_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_regs.h"
#include "replay/decode/cursor.h"
#include "replay/frontend/frontend.h"
#include "replay/decode/timeline.h"

#define FRAMES_MAX 256

/* Level @level among the physical frames @frames[0 .. @n): into @out. */
static int find_level(struct replay_frontend *f, const struct replay_frame *frames, size_t n,
		      size_t level, struct replay_frontend_frame *out)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		size_t levels = replay_frame_levels(&frames[i]);

		if (level >= at + levels) {
			at += levels;
			continue;
		}
		memset(out, 0, sizeof(*out));
		out->level = level;
		out->index = i;
		out->inline_level = level - at;
		out->frame = frames[i];
		replay_frame_level(&frames[i], out->inline_level, &out->sym);
		out->show_pc = out->inline_level == 0 && replay_frame_show_pc(&f->sym, frames, i);
		out->has_callee = i > 0;
		out->callee_cfa = i > 0 ? frames[i - 1].cfa : 0;
		out->has_caller = i + 1 < n;
		out->caller_cfa = i + 1 < n ? frames[i + 1].cfa : 0;
		out->caller_has_cfa = i + 1 < n && frames[i + 1].has_cfa;
		out->caller_pc = i + 1 < n ? frames[i + 1].pc : 0;
		out->outermost = i + 1 == n && out->inline_level + 1 == levels;
		return 0;
	}
	return -ENOENT;
}

int replay_frontend_frame_get(struct replay_frontend *f, size_t level,
			      struct replay_frontend_frame *out)
{
	struct replay_frame *frames = malloc(FRAMES_MAX * sizeof(*frames));
	struct replay_unwind_end end;
	int n;

	if (!frames)
		return -ENOMEM;
	n = replay_frontend_backtrace(f, frames, FRAMES_MAX, &end);
	if (n >= 0)
		n = find_level(f, frames, (size_t)n, level, out);
	free(frames);
	return n < 0 ? n : 0;
}

int replay_frontend_frame_select(struct replay_frontend *f, size_t level)
{
	struct replay_frontend_frame *fr;
	int rc;

	if (level == 0) {
		f->frame = 0;
		return 0;
	}
	fr = malloc(sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	rc = replay_frontend_frame_get(f, level, fr);
	free(fr);
	if (rc == 0)
		f->frame = level;
	return rc;
}

size_t replay_frontend_frame_selected(const struct replay_frontend *f)
{
	return f->frame;
}

int replay_frontend_frame_regs(struct replay_frontend *f, struct replay_frontend_frame_regs *out)
{
	struct replay_frontend_frame *fr;
	int rc;

	memset(out, 0, sizeof(*out));
	out->level = f->frame;
	rc = replay_frontend_regs(f, out->gp);
	if (rc < 0)
		return rc;
	out->no_pc = rc == 1;
	out->known = (1u << 27) - 1;
	if (rc == 1)
		out->known &= ~(1u << RSP_USER_RIP);
	fr = malloc(sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	if (rc == 1) {
		/* no pc: no unwinding, frame 0's registers without rip */
		free(fr);
		return f->frame ? -ESRCH : 1;
	}
	rc = replay_frontend_frame_get(f, f->frame, fr);
	if (rc == 0) {
		for (unsigned i = 0; i < REPLAY_UNWIND_NREGS; i++) {
			int slot = replay_unwind_user_slot(i);

			out->gp[slot] = fr->frame.regs[i];
			if (!(fr->frame.regs_known & (1u << i)))
				out->known &= ~(1u << slot);
		}
		out->cfa = fr->frame.cfa;
		out->has_cfa = fr->frame.has_cfa;
	} else if (f->frame == 0) {
		rc = 0; /* frame 0's registers without its CFA */
	}
	free(fr);
	return rc;
}

/* The internal breakpoints of run_to: tag 0 (users' are numbered from 1). */
#define INTERNAL_TAG 0

static int points(struct replay_frontend *f, const uint64_t *addrs, size_t n, bool insert)
{
	for (size_t i = 0; i < n; i++) {
		if (!insert)
			replay_timeline_point_remove(f->tl, REPLAY_TIMELINE_BREAK, addrs[i], 0,
						     INTERNAL_TAG);
		else if (replay_timeline_point_insert(f->tl, REPLAY_TIMELINE_BREAK, addrs[i], 0,
						      INTERNAL_TAG) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The CFA of frame 0 at the position, or 0. */
static uint64_t frame0_cfa(struct replay_frontend *f)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	uint64_t cfa = 0;

	if (fr && replay_frontend_frame_get(f, 0, fr) == 0 && fr->frame.has_cfa)
		cfa = fr->frame.cfa;
	free(fr);
	return cfa;
}

/* Whether the stop of the current thread at @pc is one run_to wants:
 * one of @addrs (in the frame of CFA @cfa unless it is 0), or @ret with
 * rsp @sp (the frame returned). */
static bool wanted(struct replay_frontend *f, uint64_t pc, const uint64_t *addrs, size_t n,
		   uint64_t ret, uint64_t sp, uint64_t cfa)
{
	uint64_t gp[27];

	for (size_t i = 0; i < n; i++)
		if (addrs[i] == pc)
			return !cfa || frame0_cfa(f) == cfa;
	return ret && pc == ret && replay_frontend_regs(f, gp) == 0 && gp[RSP_USER_RSP] == sp;
}

/* Forward until the current thread reaches one of @addrs, or @ret (not 0)
 * with rsp @sp, as GDB's finish / until / advance do with their
 * breakpoints and frame check; a user's breakpoint on the way stops it
 * too. An enum replay_frontend_stop or < 0. */
static int run_to(struct replay_frontend *f, const uint64_t *addrs, size_t n, uint64_t ret,
		  uint64_t sp, uint64_t cfa)
{
	size_t thread = f->current;
	int r = points(f, addrs, n, true);

	if (r == 0 && ret)
		r = points(f, &ret, 1, true);
	while (r == 0) { /* 0: points inserted, then until a stop it keeps */
		uint64_t pc;

		r = replay_frontend_continue(f, false);
		if (r != REPLAY_FRONTEND_BREAK || replay_cursor_pc(replay_frontend_cursor(f), &pc))
			break;
		if (f->current == thread && wanted(f, pc, addrs, n, ret, sp, cfa)) {
			r = REPLAY_FRONTEND_DONE;
			break;
		}
		/* a user's breakpoint: continue decided it already unless
		 * one of ours is at the same place */
		if (f->stopped_break || (replay_timeline_break_at(f->tl, pc, 0) &&
					 replay_frontend_break_stops(f)))
			break;
		f->current = thread;
		r = 0;
	}
	points(f, addrs, n, false);
	if (ret)
		points(f, &ret, 1, false);
	return r;
}

int replay_frontend_finish_frame(struct replay_frontend *f, size_t level)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	uint64_t ret, sp;
	int rc = fr ? replay_frontend_frame_get(f, level, fr) : -ENOMEM;

	if (rc == 0 && (!fr->has_caller || fr->frame.kind == REPLAY_FRAME_SIGTRAMP ||
			!fr->frame.has_cfa))
		rc = -ENOENT;
	ret = rc == 0 ? fr->caller_pc : 0;
	sp = rc == 0 ? fr->frame.cfa : 0;
	free(fr);
	return rc < 0 ? rc : run_to(f, NULL, 0, ret, sp, 0);
}

int replay_frontend_advance(struct replay_frontend *f, const uint64_t *addrs, size_t n,
			   bool same_frame)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	uint64_t ret = 0, sp = 0, cfa = 0;
	int rc = fr ? replay_frontend_frame_get(f, 0, fr) : -ENOMEM;

	/* or the current frame returns, when it is known */
	if (rc == 0 && fr->has_caller && fr->frame.has_cfa &&
	    fr->frame.kind == REPLAY_FRAME_NORMAL) {
		ret = fr->caller_pc;
		sp = fr->frame.cfa;
	}
	if (rc == 0 && same_frame && fr->frame.has_cfa)
		cfa = fr->frame.cfa;
	free(fr);
	if (rc == -ENOMEM)
		return rc;
	return run_to(f, addrs, n, ret, sp, cfa);
}
