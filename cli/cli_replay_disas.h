/*
 * cli/cli_replay_disas.h: `hindsight replay`'s disassemble, and the one
 * instruction line x/i, display/i and disassemble print as GDB 13 does
 * (cli/cli_replay_disas.c).
 */
#ifndef HINDSIGHT_CLI_REPLAY_DISAS_H
#define HINDSIGHT_CLI_REPLAY_DISAS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli_replay_int.h"

/* disassemble [/r /m /s] [FUNC | ADDR | START,END | START,+LEN]. */
int cli_replay_cmd_disassemble(struct cli_session *s, const char *args, const struct command *c);

/* "<name+off>" of @addr as GDB shows it after an address (its minimal
 * symbol, else the function holding it) into @buf; "" when none. */
void cli_replay_addr_symbol(struct cli_session *s, uint64_t addr, char *buf, size_t size);

/* The instruction at @addr read from the recording's memory, in GDB's AT&T
 * text (a direct branch's target and a rip-relative operand's address
 * followed by their <symbol+off>) into @text; its length in *@len (and its
 * bytes in @raw, 15 of them, when not NULL). 0, or -EIO when its bytes
 * cannot be read or are no instruction. */
int cli_replay_insn_text(struct cli_session *s, uint64_t addr, char *text, size_t size,
			 unsigned *len, uint8_t *raw);

/* The selected frame's pc (what "=> " marks), or ~0 when not known. */
uint64_t cli_replay_selected_pc(struct cli_session *s);

#endif
