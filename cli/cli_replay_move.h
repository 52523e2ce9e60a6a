/*
 * cli/cli_replay_move.h: the moves of `hindsight replay` (step, next,
 * stepi, nexti, finish, continue, their reverses, goto;
 * cli/cli_replay_move.c), listed in cli_replay.c's table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_MOVE_H
#define HINDSIGHT_CLI_REPLAY_MOVE_H

#include "cli/cli_replay_int.h"

/* struct command's arg of the moves: the direction, and (step, stepi)
 * over calls (next, nexti). */
enum { CLI_MOVE_FWD = 0, CLI_MOVE_REV = 1, CLI_MOVE_OVER = 2 };

/* stepi [N], nexti [N] and their reverses: N instructions. */
int cli_replay_cmd_stepi(struct cli_session *s, const char *args, const struct command *c);
/* step [N], next [N] and their reverses: N lines. */
int cli_replay_cmd_step(struct cli_session *s, const char *args, const struct command *c);
/* finish, reverse-finish: out of the selected frame. */
int cli_replay_cmd_finish(struct cli_session *s, const char *args, const struct command *c);
/* continue, reverse-continue: to a breakpoint, a watched write or an end. */
int cli_replay_cmd_continue(struct cli_session *s, const char *args, const struct command *c);
/* goto N | begin | end: to a position of the history. */
int cli_replay_cmd_goto(struct cli_session *s, const char *args, const struct command *c);

#endif
