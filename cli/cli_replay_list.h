/*
 * cli/cli_replay_list.h: history, calls and list of `hindsight replay`
 * (cli/cli_replay_list.c), listed in cli_replay.c's table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_LIST_H
#define HINDSIGHT_CLI_REPLAY_LIST_H

#include "cli/cli_replay_int.h"

/* history [RANGE] [/m /s /r /f /p] (c->arg 0) and calls [RANGE]
 * [/i /l /c] (c->arg 1): GDB's record instruction-history and
 * function-call-history. */
int cli_replay_cmd_history(struct cli_session *s, const char *args, const struct command *c);
/* list [FUNC | FILE:LINE]: ten lines of source around it, or on. */
int cli_replay_cmd_list(struct cli_session *s, const char *args, const struct command *c);

#endif
