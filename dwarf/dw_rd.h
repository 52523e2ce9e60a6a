/* dw_rd: a read position in DWARF bytes (an expression, a location list):
 * little-endian fixed-size values and LEB128 numbers, @bad once a read ran
 * past @end (every later read then gives 0). */
#ifndef DW_RD_H
#define DW_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_rd {
	const uint8_t *p;
	size_t at, end;
	bool bad;
};

static inline uint64_t dw_rd_fixed(struct dw_rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || r->end - r->at < n) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->at + i] << (8 * i);
	r->at += n;
	return v;
}

static inline uint64_t dw_rd_uleb(struct dw_rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)dw_rd_fixed(r, 1);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

static inline int64_t dw_rd_sleb(struct dw_rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)dw_rd_fixed(r, 1);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return (int64_t)v;
}

#endif
