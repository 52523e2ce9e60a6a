/*
 * replay/decode/spans.c: every thread's calls as nested spans on one clock.
 *
 * Each thread is decoded once, instruction by instruction, keeping a stack
 * of open calls. A call closes when its function returns (or is left for
 * another by a jump, or the history is cut by a gap or the range); then
 * it is kept as a span, or, when shorter than the quantum, added to its
 * caller's pending block of merged calls, which is kept once it is a
 * quantum long or when a long sibling or the caller's end comes. Depths
 * may go below the first call's (a return into a caller that started
 * before the history): each thread's are shifted to start at 0 at the end.
 */
#include "replay/decode/spans.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/decode/explain.h"
#include "replay/decode/index.h"
#include "replay/model/state.h"
#include "replay/decode/symbols.h"

/* Consecutive short calls of one caller; the first is kept whole, to be
 * kept as the call it is if it stays alone. */
struct pending {
	uint64_t calls;
	uint64_t first, last, t0, t1;
	int depth;
	const char *names[REPLAY_SPANS_NAMES];
	struct replay_spans_span one;
};

struct frame {
	struct replay_symbol sym;
	uint64_t first, t0;
	int depth;
	bool signal;               /* entered asynchronously */
	bool trampoline;           /* __restore_rt, after a handler returned */
	struct pending kids;
};

/* Where control may go after an instruction. */
enum succ { SUCC_ANY, SUCC_KNOWN };

struct walk {
	struct replay_spans *sp;
	const struct replay_spans_opts *o;
	size_t thread;
	struct frame *stack;
	size_t depth, cap;
	struct pending root;       /* short calls with no caller open */
	uint64_t start_first, start_t0; /* where the walk (re)started: the
					 * start of a caller revealed by a return */
	/* the previous instruction */
	bool have_prev;
	uint64_t last, t_end;      /* its position and the time after it */
	enum replay_insn_kind kind;
	bool syscall;
	enum succ succ;
	uint64_t succ_a, succ_b;   /* with SUCC_KNOWN: the possible next pcs */
	/* the clock */
	uint64_t tsc, tsc_index;
	bool have_tsc;
};

enum replay_spans_clock replay_spans_clock_of(const struct replay_bundle *b)
{
	const char *r = b->recorder ? b->recorder : "";

	if (!strcmp(r, "software") || !strcmp(r, "valgrind"))
		return REPLAY_CLOCK_INSNS;
	if (!strcmp(r, "lldb") && !b->end_time)
		return REPLAY_CLOCK_POSITIONS;
	return REPLAY_CLOCK_TSC;
}

static uint64_t item_time(struct walk *w, const struct replay_item *it)
{
	switch (w->sp->clock) {
	case REPLAY_CLOCK_POSITIONS:
		return it->index;
	case REPLAY_CLOCK_TSC:
		return it->time;
	case REPLAY_CLOCK_INSNS:
		break;
	}
	/* The recorder writes a TSC packet whenever the thread comes back
	 * (and at PSBs): from there one instruction is one tick. */
	if (!w->have_tsc || it->time != w->tsc) {
		w->tsc = it->time;
		w->tsc_index = it->index;
		w->have_tsc = true;
	}
	return w->tsc + (it->index - w->tsc_index);
}

/* ---- keeping spans ----------------------------------------------------- */

static int push_span(struct replay_spans *sp, const struct replay_spans_span *s)
{
	if (sp->nspans == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 256;
		struct replay_spans_span *n = realloc(sp->spans, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sp->spans = n;
		sp->cap = cap;
	}
	sp->spans[sp->nspans++] = *s;
	return 0;
}

static int push_mark(struct replay_spans *sp, const struct replay_spans_mark *m)
{
	if (sp->nmarks == sp->mcap) {
		size_t cap = sp->mcap ? sp->mcap * 2 : 16;
		struct replay_spans_mark *n = realloc(sp->marks, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sp->marks = n;
		sp->mcap = cap;
	}
	sp->marks[sp->nmarks++] = *m;
	return 0;
}

/* Keeps @p (one call is kept as the call it is) and empties it. */
static int flush_pending(struct walk *w, struct pending *p)
{
	struct replay_spans_span s = { 0 };
	int rc = 0;

	if (p->calls == 1) {
		rc = push_span(w->sp, &p->one);
	} else if (p->calls > 1) {
		s.thread = w->thread;
		s.depth = p->depth;
		s.first = p->first;
		s.last = p->last;
		s.t0 = p->t0;
		s.t1 = p->t1;
		s.calls = p->calls;
		memcpy(s.names, p->names, sizeof(s.names));
		rc = push_span(w->sp, &s);
	}
	memset(p, 0, sizeof(*p));
	return rc;
}

static void add_name(struct pending *p, const char *name)
{
	for (size_t i = 0; i < REPLAY_SPANS_NAMES; i++) {
		if (p->names[i] && name && !strcmp(p->names[i], name))
			return;
		if (!p->names[i]) {
			p->names[i] = name;
			return;
		}
	}
}

/* Ends the call on top of the stack at the previous instruction. */
static int close_top(struct walk *w)
{
	struct frame *f = &w->stack[--w->depth];
	struct pending *p = w->depth ? &w->stack[w->depth - 1].kids : &w->root;
	struct replay_spans_span s = {
		.thread = w->thread, .depth = f->depth, .first = f->first, .last = w->last,
		.t0 = f->t0, .t1 = w->t_end, .function = f->sym.function, .file = f->sym.file,
		.line = f->sym.line, .signal = f->signal,
	};
	bool long_enough = s.t1 > s.t0 && s.t1 - s.t0 >= w->sp->quantum;
	int rc = 0;

	/* Its own short callees: kept with it, or dropped with it. */
	if (long_enough) {
		rc = flush_pending(w, &f->kids);
		if (rc == 0)
			rc = flush_pending(w, p);
		return rc < 0 ? rc : push_span(w->sp, &s);
	}
	if (!p->calls) {
		p->first = s.first;
		p->t0 = s.t0;
		p->depth = s.depth;
		p->one = s;
	}
	p->calls++;
	p->last = s.last;
	p->t1 = s.t1 > p->t0 ? s.t1 : p->t0;
	add_name(p, s.function ? s.function : "??");
	if (p->t1 - p->t0 >= w->sp->quantum)
		return flush_pending(w, p);
	return 0;
}

/* ---- the call stack ----------------------------------------------------- */

static int grow(struct walk *w)
{
	if (w->depth + 1 >= w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct frame *s = realloc(w->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		w->stack = s;
		w->cap = cap;
	}
	return 0;
}

static int open_call(struct walk *w, const struct replay_symbol *sym, uint64_t first,
		     uint64_t t0, int depth)
{
	struct frame *f;

	if (grow(w) < 0)
		return -ENOMEM;
	f = &w->stack[w->depth++];
	memset(f, 0, sizeof(*f));
	f->sym = *sym;
	f->first = first;
	f->t0 = t0;
	f->depth = depth;
	return 0;
}

/* A return with no caller open: the caller ran since the walk started.
 * It is opened from there, below everything (its short callees so far
 * become its own). */
static int open_caller(struct walk *w, const struct replay_symbol *sym, int depth)
{
	struct frame *f;

	if (open_call(w, sym, w->start_first, w->start_t0, depth) < 0)
		return -ENOMEM;
	f = &w->stack[w->depth - 1];
	f->kids = w->root;
	memset(&w->root, 0, sizeof(w->root));
	return 0;
}

static bool same_function(const struct replay_symbol *a, const struct replay_symbol *b)
{
	if (a->function == b->function)
		return a->start == b->start;
	if (!a->function || !b->function)
		return !a->function && !b->function;
	return a->start == b->start && !strcmp(a->function, b->function);
}

static int close_all(struct walk *w)
{
	int rc = 0;

	while (rc == 0 && w->depth)
		rc = close_top(w);
	if (rc == 0)
		rc = flush_pending(w, &w->root);
	return rc;
}

/* Whether @ip is not where the previous instruction can go. */
static bool unexpected(const struct walk *w, uint64_t ip)
{
	return w->have_prev && w->succ == SUCC_KNOWN && ip != w->succ_a && ip != w->succ_b;
}

static void note_successors(struct walk *w, const struct replay_item *it)
{
	const struct replay_insn *in = &it->insn;
	uint64_t next = in->ip + in->size;

	w->kind = in->size ? in->kind : REPLAY_INSN_OTHER;
	w->syscall = in->size >= 2 && in->raw[0] == 0x0f && in->raw[1] == 0x05;
	w->succ = SUCC_KNOWN;
	w->succ_a = w->succ_b = next;
	if (!in->size) {
		w->succ = SUCC_ANY;
		return;
	}
	switch (in->kind) {
	case REPLAY_INSN_OTHER:
		break;
	case REPLAY_INSN_COND:
		w->succ_b = in->direct ? in->target : next;
		break;
	case REPLAY_INSN_JUMP:
	case REPLAY_INSN_CALL:
		if (in->direct)
			w->succ_a = w->succ_b = in->target;
		else
			w->succ = SUCC_ANY;
		break;
	case REPLAY_INSN_RET:
		w->succ = SUCC_ANY;
		break;
	case REPLAY_INSN_FAR:
		if (!w->syscall)
			w->succ = SUCC_ANY;
		break;
	}
}

static int mark(struct walk *w, enum replay_spans_mark_kind kind, uint64_t position,
		uint64_t time, const char *function, const char *text)
{
	struct replay_spans_mark m = {
		.kind = kind, .thread = w->thread, .position = position, .time = time,
		.function = function, .text = text,
	};

	return push_mark(w->sp, &m);
}

/* Replaces the call on top by a call of @sym starting at @it. */
static int replace_top(struct walk *w, const struct replay_symbol *sym,
		       const struct replay_item *it, uint64_t time)
{
	int depth = w->stack[w->depth - 1].depth;
	int rc = close_top(w);

	return rc < 0 ? rc : open_call(w, sym, it->index, time, depth);
}

/* After a return: the caller goes on, or, when the pc is not in it, the
 * stack was not what it seemed (a longjmp, or the handler's return into
 * __restore_rt). */
static int after_return(struct walk *w, const struct replay_symbol *sym,
			const struct replay_item *it, uint64_t time)
{
	bool was_signal = w->stack[w->depth - 1].signal;
	int depth = w->stack[w->depth - 1].depth;
	int rc = close_top(w);

	if (rc < 0)
		return rc;
	if (!w->depth)
		return open_caller(w, sym, depth - 1);
	if (same_function(&w->stack[w->depth - 1].sym, sym))
		return 0;
	if (was_signal) {
		rc = open_call(w, sym, it->index, time, depth);
		if (rc == 0)
			w->stack[w->depth - 1].trampoline = true;
		return rc;
	}
	return replace_top(w, sym, it, time);
}

/* The function at @it's address, from the images mapped at its time (the
 * symbolizer keeps its answers: a loop asks for the same few again and
 * again). */
static void lookup(struct walk *w, const struct replay_item *it, struct replay_symbol *out)
{
	const struct replay_symbolizer *sz = w->o->sym;

	memset(out, 0, sizeof(*out));
	replay_symbolizer_at(sz, it->time);
	if (sz && sz->lookup(sz->ctx, it->insn.ip, out) < 0)
		memset(out, 0, sizeof(*out));
}

static int add_insn(struct walk *w, const struct replay_item *it, uint64_t time)
{
	struct replay_symbol sym;
	int rc = 0;

	lookup(w, it, &sym);
	if (!w->depth) {
		w->start_first = it->index;
		w->start_t0 = time;
		rc = open_call(w, &sym, it->index, time, 0);
	} else if (w->kind == REPLAY_INSN_CALL) {
		rc = open_call(w, &sym, it->index, time, w->stack[w->depth - 1].depth + 1);
	} else if (w->kind == REPLAY_INSN_RET) {
		rc = after_return(w, &sym, it, time);
	} else if (unexpected(w, it->insn.ip)) {
		struct frame *top = &w->stack[w->depth - 1];

		if (w->syscall && top->trampoline) {
			/* rt_sigreturn: back in the interrupted function */
			rc = close_top(w);
			if (rc == 0 && !w->depth)
				rc = open_caller(w, &sym, top->depth - 1);
			else if (rc == 0 && !same_function(&w->stack[w->depth - 1].sym, &sym))
				rc = replace_top(w, &sym, it, time);
		} else if (sym.function && sym.start == it->insn.ip && strcmp(sym.function, "_start")) {
			rc = mark(w, REPLAY_MARK_SIGNAL, it->index, time, sym.function, NULL);
			if (rc == 0)
				rc = open_call(w, &sym, it->index, time, top->depth + 1);
			if (rc == 0)
				w->stack[w->depth - 1].signal = true;
		} else if (!same_function(&top->sym, &sym)) {
			rc = replace_top(w, &sym, it, time);
		}
	} else if (!same_function(&w->stack[w->depth - 1].sym, &sym)) {
		rc = replace_top(w, &sym, it, time);
	}
	if (rc < 0)
		return rc;
	w->have_prev = true;
	w->last = it->index;
	w->t_end = w->sp->clock == REPLAY_CLOCK_TSC ? time : time + 1;
	note_successors(w, it);
	return 0;
}

static int add_gap(struct walk *w, const struct replay_item *it)
{
	uint64_t time = w->have_prev ? w->t_end : it->time;
	int rc = close_all(w);

	if (rc == 0)
		rc = mark(w, REPLAY_MARK_GAP, it->index, time, NULL, it->text);
	w->have_prev = false;
	w->have_tsc = false;
	return rc;
}

/* ---- threads ------------------------------------------------------------ */

/* The time a thread's history ends, as far as its index tells. */
static uint64_t index_end(const struct replay_spans *sp, const struct replay_index *idx)
{
	const struct replay_index_entry *e;

	if (sp->clock == REPLAY_CLOCK_POSITIONS || !idx->nentries)
		return idx->nitems;
	e = &idx->entries[idx->nentries - 1];
	if (sp->clock == REPLAY_CLOCK_TSC)
		return e->time;
	return e->time + (idx->nitems + 1 - e->index);
}

/* Positions @d at the PSB before time @lo. */
static int seek_time(const struct replay_spans *sp, const struct replay_index *idx,
		     struct replay_decoder *d, uint64_t lo)
{
	size_t i = 0;

	if (!idx->nentries)
		return 0;
	if (sp->clock == REPLAY_CLOCK_POSITIONS)
		return lo > 1 && lo <= idx->nitems ? replay_index_seek(idx, d, lo) : 0;
	while (i + 1 < idx->nentries && idx->entries[i + 1].time <= lo)
		i++;
	return replay_index_seek(idx, d, idx->entries[i].index);
}

/* Shifts the depths of spans [@from, end) to start at 0. */
static void normalize(struct replay_spans *sp, size_t from)
{
	int min = 0;

	for (size_t i = from; i < sp->nspans; i++)
		if (i == from || sp->spans[i].depth < min)
			min = sp->spans[i].depth;
	for (size_t i = from; i < sp->nspans; i++)
		sp->spans[i].depth -= min;
}

struct crash_info {
	uint64_t end_time;         /* the time after the thread's last instruction */
	uint64_t last;             /* and its position */
};

/* The exact time at position @p of @tid (before its instruction @p runs:
 * everything before it, in every thread, has), from the state log. */
static uint64_t exact_time(struct replay_state *st, int64_t tid, uint64_t p)
{
	uint64_t t = 0;

	replay_state_time_at(st, tid, p, &t);
	return t;
}

/* Spans [@from, end) and marks [@mfrom, end) timed from the state log. */
static void exact_times(struct replay_spans *sp, struct replay_state *st, int64_t tid,
			size_t from, size_t mfrom)
{
	for (size_t i = from; i < sp->nspans; i++) {
		struct replay_spans_span *s = &sp->spans[i];

		s->t0 = exact_time(st, tid, s->first);
		s->t1 = exact_time(st, tid, s->last + 1);
	}
	for (size_t i = mfrom; i < sp->nmarks; i++)
		sp->marks[i].time = exact_time(st, tid, sp->marks[i].position);
}

/* With a state log: the items of @tid whose times are in [@lo, @hi]. */
static void exact_bounds(struct replay_state *st, int64_t tid, uint64_t lo, uint64_t hi,
			 uint64_t *klo, uint64_t *khi)
{
	uint64_t p;

	/* position_at(t): the last position whose time is at most t */
	*klo = lo && replay_state_position_at(st, tid, lo - 1, &p) == 0 ? p + 1 : 1;
	*khi = replay_state_position_at(st, tid, hi, &p) == 0 ? p : 0;
}

static int walk_thread(struct replay_spans *sp, const struct replay_bundle *b, size_t thread,
		       const struct replay_index *idx, const struct replay_spans_opts *o,
		       struct crash_info *ci)
{
	struct walk w = { .sp = sp, .o = o, .thread = thread };
	struct replay_decoder *d = NULL;
	struct replay_item it;
	size_t from = sp->nspans, mfrom = sp->nmarks;
	int64_t tid = b->threads[thread].tid;
	bool exact = o->st && sp->clock == REPLAY_CLOCK_INSNS && replay_state_last_index(o->st, tid);
	uint64_t klo = 1, khi = UINT64_MAX;
	int rc = replay_decoder_new(b, thread, &d);

	if (exact && o->have_range)
		exact_bounds(o->st, tid, sp->start, sp->end, &klo, &khi);
	if (rc == 0 && exact && klo > 1 && klo <= idx->nitems)
		rc = replay_index_seek(idx, d, klo);
	else if (rc == 0 && !exact && o->have_range)
		rc = seek_time(sp, idx, d, sp->start);
	while (rc == 0 && (rc = replay_decoder_next(d, &it)) > 0) {
		uint64_t time = it.kind == REPLAY_ITEM_GAP ? 0 : item_time(&w, &it);
		bool in = exact ? it.index >= klo : time >= sp->start;

		rc = 0;
		if (exact ? it.index > khi : it.kind == REPLAY_ITEM_INSN && time > sp->end)
			break;
		if (it.kind == REPLAY_ITEM_GAP)
			rc = w.have_prev || !o->have_range ? add_gap(&w, &it) : 0;
		else if (in)
			rc = add_insn(&w, &it, time);
		if (rc == 0 && o->progress && !(++sp->items & 0xffff) && o->progress(o->ctx, sp->items))
			rc = -ECANCELED;
	}
	if (rc == 0)
		rc = close_all(&w);
	if (rc == 0)
		normalize(sp, from);
	if (rc == 0 && exact)
		exact_times(sp, o->st, tid, from, mfrom);
	ci->end_time = exact && w.have_prev ? exact_time(o->st, tid, w.last + 1) : w.t_end;
	ci->last = w.last;
	free(w.stack);
	replay_decoder_free(d);
	return rc;
}

/* The instruction the program died at: in the thread that ran last. */
static int crash_mark(struct replay_spans *sp, const struct replay_bundle *b,
		      const struct replay_index *idx, const struct crash_info *ci,
		      struct replay_state *st, bool have_range)
{
	struct replay_spans_mark m = { .kind = REPLAY_MARK_CRASH };
	size_t pick = 0;

	if (!b->exit_kind || strcmp(b->exit_kind, "signaled"))
		return 0;
	for (size_t i = 1; i < b->nthreads; i++)
		if (ci[i].end_time > ci[pick].end_time)
			pick = i;
	m.thread = pick;
	m.position = replay_explain_position_of(b, pick, &idx[pick]);
	if (b->threads[pick].instructions &&
	    b->threads[pick].instructions + idx[pick].ngaps + 1 > m.position) {
		/* the trace ends before the fault (cut short): say so there */
		m.kind = REPLAY_MARK_GAP;
		m.text = "the trace ends before the instruction that faulted";
	}
	m.time = ci[pick].end_time;
	if (m.position <= ci[pick].last && sp->clock == REPLAY_CLOCK_INSNS)
		m.time -= ci[pick].last + 1 - m.position;
	if (st && sp->clock == REPLAY_CLOCK_INSNS &&
	    replay_state_last_index(st, b->threads[pick].tid))
		m.time = exact_time(st, b->threads[pick].tid, m.position);
	if (have_range && (m.time < sp->start || m.time > sp->end))
		return 0;
	/* A trace cut inside a packet also ends in the decoder's own gap
	 * (end of stream) one instruction before: the same end, said once. */
	for (size_t i = sp->nmarks; m.kind == REPLAY_MARK_GAP && i-- > 0;) {
		struct replay_spans_mark *g = &sp->marks[i];

		if (g->thread != pick)
			continue;
		if (g->kind == REPLAY_MARK_GAP && g->position + 1 >= m.position) {
			*g = m;
			return 0;
		}
		break;
	}
	return push_mark(sp, &m);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The range drawn: what the spans and marks cover. */
static void bounds(struct replay_spans *sp)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < sp->nspans; i++) {
		lo = sp->spans[i].t0 < lo ? sp->spans[i].t0 : lo;
		hi = sp->spans[i].t1 > hi ? sp->spans[i].t1 : hi;
	}
	for (size_t i = 0; i < sp->nmarks; i++) {
		lo = sp->marks[i].time < lo ? sp->marks[i].time : lo;
		hi = sp->marks[i].time > hi ? sp->marks[i].time : hi;
	}
	if (lo <= hi) {
		sp->start = lo;
		sp->end = hi;
	}
}

int replay_spans_build(struct replay_spans *sp, const struct replay_bundle *b,
			  const struct replay_spans_opts *o)
{
	struct replay_index *idx = calloc(b->nthreads ? b->nthreads : 1, sizeof(*idx));
	struct crash_info *ci = calloc(b->nthreads ? b->nthreads : 1, sizeof(*ci));
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc = idx && ci ? 0 : -ENOMEM;

	sp->clock = replay_spans_clock_of(b);
	sp->positions = calloc(b->nthreads ? b->nthreads : 1, sizeof(*sp->positions));
	if (!sp->positions)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < b->nthreads; i++) {
		rc = replay_index_build(&idx[i], b, i, NULL, NULL);
		if (rc < 0)
			break;
		sp->positions[i] = idx[i].nitems;
		if (idx[i].nentries && sp->clock != REPLAY_CLOCK_POSITIONS &&
		    idx[i].entries[0].time < lo)
			lo = idx[i].entries[0].time;
		if (index_end(sp, &idx[i]) > hi)
			hi = index_end(sp, &idx[i]);
	}
	if (sp->clock == REPLAY_CLOCK_POSITIONS || lo == UINT64_MAX)
		lo = sp->clock == REPLAY_CLOCK_POSITIONS ? 1 : 0;
	if (sp->clock != REPLAY_CLOCK_POSITIONS && b->end_time > hi)
		hi = b->end_time;
	/* TSC values are far from 0 (and past what a double holds exactly
	 * after some weeks of uptime): counted from the first one. */
	sp->origin = sp->clock == REPLAY_CLOCK_TSC ? lo : 0;
	/* RANGE within the recording: A, and ,B end where it does */
	sp->start = o->have_range && add_sat(sp->origin, o->lo) > lo ? add_sat(sp->origin, o->lo) : lo;
	sp->end = o->have_range && add_sat(sp->origin, o->hi) < hi ? add_sat(sp->origin, o->hi) : hi;
	sp->quantum = o->resolution && sp->end > sp->start ? (sp->end - sp->start) / o->resolution : 0;
	for (size_t i = 0; rc == 0 && i < b->nthreads; i++)
		rc = walk_thread(sp, b, i, &idx[i], o, &ci[i]);
	if (rc == 0 && b->nthreads)
		rc = crash_mark(sp, b, idx, ci, o->st, o->have_range);
	if (rc == 0 && !o->have_range)
		bounds(sp);
	for (size_t i = 0; idx && i < b->nthreads; i++)
		replay_index_release(&idx[i]);
	free(idx);
	free(ci);
	return rc;
}

void replay_spans_release(struct replay_spans *sp)
{
	free(sp->spans);
	free(sp->marks);
	free(sp->positions);
	memset(sp, 0, sizeof(*sp));
}
