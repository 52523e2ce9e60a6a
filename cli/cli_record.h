/*
 * cli/cli_record.h: `hindsight record`, a program's run to a recording.
 */
#ifndef HINDSIGHT_CLI_CLI_RECORD_H
#define HINDSIGHT_CLI_CLI_RECORD_H

#include <stdio.h>

int cli_record_main(int argc, char **argv);
void cli_record_usage(FILE *out);

#endif
