/*
 * protocol/rsp_ftag.h: the x87 tag word, full (GDB's ftag) and abridged.
 *
 * fxsave keeps one bit per physical register (1 = not empty); GDB wants the
 * full 16-bit tag word with two bits per physical register (0 valid, 1 zero,
 * 2 special, 3 empty). Rebuilding it means classifying the register
 * contents. Pure functions, no ptrace.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_FTAG_H
#define HINDSIGHT_PROTOCOL_RSP_FTAG_H

#include <stdint.h>

/* The tag (0..3) of one non-empty 80-bit register @reg (10 bytes, LE). */
unsigned rsp_ftag_classify(const uint8_t reg[10]);
/* The full tag word from fxsave's abridged tag @abridged, the status word
 * @fstat (for TOP) and @st_space, fxsave's 8 registers of 16 bytes each in
 * stack order (ST(0) first). */
uint16_t rsp_ftag_full(uint8_t abridged, uint16_t fstat, const uint8_t st_space[128]);
/* The abridged tag for a full tag word: bit set unless the tag is 3. */
uint8_t rsp_ftag_abridged(uint16_t full);

#endif
