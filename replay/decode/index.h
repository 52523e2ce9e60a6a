/*
 * replay/decode/index.h: reaching any instruction of a thread's history fast.
 *
 * One entry per PSB the decoder passes: {offset in the PT file, number of
 * the next item, logical time}. Built in one pass over the trace that
 * counts instructions per libipt block, not per instruction. To reach item
 * N: binary search the last entry at or before N, pt_blk_sync_set there
 * and decode forward to N, so only a PSB period is ever decoded to get
 * anywhere and the decoded history is never kept. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_INDEX_H
#define HINDSIGHT_REPLAY_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct replay_decoder;

struct replay_index_entry {
	uint64_t offset;           /* of the PSB in the PT file */
	uint64_t index;            /* the number of the first item after it */
	uint64_t time;             /* logical time there */
};

struct replay_index {
	struct replay_index_entry *entries;
	size_t nentries, cap;
	uint64_t nitems;           /* instructions and gaps */
	uint64_t ninsns;           /* instructions only */
	uint64_t ngaps;
	uint64_t tail_gaps;        /* of ngaps, those at or after the last entry */
};

/* Called now and then while building, with the items counted so far;
 * returning non-zero stops the build with -ECANCELED. */
typedef int (*replay_progress_fn)(void *ctx, uint64_t items);

/* Builds the index of thread @thread of @b into @idx (zeroed by the
 * caller; release with replay_index_release). 0, or the decoder's
 * errors, -ENOMEM, -ECANCELED. */
int replay_index_build(struct replay_index *idx, const struct replay_bundle *b, size_t thread,
		       replay_progress_fn progress, void *ctx);
void replay_index_release(struct replay_index *idx);

/* Extends @idx, built (or extended) over thread @thread of an earlier
 * state of the same recording, to the thread in @b, whose trace is the
 * old one with more appended (a live recording saved again): decoding
 * resumes at the last entry's PSB, so it costs what was recorded since
 * that PSB, and the index is then the one replay_index_build gives for
 * @b. Without an entry it is built again. 0, or replay_index_build's
 * errors (@idx is then released). */
int replay_index_extend(struct replay_index *idx, const struct replay_bundle *b, size_t thread,
			replay_progress_fn progress, void *ctx);

/* Positions @d (a decoder of the same thread) so that its next item is
 * number @n (1-based). 0, -ENOENT if there is no such item. */
int replay_index_seek(const struct replay_index *idx, struct replay_decoder *d, uint64_t n);

/* Resident bytes of the index. */
size_t replay_index_bytes(const struct replay_index *idx);

#endif
