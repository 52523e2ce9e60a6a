/*
 * cli/cli_replay_until.h: `until` without an argument in `hindsight
 * replay` (cli/cli_replay_until.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_UNTIL_H
#define HINDSIGHT_CLI_REPLAY_UNTIL_H

#include "cli/cli_replay_int.h"

/* GDB's until_next_command: `next`, but a jump back inside the current
 * line's function does not stop it (a loop runs to its end): forward until
 * the pc leaves [the function's entry, the end of the current line's
 * row) in this frame, or the frame returns. Reports the stop; 0 or -1. */
int cli_replay_until_next(struct cli_session *s);

#endif
