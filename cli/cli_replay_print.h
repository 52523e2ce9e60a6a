/*
 * cli/cli_replay_print.h: print, output, ptype, whatis, info locals and
 * info args of `hindsight replay` (cli/cli_replay_print.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_PRINT_H
#define HINDSIGHT_CLI_REPLAY_PRINT_H

#include <stdbool.h>

#include "cli/cli_replay_int.h"

/* struct command's arg of cli_replay_cmd_print. */
enum { CLI_PRINT_PRINT, CLI_PRINT_OUTPUT, CLI_PRINT_PTYPE, CLI_PRINT_WHATIS };

int cli_replay_cmd_print(struct cli_session *s, const char *args, const struct command *c);
/* info args (@args) or info locals of the selected frame; 0 or -1. */
int cli_replay_info_vars(struct cli_session *s, bool args);

#endif
