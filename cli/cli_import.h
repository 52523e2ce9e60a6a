/*
 * cli/cli_import.h: the `import` subcommand.
 */
#ifndef HINDSIGHT_CLI_CLI_IMPORT_H
#define HINDSIGHT_CLI_CLI_IMPORT_H

#include <stdio.h>

/* Runs `hindsight import` with @argv[0] == "import"; the exit status. */
int cli_import_main(int argc, char **argv);
void cli_import_usage(FILE *out);

#endif
