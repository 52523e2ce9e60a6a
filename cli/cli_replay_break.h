/*
 * cli/cli_replay_break.h: the breakpoint commands of `hindsight replay`
 * (cli/cli_replay_break.c), listed in cli_replay.c's table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_BREAK_H
#define HINDSIGHT_CLI_REPLAY_BREAK_H

#include "cli/cli_replay_int.h"

/* struct command's arg of cli_replay_cmd_break and cli_replay_cmd_enable. */
enum { CLI_BREAK_KEEP, CLI_BREAK_TEMPORARY };
enum { CLI_BREAK_DISABLE, CLI_BREAK_ENABLE };

/* break / tbreak [LOCATION] [if COND] */
int cli_replay_cmd_break(struct cli_session *s, const char *args, const struct command *c);
/* enable / disable [N...] */
int cli_replay_cmd_enable(struct cli_session *s, const char *args, const struct command *c);
/* condition N [EXPR] */
int cli_replay_cmd_condition(struct cli_session *s, const char *args, const struct command *c);
/* ignore N COUNT */
int cli_replay_cmd_ignore(struct cli_session *s, const char *args, const struct command *c);
/* delete [N] (all without N; delete display: undisplay), breakpoints
 * and watchpoints */
int cli_replay_cmd_delete(struct cli_session *s, const char *args, const struct command *c);
/* info breakpoints */
int cli_replay_info_breaks(struct cli_session *s);
/* A stop at a breakpoint, as GDB says it ("Breakpoint 2, f () at ...",
 * "Temporary breakpoint 3, ..."); the temporary ones that stopped there
 * are deleted. 0. */
int cli_replay_report_break(struct cli_session *s);

#endif
