/*
 * cli/cli_history.h: the `history` and `calls` subcommands.
 */
#ifndef HINDSIGHT_CLI_CLI_HISTORY_H
#define HINDSIGHT_CLI_CLI_HISTORY_H

#include <stdio.h>

struct replay_bundle;

/* `hindsight history DIR [RANGE] [/m /s /r /f /p] [--json] [--intel]
 * [--thread TID] [--size N]`, with @argv[0] == "history"; the exit status. */
int cli_history_main(int argc, char **argv);
void cli_history_usage(FILE *out);

/* `hindsight calls DIR [RANGE] [/i /l /c] [--json] [--thread TID]
 * [--size N]`, with @argv[0] == "calls"; the exit status. */
int cli_calls_main(int argc, char **argv);
void cli_calls_usage(FILE *out);

/* What reading @b found that the user must hear (replay_bundle.notes),
 * a "hindsight: warning:" line each on stderr. For every command that
 * opens a recording. */
void cli_say_notes(const struct replay_bundle *b);

#endif
