/*
 * cli/cli_replay_solib.h: `info sharedlibrary` of `hindsight replay`
 * (cli/cli_replay_solib.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_SOLIB_H
#define HINDSIGHT_CLI_REPLAY_SOLIB_H

#include "cli/cli_replay_int.h"

/* GDB's table of the shared libraries: each one's .text range, whether
 * it has debugging information, its path. 0 or -1. */
int cli_replay_info_sharedlibrary(struct cli_session *s, const char *args);

#endif
