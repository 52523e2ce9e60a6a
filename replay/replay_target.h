/*
 * replay/replay_target.h: a recording served as a target (struct
 * rsp_target), for `hindsight serve --replay DIR`.
 *
 * There is no live process: the end of the history is the present. What a
 * recording knows is served; what it does not is said to be unknown:
 * - threads: the recording's, each at the instruction after its last one;
 *   registers: rip only (the others are unavailable, never made up);
 * - memory: the code and read-only data of the mapped files at the end of
 *   the recording; anything else is an error;
 * - branch trace: GDB's `record btrace pt` gets each thread's recorded PT
 *   stream with the CPU it claims, so GDB's own decoder reads it;
 * - resuming finds the end of the history at once (replaylog:end); writes
 *   are refused.
 * Reverse execution over the history comes with the replay engine.
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_TARGET_H
#define HINDSIGHT_REPLAY_REPLAY_TARGET_H

#include <stddef.h>

#include "protocol/target.h"

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

#endif
