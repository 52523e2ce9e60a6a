/*
 * replay/replay_target.c: the operations of protocol/target.h over a
 * recording (see replay_target.h for what is served).
 *
 * At open, each thread's history is indexed once to find its last
 * instruction: the thread's pc is the one after it. With a state log the
 * threads share one timeline (t->time): a resume finds where it stops as
 * a time (the moved thread's own stop, the write a watchpoint meets, the
 * nearest breakpoint hit of every thread that counts) and every cursor
 * then goes to its position at that time. Memory is read at that time
 * from the state log, the rest from the present or the images of the
 * mappings valid at the end of the recording.
 */
#include "replay/replay_target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_served.h"
#include "protocol/rsp_buf.h"
#include "replay/bundle.h"
#include "replay/auxv.h"
#include "replay/cursor.h"
#include "replay/dwarf_symbols.h"
#include "replay/image.h"
#include "replay/rodata.h"
#include "replay/state.h"
#include "replay/svr4.h"
#include "replay/replay_bts.h"
#include "replay/replay_monitor.h"
#include "replay/replay_vfile.h"

/* A breakpoint scan of one thread's history, kept while the breakpoints
 * stay the same: from any position in (stop, from] (backward) or
 * [from, stop) (forward) the scan ends at @stop, for @kind. */
struct replay_target_scan {
	bool valid;
	uint64_t from, stop;
	int kind;                  /* REPLAY_CURSOR_BREAK, _BEGIN or _END */
};

struct replay_target_thread {
	int64_t tid;
	struct replay_cursor *cur;
	bool btrace_on;
	bool btrace_read;          /* a NEW read was answered already */
	enum rsp_btrace_format btrace_format;
	uint64_t bts_size;         /* bytes GDB asked for (24 a block); 0: all */
	uint64_t bts_position;     /* the position of the last BTS read */
	struct replay_target_scan back, fwd;
};

/* A breakpoint or write watchpoint GDB inserted: kept here, never
 * written anywhere. */
struct replay_target_point {
	uint64_t addr;
	uint64_t len;              /* watchpoints: the length watched; else 0 */
	enum rsp_point_type type;
};

struct replay_target {
	struct replay_bundle *b;
	struct replay_image *img;
	struct replay_state *state;  /* past registers and memory; NULL without
				      * a state log (hardware or imported) */
	struct replay_rodata *rodata; /* read-only data of the recorded files */
	struct replay_target_thread *threads;
	size_t nthreads;
	size_t current;            /* the thread of the last stop */
	struct replay_target_point *points;
	size_t npoints, cappoints;
	uint64_t *addrs;           /* sorted breakpoint addresses for a resume */
	uint64_t *scan_addrs;      /* the addresses the kept scans were made for */
	size_t nscan_addrs;
	struct replay_dwarf_symbols *syms; /* for monitor history / calls, on first use */
	struct replay_bts *bts;    /* BTS blocks, on first use */
	struct replay_symbolizer symbolizer;
	struct rsp_stop stop;      /* what wait() reports after a resume */
	/* The timeline: a state log that knows every thread's times. The
	 * current time, and the times before the first instruction and after
	 * the last one. */
	bool timed;
	uint64_t time, begin_time, end_time;
	/* The breakpoint hit the last stop reported (thread, position), or
	 * nthreads: not reported again while that thread stays there. */
	size_t hit_thread;
	uint64_t hit_position;
	bool gone;                 /* killed / detached: no process any more */
	/* The live process of a recording still going on, for memory nothing
	 * touched since (replay_target_set_present_mem); NULL otherwise. */
	int (*present_read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *present_ctx;
	struct dw_served served;   /* the files GDB may read, on first use */
	bool served_made;
};

static struct replay_target_thread *find_thread(struct replay_target *t, int64_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

static void timeline_open(struct replay_target *t);

/* A history that ends in a gap, or with a trace cut short, has no pc at
 * its end, and GDB will not connect to a thread without one ("PC register
 * is not available"): such a thread starts at its last position with a
 * known pc. */
static void start_before_gap(struct replay_cursor *c)
{
	uint64_t pc, p = replay_cursor_position(c), end = p;

	while (p > 1 && replay_cursor_pc(c, &pc) < 0 && replay_cursor_goto(c, p - 1) == 0)
		p--;
	if (replay_cursor_pc(c, &pc) < 0)
		replay_cursor_goto(c, end);    /* no pc anywhere: the end, as before */
}

int replay_target_open(const char *dir, struct replay_target **out, char *err, size_t errsize)
{
	struct replay_target *t = calloc(1, sizeof(*t));
	struct pt_image *unused;
	int r;

	if (!t)
		return -ENOMEM;
	r = replay_bundle_load(dir, &t->b, err, errsize);
	if (r)
		goto fail;
	r = -ENOMEM;
	snprintf(err, errsize, "out of memory");
	t->threads = calloc(t->b->nthreads ? t->b->nthreads : 1, sizeof(*t->threads));
	if (!t->threads || replay_image_new(t->b, &t->img) < 0 ||
	    replay_image_at(t->img, t->b->end_time, &unused) < 0)
		goto fail;
	if (replay_rodata_new(t->b, &t->rodata))
		goto fail;
	/* Only software recordings have state logs; without one, the past
	 * has rip only. A log that is there but unreadable is an error. */
	r = replay_state_open(t->b, &t->state, err, errsize);
	if (r == -ENOENT) {
		t->state = NULL;
	} else if (r) {
		goto fail;
	}
	t->nthreads = t->b->nthreads;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].tid = t->b->threads[i].tid;
		r = replay_cursor_new(t->b, i, NULL, NULL, &t->threads[i].cur);
		if (r) {
			snprintf(err, errsize, "%s: thread %lld: %s", dir,
				 (long long)t->threads[i].tid, strerror(-r));
			goto fail;
		}
		start_before_gap(t->threads[i].cur);
	}
	timeline_open(t);
	*out = t;
	return 0;
fail:
	replay_target_free(t);
	return r;
}

void replay_target_free(struct replay_target *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++)
		replay_cursor_free(t->threads[i].cur);
	replay_dwarf_symbols_free(t->syms);
	replay_bts_free(t->bts);
	replay_state_free(t->state);
	replay_rodata_free(t->rodata);
	replay_image_free(t->img);
	replay_bundle_free(t->b);
	if (t->served_made)
		dw_served_release(&t->served);
	free(t->threads);
	free(t->points);
	free(t->addrs);
	free(t->scan_addrs);
	free(t);
}

struct rsp_target replay_target_rsp(struct replay_target *t)
{
	return (struct rsp_target){ &replay_target_ops, t };
}

int64_t replay_target_pid(const struct replay_target *t)
{
	return t->b->pid;
}

const struct replay_bundle *replay_target_bundle(const struct replay_target *t)
{
	return t->b;
}

struct replay_cursor *replay_target_cursor(struct replay_target *t, int64_t tid)
{
	struct replay_target_thread *th = find_thread(t, tid);

	return th ? th->cur : NULL;
}

static unsigned rt_features(void *ctx)
{
	struct replay_target *t = ctx;

	/* With a state log every register of the past is known, AVX included. */
	return RSP_TARGET_BTRACE_PT | RSP_TARGET_BTRACE_BTS | RSP_TARGET_XFER_EXEC_FILE |
	       RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES | RSP_TARGET_REVERSE |
	       (t->state ? RSP_TARGET_AVX : 0);
}

static int rt_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct replay_target *t = ctx;

	if (t->gone)
		return 0;
	for (size_t i = 0; i < t->nthreads && i < max; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ptid = (struct rsp_ptid){ t->b->pid, t->threads[i].tid };
		out[i].core = -1;
	}
	return (int)t->nthreads;
}

static int rt_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct replay_target *t = ctx;

	return !t->gone && find_thread(t, thread.tid) ? 0 : -ESRCH;
}

/* ---- the past --------------------------------------------------------- */

int replay_target_past_regs(struct replay_target *t, int64_t tid, uint64_t position,
			    struct rsp_regs *regs)
{
	/* Positions count as the state log's indices do: before item N. */
	if (!t->state)
		return -ENODATA;
	return replay_state_regs_at(t->state, tid, position, regs);
}

/* Bytes that never change: code from the image, read-only file data. */
static int static_read(struct replay_target *t, uint64_t addr, uint8_t *buf, size_t len)
{
	int got = replay_image_read(t->img, 0, addr, buf, len);

	return got > 0 ? got : replay_rodata_read(t->rodata, addr, buf, len);
}

void replay_target_set_present_mem(struct replay_target *t,
				   int (*read)(void *ctx, uint64_t addr, void *buf, size_t len),
				   void *ctx)
{
	t->present_read = read;
	t->present_ctx = read ? ctx : NULL;
	if (read && t->state)
		replay_state_set_whole(t->state);
}

bool replay_target_at_end(const struct replay_target *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct replay_cursor *c = t->threads[i].cur;

		if (replay_cursor_position(c) != replay_cursor_size(c) + 1)
			return false;
	}
	return true;
}

/* A run of bytes the log does not know: the present for bytes nothing
 * touched (when there is a present), else the files. */
static int unknown_read(struct replay_target *t, bool untouched, uint64_t addr, uint8_t *buf,
			size_t len)
{
	int got = -EIO;

	if (untouched && t->present_read)
		got = t->present_read(t->present_ctx, addr, buf, len);
	return got > 0 ? got : static_read(t, addr, buf, len);
}

/* Memory at logical time @time: the log, then unknown_read. */
static int mem_at(struct replay_target *t, uint64_t time, uint64_t addr, void *buf, size_t len)
{
	uint8_t status[4096], *p = buf;
	size_t n = 0;

	if (len > sizeof(status))
		len = sizeof(status);
	replay_state_read_mem_status(t->state, time, addr, buf, len, status);
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
		got = unknown_read(t, status[n] == REPLAY_STATE_UNTOUCHED, addr + n, p + n, run);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	return n ? (int)n : -ENODATA;
}

int replay_target_past_mem(struct replay_target *t, int64_t tid, uint64_t position,
			   uint64_t addr, void *buf, size_t len)
{
	uint64_t time;

	if (!t->state || replay_state_time_at(t->state, tid, position, &time))
		return -ENODATA;
	return mem_at(t, time, addr, buf, len);
}

static int rt_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = find_thread(t, thread.tid);
	uint64_t pc;
	int rc;

	if (!th || t->gone)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	rc = replay_target_past_regs(t, th->tid, replay_cursor_position(th->cur), out);
	if (rc < 0 && rc != -ENODATA)
		return rc;
	/* rip always comes from the history itself. */
	if (replay_cursor_pc(th->cur, &pc) == 0)
		rsp_regs_set(out, RSP_REG_RIP, pc);
	else
		out->avail[RSP_REG_RIP] = false;
	return 0;
}

static int rt_refuse_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	(void)ctx;
	(void)thread;
	(void)in;
	return -EROFS;
}

static int rt_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th;
	uint64_t time, pos;
	int n = -ENODATA;

	if (t->timed) {
		n = mem_at(t, t->time, addr, buf, len);
	} else if (t->state && t->nthreads) {
		/* No timeline: the time of the current thread's position. */
		th = &t->threads[t->current < t->nthreads ? t->current : 0];
		pos = replay_cursor_position(th->cur);
		if (!replay_state_time_at(t->state, th->tid, pos, &time))
			n = mem_at(t, time, addr, buf, len);
	}
	if (n > 0)
		return n;
	n = static_read(t, addr, buf, len);
	return n > 0 ? n : -EIO;
}

static int rt_refuse_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	(void)buf;
	(void)len;
	return -EROFS;
}

/* ---- breakpoints ------------------------------------------------------ */

static bool is_break(enum rsp_point_type type)
{
	return type == RSP_POINT_SW_BREAK || type == RSP_POINT_HW_BREAK;
}

/* The point's length: 0 for breakpoints, @kind for write watchpoints (on
 * a timeline: a state log), else -EOPNOTSUPP: reads are not logged (Z3 /
 * Z4). */
static int64_t point_len(const struct replay_target *t, enum rsp_point_type type, int kind)
{
	if (is_break(type))
		return 0;
	if (type != RSP_POINT_WRITE_WATCH || !t->timed || kind <= 0)
		return -EOPNOTSUPP;
	return kind;
}

static int rt_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;
	int64_t len = point_len(t, type, kind);

	if (len < 0)
		return (int)len;
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].addr == addr && t->points[i].type == type &&
		    t->points[i].len == (uint64_t)len)
			return 0;
	if (t->npoints == t->cappoints) {
		size_t cap = t->cappoints ? t->cappoints * 2 : 16;
		struct replay_target_point *p = realloc(t->points, cap * sizeof(*p));
		uint64_t *a = realloc(t->addrs, cap * sizeof(*a));
		uint64_t *sa = realloc(t->scan_addrs, cap * sizeof(*sa));

		if (p)
			t->points = p;
		if (a)
			t->addrs = a;
		if (sa)
			t->scan_addrs = sa;
		if (!p || !a || !sa)
			return -ENOMEM;
		t->cappoints = cap;
	}
	t->points[t->npoints++] = (struct replay_target_point){ addr, (uint64_t)len, type };
	return 0;
}

static int rt_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;
	int64_t len = point_len(t, type, kind);

	if (len < 0)
		return (int)len;
	for (size_t i = 0; i < t->npoints; i++) {
		if (t->points[i].addr == addr && t->points[i].type == type &&
		    t->points[i].len == (uint64_t)len) {
			t->points[i] = t->points[--t->npoints];
			break;
		}
	}
	return 0;
}

static struct replay_cursor_breaks breaks_of(struct replay_target *t)
{
	struct replay_cursor_breaks bps = { t->addrs, 0 };
	size_t n = 0;

	for (size_t i = 0; i < t->npoints; i++)
		if (is_break(t->points[i].type))
			t->addrs[n++] = t->points[i].addr;
	bps.n = n ? replay_cursor_breaks_sort(t->addrs, n) : 0;
	return bps;
}

/* swbreak or hwbreak, as GDB inserted the breakpoint at @pc. */
static enum rsp_stop_reason break_reason(const struct replay_target *t, uint64_t pc)
{
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].addr == pc && t->points[i].type == RSP_POINT_SW_BREAK)
			return RSP_REASON_SWBREAK;
	return RSP_REASON_HWBREAK;
}

/* ---- resuming --------------------------------------------------------- */

/* The thread a resume moves: the one a step, range step or reverse action
 * names, else the current thread if it is resumed, else the first. */
static size_t resumed_thread(struct replay_target *t, const struct rsp_resume *actions, size_t n)
{
	const struct rsp_resume *pick = NULL;
	struct replay_target_thread *th;

	for (size_t i = 0; i < n && !pick; i++)
		if (actions[i].kind != RSP_RESUME_CONTINUE && actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	for (size_t i = 0; i < n && !pick; i++)
		if (t->current < t->nthreads && actions[i].thread.tid == t->threads[t->current].tid &&
		    actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	for (size_t i = 0; i < n && !pick; i++)
		if (actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	th = pick ? find_thread(t, pick->thread.tid) : NULL;
	return th ? (size_t)(th - t->threads) : t->current;
}

/* The action for thread @i, or NULL. */
static const struct rsp_resume *action_of(const struct replay_target *t, size_t i,
					  const struct rsp_resume *actions, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (actions[k].thread.tid == t->threads[i].tid)
			return &actions[k];
	return NULL;
}

static bool is_reverse(enum rsp_resume_kind kind)
{
	return kind == RSP_RESUME_REVERSE_STEP || kind == RSP_RESUME_REVERSE_CONTINUE;
}

/* A stop at a watched write: past the cursor's stop kinds. */
#define STOP_WATCH 100

static enum rsp_stop_reason stop_reason(struct replay_target *t, struct replay_cursor *cur, int r)
{
	uint64_t pc;

	switch (r) {
	case STOP_WATCH:
		return RSP_REASON_WATCH;
	case REPLAY_CURSOR_BREAK:
		return replay_cursor_pc(cur, &pc) == 0 ? break_reason(t, pc) : RSP_REASON_SWBREAK;
	case REPLAY_CURSOR_BEGIN:
		return RSP_REASON_REPLAY_BEGIN;
	case REPLAY_CURSOR_END:
		return RSP_REASON_REPLAY_END;
	case REPLAY_CURSOR_GAP:
		return RSP_REASON_NONE;
	default:
		return RSP_REASON_STEP;
	}
}

/* Without a timeline: moves @cur as @act says; a stop kind of cursor.h or
 * < 0. */
static int move(struct replay_target *t, struct replay_cursor *cur, const struct rsp_resume *act)
{
	struct replay_cursor_breaks bps = breaks_of(t);

	switch (act->kind) {
	case RSP_RESUME_REVERSE_STEP:
		return replay_cursor_step(cur, REPLAY_BACKWARD);
	case RSP_RESUME_REVERSE_CONTINUE:
		return replay_cursor_continue(cur, REPLAY_BACKWARD, &bps);
	case RSP_RESUME_STEP:
		return replay_cursor_step(cur, REPLAY_FORWARD);
	case RSP_RESUME_RANGE:
		return replay_cursor_range_step(cur, act->range_start, act->range_end, &bps);
	case RSP_RESUME_CONTINUE:
		return replay_cursor_continue(cur, REPLAY_FORWARD, &bps);
	case RSP_RESUME_STOP:
		break;
	}
	return REPLAY_CURSOR_STEP;
}

/* ---- the timeline ----------------------------------------------------- */

static uint64_t clamp_position(const struct replay_cursor *cur, uint64_t pos)
{
	uint64_t end = replay_cursor_size(cur) + 1;

	return pos < 1 ? 1 : pos > end ? end : pos;
}

/* The time at thread @i's position @pos (>= 1): after the instruction
 * before it ran. Item q runs at time_of(q + 1). Timed targets only. */
static uint64_t time_of(struct replay_target *t, size_t i, uint64_t pos)
{
	uint64_t time = 0;

	replay_state_time_at(t->state, t->threads[i].tid, pos, &time);
	return time;
}

/* The moment before item @q of thread @i runs: a stop at @q. */
static uint64_t before(struct replay_target *t, size_t i, uint64_t q)
{
	uint64_t time = time_of(t, i, q + 1);

	return time ? time - 1 : 0;
}

/* Thread @i's position at @time: after every instruction of time <= @time
 * (1 when there is none, its end at most). */
static uint64_t position_at(struct replay_target *t, size_t i, uint64_t time)
{
	uint64_t pos = 1;

	replay_state_position_at(t->state, t->threads[i].tid, time, &pos);
	return clamp_position(t->threads[i].cur, pos);
}

/* A timeline needs every thread's times: each thread with instructions in
 * the state log. The beginning is the moment before the earliest first
 * instruction, the end the time of the latest last one; the cursors start
 * there. */
static void timeline_open(struct replay_target *t)
{
	bool any = false;

	t->timed = false;
	for (size_t i = 0; t->state && i < t->nthreads; i++) {
		struct replay_target_thread *th = &t->threads[i];
		uint64_t size = replay_cursor_size(th->cur), first, last;

		if (!size)
			continue;
		if (replay_state_time_at(t->state, th->tid, 2, &first) < 0 ||
		    replay_state_time_at(t->state, th->tid, size + 1, &last) < 0)
			return;
		first = first ? first - 1 : 0;
		if (!any || first < t->begin_time)
			t->begin_time = first;
		if (!any || last > t->end_time)
			t->end_time = last;
		any = true;
	}
	t->timed = any;
	t->time = t->end_time;
	t->hit_thread = t->nthreads;
}

/* Makes @time the current time: every thread at its position then, thread
 * @i (if < nthreads) at @pos (its position then, said by the caller who
 * knows it). 0 or < 0. */
static int timeline_go(struct replay_target *t, uint64_t time, size_t i, uint64_t pos)
{
	int err = 0;

	t->time = time;
	for (size_t k = 0; k < t->nthreads; k++) {
		uint64_t to = k == i ? pos : position_at(t, k, time);
		int r = replay_cursor_goto(t->threads[k].cur, to);

		if (r < 0 && !err)
			err = r;
	}
	return err;
}

int replay_target_time(const struct replay_target *t, uint64_t *time)
{
	if (!t->timed)
		return -ENODATA;
	*time = t->time;
	return 0;
}

/* Where a resume on the timeline may stop: thread @thread at @position,
 * which makes @time the current time, for @kind (a stop kind of cursor.h
 * or STOP_WATCH, at @watch_addr's watchpoint). */
struct stop_at {
	bool set;
	size_t thread;
	uint64_t position, time;
	int kind;
	uint64_t watch_addr;
};

/* At one time a write comes first (the instruction at a breakpoint wrote,
 * or the one a step ran), then a breakpoint or gap, then a step's end. */
static int rank(int kind)
{
	return kind == STOP_WATCH ? 0 : kind == REPLAY_CURSOR_STEP ? 2 : 1;
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

/* Drops the kept scans when the breakpoints are not those they were made
 * for (GDB inserts and removes them around every resume: the set is
 * compared, not the calls counted). */
static void scans_sync(struct replay_target *t, const struct replay_cursor_breaks *bps)
{
	if (t->nscan_addrs == bps->n &&
	    (!bps->n || !memcmp(t->scan_addrs, bps->addrs, bps->n * sizeof(*bps->addrs))))
		return;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].back.valid = false;
		t->threads[i].fwd.valid = false;
	}
	if (bps->n)
		memcpy(t->scan_addrs, bps->addrs, bps->n * sizeof(*bps->addrs));
	t->nscan_addrs = bps->n;
}

/* The hits or gap items among thread @i's items [@lo, @hi), one by one
 * (a short stretch: the cursor's window holds it): the first (forward)
 * or last (backward) hit into *@q. 1, 0 for none, -ENODATA at a gap (the
 * caller scans instead), < 0. */
static int walk(struct replay_target *t, size_t i, uint64_t lo, uint64_t hi, bool back,
		const struct replay_cursor_breaks *bps, uint64_t *q)
{
	for (uint64_t k = 0; k < hi - lo; k++) {
		uint64_t n = back ? hi - 1 - k : lo + k, ip;
		int r = replay_cursor_item_ip(t->threads[i].cur, n, &ip);

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
static bool kept(const struct replay_target *t, size_t i, bool back)
{
	const struct replay_target_thread *th = &t->threads[i];
	const struct replay_target_scan *s = back ? &th->back : &th->fwd;
	uint64_t p = replay_cursor_position(th->cur);

	return s->valid && (back ? s->stop < p && p <= s->from : s->from <= p && p < s->stop);
}

/* Thread @i's cursor continued from its position (a scan by blocks), or
 * the kept scan that holds the answer: where it stops into *@q, how into
 * *@kind. Moves the cursor. 0 or < 0. */
static int scan(struct replay_target *t, size_t i, bool back,
		const struct replay_cursor_breaks *bps, uint64_t *q, int *kind)
{
	struct replay_target_thread *th = &t->threads[i];
	struct replay_target_scan *s = back ? &th->back : &th->fwd;
	uint64_t p = replay_cursor_position(th->cur);
	int r;

	if (kept(t, i, back)) {
		*q = s->stop;
		*kind = s->kind;
		return 0;
	}
	r = replay_cursor_continue(th->cur, back ? REPLAY_BACKWARD : REPLAY_FORWARD, bps);
	if (r < 0)
		return r;
	*q = replay_cursor_position(th->cur);
	*kind = r;
	/* Where a gap stops depends on where the scan started: not kept. */
	*s = (struct replay_target_scan){ r == REPLAY_CURSOR_BREAK || r == REPLAY_CURSOR_BEGIN ||
						  r == REPLAY_CURSOR_END,
					  p, *q, r };
	return 0;
}

/* How many items next to a position are looked at one by one before a
 * scan by blocks: a hit is often that close (and the other threads' stops
 * bound the search to about that much). */
#define WALK_MAX 4096

/* Offers thread @i's breakpoint hit or gap nearest to the current time
 * going @back or forward, if one can still come first. Backward: items
 * before its position (they ran at or before the current time). Forward:
 * items from its position on, its own position included (its instruction
 * has not run: a hit still to come), except for @self, the thread a
 * continue resumed (it runs first, as GDB steps it off a breakpoint), and
 * for the hit the last stop reported (GDB steps that thread off it too).
 * A hit at item q stops at the moment before q runs. 0 or < 0. */
static int thread_stop(struct replay_target *t, size_t i, bool back, bool self,
		       const struct replay_cursor_breaks *bps, struct stop_at *best)
{
	struct replay_target_thread *th = &t->threads[i];
	uint64_t p = replay_cursor_position(th->cur), size = replay_cursor_size(th->cur);
	uint64_t lo, hi, wlo, whi, q = 0, ip;
	int r, kind = REPLAY_CURSOR_BREAK;
	struct stop_at c;

	if (!bps->n && !replay_cursor_index(th->cur)->ngaps)
		return 0;
	self = self || (i == t->hit_thread && p == t->hit_position);
	/* The items that can hold a stop no later than the best so far. */
	lo = back ? 1 : self ? p + 1 : p;
	hi = back ? p : size + 1;
	if (best->set) {
		uint64_t b = position_at(t, i, back ? best->time : best->time + 1);

		if (back && b > lo)
			lo = b;
		if (!back && b < hi)
			hi = b;
	}
	if (lo >= hi)
		return 0;
	/* The nearest of them one by one, then the rest by blocks. */
	wlo = back && hi - lo > WALK_MAX ? hi - WALK_MAX : lo;
	whi = !back && hi - lo > WALK_MAX ? lo + WALK_MAX : hi;
	r = walk(t, i, wlo, whi, back, bps, &q);
	if (r == 1 && (back || q > p))
		*(back ? &th->back : &th->fwd) = (struct replay_target_scan){
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
			r = scan(t, i, back, bps, &q, &kind);
			if (r < 0)
				return r;
			if (kind != REPLAY_CURSOR_BREAK && kind != REPLAY_CURSOR_GAP)
				return 0;
		}
	}
	c = (struct stop_at){ true, i, q, before(t, i, q), kind, 0 };
	offer(best, &c, back);
	return 0;
}

/* ---- watchpoints ------------------------------------------------------ */

static bool has_watch(const struct replay_target *t)
{
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].type == RSP_POINT_WRITE_WATCH)
			return true;
	return false;
}

/* A stop where a state log cut short stops being whole (the latest time
 * memory is known at, in the thread whose log ends first): a watched
 * write after it cannot be ruled out, so a resume stops there as at a
 * gap. 0, or -ENOENT if no log is cut. */
static int cut_edge(struct replay_target *t, struct stop_at *c)
{
	uint64_t pos, until, first = UINT64_MAX;
	size_t at = 0;

	for (size_t i = 0; i < t->nthreads; i++) {
		if (replay_state_cut(t->state, t->threads[i].tid, &pos, &until) && until < first) {
			first = until;
			at = i;
		}
	}
	if (first == UINT64_MAX || !first)
		return -ENOENT;
	if (replay_state_position_at(t->state, t->threads[at].tid, first - 1, &pos) < 0)
		pos = 1;
	*c = (struct stop_at){ true, at, clamp_position(t->threads[at].cur, pos), first - 1,
			       REPLAY_CURSOR_GAP, 0 };
	return 0;
}

/* Offers the first write to a watched range met going @back or forward
 * from the current time (the latest at or before it, or the earliest after
 * it), in any thread: backward the stop is the writing instruction itself
 * (memory holds the old value), forward the position after it. Where a
 * state log cut short cannot say, the stop is its edge (cut_edge). */
static void watch_offer(struct replay_target *t, bool back, struct stop_at *best)
{
	struct replay_target_thread *th;
	struct replay_state_write w, hit = { 0 };
	uint64_t watch_addr = 0;
	struct stop_at c;
	bool found = false;

	for (size_t i = 0; i < t->npoints; i++) {
		const struct replay_target_point *p = &t->points[i];
		int r;

		if (p->type != RSP_POINT_WRITE_WATCH)
			continue;
		r = back ? replay_state_write_before(t->state, p->addr, p->len, t->time + 1, &w)
			 : replay_state_write_after(t->state, p->addr, p->len, t->time, &w);
		if (r == -ENODATA && cut_edge(t, &c) == 0 && c.time != t->time)
			offer(best, &c, back);
		if (r < 0)
			continue;
		if (!found || (back ? w.time > hit.time : w.time < hit.time)) {
			hit = w;
			watch_addr = p->addr;
			found = true;
		}
	}
	th = found ? find_thread(t, hit.tid) : NULL;
	if (!th)
		return;
	c = (struct stop_at){ true, (size_t)(th - t->threads),
			      clamp_position(th->cur, back ? hit.index : hit.index + 1),
			      back ? hit.time - 1 : hit.time, STOP_WATCH, watch_addr };
	offer(best, &c, back);
}

/* ---- a resume on the timeline ------------------------------------------ */

/* Whether thread @i's breakpoints can stop a resume of thread @x by @act:
 * every thread's going backward (bs aside: it steps @x alone), forward
 * those of the threads resumed (with scheduler-locking only @x is), and
 * @x's own only for a continue (a step or range step stops as it
 * says). */
static bool stops_resume(const struct replay_target *t, size_t i, size_t x,
			 const struct rsp_resume *act, const struct rsp_resume *actions, size_t n)
{
	const struct rsp_resume *a;

	switch (act->kind) {
	case RSP_RESUME_REVERSE_STEP:
		return false;
	case RSP_RESUME_REVERSE_CONTINUE:
		return true;
	case RSP_RESUME_CONTINUE:
		break;
	default:
		if (i == x)
			return false;
	}
	a = action_of(t, i, actions, n);
	return a && a->kind != RSP_RESUME_STOP;
}

/* Thread @x's own move by @act (a step, a range step: a continue has
 * none), as a stop into *@best; REPLAY_CURSOR_BEGIN / _END when it cannot
 * move at all (at its first / last position), else 0; < 0. */
static int own_move(struct replay_target *t, size_t x, const struct rsp_resume *act,
		    const struct replay_cursor_breaks *bps, struct stop_at *best)
{
	struct replay_cursor *cur = t->threads[x].cur;
	uint64_t p = replay_cursor_position(cur), q;
	bool back = act->kind == RSP_RESUME_REVERSE_STEP;
	int r;

	switch (act->kind) {
	case RSP_RESUME_REVERSE_STEP:
	case RSP_RESUME_STEP:
		r = replay_cursor_step(cur, back ? REPLAY_BACKWARD : REPLAY_FORWARD);
		if (r < 0)
			return r;
		q = replay_cursor_position(cur);
		if (q == p)
			return back ? REPLAY_CURSOR_BEGIN : REPLAY_CURSOR_END;
		/* Backward: the state before item q; forward: after item q - 1. */
		*best = (struct stop_at){ true, x, q, back ? before(t, x, q) : time_of(t, x, q),
					  REPLAY_CURSOR_STEP, 0 };
		return 0;
	case RSP_RESUME_RANGE:
		r = replay_cursor_range_step(cur, act->range_start, act->range_end, bps);
		if (r < 0)
			return r;
		q = replay_cursor_position(cur);
		if (r == REPLAY_CURSOR_STEP)
			*best = (struct stop_at){ true, x, q, time_of(t, x, q), r, 0 };
		else if (r == REPLAY_CURSOR_BREAK || r == REPLAY_CURSOR_GAP)
			*best = (struct stop_at){ true, x, q, before(t, x, q), r, 0 };
		/* At its end (inside the range): the others go on. */
		return 0;
	default:
		return 0;
	}
}

/* Where a resume of thread @x by @act stops on the timeline, into *@s
 * (always set): the first of @x's own stop, a watched write, and the
 * breakpoint hits of the threads that count; with none of those, the
 * beginning or the end of everything; at an edge @x cannot leave, where
 * it is. 0 or < 0; cursors may have moved (the caller puts them back). */
static int timeline_stop(struct replay_target *t, size_t x, const struct rsp_resume *act,
			 const struct rsp_resume *actions, size_t n, struct stop_at *s)
{
	struct replay_cursor_breaks bps = breaks_of(t);
	struct replay_cursor *cur = t->threads[x].cur;
	bool back = is_reverse(act->kind), any = false;
	int r;

	memset(s, 0, sizeof(*s));
	r = own_move(t, x, act, &bps, s);
	if (r < 0)
		return r;
	if (r > 0) {
		*s = (struct stop_at){ true, x, replay_cursor_position(cur), t->time, r, 0 };
		return 0;
	}
	if (has_watch(t))
		watch_offer(t, back, s);
	/* The kept scans are checked only when some thread's hits count: a
	 * step GDB makes off a breakpoint (that one removed, the thread
	 * resumed alone) leaves those of the whole set. */
	for (size_t i = 0; i < t->nthreads && !any; i++)
		any = stops_resume(t, i, x, act, actions, n);
	if (any)
		scans_sync(t, &bps);
	/* Threads whose kept scan holds the answer first: their hits bound
	 * the others' searches, often to a short walk. */
	for (int pass = 0; any && pass < 2; pass++) {
		for (size_t i = 0; i < t->nthreads; i++) {
			if (kept(t, i, back) != !pass || !stops_resume(t, i, x, act, actions, n))
				continue;
			r = thread_stop(t, i, back, i == x, &bps, s);
			if (r < 0)
				return r;
		}
	}
	if (s->set)
		return 0;
	*s = (struct stop_at){ true, x, back ? 1 : replay_cursor_size(cur) + 1,
			       back ? t->begin_time : t->end_time,
			       back ? REPLAY_CURSOR_BEGIN : REPLAY_CURSOR_END, 0 };
	return 0;
}

/* A resume on the timeline: the stop found, made the current time. The
 * thread of the stop into *@i; a stop kind, or < 0. */
static int timeline_resume(struct replay_target *t, size_t *i, const struct rsp_resume *act,
			   const struct rsp_resume *actions, size_t n, uint64_t *watch_addr)
{
	struct stop_at s;
	int r = timeline_stop(t, *i, act, actions, n, &s);

	if (r < 0) {
		timeline_go(t, t->time, t->nthreads, 0);
		return r;
	}
	r = timeline_go(t, s.time, s.thread, s.position);
	if (r < 0)
		return r;
	t->hit_thread = s.kind == REPLAY_CURSOR_BREAK ? s.thread : t->nthreads;
	t->hit_position = s.position;
	*i = s.thread;
	*watch_addr = s.watch_addr;
	/* A step that ran the last instruction of everything. */
	if (s.kind == REPLAY_CURSOR_STEP && replay_target_at_end(t))
		return REPLAY_CURSOR_END;
	return s.kind;
}

static int rt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct replay_target *t = ctx;
	const struct rsp_resume *act;
	struct replay_target_thread *th;
	uint64_t watch_addr = 0;
	size_t i;
	int r = REPLAY_CURSOR_STEP;

	if (t->gone || n == 0 || !t->nthreads)
		return -ESRCH;
	i = resumed_thread(t, actions, n);
	act = action_of(t, i, actions, n);
	if (act && act->kind != RSP_RESUME_STOP)
		r = t->timed ? timeline_resume(t, &i, act, actions, n, &watch_addr)
			     : move(t, t->threads[i].cur, act);
	if (r < 0)
		return r;
	th = &t->threads[i];
	t->current = i;
	memset(&t->stop, 0, sizeof(t->stop));
	t->stop.kind = RSP_STOP_SIGNAL;
	t->stop.thread = (struct rsp_ptid){ t->b->pid, th->tid };
	t->stop.signo = act && act->kind != RSP_RESUME_STOP ? SIGTRAP : 0;
	t->stop.reason = stop_reason(t, th->cur, r);
	t->stop.watch_addr = watch_addr;
	return 0;
}

static int rt_event_fd(void *ctx)
{
	(void)ctx;
	return -1;
}

static int rt_wait(void *ctx, struct rsp_stop *out, bool block)
{
	struct replay_target *t = ctx;

	(void)block;
	*out = t->stop;
	return 1;
}

static int rt_interrupt(void *ctx)
{
	(void)ctx;
	return 0;
}

static int rt_end(void *ctx)
{
	struct replay_target *t = ctx;

	t->gone = true;
	return 0;
}

/* The program's path: the mapping whose file has argv[0]'s name. */
static const char *exec_path(const struct replay_bundle *b)
{
	const char *name = b->argv && b->argv[0] ? strrchr(b->argv[0], '/') : NULL;

	name = name ? name + 1 : (b->argv ? b->argv[0] : NULL);
	for (size_t i = 0; name && i < b->nmaps; i++) {
		const char *p = b->maps[i].system_path, *base = p ? strrchr(p, '/') : NULL;

		if (base && !strcmp(base + 1, name))
			return p;
	}
	return b->argv ? b->argv[0] : NULL;
}

static int rt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			struct rsp_buf *out)
{
	struct replay_target *t = ctx;
	const char *path;

	(void)annex;
	if (obj == RSP_XFER_AUXV)
		return replay_auxv_build(t->b, exec_path(t->b), out);
	if (obj == RSP_XFER_LIBRARIES_SVR4)
		return replay_svr4_build(t->b, exec_path(t->b), t->b->end_time, out);
	if (obj != RSP_XFER_EXEC_FILE)
		return -EOPNOTSUPP;
	path = exec_path(t->b);
	return path ? rsp_buf_puts(out, path) : -ENOENT;
}

/* The recording's files: setfs changes nothing (its process is gone, its
 * pid some other process's now, or none's; the files are the stub's own,
 * --vfile-any's too). */
static int rt_served(struct replay_target *t, struct dw_served **out)
{
	int r;

	if (!t->served_made) {
		r = replay_vfile_served(t->b, &t->served);
		if (r) {
			dw_served_release(&t->served);
			return r;
		}
		t->served_made = true;
	}
	*out = &t->served;
	return 0;
}

static int rt_vfile_open(void *ctx, int64_t fs_pid, const char *path, bool any)
{
	struct dw_served *s;
	int r;

	(void)fs_pid;
	if (any)
		return dw_served_open_any("", path);
	r = rt_served(ctx, &s);
	return r ? r : dw_served_open(s, path);
}

static int rt_vfile_readlink(void *ctx, int64_t fs_pid, const char *path, bool any, char *buf,
			     size_t size)
{
	struct dw_served *s;
	int r;

	(void)fs_pid;
	if (any)
		return dw_served_readlink_any("", path, buf, size);
	r = rt_served(ctx, &s);
	return r ? r : dw_served_readlink(s, path, buf, size);
}

static int rt_process_info(void *ctx, struct rsp_process_info *out)
{
	struct replay_target *t = ctx;

	memset(out, 0, sizeof(*out));
	out->pid = t->b->pid;
	out->attached = true; /* GDB detaches, never kills, a recording */
	return 0;
}

static struct replay_target_thread *btrace_thread(struct replay_target *t, struct rsp_ptid thread)
{
	return t->gone ? NULL : find_thread(t, thread.tid);
}

static int rt_btrace_enable(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format format,
			    uint64_t size)
{
	struct replay_target_thread *th = btrace_thread(ctx, thread);

	if (!th)
		return -ESRCH;
	if (format != RSP_BTRACE_PT && format != RSP_BTRACE_BTS)
		return -EOPNOTSUPP;
	if (th->btrace_on)
		return -EALREADY;
	th->btrace_on = true;
	th->btrace_read = false;
	th->btrace_format = format;
	th->bts_size = size;
	return 0;
}

static int rt_btrace_disable(void *ctx, struct rsp_ptid thread)
{
	struct replay_target_thread *th = btrace_thread(ctx, thread);

	if (!th || !th->btrace_on)
		return -ENOENT;
	th->btrace_on = false;
	return 0;
}

/* The thread's PT file, whole. */
static int pt_file(struct replay_target *t, struct rsp_ptid thread, char *path, size_t size)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == thread.tid)
			return replay_bundle_path(t->b, t->b->threads[i].pt_file, path, size);
	return -ESRCH;
}

static int rt_btrace_conf(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			  uint64_t *size)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = btrace_thread(t, thread);
	char path[4096];
	struct stat st;

	if (!th || !th->btrace_on)
		return -ENOENT;
	*format = th->btrace_format;
	*size = th->bts_size;
	if (th->btrace_format == RSP_BTRACE_BTS)
		return 0;
	*size = 0;
	if (pt_file(t, thread, path, sizeof(path)) == 0 && stat(path, &st) == 0)
		*size = (uint64_t)st.st_size;
	return 0;
}

static int read_all(const char *path, struct rsp_buf *out)
{
	uint8_t buf[65536];
	ssize_t n;
	int fd = dw_open_regular(path), err = 0;

	if (fd < 0)
		return fd;
	while (!err && (n = read(fd, buf, sizeof(buf))) > 0)
		err = rsp_buf_append(out, buf, (size_t)n);
	if (!err && n < 0)
		err = -errno;
	close(fd);
	return err;
}

static int code_read(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	return static_read(ctx, addr, buf, len);
}

/* BTS: the thread's history up to its position, as many of the newest
 * blocks as GDB's buffer size holds (24 bytes each, as the kernel's
 * records). */
static int bts_read(struct replay_target *t, struct replay_target_thread *th,
		    enum rsp_btrace_read kind, struct rsp_btrace_data *out)
{
	uint64_t pos = replay_cursor_position(th->cur);
	size_t max = th->bts_size ? (size_t)(th->bts_size / 24) : 0;
	int err;

	if (kind == RSP_BTRACE_READ_NEW && th->btrace_read && th->bts_position == pos)
		return 1;
	if (!t->bts && replay_bts_new(code_read, t, &t->bts) < 0)
		return -ENOMEM;
	err = replay_bts_blocks(t->bts, th->cur, th->bts_size && !max ? 1 : max, &out->blocks,
				&out->nblocks);
	if (err)
		return err;
	out->format = RSP_BTRACE_BTS;
	th->btrace_read = true;
	th->bts_position = pos;
	return 0;
}

static int rt_btrace_read(void *ctx, struct rsp_ptid thread, enum rsp_btrace_read kind,
			  struct rsp_btrace_data *out)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = btrace_thread(t, thread);
	char path[4096];
	int err;

	if (!th || !th->btrace_on)
		return -ENOENT;
	if (kind == RSP_BTRACE_READ_DELTA)
		return -EOPNOTSUPP;
	if (th->btrace_format == RSP_BTRACE_BTS)
		return bts_read(t, th, kind, out);
	/* A recording never grows: `new` has something only the first time. */
	if (kind == RSP_BTRACE_READ_NEW && th->btrace_read)
		return 1;
	err = pt_file(t, thread, path, sizeof(path));
	if (!err)
		err = read_all(path, out->raw);
	if (err)
		return err;
	th->btrace_read = true;
	out->format = RSP_BTRACE_PT;
	snprintf(out->cpu_vendor, sizeof(out->cpu_vendor), "%s", t->b->cpu.vendor);
	out->cpu_family = t->b->cpu.family;
	out->cpu_model = t->b->cpu.model;
	out->cpu_stepping = t->b->cpu.stepping;
	return 0;
}

/* ---- monitor commands ------------------------------------------------ */

static int rt_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	struct replay_target *t = ctx;
	struct replay_cursor **cursors;
	struct replay_monitor_ctx m;
	uint64_t before;
	int rc;

	if (!t->syms) {
		if (replay_dwarf_symbols_new(t->b, &t->syms) < 0)
			return -ENOMEM;
		t->symbolizer.lookup = replay_dwarf_symbols_lookup;
		t->symbolizer.ctx = t->syms;
	}
	cursors = calloc(t->nthreads ? t->nthreads : 1, sizeof(*cursors));
	if (!cursors)
		return -ENOMEM;
	for (size_t i = 0; i < t->nthreads; i++)
		cursors[i] = t->threads[i].cur;
	m = (struct replay_monitor_ctx){ t->b, cursors, t->current, &t->symbolizer, t->state };
	before = t->current < t->nthreads ? replay_cursor_position(cursors[t->current]) : 0;
	rc = replay_monitor_run(&m, cmd, out);
	free(cursors);
	/* `goto` moved the current thread: the time is its position's, and
	 * the others go there. */
	if (rc >= 0 && t->timed && t->current < t->nthreads &&
	    replay_cursor_position(t->threads[t->current].cur) != before) {
		uint64_t pos = replay_cursor_position(t->threads[t->current].cur);
		int r = timeline_go(t, time_of(t, t->current, pos), t->current, pos);

		t->hit_thread = t->nthreads;
		if (r < 0)
			return r;
	}
	return rc;
}

const struct rsp_target_ops replay_target_ops = {
	.features = rt_features,
	.threads = rt_threads,
	.thread_alive = rt_thread_alive,
	.read_regs = rt_read_regs,
	.write_regs = rt_refuse_regs,
	.read_mem = rt_read_mem,
	.write_mem = rt_refuse_mem,
	.insert_point = rt_insert_point,
	.remove_point = rt_remove_point,
	.resume = rt_resume,
	.event_fd = rt_event_fd,
	.wait = rt_wait,
	.interrupt = rt_interrupt,
	.kill = rt_end,
	.detach = rt_end,
	.xfer_read = rt_xfer_read,
	.vfile_open = rt_vfile_open,
	.vfile_readlink = rt_vfile_readlink,
	.process_info = rt_process_info,
	.btrace_enable = rt_btrace_enable,
	.btrace_disable = rt_btrace_disable,
	.btrace_conf = rt_btrace_conf,
	.btrace_read = rt_btrace_read,
	.monitor = rt_monitor,
};
