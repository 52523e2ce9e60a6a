/*
 * replay/target/replay_target.c: the operations of protocol/target.h over a
 * recording (see replay_target.h for what is served).
 *
 * At open, each thread's history is indexed once to find its last
 * instruction: the thread's pc is the one after it. The cursors, the
 * clock, the breakpoints and watchpoints are a timeline's
 * (replay/decode/timeline.h): a resume is GDB's actions turned into one of its
 * moves, and its stop into a stop reply. Memory is read at the
 * timeline's time from the state log, the rest from the present or the
 * images of the mappings valid at the end of the recording.
 */
#include "replay/target/replay_target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_served.h"
#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/model/auxv.h"
#include "replay/decode/cursor.h"
#include "replay/model/image.h"
#include "replay/model/rodata.h"
#include "replay/decode/session.h"
#include "replay/model/state.h"
#include "replay/target/svr4.h"
#include "replay/decode/timeline.h"
#include "replay/target/replay_bts.h"
#include "replay/target/replay_monitor.h"
#include "replay/target/replay_vfile.h"

struct replay_target_thread {
	int64_t tid;
	struct replay_cursor *cur; /* the timeline's */
	bool btrace_on;
	bool btrace_read;          /* a NEW read was answered already */
	enum rsp_btrace_format btrace_format;
	uint64_t bts_size;         /* bytes GDB asked for (24 a block); 0: all */
	uint64_t bts_position;     /* the position of the last BTS read */
};

struct replay_target {
	struct replay_session *s;  /* the recording; the next five are its */
	struct replay_bundle *b;
	struct replay_image *img;
	struct replay_state *state;  /* past registers and memory; NULL without
				      * a state log (hardware or imported) */
	struct replay_rodata *rodata; /* read-only data of the recorded files */
	/* The cursors, the clock, the breakpoints and watchpoints GDB
	 * inserted (never written anywhere), tagged with their types. */
	struct replay_timeline *tl;
	struct replay_target_thread *threads;
	size_t nthreads;
	size_t current;            /* the thread of the last stop */
	bool *resumed;             /* per thread, for a resume */
	struct replay_bts *bts;    /* BTS blocks, on first use */
	struct rsp_stop stop;      /* what wait() reports after a resume */
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
	int r;

	if (!t)
		return -ENOMEM;
	/* Symbols are set up on first use (monitor history / calls). */
	r = replay_session_open(dir, REPLAY_SESSION_ALL & ~REPLAY_SESSION_SYMBOLS, &t->s, err,
				errsize);
	if (r)
		goto fail;
	t->b = t->s->b;
	t->img = t->s->img;
	t->rodata = t->s->rodata;
	t->state = t->s->st;
	t->tl = t->s->tl;
	r = -ENOMEM;
	snprintf(err, errsize, "out of memory");
	t->threads = calloc(t->b->nthreads ? t->b->nthreads : 1, sizeof(*t->threads));
	t->resumed = calloc(t->b->nthreads ? t->b->nthreads : 1, sizeof(*t->resumed));
	if (!t->threads || !t->resumed)
		goto fail;
	t->nthreads = t->b->nthreads;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].tid = t->b->threads[i].tid;
		t->threads[i].cur = replay_timeline_cursor(t->tl, i);
		start_before_gap(t->threads[i].cur);
	}
	*out = t;
	return 0;
fail:
	replay_target_free(t);
	return r;
}

/* The threads of the grown recording, each as a new target has it (at
 * its end, branch tracing off); the cursors are the timeline's. */
static int threads_again(struct replay_target *t)
{
	size_t n = t->b->nthreads ? t->b->nthreads : 1;
	struct replay_target_thread *th = realloc(t->threads, n * sizeof(*th));
	bool *res;

	if (th)
		t->threads = th;
	res = th ? realloc(t->resumed, n * sizeof(*res)) : NULL;
	if (!res)
		return -ENOMEM;
	t->resumed = res;
	memset(t->threads, 0, n * sizeof(*t->threads));
	memset(t->resumed, 0, n * sizeof(*t->resumed));
	t->nthreads = t->b->nthreads;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].tid = t->b->threads[i].tid;
		t->threads[i].cur = replay_timeline_cursor(t->tl, i);
		start_before_gap(t->threads[i].cur);
	}
	return 0;
}

int replay_target_extend(struct replay_target *t, char *err, size_t errsize)
{
	int r = replay_session_extend(t->s, err, errsize);

	t->b = t->s->b;
	t->img = t->s->img;
	t->rodata = t->s->rodata;
	t->state = t->s->st;
	t->tl = t->s->tl;
	replay_bts_free(t->bts);
	t->bts = NULL;
	if (t->served_made)
		dw_served_release(&t->served);
	t->served_made = false;
	if (r < 0)
		return r;
	t->current = 0;
	t->stop = (struct rsp_stop){ 0 };
	if (t->present_read && t->state)
		replay_state_set_whole(t->state);
	r = threads_again(t);
	if (r < 0)
		snprintf(err, errsize, "out of memory");
	return r;
}

void replay_target_free(struct replay_target *t)
{
	if (!t)
		return;
	replay_bts_free(t->bts);
	replay_session_free(t->s);
	if (t->served_made)
		dw_served_release(&t->served);
	free(t->threads);
	free(t->resumed);
	free(t);
}

void replay_target_use_points(struct replay_target *t, struct replay_timeline_points *p)
{
	replay_timeline_use_points(t->tl, p);
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

static bool thread_exists(const struct replay_target *t, size_t i);

bool replay_target_thread_before_end(struct replay_target *t, int64_t tid)
{
	struct replay_target_thread *th = find_thread(t, tid);

	if (!th)
		return false;
	return !thread_exists(t, (size_t)(th - t->threads)) ||
	       replay_cursor_position(th->cur) <= replay_cursor_size(th->cur);
}

static unsigned rt_features(void *ctx)
{
	struct replay_target *t = ctx;

	/* With a state log every register of the past is known, AVX included. */
	return RSP_TARGET_BTRACE_PT | RSP_TARGET_BTRACE_BTS | RSP_TARGET_XFER_EXEC_FILE |
	       RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES | RSP_TARGET_REVERSE |
	       (t->state ? RSP_TARGET_AVX : 0);
}

/* Thread @i exists at the current time: the current thread, or one that
 * ran its first instruction by then (a thread created later in the
 * recording is not there yet) and has not exited since. */
static bool thread_exists(const struct replay_target *t, size_t i)
{
	return i == t->current ||
	       (replay_timeline_started(t->tl, i) && !replay_timeline_exited(t->tl, i, t->img));
}

static int rt_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct replay_target *t = ctx;
	size_t n = 0;

	if (t->gone)
		return 0;
	for (size_t i = 0; i < t->nthreads; i++) {
		if (!thread_exists(t, i))
			continue;
		if (n < max) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].ptid = (struct rsp_ptid){ t->b->pid, t->threads[i].tid };
			out[n].core = -1;
		}
		n++;
	}
	return (int)n;
}

static int rt_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct replay_target *t = ctx;
	const struct replay_target_thread *th = t->gone ? NULL : find_thread(t, thread.tid);

	return th && thread_exists(t, (size_t)(th - t->threads)) ? 0 : -ESRCH;
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
	return replay_timeline_at_end(t->tl);
}

/* The thread a resume moves: the stepped one, else the last stop's. */
static int64_t rt_moved_thread(const struct rsp_resume *a, size_t n, int64_t last_tid)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == RSP_RESUME_STEP || a[i].kind == RSP_RESUME_RANGE)
			return a[i].thread.tid;
	return last_tid;
}

/* Whether @thread's range step among @actions has ended where it stands
 * (its pc outside the range): a range step that came to the end of the
 * history there must not take a live step more. */
static bool rt_range_done(struct replay_target *t, const struct rsp_resume *actions, size_t n,
			  struct rsp_ptid thread)
{
	struct rsp_target rt = replay_target_rsp(t);
	struct rsp_regs regs;
	uint64_t pc;

	for (size_t i = 0; i < n; i++) {
		const struct rsp_resume *a = &actions[i];

		if (a->kind != RSP_RESUME_RANGE ||
		    (a->thread.tid > 0 && a->thread.tid != thread.tid))
			continue;
		memset(&regs, 0, sizeof(regs));
		if (rt.ops->read_regs(rt.ctx, thread, &regs) < 0 || !regs.avail[RSP_REG_RIP])
			return false;
		memcpy(&pc, rsp_regs_ptr(&regs, RSP_REG_RIP), sizeof(pc));
		return pc < a->range_start || pc >= a->range_end;
	}
	return false;
}

int replay_target_resume_past(struct replay_target *t, const struct rsp_resume *actions,
			      size_t n, int64_t last_tid, struct rsp_stop *stop)
{
	struct rsp_target rt = replay_target_rsp(t);
	bool cont = true, step = false, reverse = false;
	struct replay_cursor *c;
	int e;

	for (size_t i = 0; i < n; i++) {
		cont &= actions[i].kind == RSP_RESUME_CONTINUE || actions[i].kind == RSP_RESUME_STOP;
		step |= actions[i].kind == RSP_RESUME_STEP;
		reverse |= actions[i].kind == RSP_RESUME_REVERSE_STEP ||
			   actions[i].kind == RSP_RESUME_REVERSE_CONTINUE;
	}
	/* Live only from the present: a continue replays the other threads'
	 * past first; a step of a thread already at its end runs it live. */
	c = replay_target_cursor(t, rt_moved_thread(actions, n, last_tid));
	if (!reverse && (cont ? replay_target_at_end(t) :
			 !c || replay_cursor_position(c) > replay_cursor_size(c)))
		return 1;
	if ((e = rt.ops->resume(rt.ctx, actions, n)) < 0)
		return e;
	if ((e = rt.ops->wait(rt.ctx, stop, true)) < 0)
		return e;
	if (!reverse && stop->reason == RSP_REASON_REPLAY_END) {
		/* The end of the history is the live process: a continue or
		 * range step goes on there; a step has ended, and so has a
		 * range step whose thread stands outside its range there. */
		if (!step && !rt_range_done(t, actions, n, stop->thread))
			return 1;
		stop->reason = RSP_REASON_STEP;
	}
	return 0;
}

int replay_target_time(const struct replay_target *t, uint64_t *time)
{
	return replay_timeline_time(t->tl, time);
}

/* A run of bytes the log does not know: the present for bytes nothing
 * touched (when there is a present), else the files (for untouched bytes
 * also the initial data replay_rodata_read_untouched allows). */
static int unknown_read(struct replay_target *t, bool untouched, uint64_t addr, uint8_t *buf,
			size_t len)
{
	int got = -EIO;

	if (untouched && t->present_read)
		got = t->present_read(t->present_ctx, addr, buf, len);
	if (got <= 0)
		got = replay_image_read(t->img, 0, addr, buf, len);
	if (got <= 0)
		got = untouched ? replay_rodata_read_untouched(t->rodata, addr, buf, len)
				: replay_rodata_read(t->rodata, addr, buf, len);
	return got;
}

static int unknown_fill(void *ctx, bool untouched, uint64_t addr, uint8_t *buf, size_t len)
{
	return unknown_read(ctx, untouched, addr, buf, len);
}

/* Memory at logical time @time: the log, then unknown_read. */
static int mem_at(struct replay_target *t, uint64_t time, uint64_t addr, void *buf, size_t len)
{
	return replay_state_read_mem_filled(t->state, time, addr, buf, len, unknown_fill, t);
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

	if (replay_timeline_time(t->tl, &time) == 0) {
		n = mem_at(t, time, addr, buf, len);
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
	if (type != RSP_POINT_WRITE_WATCH || !replay_timeline_timed(t->tl) || kind <= 0)
		return -EOPNOTSUPP;
	return kind;
}

static enum replay_timeline_point_kind point_kind(enum rsp_point_type type)
{
	return is_break(type) ? REPLAY_TIMELINE_BREAK : REPLAY_TIMELINE_WATCH;
}

/* Kept in the timeline's table, tagged with the type GDB gave it. */
static int rt_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;
	int64_t len = point_len(t, type, kind);

	if (len < 0)
		return (int)len;
	return replay_timeline_point_insert(t->tl, point_kind(type), addr, (uint64_t)len,
					    (int)type);
}

static int rt_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;
	int64_t len = point_len(t, type, kind);

	if (len < 0)
		return (int)len;
	replay_timeline_point_remove(t->tl, point_kind(type), addr, (uint64_t)len, (int)type);
	return 0;
}

/* swbreak or hwbreak, as GDB inserted the breakpoint at @pc. */
static enum rsp_stop_reason break_reason(const struct replay_target *t, uint64_t pc)
{
	return replay_timeline_break_at(t->tl, pc, RSP_POINT_SW_BREAK) ? RSP_REASON_SWBREAK
								       : RSP_REASON_HWBREAK;
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

static enum rsp_stop_reason stop_reason(struct replay_target *t, struct replay_cursor *cur, int r)
{
	uint64_t pc;

	switch (r) {
	case REPLAY_TIMELINE_STOP_WATCH:
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

static enum replay_timeline_move move_of(enum rsp_resume_kind kind)
{
	switch (kind) {
	case RSP_RESUME_REVERSE_STEP:
		return REPLAY_TIMELINE_REVERSE_STEP;
	case RSP_RESUME_REVERSE_CONTINUE:
		return REPLAY_TIMELINE_REVERSE_CONTINUE;
	case RSP_RESUME_STEP:
		return REPLAY_TIMELINE_STEP;
	case RSP_RESUME_RANGE:
		return REPLAY_TIMELINE_RANGE;
	default:
		return REPLAY_TIMELINE_CONTINUE;
	}
}

/* Thread @i's move by @act, the others resumed as @actions say, on the
 * timeline: the stop into *@stop. 0 or < 0. */
static int timeline_move(struct replay_target *t, size_t i, const struct rsp_resume *act,
			 const struct rsp_resume *actions, size_t n,
			 struct replay_timeline_stop *stop)
{
	struct replay_timeline_resume rq = { i, move_of(act->kind), act->range_start,
					     act->range_end, t->resumed };

	for (size_t k = 0; k < t->nthreads; k++) {
		const struct rsp_resume *a = action_of(t, k, actions, n);

		/* A thread not created yet, which the debugger cannot name,
		 * runs once created if the move is a continue, as a new thread
		 * of a live process does. */
		if (!a && !thread_exists(t, k))
			t->resumed[k] = act->kind == RSP_RESUME_CONTINUE;
		else
			t->resumed[k] = a && a->kind != RSP_RESUME_STOP;
	}
	return replay_timeline_resume(t->tl, &rq, stop);
}

static int rt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct replay_target *t = ctx;
	const struct rsp_resume *act;
	struct replay_target_thread *th;
	struct replay_timeline_stop stop = { 0, REPLAY_CURSOR_STEP, 0 };
	size_t i;
	int r;

	if (t->gone || n == 0 || !t->nthreads)
		return -ESRCH;
	i = resumed_thread(t, actions, n);
	act = action_of(t, i, actions, n);
	stop.thread = i;
	if (act && act->kind != RSP_RESUME_STOP) {
		r = timeline_move(t, i, act, actions, n, &stop);
		if (r < 0)
			return r;
	}
	th = &t->threads[stop.thread];
	t->current = stop.thread;
	memset(&t->stop, 0, sizeof(t->stop));
	t->stop.kind = RSP_STOP_SIGNAL;
	t->stop.thread = (struct rsp_ptid){ t->b->pid, th->tid };
	t->stop.signo = act && act->kind != RSP_RESUME_STOP ? SIGTRAP : 0;
	t->stop.reason = stop_reason(t, th->cur, stop.kind);
	t->stop.watch_addr = stop.watch_addr;
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

static int rt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			struct rsp_buf *out)
{
	struct replay_target *t = ctx;
	const char *path;

	(void)annex;
	if (obj == RSP_XFER_AUXV)
		return replay_auxv_build(t->b, replay_bundle_program_path(t->b), out);
	if (obj == RSP_XFER_LIBRARIES_SVR4)
		return replay_svr4_build(t->b, replay_bundle_program_path(t->b), t->b->end_time, out);
	if (obj != RSP_XFER_EXEC_FILE)
		return -EOPNOTSUPP;
	path = replay_bundle_program_path(t->b);
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

/* The thread's PT file (bundle-relative), or NULL: no such thread, or
 * its history is segments of per-cpu streams. */
static const char *pt_file(struct replay_target *t, struct rsp_ptid thread)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == thread.tid)
			return t->b->threads[i].pt_file;
	return NULL;
}

static int rt_btrace_conf(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			  uint64_t *size)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = btrace_thread(t, thread);

	if (!th || !th->btrace_on)
		return -ENOENT;
	*format = th->btrace_format;
	*size = th->bts_size;
	if (th->btrace_format == RSP_BTRACE_BTS)
		return 0;
	replay_bundle_file_size(t->b, pt_file(t, thread), size);   /* 0 if not known */
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
	const struct replay_bundle_mem *mem;
	const char *file;
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
	file = pt_file(t, thread);
	mem = replay_bundle_mem_find(t->b, file);
	err = !file ? -ENOENT : replay_bundle_path(t->b, file, path, sizeof(path));
	if (!err)   /* in memory (a perf.data opened directly) or on disk */
		err = mem ? rsp_buf_append(out->raw, mem->data, mem->size)
			  : read_all(path, out->raw);
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

	if (replay_session_want(t->s, REPLAY_SESSION_SYMBOLS, NULL, 0) < 0)
		return -ENOMEM;
	cursors = calloc(t->nthreads ? t->nthreads : 1, sizeof(*cursors));
	if (!cursors)
		return -ENOMEM;
	for (size_t i = 0; i < t->nthreads; i++)
		cursors[i] = t->threads[i].cur;
	m = (struct replay_monitor_ctx){ t->b, cursors, t->current, &t->s->sym, t->state, t->tl };
	before = t->current < t->nthreads ? replay_cursor_position(cursors[t->current]) : 0;
	rc = replay_monitor_run(&m, cmd, out);
	free(cursors);
	/* `goto` moved the current thread: the time is its position's, and
	 * the others go there. */
	if (rc >= 0 && t->current < t->nthreads &&
	    replay_cursor_position(t->threads[t->current].cur) != before) {
		int r = replay_timeline_follow(t->tl, t->current, false);

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
