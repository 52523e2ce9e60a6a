/*
 * cli/cli_replay_stop.h: the report of a move's stop in `hindsight
 * replay` (cli/cli_replay_stop.c), which every move calls.
 */
#ifndef HINDSIGHT_CLI_REPLAY_STOP_H
#define HINDSIGHT_CLI_REPLAY_STOP_H

#include <stdbool.h>

#include "cli/cli_replay_int.h"

/* What a move (an enum replay_frontend_stop or < 0) ended with, as GDB
 * says it (@prev: the function before the move, the location's line
 * alone when it is the same; @with_pc: the address first), then the
 * auto-displays; 0 or -1. */
int cli_replay_report_stop(struct cli_session *s, int r, const char *prev, bool with_pc);

#endif
