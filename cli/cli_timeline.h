/*
 * cli/cli_timeline.h: the `timeline` subcommand.
 */
#ifndef HINDSIGHT_CLI_CLI_TIMELINE_H
#define HINDSIGHT_CLI_CLI_TIMELINE_H

#include <stdio.h>

/* `hindsight timeline REC [RANGE] [-o FILE] [--format html|json]
 * [--resolution N] [--image-dir DIR]`, with @argv[0] == "timeline"; the
 * exit status. */
int cli_timeline_main(int argc, char **argv);
void cli_timeline_usage(FILE *out);

#endif
