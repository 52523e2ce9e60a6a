/*
 * cli/cli_doctor.h: `hindsight doctor`, what this machine gives hindsight.
 */
#ifndef HINDSIGHT_CLI_CLI_DOCTOR_H
#define HINDSIGHT_CLI_CLI_DOCTOR_H

#include <stdio.h>

int cli_doctor_main(int argc, char **argv);
void cli_doctor_usage(FILE *out);

#endif
