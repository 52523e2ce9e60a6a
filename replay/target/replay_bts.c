/*
 * replay/target/replay_bts.c: BTS blocks from a cursor's history (see
 * replay_bts.h).
 *
 * The history is walked backward from the position; two neighbouring
 * items are in one block when the older one's address plus its length is
 * the newer one's. Lengths are kept in an open-addressing table by
 * address (0: not decodable), so a loop's instructions are decoded once.
 */
#include "replay/target/replay_bts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "replay/decode/cursor.h"
#include "replay/decode/insn.h"

struct replay_bts {
	int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t len);
	void *ctx;
	uint64_t *keys;            /* addresses; 0: an empty slot */
	uint8_t *lens;
	size_t cap, n;
};

struct block_list {
	struct rsp_btrace_block *v;
	size_t n, cap;
};

int replay_bts_new(int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t len), void *ctx,
		   struct replay_bts **out)
{
	struct replay_bts *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->read = read;
	b->ctx = ctx;
	*out = b;
	return 0;
}

void replay_bts_free(struct replay_bts *b)
{
	if (!b)
		return;
	free(b->keys);
	free(b->lens);
	free(b);
}

static size_t slot_of(const struct replay_bts *b, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	for (size_t i = (size_t)(h >> 20) & (b->cap - 1);; i = (i + 1) & (b->cap - 1))
		if (b->keys[i] == ip || b->keys[i] == 0)
			return i;
}

/* Doubles the table (it starts at 4096 slots). 0 or -ENOMEM. */
static int grow(struct replay_bts *b)
{
	size_t cap = b->cap ? 2 * b->cap : 4096;
	uint64_t *keys = calloc(cap, sizeof(*keys)), *old_keys = b->keys;
	uint8_t *lens = calloc(cap, 1), *old_lens = b->lens;
	size_t old_cap = b->cap;

	if (!keys || !lens) {
		free(keys);
		free(lens);
		return -ENOMEM;
	}
	b->keys = keys;
	b->lens = lens;
	b->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (old_keys[i]) {
			size_t s = slot_of(b, old_keys[i]);

			b->keys[s] = old_keys[i];
			b->lens[s] = old_lens[i];
		}
	}
	free(old_keys);
	free(old_lens);
	return 0;
}

/* The length of the instruction at @ip: 1..15, 0 when its bytes cannot be
 * read or decoded, or -ENOMEM. */
static int insn_len(struct replay_bts *b, uint64_t ip)
{
	struct replay_insn in;
	uint8_t buf[15];
	size_t s;
	int got;

	if (ip == 0)
		return 0;
	if (2 * (b->n + 1) > b->cap && grow(b) < 0)
		return -ENOMEM;
	s = slot_of(b, ip);
	if (b->keys[s] == ip)
		return b->lens[s];
	got = b->read(b->ctx, ip, buf, sizeof(buf));
	b->keys[s] = ip;
	b->lens[s] = 0;
	if (got > 0 && replay_insn_decode(&in, buf, (size_t)got, ip, 64) == 0)
		b->lens[s] = in.size;
	b->n++;
	return b->lens[s];
}

static int push(struct block_list *l, const struct rsp_btrace_block *blk)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct rsp_btrace_block *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *blk;
	return 0;
}

int replay_bts_blocks(struct replay_bts *b, struct replay_cursor *cur, size_t max,
		      struct rsp_btrace_block **out, size_t *n)
{
	struct block_list l = { 0 };
	struct rsp_btrace_block blk = { 0, 0 };
	bool open = replay_cursor_pc(cur, &blk.begin) == 0;
	int err = 0;

	blk.end = blk.begin;
	for (uint64_t k = replay_cursor_position(cur) - 1; k >= 1 && !err && !(max && l.n >= max);
	     k--) {
		uint64_t ip;
		int r = replay_cursor_item_ip(cur, k, &ip), len = 0;

		if (r == -ENODATA) {               /* a gap ends the block */
			err = open ? push(&l, &blk) : 0;
			open = false;
			continue;
		}
		if (r == 0 && open)
			len = insn_len(b, ip);
		if (r < 0 || len < 0) {
			err = r < 0 ? r : len;
			break;
		}
		if (open && len > 0 && ip + (uint64_t)len == blk.begin) {
			blk.begin = ip;
			continue;
		}
		if (open)
			err = push(&l, &blk);
		blk = (struct rsp_btrace_block){ ip, ip };
		open = true;
	}
	if (!err && open && !(max && l.n >= max))
		err = push(&l, &blk);
	if (err) {
		free(l.v);
		return err;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}
