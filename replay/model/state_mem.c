/*
 * replay/model/state_mem.c: memory at a logical time, byte by byte: the
 * new bytes of the latest write at or before it, or the old bytes of the
 * first later one, each 512-byte block of the read in two passes over the
 * chunks that wrote it (replay/model/state_chunk.c) and the mapping
 * records indexed by page; what a mapping change, the kernel or an exec
 * made unknowable said so (replay/model/state_map.c: the exec epochs).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/state_int.h"


/* --- memory ------------------------------------------------------------ */

/* The page's mapping refs: [*lo, *hi) in st->pr, in time order. */
static void page_refs(const struct replay_state *st, uint64_t page, size_t *lo, size_t *hi)
{
	size_t a = 0, b = st->npr;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (st->pr[m].page < page)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = a; b < st->npr && st->pr[b].page == page; b++)
		;
	*hi = b;
}

/* The first of a page's mapping refs [a, b) later than @time, or b. */
static size_t first_after(const struct replay_state *st, size_t a, size_t b, uint64_t time)
{
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (st->w[st->pr[m].w].time <= time)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* One block's part [lo, hi) of a read at @time: each byte still open
 * takes the latest write at or before the time (its new bytes), or in the
 * second pass (@after) the earliest later one (its old bytes). */
struct query {
	uint64_t time, addr, lo, hi, from, to;
	bool after;
	uint8_t *state;                    /* of the whole read, from addr */
	struct mwrite best[BLOCK];         /* per byte of [lo, hi): the write chosen */
	bool has[BLOCK];
	uint8_t val[BLOCK], vstate[BLOCK];
};

static void offer(void *ctx, const struct mwrite *w)
{
	struct query *q = ctx;
	uint64_t a = w->addr > q->lo ? w->addr : q->lo;
	uint64_t b = w->addr + w->len < q->hi ? w->addr + w->len : q->hi;

	if (q->after ? w->time <= q->time || w->time >= q->to :
		       w->time > q->time || w->time < q->from)
		return;
	for (uint64_t x = a; x < b; x++) {
		size_t i = x - q->lo;

		if (q->state[x - q->addr] ||
		    (q->has[i] && state_write_earlier(w, &q->best[i]) != q->after))
			continue;
		q->has[i] = true;
		q->best[i] = *w;
		if (w->kind == REPLAY_STATE_REC_MEM && (!q->after || w->old)) {
			q->val[i] = (q->after ? w->old : w->now)[x - w->addr];
			q->vstate[i] = REPLAY_STATE_KNOWN;
		} else if (!q->after && w->kind == 16 + REPLAY_STATE_MAP_ZERO) {
			q->val[i] = 0;
			q->vstate[i] = REPLAY_STATE_KNOWN;
		} else {
			q->vstate[i] = REPLAY_STATE_UNKNOWN;
		}
	}
}

/* How far the pass must still look: backward, writes at or after the
 * returned time (the earliest choice of an open byte, or the epoch's
 * start if a byte has none); forward, up to it (the latest choice, or
 * UINT64_MAX). */
static uint64_t bound(const struct query *q)
{
	uint64_t r = q->after ? 0 : UINT64_MAX;

	for (uint64_t x = q->lo; x < q->hi; x++) {
		size_t i = x - q->lo;
		uint64_t t;

		if (q->state[x - q->addr])
			continue;
		t = q->has[i] ? q->best[i].time : q->after ? UINT64_MAX : q->from;
		if (q->after ? t > r : t < r)
			r = t;
	}
	if (!q->after && r < q->from)
		r = q->from;
	return r;
}

/* The mapping records too big for the page index that cover the block:
 * offer keeps, per byte, the best of what it is offered in any order. */
static void offer_big(const struct replay_state *st, struct query *q)
{
	for (size_t i = 0; i < st->nbig; i++) {
		const struct mwrite *w = &st->w[st->big[i]];

		if (w->addr < q->hi && q->lo < w->addr + w->len)
			offer(q, w);
	}
}

/* Whether the chunk of @r may offer a write the pass would take: to a
 * byte still open that it wrote (its bytes, not only its words: a chunk
 * that writes the high half of a word again and again says nothing of
 * the low half), later (backward) or earlier (forward) than that byte's
 * choice so far, or than the epoch's start when it has none. */
static bool may_offer(const struct replay_state *st, const struct mref *r,
		      const struct query *q)
{
	for (uint64_t x = q->lo; x < q->hi; x++) {
		size_t i = x - q->lo;

		if (q->state[x - q->addr] ||
		    !state_mref_wrote(st->pm, r, (unsigned)(x & (BLOCK - 1))))
			continue;
		if (q->after ? !q->has[i] || r->first <= q->best[i].time :
			       r->last >= (q->has[i] ? q->best[i].time : q->from))
			return true;
	}
	return false;
}

static void pass(const struct replay_state *st, struct query *q)
{
	uint64_t words = state_words_of(q->lo, q->hi), lim;
	size_t a, m, b, pa, pb, k;

	memset(q->has, 0, (size_t)(q->hi - q->lo));
	state_block_refs(st, q->lo >> BLOCK_SHIFT, q->time, &a, &m, &b);
	page_refs(st, q->lo >> PAGE_SHIFT, &pa, &pb);
	k = first_after(st, pa, pb, q->time);
	if (!q->after) {
		/* Latest first; a ref whose reach is below the bound, and every
		 * one before it, has nothing later than what was chosen. */
		for (lim = bound(q); m > a && st->mr[m - 1].reach >= lim; m--) {
			if ((st->mr[m - 1].words & words) && st->mr[m - 1].last >= lim &&
			    may_offer(st, &st->mr[m - 1], q)) {
				state_chunk_writes(st, &st->mr[m - 1], q->lo, q->hi, offer, q);
				lim = bound(q);
			}
		}
		for (lim = bound(q); k > pa && st->w[st->pr[k - 1].w].time >= lim; k--)
			offer(q, &st->w[st->pr[k - 1].w]);
		offer_big(st, q);
		return;
	}
	/* Chunks begun at or before the time may still write after it. */
	for (size_t j = m; j > a && st->mr[j - 1].reach > q->time; j--)
		if ((st->mr[j - 1].words & words) && st->mr[j - 1].last > q->time &&
		    may_offer(st, &st->mr[j - 1], q))
			state_chunk_writes(st, &st->mr[j - 1], q->lo, q->hi, offer, q);
	for (lim = bound(q); m < b && st->mr[m].first <= lim && st->mr[m].first < q->to; m++) {
		if ((st->mr[m].words & words) && may_offer(st, &st->mr[m], q)) {
			state_chunk_writes(st, &st->mr[m], q->lo, q->hi, offer, q);
			lim = bound(q);
		}
	}
	for (lim = bound(q); k < pb && st->w[st->pr[k].w].time <= lim; k++)
		offer(q, &st->w[st->pr[k].w]);
	offer_big(st, q);
}

/* Volatile ranges marked at or before @time make their bytes unknown. */
static void volatile_mask(const struct replay_state *st, uint64_t time, uint64_t addr,
			  uint64_t len, uint8_t *state)
{
	for (size_t i = 0; i < st->nvol && st->w[st->vol[i]].time <= time; i++) {
		const struct mwrite *w = &st->w[st->vol[i]];
		uint64_t a, b;

		a = w->addr > addr ? w->addr : addr;
		b = w->addr + w->len < addr + len ? w->addr + w->len : addr + len;
		for (uint64_t x = a; x < b; x++)
			state[x - addr] = 2;
	}
}
/* One block's part [lo, hi) of the read. */
static void read_block(const struct replay_state *st, struct query *q, uint8_t *buf)
{
	for (int after = 0; after < 2; after++) {
		q->after = after;
		pass(st, q);
		for (uint64_t x = q->lo; x < q->hi; x++) {
			size_t i = x - q->lo;

			if (q->state[x - q->addr] || !q->has[i])
				continue;
			buf[x - q->addr] = q->val[i];
			q->state[x - q->addr] = q->vstate[i];
		}
	}
}

int replay_state_read_mem_status(const struct replay_state *st, uint64_t time, uint64_t addr,
				 void *buf, size_t len, uint8_t *status)
{
	struct query *q;
	uint64_t from, to, x = addr;
	int r = 0;

	memset(status, REPLAY_STATE_UNTOUCHED, len);
	memset(buf, 0, len);
	/* Nothing is mapped above the largest user address (57 bits with
	 * 5-level paging): those bytes are unknown, and no end computed
	 * below can wrap past 2^64. */
	if (addr >= REPLAY_STATE_ADDR_LIMIT) {
		memset(status, REPLAY_STATE_UNKNOWN, len);
		return len ? -ENOENT : 0;
	}
	/* After a log cut short ends, any byte may have been written. */
	if (time >= st->until) {
		memset(status, REPLAY_STATE_UNKNOWN, len);
		return len ? -ENOENT : 0;
	}
	if (len > REPLAY_STATE_ADDR_LIMIT - addr) {
		size_t keep = (size_t)(REPLAY_STATE_ADDR_LIMIT - addr);

		memset(status + keep, REPLAY_STATE_UNKNOWN, len - keep);
		r = -ENOENT;
		len = keep;
	}
	state_exec_epoch(st, time, &from, &to);
	volatile_mask(st, time, addr, len, status);
	q = malloc(sizeof(*q));
	while (q && x < addr + len) {
		uint64_t end = ((x >> BLOCK_SHIFT) + 1) << BLOCK_SHIFT;

		if (end > addr + len)
			end = addr + len;
		*q = (struct query){ .time = time, .addr = addr, .lo = x, .hi = end, .from = from,
				     .to = to, .state = status };
		read_block(st, q, buf);
		x = end;
	}
	free(q);
	for (size_t i = 0; i < len; i++) {
		/* Without memory to search with, nothing is known. */
		if (!q && status[i] == REPLAY_STATE_UNTOUCHED)
			status[i] = REPLAY_STATE_UNKNOWN;
		/* A later exec replaces what nothing touched before it. */
		if (status[i] == REPLAY_STATE_UNTOUCHED && to != UINT64_MAX)
			status[i] = REPLAY_STATE_UNKNOWN;
		if (status[i] != REPLAY_STATE_KNOWN) {
			((uint8_t *)buf)[i] = 0;
			r = -ENOENT;
		}
	}
	return r;
}

int replay_state_read_mem(const struct replay_state *st, uint64_t time, uint64_t addr,
			  void *buf, size_t len, uint8_t *known)
{
	uint8_t *status = calloc(len ? len : 1, 1);
	int r;

	if (!status)
		return -ENOMEM;
	r = replay_state_read_mem_status(st, time, addr, buf, len, status);
	for (size_t i = 0; known && i < len; i++)
		known[i] = status[i] == REPLAY_STATE_KNOWN;
	free(status);
	return r;
}

int replay_state_read_mem_filled(const struct replay_state *st, uint64_t time, uint64_t addr,
				 void *buf, size_t len,
				 int (*fill)(void *ctx, bool untouched, uint64_t addr, uint8_t *buf,
					     size_t len),
				 void *ctx)
{
	uint8_t status[4096], *p = buf;
	size_t n = 0;

	if (len > sizeof(status))
		len = sizeof(status);
	replay_state_read_mem_status(st, time, addr, buf, len, status);
	/* What is known from the start of the range is what can be answered. */
	while (n < len) {
		size_t run = 0;
		int got;

		if (status[n] == REPLAY_STATE_KNOWN) {
			n++;
			continue;
		}
		while (n + run < len && status[n + run] == status[n])
			run++;
		got = fill(ctx, status[n] == REPLAY_STATE_UNTOUCHED, addr + n, p + n, run);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	return n ? (int)n : -ENODATA;
}
