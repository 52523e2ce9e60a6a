/*
 * stub/rectarget/stub_rec_target.h: a live process recorded while it is debugged, as
 * a target (struct rsp_target): what `hindsight serve` serves by default.
 *
 * The program runs under a recorder that can serve it live (the live
 * operations of stub/recorders/stub_recorder.h: today the single-stepper's) from its
 * first instruction (or from the attach), so everything it does can be
 * gone back over:
 * - in the present (the live process) the debugger's resumes run the
 *   recorder towards a stop: breakpoints are never written into the
 *   program (the recorder stops before an instruction at one), write
 *   watchpoints are changes of the watched bytes, signals stop before they
 *   are delivered; registers and memory are the process's;
 * - a reverse step or continue enters the past: the recording is saved and
 *   served by the replay target (replay/target/replay_target.h), whose unknown
 *   bytes (never written since) are the process's present ones;
 * - going forward in the past replays the history; at its end the live
 *   process resumes and recording goes on (a continue or range step goes on
 *   seamlessly; a step stops there).
 * docs/serve.md ("Recording and reverse execution") is the user's view.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_TARGET_H
#define HINDSIGHT_STUB_STUB_REC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/target.h"
#include "stub/recorders/stub_rec.h"

struct stub_rec_target;

struct stub_rec_target_options {
	const char *dir;           /* the recording's directory, kept; NULL: a
				    * temporary one, removed at the end */
	const char *record;        /* --record: auto (also NULL) or sw; pt and
				    * valgrind cannot serve live (refused, said why) */
	uint32_t psb_period;       /* 0: the recorder's default */
	bool noretcomp;
	bool adopt;                /* @pid's threads are this process's already, every
				    * one stopped (stub_target_hand_over): recording
				    * starts where they stand, without an attach */
	bool spawned;              /* ... and it was started for the debugger, not
				    * attached to: killed at the end, not detached */
};

/* Starts @argv stopped at its first instruction, or attaches to @pid
 * (@argv NULL), and starts recording. 0, or a negative errno with a
 * one-line reason in @err: -EOPNOTSUPP when the recorder asked for cannot
 * serve a live program (nothing was started). */
int stub_rec_target_new(char *const argv[], pid_t pid, const struct stub_rec_target_options *opt,
			struct stub_rec_target **out, char *err, size_t errsize);
/* Ends the recording (a process still there is killed, or detached when
 * attached to) and frees everything; a temporary directory is removed. */
void stub_rec_target_free(struct stub_rec_target *t);
/* Ends the recording at a stop and keeps the process, every thread traced
 * and stopped, listed in *@out (valid until @t is freed), for a native
 * target to adopt (stub_rec_hand_back; SIGCHLD unblocked again). @t serves
 * nothing after (-ESRCH). 0, or the error of saving the recording (the
 * threads are handed all the same: *@n of them); with nothing handed and
 * recording going on: -EBUSY while the program runs, a stop of the past
 * is to be reported or the debugger stands in the past (or the leader
 * exited before its threads), -ENOMEM. */
int stub_rec_target_hand_back(struct stub_rec_target *t, const struct stub_rec_handed **out,
			      size_t *n);
/* How many live threads GDB has branch tracing on for (Qbtrace; it turns
 * it off for those alone at `record stop`). */
size_t stub_rec_target_btraced(const struct stub_rec_target *t);
/* The stop before the syscall that ends the program (exit_group, or
 * @exit: the last thread's exit), as GDB's `record full` makes it:
 * what it is and what to do, written into @buf. @buf. */
const char *stub_rec_target_end_msg(char *buf, size_t size, bool exit);
struct rsp_target stub_rec_target_rsp(struct stub_rec_target *t);
pid_t stub_rec_target_pid(const struct stub_rec_target *t);
/* Where the recording is. */
const char *stub_rec_target_dir(const struct stub_rec_target *t);

#endif
