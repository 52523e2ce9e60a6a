/*
 * replay/state.c: the state log reader.
 *
 * Each log is parsed once at open: its checkpoints (file offset, index),
 * the points where its time base changes (index, base) and every memory
 * record (time, thread, index, range, where its bytes are) go into
 * tables; memory records of all threads are then sorted by time and
 * indexed by page, each page's references in time order, so the writes
 * around a time are found by binary search. Registers are redone from a
 * checkpoint by parsing forward (a cursor per thread remembers the last
 * answer); times and positions map to each other through the base table.
 * The format is docs/bundle.md's; the writer is stub/stub_rec_state.c.
 */
#include "replay/state.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "protocol/rsp_ftag.h"
#include "replay/bundle.h"

enum {
	K_REGS = 1, K_XSTATE = 2, K_MEM = 3, K_MAP = 4, K_TIME = 5, K_CKPT = 6,
};
enum { M_UNKNOWN = 0, M_ZERO = 1, M_GONE = 2, M_VOLATILE = 3, M_ALL = 4 };

#define PAGE_SHIFT 12

/* The mask order of REGS records (user_regs_struct slots; no rip). */
static const uint8_t slots[] = {
	18, 10, 11, 12, 19, 13, 14, 5, 4, 9, 8, 7, 6, 3, 2, 1, 0,
	15, 21, 22, 17, 20, 23, 24, 25, 26,
};

struct parser {
	const uint8_t *p, *end;
	uint64_t index, base, mem_end;
	uint64_t origin;           /* the log's first checkpoint index (below) */
	uint64_t gp[REPLAY_STATE_NGP];
	uint8_t *xs;               /* NULL: XSTATE records are skipped */
	size_t xs_len;
};

struct ckpt {
	uint64_t index;
	size_t off;                /* of the CKPT record */
};

struct mwrite {
	uint64_t time, addr, len;
	uint64_t index;            /* of the record in its thread's log */
	const uint8_t *old;        /* MEM: old bytes, then len new bytes */
	uint8_t kind;              /* K_MEM, or M_* + 16 for MAP */
	uint32_t thread;           /* into replay_state.t */
	uint32_t seq;
};

/* From @index on (until the next entry), time = index + base. */
struct tbase {
	uint64_t index, base;
};

struct sthread {
	int64_t tid;
	uint8_t *data;
	size_t len, start;         /* start: the first record */
	uint64_t origin;           /* index of the first checkpoint (0 unless cut) */
	size_t xs_len;
	struct ckpt *ck;
	size_t nck;
	struct tbase *tb;          /* CKPT and TIME records, in order */
	size_t ntb, captb;
	uint64_t last_index;
	struct parser cur;         /* the last answer */
	bool cur_valid;
	uint8_t xs_cur[REPLAY_STATE_XMAX];
};

struct pageref {
	uint64_t page;
	size_t w;
};

struct replay_state {
	struct sthread *t;
	size_t nt;
	struct mwrite *w;
	size_t nw, capw;
	struct pageref *pr;
	size_t npr;
	uint64_t *execs;           /* times of M_ALL */
	size_t nexec;
	size_t *vol;               /* the M_VOLATILE writes, by time */
	size_t nvol;
};

/* --- parsing ------------------------------------------------------------ */

static int get(struct parser *ps, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned sh = 0; sh < 64; sh += 7) {
		if (ps->p >= ps->end)
			return -EINVAL;
		uint8_t b = *ps->p++;

		r |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -EINVAL;
}

static int get_s(struct parser *ps, int64_t *v)
{
	uint64_t u;
	int e = get(ps, &u);

	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
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

	if (ps->p >= ps->end)
		return 0;
	*kind = *ps->p & 7;
	d = *ps->p++ >> 3;
	if (d == 31 && get(ps, &d) < 0)
		return -EINVAL;
	ps->index += d;
	return 1;
}

/* The body of a record of @kind; MEM / MAP ranges go to *@w if not NULL. */
static int body(struct parser *ps, unsigned kind, struct mwrite *w)
{
	uint64_t v, len;
	int64_t d;

	switch (kind) {
	case K_REGS:
		if (get(ps, &v) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < sizeof(slots); i++) {
			if (!(v & (1ull << i)))
				continue;
			if (get_s(ps, &d) < 0)
				return -EINVAL;
			ps->gp[slots[i]] += (uint64_t)d;
		}
		return 0;
	case K_XSTATE:
		return xruns(ps, ps->xs, ps->xs_len);
	case K_TIME:
		if (get(ps, &ps->base) < 0)
			return -EINVAL;
		ps->base += ps->origin;
		return 0;
	case K_CKPT:
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
	case K_MEM:
	case K_MAP:
		if (get_s(ps, &d) < 0 || get(ps, &len) < 0)
			return -EINVAL;
		if (w) {
			w->addr = ps->mem_end + (uint64_t)d;
			w->len = len;
			w->time = ps->index + ps->base;
			w->index = ps->index;
			w->old = ps->p;
		}
		ps->mem_end += (uint64_t)d + len;
		if (kind == K_MAP) {
			if (ps->p >= ps->end)
				return -EINVAL;
			if (w)
				w->kind = (uint8_t)(16 + *ps->p);
			ps->p++;
			return 0;
		}
		if (w)
			w->kind = K_MEM;
		return len > (uint64_t)(ps->end - ps->p) / 2 ? -EINVAL : skip(ps, 2 * len);
	default:
		return -EINVAL;
	}
}

/* --- opening ---------------------------------------------------------- */

static int add_write(struct replay_state *st, const struct mwrite *w)
{
	if (st->nw == st->capw) {
		size_t cap = st->capw ? 2 * st->capw : 4096;
		struct mwrite *nv = realloc(st->w, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		st->w = nv;
		st->capw = cap;
	}
	st->w[st->nw] = *w;
	st->w[st->nw].seq = (uint32_t)st->nw;
	st->nw++;
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
	struct ckpt *nv = realloc(t->ck, (t->nck + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	t->ck = nv;
	t->ck[t->nck++] = (struct ckpt){ index, off };
	return 0;
}

/* The header, then every record: checkpoints and memory records. */
static int scan(struct replay_state *st, struct sthread *t)
{
	struct parser ps = { .p = t->data, .end = t->data + t->len };
	uint64_t v, ngp;
	unsigned kind;
	int r;

	if (t->len < 8 || memcmp(t->data, "HSSTATE1", 8))
		return -EINVAL;
	ps.p += 8;
	if (get(&ps, &v) < 0 || get(&ps, &t->xs_len) < 0 || get(&ps, &ngp) < 0 ||
	    t->xs_len > REPLAY_STATE_XMAX || ngp != REPLAY_STATE_NGP)
		return -EINVAL;
	t->start = (size_t)(ps.p - t->data);
	ps.xs_len = t->xs_len;
	/* The first record is a checkpoint: its index is the origin. */
	{
		struct parser first = ps;
		unsigned k0;

		if (head(&first, &k0) <= 0 || k0 != K_CKPT || get(&first, &t->origin) < 0)
			return -EINVAL;
		ps.origin = t->origin;
	}
	while (1) {
		const uint8_t *at = ps.p;
		struct mwrite w;

		r = head(&ps, &kind);
		if (r <= 0)
			break;
		if (body(&ps, kind, &w) < 0) {
			ps.index = t->last_index;
			break;             /* a truncated tail: read up to it */
		}
		w.thread = (uint32_t)(t - st->t);
		if (kind == K_CKPT)
			r = add_ckpt(t, ps.index, (size_t)(at - t->data));
		else if (kind == K_MEM || kind == K_MAP)
			r = add_write(st, &w);
		if (r >= 0 && (kind == K_CKPT || kind == K_TIME))
			r = add_base(t, ps.index, ps.base);
		if (r < 0)
			return r;
		t->last_index = ps.index;
		t->len = (size_t)(ps.p - t->data);
	}
	return t->nck ? 0 : -EINVAL;
}

/* load's error for a state log that is a FIFO, a device, a socket
 * (dw_open_regular's -EINVAL, which here would read as "not a state log"). */
#define EFTYPE_NOTREG EBADFD

static int load(const struct replay_bundle *b, const struct replay_thread *bt, struct sthread *t)
{
	char path[4096];
	struct stat sb;
	ssize_t n = 0;
	size_t got = 0;
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
	t->len = (size_t)sb.st_size;
	t->data = malloc(t->len ? t->len : 1);
	while (t->data && got < t->len && (n = read(fd, t->data + got, t->len - got)) > 0)
		got += (size_t)n;
	e = !t->data ? -ENOMEM : got != t->len ? -EIO : 0;
	close(fd);
	return e;
}

static int cmp_write(const void *a, const void *b)
{
	const struct mwrite *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_page(const void *a, const void *b)
{
	const struct pageref *x = a, *y = b;

	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* Sorts the writes by time and indexes them by page. */
static int index_writes(struct replay_state *st)
{
	size_t n = 0, k = 0;

	if (st->nw)
		qsort(st->w, st->nw, sizeof(*st->w), cmp_write);
	for (size_t i = 0; i < st->nw; i++) {
		const struct mwrite *w = &st->w[i];

		if (w->kind == 16 + M_ALL)
			st->nexec++;
		if (w->kind == 16 + M_VOLATILE)
			st->nvol++;
		if (w->kind != 16 + M_ALL && w->len)
			n += ((w->addr + w->len - 1) >> PAGE_SHIFT) - (w->addr >> PAGE_SHIFT) + 1;
	}
	st->pr = malloc((n ? n : 1) * sizeof(*st->pr));
	st->execs = malloc((st->nexec ? st->nexec : 1) * sizeof(*st->execs));
	st->vol = malloc((st->nvol ? st->nvol : 1) * sizeof(*st->vol));
	if (!st->pr || !st->execs || !st->vol)
		return -ENOMEM;
	st->nexec = 0;
	st->nvol = 0;
	for (size_t i = 0; i < st->nw; i++) {
		const struct mwrite *w = &st->w[i];

		if (w->kind == 16 + M_ALL) {
			st->execs[st->nexec++] = w->time;
			continue;
		}
		if (w->kind == 16 + M_VOLATILE)
			st->vol[st->nvol++] = i;
		if (!w->len)
			continue;
		for (uint64_t pg = w->addr >> PAGE_SHIFT; pg <= (w->addr + w->len - 1) >> PAGE_SHIFT; pg++)
			st->pr[k++] = (struct pageref){ pg, i };
	}
	st->npr = k;
	if (k)
		qsort(st->pr, st->npr, sizeof(*st->pr), cmp_page);
	return 0;
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
		if (e < 0 && err)
			snprintf(err, errsize, "%s: %s", b->threads[i].state_file,
				 e == -EINVAL ? "not a state log" :
				 e == -EFTYPE_NOTREG ? "not a regular file" : strerror(-e));
	}
	if (e >= 0 && !st->nt)
		e = -ENOENT;
	if (e >= 0)
		e = index_writes(st);
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
		free(st->t[i].data);
		free(st->t[i].ck);
		free(st->t[i].tb);
	}
	free(st->t);
	free(st->w);
	free(st->pr);
	free(st->execs);
	free(st->vol);
	free(st);
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
				       .origin = t->origin, .xs = t->xs_cur, .xs_len = t->xs_len };
		t->cur_valid = false;
		if (head(ps, &kind) <= 0 || kind != K_CKPT || body(ps, kind, NULL) < 0)
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

/* user_regs_struct slot of each general rsp_reg up to gs (rip: none). */
static const int8_t gp_slot[] = {
	10, 5, 11, 12, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, -1, 18, 17, 20, 23, 24, 25, 26,
};

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
	for (int r = RSP_REG_RAX; r <= RSP_REG_GS; r++)
		if (gp_slot[r] >= 0)
			rsp_regs_set(out, (enum rsp_reg)r, gp[gp_slot[r]]);
	rsp_regs_set(out, RSP_REG_ORIG_RAX, gp[15]);
	rsp_regs_set(out, RSP_REG_FS_BASE, gp[21]);
	rsp_regs_set(out, RSP_REG_GS_BASE, gp[22]);
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

/* The page's refs: [*lo, *hi) in st->pr. */
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

/* Resolves the bytes [lo, hi) of the query at @addr from write @w: its
 * new bytes (@after false: the write is at or before the time) or its
 * old ones. Returns bytes newly resolved. state: 0 open, 1 known, 2 not. */
static size_t resolve(const struct mwrite *w, bool after, uint64_t addr, uint64_t lo,
		      uint64_t hi, uint8_t *buf, uint8_t *state)
{
	uint64_t a = w->addr > lo ? w->addr : lo;
	uint64_t b = w->addr + w->len < hi ? w->addr + w->len : hi;
	size_t n = 0;

	for (uint64_t x = a; x < b; x++) {
		size_t q = x - addr;

		if (state[q])
			continue;
		n++;
		if (w->kind == K_MEM) {
			buf[q] = w->old[(after ? 0 : w->len) + (x - w->addr)];
			state[q] = 1;
		} else if (!after && w->kind == 16 + M_ZERO) {
			buf[q] = 0;
			state[q] = 1;
		} else {
			state[q] = 2;
		}
	}
	return n;
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

/* The first of a page's refs [a, b) (in time order) whose write is
 * later than @time, or b. */
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

/* One page's part [lo, hi) of the query. */
static void read_page(const struct replay_state *st, uint64_t time, uint64_t addr, uint64_t lo,
		      uint64_t hi, uint8_t *buf, uint8_t *state, uint64_t from, uint64_t to)
{
	size_t a, b, m, left = 0;

	for (uint64_t x = lo; x < hi; x++)
		left += !state[x - addr];
	page_refs(st, lo >> PAGE_SHIFT, &a, &b);
	m = first_after(st, a, b, time);
	for (size_t k = m; k > a && left; k--) {        /* latest first */
		const struct mwrite *w = &st->w[st->pr[k - 1].w];

		if (w->time < from)
			break;
		left -= resolve(w, false, addr, lo, hi, buf, state);
	}
	for (size_t k = m; k < b && left; k++) {        /* then the first later */
		const struct mwrite *w = &st->w[st->pr[k].w];

		if (w->time >= to)
			break;
		left -= resolve(w, true, addr, lo, hi, buf, state);
	}
}

int replay_state_read_mem_status(const struct replay_state *st, uint64_t time, uint64_t addr,
				 void *buf, size_t len, uint8_t *status)
{
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
	if (len > REPLAY_STATE_ADDR_LIMIT - addr) {
		size_t keep = (size_t)(REPLAY_STATE_ADDR_LIMIT - addr);

		memset(status + keep, REPLAY_STATE_UNKNOWN, len - keep);
		r = -ENOENT;
		len = keep;
	}
	epoch(st, time, &from, &to);
	volatile_mask(st, time, addr, len, status);
	while (x < addr + len) {
		uint64_t end = ((x >> PAGE_SHIFT) + 1) << PAGE_SHIFT;

		if (end > addr + len)
			end = addr + len;
		read_page(st, time, addr, x, end, buf, status, from, to);
		x = end;
	}
	for (size_t i = 0; i < len; i++) {
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

static bool overlaps(const struct mwrite *w, uint64_t addr, uint64_t len)
{
	return w->kind == K_MEM && w->addr < addr + len && addr < w->addr + w->len;
}

static void write_out(const struct replay_state *st, size_t i, struct replay_state_write *out)
{
	const struct mwrite *w = &st->w[i];

	*out = (struct replay_state_write){ st->t[w->thread].tid, w->index, w->time, w->addr,
					    w->len };
}

int replay_state_write_before(const struct replay_state *st, uint64_t addr, uint64_t len,
			      uint64_t time, struct replay_state_write *out)
{
	uint64_t from, to, last;
	size_t best = SIZE_MAX;

	if (!len || !time || addr + len < addr)
		return -ENOENT;
	epoch(st, time - 1, &from, &to);
	last = (addr + len - 1) >> PAGE_SHIFT;
	for (uint64_t pg = addr >> PAGE_SHIFT; pg <= last; pg++) {
		size_t a, b;

		page_refs(st, pg, &a, &b);
		for (size_t k = first_after(st, a, b, time - 1); k > a; k--) {
			size_t i = st->pr[k - 1].w;

			if (st->w[i].time < from || (best != SIZE_MAX && i <= best))
				break;
			if (overlaps(&st->w[i], addr, len)) {
				best = i;
				break;
			}
		}
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	write_out(st, best, out);
	return 0;
}

int replay_state_write_after(const struct replay_state *st, uint64_t addr, uint64_t len,
			     uint64_t time, struct replay_state_write *out)
{
	uint64_t from, to, last;
	size_t best = SIZE_MAX;

	if (!len || addr + len < addr)
		return -ENOENT;
	epoch(st, time, &from, &to);
	last = (addr + len - 1) >> PAGE_SHIFT;
	for (uint64_t pg = addr >> PAGE_SHIFT; pg <= last; pg++) {
		size_t a, b;

		page_refs(st, pg, &a, &b);
		for (size_t k = first_after(st, a, b, time); k < b; k++) {
			size_t i = st->pr[k].w;

			if (st->w[i].time >= to || i >= best)
				break;
			if (overlaps(&st->w[i], addr, len)) {
				best = i;
				break;
			}
		}
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	write_out(st, best, out);
	return 0;
}
