/*
 * cli/cli_replay_display.h: `hindsight replay`'s auto-display (display,
 * undisplay, info display, enable / disable display) and the memory
 * examiner display/i and display/s share with GDB's x
 * (cli/cli_replay_display.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_DISPLAY_H
#define HINDSIGHT_CLI_REPLAY_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli_replay_int.h"

/* display [/FMT EXPR]: a new auto-display (shown at once when typed at
 * the prompt, as GDB's from_tty), or all of them again without one. */
int cli_replay_cmd_display(struct cli_session *s, const char *args, const struct command *c);
/* undisplay [N | N-M ...] (all without one, after GDB's question). */
int cli_replay_cmd_undisplay(struct cli_session *s, const char *args, const struct command *c);
/* info display. */
int cli_replay_info_display(struct cli_session *s);
/* enable / disable display [N...] (@args: what follows "display"). */
int cli_replay_display_enable(struct cli_session *s, const char *args, bool on);
/* After every stop: the enabled displays whose expression is in scope,
 * in number order, as GDB's do_displays. */
void cli_replay_do_displays(struct cli_session *s);
/* Frees the session's displays (at its end). */
void cli_replay_display_release(struct cli_session *s);

/* GDB's x: @count units of @size (b h w g) at @addr in @fmt (x d u o t z
 * c a i s), lines labelled with the address and its <symbol+off>. 0, or
 * -EIO with *@bad the address that cannot be read (the caller says so,
 * the line before left open), -ECANCELED on Ctrl-C. On success *@bad is
 * the last unit's address (x's $_), untouched when @count is 0. */
int cli_replay_examine(struct cli_session *s, char fmt, char size, int count, uint64_t addr,
		       uint64_t *bad);

#endif
