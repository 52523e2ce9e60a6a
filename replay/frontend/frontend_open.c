/*
 * replay/frontend/frontend_open.c: a session of `hindsight replay` opened
 * and freed (replay_frontend_open / replay_frontend_free, declared in
 * frontend.h). The top of the session: it makes the C evaluator
 * (frontend_vars.c) the conditions' and frees what the files above
 * frontend.c hang on the session (the DWARF images, the evaluator), so
 * that frontend.c, which they all call, calls none of them
 * (frontend_int.h).
 */
#include "replay/frontend/frontend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/model/bundle.h"
#include "replay/decode/calls.h"
#include "replay/decode/session.h"
#include "replay/decode/dwarf_symbols.h"
#include "replay/decode/timeline.h"
#include "replay/frontend/frontend_images.h"
#include "replay/frontend/frontend_int.h"
#include "replay/frontend/frontend_vars.h"

/* f->sym: the session's DWARF answers for the images mapped now, or at
 * the time a walk gave (pinned until the walk's end). */
static int frontend_sym_lookup(void *ctx, uint64_t addr, struct replay_symbol *out)
{
	struct replay_frontend *f = ctx;

	replay_frontend_sym_now(f);
	return replay_dwarf_symbols_lookup(f->ds, addr, out);
}

static void frontend_sym_at(void *ctx, uint64_t time)
{
	struct replay_frontend *f = ctx;

	f->sym_pinned = true;
	replay_dwarf_symbols_at(f->ds, time);
}

int replay_frontend_open(const char *dir, struct replay_frontend **out, char *err, size_t errsize)
{
	struct replay_frontend *f = calloc(1, sizeof(*f));
	int r;

	if (!f)
		return -ENOMEM;
	r = replay_session_open(dir, REPLAY_SESSION_THREADS | REPLAY_SESSION_ALL, &f->s, err,
				errsize);
	if (r)
		goto fail;
	f->b = f->s->b;
	f->img = f->s->img;
	f->rodata = f->s->rodata;
	f->st = f->s->st;
	f->tl = f->s->tl;
	f->ds = f->s->ds;
	f->sym = f->ds ? (struct replay_symbolizer){ frontend_sym_lookup, f, frontend_sym_at } :
			 f->s->sym;
	f->cond_eval = replay_frontend_cond_c;
	r = -ENOMEM;
	snprintf(err, errsize, "out of memory");
	f->nthreads = f->b->nthreads;
	f->cur = calloc(f->nthreads, sizeof(*f->cur));
	f->calls = calloc(f->nthreads, sizeof(*f->calls));
	f->calls_built = calloc(f->nthreads, sizeof(*f->calls_built));
	if (!f->cur || !f->calls || !f->calls_built)
		goto fail;
	for (size_t i = 0; i < f->nthreads; i++)
		f->cur[i] = replay_timeline_cursor(f->tl, i);
	*out = f;
	return 0;
fail:
	replay_frontend_free(f);
	return r;
}

void replay_frontend_free(struct replay_frontend *f)
{
	if (!f)
		return;
	replay_frontend_release(f);
	replay_frontend_images_free(f);
	replay_frontend_cexpr_free(f);
	free(f->cur);
	free(f->calls);
	free(f->calls_built);
	replay_session_free(f->s);
	free(f);
}
