/*
 * replay/replay_target.h: a recording served as a target (struct
 * rsp_target), for `hindsight serve --replay DIR`.
 *
 * There is no live process: the end of the history is the present. What a
 * recording knows is served; what it does not is said to be unknown:
 * - threads: the recording's, each with a cursor (replay/cursor.h) that
 *   starts at the end of its history (the instruction after its last one);
 * - reverse execution (RSP_TARGET_REVERSE): bs steps the Hc thread one
 *   instruction back (replaylog:begin at the first), bc runs it back to the
 *   latest earlier instruction at a breakpoint (swbreak / hwbreak, pc = the
 *   breakpoint: the state before it runs) or to the beginning; forward
 *   step, range step and continue replay the history the same way and stop
 *   with replaylog:end at its end. A resume moves one thread: the one a
 *   step / range / reverse action names, else the current one; the others
 *   stay where they are;
 * - breakpoints (Z0 / Z1) are kept in a table, never written anywhere;
 *   watchpoints are not supported yet (they come with the state log);
 * - registers: rip from the cursor; the others from
 *   replay_target_past_regs (the state log's hook), unavailable until then
 *   (never present values shown as past ones);
 * - memory: replay_target_past_mem (the state log's hook), then the code
 *   and read-only data of the mapped files; anything else is an error;
 *   writes to registers and memory are refused;
 * - branch trace: GDB's `record btrace pt` gets each thread's recorded PT
 *   stream with the CPU it claims, so GDB's own decoder reads it;
 * - monitor commands: when, goto N, record-info, history, calls
 *   (replay/replay_monitor.h).
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_TARGET_H
#define HINDSIGHT_REPLAY_REPLAY_TARGET_H

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
/* { &replay_target_ops, t } */
struct rsp_target replay_target_rsp(struct replay_target *t);
/* The recorded process id. */
int64_t replay_target_pid(const struct replay_target *t);
/* The cursor of thread @tid, or NULL. */
struct replay_cursor *replay_target_cursor(struct replay_target *t, int64_t tid);

/* Hooks for the state log (software recordings: every register and all
 * written memory at every position). Until it exists both return
 * -ENODATA. past_regs fills @regs (avail[] set for what is known) for
 * thread @tid at @position: 0 or -ENODATA. past_mem reads @len bytes at
 * @addr: the number read, -ENODATA when the log does not know (the images
 * are asked next), or -EIO. */
struct rsp_regs;
int replay_target_past_regs(struct replay_target *t, int64_t tid, uint64_t position,
			    struct rsp_regs *regs);
int replay_target_past_mem(struct replay_target *t, int64_t tid, uint64_t position,
			   uint64_t addr, void *buf, size_t len);

#endif
