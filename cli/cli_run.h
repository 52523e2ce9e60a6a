/*
 * cli/cli_run.h: `hindsight run`, a program under the recorder with no
 * debugger, and an explanation of its crash.
 */
#ifndef HINDSIGHT_CLI_CLI_RUN_H
#define HINDSIGHT_CLI_CLI_RUN_H

#include <stdio.h>

int cli_run_main(int argc, char **argv);
void cli_run_usage(FILE *out);

#endif
