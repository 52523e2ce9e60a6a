/*
 * replay/frontend_frame.c: the selected frame of `hindsight replay`, its
 * levels and registers (see frontend_frame.h).
 */
#include "replay/frontend_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_regs.h"
#include "replay/frontend.h"

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
