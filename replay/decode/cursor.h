/*
 * replay/decode/cursor.h: a position in one thread's history, moved both ways.
 *
 * A position is the number of the item (instruction or gap, numbered from 1
 * as in `hindsight history`) that is about to execute: the state at
 * position N is the state before item N runs, so its pc is item N's
 * address. Position 1 is the beginning of the history (the state before
 * the first instruction: there is no position 0); position size + 1
 * (one past the last item) is the end, the present, whose pc is the
 * address after the last instruction. A position never rests on a gap by
 * stepping or continuing (only `goto` can put it there; its pc is then
 * unknown).
 *
 * The cursor keeps a window of decoded addresses around the position: the
 * PSB segment holding it (at most REPLAY_CURSOR_WINDOW_MAX items of it), so
 * steps in either direction are O(1) and reaching another segment costs one
 * PSB period of decoding, from the index (replay/decode/index.h). Continuing scans
 * by libipt blocks: a block's addresses come from replay/decode/block_cache.h and
 * only blocks whose address range holds a breakpoint are looked at
 * instruction by instruction.
 *
 * Stops: a breakpoint address (going forward: the first later item at one;
 * backward: the latest earlier one; either way the position is that item,
 * the state before it runs), a gap (the position is the first item after
 * it; going backward a gap right behind the position is crossed, so
 * continuing again goes on), the beginning and the end; and an interrupt
 * (replay_cursor_set_interrupt: a flag a signal handler sets), seen once
 * per decoded block by a scan and once per instruction by a range step,
 * which leaves the position on an instruction inside what was already
 * looked at, so that continuing again misses nothing. Lifetime:
 * replay_cursor_new / replay_cursor_free. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_CURSOR_H
#define HINDSIGHT_REPLAY_CURSOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/index.h"

#define REPLAY_CURSOR_WINDOW_MAX (1u << 20)

struct replay_bundle;
struct replay_cursor;

enum replay_cursor_stop {
	REPLAY_CURSOR_STEP,        /* a step or a range step ended */
	REPLAY_CURSOR_BREAK,       /* at an item whose address is a breakpoint */
	REPLAY_CURSOR_GAP,         /* at the first item after a gap */
	REPLAY_CURSOR_BEGIN,       /* at position 1: nothing before */
	REPLAY_CURSOR_END,         /* at position size + 1: nothing after */
	REPLAY_CURSOR_INTERRUPTED, /* the interrupt flag was set: at an instruction */
};

enum replay_cursor_dir { REPLAY_FORWARD, REPLAY_BACKWARD };

/* Breakpoint addresses, sorted ascending (replay_cursor_breaks_sort). */
struct replay_cursor_breaks {
	const uint64_t *addrs;
	size_t n;
};

/* A cursor over thread @thread of @b (which must outlive it), at the end of
 * the history. Builds the thread's index (@progress as for
 * replay_index_build). 0, or the decoder's and index's errors (-EINVAL,
 * -errno, -ENOMEM, -ECANCELED). */
int replay_cursor_new(const struct replay_bundle *b, size_t thread, replay_progress_fn progress,
		      void *ctx, struct replay_cursor **out);
void replay_cursor_free(struct replay_cursor *c);

/* Moves @c, made over thread @thread of an earlier state of the same
 * recording, to thread @thread of @b (which must outlive it), whose trace
 * is the old one grown (a live recording saved again): its index is
 * extended (replay_index_extend), costing what was recorded since the
 * last PSB, and it stands at the new end as replay_cursor_new would put
 * it. 0, or replay_cursor_new's errors: @c is then only good for
 * replay_cursor_free. */
int replay_cursor_extend(struct replay_cursor *c, const struct replay_bundle *b, size_t thread);

/* The current position (1 .. size + 1) and the number of items. */
uint64_t replay_cursor_position(const struct replay_cursor *c);
uint64_t replay_cursor_size(const struct replay_cursor *c);
const struct replay_index *replay_cursor_index(const struct replay_cursor *c);

/* The pc at the position: 0, or -ENODATA when it is not known (a gap; the
 * end of a history whose last item is a gap or unreadable). */
int replay_cursor_pc(struct replay_cursor *c, uint64_t *pc);
/* The address of item @n (1 .. size): 0, -ENODATA for a gap, -ENOENT out
 * of range, -ENOMEM. Moves nothing but the window. */
int replay_cursor_item_ip(struct replay_cursor *c, uint64_t n, uint64_t *ip);

/* Moves to position @n (1 .. size + 1). 0, -ENOENT, -ENOMEM. */
int replay_cursor_goto(struct replay_cursor *c, uint64_t n);

/* One instruction in @dir (gaps are stepped over). Returns
 * REPLAY_CURSOR_STEP, REPLAY_CURSOR_BEGIN (backward at position 1: nothing
 * moved), REPLAY_CURSOR_END (forward at the end: nothing moved; or the step
 * reached the end), or -ENOMEM. */
int replay_cursor_step(struct replay_cursor *c, enum replay_cursor_dir dir);

/* Makes replay_cursor_continue and replay_cursor_range_step stop with
 * REPLAY_CURSOR_INTERRUPTED as soon as they see *@flag non-zero (set from a
 * signal handler; the cursor only reads it, the caller clears it). NULL,
 * the default: never interrupted. @flag must outlive its use. */
void replay_cursor_set_interrupt(struct replay_cursor *c, const volatile sig_atomic_t *flag);

/* Runs in @dir until a breakpoint in @bps, a gap, or an edge; returns the
 * stop kind (never REPLAY_CURSOR_STEP) or -ENOMEM / a decoder error. At
 * least one instruction is executed (a breakpoint at the position itself
 * does not stop), unless the interrupt flag is seen first.
 * REPLAY_CURSOR_INTERRUPTED: forward, the position is the last instruction
 * scanned (the state before it runs; unmoved if none was); backward, the
 * earliest instruction of the PSB segments scanned to their start (unmoved
 * if none was). Either way nothing between the old and the new position
 * was a breakpoint or a gap to stop at. */
int replay_cursor_continue(struct replay_cursor *c, enum replay_cursor_dir dir,
			   const struct replay_cursor_breaks *bps);

/* Steps forward while the pc is in [@start, @end) and not at a breakpoint:
 * REPLAY_CURSOR_STEP when it left the range, REPLAY_CURSOR_BREAK,
 * REPLAY_CURSOR_GAP, REPLAY_CURSOR_END, REPLAY_CURSOR_INTERRUPTED (at an
 * instruction still in the range, after at least one step), or < 0. */
int replay_cursor_range_step(struct replay_cursor *c, uint64_t start, uint64_t end,
			     const struct replay_cursor_breaks *bps);

/* Sorts @addrs in place and drops duplicates; returns the new count. */
size_t replay_cursor_breaks_sort(uint64_t *addrs, size_t n);

/* How many items the last replay_cursor_continue looked at (a measure for
 * benchmarks). */
uint64_t replay_cursor_scanned(const struct replay_cursor *c);

#endif
