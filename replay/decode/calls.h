/*
 * replay/decode/calls.h: the function-call history of a thread.
 *
 * Like GDB's btrace function segments: consecutive instructions in the
 * same function form a segment; the instruction after a call starts a
 * segment one level deeper, the one after a return goes back to the
 * caller's level; a jump into another function (a tail call, a PLT stub
 * going to its target) starts a segment at the same level. A gap is a
 * segment of its own. Functions come from a struct replay_symbolizer.
 * Segments and items are numbered from 1. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_CALLS_H
#define HINDSIGHT_REPLAY_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/index.h"

struct replay_decoder;
struct replay_symbolizer;

struct replay_segment {
	int level;                 /* call depth; the smallest in the history is 0 */
	uint64_t first, last;      /* item numbers */
	const char *function;      /* NULL if unknown; owned by the symbolizer */
	uint64_t start;            /* the function's address, 0 if unknown */
	const char *file;          /* of the first line seen, or NULL */
	unsigned line_min, line_max;
	bool gap;
	int error;                 /* gap: libipt's code, 0 for "overflow" */
	const char *text;          /* gap: libipt's text */
};

struct replay_calls {
	struct replay_segment *segs;
	size_t n, cap;
};

/* Where segment @number starts: its first item, its level (before the
 * history's least level is taken off), and a PSB at or before that item to
 * decode from (offset UINT64_MAX: none, from the start). */
struct replay_calls_mark {
	uint64_t number, first;
	int64_t level;
	uint64_t psb_offset, psb_index;
};

/* A thread's segments counted, with a mark every REPLAY_CALLS_MARK_EVERY
 * of them: what lists any range of them at the cost of that range
 * (replay_calls_range), where the segments themselves of a long history
 * (one every few instructions) would take gigabytes. */
#define REPLAY_CALLS_MARK_EVERY 1024

struct replay_calls_marks {
	uint64_t every;            /* a mark every this many segments; 0 when
				    * built: REPLAY_CALLS_MARK_EVERY */
	struct replay_calls_mark *m;
	size_t n, cap;
	uint64_t nsegs;            /* segments in the whole history */
	int64_t min_level;         /* the least level in it (printed as 0) */
};

/* Walks @d from its position to the end and fills @c (zeroed by the
 * caller). 0, -ENOMEM, -ECANCELED (from @progress). */
int replay_calls_build(struct replay_calls *c, struct replay_decoder *d,
		       const struct replay_symbolizer *sym, replay_progress_fn progress, void *ctx);
void replay_calls_release(struct replay_calls *c);

/* Walks @d (a decoder at the start of its thread, with no PSB callback of
 * its own) to the end and fills @mk (zeroed by the caller, but for
 * @mk->every), keeping no segment. 0, -ENOMEM, -ECANCELED (from @progress); @d's PSB callback is
 * cleared again. */
int replay_calls_marks_build(struct replay_calls_marks *mk, struct replay_decoder *d,
			     const struct replay_symbolizer *sym, replay_progress_fn progress,
			     void *ctx);
void replay_calls_marks_release(struct replay_calls_marks *mk);

/* Segments @begin .. @end (1 <= @begin <= @end <= mk->nsegs) of the
 * history @mk was built over into @c (zeroed by the caller): c->segs[0] is
 * segment @begin, each exactly as replay_calls_build gives it. @d is a
 * decoder of the same thread, anywhere; it is sought to the last mark at
 * or before @begin, so this decodes at most mk->every segments besides
 * the range. 0, -ENOMEM, -ENOENT (the history is not the
 * one @mk counted), the decoder's errors. */
int replay_calls_range(struct replay_calls *c, const struct replay_calls_marks *mk,
		       struct replay_decoder *d, const struct replay_symbolizer *sym,
		       uint64_t begin, uint64_t end);

/* Marks kept in a file for the next listing (the first walk is what a
 * listing costs: it is not made again). @key is the caller's hash of
 * everything the marks depend on (the trace, the files the symbols come
 * from); the file holds it and a checksum. Save: through a temporary file
 * renamed over @path; 0 or -errno. Load into @mk (zeroed by the caller):
 * 0; -ENOENT (no file, or one for another key: build them again);
 * -EINVAL (damaged, or not marks); -ENOMEM. */
int replay_calls_marks_save(const struct replay_calls_marks *mk, uint64_t key, const char *path);
int replay_calls_marks_load(struct replay_calls_marks *mk, uint64_t key, const char *path);

#endif
