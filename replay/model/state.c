/*
 * replay/model/state.c: the state log reader, its logs opened, scanned
 * and indexed (replay_state_open), and scanned again as they grow
 * (replay_state_extend).
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
 *
 * The reader's files share its structures through
 * replay/model/state_int.h, and each calls only the ones below it:
 * this one builds the index; state_regs.c (registers at a position),
 * state_time.c (times and positions, how far a log is whole), state_mem.c
 * (memory at a time) and state_write.c (the write searches) answer from
 * it; state_chunk.c (a chunk's writes to a block, decoded and kept in
 * state_cache.c), state_map.c (the mapping records, exec epochs) and
 * state_parse.c (a record at a time) serve them.
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
#include "replay/model/bundle.h"
#include "replay/model/state_cache.h"
#include "replay/model/state_int.h"


/* --- opening ---------------------------------------------------------- */

/* A REGS record's body, its values skipped unread: a varint for each bit
 * of the mask (a loop over the bits, not a popcount: without -mpopcnt
 * that is a call into libgcc, a tenth of the time opening a log took). */
static int skip_regs(struct parser *ps)
{
	uint64_t mask;

	if (replay_state_get_varint(&ps->p, ps->end, &mask) < 0)
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

static int bset_grow(struct bset *bs)
{
	size_t cap = bs->cap ? 2 * bs->cap : 64;
	struct mref *nv = calloc(cap, sizeof(*nv));
	uint8_t (*nb)[64] = calloc(cap, sizeof(*nb));

	if (!nv || !nb) {
		free(nv);
		free(nb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < bs->cap; i++) {
		size_t h;

		if (!bs->v[i].words)
			continue;
		for (h = (bs->v[i].block * 0x9E3779B97F4A7C15ull) >> 20 & (cap - 1); nv[h].words;
		     h = (h + 1) & (cap - 1))
			;
		nv[h] = bs->v[i];
		memcpy(nb[h], bs->bytes[i], sizeof(nb[h]));
	}
	free(bs->v);
	free(bs->bytes);
	bs->v = nv;
	bs->bytes = nb;
	bs->cap = cap;
	return 0;
}

/* The bytes [@a, @b) of one word (a < b, both inside it) into @bytes. */
static void word_bytes(uint8_t bytes[64], uint64_t a, uint64_t b)
{
	unsigned w = (unsigned)(a & (BLOCK - 1)) >> 3, lo = a & 7, n = (unsigned)(b - a);

	bytes[w] |= (uint8_t)(((1u << n) - 1) << lo);
}

/* A MEM record of the chunk being scanned (thread @ti, checkpoint @ck).
 * While the chunk is scanned, a slot's `partial` holds the words some
 * write covered whole, and its bytes those of the others (bset_flush). */
static int bset_add(struct bset *bs, const struct mwrite *w, uint32_t ti, uint32_t ck)
{
	for (uint64_t x = w->addr; x < w->addr + w->len;) {
		uint64_t blk = x >> BLOCK_SHIFT, end = (blk + 1) << BLOCK_SHIFT;
		uint64_t in_lo, in_hi;     /* the words [x, end) covers whole */
		size_t h;

		if (end > w->addr + w->len || end == 0)
			end = w->addr + w->len;
		in_lo = (x + 7) & ~7ull;
		in_hi = end & ~7ull;
		if (2 * (bs->n + 1) > bs->cap && bset_grow(bs) < 0)
			return -ENOMEM;
		for (h = (blk * 0x9E3779B97F4A7C15ull) >> 20 & (bs->cap - 1);
		     bs->v[h].words && bs->v[h].block != blk; h = (h + 1) & (bs->cap - 1))
			;
		if (!bs->v[h].words) {
			bs->v[h] = (struct mref){ .block = blk, .first = w->time, .thread = ti,
						  .ck = ck };
			memset(bs->bytes[h], 0, sizeof(bs->bytes[h]));
			bs->n++;
		}
		bs->v[h].last = w->time;
		bs->v[h].words |= state_words_of(x, end);
		if (in_lo < in_hi)
			bs->v[h].partial |= state_words_of(in_lo, in_hi);
		if (in_lo > in_hi) {               /* inside one word */
			word_bytes(bs->bytes[h], x, end);
		} else {
			if (x < in_lo)
				word_bytes(bs->bytes[h], x, in_lo);
			if (in_hi < end)
				word_bytes(bs->bytes[h], in_hi, end);
		}
		x = end;
	}
	return 0;
}

/* @r's partly written words (@bytes: the slot's): their bytes appended to st->pm, and
 * its `partial` made what struct mref says. */
static int bset_partial(struct replay_state *st, struct mref *r, const uint8_t bytes[64])
{
	uint64_t part = r->words & ~r->partial;

	for (uint64_t m = part; m; m &= m - 1)
		if (bytes[__builtin_ctzll(m)] == 0xff)
			part &= ~(m & -m);             /* covered whole, a piece at a time */
	r->partial = part;
	r->pm = (uint32_t)st->npm;
	if (!part)
		return 0;
	if (st->npm + 64 > st->cappm) {
		size_t cap = st->cappm ? st->cappm : 4096;
		uint8_t *nv;

		while (cap < st->npm + 64)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -EOVERFLOW;
		nv = realloc(st->pm, cap);
		if (!nv)
			return -ENOMEM;
		st->pm = nv;
		st->cappm = cap;
	}
	for (uint64_t m = part; m; m &= m - 1)
		st->pm[st->npm++] = bytes[__builtin_ctzll(m)];
	return 0;
}

/* The chunk's blocks into st->mr; the set emptied for the next chunk. */
static int bset_flush(struct replay_state *st)
{
	struct bset *bs = &st->bs;
	int r = 0;

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
	for (size_t i = 0; i < bs->cap && bs->n && r == 0; i++) {
		if (!bs->v[i].words)
			continue;
		st->mr[st->nmr] = bs->v[i];
		r = bset_partial(st, &st->mr[st->nmr++], bs->bytes[i]);
		bs->v[i].words = 0;
		bs->n--;
	}
	if (r == 0 && bs->cap > 4096) {    /* a huge write passed: start small again */
		free(bs->v);
		free(bs->bytes);
		*bs = (struct bset){ 0 };
	}
	return r;
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

		if (state_parse_head(&ps, &kind) <= 0)
			break;             /* the end, or a truncated tail */
		/* REGS, the most common record: its values are not needed here. */
		if (kind == REPLAY_STATE_REC_REGS ? skip_regs(&ps) < 0 :
						    state_parse_body(&ps, kind, &w) < 0) {
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
	struct parser ps;
	int e = state_parse_start(t, &ps);

	return e < 0 ? e : scan_records(st, t, &ps);
}


/* load's error for a state log that is a FIFO, a device, a socket
 * (dw_open_regular's -EINVAL, which here would read as "not a state log"). */
#define EFTYPE_NOTREG EBADFD

/* Thread @bt's log mapped into @t: 0, 1 for a file of no bytes, or -errno.
 * No bytes is a thread that has not run an instruction (a recorder starts
 * a thread's log at its first step: one created while only another thread
 * was let run): it has no state, and the callers leave it out as they do
 * a thread without a log. (One its checksums say was longer, or of a
 * thread the manifest counts instructions of, is damage: read as ever, it
 * is not a state log.) */
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
	return e < 0 ? e : sb.st_size == 0 && !bt->state_check.cut && !bt->instructions;
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
		qsort(st->w, st->nw, sizeof(*st->w), state_write_cmp);
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
	free(st->bs.bytes);
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

/* What opening @file failed of, into @err. */
static void say_log(char *err, size_t errsize, const char *file, int e)
{
	if (err)
		snprintf(err, errsize, "%s: %s", file, e == -EINVAL ? "not a state log" :
			 e == -EFTYPE_NOTREG ? "not a regular file" : strerror(-e));
}

/* Every thread's log scanned. */
static int scan_all(struct replay_state *st, const struct replay_bundle *b, char *err,
		    size_t errsize)
{
	int e = 0;

	for (size_t k = 0; k < st->nt && e >= 0; k++) {
		e = scan_records(st, &st->t[k], &st->t[k].cur);
		if (e < 0)
			say_log(err, errsize, b->threads[st->t[k].bi].state_file, e);
	}
	return e;
}

/* Whether every log is mapped whole (the kept index is only for those). */
static bool all_mapped(const struct replay_state *st)
{
	for (size_t i = 0; i < st->nt; i++)
		if (!st->t[i].maplen || st->t[i].maplen != st->t[i].len)
			return false;
	return true;
}

static bool has_logs(const struct replay_bundle *b)
{
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].state_file)
			return true;
	return false;
}

int replay_state_open(const struct replay_bundle *b, struct replay_state **out, char *err,
		      size_t errsize)
{
	struct replay_state *st = calloc(1, sizeof(*st));
	char kpath[4200];
	uint64_t key = 0;
	bool keep = false, kept = false;
	int e = 0;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->t = calloc(b->nthreads ? b->nthreads : 1, sizeof(*st->t));
	if (!st->t) {
		free(st);
		return -ENOMEM;
	}
	/* Every log mapped and its header read (its first record: in cur,
	 * where scan_all starts). */
	for (size_t i = 0; i < b->nthreads && e >= 0; i++) {
		struct sthread *t = &st->t[st->nt];

		if (!b->threads[i].state_file)
			continue;
		st->nt++;
		t->bi = i;
		e = load(b, &b->threads[i], t);
		if (e == 1) {
			st->nt--;          /* never ran (see load) */
			e = 0;
			continue;
		}
		if (e >= 0)
			e = state_parse_start(t, &t->cur);
		if (e < 0)
			say_log(err, errsize, b->threads[i].state_file, e);
	}
	/* None at all is no state log; logs with nothing in them yet (no
	 * thread has run) are a state that knows nothing yet, to be extended. */
	if (e >= 0 && !st->nt && !has_logs(b))
		e = -ENOENT;
	if (e >= 0 && st->nt && all_mapped(st) &&
	    (keep = state_kept_where(b, kpath, sizeof(kpath), &key))) {
		e = state_kept_load(st, kpath, key);
		kept = e == 0;
		if (e == -ENOENT || e == -EINVAL)
			e = 0;     /* none, or one that does not fit: scan */
	}
	if (e >= 0 && !kept)
		e = scan_all(st, b, err, errsize);
	for (size_t i = 0; i < st->nt; i++) {
		if (st->t[i].maplen)
			madvise(st->t[i].data, st->t[i].maplen, MADV_RANDOM);
		st->t[i].cur = (struct parser){ 0 };
	}
	st->until = UINT64_MAX;
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].until < st->until)
			st->until = st->t[i].until;
	if (e >= 0)
		e = kept ? index_maps(st) : index_writes(st);
	if (e >= 0 && keep && !kept)
		state_kept_save(st, kpath, key);
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
	free(st->pm);
	free(st->bs.v);
	free(st->bs.bytes);
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
static int add_thread(struct replay_state *st, const struct replay_bundle *b, size_t bi)
{
	const struct replay_thread *bt = &b->threads[bi];
	struct sthread *nv = realloc(st->t, (st->nt + 1) * sizeof(*nv));
	int e;

	if (!nv)
		return -ENOMEM;
	st->t = nv;
	memset(&st->t[st->nt], 0, sizeof(st->t[0]));
	st->nt++;
	st->t[st->nt - 1].bi = bi;
	e = load(b, bt, &st->t[st->nt - 1]);
	if (e == 1) {
		st->nt--;                  /* not run yet (see load) */
		return 0;
	}
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
			e = add_thread(st, b, i);
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
