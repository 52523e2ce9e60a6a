/*
 * stub/recorders/stub_rec_ring.h: --snapshot SIZE for the software recorders (the
 * single-stepper, stub/recorders/stub_rec.c, and Valgrind's, stub/recorders/stub_vgrec.c):
 * each thread's trace and state log kept as a ring while the program runs.
 *
 * A cut is where a thread's recording may start: a PSB of its trace and a
 * checkpoint of its state log at the same instruction (the recorders put
 * a checkpoint wherever they write a PSB). SIZE counts the two files
 * together. Once they hold more than twice SIZE past where they start
 * now, everything before the oldest cut that leaves at most SIZE is
 * punched out of both (fallocate PUNCH_HOLE: freed on disk, and it reads
 * as zeros, which both readers take for padding: PT's PAD packets, the
 * state log's pad bytes; their checksums, stub/recorders/stub_sum.h, say
 * so first and lose those blocks' records), so a recording of any length uses at most about
 * 2 x SIZE of disk per thread, plus one cut's distance. When the
 * recording is saved at its end the files are rewritten to start at the
 * oldest cut that leaves at most SIZE (or the newest cut, if even that
 * leaves more).
 *
 * Memory: the cuts not yet passed, 32 bytes each. Lifetime: zero-initialise,
 * stub_rec_ring_release.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_RING_H
#define HINDSIGHT_STUB_STUB_REC_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_rec_thread.h"

/* A place the recording may start: the PSB at byte pt_off of the trace,
 * the checkpoint at byte st_off of the state log, both before instruction
 * index + 1 (which runs at time + 1). */
struct stub_rec_cut {
	uint64_t pt_off, st_off, index, time;
};

struct stub_rec_ring {
	uint64_t size;                 /* SIZE; 0: no ring */
	uint64_t st_header;            /* the state log's header, always kept */
	struct stub_rec_cut *cuts;     /* [head, n) not passed, oldest first */
	size_t head, n, cap;
	struct stub_rec_cut at;        /* where the files start now */
	bool moved;                    /* at is a cut: something was dropped */
	bool no_punch;                 /* the file system cannot punch holes */
	bool has_gap;                  /* the bundle's `snapshot` gap is gaps[gap] */
	size_t gap;
};

/* Starts the ring: @size bytes per thread, the state log's records after
 * its @st_header bytes of header. */
void stub_rec_ring_init(struct stub_rec_ring *r, uint64_t size, uint64_t st_header);
void stub_rec_ring_release(struct stub_rec_ring *r);

/* A new cut (newer than every other). 0 or -ENOMEM. */
int stub_rec_ring_add(struct stub_rec_ring *r, const struct stub_rec_cut *c);

/* Bytes of the two files, @pt_size and @st_size long, from where they
 * start now. */
uint64_t stub_rec_ring_kept(const struct stub_rec_ring *r, uint64_t pt_size, uint64_t st_size);

/* Whether a cut is wanted at the next PSB the trace can have, and so a
 * PSB (stub_swpt psb_asked): the state log, @st_size bytes, grew by a
 * sixteenth of @size (4 KiB at least) since the last cut. A PSB comes every psb_period
 * bytes of trace, and the state log is hundreds of times the trace: cuts
 * at PSBs alone would be farther apart than the size. */
bool stub_rec_ring_want(const struct stub_rec_ring *r, uint64_t size, uint64_t st_size);

/* Whether the files, @pt_size and @st_size bytes long, should be trimmed
 * now (over twice the size past where they start, and a cut to move to). */
bool stub_rec_ring_due(const struct stub_rec_ring *r, uint64_t pt_size, uint64_t st_size);

/* Trims the two files (their descriptors, everything up to their sizes
 * flushed to them) to the oldest cut that leaves at most the size.
 * 1 if the start moved (r->at: the caller's bundle says so), 0 if not
 * (nothing to do, or holes cannot be punched here: the end still cuts),
 * or a negative errno. */
int stub_rec_ring_trim(struct stub_rec_ring *r, int pt_fd, uint64_t pt_size, int st_fd,
		       uint64_t st_size);

/* At the end: rewrites the files @pt_path and @st_path (flushed, closed
 * or never written again) to start at the oldest cut that leaves at most
 * the size. 1 if they start at a cut (r->at), 0 if nothing was dropped,
 * or a negative errno. */
int stub_rec_ring_finish(struct stub_rec_ring *r, const char *pt_path, uint64_t pt_size,
			 const char *st_path, uint64_t st_size);

/* The recorders' side, for a thread's writers (@th: its trace, which
 * writes to th->pt.out; @st: its state log, which writes to st->out). */

/* The instructions before where the files start (the bundle does not
 * count them): 0 until the start moved. */
uint64_t stub_rec_ring_dropped(const struct stub_rec_ring *r);

/* A cut @c, the newest PSB of @th and checkpoint of @st (the ring started
 * with @size at the first); the files trimmed if due, and then @b's
 * `snapshot` gap for the thread added or moved. 0 or a negative errno. */
int stub_rec_ring_cut_here(struct stub_rec_ring *r, uint64_t size, const struct stub_rec_cut *c,
			   struct stub_rec_thread *th, struct stub_rec_state *st,
			   struct replay_bundle *b);

/* At the end, everything flushed: stub_rec_ring_finish on the files of
 * @b's thread @index in bundle directory @dir, and the gap as above. */
int stub_rec_ring_end(struct stub_rec_ring *r, struct replay_bundle *b, const char *dir,
		      size_t index, struct stub_rec_thread *th, struct stub_rec_state *st);

#endif
