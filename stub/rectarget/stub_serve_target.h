/*
 * stub/rectarget/stub_serve_target.h: `hindsight serve --record=on-request`,
 * a live process served natively until the debugger asks for recording.
 *
 * The process runs as gdbserver runs it (stub/live/stub_target.h: real
 * breakpoints, debug registers, full speed) until the debugger turns
 * recording on: GDB's `record btrace` / `record btrace pt` (Qbtrace:pt,
 * Qbtrace:bts) or `monitor record start`. Then, at a stop, the stopped
 * process is handed to a recorder without letting it go
 * (stub_target_hand_over, then stub/rectarget/stub_rec_target.h with
 * `adopt`): recording starts at that instruction in every thread, the
 * breakpoints and watchpoints the debugger had inserted are inserted
 * again into the recording target, and from then on every operation is
 * the recording target's: reverse execution back to that point, and
 * "No more reverse-execution history." there. Before it, a reverse step
 * or continue stops where it is, at the start of an empty history.
 *
 * Recording, once started, goes on until the end (Qbtrace:off turns off
 * what GDB sees as branch tracing, not the recorder): handing the
 * process back to the native target is not done yet (docs/serve.md).
 */
#ifndef HINDSIGHT_STUB_SERVE_TARGET_H
#define HINDSIGHT_STUB_SERVE_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "protocol/target.h"
#include "stub/rectarget/stub_rec_target.h"

struct stub_serve_target;
struct stub_target;

/* Serves @live (which it owns from then on) natively; @opt is how a
 * recording started on request is made (its dir, recorder: copied), and
 * @on_dir (NULL: nothing) is told its directory when it starts. 0 or
 * -ENOMEM (@live freed). If the recorder cannot start once the process
 * was handed over, a program started for the debugger is killed and an
 * attached one let go (the request fails, and says why). */
int stub_serve_target_new(struct stub_target *live, const struct stub_rec_target_options *opt,
			  void (*on_dir)(const char *dir), struct stub_serve_target **out);
void stub_serve_target_free(struct stub_serve_target *t);
struct rsp_target stub_serve_target_rsp(struct stub_serve_target *t);
pid_t stub_serve_target_pid(const struct stub_serve_target *t);
/* Whether recording has started, and where it is kept (NULL before). */
bool stub_serve_target_recording(const struct stub_serve_target *t);
const char *stub_serve_target_dir(const struct stub_serve_target *t);

#endif
