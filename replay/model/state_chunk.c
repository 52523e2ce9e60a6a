/*
 * replay/model/state_chunk.c: what memory reads (replay/model/state_mem.c)
 * and write searches (replay/model/state_write.c) share: a block's chunk
 * refs, found in the index replay/model/state.c built, and a chunk's MEM
 * records that overlap a range, parsed (replay/model/state_parse.c) or,
 * with the cache on, decoded once and kept (replay/model/state_cache.c).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "replay/model/state_cache.h"
#include "replay/model/state_int.h"

/* The block's refs: [*lo, *hi) in st->mr, and *mid, the first of them
 * whose first write is later than @time. */
void state_block_refs(const struct replay_state *st, uint64_t block, uint64_t time, size_t *lo,
		      size_t *mid, size_t *hi)
{
	size_t a = 0, b = st->nmr;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (st->mr[m].block < block)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = st->nmr; a < b;) {
		size_t m = a + (b - a) / 2;

		if (st->mr[m].block == block && st->mr[m].first <= time)
			a = m + 1;
		else
			b = m;
	}
	*mid = a;
	for (b = a; b < st->nmr && st->mr[b].block == block; b++)
		;
	*hi = b;
}

/* The bytes [ck's offset, end) of @r's chunk in its thread's log. */
static struct state_ckey chunk_key(const struct replay_state *st, const struct mref *r)
{
	const struct sthread *t = &st->t[r->thread];

	return (struct state_ckey){ r->thread, t->ck[r->ck].off,
				    r->ck + 1 < t->nck ? t->ck[r->ck + 1].off : t->len };
}

/* Calls @fn for every MEM record of chunk @key, parsed, or with @all, for
 * every one whether it overlaps [lo, hi) or not. */
static void chunk_parse(const struct replay_state *st, const struct state_ckey *key, uint64_t lo,
			uint64_t hi, bool all, void (*fn)(void *ctx, const struct mwrite *w),
			void *ctx)
{
	const struct sthread *t = &st->t[key->thread];
	struct parser ps = { .p = t->data + key->off, .end = t->data + key->end,
			     .origin = t->origin, .xs_len = t->xs_len, .v1 = t->v1 };
	unsigned kind;

	/* The checkpoint sets index, base and the range base; its own tag's
	 * delta is from the record before it (see redo, state_regs.c). */
	if (state_parse_head(&ps, &kind) <= 0 || kind != REPLAY_STATE_REC_CKPT ||
	    state_parse_body(&ps, kind, NULL) < 0)
		return;
	while (ps.p < ps.end) {
		const uint8_t *at = ps.p;
		struct mwrite w;

		if (state_parse_head(&ps, &kind) <= 0 || state_parse_body(&ps, kind, &w) < 0)
			return;
		if (kind != REPLAY_STATE_REC_MEM || (!all && (w.addr >= hi || w.addr + w.len <= lo)))
			continue;
		w.thread = key->thread;
		w.off = (size_t)(at - t->data);
		fn(ctx, &w);
	}
}

/* A chunk being decoded for the cache. */
struct decoding {
	const uint8_t *data;       /* the thread's log */
	struct state_centry e;
	size_t cap;
	bool failed;
};

static void decode_one(void *ctx, const struct mwrite *w)
{
	struct decoding *d = ctx;
	const uint8_t *bytes = w->old ? w->old : w->now;
	size_t n = d->e.n;

	if (d->failed)
		return;
	if (n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		struct state_cwrite *nv = realloc(d->e.w, cap * sizeof(*nv));

		if (!nv) {
			d->failed = true;
			return;
		}
		d->e.w = nv;
		d->cap = cap;
	}
	d->e.w[n] = (struct state_cwrite){ .time = w->time, .addr = w->addr, .len = w->len,
					   .index = w->index, .off = w->off,
					   .data = (uint32_t)(bytes - d->data - w->off),
					   .same = !w->old };
	d->e.n = n + 1;
}

/* Calls @fn for entry @e's write @c if it overlaps [lo, hi). */
static void entry_write(const struct replay_state *st, const struct state_centry *e,
			const struct state_cwrite *c, uint64_t lo, uint64_t hi,
			void (*fn)(void *ctx, const struct mwrite *w), void *ctx)
{
	const uint8_t *bytes = st->t[e->key.thread].data + c->off + c->data;

	if (c->addr >= hi || c->addr + c->len <= lo)
		return;
	fn(ctx, &(struct mwrite){ .time = c->time, .addr = c->addr, .len = c->len,
				  .index = c->index, .old = c->same ? NULL : bytes,
				  .now = c->same ? bytes : bytes + c->len,
				  .kind = REPLAY_STATE_REC_MEM, .thread = e->key.thread,
				  .off = c->off });
}

/* Calls @fn for every write of entry @e overlapping [lo, hi): the narrow
 * ones near it by address, then every wide one. */
static void entry_writes(const struct replay_state *st, const struct state_centry *e,
			 uint64_t lo, uint64_t hi, void (*fn)(void *ctx, const struct mwrite *w),
			 void *ctx)
{
	for (size_t i = state_cache_first(e, lo); i < e->n && e->w[i].addr < hi; i++)
		entry_write(st, e, &e->w[i], lo, hi, fn, ctx);
	for (size_t i = e->n; i < e->n + e->nwide; i++)
		entry_write(st, e, &e->w[i], lo, hi, fn, ctx);
}

/* Calls @fn for every MEM record of @r's chunk that overlaps [lo, hi), in
 * no particular order: the chunk's decoded writes from the cache, decoded
 * (and kept) on a miss, or with the cache off, parsed. */
void state_chunk_writes(const struct replay_state *st, const struct mref *r, uint64_t lo,
			uint64_t hi, void (*fn)(void *ctx, const struct mwrite *w), void *ctx)
{
	struct state_ckey key = chunk_key(st, r);
	const struct state_centry *e;
	struct decoding d = { .data = st->t[key.thread].data, .e = { .key = key } };

	if (!st->cache || !st->cache->cap_entries) {
		chunk_parse(st, &key, lo, hi, false, fn, ctx);
		return;
	}
	e = state_cache_find(st->cache, &key);
	if (e) {
		entry_writes(st, e, lo, hi, fn, ctx);
		return;
	}
	chunk_parse(st, &key, 0, 0, true, decode_one, &d);
	if (d.failed) {                    /* no memory: as without the cache */
		free(d.e.w);
		chunk_parse(st, &key, lo, hi, false, fn, ctx);
		return;
	}
	state_cache_sort(&d.e);
	e = state_cache_put(st->cache, &d.e);
	entry_writes(st, e ? e : &d.e, lo, hi, fn, ctx);
	if (!e)
		free(d.e.w);
}
