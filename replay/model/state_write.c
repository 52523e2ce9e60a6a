/*
 * replay/model/state_write.c: the logged write nearest a time, before or
 * after it, to a range (watchpoints, provenance): each block's chunks
 * walked as a memory read walks them (replay/model/state_mem.c, pass), but
 * for one write over the whole range, through
 * replay/model/state_chunk.c; neither search crosses an exec
 * (replay/model/state_map.c).
 */
#include <errno.h>
#include <stdbool.h>

#include "replay/model/state_int.h"


/* --- writes ------------------------------------------------------------- */

/* A search for the write nearest a time in one direction. */
struct wsearch {
	uint64_t addr, len, time, from, to;
	bool after, found;
	struct mwrite best;
};

static void consider(void *ctx, const struct mwrite *w)
{
	struct wsearch *s = ctx;

	if (s->after ? w->time <= s->time || w->time >= s->to :
		       w->time > s->time || w->time < s->from)
		return;
	if (w->addr >= s->addr + s->len || s->addr >= w->addr + w->len)
		return;
	if (!s->found || state_write_earlier(w, &s->best) == s->after) {
		s->best = *w;
		s->found = true;
	}
}

/* The refs of one block, walked as state_mem.c's pass() does; the bound
 * is the one write chosen so far (over every block of the range). */
static void search_block(const struct replay_state *st, struct wsearch *s, uint64_t block)
{
	uint64_t lo = block << BLOCK_SHIFT, hi = lo + BLOCK, words;
	size_t a, m, b;

	if (lo < s->addr)
		lo = s->addr;
	if (hi > s->addr + s->len)
		hi = s->addr + s->len;
	words = state_words_of(lo, hi);
	state_block_refs(st, block, s->time, &a, &m, &b);
	if (!s->after) {
		for (; m > a; m--) {
			const struct mref *r = &st->mr[m - 1];
			uint64_t lim = s->found ? s->best.time : s->from;

			if (r->reach < lim)
				break;
			if ((r->words & words) && r->last >= lim)
				state_chunk_writes(st, r, lo, hi, consider, s);
		}
		return;
	}
	for (size_t j = m; j > a && st->mr[j - 1].reach > s->time; j--)
		if ((st->mr[j - 1].words & words) && st->mr[j - 1].last > s->time)
			state_chunk_writes(st, &st->mr[j - 1], lo, hi, consider, s);
	for (; m < b && st->mr[m].first < s->to && (!s->found || st->mr[m].first <= s->best.time);
	     m++)
		if (st->mr[m].words & words)
			state_chunk_writes(st, &st->mr[m], lo, hi, consider, s);
}

static int search(const struct replay_state *st, struct wsearch *s, struct replay_state_write *out)
{
	uint64_t first = s->addr >> BLOCK_SHIFT, last = (s->addr + s->len - 1) >> BLOCK_SHIFT;
	size_t a = 0, b = st->nmr;

	while (a < b) {                    /* the range's first block with refs */
		size_t m = a + (b - a) / 2;

		if (st->mr[m].block < first)
			a = m + 1;
		else
			b = m;
	}
	while (a < st->nmr && st->mr[a].block <= last) {
		uint64_t block = st->mr[a].block;

		search_block(st, s, block);
		while (a < st->nmr && st->mr[a].block == block)
			a++;
	}
	if (!s->found)
		return -ENOENT;
	*out = (struct replay_state_write){ st->t[s->best.thread].tid, s->best.index,
					    s->best.time, s->best.addr, s->best.len };
	return 0;
}

int replay_state_write_before(const struct replay_state *st, uint64_t addr, uint64_t len,
			      uint64_t time, struct replay_state_write *out)
{
	struct wsearch s = { .addr = addr, .len = len, .time = time - 1 };

	if (!len || !time || addr + len < addr)
		return -ENOENT;
	if (time > st->until)          /* a lost write may be the latest */
		return -ENODATA;
	state_exec_epoch(st, time - 1, &s.from, &s.to);
	return search(st, &s, out);
}

int replay_state_write_after(const struct replay_state *st, uint64_t addr, uint64_t len,
			     uint64_t time, struct replay_state_write *out)
{
	struct wsearch s = { .addr = addr, .len = len, .time = time, .after = true };
	int r;

	if (!len || addr + len < addr)
		return -ENOENT;
	state_exec_epoch(st, time, &s.from, &s.to);
	r = search(st, &s, out);
	/* A lost write (at or after st->until) may come first. */
	if (st->until != UINT64_MAX && (r < 0 || out->time >= st->until))
		return -ENODATA;
	return r;
}
