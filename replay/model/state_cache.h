/*
 * replay/model/state_cache.h: the decoded memory writes of the few state-log
 * chunks read last, so that a read of memory (replay_state_read_mem and
 * the write searches) that touches a chunk again does not parse it again.
 *
 * A chunk is one thread's records from a checkpoint to the next
 * (replay/model/state.c); its entry holds every MEM record it has, decoded
 * (time, address, length, where its bytes lie), sorted by address so that
 * the writes of one 512-byte block are found by a binary search. An entry
 * is keyed by the chunk's place in its log (thread, first and end byte
 * offsets) and holds offsets, not pointers, so it stays right when a log
 * grows and is mapped again (replay_state_extend): a log only grows at its
 * end, and a chunk that grew has another end. Entries are evicted least
 * recently used first: at most STATE_CACHE_ENTRIES of them, and at most
 * STATE_CACHE_BYTES of decoded writes over all of them (48 bytes a write:
 * a chunk of 16K instructions takes 100-250 KB; a chunk larger than half
 * the budget is not kept). 32 entries: a read walks back over the chunks
 * that last wrote each word of a block, which for memory written all over
 * at random can be 20 chunks, and reads of the next blocks at the same
 * time walk the same ones; with 8, LRU evicted each before its reuse. Nothing here parses a log:
 * replay/model/state_chunk.c decodes, this file keeps. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_STATE_CACHE_H
#define HINDSIGHT_REPLAY_STATE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define STATE_CACHE_ENTRIES 32
#define STATE_CACHE_BYTES (8u << 20)   /* of decoded writes, over all entries */
#define STATE_CACHE_WIDE 512           /* writes longer than this are kept apart */

/* One decoded MEM record; offsets are from the start of its log. */
struct state_cwrite {
	uint64_t time, addr, len;
	uint64_t index;            /* of the record in its thread's log */
	uint64_t off;              /* of the record */
	uint32_t data;             /* its old bytes start at off + data, or its new
				    * ones when @same (then there are no old ones) */
	uint32_t same;
};

/* The key of a chunk: its thread and its bytes [off, end) in the log. */
struct state_ckey {
	uint32_t thread;
	uint64_t off, end;
};

/* The writes of one chunk: @n narrow ones (len <= STATE_CACHE_WIDE) by
 * address, then @nwide wide ones, in @w. */
struct state_centry {
	struct state_ckey key;
	struct state_cwrite *w;
	size_t n, nwide;
	uint64_t used;             /* the clock of its last use; 0: empty */
};

struct state_cache {
	struct state_centry e[STATE_CACHE_ENTRIES];
	size_t bytes;              /* of every entry's writes */
	size_t cap_entries;        /* 0: the cache is off, every lookup misses */
	uint64_t clock;
	uint64_t hits, misses;     /* for tests and measurements */
};

/* An empty cache with room for @entries entries (at most
 * STATE_CACHE_ENTRIES; 0 turns it off). */
void state_cache_init(struct state_cache *c, size_t entries);

/* Frees every entry's writes; the cache is empty and stays usable. */
void state_cache_clear(struct state_cache *c);

/* The entry of @key, made the most recently used, or NULL. */
const struct state_centry *state_cache_find(struct state_cache *c, const struct state_ckey *key);

/* Sorts @e's @n writes (e->n: all of them, e->nwide 0) as an entry
 * holds them: the narrow ones by address, then the wide ones (e->n and
 * e->nwide say how many of each). */
void state_cache_sort(struct state_centry *e);

/* Keeps @e (sorted; its writes malloc'd) as its key's entry, evicting the
 * least recently used while over the bounds. The entry kept, which owns
 * e->w from then on, or NULL when it is not kept (the cache is off, or
 * its writes take over half of STATE_CACHE_BYTES): e->w is still the
 * caller's. */
const struct state_centry *state_cache_put(struct state_cache *c, const struct state_centry *e);

/* The index in @e->w of the first narrow write that may overlap
 * [@lo, ...): narrow writes from there on, while their address is below
 * the range's end, are the candidates (then every wide one). */
size_t state_cache_first(const struct state_centry *e, uint64_t lo);

#endif
