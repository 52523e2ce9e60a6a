/*
 * replay/model/state_int.h: the state log reader's insides, shared by its
 * files (replay/model/state.h is its door): replay/model/state.c builds
 * them (the logs scanned and indexed); state_regs.c, state_time.c,
 * state_mem.c and state_write.c answer from them; state_chunk.c (a
 * chunk's writes to a block), state_map.c (the mapping records, exec
 * epochs) and state_parse.c (the records) are what those call, never the
 * other way. Nothing outside replay/model includes this.
 */
#ifndef HINDSIGHT_REPLAY_MODEL_STATE_INT_H
#define HINDSIGHT_REPLAY_MODEL_STATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/state.h"

#define PAGE_SHIFT 12
#define BLOCK_SHIFT 9              /* memory is indexed by 512-byte blocks */
#define BLOCK (1u << BLOCK_SHIFT)  /* of 64 words */

struct parser {
	const uint8_t *p, *end;
	uint64_t index, base, mem_end;
	uint64_t origin;           /* the log's first checkpoint index (below) */
	uint64_t gp[REPLAY_STATE_NGP];
	uint8_t *xs;               /* NULL: XSTATE records are skipped */
	size_t xs_len;
	uint64_t ahead, until;     /* of the last SYNC record */
	bool v1;                   /* an HSSTATE1 log: MEM lengths have no same bit */
};

struct ckpt {
	uint64_t index;
	size_t off;                /* of the CKPT record */
};

/* A MEM or MAP record. Records are ordered by (time, thread, off): one
 * time is one instruction of one thread, whose records come in log order. */
struct mwrite {
	uint64_t time, addr, len;
	uint64_t index;            /* of the record in its thread's log */
	const uint8_t *old;        /* MEM: old bytes (NULL: left out, never needed) */
	const uint8_t *now;        /* MEM: new bytes */
	uint8_t kind;              /* REPLAY_STATE_REC_MEM, or REPLAY_STATE_MAP_* + 16 */
	uint32_t thread;           /* into replay_state.t */
	size_t off;                /* of the record in its thread's log */
};

/* A chunk's writes to one block (MEM records only). */
struct mref {
	uint64_t block;            /* address >> BLOCK_SHIFT */
	uint64_t first, last;      /* times of the chunk's first and last write there */
	uint64_t reach;            /* the largest `last` of the block's refs up to here */
	uint64_t words;            /* bit i: a byte of the block's word i (8 bytes) was written */
	uint64_t partial;          /* of those, the words some byte of which was not */
	uint32_t thread, ck;       /* the chunk: t[thread] from checkpoint ck to the next */
	uint32_t pm;               /* the partial words' bytes: replay_state.pm[pm...], one
				    * byte each (bit j: byte j written), in word order */
	uint32_t pad;
};

/* The blocks the chunk being scanned writes: open addressing on block,
 * with each slot's bytes written (per word, a bit per byte) while the
 * chunk is scanned. */
struct bset {
	struct mref *v;            /* words == 0: an empty slot */
	uint8_t (*bytes)[64];      /* of slot i, for words not known whole */
	size_t cap, n;
};

/* Whether chunk ref @r wrote byte @i (0..511) of its block. */
static inline bool state_mref_wrote(const uint8_t *pm, const struct mref *r, unsigned i)
{
	unsigned w = i >> 3;

	if (!(r->words >> w & 1))
		return false;
	if (!(r->partial >> w & 1))
		return true;
	return pm[r->pm + (unsigned)__builtin_popcountll(r->partial & ((1ull << w) - 1))] >> (i & 7) & 1;
}

/* From @index on (until the next entry), time = index + base. */
struct tbase {
	uint64_t index, base;
};

struct sthread {
	int64_t tid;
	size_t bi;                 /* its thread in the bundle it was opened from */
	uint8_t *data;             /* the log, mapped (maplen bytes) */
	size_t len, start;         /* len: up to the last whole record; start: the first */
	size_t maplen;
	uint8_t *owned;            /* or the log read into memory (not mappable) */
	uint64_t origin;           /* index of the first checkpoint (0 unless cut) */
	size_t xs_len;
	bool v1;                   /* HSSTATE1 (REPLAY_STATE_MAGIC_V1) */
	struct ckpt *ck;
	size_t nck;
	struct tbase *tb;          /* CKPT and TIME records, in order */
	size_t ntb, captb;
	uint64_t last_index;
	/* How far a log cut short is whole (docs/bundle.md, "State log"):
	 * positions up to @known, times before @until; all of it once
	 * @whole (it ends with an end record). */
	uint64_t known, until;
	bool whole;
	/* Where replay_state_extend scans again: the last checkpoint, with
	 * the time bases and trust counted before it. */
	size_t ck_ntb;
	uint64_t ck_known, ck_until;
	struct parser cur;         /* the last answer */
	bool cur_valid;
	uint8_t xs_cur[REPLAY_STATE_XMAX];
};

/* A mapping record's reference from a page it covers. */
struct pageref {
	uint64_t page;
	size_t w;
};

struct replay_state {
	struct sthread *t;
	size_t nt;
	struct mwrite *w;          /* the MAP records */
	size_t nw, capw;
	struct pageref *pr;        /* by page, then time */
	size_t npr;
	size_t *big;               /* those over MAP_BIG_PAGES pages: not in pr */
	size_t nbig;
	struct mref *mr;           /* the chunks' blocks, by block, then first */
	size_t nmr, capmr;
	uint8_t *pm;               /* the bytes of their partly written words */
	size_t npm, cappm;
	struct bset bs;
	uint64_t *execs;           /* times of REPLAY_STATE_MAP_ALL */
	size_t nexec;
	size_t *vol;               /* the REPLAY_STATE_MAP_VOLATILE writes, by time */
	size_t nvol;
	uint64_t until;            /* memory is known at times before it */
	struct state_cache *cache; /* chunks decoded by memory reads (NULL: none) */
	/* Mappings of logs that replay_state_extend mapped again longer:
	 * kept until the end, for what still points into them. */
	struct { void *p; size_t len; } *retired;
	size_t nretired;
};

/* Record order (struct mwrite): by time, then thread, then place in the
 * log; a qsort comparator. */
static inline int state_write_cmp(const void *a, const void *b)
{
	const struct mwrite *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Whether write @a comes before write @b (state_write_cmp's order). */
static inline bool state_write_earlier(const struct mwrite *a, const struct mwrite *b)
{
	return state_write_cmp(a, b) < 0;
}

/* The 8-byte words of a block that [lo, hi) (inside it) covers. */
static inline uint64_t state_words_of(uint64_t lo, uint64_t hi)
{
	unsigned a = (unsigned)(lo & (BLOCK - 1)) >> 3, b = (unsigned)((hi - 1) & (BLOCK - 1)) >> 3;

	return (b == 63 ? ~0ull : (2ull << b) - 1) & ~((1ull << a) - 1);
}

/* Thread @tid's log, or NULL. */
static inline struct sthread *state_thread_find(struct replay_state *st, int64_t tid)
{
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].tid == tid)
			return &st->t[i];
	return NULL;
}

/* Each described where it is defined. state_parse.c, the records: */
int state_parse_start(struct sthread *t, struct parser *ps);
int state_parse_head(struct parser *ps, unsigned *kind);
int state_parse_body(struct parser *ps, unsigned kind, struct mwrite *w);
/* state_chunk.c, a block's chunks and their writes: */
void state_block_refs(const struct replay_state *st, uint64_t block, uint64_t time, size_t *lo,
		      size_t *mid, size_t *hi);
void state_chunk_writes(const struct replay_state *st, const struct mref *r, uint64_t lo,
			uint64_t hi, void (*fn)(void *ctx, const struct mwrite *w), void *ctx);
/* state_kept.c, the index kept beside a finished recording: */
bool state_kept_where(const struct replay_bundle *b, char *path, size_t size, uint64_t *key);
int state_kept_load(struct replay_state *st, const char *path, uint64_t key);
void state_kept_save(const struct replay_state *st, const char *path, uint64_t key);
void state_kept_forget(struct replay_state *st);
/* state_map.c, the mapping records: */
void state_exec_epoch(const struct replay_state *st, uint64_t time, uint64_t *from,
		      uint64_t *to);

#endif
