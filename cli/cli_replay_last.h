/*
 * cli/cli_replay_last.h: `hindsight replay`'s `last` (where did this
 * value come from?) and `origin`, listed in cli_replay.c's command table
 * (cli/cli_replay_last.c); the watchpoints print their values with it.
 */
#ifndef HINDSIGHT_CLI_REPLAY_LAST_H
#define HINDSIGHT_CLI_REPLAY_LAST_H

#include "cli/cli_replay_int.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_frontend_target;

/* Prints @n bytes of @t's value as GDB does (replay_frontend_target_text). */
void cli_replay_print_target_value(struct cli_session *s, const struct replay_frontend_target *t,
				   const uint8_t *b, size_t n);

/* last [EXPR]: back to the instruction that last wrote EXPR's bytes (or
 * last changed a register); without EXPR, on with the previous one. */
int cli_replay_cmd_last(struct cli_session *s, const char *args, const struct command *c);

/* origin: where the address the instruction at the position uses came
 * from (replay/frontend/frontend_origin.h). */
int cli_replay_cmd_origin(struct cli_session *s, const char *args, const struct command *c);

#endif
