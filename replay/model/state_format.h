/*
 * replay/model/state_format.h: the state log's format (docs/bundle.md, "State
 * log"), the one definition its writer (stub/recorders/stub_rec_state*.c) and its
 * reader (replay/model/state*.c) share: the magic, the record kinds and what a
 * MAP record says, the order of the general registers in a REGS record's
 * mask, a record's tag, and the varint / svarint coding.
 *
 * Header only (constants and inline functions), so that stub/, which
 * writes logs through it, depends on no code of replay/ for it. Nothing
 * here allocates; writers reserve room first (REPLAY_STATE_VARINT_MAX
 * bytes a number), readers pass the end of their bytes.
 */
#ifndef HINDSIGHT_REPLAY_STATE_FORMAT_H
#define HINDSIGHT_REPLAY_STATE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/rsp_regs.h"

/* The header: the magic, then varint tid, varint XSAVE area length,
 * varint REPLAY_STATE_NGP. Logs of the first version (HSSTATE1) are read
 * too: their MEM records' length is the length, and the old bytes are
 * always there. */
#define REPLAY_STATE_MAGIC "HSSTATE2"
#define REPLAY_STATE_MAGIC_V1 "HSSTATE1"
#define REPLAY_STATE_MAGIC_LEN 8
#define REPLAY_STATE_NGP 27        /* RSP_USER_COUNT: struct user_regs_struct's fields */
#define REPLAY_STATE_XMAX 16384    /* largest XSAVE area */
_Static_assert(REPLAY_STATE_NGP == RSP_USER_COUNT, "a checkpoint has every user_regs field");

/* Record kinds: the low 3 bits of a record's tag. */
enum replay_state_kind {
	REPLAY_STATE_REC_REGS = 1,     /* general register differences */
	REPLAY_STATE_REC_XSTATE = 2,   /* XSAVE words XORed */
	REPLAY_STATE_REC_MEM = 3,      /* address, length, old bytes, new bytes */
	REPLAY_STATE_REC_MAP = 4,      /* memory appeared / went / is unknown */
	REPLAY_STATE_REC_TIME = 5,     /* logical time minus index changes */
	REPLAY_STATE_REC_CKPT = 6,     /* everything, to start reading from */
	REPLAY_STATE_REC_SYNC = 7,     /* the log is whole up to here (or ends) */
};

/* A tag: kind | min(delta, 31) << 3; delta 31: the real delta follows as
 * a varint. A 0 byte where a tag would be is padding. */
#define REPLAY_STATE_KIND_MASK 7u
#define REPLAY_STATE_KIND_BITS 3
#define REPLAY_STATE_DELTA_MAX 31u

/* A MEM record's length field is len << 1 | REPLAY_STATE_MEM_SAME when
 * its old bytes are left out: they are the new bytes of an earlier MEM
 * record of the same address and length, in the same log, with no
 * checkpoint or MAP record between the two. A reader never needs them:
 * at every time those old bytes would answer (memory before this write),
 * that earlier write, nearer in time, answers instead. */
#define REPLAY_STATE_MEM_SAME 1u

/* What a MAP record says of its range. */
enum replay_state_map {
	REPLAY_STATE_MAP_UNKNOWN = 0,  /* file mapping, mremap target, madvise */
	REPLAY_STATE_MAP_ZERO = 1,     /* new anonymous memory: zeros */
	REPLAY_STATE_MAP_GONE = 2,     /* unmapped */
	REPLAY_STATE_MAP_VOLATILE = 3, /* the kernel writes it (rseq, tid words, shared) */
	REPLAY_STATE_MAP_ALL = 4,      /* exec: every address unknown (no range) */
};

/* struct user_regs_struct fields (protocol/rsp_regs.h's slots) in the
 * order of a REGS record's mask: the most often changed first, so that
 * the mask is one byte; rip is not logged (the PT history gives it). */
static const uint8_t replay_state_slots[] = {
	RSP_USER_EFLAGS, RSP_USER_RAX, RSP_USER_RCX, RSP_USER_RDX, RSP_USER_RSP,
	RSP_USER_RSI, RSP_USER_RDI, RSP_USER_RBX, RSP_USER_RBP, RSP_USER_R8,
	RSP_USER_R9, RSP_USER_R10, RSP_USER_R11, RSP_USER_R12, RSP_USER_R13,
	RSP_USER_R14, RSP_USER_R15, RSP_USER_ORIG_RAX, RSP_USER_FS_BASE, RSP_USER_GS_BASE,
	RSP_USER_CS, RSP_USER_SS, RSP_USER_DS, RSP_USER_ES, RSP_USER_FS, RSP_USER_GS,
};
#define REPLAY_STATE_NSLOTS (sizeof(replay_state_slots))

/* --- coding ------------------------------------------------------------ */

#define REPLAY_STATE_VARINT_MAX 10 /* bytes of the longest varint */

/* The low 56 bits of @v spread into eight 7-bit groups, one a byte. */
static inline uint64_t replay_state_spread56(uint64_t v)
{
	uint64_t x = v & 0x00FFFFFFFFFFFFFFull;

	x = (x & 0x000000000FFFFFFFull) | ((x & 0x00FFFFFFF0000000ull) << 4);
	x = (x & 0x00003FFF00003FFFull) | ((x & 0x0FFFC0000FFFC000ull) << 2);
	return (x & 0x007F007F007F007Full) | ((x & 0x3F803F803F803F80ull) << 1);
}

/* @v as unsigned LEB128 at @p: the bytes written. @p has room for
 * REPLAY_STATE_VARINT_MAX bytes, all of which may be written to: seven-bit
 * groups are spread in a 64-bit word and stored at once (random 64-bit
 * register values are common, and a byte at a time was the writer's
 * hottest loop). x86-64 only: the word is stored little-endian. */
static inline size_t replay_state_put_varint(uint8_t *p, uint64_t v)
{
	uint64_t x;
	size_t n;

	if (v < 0x80) {
		p[0] = (uint8_t)v;
		return 1;
	}
	x = replay_state_spread56(v);
	if (v < (1ull << 56)) {
		n = (size_t)(64 - __builtin_clzll(v) + 6) / 7;     /* 2 to 8 */
		x |= 0x8080808080808080ull & ((1ull << (8 * (n - 1))) - 1);
		memcpy(p, &x, 8);
		return n;
	}
	x |= 0x8080808080808080ull;
	memcpy(p, &x, 8);
	v >>= 56;                          /* 1 to 255 */
	if (v < 0x80) {
		p[8] = (uint8_t)v;
		return 9;
	}
	p[8] = (uint8_t)(v | 0x80);
	p[9] = (uint8_t)(v >> 7);
	return 10;
}

/* svarint: @v zigzag-encoded (0, -1, 1, -2, ... as 0, 1, 2, 3, ...). */
static inline uint64_t replay_state_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t replay_state_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* A tag for a record of @kind @delta instructions after the previous one
 * at @p (the delta follows when it does not fit): the bytes written. */
static inline size_t replay_state_put_tag(uint8_t *p, unsigned kind, uint64_t delta)
{
	unsigned short_delta = delta < REPLAY_STATE_DELTA_MAX ? (unsigned)delta
							      : REPLAY_STATE_DELTA_MAX;

	p[0] = (uint8_t)(kind | short_delta << REPLAY_STATE_KIND_BITS);
	return 1 + (delta >= REPLAY_STATE_DELTA_MAX ? replay_state_put_varint(p + 1, delta) : 0);
}

/* The varint at *@p (before @end) into *@v, *@p moved past it. 0, or
 * -1 when it runs past @end or over 64 bits (*@p is then anywhere up to
 * @end). */
static inline int replay_state_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned sh = 0; sh < 64; sh += 7) {
		if (*p >= end)
			return -1;
		uint8_t b = *(*p)++;

		r |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* The tag at *@p (before @end): the record's kind in *@kind, its delta in
 * *@delta, *@p moved past them. 0 or -1. */
static inline int replay_state_get_tag(const uint8_t **p, const uint8_t *end, unsigned *kind,
				       uint64_t *delta)
{
	if (*p >= end)
		return -1;
	*kind = **p & REPLAY_STATE_KIND_MASK;
	*delta = *(*p)++ >> REPLAY_STATE_KIND_BITS;
	return *delta == REPLAY_STATE_DELTA_MAX ? replay_state_get_varint(p, end, delta) : 0;
}

#endif
