/*
 * replay/model/state_parse.c: the state log's records parsed one at a
 * time (docs/bundle.md, "State log"; the format is
 * replay/model/state_format.h's): the log's header, each record's tag,
 * its body applied to a parser (struct parser, replay/model/state_int.h:
 * registers, XSAVE bytes, time base, the range base of MEM and MAP
 * records). The lowest part of the reader: the scan at open (state.c),
 * registers redone (state_regs.c) and chunks decoded for memory
 * (state_chunk.c) call it; it calls nothing of theirs.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "replay/model/state_format.h"
#include "replay/model/state_int.h"

static int get(struct parser *ps, uint64_t *v)
{
	return replay_state_get_varint(&ps->p, ps->end, v) < 0 ? -EINVAL : 0;
}

static int get_s(struct parser *ps, int64_t *v)
{
	uint64_t u;
	int e = get(ps, &u);

	*v = replay_state_unzigzag(u);
	return e;
}

static int skip(struct parser *ps, uint64_t n)
{
	if ((uint64_t)(ps->end - ps->p) < n)
		return -EINVAL;
	ps->p += n;
	return 0;
}

/* XOR runs onto @xs (NULL: skipped). */
static int xruns(struct parser *ps, uint8_t *xs, size_t xs_len)
{
	uint64_t nruns, skipw, count, at = 0;

	if (get(ps, &nruns) < 0)
		return -EINVAL;
	for (uint64_t r = 0; r < nruns; r++) {
		if (get(ps, &skipw) < 0 || get(ps, &count) < 0)
			return -EINVAL;
		at += skipw;
		if ((at + count) * 8 > xs_len || (uint64_t)(ps->end - ps->p) < count * 8)
			return -EINVAL;
		for (uint64_t k = 0; xs && k < count * 8; k++)
			xs[at * 8 + k] ^= ps->p[k];
		ps->p += count * 8;
		at += count;
	}
	return 0;
}

/* The next record's kind and index (the parser's index moves). 0 at the
 * end, 1 with a record, or -EINVAL. */
int state_parse_head(struct parser *ps, unsigned *kind)
{
	uint64_t d;

	while (ps->p < ps->end && !*ps->p)
		ps->p++;                   /* padding (a --snapshot ring's hole) */
	if (ps->p >= ps->end)
		return 0;
	if (replay_state_get_tag(&ps->p, ps->end, kind, &d) < 0)
		return -EINVAL;
	ps->index += d;
	return 1;
}

/* The body of a record of @kind; MEM / MAP ranges go to *@w if not NULL. */
int state_parse_body(struct parser *ps, unsigned kind, struct mwrite *w)
{
	uint64_t v, len;
	int64_t d;
	bool same;

	switch (kind) {
	case REPLAY_STATE_REC_REGS:
		if (get(ps, &v) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < REPLAY_STATE_NSLOTS; i++) {
			if (!(v & (1ull << i)))
				continue;
			if (get_s(ps, &d) < 0)
				return -EINVAL;
			ps->gp[replay_state_slots[i]] += (uint64_t)d;
		}
		return 0;
	case REPLAY_STATE_REC_XSTATE:
		return xruns(ps, ps->xs, ps->xs_len);
	case REPLAY_STATE_REC_TIME:
		if (get(ps, &ps->base) < 0)
			return -EINVAL;
		ps->base += ps->origin;
		return 0;
	case REPLAY_STATE_REC_SYNC:
		return get(ps, &ps->ahead) < 0 ? -EINVAL : get(ps, &ps->until);
	case REPLAY_STATE_REC_CKPT:
		/* Indices count from the log's first checkpoint: a log cut at
		 * a checkpoint (--snapshot) starts at position 1 like its
		 * trace; times stay as they were. */
		if (get(ps, &ps->index) < 0 || get(ps, &ps->base) < 0 || ps->index < ps->origin)
			return -EINVAL;
		ps->index -= ps->origin;
		ps->base += ps->origin;
		for (unsigned i = 0; i < REPLAY_STATE_NGP; i++)
			if (get(ps, &ps->gp[i]) < 0)
				return -EINVAL;
		if (ps->xs)
			memset(ps->xs, 0, ps->xs_len);
		ps->mem_end = 0;
		return xruns(ps, ps->xs, ps->xs_len);
	case REPLAY_STATE_REC_MEM:
	case REPLAY_STATE_REC_MAP:
		if (get_s(ps, &d) < 0 || get(ps, &len) < 0)
			return -EINVAL;
		same = kind == REPLAY_STATE_REC_MEM && !ps->v1 && (len & REPLAY_STATE_MEM_SAME);
		if (kind == REPLAY_STATE_REC_MEM && !ps->v1)
			len >>= 1;
		if (w) {
			w->addr = ps->mem_end + (uint64_t)d;
			w->len = len;
			w->time = ps->index + ps->base;
			w->index = ps->index;
			w->old = same ? NULL : ps->p;
			w->now = same ? ps->p : ps->p + len;
		}
		ps->mem_end += (uint64_t)d + len;
		if (kind == REPLAY_STATE_REC_MAP) {
			if (ps->p >= ps->end)
				return -EINVAL;
			if (w)
				w->kind = (uint8_t)(16 + *ps->p);
			ps->p++;
			return 0;
		}
		if (w)
			w->kind = REPLAY_STATE_REC_MEM;
		if (same)
			return len > (uint64_t)(ps->end - ps->p) ? -EINVAL : skip(ps, len);
		return len > (uint64_t)(ps->end - ps->p) / 2 ? -EINVAL : skip(ps, 2 * len);
	default:
		return -EINVAL;
	}
}

/* The log's header read into @t (its version, XSAVE length, where its
 * records start, and its origin: the index of its first record, a
 * checkpoint), and *@ps set at that first record. 0 or -EINVAL. */
int state_parse_start(struct sthread *t, struct parser *ps)
{
	uint64_t v, ngp;

	*ps = (struct parser){ .p = t->data, .end = t->data + t->len };
	if (t->len < REPLAY_STATE_MAGIC_LEN)
		return -EINVAL;
	t->v1 = !memcmp(t->data, REPLAY_STATE_MAGIC_V1, REPLAY_STATE_MAGIC_LEN);
	if (!t->v1 && memcmp(t->data, REPLAY_STATE_MAGIC, REPLAY_STATE_MAGIC_LEN))
		return -EINVAL;
	ps->v1 = t->v1;
	ps->p += REPLAY_STATE_MAGIC_LEN;
	if (get(ps, &v) < 0 || get(ps, &t->xs_len) < 0 || get(ps, &ngp) < 0 ||
	    t->xs_len > REPLAY_STATE_XMAX || ngp != REPLAY_STATE_NGP)
		return -EINVAL;
	t->start = (size_t)(ps->p - t->data);
	ps->xs_len = t->xs_len;
	/* The first record is a checkpoint: its index is the origin. */
	{
		struct parser first = *ps;
		unsigned k0;

		if (state_parse_head(&first, &k0) <= 0 || k0 != REPLAY_STATE_REC_CKPT ||
		    get(&first, &t->origin) < 0)
			return -EINVAL;
		ps->origin = t->origin;
	}
	return 0;
}
