/*
 * replay/model/state.c: the state log reader.
 *
 * The logs are mapped, not read. Each is parsed once at open, keeping
 * little: its checkpoints (file offset, index), the points where its time
 * base changes (index, base), its mapping records, and for memory an
 * index of chunks, not of writes. A chunk is one thread's records from a
 * checkpoint to the next (16K instructions); for every 512-byte block of
 * memory a chunk writes, one entry says when (its first and last write
 * there) and which 8-byte words. A read of memory at a time walks the
 * block's entries from that time outward and parses only the chunks that
 * wrote the words asked for, so what is kept in memory grows with the
 * chunks and the blocks each touches (a few bytes per thousand
 * instructions), not with the writes (one every few instructions). The
 * writes of the chunks parsed last stay decoded for the next reads
 * (replay/model/state_cache.h), so a read across blocks parses each chunk once.
 * Registers are redone from a checkpoint by parsing forward (a cursor per
 * thread remembers the last answer); times and positions map to each other
 * through the base table. The format is docs/bundle.md's, defined in
 * replay/model/state_format.h; the writer is stub/recorders/stub_rec_state.c.
 */
#include "replay/model/state.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "protocol/rsp_ftag.h"
#include "replay/model/bundle.h"
#include "replay/model/state_cache.h"
#include "replay/model/state_int.h"


/* --- parsing ------------------------------------------------------------ */

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
static int head(struct parser *ps, unsigned *kind)
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
static int body(struct parser *ps, unsigned kind, struct mwrite *w)
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

/* --- opening ---------------------------------------------------------- */

/* A REGS record's body, its values skipped unread: a varint for each bit
 * of the mask (a loop over the bits, not a popcount: without -mpopcnt
 * that is a call into libgcc, a tenth of the time opening a log took). */
static int skip_regs(struct parser *ps)
{
	uint64_t mask;

	if (get(ps, &mask) < 0)
		return -EINVAL;
	for (; mask; mask &= mask - 1) {
		while (ps->p < ps->end && (*ps->p & 0x80))
			ps->p++;
		if (ps->p >= ps->end)
			return -EINVAL;
		ps->p++;
	}
	return 0;
}

static int add_write(struct replay_state *st, const struct mwrite *w)
{
	if (st->nw == st->capw) {
		size_t cap = st->capw ? 2 * st->capw : 64;
		struct mwrite *nv = realloc(st->w, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		st->w = nv;
		st->capw = cap;
	}
	st->w[st->nw++] = *w;
	return 0;
}

static int add_base(struct sthread *t, uint64_t index, uint64_t base)
{
	struct tbase *nv;

	if (t->ntb && t->tb[t->ntb - 1].base == base)
		return 0;
	if (t->ntb == t->captb) {
		size_t cap = t->captb ? 2 * t->captb : 64;

		nv = realloc(t->tb, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->tb = nv;
		t->captb = cap;
	}
	t->tb[t->ntb++] = (struct tbase){ index, base };
	return 0;
}

static int add_ckpt(struct sthread *t, uint64_t index, size_t off)
{
	if ((t->nck & (t->nck - 1)) == 0) {        /* 0, 1, 2, 4, ...: grow */
		struct ckpt *nv = realloc(t->ck, (t->nck ? 2 * t->nck : 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->ck = nv;
	}
	t->ck[t->nck++] = (struct ckpt){ index, off };
	return 0;
}

/* The 8-byte words of a block that [lo, hi) (inside it) covers. */
static uint64_t words_of(uint64_t lo, uint64_t hi)
{
	unsigned a = (unsigned)(lo & (BLOCK - 1)) >> 3, b = (unsigned)((hi - 1) & (BLOCK - 1)) >> 3;

	return (b == 63 ? ~0ull : (2ull << b) - 1) & ~((1ull << a) - 1);
}

static int bset_grow(struct bset *bs)
{
	size_t cap = bs->cap ? 2 * bs->cap : 64;
	struct mref *nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < bs->cap; i++) {
		size_t h;

		if (!bs->v[i].words)
			continue;
		for (h = (bs->v[i].block * 0x9E3779B97F4A7C15ull) >> 20 & (cap - 1); nv[h].words;
		     h = (h + 1) & (cap - 1))
			;
		nv[h] = bs->v[i];
	}
	free(bs->v);
	bs->v = nv;
	bs->cap = cap;
	return 0;
}

/* A MEM record of the chunk being scanned (thread @ti, checkpoint @ck). */
static int bset_add(struct bset *bs, const struct mwrite *w, uint32_t ti, uint32_t ck)
{
	for (uint64_t x = w->addr; x < w->addr + w->len;) {
		uint64_t blk = x >> BLOCK_SHIFT, end = (blk + 1) << BLOCK_SHIFT;
		size_t h;

		if (end > w->addr + w->len || end == 0)
			end = w->addr + w->len;
		if (2 * (bs->n + 1) > bs->cap && bset_grow(bs) < 0)
			return -ENOMEM;
		for (h = (blk * 0x9E3779B97F4A7C15ull) >> 20 & (bs->cap - 1);
		     bs->v[h].words && bs->v[h].block != blk; h = (h + 1) & (bs->cap - 1))
			;
		if (!bs->v[h].words) {
			bs->v[h] = (struct mref){ .block = blk, .first = w->time, .thread = ti,
						  .ck = ck };
			bs->n++;
		}
		bs->v[h].last = w->time;
		bs->v[h].words |= words_of(x, end);
		x = end;
	}
	return 0;
}

/* The chunk's blocks into st->mr; the set emptied for the next chunk. */
static int bset_flush(struct replay_state *st)
{
	struct bset *bs = &st->bs;

	if (st->nmr + bs->n > st->capmr) {
		size_t cap = st->capmr ? st->capmr : 1024;
		struct mref *nv;

		while (cap < st->nmr + bs->n)
			cap *= 2;
		nv = realloc(st->mr, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		st->mr = nv;
		st->capmr = cap;
	}
	for (size_t i = 0; i < bs->cap && bs->n; i++) {
		if (!bs->v[i].words)
			continue;
		st->mr[st->nmr++] = bs->v[i];
		bs->v[i].words = 0;
		bs->n--;
	}
	if (bs->cap > 4096) {              /* a huge write passed: start small again */
		free(bs->v);
		*bs = (struct bset){ 0 };
	}
	return 0;
}

/* How far a log that does not end with an end record is whole: its last
 * sync, or its last whole record (a record at index k has every record of
 * the instructions before k before it), whichever is further. */
static void trust(struct sthread *t, uint64_t base)
{
	if (t->whole) {
		t->known = t->until = UINT64_MAX;
		return;
	}
	if (t->last_index > t->known)
		t->known = t->last_index;
	if (t->last_index + base > t->until)
		t->until = t->last_index + base;
}

/* Every record from where @pp stands (a checkpoint, or the first
 * record): checkpoints, time bases, mapping records, and the blocks each
 * chunk writes. */
static int scan_records(struct replay_state *st, struct sthread *t, struct parser *pp)
{
	struct parser ps = *pp;
	uint32_t ti = (uint32_t)(t - st->t);
	uint64_t base = 0;
	unsigned kind;
	int r = 0;

	while (r >= 0) {
		const uint8_t *at = ps.p;
		struct mwrite w;

		if (head(&ps, &kind) <= 0)
			break;             /* the end, or a truncated tail */
		/* REGS, the most common record: its values are not needed here. */
		if (kind == REPLAY_STATE_REC_REGS ? skip_regs(&ps) < 0 : body(&ps, kind, &w) < 0) {
			ps.index = t->last_index;
			break;             /* a truncated tail: read up to it */
		}
		w.thread = ti;
		w.off = (size_t)(at - t->data);
		if (kind == REPLAY_STATE_REC_CKPT) {
			t->ck_ntb = t->ntb;
			t->ck_known = t->known;
			t->ck_until = t->until;
			r = bset_flush(st);
			if (r >= 0)
				r = add_ckpt(t, ps.index, w.off);
		} else if (kind == REPLAY_STATE_REC_MEM && w.len) {
			r = bset_add(&st->bs, &w, ti, (uint32_t)(t->nck - 1));
		} else if (kind == REPLAY_STATE_REC_MAP) {
			r = add_write(st, &w);
		}
		if (r >= 0 && (kind == REPLAY_STATE_REC_CKPT || kind == REPLAY_STATE_REC_TIME))
			r = add_base(t, ps.index, ps.base);
		if (kind == REPLAY_STATE_REC_SYNC && ps.until) {
			t->known = ps.index + ps.ahead;
			t->until = ps.until;
		}
		t->whole = kind == REPLAY_STATE_REC_SYNC && !ps.until;
		t->last_index = ps.index;
		base = ps.base;
		t->len = (size_t)(ps.p - t->data);
	}
	if (r >= 0)
		r = bset_flush(st);
	if (r >= 0)
		trust(t, base);
	return r < 0 ? r : t->nck ? 0 : -EINVAL;
}

/* The header, then every record. */
static int scan(struct replay_state *st, struct sthread *t)
{
	struct parser ps = { .p = t->data, .end = t->data + t->len };
	uint64_t v, ngp;

	if (t->len < REPLAY_STATE_MAGIC_LEN)
		return -EINVAL;
	t->v1 = !memcmp(t->data, REPLAY_STATE_MAGIC_V1, REPLAY_STATE_MAGIC_LEN);
	if (!t->v1 && memcmp(t->data, REPLAY_STATE_MAGIC, REPLAY_STATE_MAGIC_LEN))
		return -EINVAL;
	ps.v1 = t->v1;
	ps.p += REPLAY_STATE_MAGIC_LEN;
	if (get(&ps, &v) < 0 || get(&ps, &t->xs_len) < 0 || get(&ps, &ngp) < 0 ||
	    t->xs_len > REPLAY_STATE_XMAX || ngp != REPLAY_STATE_NGP)
		return -EINVAL;
	t->start = (size_t)(ps.p - t->data);
	ps.xs_len = t->xs_len;
	/* The first record is a checkpoint: its index is the origin. */
	{
		struct parser first = ps;
		unsigned k0;

		if (head(&first, &k0) <= 0 || k0 != REPLAY_STATE_REC_CKPT ||
		    get(&first, &t->origin) < 0)
			return -EINVAL;
		ps.origin = t->origin;
	}
	return scan_records(st, t, &ps);
}

/* load's error for a state log that is a FIFO, a device, a socket
 * (dw_open_regular's -EINVAL, which here would read as "not a state log"). */
#define EFTYPE_NOTREG EBADFD

static int load(const struct replay_bundle *b, const struct replay_thread *bt, struct sthread *t)
{
	char path[4096];
	struct stat sb;
	int fd, e = replay_bundle_path(b, bt->state_file, path, sizeof(path));

	if (e < 0)
		return e;
	fd = dw_open_regular(path);
	if (fd < 0)
		return fd == -EINVAL ? -EFTYPE_NOTREG : fd;
	if (fstat(fd, &sb) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	t->tid = bt->tid;
	t->len = (size_t)replay_sums_readable(&bt->state_check, (uint64_t)sb.st_size);
	if (t->len) {
		void *m = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {         /* a file system that cannot map: read it */
			size_t got = 0;
			ssize_t n = 0;

			t->data = t->owned = malloc(t->len);
			while (t->data && got < t->len &&
			       (n = pread(fd, t->data + got, t->len - got, (off_t)got)) > 0)
				got += (size_t)n;
			e = !t->data ? -ENOMEM : got != t->len ? -EIO : 0;
		} else {
			t->data = m;
			t->maplen = t->len;
			/* Read in order once, at open; then here and there. */
			madvise(m, t->len, MADV_SEQUENTIAL);
		}
	} else {
		t->data = (uint8_t *)"";
	}
	close(fd);
	return e;
}

static int cmp_write(const void *a, const void *b)
{
	const struct mwrite *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_page(const void *a, const void *b)
{
	const struct pageref *x = a, *y = b;

	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->w < y->w ? -1 : x->w > y->w;
}

static int cmp_mref(const void *a, const void *b)
{
	const struct mref *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->thread != y->thread ? (x->thread < y->thread ? -1 : 1) :
	       x->ck < y->ck ? -1 : x->ck > y->ck;
}

/* A mapping record over more pages than this is not indexed by page (a
 * 16 TiB reservation, say, would take 4G page refs): reads look at each
 * such record. They are few: large mmaps, munmaps and brk. */
#define MAP_BIG_PAGES 4096

static uint64_t map_pages(const struct mwrite *w)
{
	return w->len ? ((w->addr + w->len - 1) >> PAGE_SHIFT) - (w->addr >> PAGE_SHIFT) + 1 : 0;
}

/* Sorts the mapping records by time and indexes them by page. */
static int index_maps(struct replay_state *st)
{
	size_t n = 0, k = 0, nbig = 0;

	if (st->nw)
		qsort(st->w, st->nw, sizeof(*st->w), cmp_write);
	st->nexec = st->nvol = 0;
	for (size_t i = 0; i < st->nw; i++) {
		const struct mwrite *w = &st->w[i];

		if (w->kind == 16 + REPLAY_STATE_MAP_ALL)
			st->nexec++;
		if (w->kind == 16 + REPLAY_STATE_MAP_VOLATILE)
			st->nvol++;
		if (w->kind == 16 + REPLAY_STATE_MAP_ALL)
			continue;
		if (map_pages(w) > MAP_BIG_PAGES)
			nbig++;
		else
			n += map_pages(w);
	}
	free(st->pr);
	free(st->big);
	free(st->execs);
	free(st->vol);
	st->pr = malloc((n ? n : 1) * sizeof(*st->pr));
	st->big = malloc((nbig ? nbig : 1) * sizeof(*st->big));
	st->execs = malloc((st->nexec ? st->nexec : 1) * sizeof(*st->execs));
	st->vol = malloc((st->nvol ? st->nvol : 1) * sizeof(*st->vol));
	if (!st->pr || !st->big || !st->execs || !st->vol)
		return -ENOMEM;
	st->nexec = 0;
	st->nvol = 0;
	st->nbig = 0;
	for (size_t i = 0; i < st->nw; i++) {
		const struct mwrite *w = &st->w[i];

		if (w->kind == 16 + REPLAY_STATE_MAP_ALL) {
			st->execs[st->nexec++] = w->time;
			continue;
		}
		if (w->kind == 16 + REPLAY_STATE_MAP_VOLATILE)
			st->vol[st->nvol++] = i;
		if (!w->len)
			continue;
		if (map_pages(w) > MAP_BIG_PAGES) {
			st->big[st->nbig++] = i;
			continue;
		}
		for (uint64_t pg = w->addr >> PAGE_SHIFT; pg <= (w->addr + w->len - 1) >> PAGE_SHIFT; pg++)
			st->pr[k++] = (struct pageref){ pg, i };
	}
	st->npr = k;
	if (k)
		qsort(st->pr, st->npr, sizeof(*st->pr), cmp_page);
	return 0;
}

/* Sorts the chunks' blocks (those from @sorted on are new: sorted and
 * merged with the ones before, already in order) and computes each
 * block's reach. 0 or -ENOMEM. */
static int index_blocks(struct replay_state *st, size_t sorted)
{
	if (st->nmr > sorted)
		qsort(st->mr + sorted, st->nmr - sorted, sizeof(*st->mr), cmp_mref);
	if (sorted && st->nmr > sorted) {
		struct mref *m = malloc(st->nmr * sizeof(*m));
		size_t a = 0, b = sorted, k = 0;

		if (!m)
			return -ENOMEM;
		while (a < sorted || b < st->nmr) {
			bool left = b >= st->nmr ||
				    (a < sorted && cmp_mref(&st->mr[a], &st->mr[b]) <= 0);

			m[k++] = left ? st->mr[a++] : st->mr[b++];
		}
		free(st->mr);
		st->mr = m;
		st->capmr = st->nmr;
	}
	for (size_t i = 0; i < st->nmr; i++) {
		struct mref *r = &st->mr[i];

		r->reach = r->last;
		if (i && r[-1].block == r->block && r[-1].reach > r->reach)
			r->reach = r[-1].reach;
	}
	free(st->bs.v);
	st->bs = (struct bset){ 0 };
	return 0;
}

/* An empty chunk cache of STATE_CACHE_ENTRIES entries, or as many as the
 * environment's HINDSIGHT_STATE_CACHE says (0: off; for measurements), or
 * NULL (no memory: reads parse every chunk they need, as with it off). */
static struct state_cache *cache_new(void)
{
	struct state_cache *c = malloc(sizeof(*c));
	const char *env = getenv("HINDSIGHT_STATE_CACHE");

	if (c)
		state_cache_init(c, env && *env ? strtoul(env, NULL, 10) : STATE_CACHE_ENTRIES);
	return c;
}

static int index_writes(struct replay_state *st)
{
	int r = index_maps(st);

	return r < 0 ? r : index_blocks(st, 0);
}

int replay_state_open(const struct replay_bundle *b, struct replay_state **out, char *err,
		      size_t errsize)
{
	struct replay_state *st = calloc(1, sizeof(*st));
	int e = 0;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->t = calloc(b->nthreads ? b->nthreads : 1, sizeof(*st->t));
	if (!st->t) {
		free(st);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->nthreads && e >= 0; i++) {
		struct sthread *t = &st->t[st->nt];

		if (!b->threads[i].state_file)
			continue;
		st->nt++;
		e = load(b, &b->threads[i], t);
		if (e >= 0)
			e = scan(st, t);
		if (e >= 0 && t->maplen)
			madvise(t->data, t->maplen, MADV_RANDOM);
		if (e < 0 && err)
			snprintf(err, errsize, "%s: %s", b->threads[i].state_file,
				 e == -EINVAL ? "not a state log" :
				 e == -EFTYPE_NOTREG ? "not a regular file" : strerror(-e));
	}
	if (e >= 0 && !st->nt)
		e = -ENOENT;
	st->until = UINT64_MAX;
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].until < st->until)
			st->until = st->t[i].until;
	if (e >= 0)
		e = index_writes(st);
	if (e >= 0)
		st->cache = cache_new();
	if (e < 0) {
		replay_state_free(st);
		return e;
	}
	*out = st;
	return 0;
}

void replay_state_free(struct replay_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nt; i++) {
		if (st->t[i].maplen)
			munmap(st->t[i].data, st->t[i].maplen);
		free(st->t[i].owned);
		free(st->t[i].ck);
		free(st->t[i].tb);
	}
	for (size_t i = 0; i < st->nretired; i++)
		munmap(st->retired[i].p, st->retired[i].len);
	free(st->retired);
	free(st->t);
	free(st->w);
	free(st->pr);
	free(st->big);
	free(st->mr);
	free(st->bs.v);
	free(st->execs);
	free(st->vol);
	if (st->cache)
		state_cache_clear(st->cache);
	free(st->cache);
	free(st);
}

void replay_state_cache_set(struct replay_state *st, size_t entries)
{
	if (!st->cache)
		return;
	state_cache_clear(st->cache);
	state_cache_init(st->cache, entries);
}

void replay_state_cache_drop(struct replay_state *st)
{
	if (st->cache)
		state_cache_clear(st->cache);
}

void replay_state_cache_stats(const struct replay_state *st, uint64_t *hits, uint64_t *misses)
{
	*hits = st->cache ? st->cache->hits : 0;
	*misses = st->cache ? st->cache->misses : 0;
}

/* --- extending ----------------------------------------------------------- */

/* Forgets what thread @ti's last chunk (from its last checkpoint on) gave:
 * its blocks, its mapping records, its checkpoint and the time bases and
 * trust that came with it, to scan it again. */
static void drop_last_chunk(struct replay_state *st, uint32_t ti)
{
	struct sthread *t = &st->t[ti];
	uint32_t ck = (uint32_t)(t->nck - 1);
	size_t off = t->ck[ck].off, k = 0;

	for (size_t i = 0; i < st->nmr; i++)
		if (st->mr[i].thread != ti || st->mr[i].ck != ck)
			st->mr[k++] = st->mr[i];
	st->nmr = k;
	k = 0;
	for (size_t i = 0; i < st->nw; i++)
		if (st->w[i].thread != ti || st->w[i].off < off)
			st->w[k++] = st->w[i];
	st->nw = k;
	t->nck--;
	t->ntb = t->ck_ntb;
	t->known = t->ck_known;
	t->until = t->ck_until;
	t->whole = false;
	t->cur_valid = false;
}

/* Maps thread @t's log again, now @len bytes; the old mapping is kept
 * (retired) for what points into it. 0, -ESTALE (the log is shorter, or
 * was read rather than mapped), -errno. */
static int remap(struct replay_state *st, struct sthread *t, int fd, size_t len)
{
	void *m, *nv;

	if (len < t->len || t->owned || (t->len && !t->maplen))
		return -ESTALE;
	if (len == t->maplen)
		return 0;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	nv = realloc(st->retired, (st->nretired + 1) * sizeof(*st->retired));
	if (!nv) {
		munmap(m, len);
		return -ENOMEM;
	}
	st->retired = nv;
	if (t->maplen) {
		st->retired[st->nretired].p = t->data;
		st->retired[st->nretired++].len = t->maplen;
	}
	t->data = m;
	t->maplen = len;
	return 0;
}

/* Thread @ti's log grown: mapped again, its last chunk forgotten. */
static int reopen_thread(struct replay_state *st, const struct replay_bundle *b,
			 const struct replay_thread *bt, uint32_t ti)
{
	struct sthread *t = &st->t[ti];
	char path[4096];
	struct stat sb;
	int fd, e = replay_bundle_path(b, bt->state_file, path, sizeof(path));

	if (e < 0)
		return e;
	fd = dw_open_regular(path);
	if (fd < 0)
		return fd;
	e = fstat(fd, &sb) < 0 ? -errno : remap(st, t, fd, (size_t)replay_sums_readable(
						       &bt->state_check, (uint64_t)sb.st_size));
	close(fd);
	if (e >= 0)
		drop_last_chunk(st, ti);
	return e;
}

/* ... and scanned again from its last checkpoint. */
static int rescan_thread(struct replay_state *st, uint32_t ti)
{
	struct sthread *t = &st->t[ti];
	struct parser ps = { .p = t->data + t->ck[t->nck].off, .end = t->data + t->maplen,
			     .origin = t->origin, .xs_len = t->xs_len, .v1 = t->v1 };

	t->len = t->maplen;
	return scan_records(st, t, &ps);
}

/* A thread new to the state: its log read whole. */
static int add_thread(struct replay_state *st, const struct replay_bundle *b,
		      const struct replay_thread *bt)
{
	struct sthread *nv = realloc(st->t, (st->nt + 1) * sizeof(*nv));
	int e;

	if (!nv)
		return -ENOMEM;
	st->t = nv;
	memset(&st->t[st->nt], 0, sizeof(st->t[0]));
	st->nt++;
	e = load(b, bt, &st->t[st->nt - 1]);
	return e < 0 ? e : scan(st, &st->t[st->nt - 1]);
}

/* The bundle threads with a state log are st's threads, in order, then
 * new ones: the old ones' count, or -ESTALE. */
static int old_threads(const struct replay_state *st, const struct replay_bundle *b, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < b->nthreads; i++) {
		if (!b->threads[i].state_file)
			continue;
		if (k < st->nt && st->t[k].tid != b->threads[i].tid)
			return -ESTALE;
		k++;
	}
	*n = st->nt;
	return k < st->nt ? -ESTALE : 0;
}

int replay_state_extend(struct replay_state *st, const struct replay_bundle *b)
{
	size_t nold = 0, sorted, nexec = st->nexec, k = 0;
	int e = old_threads(st, b, &nold);

	/* Its keys would stay right (a grown chunk is another key), but the
	 * logs are mapped again: start it empty rather than reason about it. */
	replay_state_cache_drop(st);

	/* First every old thread's last chunk forgotten, so that the blocks
	 * left are in order; then the chunks scanned again, after them. */
	for (size_t i = 0; i < b->nthreads && e >= 0 && k < nold; i++)
		if (b->threads[i].state_file)
			e = reopen_thread(st, b, &b->threads[i], (uint32_t)k++);
	sorted = st->nmr;
	for (size_t i = 0; i < nold && e >= 0; i++)
		e = rescan_thread(st, (uint32_t)i);
	k = 0;
	for (size_t i = 0; i < b->nthreads && e >= 0; i++)
		if (b->threads[i].state_file && k++ >= nold)
			e = add_thread(st, b, &b->threads[i]);
	if (e < 0)
		return e;
	st->until = UINT64_MAX;
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].until < st->until)
			st->until = st->t[i].until;
	e = index_maps(st);
	if (e >= 0)
		e = index_blocks(st, sorted);
	return e < 0 ? e : st->nexec != nexec ? -ESTALE : 0;
}

/* --- registers ------------------------------------------------------- */

static struct sthread *find(struct replay_state *st, int64_t tid)
{
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].tid == tid)
			return &st->t[i];
	return NULL;
}

uint64_t replay_state_last_index(const struct replay_state *st, int64_t tid)
{
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].tid == tid)
			return st->t[i].last_index;
	return 0;
}

void replay_state_set_whole(struct replay_state *st)
{
	for (size_t i = 0; i < st->nt; i++) {
		st->t[i].whole = true;
		st->t[i].known = st->t[i].until = UINT64_MAX;
	}
	st->until = UINT64_MAX;
}

bool replay_state_cut(const struct replay_state *st, int64_t tid, uint64_t *position,
		      uint64_t *time)
{
	for (size_t i = 0; i < st->nt; i++) {
		const struct sthread *t = &st->t[i];

		if (t->tid != tid || t->whole)
			continue;
		*position = t->known;
		*time = t->until;
		return true;
	}
	return false;
}

/* The parser of @t after every record of index <= @target. */
static int redo(struct sthread *t, uint64_t target)
{
	struct parser *ps = &t->cur;
	size_t lo = 0, hi = t->nck;

	while (hi - lo > 1) {              /* the last checkpoint <= target */
		size_t mid = (lo + hi) / 2;

		if (t->ck[mid].index <= target)
			lo = mid;
		else
			hi = mid;
	}
	if (!t->cur_valid || ps->index > target || ps->index < t->ck[lo].index) {
		unsigned kind;

		/* The checkpoint itself whatever its tag's delta says: that is
		 * from the record before it (instructions that changed nothing
		 * the log records leave a delta > 0), and the checkpoint holds
		 * its own index, which is <= target. */
		*ps = (struct parser){ .p = t->data + t->ck[lo].off, .end = t->data + t->len,
				       .origin = t->origin, .xs = t->xs_cur, .xs_len = t->xs_len,
				       .v1 = t->v1 };
		t->cur_valid = false;
		if (head(ps, &kind) <= 0 || kind != REPLAY_STATE_REC_CKPT || body(ps, kind, NULL) < 0)
			return -EINVAL;
		t->cur_valid = true;
	}
	while (ps->p < ps->end) {
		struct parser save = *ps;
		unsigned kind;
		int r = head(ps, &kind);

		if (r < 0 || (r > 0 && ps->index > target)) {
			*ps = save;
			return r < 0 ? -EINVAL : 0;
		}
		if (r == 0 || body(ps, kind, NULL) < 0) {
			t->cur_valid = false;
			return -EINVAL;
		}
	}
	return 0;
}

int replay_state_raw_at(struct replay_state *st, int64_t tid, uint64_t index,
			uint64_t gp[REPLAY_STATE_NGP], uint8_t *xs, size_t *xs_len)
{
	struct sthread *t = find(st, tid);
	int e;

	if (!t || !index)
		return -ENOENT;
	if (index > t->known)
		return -ENODATA;
	e = redo(t, index - 1);
	if (e < 0)
		return e;
	if (gp)
		memcpy(gp, t->cur.gp, sizeof(t->cur.gp));
	if (xs)
		memcpy(xs, t->xs_cur, t->xs_len);
	if (xs_len)
		*xs_len = t->xs_len;
	return 0;
}

/* --- time ---------------------------------------------------------------- */

/* The time base after every record of index <= @index. */
static uint64_t base_of(const struct sthread *t, uint64_t index)
{
	size_t lo = 0, hi = t->ntb;

	while (hi - lo > 1) {              /* the last entry <= index */
		size_t mid = (lo + hi) / 2;

		if (t->tb[mid].index <= index)
			lo = mid;
		else
			hi = mid;
	}
	return t->ntb ? t->tb[lo].base : 0;
}

/* Position @p's time: after instruction p - 1 ran. */
static uint64_t time_of(const struct sthread *t, uint64_t p)
{
	return p - 1 + base_of(t, p - 1);
}

int replay_state_time_at(struct replay_state *st, int64_t tid, uint64_t index, uint64_t *time)
{
	struct sthread *t = find(st, tid);

	if (!t || !index)
		return -ENOENT;
	*time = time_of(t, index);
	return 0;
}

int replay_state_position_at(struct replay_state *st, int64_t tid, uint64_t time,
			     uint64_t *position)
{
	struct sthread *t = find(st, tid);
	uint64_t lo = 1, hi;

	*position = 1;
	if (!t || !t->ntb || time < time_of(t, 1))
		return -ENOENT;
	/* Times grow with positions by at least one each: the answer is at
	 * most time - (the first base) + 1. Largest p with time_of(p) <= time. */
	hi = time - t->tb[0].base + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (time_of(t, mid) <= time)
			lo = mid;
		else
			hi = mid - 1;
	}
	*position = lo;
	return 0;
}

/* --- registers in GDB's form ------------------------------------------- */

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

int replay_state_regs_at(struct replay_state *st, int64_t tid, uint64_t index,
			 struct rsp_regs *out)
{
	uint64_t gp[REPLAY_STATE_NGP];
	struct sthread *t = find(st, tid);
	const uint8_t *xs;
	size_t xl;
	int e = replay_state_raw_at(st, tid, index, gp, NULL, &xl);

	if (e < 0)
		return e;
	xs = t->xs_cur;                    /* current after raw_at */
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (rsp_reg_descs[r].user != RSP_USER_NONE && r != RSP_REG_RIP)
			rsp_regs_set(out, (enum rsp_reg)r, gp[rsp_reg_descs[r].user]);
	if (xl < 576 + 256)
		return 0;
	for (int i = 0; i < 8; i++)
		rsp_regs_set_bytes(out, RSP_REG_ST0 + i, xs + 32 + 16 * i);
	rsp_regs_set(out, RSP_REG_FCTRL, le(xs, 2));
	rsp_regs_set(out, RSP_REG_FSTAT, le(xs + 2, 2));
	rsp_regs_set(out, RSP_REG_FTAG, rsp_ftag_full(xs[4], (uint16_t)le(xs + 2, 2), xs + 32));
	rsp_regs_set(out, RSP_REG_FISEG, (le(xs + 8, 8) >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FIOFF, le(xs + 8, 8) & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOSEG, (le(xs + 16, 8) >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FOOFF, le(xs + 16, 8) & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOP, le(xs + 6, 2) & 0x7ff);
	for (int i = 0; i < 16; i++)
		rsp_regs_set_bytes(out, RSP_REG_XMM0 + i, xs + 160 + 16 * i);
	rsp_regs_set(out, RSP_REG_MXCSR, le(xs + 24, 4));
	for (int i = 0; i < 16; i++) {
		static const uint8_t zero[16];

		/* XSTATE_BV bit 2 clear: ymm in its initial state (zero). */
		rsp_regs_set_bytes(out, RSP_REG_YMM0H + i, (xs[512] & 4) ? xs + 576 + 16 * i : zero);
	}
	return 0;
}

/* --- memory ------------------------------------------------------------ */

/* Whether write @a comes before write @b (cmp_write's order). */
static bool earlier(const struct mwrite *a, const struct mwrite *b)
{
	return cmp_write(a, b) < 0;
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
	 * delta is from the record before it (see redo). */
	if (head(&ps, &kind) <= 0 || kind != REPLAY_STATE_REC_CKPT || body(&ps, kind, NULL) < 0)
		return;
	while (ps.p < ps.end) {
		const uint8_t *at = ps.p;
		struct mwrite w;

		if (head(&ps, &kind) <= 0 || body(&ps, kind, &w) < 0)
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
static void chunk_writes(const struct replay_state *st, const struct mref *r, uint64_t lo,
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

/* The block's refs: [*lo, *hi) in st->mr, and *mid, the first of them
 * whose first write is later than @time. */
static void block_refs(const struct replay_state *st, uint64_t block, uint64_t time, size_t *lo,
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
		    (q->has[i] && earlier(w, &q->best[i]) != q->after))
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

static void pass(const struct replay_state *st, struct query *q)
{
	uint64_t words = words_of(q->lo, q->hi), lim;
	size_t a, m, b, pa, pb, k;

	memset(q->has, 0, (size_t)(q->hi - q->lo));
	block_refs(st, q->lo >> BLOCK_SHIFT, q->time, &a, &m, &b);
	page_refs(st, q->lo >> PAGE_SHIFT, &pa, &pb);
	k = first_after(st, pa, pb, q->time);
	if (!q->after) {
		/* Latest first; a ref whose reach is below the bound, and every
		 * one before it, has nothing later than what was chosen. */
		for (lim = bound(q); m > a && st->mr[m - 1].reach >= lim; m--) {
			if ((st->mr[m - 1].words & words) && st->mr[m - 1].last >= lim) {
				chunk_writes(st, &st->mr[m - 1], q->lo, q->hi, offer, q);
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
		if ((st->mr[j - 1].words & words) && st->mr[j - 1].last > q->time)
			chunk_writes(st, &st->mr[j - 1], q->lo, q->hi, offer, q);
	for (lim = bound(q); m < b && st->mr[m].first <= lim && st->mr[m].first < q->to; m++) {
		if (st->mr[m].words & words) {
			chunk_writes(st, &st->mr[m], q->lo, q->hi, offer, q);
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

/* The exec epoch around @time: writes in (from, to) count. */
static void epoch(const struct replay_state *st, uint64_t time, uint64_t *from, uint64_t *to)
{
	*from = 0;
	*to = UINT64_MAX;
	for (size_t i = 0; i < st->nexec; i++) {
		if (st->execs[i] <= time)
			*from = st->execs[i];
		else if (*to == UINT64_MAX)
			*to = st->execs[i];
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
	epoch(st, time, &from, &to);
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
	if (!s->found || earlier(w, &s->best) == s->after) {
		s->best = *w;
		s->found = true;
	}
}

/* The refs of one block, walked like pass() does; the bound is the one
 * write chosen so far (over every block of the range). */
static void search_block(const struct replay_state *st, struct wsearch *s, uint64_t block)
{
	uint64_t lo = block << BLOCK_SHIFT, hi = lo + BLOCK, words;
	size_t a, m, b;

	if (lo < s->addr)
		lo = s->addr;
	if (hi > s->addr + s->len)
		hi = s->addr + s->len;
	words = words_of(lo, hi);
	block_refs(st, block, s->time, &a, &m, &b);
	if (!s->after) {
		for (; m > a; m--) {
			const struct mref *r = &st->mr[m - 1];
			uint64_t lim = s->found ? s->best.time : s->from;

			if (r->reach < lim)
				break;
			if ((r->words & words) && r->last >= lim)
				chunk_writes(st, r, lo, hi, consider, s);
		}
		return;
	}
	for (size_t j = m; j > a && st->mr[j - 1].reach > s->time; j--)
		if ((st->mr[j - 1].words & words) && st->mr[j - 1].last > s->time)
			chunk_writes(st, &st->mr[j - 1], lo, hi, consider, s);
	for (; m < b && st->mr[m].first < s->to && (!s->found || st->mr[m].first <= s->best.time);
	     m++)
		if (st->mr[m].words & words)
			chunk_writes(st, &st->mr[m], lo, hi, consider, s);
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
	epoch(st, time - 1, &s.from, &s.to);
	return search(st, &s, out);
}

int replay_state_write_after(const struct replay_state *st, uint64_t addr, uint64_t len,
			     uint64_t time, struct replay_state_write *out)
{
	struct wsearch s = { .addr = addr, .len = len, .time = time, .after = true };
	int r;

	if (!len || addr + len < addr)
		return -ENOENT;
	epoch(st, time, &s.from, &s.to);
	r = search(st, &s, out);
	/* A lost write (at or after st->until) may come first. */
	if (st->until != UINT64_MAX && (r < 0 || out->time >= st->until))
		return -ENODATA;
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
