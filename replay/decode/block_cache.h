/*
 * replay/decode/block_cache.h: the instruction addresses of libipt blocks, by
 * block.
 *
 * A block is a run of instructions that needs no trace to follow (it may
 * contain direct jumps and calls), so its addresses depend only on where it
 * starts, how many instructions it has and the code it runs: the key is
 * {first ip, instruction count, image section id}. Walking a block with
 * Zydis once and keeping its addresses (and their lowest / highest) lets
 * the cursor fill its window and scan history for breakpoints at close to
 * the block decoder's speed: a loop's blocks are walked once. A block of no
 * section (section id 0: code the program made, read by time) is never
 * found: the bytes at its address change. The cache empties itself when it
 * holds REPLAY_BLOCK_CACHE_MAX addresses. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_BLOCK_CACHE_H
#define HINDSIGHT_REPLAY_BLOCK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_BLOCK_CACHE_MAX (4u << 20)

struct replay_block_cache;

struct replay_block {
	uint64_t ip;
	uint64_t ninsn;
	int isid;
	uint64_t lo, hi;           /* the lowest and highest address in it */
	const uint64_t *ips;       /* ninsn addresses, in execution order */
};

/* 0 or -ENOMEM. */
int replay_block_cache_new(struct replay_block_cache **out);
void replay_block_cache_free(struct replay_block_cache *c);

/* The block, or NULL when it is not cached. Valid until the next add. */
int replay_block_cache_find(struct replay_block_cache *c, uint64_t ip, uint64_t ninsn, int isid,
			    struct replay_block *out);

/* Adds a block with its @ninsn addresses (copied) and fills @out. 0 or
 * -ENOMEM. What @out points to is valid until the next add. A block of no
 * section (@isid <= 0) is not kept: @out points at @ips. */
int replay_block_cache_add(struct replay_block_cache *c, uint64_t ip, uint64_t ninsn, int isid,
			   const uint64_t *ips, struct replay_block *out);

#endif
