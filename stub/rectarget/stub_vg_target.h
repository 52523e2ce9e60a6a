/*
 * stub/rectarget/stub_vg_target.h: `hindsight serve --record valgrind`, a
 * program recorded by the light recorder while it is debugged live.
 *
 * The program runs under Valgrind with hindsight's tool in its light mode
 * (stub/recorders/stub_vglight.h: only its inputs are logged, at about
 * Valgrind's own speed), and with Valgrind's gdbserver (--vgdb=full: a
 * stop at any instruction, and a stop resumes inside the block it was
 * in, so the tool's count of superblocks is what a rebuild counts). This
 * target is the debugger's end of that gdbserver, reached through vgdb
 * over a socket: breakpoints, watchpoints (the tool checks memory
 * accesses for it), single steps, registers, memory, threads, signals and
 * Ctrl-C are Valgrind's; a write to memory in the present is made by
 * the tool and logged as an input (HSIN_POKE), which every rebuild makes
 * again at that instruction; a write to a register is refused (the log
 * has no record for it). The log is kept (-o DIR) as a light recording, rebuilt by the
 * first command that needs its history, as `hindsight record` makes.
 *
 * Going back: at a stop, the tool logs where the program stands
 * (`monitor hindsight.here`: HSIN_HERE, inside its superblock), the
 * recording so far is rebuilt up to exactly there (opt.rebuild_follow), and the
 * past is served by the replay target (replay/target/replay_target.h),
 * the live program's memory standing in for bytes never written. Going
 * forward in the past replays it; at its end, the present, the live
 * program goes on (a continue or range step seamlessly, a step stops
 * there). The rebuild follows the log: started at the first visit to the
 * past, it waits at each place the debugger went back from, so that the
 * next visit, after the program ran on live, rebuilds only what ran
 * since and extends the past open (docs/serve.md says what that costs).
 * The past serves write watchpoints from its state log; it logs no reads,
 * so while a read or access watchpoint is set it is not entered, and a
 * reverse command stops at once, saying why; so it does when every
 * thread waits in a syscall (no instruction a rebuild could stop at).
 */
#ifndef HINDSIGHT_STUB_STUB_VG_TARGET_H
#define HINDSIGHT_STUB_STUB_VG_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "protocol/target.h"

struct stub_vg_target;

struct stub_vg_target_options {
	const char *dir;           /* the recording's (NULL: a temporary one,
				    * removed at the end) */
	bool debug;                /* vgdb's messages on stderr */
	/* Starts the rebuild of the light recording in the (absolute)
	 * directory that follows its log as it grows, in a process group
	 * of its own (*@pid), telling each stop it comes to on *@fd
	 * (cli_rebuild_follow): 0 or a negative errno. NULL: no going
	 * back. */
	int (*rebuild_follow)(const char *dir, int *fd, pid_t *pid);
};

/* Starts @argv under Valgrind, stopped before its first instruction,
 * recording its inputs as @opt says. 0, or a negative errno with a
 * one-line reason in @err. */
int stub_vg_target_new(char *const argv[], const struct stub_vg_target_options *opt,
		       struct stub_vg_target **out, char *err, size_t errsize);
/* Ends the session: a program still running is killed (its inputs kept up
 * to there), or, once the debugger detached, runs to its end first. */
void stub_vg_target_free(struct stub_vg_target *t);
struct rsp_target stub_vg_target_rsp(struct stub_vg_target *t);
pid_t stub_vg_target_pid(const struct stub_vg_target *t);
const char *stub_vg_target_dir(const struct stub_vg_target *t);

#endif
