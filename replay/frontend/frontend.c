/*
 * replay/frontend/frontend.c: the session of `hindsight replay`, its moves at
 * source level over the history and its breakpoints (see frontend.h).
 * It calls no other file of the room (the files of the session's parts call it): a
 * breakpoint's condition is evaluated through f->cond_eval, and
 * frontend_open.c, above, opens and frees the session (frontend_int.h).
 */
#include "replay/frontend/frontend.h"
#include "replay/decode/calls.h"
#include "replay/decode/cursor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/decode/dwarf_symbols.h"
#include "replay/frontend/frontend_int.h"
#include "replay/model/image.h"
#include "replay/model/rodata.h"
#include "replay/model/state.h"
#include "replay/decode/timeline.h"

/* The last stack unwound, for the same question at the same place (a
 * frame line's arguments, each name a C expression looks up, unwind it
 * again and again). */
struct bt_cache {
	size_t thread, max;
	uint64_t position, time;
	int n;
	struct replay_unwind_end end;
	struct replay_frame *frames;
};

void replay_frontend_release(struct replay_frontend *f)
{
	for (size_t i = 0; f->calls && i < f->nthreads; i++)
		replay_calls_release(&f->calls[i]);
	for (size_t i = 0; i < f->nbreaks; i++) {
		free(f->breaks[i].spec);
		free(f->breaks[i].addrs);
		free(f->breaks[i].cond);
	}
	free(f->breaks);
	f->breaks = NULL;
	f->nbreaks = f->capbreaks = 0;
	if (f->bt_cache)
		free(((struct bt_cache *)f->bt_cache)->frames);
	free(f->bt_cache);
	f->bt_cache = NULL;
}

struct replay_cursor *replay_frontend_cursor(struct replay_frontend *f)
{
	return f->cur[f->current];
}

void replay_frontend_sym_now(struct replay_frontend *f)
{
	uint64_t now;

	if (f->ds && !f->sym_pinned && replay_timeline_time(f->tl, &now) == 0)
		replay_dwarf_symbols_at(f->ds, now);
}

struct dw_space *replay_frontend_space(struct replay_frontend *f)
{
	replay_frontend_sym_now(f);
	return replay_dwarf_symbols_space(f->ds);
}

int64_t replay_frontend_tid(const struct replay_frontend *f)
{
	return f->b->threads[f->current].tid;
}

bool replay_frontend_thread_exited(const struct replay_frontend *f, size_t i)
{
	return i < f->nthreads && replay_timeline_exited(f->tl, i, f->img);
}

bool replay_frontend_thread_exists(const struct replay_frontend *f, size_t i)
{
	return i == f->current || (i < f->nthreads && replay_timeline_started(f->tl, i) &&
				   !replay_timeline_exited(f->tl, i, f->img));
}

static int frontend_progress(void *ctx, uint64_t items)
{
	struct replay_frontend *f = ctx;

	(void)items;
	return f->interrupt && *f->interrupt ? -ECANCELED : 0;
}

int replay_frontend_calls(struct replay_frontend *f, const struct replay_calls **out)
{
	struct replay_decoder *d = NULL;
	struct replay_calls *c = &f->calls[f->current];
	int rc;

	if (!f->calls_built[f->current]) {
		rc = replay_decoder_new(f->b, f->current, &d);
		if (rc == 0)
			rc = replay_calls_build(c, d, &f->sym, frontend_progress, f);
		f->sym_pinned = false;
		replay_decoder_free(d);
		if (rc < 0) {
			replay_calls_release(c);
			memset(c, 0, sizeof(*c));
			return rc;
		}
		f->calls_built[f->current] = true;
	}
	*out = c;
	return 0;
}

int replay_frontend_level(struct replay_frontend *f, uint64_t pos)
{
	const struct replay_calls *c;
	size_t lo = 0, hi;

	if (replay_frontend_calls(f, &c) < 0 || !c->n)
		return -1;
	/* The last segment whose first item is <= pos. */
	hi = c->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (c->segs[mid].first <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return c->segs[lo].level;
}

int replay_frontend_where(struct replay_frontend *f, uint64_t *pc, struct replay_symbol *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (replay_cursor_pc(replay_frontend_cursor(f), pc) < 0)
		return -ENODATA;
	return f->sym.lookup(f->sym.ctx, *pc, sym) < 0 ? -ENOENT : 0;
}

int replay_frontend_regs(struct replay_frontend *f, uint64_t gp[27])
{
	struct replay_cursor *c = replay_frontend_cursor(f);
	uint64_t pc;
	int rc;

	if (!f->st)
		return -ENODATA;
	rc = replay_state_raw_at(f->st, replay_frontend_tid(f), replay_cursor_position(c), gp,
				 NULL, NULL);
	if (rc < 0)
		return rc == -ENOENT ? -ENODATA : rc == -ENODATA ? -ERANGE : rc;
	/* The log's rip is its last checkpoint's: only the history knows. */
	rc = replay_cursor_pc(c, &pc);
	gp[RSP_USER_RIP] = rc == 0 ? pc : 0;
	return rc == 0 ? 0 : 1;
}

/* Bytes that never change: code from the images, read-only file data. */
static int static_read(struct replay_frontend *f, uint64_t addr, uint8_t *buf, size_t len)
{
	int got = replay_image_read(f->img, 0, addr, buf, len);

	return got > 0 ? got : replay_rodata_read(f->rodata, addr, buf, len);
}

/* A run of bytes the state log does not know: the files' (code, read-only
 * data, and for bytes nothing touched the initial data the recording
 * allows: replay/model/rodata.h), as the replay target answers them. */
static int unknown_read(void *ctx, bool untouched, uint64_t addr, uint8_t *buf, size_t len)
{
	struct replay_frontend *f = ctx;
	int got = replay_image_read(f->img, 0, addr, buf, len);

	if (got > 0)
		return got;
	return untouched ? replay_rodata_read_untouched(f->rodata, addr, buf, len)
			 : replay_rodata_read(f->rodata, addr, buf, len);
}

int replay_frontend_read(struct replay_frontend *f, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;
	uint64_t time;
	size_t n = 0;

	if (len > 4096)
		len = 4096;  /* as replay_state_read_mem_filled reads at most */
	/* The timeline's time: what every thread's writes left then. */
	if (f->st && (replay_timeline_time(f->tl, &time) == 0 ||
		      replay_state_time_at(f->st, replay_frontend_tid(f),
					   replay_cursor_position(replay_frontend_cursor(f)),
					   &time) == 0)) {
		int got = replay_state_read_mem_filled(f->st, time, addr, buf, len, unknown_read, f);

		return got > 0 ? got : -EIO;
	}
	while (n < len) {
		int got = static_read(f, addr + n, p + n, len - n);

		if (got <= 0)
			break;
		n += (size_t)got;
	}
	return n ? (int)n : -EIO;
}

static int frontend_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return replay_frontend_read(ctx, addr, buf, len);
}

/* Whether @c answers for the current position and @max. */
static bool bt_cached(struct replay_frontend *f, const struct bt_cache *c, size_t max,
		      uint64_t time)
{
	return c && c->frames && c->thread == f->current && c->max == max && c->time == time &&
	       c->position == replay_cursor_position(replay_frontend_cursor(f));
}

static void bt_keep(struct replay_frontend *f, const struct replay_frame *frames, int n,
		    size_t max, uint64_t time, const struct replay_unwind_end *end)
{
	struct bt_cache *c = f->bt_cache;

	if (!c && !(c = f->bt_cache = calloc(1, sizeof(*c))))
		return;
	free(c->frames);
	c->frames = malloc((size_t)(n ? n : 1) * sizeof(*frames));
	if (!c->frames)
		return;
	memcpy(c->frames, frames, (size_t)n * sizeof(*frames));
	*c = (struct bt_cache){ f->current, max,
				replay_cursor_position(replay_frontend_cursor(f)), time, n, *end,
				c->frames };
}

int replay_frontend_backtrace(struct replay_frontend *f, struct replay_frame *frames, size_t max,
			      struct replay_unwind_end *end)
{
	struct replay_unwind_env env = { frontend_read, f, replay_dwarf_symbols_cfi, f->ds, &f->sym };

	replay_frontend_sym_now(f);
	const struct bt_cache *c = f->bt_cache;
	uint64_t gp[REPLAY_STATE_NGP], time = ~0ull;
	int rc;

	replay_timeline_time(f->tl, &time);
	if (bt_cached(f, c, max, time)) {
		memcpy(frames, c->frames, (size_t)c->n * sizeof(*frames));
		*end = c->end;
		return c->n;
	}
	rc = replay_frontend_regs(f, gp);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return -ESRCH;
	rc = replay_unwind(gp, &env, frames, max, end);
	if (rc >= 0)
		bt_keep(f, frames, rc, max, time, end);
	return rc;
}

/* ---- moves ------------------------------------------------------------- */

static bool at_break(struct replay_frontend *f)
{
	uint64_t pc;

	return replay_cursor_pc(replay_frontend_cursor(f), &pc) == 0 &&
	       replay_timeline_break_at(f->tl, pc, -1);
}

/* One instruction in either direction: DONE, BEGIN, END, or < 0. */
static int one(struct replay_frontend *f, bool reverse)
{
	int r = replay_cursor_step(replay_frontend_cursor(f), reverse ? REPLAY_BACKWARD : REPLAY_FORWARD);

	if (r < 0)
		return r;
	if (r == REPLAY_CURSOR_BEGIN)
		return REPLAY_FRONTEND_BEGIN;
	if (r == REPLAY_CURSOR_END && replay_cursor_position(replay_frontend_cursor(f)) >
					      replay_cursor_size(replay_frontend_cursor(f)))
		return REPLAY_FRONTEND_END;
	return REPLAY_FRONTEND_DONE;
}

static int level_here(struct replay_frontend *f)
{
	return replay_frontend_level(f, replay_cursor_position(replay_frontend_cursor(f)));
}

/* The line at the current position: file (NULL if none) and line. */
static void line_here(struct replay_frontend *f, const char **file, unsigned *line)
{
	struct replay_symbol s;
	uint64_t pc;

	*file = NULL;
	*line = 0;
	if (replay_frontend_where(f, &pc, &s) == 0 && s.file && s.line) {
		*file = s.file;
		*line = s.line;
	}
}

static bool same_line(const char *fa, unsigned la, const char *fb, unsigned lb)
{
	return la == lb && fa && fb && !strcmp(fa, fb);
}

/* Runs in a direction while @keep says so: each step checks breakpoints,
 * edges and the interrupt flag. */
typedef bool (*keep_fn)(struct replay_frontend *f, void *ctx);

static int run_while(struct replay_frontend *f, bool reverse, keep_fn keep, void *ctx)
{
	for (;;) {
		int r = one(f, reverse);

		if (r != REPLAY_FRONTEND_DONE)
			return r;
		if (f->interrupt && *f->interrupt)
			return REPLAY_FRONTEND_INTERRUPTED;
		if (at_break(f) && replay_frontend_break_stops(f))
			return REPLAY_FRONTEND_BREAK;
		if (!keep(f, ctx))
			return REPLAY_FRONTEND_DONE;
	}
}

struct deeper_ctx { int level; };

static bool while_deeper(struct replay_frontend *f, void *ctx)
{
	const struct deeper_ctx *d = ctx;

	return level_here(f) > d->level;
}

static int stepi_here(struct replay_frontend *f, bool reverse, bool over)
{
	/* Only nexti needs the call depths (and so the call structure). */
	struct deeper_ctx d = { over ? level_here(f) : -1 };
	int r = one(f, reverse);

	if (r != REPLAY_FRONTEND_DONE || !over || d.level < 0 || level_here(f) <= d.level)
		return r;
	return run_while(f, reverse, while_deeper, &d);
}

struct line_ctx {
	const char *file;
	unsigned line;
	int level;
	bool over;
};

/* Steps on while on the same line at the same depth, or deeper when
 * stepping over (or into code without lines). */
static bool while_line(struct replay_frontend *f, void *ctx)
{
	struct line_ctx *l = ctx;
	int level = level_here(f);
	const char *file;
	unsigned line;

	if (level > l->level && (l->over || l->level < 0))
		return true;
	line_here(f, &file, &line);
	if (level > l->level)
		return !file; /* a callee without lines is stepped through */
	if (level < l->level)
		return !file; /* returned: stop in the caller if it has lines */
	return !file || same_line(file, line, l->file, l->line);
}

/* Backward to the first instruction of the line at the position. */
static int to_line_start(struct replay_frontend *f)
{
	struct replay_cursor *c = replay_frontend_cursor(f);
	int level = level_here(f);
	const char *file, *pfile;
	unsigned line, pline;

	line_here(f, &file, &line);
	while (replay_cursor_position(c) > 1) {
		int r = one(f, true);

		if (r != REPLAY_FRONTEND_DONE)
			return r;
		line_here(f, &pfile, &pline);
		if (level_here(f) == level && same_line(file, line, pfile, pline) && at_break(f))
			return REPLAY_FRONTEND_DONE; /* the breakpoint starts the line */
		if (level_here(f) != level || !same_line(file, line, pfile, pline)) {
			r = one(f, false);
			return r == REPLAY_FRONTEND_END ? REPLAY_FRONTEND_DONE : r;
		}
	}
	return REPLAY_FRONTEND_DONE;
}

static int step_here(struct replay_frontend *f, bool reverse, bool over)
{
	struct line_ctx l = { NULL, 0, level_here(f), over };
	int r;

	line_here(f, &l.file, &l.line);
	r = run_while(f, reverse, while_line, &l);
	if (r != REPLAY_FRONTEND_DONE)
		return r;
	if (reverse) {
		struct replay_symbol s;
		uint64_t pc;

		r = to_line_start(f);
		/* A function's opening line is its prologue: GDB goes on back
		 * to the caller's line. */
		if (r == REPLAY_FRONTEND_DONE && replay_frontend_where(f, &pc, &s) == 0 &&
		    pc == s.start && level_here(f) > l.level - 1 && level_here(f) >= 0) {
			struct line_ctx back = { NULL, 0, level_here(f), over };

			line_here(f, &back.file, &back.line);
			r = run_while(f, true, while_line, &back);
			if (r == REPLAY_FRONTEND_DONE)
				r = to_line_start(f);
		}
		return r;
	}
	/* Stepped into a function: past its opening line, as GDB skips the
	 * prologue. */
	if (level_here(f) > l.level && l.level >= 0) {
		struct line_ctx in = { NULL, 0, level_here(f), true };

		line_here(f, &in.file, &in.line);
		r = run_while(f, false, while_line, &in);
	}
	return r;
}

static bool while_not_returned(struct replay_frontend *f, void *ctx)
{
	const struct deeper_ctx *d = ctx;

	return level_here(f) >= d->level;
}

static int finish_here(struct replay_frontend *f, bool reverse)
{
	struct deeper_ctx d = { level_here(f) };
	int r;

	if (d.level < 0)
		return -ENODATA;
	r = run_while(f, reverse, while_not_returned, &d);
	/* Backward, that is the call instruction itself: where GDB's
	 * reverse-finish stops. */
	return r;
}

/* After the current thread's own move (@r its result): the time is its
 * position's, reached going @reverse or forward, and the other threads
 * follow (replay_timeline_follow). */
static int followed(struct replay_frontend *f, bool reverse, int r)
{
	int e = replay_timeline_follow(f->tl, f->current, reverse);

	f->frame = 0;
	return r < 0 ? r : e < 0 ? e : r;
}

int replay_frontend_stepi(struct replay_frontend *f, bool reverse, bool over)
{
	return followed(f, reverse, stepi_here(f, reverse, over));
}

int replay_frontend_step(struct replay_frontend *f, bool reverse, bool over)
{
	return followed(f, reverse, step_here(f, reverse, over));
}

int replay_frontend_finish(struct replay_frontend *f, bool reverse)
{
	return followed(f, reverse, finish_here(f, reverse));
}

int replay_frontend_goto(struct replay_frontend *f, uint64_t n)
{
	int r = replay_cursor_goto(replay_frontend_cursor(f), n);

	return r < 0 ? r : followed(f, false, 0);
}

int replay_frontend_continue(struct replay_frontend *f, bool reverse)
{
	struct replay_timeline_resume rq = {
		f->current, reverse ? REPLAY_TIMELINE_REVERSE_CONTINUE : REPLAY_TIMELINE_CONTINUE,
		0, 0, NULL };
	struct replay_timeline_stop stop;
	int r;

	replay_timeline_set_interrupt(f->tl, f->interrupt);
	do {
		uint64_t pc;

		f->stopped_break = 0;
		r = replay_timeline_resume(f->tl, &rq, &stop);
		if (r < 0)
			return r;
		f->frame = 0;
		f->current = rq.thread = stop.thread;
		/* a breakpoint whose condition or ignore count says go on,
		 * unless a move of frontend_frame.c's stops there (tag 0) */
		if (stop.kind != REPLAY_CURSOR_BREAK ||
		    replay_cursor_pc(replay_frontend_cursor(f), &pc) < 0 ||
		    replay_timeline_break_at(f->tl, pc, 0))
			break;
	} while (!replay_frontend_break_stops(f));
	switch (stop.kind) {
	case REPLAY_CURSOR_BREAK: return REPLAY_FRONTEND_BREAK;
	case REPLAY_CURSOR_GAP: return REPLAY_FRONTEND_GAP;
	case REPLAY_CURSOR_BEGIN: return REPLAY_FRONTEND_BEGIN;
	case REPLAY_CURSOR_END: return REPLAY_FRONTEND_END;
	case REPLAY_CURSOR_INTERRUPTED: return REPLAY_FRONTEND_INTERRUPTED;
	case REPLAY_TIMELINE_STOP_WATCH:
		f->watch_addr = stop.watch_addr;
		return REPLAY_FRONTEND_WATCH;
	default: return REPLAY_FRONTEND_DONE;
	}
}

/* ---- breakpoints ------------------------------------------------------- */

/* Breakpoint @bp's addresses into (@insert) or out of the timeline's
 * table, tagged with its number. 0 or -ENOMEM. */
static int break_points(struct replay_frontend *f, const struct replay_frontend_break *bp,
			bool insert)
{
	for (size_t k = 0; k < bp->naddrs; k++) {
		if (!insert)
			replay_timeline_point_remove(f->tl, REPLAY_TIMELINE_BREAK, bp->addrs[k], 0,
						     bp->number);
		else if (replay_timeline_point_insert(f->tl, REPLAY_TIMELINE_BREAK, bp->addrs[k], 0,
						      bp->number) < 0)
			return -ENOMEM;
	}
	return 0;
}

int replay_frontend_break_add(struct replay_frontend *f, const char *spec, const uint64_t *addrs,
			      size_t n)
{
	struct replay_frontend_break *bp;

	if (f->nbreaks == f->capbreaks) {
		size_t cap = f->capbreaks ? f->capbreaks * 2 : 8;
		struct replay_frontend_break *nb = realloc(f->breaks, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		f->breaks = nb;
		f->capbreaks = cap;
	}
	bp = &f->breaks[f->nbreaks];
	memset(bp, 0, sizeof(*bp));
	bp->spec = strdup(spec);
	bp->addrs = malloc((n ? n : 1) * sizeof(*addrs));
	if (!bp->spec || !bp->addrs) {
		free(bp->spec);
		free(bp->addrs);
		return -ENOMEM;
	}
	bp->number = ++f->next_break;
	bp->enabled = true;
	bp->naddrs = n;
	memcpy(bp->addrs, addrs, n * sizeof(*addrs));
	f->nbreaks++;
	return break_points(f, bp, true) < 0 ? -ENOMEM : bp->number;
}

int replay_frontend_break_enable(struct replay_frontend *f, int n, bool on)
{
	bool found = false;

	for (size_t i = 0; i < f->nbreaks; i++) {
		struct replay_frontend_break *bp = &f->breaks[i];

		if (n && bp->number != n)
			continue;
		found = true;
		if (bp->enabled != on && break_points(f, bp, on) < 0)
			return -ENOMEM;
		bp->enabled = on;
	}
	return !found && n ? -ENOENT : 0;
}

/* Whether @bp, at the position, says stop (and counts its hit). */
static bool break_says_stop(struct replay_frontend *f, struct replay_frontend_break *bp)
{
	bool stop = true;

	bp->cond_error[0] = 0;
	if (bp->cond) {
		/* memory at this position's time: a step has not followed yet */
		replay_timeline_follow(f->tl, f->current, false);
		f->frame = 0;
		/* no evaluator (replay_frontend_open sets C's): it stops */
		if (!f->cond_eval ||
		    f->cond_eval(f, bp->cond, &stop, bp->cond_error, sizeof(bp->cond_error)) < 0)
			stop = true;
		else
			bp->cond_error[0] = 0;
	}
	if (!stop)
		return false;
	bp->hits++;
	if (bp->ignore) {
		bp->ignore--;
		return false;
	}
	return true;
}

bool replay_frontend_break_stops(struct replay_frontend *f)
{
	uint64_t pc;

	f->stopped_break = 0;
	if (replay_cursor_pc(replay_frontend_cursor(f), &pc) < 0)
		return false;
	for (size_t i = 0; i < f->nbreaks; i++) {
		struct replay_frontend_break *bp = &f->breaks[i];
		bool at = false;

		for (size_t k = 0; k < bp->naddrs && !at; k++)
			at = bp->addrs[k] == pc;
		bp->stopped = at && bp->enabled && break_says_stop(f, bp);
		if (bp->stopped && !f->stopped_break)
			f->stopped_break = bp->number;
	}
	return f->stopped_break != 0;
}

int replay_frontend_break_delete(struct replay_frontend *f, int n)
{
	bool found = false;

	for (size_t i = 0; i < f->nbreaks;) {
		if (n == 0 || f->breaks[i].number == n) {
			if (f->breaks[i].enabled)
				break_points(f, &f->breaks[i], false);
			free(f->breaks[i].spec);
			free(f->breaks[i].addrs);
			free(f->breaks[i].cond);
			memmove(&f->breaks[i], &f->breaks[i + 1],
				(f->nbreaks - i - 1) * sizeof(f->breaks[0]));
			f->nbreaks--;
			found = true;
		} else {
			i++;
		}
	}
	return !found && n ? -ENOENT : 0;
}

struct replay_frontend_break *replay_frontend_break_at(struct replay_frontend *f, uint64_t pc)
{
	for (size_t i = 0; i < f->nbreaks; i++)
		for (size_t k = 0; k < f->breaks[i].naddrs; k++)
			if (f->breaks[i].addrs[k] == pc)
				return &f->breaks[i];
	return NULL;
}
