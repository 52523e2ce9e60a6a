/*
 * replay/decode/calls.c: instructions grouped into function segments.
 */
#include "replay/decode/calls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/decode/decode.h"
#include "replay/decode/symbols.h"

struct walk {
	struct replay_calls *c;
	int level;
	int *stack;                /* levels of the callers */
	size_t depth, cap;
	enum replay_insn_kind prev;
	bool fresh;                /* the next instruction starts a segment */
};

static struct replay_segment *push_seg(struct walk *w, uint64_t index)
{
	struct replay_calls *c = w->c;
	struct replay_segment *s;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		s = realloc(c->segs, cap * sizeof(*s));
		if (!s)
			return NULL;
		c->segs = s;
		c->cap = cap;
	}
	s = &c->segs[c->n++];
	memset(s, 0, sizeof(*s));
	s->level = w->level;
	s->first = s->last = index;
	return s;
}

static int push_level(struct walk *w)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		int *st = realloc(w->stack, cap * sizeof(*st));

		if (!st)
			return -ENOMEM;
		w->stack = st;
		w->cap = cap;
	}
	w->stack[w->depth++] = w->level;
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
		if (push_level(w) < 0)
			return -ENOMEM;
		w->level++;
		return 1;
	}
	if (w->prev == REPLAY_INSN_RET) {
		w->level = w->depth ? w->stack[--w->depth] : w->level - 1;
		return 1;
	}
	return w->fresh || !cur || cur->gap || !same_function(cur, sym);
}

static int add_insn(struct walk *w, const struct replay_item *it, const struct replay_symbolizer *sz)
{
	struct replay_symbol sym = { 0 };
	struct replay_segment *s;
	int rc;

	if (sz && sz->lookup(sz->ctx, it->insn.ip, &sym) < 0)
		memset(&sym, 0, sizeof(sym));
	rc = place(w, &sym);
	if (rc < 0)
		return rc;
	if (rc) {
		s = push_seg(w, it->index);
		if (!s)
			return -ENOMEM;
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
	struct replay_segment *s = push_seg(w, it->index);

	if (!s)
		return -ENOMEM;
	s->gap = true;
	s->error = it->error;
	s->text = it->text;
	w->prev = REPLAY_INSN_OTHER;
	w->fresh = true;
	return 0;
}

static void normalize(struct replay_calls *c)
{
	int min = 0;

	for (size_t i = 0; i < c->n; i++)
		if (i == 0 || c->segs[i].level < min)
			min = c->segs[i].level;
	for (size_t i = 0; i < c->n; i++)
		c->segs[i].level -= min;
}

int replay_calls_build(struct replay_calls *c, struct replay_decoder *d,
		       const struct replay_symbolizer *sym, replay_progress_fn progress, void *ctx)
{
	struct walk w = { .c = c, .fresh = true };
	struct replay_item it;
	uint64_t n = 0;
	int rc;

	while ((rc = replay_decoder_next(d, &it)) > 0) {
		rc = it.kind == REPLAY_ITEM_GAP ? add_gap(&w, &it) : add_insn(&w, &it, sym);
		if (rc < 0)
			break;
		if (progress && !(++n & 0xffff) && progress(ctx, n)) {
			rc = -ECANCELED;
			break;
		}
	}
	free(w.stack);
	normalize(c);
	return rc < 0 ? rc : 0;
}

void replay_calls_release(struct replay_calls *c)
{
	free(c->segs);
	*c = (struct replay_calls){ 0 };
}
