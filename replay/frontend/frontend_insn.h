/*
 * replay/frontend/frontend_insn.h: the code at an address as `hindsight replay`
 * shows it, GDB 13's way: the instruction in AT&T text read from the
 * recording's memory at the current time (replay/decode/insn.h's decoder), the
 * "<name+off>" after an address, whether an address starts a line.
 * Text goes into the caller's buffers; nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_INSN_H
#define HINDSIGHT_REPLAY_FRONTEND_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_frontend;

/* The name GDB gives @addr: its minimal symbol, else the function holding
 * it (*@name, the offset in *@off); false when none. */
bool replay_frontend_addr_name(struct replay_frontend *f, uint64_t addr, const char **name,
			       uint64_t *off);

/* "<name+off>" of @addr as GDB shows it after an address (its minimal
 * symbol, else the function holding it) into @buf; "" when none. */
void replay_frontend_addr_symbol(struct replay_frontend *f, uint64_t addr, char *buf, size_t size);

/* The instruction at @addr read from the recording's memory, in GDB's AT&T
 * text (a direct branch's target and a rip-relative operand's address
 * followed by their <symbol+off>) into @text; its length in *@len (and its
 * bytes in @raw, 15 of them, when not NULL). 0, or -EIO when its bytes
 * cannot be read or are no instruction. */
int replay_frontend_insn_text(struct replay_frontend *f, uint64_t addr, char *text, size_t size,
			      unsigned *len, uint8_t *raw);

/* Whether @pc starts a line, as GDB decides whether a stop shows the
 * address: code without lines never does; else the pc is where a row of
 * the line table starts (replay_pc_starts_line). */
bool replay_frontend_starts_line(struct replay_frontend *f, uint64_t pc);

/* The same at the current position: false when its pc is not known. */
bool replay_frontend_here_starts_line(struct replay_frontend *f);

#endif
