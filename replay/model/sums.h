/*
 * replay/model/sums.h: the checksums of a recording's files (docs/bundle.md,
 * "Checksums"): the format, which its writer (stub/recorders/stub_sum.c)
 * and its reader (replay/model/sums.c) share, and the reader.
 *
 * A software recorder writes, beside each thread's trace and state log,
 * FILE.sum: a 24-byte header, then one 8-byte record per block of the
 * file, in order from its first byte: the block's length (1 to
 * REPLAY_SUMS_BLOCK_MAX) and zlib's crc32 of its bytes, both
 * little-endian 32-bit (the header's end: below). The manifest names it (hindsight.threads[].ptSums,
 * .stateSums); a recording without it is read as before, with no claim.
 *
 * Reading checks every block; the first that is damaged (or missing from
 * a recording that says it is complete) ends what may be read of the
 * file, and a note names the file and the offset. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_SUMS_H
#define HINDSIGHT_REPLAY_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

/* The header: the magic, a flags byte, then (with REPLAY_SUMS_HOLES)
 * where --snapshot's ring made the file start: u64 front_off, u64
 * front_rec. A record of zeros before record front_rec is punched out;
 * the records go on at front_rec, for the bytes from front_off. */
#define REPLAY_SUMS_MAGIC "HSSUMS1"
#define REPLAY_SUMS_MAGIC_LEN 7
#define REPLAY_SUMS_FLAGS_AT 7
#define REPLAY_SUMS_FRONT_AT 8
#define REPLAY_SUMS_HEADER 24
#define REPLAY_SUMS_HOLES 1u          /* flag: the front was punched out (--snapshot) */
#define REPLAY_SUMS_RECORD 8
#define REPLAY_SUMS_BLOCK_MAX 65536u

static inline uint32_t replay_sums_crc(uint32_t crc, const void *p, size_t n)
{
	return (uint32_t)crc32(crc, p, (uInt)n);
}

static inline void replay_sums_put(uint8_t rec[REPLAY_SUMS_RECORD], uint32_t len, uint32_t crc)
{
	for (int i = 0; i < 4; i++) {
		rec[i] = (uint8_t)(len >> 8 * i);
		rec[4 + i] = (uint8_t)(crc >> 8 * i);
	}
}

static inline uint64_t replay_sums_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void replay_sums_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static inline void replay_sums_get(const uint8_t rec[REPLAY_SUMS_RECORD], uint32_t *len,
				   uint32_t *crc)
{
	*len = *crc = 0;
	for (int i = 0; i < 4; i++) {
		*len |= (uint32_t)rec[i] << 8 * i;
		*crc |= (uint32_t)rec[4 + i] << 8 * i;
	}
}

struct replay_bundle;
struct replay_sums_check;

/* Checks @file (bundle path, @b's) against its sums @sums: @c says how far
 * it may be read. @c may hold an earlier check of the same file, shorter
 * then (a recording that grew): it goes on from there. @what names the
 * file's kind in a note ("trace", "state log"). 0, or -ENOMEM. A damage
 * adds a note to @b. */
int replay_sums_check_file(struct replay_bundle *b, const char *file, const char *sums,
			   const char *what, struct replay_sums_check *c);

/* What replay_bundle_check_sums checks. */
#define REPLAY_SUMS_TRACES 1u      /* every thread's trace */
#define REPLAY_SUMS_STATES 2u      /* every thread's state log */

/* Every thread's trace and/or state log of @b (@what) that has sums,
 * checked: a command checks only what it reads (`history` no state log);
 * @old, if not NULL, is the same recording loaded earlier (shorter): what
 * it checked is not read again. 0 or -ENOMEM. */
int replay_bundle_check_sums(struct replay_bundle *b, const struct replay_bundle *old,
			     unsigned what);

#endif
