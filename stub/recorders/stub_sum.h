/*
 * stub/recorders/stub_sum.h: the checksums of a file a recorder writes
 * (replay/model/sums.h is the format, docs/bundle.md "Checksums").
 *
 * The writers of traces (stub/recorders/stub_swpt.c) and state logs
 * (stub/recorders/stub_rec_state_enc.c) hand each piece of bytes they give
 * their FILE to stub_sum_feed, in order; a block ends every
 * REPLAY_SUMS_BLOCK_MAX bytes, at each offset given to stub_sum_mark (a
 * PSB, a checkpoint: where --snapshot's ring may cut the file, so that
 * what it punches out or drops is whole blocks) and at each
 * stub_sum_flush, called once the data FILE is flushed, which alone
 * writes the records out: a recorder killed at any moment leaves records
 * for no more bytes than its file has.
 *
 * Every call takes NULL (no checksums: a writer to memory). Lifetime:
 * stub_sum_create / stub_sum_close. Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_RECORDERS_STUB_SUM_H
#define HINDSIGHT_STUB_RECORDERS_STUB_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct stub_sum;

/* The sums of @path, written to @path.sum (header written); @ring:
 * stub_sum_holes will be asked for (--snapshot). NULL with errno set. */
struct stub_sum *stub_sum_create(const char *path, bool ring);
/* The @n bytes at @p follow what was fed before. */
void stub_sum_feed(struct stub_sum *s, const void *p, size_t n);
/* A block ends at byte @off of the file (at or after what was fed; one
 * before is ignored). Out of memory is said by the next stub_sum_flush. */
void stub_sum_mark(struct stub_sum *s, uint64_t off);
/* Ends the block being summed and writes the records out (fflush). 0 or
 * a negative errno. */
int stub_sum_flush(struct stub_sum *s);
/* Flushes, closes, frees. 0 or a negative errno. */
int stub_sum_close(struct stub_sum *s);
/* --snapshot's ring is about to punch the file's bytes [@keep, @from)
 * out, both where blocks start (PSBs, checkpoints; @keep 0 or the state
 * log's header) and their records written (stub_sum_flush): the header
 * says where the file goes on (@from and its block's number) and the
 * records of those blocks are punched out too, so that the sums stay as
 * small as the ring keeps the file. 0, -EINVAL (not where blocks start,
 * or sums made without @ring), -errno. */
int stub_sum_holes(struct stub_sum *s, uint64_t keep, uint64_t from);

/* Checksums for thread @idx of @b (in @dir): its trace's and its state
 * log's, named in the manifest (ptSums, stateSums); @ring: --snapshot
 * (stub_sum_holes to come). 0 or a negative errno. */
int stub_sum_start(struct replay_bundle *b, size_t idx, const char *dir, bool ring,
		   struct stub_sum **pt, struct stub_sum **state);

/* The sums of @path rewritten for --snapshot's end (stub_rec_ring_finish):
 * the file became its bytes [0, @keep) and [@from, end). 0 or -errno. */
int stub_sum_drop_front(const char *path, uint64_t keep, uint64_t from);

#endif
