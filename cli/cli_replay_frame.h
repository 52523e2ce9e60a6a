/*
 * cli/cli_replay_frame.h: the frame commands of `hindsight replay`
 * (cli/cli_replay_frame.c), listed in cli_replay.c's table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_FRAME_H
#define HINDSIGHT_CLI_REPLAY_FRAME_H

#include <stdbool.h>

#include "cli/cli_replay_int.h"

struct replay_frontend_frame;

/* struct command's arg of cli_replay_cmd_frame. */
enum { CLI_FRAME_SELECT, CLI_FRAME_UP, CLI_FRAME_DOWN };

/* frame [N], up [N], down [N] (c->arg says which). */
int cli_replay_cmd_frame(struct cli_session *s, const char *args, const struct command *c);
/* backtrace [N], where: the call stack unwound at the position (from the
 * recorded calls when the recording has no registers). */
int cli_replay_cmd_bt(struct cli_session *s, const char *args, const struct command *c);
/* until LOCATION / advance LOCATION (c->arg 1 for advance): forward to
 * the location (until: in the current frame) or until the current frame
 * returns. */
int cli_replay_cmd_advance(struct cli_session *s, const char *args, const struct command *c);
/* info frame: GDB's description of the selected frame. */
int cli_replay_info_frame(struct cli_session *s, const char *args);
/* finish and reverse-finish out of the selected frame: GDB's "Run till
 * exit from #N ..." line, and into *@up how many calls above the current
 * function that frame is (0 backward: GDB's reverse-finish leaves frame
 * 0's function). 0, or -1 after a message. */
int cli_replay_finish_from(struct cli_session *s, bool reverse, unsigned *up);
/* "#N  0x... in f () at file:line" and (@source) the line, as GDB's
 * `frame` prints a frame. */
void cli_replay_print_frame_line(struct cli_session *s, const struct replay_frontend_frame *fr,
				 bool source);
/* info threads: the threads that exist at the current time (a thread
 * created later in the recording is not listed, as GDB would not know it
 * yet), the current one marked; thread [N]: switches to one of them. 0,
 * or -1 after a message. */
int cli_replay_info_threads(struct cli_session *s);
int cli_replay_thread(struct cli_session *s, const char *args);

#endif
