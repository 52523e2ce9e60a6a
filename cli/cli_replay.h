/*
 * cli/cli_replay.h: `hindsight replay`, GDB's commands over a recording,
 * both ways, batch or interactive.
 */
#ifndef HINDSIGHT_CLI_CLI_REPLAY_H
#define HINDSIGHT_CLI_CLI_REPLAY_H

#include <stdio.h>

int cli_replay_main(int argc, char **argv);
void cli_replay_usage(FILE *out);

#endif
