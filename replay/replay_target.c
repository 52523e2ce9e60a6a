/*
 * replay/replay_target.c: the operations of protocol/target.h over a
 * recording (see replay_target.h for what is served).
 *
 * At open, each thread's history is indexed once to find its last
 * instruction: the thread's pc is the one after it. Memory is read at the
 * logical time of the current thread's position from the state log, the
 * rest from the present or the images of the mappings valid at the end of
 * the recording. A watchpoint stop fixes that time to the moment before
 * or after the write (t->now) while its thread stays there.
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

struct replay_target_thread {
	int64_t tid;
	struct replay_cursor *cur;
	bool btrace_on;
	bool btrace_read;          /* a NEW read was answered already */
	enum rsp_btrace_format btrace_format;
	uint64_t bts_size;         /* bytes GDB asked for (24 a block); 0: all */
	uint64_t bts_position;     /* the position of the last BTS read */
};

/* A breakpoint or write watchpoint GDB inserted: kept here, never
 * written anywhere. */
struct replay_target_point {
	uint64_t addr;
	uint64_t len;              /* watchpoints: the length watched; else 0 */
	enum rsp_point_type type;
};

/* The logical time memory is read at when it is not the one of the
 * current thread's position (replay_state_time_at): after a watchpoint
 * stop, the moment just before (backward) or after (forward) the write,
 * for as long as @thread stays at @position. With several threads, other
 * threads' instructions may fall between a position's own time and its
 * next instruction. */
struct replay_target_now {
	bool set;
	size_t thread;
	uint64_t position;
	uint64_t time;
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
	struct replay_dwarf_symbols *syms; /* for monitor history / calls, on first use */
	struct replay_bts *bts;    /* BTS blocks, on first use */
	struct replay_symbolizer symbolizer;
	struct rsp_stop stop;      /* what wait() reports after a resume */
	struct replay_target_now now;
	bool gone;                 /* killed / detached: no process any more */
	/* The live process of a recording still going on, for memory nothing
	 * touched since (replay_target_set_present_mem); NULL otherwise. */
	int (*present_read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *present_ctx;
};

static struct replay_target_thread *find_thread(struct replay_target *t, int64_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
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
	}
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
	free(t->threads);
	free(t->points);
	free(t->addrs);
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

/* The logical time of thread @i's position (t->now if it is there). 0, or
 * -ENODATA without a state log. */
static int now_time(struct replay_target *t, size_t i, uint64_t *time)
{
	struct replay_target_thread *th = &t->threads[i];
	uint64_t pos = replay_cursor_position(th->cur);

	if (!t->state)
		return -ENODATA;
	if (t->now.set && t->now.thread == i && t->now.position == pos) {
		*time = t->now.time;
		return 0;
	}
	return replay_state_time_at(t->state, th->tid, pos, time) < 0 ? -ENODATA : 0;
}

static int rt_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay_target *t = ctx;
	uint64_t time;
	int n = t->nthreads && now_time(t, t->current < t->nthreads ? t->current : 0, &time) == 0
			? mem_at(t, time, addr, buf, len)
			: -ENODATA;

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

/* The point's length: 0 for breakpoints, @kind for write watchpoints (with
 * a state log), else -EOPNOTSUPP: reads are not logged (Z3 / Z4). */
static int64_t point_len(const struct replay_target *t, enum rsp_point_type type, int kind)
{
	if (is_break(type))
		return 0;
	if (type != RSP_POINT_WRITE_WATCH || !t->state || kind <= 0)
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

		if (p)
			t->points = p;
		if (a)
			t->addrs = a;
		if (!p || !a)
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

/* What move_watched returns for a stop at a watched write. */
#define STOP_WATCH (REPLAY_CURSOR_END + 1)

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

/* Moves @cur as @act says; a stop kind of cursor.h or < 0. */
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

/* ---- watchpoints ------------------------------------------------------ */

/* A write to a watched range, and the watchpoint it hit. */
struct watch_hit {
	struct replay_state_write w;
	uint64_t watch_addr;
};

/* The first write to a watched range met going @dir from time @now (the
 * latest at or before it, or the earliest after it): true and *@hit. */
static bool watch_find(const struct replay_target *t, enum replay_cursor_dir dir, uint64_t now,
		       struct watch_hit *hit)
{
	bool found = false;

	for (size_t i = 0; i < t->npoints; i++) {
		const struct replay_target_point *p = &t->points[i];
		bool back = dir == REPLAY_BACKWARD;
		struct replay_state_write w;
		int r;

		if (p->type != RSP_POINT_WRITE_WATCH)
			continue;
		r = back ? replay_state_write_before(t->state, p->addr, p->len, now + 1, &w)
			 : replay_state_write_after(t->state, p->addr, p->len, now, &w);
		if (r < 0)
			continue;
		if (!found || (back ? w.time > hit->w.time : w.time < hit->w.time)) {
			hit->w = w;
			hit->watch_addr = p->addr;
			found = true;
		}
	}
	return found;
}

static uint64_t clamp_position(const struct replay_cursor *cur, uint64_t pos)
{
	uint64_t end = replay_cursor_size(cur) + 1;

	return pos < 1 ? 1 : pos > end ? end : pos;
}

/* Stops at @hit, found going @dir while thread *@i moved: the writing
 * thread goes to the write (the instruction itself backward, the one
 * after it forward) and becomes *@i; the moved thread, if another, goes
 * to where it was at that moment. STOP_WATCH or < 0. */
static int watch_stop(struct replay_target *t, size_t *i, enum replay_cursor_dir dir,
		      const struct watch_hit *hit, uint64_t *watch_addr)
{
	struct replay_target_thread *wt = find_thread(t, hit->w.tid), *th = &t->threads[*i];
	uint64_t time = dir == REPLAY_BACKWARD ? hit->w.time - 1 : hit->w.time;
	uint64_t pos;
	int r;

	if (!wt)
		return -ESRCH;
	if (wt != th) {
		replay_state_position_at(t->state, th->tid, time, &pos);
		r = replay_cursor_goto(th->cur, clamp_position(th->cur, pos));
		if (r < 0)
			return r;
	}
	pos = clamp_position(wt->cur, dir == REPLAY_BACKWARD ? hit->w.index : hit->w.index + 1);
	r = replay_cursor_goto(wt->cur, pos);
	if (r < 0)
		return r;
	*i = (size_t)(wt - t->threads);
	t->now = (struct replay_target_now){ true, *i, pos, time };
	*watch_addr = hit->watch_addr;
	return STOP_WATCH;
}

static bool has_watch(const struct replay_target *t)
{
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].type == RSP_POINT_WRITE_WATCH)
			return true;
	return false;
}

/* Whether @act continues @th to the edge of its history for sure: no
 * breakpoint and no gap to stop it. */
static bool continue_reaches_edge(struct replay_target *t, struct replay_target_thread *th,
				  const struct rsp_resume *act)
{
	if (act->kind != RSP_RESUME_CONTINUE && act->kind != RSP_RESUME_REVERSE_CONTINUE)
		return false;
	for (size_t i = 0; i < t->npoints; i++)
		if (is_break(t->points[i].type))
			return false;
	return replay_cursor_index(th->cur)->ngaps == 0;
}

/* Moves thread *@i as @act says, watching writes: the watched write met
 * first (by logical time, in any thread) is found in the state log, the
 * cursor moves to its own stop (breakpoint, gap, edge, end of a step), and
 * whichever of the two comes first in the direction of travel wins (a
 * write by the instruction before a forward stop, or at a backward stop,
 * counts as first). A stop kind of cursor.h, STOP_WATCH (with the
 * watchpoint's address in *@watch_addr), or < 0. */
static int move_watched(struct replay_target *t, size_t *i, const struct rsp_resume *act,
			uint64_t *watch_addr)
{
	struct replay_target_thread *th = &t->threads[*i];
	enum replay_cursor_dir dir = act->kind == RSP_RESUME_REVERSE_STEP ||
						     act->kind == RSP_RESUME_REVERSE_CONTINUE
					     ? REPLAY_BACKWARD
					     : REPLAY_FORWARD;
	struct watch_hit hit;
	uint64_t now, reach, q;
	bool moved;
	int r;

	memset(&hit, 0, sizeof(hit));
	if (act->kind == RSP_RESUME_STOP || !has_watch(t) || now_time(t, *i, &now) < 0 ||
	    !watch_find(t, dir, now, &hit))
		return move(t, th->cur, act);
	/* With nothing to stop it before the edge, the cursor need not scan
	 * there unless the edge comes first. */
	moved = !continue_reaches_edge(t, th, act);
	if (moved) {
		r = move(t, th->cur, act);
		if (r < 0)
			return r;
		q = replay_cursor_position(th->cur);
	} else {
		q = dir == REPLAY_BACKWARD ? 1 : replay_cursor_size(th->cur) + 1;
		r = dir == REPLAY_BACKWARD ? REPLAY_CURSOR_BEGIN : REPLAY_CURSOR_END;
	}
	/* The cursor's stop as a time: forward, its position's (after the
	 * instruction before it); backward, the time the instruction at its
	 * position runs at. */
	if (dir == REPLAY_BACKWARD)
		q++;
	if (replay_state_time_at(t->state, th->tid, q, &reach) < 0 ||
	    (dir == REPLAY_FORWARD ? hit.w.time > reach : hit.w.time < reach))
		return moved ? r : move(t, th->cur, act);
	return watch_stop(t, i, dir, &hit, watch_addr);
}

static int rt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct replay_target *t = ctx;
	const struct rsp_resume *act = NULL;
	struct replay_target_thread *th;
	uint64_t watch_addr = 0, before;
	size_t i;
	int r;

	if (t->gone || n == 0 || !t->nthreads)
		return -ESRCH;
	i = resumed_thread(t, actions, n);
	th = &t->threads[i];
	for (size_t k = 0; k < n && !act; k++)
		if (actions[k].thread.tid == th->tid)
			act = &actions[k];
	before = replay_cursor_position(th->cur);
	r = act ? move_watched(t, &i, act, &watch_addr) : REPLAY_CURSOR_STEP;
	if (r < 0)
		return r;
	th = &t->threads[i];
	/* A moment set by an earlier watch stop lasts while nothing moves. */
	if (r != STOP_WATCH && replay_cursor_position(th->cur) != before)
		t->now.set = false;
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
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
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
	m = (struct replay_monitor_ctx){ t->b, cursors, t->current, &t->symbolizer };
	rc = replay_monitor_run(&m, cmd, out);
	free(cursors);
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
	.process_info = rt_process_info,
	.btrace_enable = rt_btrace_enable,
	.btrace_disable = rt_btrace_disable,
	.btrace_conf = rt_btrace_conf,
	.btrace_read = rt_btrace_read,
	.monitor = rt_monitor,
};
