/*
 * replay/decode/timeline.h: every thread of a recording on one logical clock,
 * moved both ways (rr's ReplayTimeline is the model). What `serve
 * --replay` (replay/target/replay_target.h) and `hindsight replay`
 * (replay/frontend/frontend.h) drive, so both answer the same question the same
 * way.
 *
 * The timeline owns a cursor per thread (replay/decode/cursor.h, each at the end
 * of its history at first), one table of breakpoints and write
 * watchpoints, and, for a recording with a state log (replay/model/state.h:
 * every instruction of every thread has a logical time), the current
 * time. After any move every thread stands at its position at that time:
 * all its instructions of time <= the current time ran (position 1 for a
 * thread that had not started, its end for one that had ended).
 *
 * - continue / reverse-continue: the breakpoint hit nearest in time, in
 *   any thread that counts, or the watched write, gap or edge met first;
 *   the stop is in the thread that hit (the moment before the
 *   instruction at the breakpoint runs), which the caller makes its
 *   current one. Forward, the moved thread's own position does not count
 *   (it runs first, as a debugger steps it off a breakpoint), nor does
 *   the hit the last stop reported.
 * - step / reverse step / range step of one thread: the time moves with
 *   its instructions and the others follow; forward, another counted
 *   thread's hit that comes first stops it in that thread.
 * - follow (a goto): the time becomes a thread's position's and the
 *   others go there.
 * Positions compare by time: replay_timeline_time_at.
 *
 * Without a state log no times are known: a move moves its thread alone
 * and the others stay where they are.
 *
 * Nothing here prints, and nothing knows a debugger's protocol. Lifetime:
 * replay_timeline_new / replay_timeline_free.
 */
#ifndef HINDSIGHT_REPLAY_TIMELINE_H
#define HINDSIGHT_REPLAY_TIMELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct replay_cursor;
struct replay_state;
struct replay_image;
struct replay_timeline;

/* What a point stops at. */
enum replay_timeline_point_kind {
	REPLAY_TIMELINE_BREAK,     /* an instruction at the address */
	REPLAY_TIMELINE_WATCH,     /* a write overlapping [addr, addr + len) */
};

/* What a resume asks of its thread. */
enum replay_timeline_move {
	REPLAY_TIMELINE_CONTINUE,
	REPLAY_TIMELINE_STEP,              /* one instruction */
	REPLAY_TIMELINE_RANGE,             /* steps while the pc is in [start, end) */
	REPLAY_TIMELINE_REVERSE_STEP,
	REPLAY_TIMELINE_REVERSE_CONTINUE,
};

struct replay_timeline_resume {
	size_t thread;             /* the thread that moves */
	enum replay_timeline_move move;
	uint64_t range_start, range_end;
	/* Forward: whose breakpoints can stop the move, one flag a thread
	 * (the threads a debugger resumed); NULL: every thread's. Backward
	 * every thread's count (but a reverse step's: it moves its thread
	 * alone); a step's or range step's own thread stops as it says. */
	const bool *resumed;
};

/* A stop at a watched write: past the cursor's stop kinds. */
#define REPLAY_TIMELINE_STOP_WATCH 100

struct replay_timeline_stop {
	size_t thread;             /* the thread that stopped */
	int kind;                  /* enum replay_cursor_stop, or _STOP_WATCH */
	uint64_t watch_addr;       /* _STOP_WATCH: the watchpoint's address */
};

/* A cursor for every thread of @b (at the end of its history) and the
 * clock of @st (NULL: no state log, no times); both must outlive the
 * timeline. 0, or a cursor's error (replay_cursor_new) with the thread's
 * number in *@failed, or -ENOMEM. */
int replay_timeline_new(const struct replay_bundle *b, struct replay_state *st,
			struct replay_timeline **out, size_t *failed);
void replay_timeline_free(struct replay_timeline *tl);

/* Gives @tl, made with no state log, the clock of @st (NULL: none), as
 * replay_timeline_new(@b, @st) would have made it: the cursors need no
 * state, so they can be made while the state log is opened. Only before
 * the first move. */
void replay_timeline_set_state(struct replay_timeline *tl, struct replay_state *st);

/* Moves @tl, made over an earlier state of the same recording, to @b and
 * @st (the recording grown: replay_state_extend, a live recording saved
 * again), keeping its points: each thread's cursor is extended
 * (replay_cursor_extend), new threads get one, and every thread stands at
 * its end with the time the end's, as replay_timeline_new would leave
 * them. It costs what was recorded since. 0; -ESTALE when @b's threads do
 * not start with @tl's; or a cursor's error with the thread's number in
 * *@failed: @tl is then only good for replay_timeline_free (and taking
 * its points, replay_timeline_points). */
int replay_timeline_extend(struct replay_timeline *tl, const struct replay_bundle *b,
			   struct replay_state *st, size_t *failed);

size_t replay_timeline_nthreads(const struct replay_timeline *tl);
struct replay_cursor *replay_timeline_cursor(struct replay_timeline *tl, size_t i);

/* Whether the threads share a clock (a state log that times them all). */
bool replay_timeline_timed(const struct replay_timeline *tl);
/* The current time into *@time: 0, or -ENODATA without a clock. */
int replay_timeline_time(const struct replay_timeline *tl, uint64_t *time);
/* The time at thread @i's position @pos: after its item @pos - 1 ran.
 * 0, or -ENODATA without a clock. Positions compare by it. */
int replay_timeline_time_at(const struct replay_timeline *tl, size_t i, uint64_t pos,
			    uint64_t *time);
/* Whether thread @i exists at the current time: it ran its first
 * instruction by then (a thread before it stands at position 1, created
 * later in the recording; a stop in it before its first instruction is the
 * caller's to count). True without a clock. A thread with no instructions
 * exists from the time its trace begins. */
bool replay_timeline_started(const struct replay_timeline *tl, size_t i);
/* Thread @i has ended by its own exit by the current time: its history
 * ends with a `syscall` instruction (its bytes in @img) made with rax 60
 * (SYS_exit, the state log says), and the time is past it. False without a
 * clock, a state log or the image (not known: a thread is shown until the
 * end then), and for a thread the process's end took down wherever it was. */
bool replay_timeline_exited(struct replay_timeline *tl, size_t i, struct replay_image *img);
/* True when every thread is at the end of its history: the present. */
bool replay_timeline_at_end(const struct replay_timeline *tl);

/* Makes ^C work: scans stop with REPLAY_CURSOR_INTERRUPTED once *@flag
 * is non-zero (replay_cursor_set_interrupt, for every cursor). */
void replay_timeline_set_interrupt(struct replay_timeline *tl, const volatile sig_atomic_t *flag);

/* A point: what stops, where, and the caller's tag. */
struct replay_timeline_point {
	enum replay_timeline_point_kind kind;
	uint64_t addr, len;
	int tag;
};

/* The table of points. A timeline has its own; a caller that needs the
 * table before and after the timelines it makes (a live recorded target:
 * its recorder runs to the same breakpoints, and a past opened again
 * keeps them) makes one and lends it (replay_timeline_use_points): one
 * table, never copied. The table's own insert / remove / break_at are the
 * timeline's below without its checks (a watchpoint is kept without a
 * clock; a timeline without one never looks at it). Lifetime:
 * replay_timeline_points_new / _free. */
struct replay_timeline_points;
int replay_timeline_points_new(struct replay_timeline_points **out);
void replay_timeline_points_free(struct replay_timeline_points *p);
int replay_timeline_points_insert(struct replay_timeline_points *p,
				  enum replay_timeline_point_kind kind, uint64_t addr, uint64_t len,
				  int tag);
int replay_timeline_points_remove(struct replay_timeline_points *p,
				  enum replay_timeline_point_kind kind, uint64_t addr, uint64_t len,
				  int tag);
bool replay_timeline_points_break_at(const struct replay_timeline_points *p, uint64_t addr,
				     int tag);
/* The number of points, and point @i (0 .. count - 1; NULL past it): the
 * order changes when one is removed. */
size_t replay_timeline_points_count(const struct replay_timeline_points *p);
const struct replay_timeline_point *
replay_timeline_points_get(const struct replay_timeline_points *p, size_t i);
/* @tl uses @p (which must outlive it) instead of its own table from now
 * on; NULL: its own again. */
void replay_timeline_use_points(struct replay_timeline *tl, struct replay_timeline_points *p);
/* The table @tl uses. */
struct replay_timeline_points *replay_timeline_points(struct replay_timeline *tl);

/* Points. A point is {kind, addr, len, tag}: @tag is the caller's (a
 * breakpoint number, a protocol's point type); inserting one that is
 * there already does nothing. Breakpoints have @len 0; a watchpoint needs
 * a clock and @len > 0. insert: 0, -EOPNOTSUPP (a watchpoint without a
 * clock, or of length 0), -ENOMEM. remove: 0, -ENOENT when not there. */
int replay_timeline_point_insert(struct replay_timeline *tl, enum replay_timeline_point_kind kind,
				 uint64_t addr, uint64_t len, int tag);
int replay_timeline_point_remove(struct replay_timeline *tl, enum replay_timeline_point_kind kind,
				 uint64_t addr, uint64_t len, int tag);
/* Whether a breakpoint is at @addr; with @tag >= 0, one with that tag. */
bool replay_timeline_break_at(const struct replay_timeline *tl, uint64_t addr, int tag);

/* Runs as @rq says, into *@stop (the thread that stopped, how; with a
 * clock every thread goes to the stop's time). Stop kinds: BREAK, GAP,
 * STEP, _STOP_WATCH, INTERRUPTED (a scan saw the flag: nothing between the
 * old and the new time stops), BEGIN (nothing earlier: every thread at
 * position 1; or a reverse step at position 1, nothing moved), END
 * (nothing later: every thread at its end; a step that ran the last
 * instruction of all; a step at the thread's end, nothing moved). 0, or
 * -EINVAL (no such thread), -ENOMEM, a decoder's error: the threads are
 * then where they were. */
int replay_timeline_resume(struct replay_timeline *tl, const struct replay_timeline_resume *rq,
			   struct replay_timeline_stop *stop);

/* Thread @i was moved by its cursor (a goto, steps): with a clock, the
 * time becomes its position's, the moment after the item before it ran
 * (@back: the moment before the item at it runs, where a reverse step
 * stops), and every other thread goes there. No stop is reported again
 * afterwards. 0, -EINVAL, or a cursor's error. */
int replay_timeline_follow(struct replay_timeline *tl, size_t i, bool back);

#endif
