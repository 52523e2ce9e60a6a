/*
 * replay/decode/timeline.c: every thread on one logical clock (see timeline.h).
 *
 * A resume finds where it stops as a time: the moved thread's own stop,
 * the write a watchpoint meets (the state log's search), the nearest
 * breakpoint hit or gap of every thread that counts (each thread's cursor
 * scans from its position; the scans are kept between resumes while the
 * breakpoints stay the same); the nearest wins, and every cursor then
 * goes to its position at that time.
 */
#include "replay/decode/timeline.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/decode/index.h"
#include "replay/model/image.h"
#include "replay/model/state.h"

/* A breakpoint scan of one thread's history, kept while the breakpoints
 * stay the same: from any position in (stop, from] (backward) or
 * [from, stop) (forward) the scan ends at @stop, for @kind. */
struct replay_timeline_scan {
	bool valid;
	uint64_t from, stop;
	int kind;                  /* REPLAY_CURSOR_BREAK, _BEGIN or _END */
};

struct replay_timeline_thread {
	int64_t tid;
	struct replay_cursor *cur;
	struct replay_timeline_scan back, fwd;
	int8_t exits;              /* its history ends with its own exit: 1, 0,
				    * -1 not looked at yet */
};

struct replay_timeline_points {
	struct replay_timeline_point *v;
	size_t n, cap;
};

struct replay_timeline {
	const struct replay_bundle *b;
	struct replay_state *st;
	struct replay_timeline_thread *threads;
	size_t nthreads;
	struct replay_timeline_points own;
	struct replay_timeline_points *pts;  /* &own, or a table shared */
	uint64_t *addrs;           /* sorted breakpoint addresses for a resume */
	size_t capaddrs;           /* of addrs and scan_addrs */
	uint64_t *scan_addrs;      /* the addresses the kept scans were made for */
	size_t nscan_addrs;
	/* The clock: the current time, the times before the first
	 * instruction and after the last one. */
	bool timed;
	uint64_t time, begin_time, end_time;
	const volatile sig_atomic_t *interrupt;   /* for cursors made later */
	/* The breakpoint hit the last stop reported (thread, position), or
	 * nthreads: not reported again while that thread stays there. */
	size_t hit_thread;
	uint64_t hit_position;
};

/* Where a resume may stop: thread @thread at @position, which makes
 * @time the current time, for @kind (a stop kind of cursor.h or
 * REPLAY_TIMELINE_STOP_WATCH, at @watch_addr's watchpoint). */
struct stop_at {
	bool set;
	size_t thread;
	uint64_t position, time;
	int kind;
	uint64_t watch_addr;
};

/* How many items next to a position are looked at one by one before a
 * scan by blocks: a hit is often that close (and the other threads' stops
 * bound the search to about that much). */
#define WALK_MAX 4096

/* ---- the clock --------------------------------------------------------- */

static uint64_t clamp_position(const struct replay_cursor *cur, uint64_t pos)
{
	uint64_t end = replay_cursor_size(cur) + 1;

	return pos < 1 ? 1 : pos > end ? end : pos;
}

/* The time at thread @i's position @pos (>= 1): after the instruction
 * before it ran. Item q runs at time_of(q + 1). Timed timelines only. */
static uint64_t time_of(const struct replay_timeline *tl, size_t i, uint64_t pos)
{
	uint64_t time = 0;

	replay_state_time_at(tl->st, tl->threads[i].tid, pos, &time);
	return time;
}

/* The moment before item @q of thread @i runs: a stop at @q. */
static uint64_t before(const struct replay_timeline *tl, size_t i, uint64_t q)
{
	uint64_t time = time_of(tl, i, q + 1);

	return time ? time - 1 : 0;
}

/* Thread @i's position at @time: after every instruction of time <= @time
 * (1 when there is none, its end at most). */
static uint64_t position_at(const struct replay_timeline *tl, size_t i, uint64_t time)
{
	uint64_t pos = 1;

	replay_state_position_at(tl->st, tl->threads[i].tid, time, &pos);
	return clamp_position(tl->threads[i].cur, pos);
}

/* A clock needs every thread's times: each thread with instructions in
 * the state log. The beginning is the moment before the earliest first
 * instruction, the end the time of the latest last one; the time starts
 * there. */
static void clock_open(struct replay_timeline *tl)
{
	bool any = false;

	tl->timed = false;
	tl->hit_thread = tl->nthreads;
	for (size_t i = 0; tl->st && i < tl->nthreads; i++) {
		struct replay_timeline_thread *th = &tl->threads[i];
		uint64_t size = replay_cursor_size(th->cur), first, last;

		if (!size)
			continue;
		if (replay_state_time_at(tl->st, th->tid, 2, &first) < 0 ||
		    replay_state_time_at(tl->st, th->tid, size + 1, &last) < 0)
			return;
		first = first ? first - 1 : 0;
		if (!any || first < tl->begin_time)
			tl->begin_time = first;
		if (!any || last > tl->end_time)
			tl->end_time = last;
		any = true;
	}
	tl->timed = any;
	tl->time = tl->end_time;
}

/* Makes @time the current time: every thread at its position then, thread
 * @i (if < nthreads) at @pos (its position then, said by the caller who
 * knows it). 0 or < 0. */
static int go(struct replay_timeline *tl, uint64_t time, size_t i, uint64_t pos)
{
	int err = 0;

	tl->time = time;
	for (size_t k = 0; k < tl->nthreads; k++) {
		uint64_t to = k == i ? pos : position_at(tl, k, time);
		int r = replay_cursor_goto(tl->threads[k].cur, to);

		if (r < 0 && !err)
			err = r;
	}
	return err;
}

/* ---- the object -------------------------------------------------------- */

int replay_timeline_new(const struct replay_bundle *b, struct replay_state *st,
			struct replay_timeline **out, size_t *failed)
{
	struct replay_timeline *tl = calloc(1, sizeof(*tl));
	int r;

	*failed = 0;
	if (!tl)
		return -ENOMEM;
	tl->b = b;
	tl->st = st;
	tl->pts = &tl->own;
	tl->threads = calloc(b->nthreads ? b->nthreads : 1, sizeof(*tl->threads));
	if (!tl->threads) {
		free(tl);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->nthreads; i++, tl->nthreads++) {
		tl->threads[i].tid = b->threads[i].tid;
		tl->threads[i].exits = -1;
		r = replay_cursor_new(b, i, NULL, NULL, &tl->threads[i].cur);
		if (r) {
			*failed = i;
			replay_timeline_free(tl);
			return r;
		}
	}
	clock_open(tl);
	*out = tl;
	return 0;
}

void replay_timeline_set_state(struct replay_timeline *tl, struct replay_state *st)
{
	tl->st = st;
	clock_open(tl);
}

/* Thread @i of @b for thread @i of @tl: the same thread, its cursor
 * extended, or a new one. */
static int extend_thread(struct replay_timeline *tl, const struct replay_bundle *b, size_t i)
{
	struct replay_timeline_thread *th = &tl->threads[i];
	int r;

	th->back.valid = th->fwd.valid = false;
	if (i < tl->nthreads) {
		th->exits = -1;    /* its last instruction may be another now */
		return replay_cursor_extend(th->cur, b, i);
	}
	*th = (struct replay_timeline_thread){ .tid = b->threads[i].tid, .exits = -1 };
	r = replay_cursor_new(b, i, NULL, NULL, &th->cur);
	if (r == 0) {
		replay_cursor_set_interrupt(th->cur, tl->interrupt);
		tl->nthreads++;
	}
	return r;
}

int replay_timeline_extend(struct replay_timeline *tl, const struct replay_bundle *b,
			   struct replay_state *st, size_t *failed)
{
	struct replay_timeline_thread *nv;
	size_t n = tl->nthreads;
	int r = 0;

	*failed = 0;
	if (b->nthreads < n)
		return -ESTALE;
	for (size_t i = 0; i < n; i++)
		if (b->threads[i].tid != tl->threads[i].tid)
			return -ESTALE;
	nv = realloc(tl->threads, (b->nthreads ? b->nthreads : 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	tl->threads = nv;
	for (size_t i = 0; i < b->nthreads && !r; i++) {
		r = extend_thread(tl, b, i);
		*failed = i;
	}
	tl->b = b;
	tl->st = st;
	tl->nscan_addrs = 0;
	if (!r)
		clock_open(tl);
	return r;
}

void replay_timeline_free(struct replay_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->nthreads; i++)
		replay_cursor_free(tl->threads[i].cur);
	free(tl->threads);
	free(tl->own.v);
	free(tl->addrs);
	free(tl->scan_addrs);
	free(tl);
}

size_t replay_timeline_nthreads(const struct replay_timeline *tl)
{
	return tl->nthreads;
}

struct replay_cursor *replay_timeline_cursor(struct replay_timeline *tl, size_t i)
{
	return i < tl->nthreads ? tl->threads[i].cur : NULL;
}

bool replay_timeline_timed(const struct replay_timeline *tl)
{
	return tl->timed;
}

int replay_timeline_time(const struct replay_timeline *tl, uint64_t *time)
{
	if (!tl->timed)
		return -ENODATA;
	*time = tl->time;
	return 0;
}

int replay_timeline_time_at(const struct replay_timeline *tl, size_t i, uint64_t pos,
			    uint64_t *time)
{
	if (!tl->timed || i >= tl->nthreads || !pos)
		return -ENODATA;
	*time = time_of(tl, i, pos);
	return 0;
}

bool replay_timeline_started(const struct replay_timeline *tl, size_t i)
{
	const struct replay_index *idx;
	const struct replay_cursor *c;

	if (!tl->timed || i >= tl->nthreads)
		return true;
	c = tl->threads[i].cur;
	if (replay_cursor_size(c))
		return replay_cursor_position(c) > 1;
	/* No instruction yet (created while only another thread ran): there
	 * once the instruction that made it has run, the time its trace
	 * begins at; at the end only, if the trace does not say. */
	idx = replay_cursor_index(c);
	if (idx && idx->nentries)
		return tl->time > idx->entries[0].time;
	return tl->time >= tl->end_time;
}

bool replay_timeline_exited(struct replay_timeline *tl, size_t i, struct replay_image *img)
{
	struct replay_timeline_thread *th;
	uint64_t n, ip, gp[REPLAY_STATE_NGP];
	uint8_t insn[2];

	if (!tl->timed || !tl->st || !img || i >= tl->nthreads)
		return false;
	th = &tl->threads[i];
	if (th->tid == tl->b->pid)
		return false;      /* the leader: GDB lists it while the process lives */
	n = replay_cursor_size(th->cur);
	if (!n || replay_cursor_position(th->cur) != n + 1)
		return false;      /* not past its last instruction */
	/* That instruction is a `syscall` (0f 05), made with rax 60. */
	if (th->exits < 0)
		th->exits = replay_cursor_item_ip(th->cur, n, &ip) == 0 &&
			    replay_image_read(img, 0, ip, insn, 2) == 2 && insn[0] == 0x0f &&
			    insn[1] == 0x05 &&
			    replay_state_raw_at(tl->st, th->tid, n, gp, NULL, NULL) == 0 &&
			    gp[offsetof(struct user_regs_struct, rax) / 8] == SYS_exit;
	return th->exits == 1;
}

bool replay_timeline_at_end(const struct replay_timeline *tl)
{
	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct replay_cursor *c = tl->threads[i].cur;

		if (replay_cursor_position(c) != replay_cursor_size(c) + 1)
			return false;
	}
	return true;
}

void replay_timeline_set_interrupt(struct replay_timeline *tl, const volatile sig_atomic_t *flag)
{
	tl->interrupt = flag;
	for (size_t i = 0; i < tl->nthreads; i++)
		replay_cursor_set_interrupt(tl->threads[i].cur, flag);
}

int replay_timeline_follow(struct replay_timeline *tl, size_t i, bool back)
{
	uint64_t pos;

	if (i >= tl->nthreads)
		return -EINVAL;
	tl->hit_thread = tl->nthreads;
	if (!tl->timed)
		return 0;
	pos = replay_cursor_position(tl->threads[i].cur);
	return go(tl, back ? before(tl, i, pos) : time_of(tl, i, pos), i, pos);
}

/* ---- points ------------------------------------------------------------ */

static bool same_point(const struct replay_timeline_point *p, enum replay_timeline_point_kind kind,
		       uint64_t addr, uint64_t len, int tag)
{
	return p->kind == kind && p->addr == addr && p->len == len && p->tag == tag;
}

int replay_timeline_points_new(struct replay_timeline_points **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void replay_timeline_points_free(struct replay_timeline_points *p)
{
	if (!p)
		return;
	free(p->v);
	free(p);
}

int replay_timeline_points_insert(struct replay_timeline_points *p,
				  enum replay_timeline_point_kind kind, uint64_t addr, uint64_t len,
				  int tag)
{
	if (kind == REPLAY_TIMELINE_BREAK)
		len = 0;
	for (size_t i = 0; i < p->n; i++)
		if (same_point(&p->v[i], kind, addr, len, tag))
			return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct replay_timeline_point *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct replay_timeline_point){ kind, addr, len, tag };
	return 0;
}

int replay_timeline_points_remove(struct replay_timeline_points *p,
				  enum replay_timeline_point_kind kind, uint64_t addr, uint64_t len,
				  int tag)
{
	if (kind == REPLAY_TIMELINE_BREAK)
		len = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (same_point(&p->v[i], kind, addr, len, tag)) {
			p->v[i] = p->v[--p->n];
			return 0;
		}
	}
	return -ENOENT;
}

bool replay_timeline_points_break_at(const struct replay_timeline_points *p, uint64_t addr,
				     int tag)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == REPLAY_TIMELINE_BREAK && p->v[i].addr == addr &&
		    (tag < 0 || p->v[i].tag == tag))
			return true;
	return false;
}

size_t replay_timeline_points_count(const struct replay_timeline_points *p)
{
	return p->n;
}

const struct replay_timeline_point *
replay_timeline_points_get(const struct replay_timeline_points *p, size_t i)
{
	return i < p->n ? &p->v[i] : NULL;
}

void replay_timeline_use_points(struct replay_timeline *tl, struct replay_timeline_points *p)
{
	tl->pts = p ? p : &tl->own;
}

struct replay_timeline_points *replay_timeline_points(struct replay_timeline *tl)
{
	return tl->pts;
}

int replay_timeline_point_insert(struct replay_timeline *tl, enum replay_timeline_point_kind kind,
				 uint64_t addr, uint64_t len, int tag)
{
	if (kind == REPLAY_TIMELINE_WATCH && (!tl->timed || !len))
		return -EOPNOTSUPP;
	return replay_timeline_points_insert(tl->pts, kind, addr, len, tag);
}

int replay_timeline_point_remove(struct replay_timeline *tl, enum replay_timeline_point_kind kind,
				 uint64_t addr, uint64_t len, int tag)
{
	return replay_timeline_points_remove(tl->pts, kind, addr, len, tag);
}

bool replay_timeline_break_at(const struct replay_timeline *tl, uint64_t addr, int tag)
{
	return replay_timeline_points_break_at(tl->pts, addr, tag);
}

/* Room in addrs and scan_addrs for every point. 0 or -ENOMEM. */
static int addrs_fit(struct replay_timeline *tl)
{
	size_t cap = tl->capaddrs ? tl->capaddrs : 16;
	uint64_t *a, *sa;

	while (cap < tl->pts->n)
		cap *= 2;
	if (cap == tl->capaddrs)
		return 0;
	a = realloc(tl->addrs, cap * sizeof(*a));
	if (a)
		tl->addrs = a;
	sa = a ? realloc(tl->scan_addrs, cap * sizeof(*sa)) : NULL;
	if (sa)
		tl->scan_addrs = sa;
	if (!sa)
		return -ENOMEM;
	tl->capaddrs = cap;
	return 0;
}

static struct replay_cursor_breaks breaks_of(struct replay_timeline *tl)
{
	struct replay_cursor_breaks bps = { tl->addrs, 0 };
	size_t n = 0;

	for (size_t i = 0; i < tl->pts->n; i++)
		if (tl->pts->v[i].kind == REPLAY_TIMELINE_BREAK)
			tl->addrs[n++] = tl->pts->v[i].addr;
	bps.n = n ? replay_cursor_breaks_sort(tl->addrs, n) : 0;
	return bps;
}

static bool has_watch(const struct replay_timeline *tl)
{
	for (size_t i = 0; i < tl->pts->n; i++)
		if (tl->pts->v[i].kind == REPLAY_TIMELINE_WATCH)
			return true;
	return false;
}

static bool is_break_addr(const struct replay_cursor_breaks *bps, uint64_t ip)
{
	size_t lo = 0, hi = bps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bps->addrs[mid] == ip)
			return true;
		if (bps->addrs[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* ---- choosing the stop -------------------------------------------------- */

/* At one time a write comes first (the instruction at a breakpoint wrote,
 * or the one a step ran), then a breakpoint or gap, then a step's end. */
static int rank(int kind)
{
	return kind == REPLAY_TIMELINE_STOP_WATCH ? 0 : kind == REPLAY_CURSOR_STEP ? 2 : 1;
}

/* Keeps @c in *@best if it comes first: the earliest time forward, the
 * latest backward. */
static void offer(struct stop_at *best, const struct stop_at *c, bool back)
{
	if (!best->set || (back ? c->time > best->time : c->time < best->time) ||
	    (c->time == best->time && rank(c->kind) < rank(best->kind)))
		*best = *c;
}

/* ---- breakpoint hits of a thread --------------------------------------- */

/* Drops the kept scans when the breakpoints are not those they were made
 * for (a debugger may insert and remove them around every resume: the
 * set is compared, not the calls counted). */
static void scans_sync(struct replay_timeline *tl, const struct replay_cursor_breaks *bps)
{
	if (tl->nscan_addrs == bps->n &&
	    (!bps->n || !memcmp(tl->scan_addrs, bps->addrs, bps->n * sizeof(*bps->addrs))))
		return;
	for (size_t i = 0; i < tl->nthreads; i++) {
		tl->threads[i].back.valid = false;
		tl->threads[i].fwd.valid = false;
	}
	if (bps->n)
		memcpy(tl->scan_addrs, bps->addrs, bps->n * sizeof(*bps->addrs));
	tl->nscan_addrs = bps->n;
}

/* The hits or gap items among thread @i's items [@lo, @hi), one by one
 * (a short stretch: the cursor's window holds it): the first (forward)
 * or last (backward) hit into *@q. 1, 0 for none, -ENODATA at a gap (the
 * caller scans instead), < 0. */
static int walk(struct replay_timeline *tl, size_t i, uint64_t lo, uint64_t hi, bool back,
		const struct replay_cursor_breaks *bps, uint64_t *q)
{
	for (uint64_t k = 0; k < hi - lo; k++) {
		uint64_t n = back ? hi - 1 - k : lo + k, ip;
		int r = replay_cursor_item_ip(tl->threads[i].cur, n, &ip);

		if (r < 0)
			return r;
		if (is_break_addr(bps, ip)) {
			*q = n;
			return 1;
		}
	}
	return 0;
}

/* Whether thread @i's kept scan going @back or forward holds the answer
 * from its position. */
static bool kept(const struct replay_timeline *tl, size_t i, bool back)
{
	const struct replay_timeline_thread *th = &tl->threads[i];
	const struct replay_timeline_scan *s = back ? &th->back : &th->fwd;
	uint64_t p = replay_cursor_position(th->cur);

	return s->valid && (back ? s->stop < p && p <= s->from : s->from <= p && p < s->stop);
}

/* Thread @i's cursor continued from its position (a scan by blocks), or
 * the kept scan that holds the answer: where it stops into *@q, how into
 * *@kind. Moves the cursor. 0 or < 0. */
static int scan(struct replay_timeline *tl, size_t i, bool back,
		const struct replay_cursor_breaks *bps, uint64_t *q, int *kind)
{
	struct replay_timeline_thread *th = &tl->threads[i];
	struct replay_timeline_scan *s = back ? &th->back : &th->fwd;
	uint64_t p = replay_cursor_position(th->cur);
	int r;

	if (kept(tl, i, back)) {
		*q = s->stop;
		*kind = s->kind;
		return 0;
	}
	r = replay_cursor_continue(th->cur, back ? REPLAY_BACKWARD : REPLAY_FORWARD, bps);
	if (r < 0)
		return r;
	*q = replay_cursor_position(th->cur);
	*kind = r;
	/* Where a gap or an interrupt stops depends on where the scan
	 * started: not kept. */
	*s = (struct replay_timeline_scan){ r == REPLAY_CURSOR_BREAK || r == REPLAY_CURSOR_BEGIN ||
						    r == REPLAY_CURSOR_END,
					    p, *q, r };
	return 0;
}

/* The items of thread @i that can hold a stop no later than the best so
 * far, [*@lo, *@hi): backward those before its position (they ran at or
 * before the current time), forward those from it on (its own position
 * included unless @self: its instruction has not run). */
static void thread_range(struct replay_timeline *tl, size_t i, bool back, bool self,
			 const struct stop_at *best, uint64_t *lo, uint64_t *hi)
{
	const struct replay_cursor *cur = tl->threads[i].cur;
	uint64_t p = replay_cursor_position(cur);

	*lo = back ? 1 : self ? p + 1 : p;
	*hi = back ? p : replay_cursor_size(cur) + 1;
	if (best->set) {
		uint64_t b = position_at(tl, i, back ? best->time : best->time + 1);

		if (back && b > *lo)
			*lo = b;
		if (!back && b < *hi)
			*hi = b;
	}
}

/* Offers thread @i's breakpoint hit or gap nearest to the current time
 * going @back or forward, if one can still come first (thread_range).
 * @self is the thread a continue resumed (it runs first, as a debugger
 * steps it off a breakpoint); the hit the last stop reported does not
 * count either. A hit at item q stops at the moment before q runs; a
 * scan interrupted stops where it got to (backward, at the current time
 * at the latest). 0 or < 0. */
static int thread_stop(struct replay_timeline *tl, size_t i, bool back, bool self,
		       const struct replay_cursor_breaks *bps, struct stop_at *best)
{
	struct replay_timeline_thread *th = &tl->threads[i];
	uint64_t p = replay_cursor_position(th->cur), size = replay_cursor_size(th->cur);
	uint64_t lo, hi, wlo, whi, q = 0, ip;
	int r, kind = REPLAY_CURSOR_BREAK;
	struct stop_at c;

	if (!bps->n && !replay_cursor_index(th->cur)->ngaps)
		return 0;
	self = self || (i == tl->hit_thread && p == tl->hit_position);
	thread_range(tl, i, back, self, best, &lo, &hi);
	if (lo >= hi)
		return 0;
	/* The nearest of them one by one, then the rest by blocks. */
	wlo = back && hi - lo > WALK_MAX ? hi - WALK_MAX : lo;
	whi = !back && hi - lo > WALK_MAX ? lo + WALK_MAX : hi;
	r = walk(tl, i, wlo, whi, back, bps, &q);
	if (r == 1 && (back || q > p))
		*(back ? &th->back : &th->fwd) = (struct replay_timeline_scan){
			true, p, q, REPLAY_CURSOR_BREAK };
	if (r == 0 && wlo == lo && whi == hi)
		return 0;
	if (r < 0 && r != -ENODATA)
		return r;
	if (r != 1) {
		if (!back && !self && p <= size && replay_cursor_item_ip(th->cur, p, &ip) == 0 &&
		    is_break_addr(bps, ip)) {
			q = p;
		} else {
			r = scan(tl, i, back, bps, &q, &kind);
			if (r < 0)
				return r;
			if (kind != REPLAY_CURSOR_BREAK && kind != REPLAY_CURSOR_GAP &&
			    kind != REPLAY_CURSOR_INTERRUPTED)
				return 0;
		}
	}
	c = (struct stop_at){ true, i, q, before(tl, i, q), kind, 0 };
	/* Interrupted before it scanned anything backward: here, now. */
	if (back && q == p)
		c.time = tl->time;
	offer(best, &c, back);
	return 0;
}

/* ---- watchpoints ------------------------------------------------------ */

static size_t thread_of(const struct replay_timeline *tl, int64_t tid)
{
	size_t i = 0;

	while (i < tl->nthreads && tl->threads[i].tid != tid)
		i++;
	return i;
}

/* A stop where a state log cut short stops being whole (the latest time
 * memory is known at, in the thread whose log ends first): a watched
 * write after it cannot be ruled out, so a resume stops there as at a
 * gap. 0, or -ENOENT if no log is cut. */
static int cut_edge(struct replay_timeline *tl, struct stop_at *c)
{
	uint64_t pos, until, first = UINT64_MAX;
	size_t at = 0;

	for (size_t i = 0; i < tl->nthreads; i++) {
		if (replay_state_cut(tl->st, tl->threads[i].tid, &pos, &until) && until < first) {
			first = until;
			at = i;
		}
	}
	if (first == UINT64_MAX || !first)
		return -ENOENT;
	if (replay_state_position_at(tl->st, tl->threads[at].tid, first - 1, &pos) < 0)
		pos = 1;
	*c = (struct stop_at){ true, at, clamp_position(tl->threads[at].cur, pos), first - 1,
			       REPLAY_CURSOR_GAP, 0 };
	return 0;
}

/* Offers the first write to a watched range met going @back or forward
 * from the current time (the latest at or before it, or the earliest after
 * it), in any thread: backward the stop is the writing instruction itself
 * (memory holds the old value), forward the position after it. Where a
 * state log cut short cannot say, the stop is its edge (cut_edge). */
static void watch_offer(struct replay_timeline *tl, bool back, struct stop_at *best)
{
	struct replay_state_write w, hit = { 0 };
	uint64_t watch_addr = 0;
	struct stop_at c;
	bool found = false;
	size_t i;

	for (size_t k = 0; k < tl->pts->n; k++) {
		const struct replay_timeline_point *p = &tl->pts->v[k];
		int r;

		if (p->kind != REPLAY_TIMELINE_WATCH)
			continue;
		r = back ? replay_state_write_before(tl->st, p->addr, p->len, tl->time + 1, &w)
			 : replay_state_write_after(tl->st, p->addr, p->len, tl->time, &w);
		if (r == -ENODATA && cut_edge(tl, &c) == 0 && c.time != tl->time)
			offer(best, &c, back);
		if (r < 0)
			continue;
		if (!found || (back ? w.time > hit.time : w.time < hit.time)) {
			hit = w;
			watch_addr = p->addr;
			found = true;
		}
	}
	i = found ? thread_of(tl, hit.tid) : tl->nthreads;
	if (i == tl->nthreads)
		return;
	c = (struct stop_at){ true, i,
			      clamp_position(tl->threads[i].cur, back ? hit.index : hit.index + 1),
			      back ? hit.time - 1 : hit.time, REPLAY_TIMELINE_STOP_WATCH,
			      watch_addr };
	offer(best, &c, back);
}

/* ---- a resume ----------------------------------------------------------- */

static bool is_back(enum replay_timeline_move move)
{
	return move == REPLAY_TIMELINE_REVERSE_STEP || move == REPLAY_TIMELINE_REVERSE_CONTINUE;
}

/* Whether thread @i's breakpoints can stop @rq: every thread's going
 * backward (a reverse step aside: it moves its thread alone), forward
 * those of the threads resumed, and the moved thread's own only for a
 * continue (a step or range step stops as it says). */
static bool counts(size_t i, const struct replay_timeline_resume *rq)
{
	switch (rq->move) {
	case REPLAY_TIMELINE_REVERSE_STEP:
		return false;
	case REPLAY_TIMELINE_REVERSE_CONTINUE:
		return true;
	case REPLAY_TIMELINE_CONTINUE:
		break;
	default:
		if (i == rq->thread)
			return false;
	}
	return !rq->resumed || rq->resumed[i];
}

/* The moved thread's own move (a step, a range step: a continue has
 * none), as a stop into *@best; REPLAY_CURSOR_BEGIN / _END when it cannot
 * move at all (at its first / last position), else 0; < 0. */
static int own_move(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
		    const struct replay_cursor_breaks *bps, struct stop_at *best)
{
	size_t x = rq->thread;
	struct replay_cursor *cur = tl->threads[x].cur;
	uint64_t p = replay_cursor_position(cur), q;
	bool back = rq->move == REPLAY_TIMELINE_REVERSE_STEP;
	int r;

	switch (rq->move) {
	case REPLAY_TIMELINE_REVERSE_STEP:
	case REPLAY_TIMELINE_STEP:
		r = replay_cursor_step(cur, back ? REPLAY_BACKWARD : REPLAY_FORWARD);
		if (r < 0)
			return r;
		q = replay_cursor_position(cur);
		if (q == p)
			return back ? REPLAY_CURSOR_BEGIN : REPLAY_CURSOR_END;
		/* Backward: the state before item q; forward: after item q - 1. */
		*best = (struct stop_at){ true, x, q, back ? before(tl, x, q) : time_of(tl, x, q),
					  REPLAY_CURSOR_STEP, 0 };
		return 0;
	case REPLAY_TIMELINE_RANGE:
		r = replay_cursor_range_step(cur, rq->range_start, rq->range_end, bps);
		if (r < 0)
			return r;
		q = replay_cursor_position(cur);
		if (r == REPLAY_CURSOR_STEP)
			*best = (struct stop_at){ true, x, q, time_of(tl, x, q), r, 0 };
		else if (r == REPLAY_CURSOR_BREAK || r == REPLAY_CURSOR_GAP)
			*best = (struct stop_at){ true, x, q, before(tl, x, q), r, 0 };
		/* At its end (inside the range): the others go on. */
		return 0;
	default:
		return 0;
	}
}

/* Offers the breakpoint hits and gaps of every thread that counts;
 * threads whose kept scan holds the answer first: their hits bound the
 * others' searches, often to a short walk. 0 or < 0. */
static int threads_offer(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
			 const struct replay_cursor_breaks *bps, struct stop_at *best)
{
	bool back = is_back(rq->move), any = false;

	/* The kept scans are checked only when some thread's hits count: a
	 * step a debugger makes off a breakpoint (that one removed, the
	 * thread resumed alone) leaves those of the whole set. */
	for (size_t i = 0; i < tl->nthreads && !any; i++)
		any = counts(i, rq);
	if (!any)
		return 0;
	scans_sync(tl, bps);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < tl->nthreads; i++) {
			int r;

			if (kept(tl, i, back) != !pass || !counts(i, rq))
				continue;
			r = thread_stop(tl, i, back, i == rq->thread, bps, best);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Where @rq stops on the clock, into *@s (always set): the first of the
 * moved thread's own stop, a watched write, and the breakpoint hits of
 * the threads that count; with none of those, the beginning or the end of
 * everything; at an edge the thread cannot leave, where it is. 0 or < 0;
 * cursors may have moved (the caller puts them back). */
static int find_stop(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
		     struct stop_at *s)
{
	struct replay_cursor_breaks bps = breaks_of(tl);
	struct replay_cursor *cur = tl->threads[rq->thread].cur;
	bool back = is_back(rq->move);
	int r;

	memset(s, 0, sizeof(*s));
	r = own_move(tl, rq, &bps, s);
	if (r < 0)
		return r;
	if (r > 0) {
		*s = (struct stop_at){ true, rq->thread, replay_cursor_position(cur), tl->time, r,
				       0 };
		return 0;
	}
	if (has_watch(tl))
		watch_offer(tl, back, s);
	r = threads_offer(tl, rq, &bps, s);
	if (r < 0 || s->set)
		return r;
	*s = (struct stop_at){ true, rq->thread, back ? 1 : replay_cursor_size(cur) + 1,
			       back ? tl->begin_time : tl->end_time,
			       back ? REPLAY_CURSOR_BEGIN : REPLAY_CURSOR_END, 0 };
	return 0;
}

static int resume_timed(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
			struct replay_timeline_stop *stop)
{
	struct stop_at s;
	int r = find_stop(tl, rq, &s);

	if (r < 0) {
		go(tl, tl->time, tl->nthreads, 0);
		return r;
	}
	r = go(tl, s.time, s.thread, s.position);
	if (r < 0)
		return r;
	tl->hit_thread = s.kind == REPLAY_CURSOR_BREAK ? s.thread : tl->nthreads;
	tl->hit_position = s.position;
	*stop = (struct replay_timeline_stop){ s.thread, s.kind, s.watch_addr };
	/* A step that ran the last instruction of everything. */
	if (s.kind == REPLAY_CURSOR_STEP && replay_timeline_at_end(tl))
		stop->kind = REPLAY_CURSOR_END;
	return 0;
}

/* Without a clock: the thread moves alone, as its cursor does. */
static int resume_alone(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
			struct replay_timeline_stop *stop)
{
	struct replay_cursor_breaks bps = breaks_of(tl);
	struct replay_cursor *cur = tl->threads[rq->thread].cur;
	int r;

	switch (rq->move) {
	case REPLAY_TIMELINE_REVERSE_STEP:
		r = replay_cursor_step(cur, REPLAY_BACKWARD);
		break;
	case REPLAY_TIMELINE_REVERSE_CONTINUE:
		r = replay_cursor_continue(cur, REPLAY_BACKWARD, &bps);
		break;
	case REPLAY_TIMELINE_STEP:
		r = replay_cursor_step(cur, REPLAY_FORWARD);
		break;
	case REPLAY_TIMELINE_RANGE:
		r = replay_cursor_range_step(cur, rq->range_start, rq->range_end, &bps);
		break;
	default:
		r = replay_cursor_continue(cur, REPLAY_FORWARD, &bps);
		break;
	}
	if (r < 0)
		return r;
	*stop = (struct replay_timeline_stop){ rq->thread, r, 0 };
	return 0;
}

int replay_timeline_resume(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
			   struct replay_timeline_stop *stop)
{
	if (rq->thread >= tl->nthreads)
		return -EINVAL;
	if (addrs_fit(tl) < 0)
		return -ENOMEM;
	return tl->timed ? resume_timed(tl, rq, stop) : resume_alone(tl, rq, stop);
}
