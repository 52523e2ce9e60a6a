/*
 * cli/cli_replay_x.h: x and info registers of `hindsight replay`
 * (cli/cli_replay_x.c), listed in cli_replay.c's table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_X_H
#define HINDSIGHT_CLI_REPLAY_X_H

#include "cli/cli_replay_int.h"

/* x/NFU ADDR: N units of size U (b h w g) in format F (x d u c i s). */
int cli_replay_cmd_x(struct cli_session *s, const char *args, const struct command *c);
/* info registers [REG...]: the selected frame's (all of GDB's general
 * ones without REG). 0 or -1. */
int cli_replay_info_registers(struct cli_session *s, const char *args);

#endif
