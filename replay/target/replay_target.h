/*
 * replay/target/replay_target.h: a recording served as a target (struct
 * rsp_target), for `hindsight serve --replay DIR`.
 *
 * There is no live process: the end of the history is the present. What a
 * recording knows is served; what it does not is said to be unknown:
 * - threads: the recording's, each with a cursor (replay/decode/cursor.h) that
 *   starts at the end of its history (the instruction after its last one);
 * - reverse execution (RSP_TARGET_REVERSE): bs steps the Hc thread one
 *   instruction back (replaylog:begin at the first), bc runs back to the
 *   latest earlier instruction at a breakpoint (swbreak / hwbreak, pc = the
 *   breakpoint: the state before it runs) or to the beginning; forward
 *   step, range step and continue replay the history the same way and stop
 *   with replaylog:end at its end;
 * - one timeline for all threads (replay/decode/timeline.h; a state log: every
 *   instruction has a logical time): a target-wide current time, and after any resume every
 *   thread stands at its position at that time (all its instructions of
 *   time <= the current time ran: position 1 for a thread that had not
 *   started, its end for one that had ended). A step or range step of
 *   thread X moves the time with X's instructions and the others follow;
 *   a continue, either way, stops at the breakpoint hit of any thread
 *   nearest in time (the stop is in that thread, which becomes the current
 *   one); a forward step or range step stops at another resumed thread's
 *   hit that comes first (with only X resumed, scheduler-locking, the
 *   others follow the time but do not stop it). Without a state log
 *   (hardware PT, perf.data, LLDB bundles) no times are known: a resume
 *   moves one thread (the one a step / range / reverse action names, else
 *   the current one) and the others stay where they are;
 * - breakpoints (Z0 / Z1) are kept in a table, never written anywhere;
 * - write watchpoints (Z2) with a state log: the logged writes of every
 *   thread are searched by logical time; bc stops at the latest earlier
 *   write to a watched range (pc = the writing instruction, memory holds
 *   the old value), a forward resume right after the next later one, in
 *   the thread that wrote, which becomes the current one; a breakpoint,
 *   gap or edge met first wins. Z3 / Z4 (reads are not logged), and Z2
 *   without a state log, are refused (-EOPNOTSUPP);
 * - registers: rip from the cursor; the others from
 *   replay_target_past_regs (the state log), unavailable without one
 *   (never present values shown as past ones);
 * - memory: at the current time from the state log, then for bytes never
 *   touched the present (replay_target_set_present_mem) if there is one,
 *   then the code and read-only data of the mapped files; anything else is
 *   an error; writes to registers and memory are refused;
 * - branch trace: GDB's `record btrace pt` gets each thread's recorded PT
 *   stream with the CPU it claims, so GDB's own decoder reads it; `record
 *   btrace bts` gets the history up to the thread's position as BTS blocks
 *   (replay/target/replay_bts.h), as many as GDB's buffer size holds;
 * - monitor commands: when, goto N (on a timeline the time follows the
 *   current thread there), record-info, history, calls
 *   (replay/target/replay_monitor.h).
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_TARGET_H
#define HINDSIGHT_REPLAY_REPLAY_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/target.h"

struct replay_cursor;
struct replay_target;

extern const struct rsp_target_ops replay_target_ops;

/* Opens the recording in @dir. 0, or a negative errno with a one-line
 * reason in @err. */
int replay_target_open(const char *dir, struct replay_target **out, char *err, size_t errsize);
void replay_target_free(struct replay_target *t);

/* Extends @t to what its recording (a live one, saved again since it was
 * opened) became: replay_session_extend, costing what was recorded since.
 * @t then answers as replay_target_open would (every thread at its end,
 * branch tracing off, the present memory as set) but keeps its
 * breakpoints and watchpoints. 0, or replay_session_extend's errors with
 * a reason in @err (-ESTALE: not the recording grown): @t is then only
 * good for replay_target_free: open the recording again (a table of
 * points lent with replay_target_use_points stays the caller's). */
int replay_target_extend(struct replay_target *t, char *err, size_t errsize);
/* { &replay_target_ops, t } */
struct rsp_target replay_target_rsp(struct replay_target *t);
/* Breakpoints and watchpoints (Z0 - Z2) go to @p from now on, a table
 * the caller keeps and may change (replay_timeline_use_points): a live
 * recorded target's one table, kept across the replay targets it opens.
 * @p must outlive @t; NULL: @t's own table again. */
struct replay_timeline_points;
void replay_target_use_points(struct replay_target *t, struct replay_timeline_points *p);
/* The recorded process id. */
int64_t replay_target_pid(const struct replay_target *t);
/* The recording (owned by @t). */
const struct replay_bundle *replay_target_bundle(const struct replay_target *t);
/* The cursor of thread @tid, or NULL. */
struct replay_cursor *replay_target_cursor(struct replay_target *t, int64_t tid);
/* Whether thread @tid is before the end of its history at the current
 * time: its cursor is, or it has not started yet then (a thread created
 * later, whose cursor stays where it was). */
bool replay_target_thread_before_end(struct replay_target *t, int64_t tid);

/* The past from the state log (software recordings: every register and
 * all written memory at every position); without one both return
 * -ENODATA. past_regs fills @regs (avail[] set for what is known) for
 * thread @tid at @position: 0, -ENODATA, or -ENOENT (no such position).
 * past_mem reads up to @len (at most 4096) bytes at @addr at that
 * position's logical time, bytes the log does not know from the present
 * or the files: the number read from @addr on, or -ENODATA when nothing
 * there is known. */
struct rsp_regs;
int replay_target_past_regs(struct replay_target *t, int64_t tid, uint64_t position,
			    struct rsp_regs *regs);
int replay_target_past_mem(struct replay_target *t, int64_t tid, uint64_t position,
			   uint64_t addr, void *buf, size_t len);

/* For a recording whose process is still there (a live recording): bytes
 * of a past read that the state log shows were never touched while
 * recording (no write, mapping change or exec since) have their present
 * value, so they are read through @read (the convention of
 * rsp_target_ops.read_mem: bytes read, or a negative errno) before the
 * files are. A NULL @read turns it off, as it is at open. With a @read,
 * the state logs are also taken as whole up to the present: their
 * recorder is alive and flushed them (replay_state_set_whole). */
void replay_target_set_present_mem(struct replay_target *t,
				   int (*read)(void *ctx, uint64_t addr, void *buf, size_t len),
				   void *ctx);

/* True when every thread's cursor is at the end of its history (position
 * size + 1): the present. */
bool replay_target_at_end(const struct replay_target *t);
/* For a live recorded target whose past @t is: @actions served by the
 * past (backwards, or forwards up to the present), the stop in *@stop:
 * 0; 1 when they are to go on live instead, from the present (forward,
 * and the past holds nothing more of them: the moved thread, the stepped
 * one or else @last_tid, already at its end; or the end of the history
 * reached by a continue or range step); or a negative errno. */
int replay_target_resume_past(struct replay_target *t, const struct rsp_resume *actions,
			      size_t n, int64_t last_tid, struct rsp_stop *stop);

/* The current time of the timeline into *@time: 0, or -ENODATA for a
 * recording without one (no state log: no times known). */
int replay_target_time(const struct replay_target *t, uint64_t *time);

#endif
