/*
 * cli/cli_replay_watch.h: `hindsight replay`'s write watchpoints (watch,
 * watch -l; rwatch and awatch refused), continue with them, and the
 * report of a stop at one (cli/cli_replay_watch.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_WATCH_H
#define HINDSIGHT_CLI_REPLAY_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli_replay_int.h"

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
/* Frees the session's watchpoints (at its end, or once none is left). */
void cli_replay_watch_release(struct cli_session *s);

#endif
