/*
 * replay/decode/spans.h: the calls of every thread of a recording as nested
 * spans on the recording's clock, for `hindsight timeline` (a picture, as
 * magic-trace draws Intel PT).
 *
 * A span is one call: from the first instruction of a function entered by
 * a call (or by a jump into another function: a tail call, a PLT stub
 * going on to its target) to the last instruction before its return,
 * with everything it called nested inside (depth + 1, times inside its
 * own). A return to a caller that was entered before the history starts
 * (or before a gap, or before RANGE) opens that caller from the start:
 * it was on the stack all along. A signal handler entered asynchronously
 * (the pc went where the previous instruction cannot send it, to a
 * function's first instruction) is a span one level deeper than the
 * interrupted function, flagged @signal, with a mark; its return through
 * __restore_rt and rt_sigreturn goes back to the interrupted function.
 * Not seen: a signal delivered right after an indirect branch (any
 * target is possible there), and the frames a longjmp drops (the span it
 * lands in replaces the one it left).
 *
 * The clock: a software recording's logical time counts the
 * instructions of every thread (docs/bundle.md, "The logical clock"). Its
 * state log has every instruction's time exactly (replay/model/state.h), and
 * spans, marks and RANGE take it from there; the decoder's time, the last
 * timing packet's plus the instructions since, is off by a few tens near
 * a PSB (libipt reads the PSB's TSC ahead of the instructions before it)
 * and only decides what is merged, or stands in when the log is missing.
 * A hardware recording's is the TSC as libipt estimates it from its
 * timing packets (coarser: instructions between two updates share one
 * time). An LLDB bundle without times counts each thread's own positions
 * (threads are then not comparable).
 *
 * Calls shorter than the quantum (the range over @resolution) are not
 * kept one by one: consecutive short calls of one caller merge into one
 * block (calls > 0) until the block is a quantum long, and the calls a
 * short call made are dropped, so a 10^9-instruction recording keeps a
 * few spans per quantum and depth. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_SPANS_H
#define HINDSIGHT_REPLAY_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/index.h"

struct replay_bundle;
struct replay_state;
struct replay_symbolizer;

enum replay_spans_clock {
	REPLAY_CLOCK_INSNS,        /* logical time: instructions of all threads */
	REPLAY_CLOCK_TSC,          /* hardware: TSC ticks */
	REPLAY_CLOCK_POSITIONS,    /* no time in the trace: each thread's positions */
};

#define REPLAY_SPANS_NAMES 3

struct replay_spans_span {
	size_t thread;             /* index into the bundle's threads */
	int depth;                 /* 0: outermost of its thread */
	uint64_t first, last;      /* positions of its first and last instruction */
	uint64_t t0, t1;           /* its time: [t0, t1) */
	const char *function;      /* NULL if unknown; owned by the symbolizer */
	const char *file;          /* of its first instruction, or NULL */
	unsigned line;
	bool signal;               /* a handler entered asynchronously */
	uint64_t calls;            /* > 0: a block of this many merged calls */
	const char *names[REPLAY_SPANS_NAMES]; /* a merged block's first
						   * distinct functions */
};

enum replay_spans_mark_kind {
	REPLAY_MARK_SIGNAL,        /* a handler entered; @function is it */
	REPLAY_MARK_GAP,           /* @text is libipt's */
	REPLAY_MARK_CRASH,         /* the instruction the program died at */
};

struct replay_spans_mark {
	enum replay_spans_mark_kind kind;
	size_t thread;
	uint64_t position, time;
	const char *function;      /* SIGNAL: the handler (NULL if unknown) */
	const char *text;          /* GAP: static */
};

struct replay_spans_opts {
	bool have_range;
	uint64_t lo, hi;           /* with have_range: times [lo, hi] after
				    * the origin */
	uint64_t resolution;       /* slices of the range; 0: no merging */
	const struct replay_symbolizer *sym;
	struct replay_state *st;   /* a software recording's, or NULL */
	replay_progress_fn progress; /* with the items of all threads so far */
	void *ctx;
};

struct replay_spans {
	enum replay_spans_clock clock;
	uint64_t origin;           /* the TSC clock's first time; 0 for the others */
	uint64_t start, end;       /* the range drawn (times, not from the origin) */
	uint64_t quantum;          /* calls shorter than this are merged */
	struct replay_spans_span *spans;
	size_t nspans, cap;
	struct replay_spans_mark *marks;
	size_t nmarks, mcap;
	uint64_t *positions;       /* per thread: items in its history */
	uint64_t items;            /* items walked */
};

/* The clock @b's times are in. */
enum replay_spans_clock replay_spans_clock_of(const struct replay_bundle *b);

/* Walks every thread of @b (which, with the symbolizer, must outlive
 * @sp) and fills @sp (zeroed by the caller). 0, or a decoder's error
 * (-EINVAL, -errno), -ENOMEM, -ECANCELED (from @progress). */
int replay_spans_build(struct replay_spans *sp, const struct replay_bundle *b,
			  const struct replay_spans_opts *o);
void replay_spans_release(struct replay_spans *sp);

#endif
