/*
 * cli/cli_replay_disas.h: `hindsight replay`'s disassemble as GDB 13
 * prints it (cli/cli_replay_disas.c; the instruction line is
 * replay_frontend_insn_text).
 */
#ifndef HINDSIGHT_CLI_REPLAY_DISAS_H
#define HINDSIGHT_CLI_REPLAY_DISAS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli_replay_int.h"

/* disassemble [/r /m /s] [FUNC | ADDR | START,END | START,+LEN]. */
int cli_replay_cmd_disassemble(struct cli_session *s, const char *args, const struct command *c);

/* info line [FUNC | FILE:LINE | LINE | *ADDR]: GDB 13's words, $_ set. */
int cli_replay_info_line(struct cli_session *s, const char *args);

/* The selected frame's pc (what "=> " marks), or ~0 when not known. */
uint64_t cli_replay_selected_pc(struct cli_session *s);

/* Frees what disassemble keeps in the session (at its end). */
void cli_replay_disas_release(struct cli_session *s);

#endif
