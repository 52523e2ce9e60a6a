/*
 * replay/decode/cursor.c: positions, steps and scans over one thread's history
 * (see cursor.h).
 *
 * Segments: the history splits at the index's PSB entries; segment s is
 * decoded from its PSB (or from the start of the trace for the items before
 * the first entry). The window holds the addresses of the items of one
 * segment (or of a REPLAY_CURSOR_WINDOW_MAX slice of a longer one), a gap
 * as GAP_IP. Scans go block by block; a block's addresses are fetched only
 * when the window needs them or a breakpoint lies in its address range.
 * The interrupt flag is read before each block a scan decodes: one load
 * next to a libipt block decode, too little to show in the scan rate.
 */
#include "replay/decode/cursor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/decode/block_cache.h"
#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/decode/insn.h"

#define GAP_IP UINT64_MAX

struct replay_cursor {
	const struct replay_bundle *b;
	struct replay_index idx;
	struct replay_decoder *d;
	struct replay_block_cache *cache;
	uint64_t pos, size;
	bool have_end_pc;
	uint64_t end_pc;
	/* the window: items [wfirst, wfirst + wn) */
	uint64_t wfirst;
	size_t wn, wcap;
	uint64_t *wip;
	/* a block being walked */
	uint64_t *tmp;
	size_t tmpcap;
	uint64_t scanned;
	const volatile sig_atomic_t *interrupt;
};

/* ---- breakpoints ------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t replay_cursor_breaks_sort(uint64_t *addrs, size_t n)
{
	size_t k = 0;

	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || addrs[k - 1] != addrs[i])
			addrs[k++] = addrs[i];
	return k;
}

/* The first breakpoint >= @addr, as an index into bps->addrs. */
static size_t breaks_lower(const struct replay_cursor_breaks *bps, uint64_t addr)
{
	size_t lo = 0, hi = bps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bps->addrs[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool breaks_has(const struct replay_cursor_breaks *bps, uint64_t addr)
{
	size_t i;

	if (!bps || !bps->n)
		return false;
	i = breaks_lower(bps, addr);
	return i < bps->n && bps->addrs[i] == addr;
}

static bool breaks_overlap(const struct replay_cursor_breaks *bps, uint64_t lo, uint64_t hi)
{
	size_t i;

	if (!bps || !bps->n)
		return false;
	i = breaks_lower(bps, lo);
	return i < bps->n && bps->addrs[i] <= hi;
}

/* ---- segments --------------------------------------------------------- */

/* Items before the first PSB entry form a segment of their own. */
static size_t has_pre(const struct replay_cursor *c)
{
	return !c->idx.nentries || c->idx.entries[0].index > 1;
}

static void seg_bounds(const struct replay_cursor *c, size_t s, uint64_t *start, uint64_t *end)
{
	const struct replay_index_entry *e = c->idx.entries;
	size_t pre = has_pre(c), k;

	if (pre && s == 0) {
		*start = 1;
		*end = c->idx.nentries ? e[0].index : c->size + 1;
		return;
	}
	k = s - pre;
	*start = e[k].index;
	*end = k + 1 < c->idx.nentries ? e[k + 1].index : c->size + 1;
}

/* The segment holding item @n (1 .. size). */
static size_t seg_of(const struct replay_cursor *c, uint64_t n)
{
	const struct replay_index_entry *e = c->idx.entries;
	size_t lo = 0, hi = c->idx.nentries;

	if (!hi || e[0].index > n)
		return 0;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].index <= n)
			lo = mid;
		else
			hi = mid;
	}
	return lo + has_pre(c);
}

static int seg_seek(struct replay_cursor *c, size_t s)
{
	size_t pre = has_pre(c);

	if (pre && s == 0)
		return replay_decoder_rewind(c->d);
	return replay_decoder_seek(c->d, c->idx.entries[s - pre].offset,
				   c->idx.entries[s - pre].index);
}

/* ---- blocks ----------------------------------------------------------- */

/* The addresses of the block @ch the decoder just returned: from the cache,
 * or walked now. Must come before the next chunk is read. */
static int block_ips(struct replay_cursor *c, const struct replay_chunk *ch,
		     struct replay_block *blk)
{
	struct replay_item it;

	if (replay_block_cache_find(c->cache, ch->ip, ch->ninsn, ch->isid, blk) == 0)
		return 0;
	if (ch->ninsn > c->tmpcap) {
		uint64_t *n = realloc(c->tmp, ch->ninsn * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->tmp = n;
		c->tmpcap = ch->ninsn;
	}
	for (uint64_t i = 0; i < ch->ninsn; i++) {
		int rc = replay_decoder_next(c->d, &it);

		if (rc < 0)
			return rc;
		c->tmp[i] = rc == 1 && it.kind == REPLAY_ITEM_INSN ? it.insn.ip : GAP_IP;
	}
	return replay_block_cache_add(c->cache, ch->ip, ch->ninsn, ch->isid, c->tmp, blk);
}

/* ---- the window ------------------------------------------------------- */

static int window_fill(struct replay_cursor *c, size_t s, uint64_t ws, uint64_t we)
{
	struct replay_chunk ch;
	struct replay_block blk;
	int rc;

	if (we - ws > c->wcap) {
		uint64_t *n = realloc(c->wip, (we - ws) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->wip = n;
		c->wcap = we - ws;
	}
	c->wn = 0;
	for (uint64_t i = 0; i < we - ws; i++)
		c->wip[i] = GAP_IP;
	rc = seg_seek(c, s);
	while (rc >= 0 && (rc = replay_decoder_next_chunk(c->d, &ch)) > 0 && ch.index < we) {
		uint64_t a = ch.index > ws ? ch.index : ws, z = ch.index + ch.ninsn;

		if (ch.gap || z <= ws)
			continue;
		z = z < we ? z : we;
		rc = block_ips(c, &ch, &blk);
		if (rc == 0)
			memcpy(c->wip + (a - ws), blk.ips + (a - ch.index), (z - a) * sizeof(uint64_t));
	}
	if (rc < 0)
		return rc;
	c->wfirst = ws;
	c->wn = we - ws;
	return 0;
}

/* Makes the window hold item @n (1 .. size). */
static int window_at(struct replay_cursor *c, uint64_t n)
{
	uint64_t ss, se, ws, we;
	size_t s;

	if (n >= c->wfirst && n < c->wfirst + c->wn)
		return 0;
	s = seg_of(c, n);
	seg_bounds(c, s, &ss, &se);
	ws = ss + (n - ss) / REPLAY_CURSOR_WINDOW_MAX * REPLAY_CURSOR_WINDOW_MAX;
	we = ws + REPLAY_CURSOR_WINDOW_MAX < se ? ws + REPLAY_CURSOR_WINDOW_MAX : se;
	return window_fill(c, s, ws, we);
}

/* Item @n's address or GAP_IP into *@ip. 0 or < 0. */
static int item(struct replay_cursor *c, uint64_t n, uint64_t *ip)
{
	int rc = window_at(c, n);

	if (rc < 0)
		return rc;
	*ip = c->wip[n - c->wfirst];
	return 0;
}

/* ---- lifetime and queries --------------------------------------------- */

static int find_end_pc(struct replay_cursor *c)
{
	struct replay_item it;
	int rc;

	if (!c->size)
		return 0;
	rc = replay_index_seek(&c->idx, c->d, c->size);
	if (rc < 0)
		return rc;
	rc = replay_decoder_next(c->d, &it);
	if (rc == 1 && it.kind == REPLAY_ITEM_INSN && it.insn.size) {
		struct replay_item more;
		uint64_t ip;

		/* Where the trace says the thread stopped (its disable after
		 * the last instruction), else where the last instruction leads
		 * when that does not depend on the trace; else unknown. */
		if (replay_decoder_next(c->d, &more) == 0 &&
		    replay_decoder_resume_ip(c->d, &ip) == 0) {
			c->have_end_pc = true;
			c->end_pc = ip;
		} else if (it.insn.kind == REPLAY_INSN_OTHER || it.insn.kind == REPLAY_INSN_FAR ||
			   ((it.insn.kind == REPLAY_INSN_JUMP || it.insn.kind == REPLAY_INSN_CALL) &&
			    it.insn.direct)) {
			c->have_end_pc = true;
			c->end_pc = replay_insn_next_ip(&it.insn);
		}
	}
	return rc < 0 ? rc : 0;
}

int replay_cursor_new(const struct replay_bundle *b, size_t thread, replay_progress_fn progress,
		      void *ctx, struct replay_cursor **out)
{
	struct replay_cursor *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	c->b = b;
	rc = replay_index_build(&c->idx, b, thread, progress, ctx);
	if (!rc)
		rc = replay_decoder_new(b, thread, &c->d);
	if (!rc)
		rc = replay_block_cache_new(&c->cache);
	c->size = c->idx.nitems;
	c->pos = c->size + 1;
	if (!rc)
		rc = find_end_pc(c);
	if (rc < 0) {
		replay_cursor_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int replay_cursor_extend(struct replay_cursor *c, const struct replay_bundle *b, size_t thread)
{
	struct replay_block_cache *cache = NULL;
	struct replay_decoder *d = NULL;
	int rc = replay_index_extend(&c->idx, b, thread, NULL, NULL);

	if (!rc)
		rc = replay_decoder_new(b, thread, &d);
	if (!rc)
		rc = replay_block_cache_new(&cache);
	if (rc < 0) {
		replay_decoder_free(d);
		return rc;
	}
	replay_decoder_free(c->d);
	replay_block_cache_free(c->cache);
	c->d = d;
	c->cache = cache;
	c->b = b;
	c->size = c->idx.nitems;
	c->pos = c->size + 1;
	c->wfirst = 0;
	c->wn = 0;
	c->have_end_pc = false;
	c->end_pc = 0;
	return find_end_pc(c);
}

void replay_cursor_free(struct replay_cursor *c)
{
	if (!c)
		return;
	replay_index_release(&c->idx);
	replay_decoder_free(c->d);
	replay_block_cache_free(c->cache);
	free(c->wip);
	free(c->tmp);
	free(c);
}

uint64_t replay_cursor_position(const struct replay_cursor *c)
{
	return c->pos;
}

uint64_t replay_cursor_size(const struct replay_cursor *c)
{
	return c->size;
}

const struct replay_index *replay_cursor_index(const struct replay_cursor *c)
{
	return &c->idx;
}

uint64_t replay_cursor_scanned(const struct replay_cursor *c)
{
	return c->scanned;
}

void replay_cursor_set_interrupt(struct replay_cursor *c, const volatile sig_atomic_t *flag)
{
	c->interrupt = flag;
}

static bool interrupted(const struct replay_cursor *c)
{
	return c->interrupt && *c->interrupt;
}

int replay_cursor_item_ip(struct replay_cursor *c, uint64_t n, uint64_t *ip)
{
	uint64_t v;
	int rc;

	if (n < 1 || n > c->size)
		return -ENOENT;
	rc = item(c, n, &v);
	if (rc < 0)
		return rc;
	if (v == GAP_IP)
		return -ENODATA;
	*ip = v;
	return 0;
}

int replay_cursor_pc(struct replay_cursor *c, uint64_t *pc)
{
	if (c->pos > c->size) {
		if (!c->have_end_pc)
			return -ENODATA;
		*pc = c->end_pc;
		return 0;
	}
	return replay_cursor_item_ip(c, c->pos, pc);
}

int replay_cursor_goto(struct replay_cursor *c, uint64_t n)
{
	uint64_t ip;
	int rc;

	if (n < 1 || n > c->size + 1)
		return -ENOENT;
	if (n <= c->size) {
		rc = item(c, n, &ip);
		if (rc < 0)
			return rc;
	}
	c->pos = n;
	return 0;
}

/* ---- stepping --------------------------------------------------------- */

/* The next non-gap position after @from, or size + 1; *@crossed says
 * whether a gap was passed. */
static int next_insn(struct replay_cursor *c, uint64_t from, uint64_t *to, bool *crossed)
{
	uint64_t n = from + 1, ip;
	int rc;

	*crossed = false;
	for (; n <= c->size; n++) {
		rc = item(c, n, &ip);
		if (rc < 0)
			return rc;
		if (ip != GAP_IP)
			break;
		*crossed = true;
	}
	*to = n;
	return 0;
}

int replay_cursor_step(struct replay_cursor *c, enum replay_cursor_dir dir)
{
	uint64_t n, ip;
	bool crossed;
	int rc;

	if (dir == REPLAY_FORWARD) {
		if (c->pos > c->size)
			return REPLAY_CURSOR_END;
		rc = next_insn(c, c->pos, &n, &crossed);
		if (rc < 0)
			return rc;
		c->pos = n;
		return n > c->size ? REPLAY_CURSOR_END : REPLAY_CURSOR_STEP;
	}
	for (n = c->pos - 1; n >= 1; n--) {
		rc = item(c, n, &ip);
		if (rc < 0)
			return rc;
		if (ip != GAP_IP) {
			c->pos = n;
			return REPLAY_CURSOR_STEP;
		}
	}
	return REPLAY_CURSOR_BEGIN;
}

int replay_cursor_range_step(struct replay_cursor *c, uint64_t start, uint64_t end,
			     const struct replay_cursor_breaks *bps)
{
	uint64_t n, ip;
	bool crossed;
	int rc;

	for (;;) {
		if (c->pos > c->size)
			return REPLAY_CURSOR_END;
		rc = next_insn(c, c->pos, &n, &crossed);
		if (rc < 0)
			return rc;
		c->pos = n;
		if (n > c->size)
			return REPLAY_CURSOR_END;
		if (crossed)
			return REPLAY_CURSOR_GAP;
		rc = item(c, n, &ip);
		if (rc < 0)
			return rc;
		if (breaks_has(bps, ip))
			return REPLAY_CURSOR_BREAK;
		if (ip < start || ip >= end)
			return REPLAY_CURSOR_STEP;
		if (interrupted(c))
			return REPLAY_CURSOR_INTERRUPTED;
	}
}

/* ---- scanning --------------------------------------------------------- */

/* What a scan of items [lo, hi) found: the first and last breakpoint hits
 * and gaps (0: none); when interrupted, where it stopped. */
struct scan {
	uint64_t first_hit, last_hit, first_gap, last_gap;
	uint64_t cut;              /* interrupted: the first item not looked at */
	bool stop_at_first;        /* forward: done at the first hit or gap */
};

static void scan_note(uint64_t *first, uint64_t *last, uint64_t n)
{
	if (!*first)
		*first = n;
	*last = n;
}

static int scan_block(struct replay_cursor *c, const struct replay_chunk *ch,
		      const struct replay_cursor_breaks *bps, uint64_t lo, uint64_t hi,
		      struct scan *sc)
{
	struct replay_block blk;
	uint64_t a = ch->index > lo ? ch->index : lo;
	uint64_t z = ch->index + ch->ninsn < hi ? ch->index + ch->ninsn : hi;
	int rc;

	rc = block_ips(c, ch, &blk);
	if (rc < 0 || !breaks_overlap(bps, blk.lo, blk.hi))
		return rc;
	for (uint64_t n = a; n < z; n++) {
		if (!breaks_has(bps, blk.ips[n - ch->index]))
			continue;
		scan_note(&sc->first_hit, &sc->last_hit, n);
		if (sc->stop_at_first)
			break;
	}
	return 0;
}

/* Scans items [lo, hi), decoding from segment @s on. 0; 1 when the
 * interrupt flag was seen before a block (sc->cut); < 0. */
static int scan_range(struct replay_cursor *c, size_t s, uint64_t lo, uint64_t hi,
		      const struct replay_cursor_breaks *bps, struct scan *sc)
{
	struct replay_chunk ch;
	int rc = seg_seek(c, s);

	c->wn = 0; /* the decoder moves: the window is rebuilt on demand */
	while (rc >= 0 && (rc = replay_decoder_next_chunk(c->d, &ch)) > 0 && ch.index < hi) {
		uint64_t end = ch.index + (ch.gap ? 1 : ch.ninsn);

		rc = 0;
		if (interrupted(c)) {
			sc->cut = ch.index > lo ? ch.index : lo;
			return 1;
		}
		if (end <= lo)
			continue;
		c->scanned += end - (ch.index > lo ? ch.index : lo);
		if (ch.gap)
			scan_note(&sc->first_gap, &sc->last_gap, ch.index);
		else
			rc = scan_block(c, &ch, bps, lo, hi, sc);
		if (rc < 0)
			return rc;
		if (sc->stop_at_first && (sc->first_hit || sc->first_gap))
			return 0;
	}
	return rc < 0 ? rc : 0;
}

static int continue_forward(struct replay_cursor *c, const struct replay_cursor_breaks *bps)
{
	struct scan sc = { .stop_at_first = true };
	uint64_t lo = c->pos + 1;
	int rc;

	if (c->pos > c->size)
		return REPLAY_CURSOR_END;
	if (lo <= c->size) {
		rc = scan_range(c, seg_of(c, lo), lo, c->size + 1, bps, &sc);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			/* The last instruction looked at: what follows is not. */
			if (sc.cut > lo)
				c->pos = sc.cut - 1;
			return REPLAY_CURSOR_INTERRUPTED;
		}
	}
	if (sc.first_hit && (!sc.first_gap || sc.first_hit < sc.first_gap)) {
		c->pos = sc.first_hit;
		return REPLAY_CURSOR_BREAK;
	}
	if (sc.first_gap && sc.first_gap < c->size) {
		bool crossed;

		rc = next_insn(c, sc.first_gap, &c->pos, &crossed);
		if (rc < 0)
			return rc;
		return c->pos > c->size ? REPLAY_CURSOR_END : REPLAY_CURSOR_GAP;
	}
	c->pos = c->size + 1;
	return REPLAY_CURSOR_END;
}

/* Backward, interrupted with items [@from, pos) scanned and nothing in
 * them to stop at: to the first instruction at or after @from. */
static int back_interrupted(struct replay_cursor *c, uint64_t from)
{
	uint64_t n;
	bool crossed;
	int rc;

	if (from < c->pos) {
		rc = next_insn(c, from - 1, &n, &crossed);
		if (rc < 0)
			return rc;
		if (n < c->pos)
			c->pos = n;
	}
	return REPLAY_CURSOR_INTERRUPTED;
}

static int continue_backward(struct replay_cursor *c, const struct replay_cursor_breaks *bps)
{
	uint64_t hi = c->pos, ss, se;
	size_t s;
	int rc;

	if (c->pos <= 1)
		return REPLAY_CURSOR_BEGIN;
	s = seg_of(c, c->pos - 1);
	for (;;) {
		struct scan sc = { 0 };

		seg_bounds(c, s, &ss, &se);
		rc = scan_range(c, s, ss, se < hi ? se : hi, bps, &sc);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return back_interrupted(c, hi);
		/* A gap right behind the position is crossed. */
		if (sc.last_gap && sc.last_gap + 1 >= c->pos)
			sc.last_gap = 0;
		if (sc.last_hit && sc.last_hit > sc.last_gap) {
			c->pos = sc.last_hit;
			return REPLAY_CURSOR_BREAK;
		}
		if (sc.last_gap) {
			c->pos = sc.last_gap + 1;
			return REPLAY_CURSOR_GAP;
		}
		if (s == 0)
			break;
		s--;
		hi = ss;
	}
	c->pos = 1;
	return REPLAY_CURSOR_BEGIN;
}

int replay_cursor_continue(struct replay_cursor *c, enum replay_cursor_dir dir,
			   const struct replay_cursor_breaks *bps)
{
	c->scanned = 0;
	return dir == REPLAY_FORWARD ? continue_forward(c, bps) : continue_backward(c, bps);
}
