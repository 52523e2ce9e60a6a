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

/* Walks @d from its position to the end and fills @c (zeroed by the
 * caller). 0, -ENOMEM, -ECANCELED (from @progress). */
int replay_calls_build(struct replay_calls *c, struct replay_decoder *d,
		       const struct replay_symbolizer *sym, replay_progress_fn progress, void *ctx);
void replay_calls_release(struct replay_calls *c);

#endif
