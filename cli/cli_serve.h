/*
 * cli/cli_serve.h: the `serve` subcommand.
 */
#ifndef HINDSIGHT_CLI_CLI_SERVE_H
#define HINDSIGHT_CLI_CLI_SERVE_H

#include <stdio.h>

/* Runs `hindsight serve` with @argv[0] == "serve"; returns the exit status. */
int cli_serve_main(int argc, char **argv);
void cli_serve_usage(FILE *out);

#endif
