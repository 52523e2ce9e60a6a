/*
 * stub/rectarget/stub_rec_target.c: a live process recorded while it is debugged
 * (stub/rectarget/stub_rec_target.h): the present from the recorder, the past from a
 * replay target over the recording so far.
 */
#include "stub/rectarget/stub_rec_target.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/target/replay_target.h"
#include "replay/decode/timeline.h"
#include "stub/live/stub_info.h"
#include "stub/live/stub_proc.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_regs.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_recorder.h"
#include "stub/live/stub_vfile.h"

#define SRT_MAX_WATCH 16
#define SRT_BURST 256             /* instructions between looks at the clock */
#define SRT_SLICE_NS 10000000L    /* wait(block = false) returns after 10 ms */
/* A resume that runs long by single steps says why, and how to go faster:
 * first after this many seconds (HINDSIGHT_SERVE_NOTICE_SECS if set:
 * tests), then every SRT_NOTICE_EVERY. */
#define SRT_NOTICE_FIRST 15
#define SRT_NOTICE_EVERY 120

/* A thread's `record btrace` configuration, kept across replay targets. */
struct srt_btrace {
	int64_t tid;
	enum rsp_btrace_format format;
	uint64_t size;
};

struct stub_rec_target {
	struct stub_recorder *rec; /* made with options.live */
	const struct stub_recorder_live_ops *live;  /* its live operations */
	char dir[4096];
	bool own_dir;              /* a temporary directory: removed at the end */
	bool attached;
	bool avx;
	bool gone;                 /* exited, killed or detached */
	int broken;                /* the recording could not be written: why */
	char broken_msg[4096 + 512];
	int sigfd;                 /* SIGCHLD, while every thread is in a syscall */
	sigset_t old_mask;
	int busyfd;                /* always readable: work to do */
	/* The present. */
	bool running;              /* a live resume is under way */
	struct stub_rec_goal goal;
	/* The breakpoints and write watchpoints: the one table, which every
	 * replay target opened for the past uses too (Z3 / Z4 are the
	 * recorder's alone: the past cannot see reads). The recorder's goal
	 * takes its breaks and watches from it at each resume. */
	struct replay_timeline_points *points;
	uint64_t *breaks;
	size_t capbreaks;
	struct stub_rec_watch watches[SRT_MAX_WATCH];
	struct stub_rec_access accesses[SRT_MAX_WATCH];  /* Z3, Z4 */
	size_t naccesses;
	uint8_t pass[RSP_NSIG];
	pid_t last_tid;            /* the thread of the last stop */
	/* The program's end: a live resume pauses before the syscall that
	 * would end the process; the resume right after that stop lets it. */
	bool at_end;               /* the last stop was that pause */
	bool exit_ok;              /* this live resume lets the program exit */
	char end_msg[512];
	struct stub_proc shadow;   /* for stub_info's queries of the process */
	/* The past. */
	struct replay_target *past;
	bool stale;                /* the recording went on since it was opened */
	bool in_past;              /* a cursor is before the present */
	struct rsp_stop past_stop;
	bool past_pending;         /* past_stop is to be reported */
	struct srt_btrace *btrace; /* threads GDB enabled `record btrace` for */
	size_t nbtrace;
	bool handed_back;          /* the process went to a native target */
	/* How the past was made ready (`monitor record-info` says it). */
	uint64_t opened, extended;
	bool last_extended;
	double last_ms, last_sync_ms;
	/* The live resume under way: since when, and when it next says that
	 * it runs by single steps (seconds since then). */
	struct timespec resumed;
	long notice_s;
	char notice[768];
};

/* ---- plumbing ------------------------------------------------------------ */

static struct stub_proc *srt_shadow(struct stub_rec_target *t)
{
	t->shadow.pid = t->rec->pid;
	t->shadow.alive = !t->gone && t->live->alive(t->rec);
	t->shadow.attached = t->attached;
	t->shadow.mem.fd = t->live->mem_fd(t->rec);
	t->shadow.last_tid = t->last_tid;
	return &t->shadow;
}

static int srt_present_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_rec_target *t = ctx;
	struct stub_mem m = { t->live->mem_fd(t->rec) };

	return stub_mem_read(&m, addr, buf, len);
}

static struct rsp_target srt_past_rsp(struct stub_rec_target *t)
{
	return replay_target_rsp(t->past);
}

/* A replay target over the recording as it is now, using the one table
 * of points. */
static int srt_open_new_past(struct stub_rec_target *t)
{
	struct replay_target *np;
	char err[512];
	int e;

	replay_target_free(t->past);
	t->past = NULL;
	t->in_past = false;
	e = replay_target_open(t->dir, &np, err, sizeof(err));
	if (e < 0)
		return e;
	t->past = np;
	replay_target_use_points(np, t->points);
	return 0;
}

static double srt_ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

/* The replay target over the recording as it is now: the one open
 * extended by what was recorded since (replay_target_extend), or a new
 * one where that cannot be (the first time, an exec, ...). Either way it
 * answers as a new one would, with the points of the table. */
static int srt_open_past(struct stub_rec_target *t)
{
	struct rsp_target rt;
	struct timespec t0;
	char err[512];
	int e;

	if (t->past && !t->stale)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e = t->live->sync(t->rec);
	if (e < 0)
		return e;
	t->last_sync_ms = srt_ms_since(&t0);
	e = t->past ? replay_target_extend(t->past, err, sizeof(err)) : -ENOENT;
	t->last_extended = e == 0;
	if (e < 0)
		e = srt_open_new_past(t);
	if (e < 0)
		return e;
	t->last_ms = srt_ms_since(&t0);
	t->extended += t->last_extended;
	t->opened += !t->last_extended;
	t->stale = false;
	t->in_past = false;
	replay_target_set_present_mem(t->past, srt_present_read, t);
	rt = srt_past_rsp(t);
	for (size_t i = 0; i < t->nbtrace; i++)
		rt.ops->btrace_enable(rt.ctx,
				      (struct rsp_ptid){ t->rec->pid, t->btrace[i].tid },
				      t->btrace[i].format, t->btrace[i].size);
	return 0;
}

/* The process's present is what is served: the past is left. */
static void srt_to_present(struct stub_rec_target *t)
{
	t->in_past = false;
}

/* ---- threads, registers, memory ----------------------------------------- */

static unsigned srt_features(void *ctx)
{
	struct stub_rec_target *t = ctx;

	return (t->avx ? RSP_TARGET_AVX : 0) | RSP_TARGET_REVERSE | RSP_TARGET_BTRACE_PT |
	       RSP_TARGET_BTRACE_BTS |
	       RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES | RSP_TARGET_XFER_SIGINFO |
	       RSP_TARGET_XFER_EXEC_FILE;
}

static int srt_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct stub_rec_target *t = ctx;
	pid_t tids[256];
	size_t n;

	if (t->gone)
		return 0;
	/* In the past, the threads of that time (some may be gone since). */
	if (t->in_past)
		return srt_past_rsp(t).ops->threads(t->past, out, max);
	n = t->live->tids(t->rec, tids, 256);
	for (size_t i = 0; i < n && i < max && i < 256; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ptid = (struct rsp_ptid){ t->rec->pid, tids[i] };
		stub_procfs_thread(t->rec->pid, tids[i], out[i].name,
				   sizeof(out[i].name), &out[i].core);
	}
	return (int)n;
}

static int srt_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct stub_rec_target *t = ctx;

	if (!t->gone && t->in_past)
		return srt_past_rsp(t).ops->thread_alive(t->past, thread);
	return !t->gone && t->live->has_thread(t->rec, (pid_t)thread.tid) ? 0 : -ESRCH;
}

static int srt_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct stub_rec_target *t = ctx;
	struct user_regs_struct gp;
	bool stopped;
	int e;

	if (t->gone)
		return -ESRCH;
	if (t->in_past)
		return srt_past_rsp(t).ops->read_regs(t->past, thread, out);
	e = t->live->task_regs(t->rec, (pid_t)thread.tid, &gp, &stopped);
	if (e < 0)
		return e;
	if (stopped)
		return stub_regs_read((pid_t)thread.tid, t->avx, out);
	/* Inside a syscall: the general registers it entered it with; the
	 * others cannot be read while it runs. */
	memset(out, 0, sizeof(*out));
	stub_regs_from_user(&gp, &(struct user_fpregs_struct){ 0 }, out);
	for (int r = RSP_REG_ST0; r <= RSP_REG_MXCSR; r++)
		out->avail[r] = false;
	for (int r = RSP_REG_YMM0H; r < RSP_REG_COUNT; r++)
		out->avail[r] = false;
	return 0;
}

static int srt_write_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	struct stub_rec_target *t = ctx;
	struct user_regs_struct gp;
	bool stopped;
	int e;

	if (t->gone)
		return -ESRCH;
	if (t->in_past)
		return srt_past_rsp(t).ops->write_regs(t->past, thread, in);
	e = t->live->task_regs(t->rec, (pid_t)thread.tid, &gp, &stopped);
	if (e < 0)
		return e;
	if (!stopped)
		return -EBUSY;
	e = stub_regs_write((pid_t)thread.tid, t->avx, in);
	if (e >= 0)
		e = t->live->regs_changed(t->rec, (pid_t)thread.tid);
	t->stale = true;
	return e;
}

static int srt_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_rec_target *t = ctx;

	if (t->gone)
		return -ESRCH;
	if (t->in_past)
		return srt_past_rsp(t).ops->read_mem(t->past, addr, buf, len);
	return srt_present_read(t, addr, buf, len);
}

static int srt_write_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct stub_rec_target *t = ctx;

	if (t->gone)
		return -ESRCH;
	if (t->in_past)
		return srt_past_rsp(t).ops->write_mem(t->past, addr, buf, len);
	t->stale = true;
	return t->live->write_mem(t->rec, t->last_tid, addr, buf, len);
}

/* ---- breakpoints and watchpoints ---------------------------------------- */

/* Read (Z3) and access (Z4) watchpoints: the recorder checks each
 * instruction's memory operands against them (stub_rec_goal.accesses). */
static int srt_access_point(struct stub_rec_target *t, bool insert, enum rsp_point_type type,
			    uint64_t addr, int kind)
{
	bool ro = type == RSP_POINT_READ_WATCH;
	size_t i;

	if (kind <= 0)
		return -EINVAL;
	for (i = 0; i < t->naccesses; i++)
		if (t->accesses[i].addr == addr && t->accesses[i].len == (uint64_t)kind &&
		    t->accesses[i].read_only == ro)
			break;
	if (insert && i == t->naccesses) {
		if (t->naccesses == SRT_MAX_WATCH)
			return -ENOSPC;
		t->accesses[t->naccesses++] = (struct stub_rec_access){ addr, (uint64_t)kind, ro };
	} else if (!insert && i < t->naccesses) {
		t->accesses[i] = t->accesses[--t->naccesses];
	}
	return 0;
}

static bool srt_is_break(enum rsp_point_type type)
{
	return type == RSP_POINT_SW_BREAK || type == RSP_POINT_HW_BREAK;
}

/* A Z0 - Z2 point as the table holds it (as the replay target does:
 * tagged with its type, a watchpoint's length its kind). */
static int srt_table_op(struct stub_rec_target *t, bool insert, enum rsp_point_type type,
			uint64_t addr, int kind)
{
	enum replay_timeline_point_kind k = srt_is_break(type) ? REPLAY_TIMELINE_BREAK :
							      REPLAY_TIMELINE_WATCH;
	uint64_t len = srt_is_break(type) ? 0 : (uint64_t)kind;

	return insert ? replay_timeline_points_insert(t->points, k, addr, len, (int)type) :
			replay_timeline_points_remove(t->points, k, addr, len, (int)type);
}

/* The write watchpoints of the table; with @addr, whether one is
 * [@addr, @addr + @len). */
static size_t srt_count_watches(const struct stub_rec_target *t, uint64_t addr, uint64_t len,
				bool *found)
{
	size_t n = 0;

	*found = false;
	for (size_t i = 0; i < replay_timeline_points_count(t->points); i++) {
		const struct replay_timeline_point *p = replay_timeline_points_get(t->points, i);

		if (p->kind != REPLAY_TIMELINE_WATCH)
			continue;
		n++;
		*found |= p->addr == addr && p->len == len;
	}
	return n;
}

static int srt_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct stub_rec_target *t = ctx;
	bool found;

	if (type == RSP_POINT_READ_WATCH || type == RSP_POINT_ACCESS_WATCH)
		return srt_access_point(t, true, type, addr, kind);
	if (type == RSP_POINT_WRITE_WATCH &&
	    (kind < 1 || kind > STUB_REC_WATCH_MAX ||
	     (srt_count_watches(t, addr, (uint64_t)kind, &found) == SRT_MAX_WATCH && !found)))
		return -ENOSPC;
	return srt_table_op(t, true, type, addr, kind);
}

static int srt_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct stub_rec_target *t = ctx;

	if (type == RSP_POINT_READ_WATCH || type == RSP_POINT_ACCESS_WATCH)
		return srt_access_point(t, false, type, addr, kind);
	if (type == RSP_POINT_WRITE_WATCH && kind < 1)
		return 0;
	srt_table_op(t, false, type, addr, kind);
	return 0;
}

static int srt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* swbreak or hwbreak, as the debugger inserted the breakpoint at @pc. */
static enum rsp_stop_reason srt_break_reason(const struct stub_rec_target *t, uint64_t pc)
{
	return replay_timeline_points_break_at(t->points, pc, RSP_POINT_SW_BREAK) ?
	       RSP_REASON_SWBREAK : RSP_REASON_HWBREAK;
}

/* The recorder's breaks and write watches, from the table. 0 or -ENOMEM. */
static int srt_goal_points(struct stub_rec_target *t, struct stub_rec_goal *g)
{
	size_t n = replay_timeline_points_count(t->points), nb = 0, nw = 0;

	if (n > t->capbreaks) {
		uint64_t *b = realloc(t->breaks, n * sizeof(*b));

		if (!b)
			return -ENOMEM;
		t->breaks = b;
		t->capbreaks = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct replay_timeline_point *p = replay_timeline_points_get(t->points, i);

		if (p->kind == REPLAY_TIMELINE_BREAK)
			t->breaks[nb++] = p->addr;
		else if (nw < SRT_MAX_WATCH)
			t->watches[nw++] = (struct stub_rec_watch){ .addr = p->addr,
								    .len = (uint32_t)p->len };
	}
	if (nb)
		qsort(t->breaks, nb, sizeof(*t->breaks), srt_cmp_u64);
	g->breaks = t->breaks;
	g->nbreaks = nb;
	g->watches = t->watches;
	g->nwatches = nw;
	return 0;
}

/* ---- resuming ------------------------------------------------------------ */

static long srt_notice_first(void)
{
	const char *v = getenv("HINDSIGHT_SERVE_NOTICE_SECS");
	long s = v && *v ? strtol(v, NULL, 10) : 0;

	return s > 0 ? s : SRT_NOTICE_FIRST;
}

static int srt_resume_live(struct stub_rec_target *t, const struct rsp_resume *actions, size_t n)
{
	struct stub_rec_goal *g = &t->goal;
	const struct rsp_resume *step = NULL;
	bool others = false;
	int e;

	/* The recording ended at a full disk: the program stays where it is
	 * until the debugger detaches (it goes on unrecorded) or kills; the
	 * past recorded so far can still be visited. */
	if (t->broken)
		return t->broken;
	for (size_t i = 0; i < n; i++)
		if (!step && (actions[i].kind == RSP_RESUME_STEP ||
			      actions[i].kind == RSP_RESUME_RANGE))
			step = &actions[i];
	for (size_t i = 0; i < n; i++)
		others |= actions[i].kind == RSP_RESUME_CONTINUE &&
			  (!step || actions[i].thread.tid != step->thread.tid);
	memset(g, 0, sizeof(*g));
	g->kind = !step ? STUB_REC_GO_CONTINUE :
		  step->kind == RSP_RESUME_STEP ? STUB_REC_GO_STEP : STUB_REC_GO_RANGE;
	if (step) {
		g->tid = (pid_t)step->thread.tid;
		g->only = !others;
		g->range_start = step->range_start;
		g->range_end = step->range_end;
	} else {
		/* A continue of one thread, the others left stopped (GDB's
		 * scheduler-locking: vCont;c:TID with no action for the rest). */
		const struct rsp_resume *one = NULL;
		size_t ncont = 0;

		for (size_t i = 0; i < n; i++)
			if (actions[i].kind == RSP_RESUME_CONTINUE) {
				ncont++;
				one = &actions[i];
			}
		if (ncont == 1 && t->live->tids(t->rec, NULL, 0) > 1) {
			g->tid = (pid_t)one->thread.tid;
			g->only = true;
		}
	}
	e = srt_goal_points(t, g);
	if (e < 0)
		return e;
	g->accesses = t->accesses;
	g->naccesses = t->naccesses;
	g->pass = t->pass;
	g->exit_ok = t->exit_ok;
	for (size_t i = 0; i < n; i++) {
		if (actions[i].kind == RSP_RESUME_STOP)
			continue;
		e = t->live->set_signal(t->rec, (pid_t)actions[i].thread.tid, actions[i].signo);
		if (e < 0 && e != -ESRCH)
			return e;
	}
	e = t->live->goal_start(t->rec, g);
	if (e < 0)
		return e;
	srt_to_present(t);
	t->stale = true;
	t->running = true;
	t->past_pending = false;
	clock_gettime(CLOCK_MONOTONIC, &t->resumed);
	t->notice_s = srt_notice_first();
	return 0;
}

/* The thread a forward resume moves (as the replay target picks it). */
static int srt_resume_past(struct stub_rec_target *t, const struct rsp_resume *actions, size_t n)
{
	int e = replay_target_resume_past(t->past, actions, n, t->last_tid, &t->past_stop);

	if (e == 1)
		return srt_resume_live(t, actions, n);
	if (e < 0)
		return e;
	t->in_past = !replay_target_at_end(t->past);
	t->past_pending = true;
	t->running = false;
	return 0;
}

static int srt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct stub_rec_target *t = ctx;
	bool reverse = false;
	int e;

	if (t->gone || !n)
		return -ESRCH;
	for (size_t i = 0; i < n; i++)
		reverse |= actions[i].kind == RSP_RESUME_REVERSE_STEP ||
			   actions[i].kind == RSP_RESUME_REVERSE_CONTINUE;
	/* From the stop at the end, going on forward is going out. */
	t->exit_ok = t->at_end && !reverse && !t->in_past;
	t->at_end = false;
	if (!reverse && !t->in_past)
		return srt_resume_live(t, actions, n);
	if (!t->in_past) {
		e = srt_open_past(t);
		if (e < 0)
			return e;
	}
	return srt_resume_past(t, actions, n);
}

static int srt_event_fd(void *ctx)
{
	struct stub_rec_target *t = ctx;

	if (!t->running)
		return t->past_pending ? -1 : t->busyfd;
	return t->live->waiting(t->rec) && !t->live->interrupted(t->rec) ? t->sigfd : t->busyfd;
}

static void srt_drain_sigfd(struct stub_rec_target *t)
{
	struct signalfd_siginfo si;

	while (read(t->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
}

static void srt_stop_of(struct stub_rec_target *t, const struct stub_rec_pause *p,
			struct rsp_stop *out)
{
	struct user_regs_struct gp;
	bool stopped;

	memset(out, 0, sizeof(*out));
	out->kind = RSP_STOP_SIGNAL;
	out->thread = (struct rsp_ptid){ t->rec->pid, p->tid };
	out->signo = SIGTRAP;
	switch (p->kind) {
	case STUB_REC_PAUSE_BREAK:
		out->reason = RSP_REASON_SWBREAK;
		if (t->live->task_regs(t->rec, p->tid, &gp, &stopped) == 0)
			out->reason = srt_break_reason(t, gp.rip);
		break;
	case STUB_REC_PAUSE_STEP:
		out->reason = RSP_REASON_STEP;
		break;
	case STUB_REC_PAUSE_WATCH:
		out->reason = RSP_REASON_WATCH;
		out->watch_addr = p->watch_addr;
		break;
	case STUB_REC_PAUSE_ACCESS:
		out->reason = RSP_REASON_AWATCH;
		out->watch_addr = p->watch_addr;
		break;
	case STUB_REC_PAUSE_READ:
		out->reason = RSP_REASON_RWATCH;
		out->watch_addr = p->watch_addr;
		break;
	case STUB_REC_PAUSE_SIGNAL:
		out->signo = p->sig;
		break;
	case STUB_REC_PAUSE_INTERRUPT:
		out->signo = SIGINT;
		break;
	case STUB_REC_PAUSE_END:
		/* As GDB's own `record full` stops there: "Program stopped."
		 * after the reason, on the console. */
		out->signo = 0;
		out->message = stub_rec_target_end_msg(t->end_msg, sizeof(t->end_msg),
						       p->sig == SYS_exit || p->sig == 1);
		break;
	case STUB_REC_PAUSE_EXITED:
		out->kind = p->sig ? RSP_STOP_TERMINATED : RSP_STOP_EXITED;
		out->thread.tid = out->thread.pid;
		out->signo = p->sig;
		out->status = p->status;
		break;
	}
}

const char *stub_rec_target_end_msg(char *buf, size_t size, bool exit)
{
	snprintf(buf, size,
		 "hindsight: the next instruction is syscall %s, which ends the program: "
		 "stopped before it, the process still there, so that its recording can "
		 "be gone back over. `continue` again lets it exit; `kill` and `detach` "
		 "work as usual.\n", exit ? "exit" : "exit_group");
	return buf;
}

static long srt_ns_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000000L + (b.tv_nsec - a->tv_nsec);
}

/* The recording cannot be written (a full disk): the program, alive, is
 * stopped where it is and the debugger told why; the past recorded so far
 * stays (its end a gap). 1. */
static int srt_stop_broken(struct stub_rec_target *t, int e, struct rsp_stop *out)
{
	pid_t tid = t->live->pause_all(t->rec);

	t->broken = e;
	t->running = false;
	snprintf(t->broken_msg, sizeof(t->broken_msg),
		 "hindsight: the recording in %s stopped: %s. The program is stopped here, "
		 "alive; what was recorded before is kept. `detach` lets it go on unrecorded, "
		 "`kill` ends it.\n", t->dir, strerror(-e));
	memset(out, 0, sizeof(*out));
	out->kind = RSP_STOP_SIGNAL;
	out->thread = (struct rsp_ptid){ t->rec->pid, tid };
	out->signo = 0;
	out->message = t->broken_msg;
	t->last_tid = tid;
	return 1;
}

/* A live resume that has run long by single steps says so, on the
 * debugger's console (@out's message while running) and on stderr: a
 * user waiting for a breakpoint far away learns why, and how to go
 * faster (docs/serve.md, "What each way costs"). */
static void srt_notice(struct stub_rec_target *t, struct rsp_stop *out)
{
	long s = srt_ns_since(&t->resumed) / 1000000000L;

	if (s < t->notice_s)
		return;
	t->notice_s = s + SRT_NOTICE_EVERY;
	snprintf(t->notice, sizeof(t->notice),
		 "hindsight: the program has run for %ld s by single steps since it was resumed, "
		 "recorded instruction by instruction (tens of thousands a second: `hindsight "
		 "doctor` measures it here), so a breakpoint far into a big program takes "
		 "minutes. To go faster, serve it again with --record valgrind (Valgrind's "
		 "speed, going back over the whole run) or --record on-request (full speed "
		 "until `record btrace`); Ctrl-C stops it here.\n", s);
	out->message = t->notice;
	fprintf(stderr, "hindsight serve: %s", t->notice + 11);
}

static int srt_wait(void *ctx, struct rsp_stop *out, bool block)
{
	struct stub_rec_target *t = ctx;
	struct stub_rec_pause p;
	struct timespec start;
	int e;

	if (t->past_pending) {
		*out = t->past_stop;
		t->past_pending = false;
		t->last_tid = (pid_t)out->thread.tid;
		return 1;
	}
	if (!t->running)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		srt_drain_sigfd(t);
		e = t->live->run_until(t->rec, &t->goal, SRT_BURST, &p);
		if (e < 0 && stub_rec_unwritable(e))
			return srt_stop_broken(t, e, out);
		if (e < 0)
			return e;
		if (e == 1)
			break;
		if (t->live->waiting(t->rec) && !t->live->interrupted(t->rec)) {
			if (!block)
				return 0;
			poll(&(struct pollfd){ .fd = t->sigfd, .events = POLLIN }, 1, -1);
		} else if (!block && srt_ns_since(&start) > SRT_SLICE_NS) {
			srt_notice(t, out);
			return 0;
		}
	}
	t->running = false;
	srt_stop_of(t, &p, out);
	if (p.kind == STUB_REC_PAUSE_EXITED) {
		t->live->end(t->rec, false);
		t->gone = true;
	} else {
		t->last_tid = p.tid;
		t->at_end = p.kind == STUB_REC_PAUSE_END;
	}
	return 1;
}

static int srt_interrupt(void *ctx)
{
	struct stub_rec_target *t = ctx;

	if (t->running)
		t->live->interrupt(t->rec);
	return 0;
}

static int srt_kill(void *ctx)
{
	struct stub_rec_target *t = ctx;

	if (!t->gone)
		t->live->end(t->rec, false);
	t->gone = true;
	t->running = false;
	return 0;
}

static int srt_detach(void *ctx)
{
	struct stub_rec_target *t = ctx;

	if (!t->gone)
		t->live->end(t->rec, true);
	t->gone = true;
	t->running = false;
	return 0;
}

/* ---- queries --------------------------------------------------------------- */

static int srt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			 struct rsp_buf *out)
{
	struct stub_rec_target *t = ctx;

	if (t->gone)
		return -ESRCH;
	return stub_info_xfer(srt_shadow(t), obj, annex, out);
}

static int srt_process_info(void *ctx, struct rsp_process_info *out)
{
	return stub_info_process(srt_shadow(ctx), out);
}

static int srt_shlib_info_addr(void *ctx, uint64_t *addr)
{
	return stub_info_shlib_addr(srt_shadow(ctx), addr);
}

static int srt_memory_region(void *ctx, uint64_t addr, struct rsp_region *out)
{
	return stub_info_region(srt_shadow(ctx), addr, out);
}

static int srt_vfile_open(void *ctx, int64_t fs_pid, const char *path, bool any)
{
	struct stub_rec_target *t = ctx;

	if (t->gone && !any)
		return -EACCES;
	return stub_vfile_open(srt_shadow(t)->pid, fs_pid, path, any);
}

static int srt_vfile_readlink(void *ctx, int64_t fs_pid, const char *path, bool any, char *buf,
			      size_t size)
{
	struct stub_rec_target *t = ctx;

	if (t->gone && !any)
		return -EACCES;
	return stub_vfile_readlink(srt_shadow(t)->pid, fs_pid, path, any, buf, size);
}

static int srt_set_pass_signals(void *ctx, const uint8_t pass[RSP_NSIG])
{
	struct stub_rec_target *t = ctx;

	memcpy(t->pass, pass, sizeof(t->pass));
	return 0;
}

/* ---- branch trace and monitor: the recording as it is now ----------------- */

static int srt_btrace_enable(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format format,
			     uint64_t size)
{
	struct stub_rec_target *t = ctx;
	struct srt_btrace *nv;
	int e;

	if (t->gone || !t->live->has_thread(t->rec, (pid_t)thread.tid))
		return -ESRCH;
	for (size_t i = 0; i < t->nbtrace; i++)
		if (t->btrace[i].tid == thread.tid)
			return -EALREADY;
	/* Nothing recorded yet (GDB enables it at the first instruction): the
	 * replay target opened later is enabled then (srt_open_past). */
	if (srt_open_past(t) == 0) {
		e = srt_past_rsp(t).ops->btrace_enable(t->past, thread, format, size);
		if (e < 0)
			return e;
	}
	nv = realloc(t->btrace, (t->nbtrace + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	t->btrace = nv;
	t->btrace[t->nbtrace++] = (struct srt_btrace){ thread.tid, format, size };
	return 0;
}

static int srt_btrace_disable(void *ctx, struct rsp_ptid thread)
{
	struct stub_rec_target *t = ctx;

	for (size_t i = 0; i < t->nbtrace; i++) {
		if (t->btrace[i].tid != thread.tid)
			continue;
		t->btrace[i] = t->btrace[--t->nbtrace];
		return t->past ? srt_past_rsp(t).ops->btrace_disable(t->past, thread) : 0;
	}
	return -ENOENT;
}

static int srt_btrace_conf(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			   uint64_t *size)
{
	struct stub_rec_target *t = ctx;

	for (size_t i = 0; i < t->nbtrace; i++) {
		if (t->btrace[i].tid == thread.tid) {
			*format = t->btrace[i].format;
			*size = t->btrace[i].size;
			return 0;
		}
	}
	return -ENOENT;
}

static int srt_btrace_read(void *ctx, struct rsp_ptid thread, enum rsp_btrace_read kind,
			   struct rsp_btrace_data *out)
{
	struct stub_rec_target *t = ctx;
	enum rsp_btrace_format format;
	uint64_t size;

	if (srt_btrace_conf(t, thread, &format, &size) < 0)
		return -ENOENT;
	if (srt_open_past(t) < 0) {
		out->format = format;  /* nothing recorded yet: an empty trace */
		return 0;
	}
	return srt_past_rsp(t).ops->btrace_read(t->past, thread, kind, out);
}

static int srt_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	struct stub_rec_target *t = ctx;
	int e;

	if (t->gone)
		return -ENOENT;
	e = srt_open_past(t);
	if (e < 0)             /* nothing recorded yet, say: only the server's */
		return strcmp(cmd, "help") == 0 ? -ENOENT : e;
	e = srt_past_rsp(t).ops->monitor(t->past, cmd, out);
	if (e >= 0 && !strcmp(cmd, "record-info"))
		rsp_buf_printf(out, "past: opened %" PRIu64 " times, extended %" PRIu64
			       " times; the last %s in %.3f ms (%.3f ms saving the recording)\n",
			       t->opened, t->extended, t->last_extended ? "extended" : "opened",
			       t->last_ms, t->last_sync_ms);
	/* `goto` may have moved a cursor into the past (or back). */
	t->in_past = !replay_target_at_end(t->past);
	return e;
}

static const struct rsp_target_ops srt_ops = {
	.features = srt_features,
	.threads = srt_threads,
	.thread_alive = srt_thread_alive,
	.read_regs = srt_read_regs,
	.write_regs = srt_write_regs,
	.read_mem = srt_read_mem,
	.write_mem = srt_write_mem,
	.insert_point = srt_insert_point,
	.remove_point = srt_remove_point,
	.resume = srt_resume,
	.event_fd = srt_event_fd,
	.wait = srt_wait,
	.interrupt = srt_interrupt,
	.kill = srt_kill,
	.detach = srt_detach,
	.xfer_read = srt_xfer_read,
	.process_info = srt_process_info,
	.shlib_info_addr = srt_shlib_info_addr,
	.memory_region = srt_memory_region,
	.set_pass_signals = srt_set_pass_signals,
	.vfile_open = srt_vfile_open,
	.vfile_readlink = srt_vfile_readlink,
	.btrace_enable = srt_btrace_enable,
	.btrace_disable = srt_btrace_disable,
	.btrace_conf = srt_btrace_conf,
	.btrace_read = srt_btrace_read,
	.monitor = srt_monitor,
};

/* ---- lifetime -------------------------------------------------------------- */

static int srt_open_fds(struct stub_rec_target *t)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &t->old_mask) < 0)
		return -errno;
	t->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	t->busyfd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
	return t->sigfd < 0 || t->busyfd < 0 ? -errno : 0;
}

/* The recorder's lines for the user: the last one is the reason of a
 * failed start. */
struct srt_said {
	char *buf;
	size_t size;
};

static void srt_say(void *ctx, const char *line)
{
	struct srt_said *said = ctx;

	snprintf(said->buf, said->size, "%s", line);
}

/* A temporary directory for the recording (TMPDIR, else /tmp). */
static int srt_temp_dir(struct stub_rec_target *t, char *err, size_t errsize)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(t->dir, sizeof(t->dir), "%s/hindsight-serve.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir)) {
		int e = -errno;

		snprintf(err, errsize, "cannot make a directory for the recording: %s",
			 strerror(-e));
		return e;
	}
	t->own_dir = true;
	return 0;
}

/* The recorder that serves the program live (stub_recorder.h's live
 * operations: single steps), started. 0, or a negative errno with the
 * recorder's reason in @err. */
static int srt_start_recorder(struct stub_rec_target *t, char *const argv[], pid_t pid,
			      const struct stub_rec_target_options *opt, char *err, size_t errsize)
{
	struct srt_said said = { err, errsize };
	struct stub_recorder_options ro = {
		.mode = opt->record, .dir = t->dir, .argv = argv, .attach_pid = argv ? 0 : pid,
		.adopt = opt->adopt, .spawned = opt->adopt && opt->spawned,
		.psb_period = opt->psb_period, .noretcomp = opt->noretcomp, .live = true,
		.say = srt_say, .say_ctx = &said,
	};
	int e;

	snprintf(err, errsize, "cannot record");
	e = stub_recorder_new(&t->rec, &ro);
	if (e == 0)
		e = stub_recorder_start(t->rec);
	if (e < 0)
		return e;
	t->live = stub_recorder_live(t->rec);
	return t->live ? 0 : -EOPNOTSUPP;
}

int stub_rec_target_new(char *const argv[], pid_t pid, const struct stub_rec_target_options *opt,
			struct stub_rec_target **out, char *err, size_t errsize)
{
	struct stub_rec_target *t = calloc(1, sizeof(*t));
	int e;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->sigfd = t->busyfd = -1;
	t->attached = !argv && !opt->spawned;
	if (replay_timeline_points_new(&t->points) < 0) {
		free(t);
		return -ENOMEM;
	}
	t->avx = stub_regs_features() & RSP_TARGET_AVX;
	t->shadow.sigfd = -1;
	if (opt->dir)
		snprintf(t->dir, sizeof(t->dir), "%s", opt->dir);
	else if ((e = srt_temp_dir(t, err, errsize)) < 0)
		goto fail;
	e = srt_open_fds(t);
	if (e < 0) {
		snprintf(err, errsize, "%s", strerror(-e));
		goto fail;
	}
	e = srt_start_recorder(t, argv, pid, opt, err, errsize);
	if (e < 0)
		goto fail;
	t->last_tid = t->rec->pid;
	*out = t;
	return 0;
fail:
	stub_rec_target_free(t);
	return e;
}

void stub_rec_target_free(struct stub_rec_target *t)
{
	if (!t)
		return;
	if (t->live && !t->gone)
		t->live->end(t->rec, t->attached);
	stub_recorder_free(t->rec);
	replay_target_free(t->past);
	if (t->own_dir)
		replay_bundle_remove_tree(t->dir);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->busyfd >= 0)
		close(t->busyfd);
	if (!t->handed_back)
		sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	replay_timeline_points_free(t->points);
	free(t->breaks);
	free(t->btrace);
	free(t);
}

int stub_rec_target_hand_back(struct stub_rec_target *t, const struct stub_rec_handed **out,
			      size_t *n)
{
	int e;

	*out = NULL;
	*n = 0;
	if (t->gone)
		return -ESRCH;
	/* In the past the program is still where the present is: handed
	 * back from there, it would jump without the debugger knowing. */
	if (t->running || t->past_pending || t->in_past)
		return -EBUSY;
	if (!t->live->hand_back)
		return -EOPNOTSUPP;
	e = t->live->hand_back(t->rec, out, n);
	if (e < 0 && !*n)
		return e;          /* nothing handed: recording goes on */
	t->gone = true;
	t->handed_back = true;
	/* SIGCHLD as it was before: the next tracer blocks it for its own. */
	close(t->sigfd);
	t->sigfd = -1;
	sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	return e;
}

size_t stub_rec_target_btraced(const struct stub_rec_target *t)
{
	size_t n = 0;

	for (size_t i = 0; !t->gone && i < t->nbtrace; i++)
		n += t->live->has_thread(t->rec, (pid_t)t->btrace[i].tid);
	return n;
}

struct rsp_target stub_rec_target_rsp(struct stub_rec_target *t)
{
	return (struct rsp_target){ &srt_ops, t };
}

pid_t stub_rec_target_pid(const struct stub_rec_target *t)
{
	return t->rec->pid;
}

const char *stub_rec_target_dir(const struct stub_rec_target *t)
{
	return t->dir;
}
