/*
 * cli/cli_replay_last.h: `hindsight replay`'s `last` (where did this
 * value come from?) and its watchpoints (`watch`, `watch -l`, `rwatch`),
 * listed in cli_replay.c's command table.
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

/* watch [-l] EXPR (c->arg 0), rwatch (1), awatch (2): a write watchpoint
 * on EXPR's bytes, which continue and reverse-continue stop at when the
 * value changes; reads are not recorded, so rwatch and awatch say so. */
int cli_replay_cmd_watch(struct cli_session *s, const char *args, const struct command *c);
/* continue / reverse-continue with watchpoints: on past writes that leave
 * every watched value as it was. An enum replay_frontend_stop or < 0. */
int cli_replay_watch_continue(struct cli_session *s, bool reverse);
/* The stop at a watched write, as GDB says it ("Hardware watchpoint N:
 * EXPR", Old value, New value, the location). 0. */
int cli_replay_report_watch(struct cli_session *s);
/* `info breakpoints`' lines of the watchpoints (the header first when
 * @header); how many. */
size_t cli_replay_info_watches(struct cli_session *s, bool header);
/* Deletes watchpoint @n (0: all): whether one was. */
bool cli_replay_watch_delete(struct cli_session *s, int n);

#endif
