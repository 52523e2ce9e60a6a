/*
 * cli/cli_replay_last.h: `hindsight replay`'s `last` (where did this
 * value come from?) and its watchpoints (`watch`, `watch -l`, `rwatch`),
 * listed in cli_replay.c's command table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_LAST_H
#define HINDSIGHT_CLI_REPLAY_LAST_H

#include "cli/cli_replay_int.h"

/* last [EXPR]: back to the instruction that last wrote EXPR's bytes (or
 * last changed a register); without EXPR, on with the previous one. */
int cli_replay_cmd_last(struct cli_session *s, const char *args, const struct command *c);

/* origin: where the address the instruction at the position uses came
 * from (cli/cli_origin.h). */
int cli_replay_cmd_origin(struct cli_session *s, const char *args, const struct command *c);

#endif
