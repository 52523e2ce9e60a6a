/*
 * protocol/rsp_ftag.c: x87 tag word conversion (fxsave abridged <-> full).
 */
#include "protocol/rsp_ftag.h"

#include <string.h>

enum {
	RSP_FTAG_VALID = 0,
	RSP_FTAG_ZERO = 1,
	RSP_FTAG_SPECIAL = 2,
	RSP_FTAG_EMPTY = 3,
};

unsigned rsp_ftag_classify(const uint8_t reg[10])
{
	uint64_t mant;
	unsigned exp = ((unsigned)reg[9] << 8 | reg[8]) & 0x7fff;

	memcpy(&mant, reg, 8);
	if (exp == 0x7fff)
		return RSP_FTAG_SPECIAL;
	if (exp == 0)
		return mant == 0 ? RSP_FTAG_ZERO : RSP_FTAG_SPECIAL;
	return (mant >> 63) ? RSP_FTAG_VALID : RSP_FTAG_SPECIAL;
}

uint16_t rsp_ftag_full(uint8_t abridged, uint16_t fstat, const uint8_t st_space[128])
{
	unsigned top = (fstat >> 11) & 7;
	uint16_t full = 0;

	for (unsigned phys = 0; phys < 8; phys++) {
		unsigned st = (phys - top) & 7;
		unsigned tag = RSP_FTAG_EMPTY;

		if (abridged & (1u << phys))
			tag = rsp_ftag_classify(st_space + 16 * st);
		full |= (uint16_t)(tag << (2 * phys));
	}
	return full;
}

uint8_t rsp_ftag_abridged(uint16_t full)
{
	uint8_t ab = 0;

	for (unsigned phys = 0; phys < 8; phys++)
		if (((full >> (2 * phys)) & 3) != RSP_FTAG_EMPTY)
			ab |= (uint8_t)(1u << phys);
	return ab;
}
