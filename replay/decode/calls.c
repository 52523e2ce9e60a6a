/*
 * replay/decode/calls.c: instructions grouped into function segments.
 */
#include "replay/decode/calls.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay/decode/decode.h"
#include "replay/decode/symbols.h"
#include "replay/model/kept.h"

/* A PSB the decoder passed: the walk may still be before it. */
struct psb {
	uint64_t offset, index;
};

#define PSBS 16

struct walk {
	struct replay_calls *c;    /* the segments kept; the current one is last */
	uint64_t number;           /* the current segment's (0: none yet) */
	uint64_t keep;             /* segments before this one are not kept */
	uint64_t stop;             /* the walk ends where the one after it starts
				    * (0: at the end of the history) */
	/* The call depth: +1 after a call, -1 after a return (GDB's levels:
	 * a return with no call seen goes below the first level). */
	int64_t level, min;
	enum replay_insn_kind prev;
	bool fresh;                /* the next instruction starts a segment */
	struct replay_calls_marks *marks; /* marks to add, or NULL */
	struct psb psbs[PSBS];     /* the last PSBs passed */
	uint64_t npsbs;
};

static void on_psb(void *ctx, uint64_t offset, uint64_t index, uint64_t time)
{
	struct walk *w = ctx;

	(void)time;
	w->psbs[w->npsbs++ % PSBS] = (struct psb){ offset, index };
}

/* A mark for the segment starting at item @first. */
static int add_mark(struct walk *w, uint64_t first)
{
	struct replay_calls_marks *mk = w->marks;
	struct replay_calls_mark *m;
	const struct psb *best = NULL;

	if (mk->n == mk->cap) {
		size_t cap = mk->cap ? mk->cap * 2 : 256;

		m = realloc(mk->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		mk->m = m;
		mk->cap = cap;
	}
	/* The decoder reports a PSB as it passes it, a block or so before
	 * the walk gets there. */
	for (uint64_t i = w->npsbs > PSBS ? w->npsbs - PSBS : 0; i < w->npsbs; i++) {
		const struct psb *p = &w->psbs[i % PSBS];

		if (p->index <= first && (!best || p->index > best->index))
			best = p;
	}
	mk->m[mk->n++] = (struct replay_calls_mark){
		.number = w->number, .first = first, .level = w->level,
		.psb_offset = best ? best->offset : UINT64_MAX, .psb_index = best ? best->index : 0,
	};
	return 0;
}

/* Starts segment w->number + 1 at item @index. 1 if the walk ends
 * instead (the segment is after w->stop), 0, or -ENOMEM. */
static int push_seg(struct walk *w, uint64_t index)
{
	struct replay_calls *c = w->c;
	struct replay_segment *s;

	if (w->stop && w->number == w->stop)
		return 1;
	if (w->number < w->keep)
		c->n = 0;          /* the one ending is not kept */
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		s = realloc(c->segs, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->segs = s;
		c->cap = cap;
	}
	w->number++;
	if (w->number == 1 || w->level < w->min)
		w->min = w->level;
	if (w->marks && (w->number - 1) % w->marks->every == 0 && add_mark(w, index) < 0)
		return -ENOMEM;
	s = &c->segs[c->n++];
	memset(s, 0, sizeof(*s));
	s->level = (int)w->level;
	s->first = s->last = index;
	return 0;
}

static bool same_function(const struct replay_segment *s, const struct replay_symbol *sym)
{
	if (!s->function || !sym->function)
		return !s->function && !sym->function;
	return s->start == sym->start && !strcmp(s->function, sym->function);
}

/* Whether @it starts a new segment, and at which level. */
static int place(struct walk *w, const struct replay_symbol *sym)
{
	struct replay_segment *cur = w->c->n ? &w->c->segs[w->c->n - 1] : NULL;

	if (w->prev == REPLAY_INSN_CALL) {
		w->level++;
		return 1;
	}
	if (w->prev == REPLAY_INSN_RET) {
		w->level--;
		return 1;
	}
	return w->fresh || !cur || cur->gap || !same_function(cur, sym);
}

static int add_insn(struct walk *w, const struct replay_item *it, const struct replay_symbolizer *sz)
{
	struct replay_symbol sym = { 0 };
	struct replay_segment *s;
	int rc;

	replay_symbolizer_at(sz, it->time);
	if (sz && sz->lookup(sz->ctx, it->insn.ip, &sym) < 0)
		memset(&sym, 0, sizeof(sym));
	if (place(w, &sym)) {
		rc = push_seg(w, it->index);
		if (rc)
			return rc;
		s = &w->c->segs[w->c->n - 1];
		s->function = sym.function;
		s->start = sym.start;
		s->file = sym.file;
	}
	s = &w->c->segs[w->c->n - 1];
	s->last = it->index;
	if (sym.line && (!s->file || (sym.file && !strcmp(sym.file, s->file)))) {
		if (!s->file)
			s->file = sym.file;
		if (!s->line_min || sym.line < s->line_min)
			s->line_min = sym.line;
		if (sym.line > s->line_max)
			s->line_max = sym.line;
	}
	w->prev = it->insn.size ? it->insn.kind : REPLAY_INSN_OTHER;
	w->fresh = false;
	return 0;
}

static int add_gap(struct walk *w, const struct replay_item *it)
{
	struct replay_segment *s;
	int rc = push_seg(w, it->index);

	if (rc)
		return rc;
	s = &w->c->segs[w->c->n - 1];
	s->gap = true;
	s->error = it->error;
	s->text = it->text;
	w->prev = REPLAY_INSN_OTHER;
	w->fresh = true;
	return 0;
}

/* Walks @d to the end, or to where segment w->stop ends. 0 or an error. */
static int walk(struct walk *w, struct replay_decoder *d, const struct replay_symbolizer *sym,
		replay_progress_fn progress, void *ctx)
{
	struct replay_item it;
	uint64_t n = 0;
	int rc;

	while ((rc = replay_decoder_next(d, &it)) > 0) {
		rc = it.kind == REPLAY_ITEM_GAP ? add_gap(w, &it) : add_insn(w, &it, sym);
		if (rc)
			return rc < 0 ? rc : 0;
		if (progress && !(++n & 0xffff) && progress(ctx, n))
			return -ECANCELED;
	}
	return rc;
}

static void lower_levels(struct replay_calls *c, int64_t min)
{
	for (size_t i = 0; i < c->n; i++)
		c->segs[i].level -= (int)min;
}

int replay_calls_build(struct replay_calls *c, struct replay_decoder *d,
		       const struct replay_symbolizer *sym, replay_progress_fn progress, void *ctx)
{
	struct walk w = { .c = c, .fresh = true, .keep = 1 };
	int rc = walk(&w, d, sym, progress, ctx);

	lower_levels(c, w.min);
	return rc < 0 ? rc : 0;
}

int replay_calls_marks_build(struct replay_calls_marks *mk, struct replay_decoder *d,
			     const struct replay_symbolizer *sym, replay_progress_fn progress,
			     void *ctx)
{
	struct replay_calls one = { 0 };
	struct walk w = { .c = &one, .fresh = true, .keep = UINT64_MAX, .marks = mk };
	int rc;

	if (!mk->every)
		mk->every = REPLAY_CALLS_MARK_EVERY;
	rc = replay_decoder_on_psb(d, on_psb, &w);
	if (rc == 0)
		rc = walk(&w, d, sym, progress, ctx);
	replay_decoder_on_psb(d, NULL, NULL);
	mk->nsegs = w.number;
	mk->min_level = w.min;
	replay_calls_release(&one);
	return rc < 0 ? rc : 0;
}

void replay_calls_marks_release(struct replay_calls_marks *mk)
{
	free(mk->m);
	*mk = (struct replay_calls_marks){ 0 };
}

int replay_calls_range(struct replay_calls *c, const struct replay_calls_marks *mk,
		       struct replay_decoder *d, const struct replay_symbolizer *sym,
		       uint64_t begin, uint64_t end)
{
	size_t lo = 0, hi = mk->n;
	const struct replay_calls_mark *m;
	struct walk w;
	int rc;

	if (begin < 1 || begin > end || end > mk->nsegs || !mk->n || mk->m[0].number != 1)
		return -ENOENT;
	/* The last mark at or before @begin. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (mk->m[mid].number <= begin)
			lo = mid;
		else
			hi = mid;
	}
	m = &mk->m[lo];
	rc = m->psb_offset == UINT64_MAX ? replay_decoder_rewind(d) :
					   replay_decoder_seek(d, m->psb_offset, m->psb_index);
	if (rc == 0)
		rc = replay_decoder_skip_to(d, m->first);
	/* From the mark's first item, which starts a segment at its level. */
	w = (struct walk){ .c = c, .fresh = true, .number = m->number - 1, .level = m->level,
			   .keep = begin, .stop = end };
	if (rc == 0)
		rc = walk(&w, d, sym, NULL, NULL);
	if (rc == 0 && (w.number < end || c->n != end - begin + 1))
		rc = -ENOENT;
	lower_levels(c, mk->min_level);
	return rc < 0 ? rc : 0;
}

void replay_calls_release(struct replay_calls *c)
{
	free(c->segs);
	*c = (struct replay_calls){ 0 };
}

/* ---- kept on disk ----------------------------------------------------- */

/* The contents of a kept marks file (replay/model/kept.h): this, then
 * the marks. */
struct marks_head {
	uint64_t every, nsegs, n;
	int64_t min_level;
};

#define MARKS_MAGIC "HSCALLS2"

int replay_calls_marks_save(const struct replay_calls_marks *mk, uint64_t key, const char *path)
{
	struct marks_head h = { .every = mk->every, .nsegs = mk->nsegs, .n = mk->n,
				.min_level = mk->min_level };
	struct replay_kept_part parts[] = { { &h, sizeof(h) }, { mk->m, mk->n * sizeof(*mk->m) } };

	return replay_kept_save(path, MARKS_MAGIC, key, parts, 2);
}

/* Whether @mk's marks are ones replay_calls_marks_build could give. */
static bool marks_sane(const struct replay_calls_marks *mk)
{
	if (!mk->every || mk->n != (mk->nsegs + mk->every - 1) / mk->every)
		return false;
	for (size_t i = 0; i < mk->n; i++) {
		const struct replay_calls_mark *m = &mk->m[i];

		if (m->number != 1 + i * mk->every || m->level < mk->min_level ||
		    (i && m->first <= mk->m[i - 1].first) ||
		    (m->psb_offset != UINT64_MAX && m->psb_index > m->first))
			return false;
	}
	return true;
}

/* Marks of up to 2^32 segments' worth: far more than any recording. */
#define MARKS_MAX ((size_t)1 << 32)

int replay_calls_marks_load(struct replay_calls_marks *mk, uint64_t key, const char *path)
{
	struct marks_head h;
	void *m;
	size_t n;
	int rc = replay_kept_load_array(path, MARKS_MAGIC, key, MARKS_MAX, &h, sizeof(h),
					sizeof(*mk->m), &m, &n);

	if (rc < 0)
		return rc;
	*mk = (struct replay_calls_marks){ .m = m, .every = h.every, .nsegs = h.nsegs,
					   .min_level = h.min_level, .n = n, .cap = n };
	if (h.n != n || h.n > h.nsegs || !marks_sane(mk)) {
		replay_calls_marks_release(mk);
		return -EINVAL;
	}
	return 0;
}
