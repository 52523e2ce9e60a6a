/*
 * stub/live/stub_dreg.h: x86 debug registers as pure data (no ptrace here).
 *
 * The client's Z1 / Z2 / Z4 points are mapped onto the four address
 * registers DR0-DR3 and the control register DR7. A watched region that is
 * unaligned or longer than 8 bytes is split into aligned chunks of 1, 2, 4
 * or 8 bytes, one register each. A hit is decoded from DR6 back to the
 * client's point, so a watch stop reports the address the client gave.
 * stub/live/stub_hw.h writes the result into each thread.
 */
#ifndef HINDSIGHT_STUB_STUB_DREG_H
#define HINDSIGHT_STUB_STUB_DREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/target.h"

#define STUB_DREG_COUNT 4

/* DR7 R/W field values. */
enum stub_dreg_rw {
	STUB_DREG_EXEC = 0,
	STUB_DREG_WRITE = 1,
	STUB_DREG_ACCESS = 3,
};

struct stub_dreg_chunk {
	uint64_t addr;
	unsigned len; /* 1, 2, 4 or 8, and addr % len == 0 */
};

struct stub_dreg_slot {
	bool used;
	uint64_t addr;
	unsigned len;
	enum stub_dreg_rw rw;
	int point;    /* index in stub_dreg_set.point */
};

/* A point as the client gave it. */
struct stub_dreg_point {
	bool used;
	enum rsp_point_type type;
	uint64_t addr;
	uint64_t len;
};

struct stub_dreg_set {
	struct stub_dreg_slot slot[STUB_DREG_COUNT];
	struct stub_dreg_point point[STUB_DREG_COUNT];
};

/* Splits [addr, addr + len) into aligned chunks, at most @max. Returns the
 * number of chunks, -EINVAL if @len is 0 or the region wraps, -ENOSPC if
 * more than @max chunks are needed. */
int stub_dreg_split(uint64_t addr, uint64_t len, struct stub_dreg_chunk *out, size_t max);
/* DR7 LEN field for a length of 1, 2, 4 or 8 bytes (8 -> 2, 4 -> 3). */
unsigned stub_dreg_len_bits(unsigned len);
/* The DR7 bits that enable slot @i (L bit, R/W and LEN fields). */
uint64_t stub_dreg_dr7_slot(unsigned i, enum stub_dreg_rw rw, unsigned len);

void stub_dreg_set_init(struct stub_dreg_set *s);
/* Adds a point; 0 (also when the same point is there), -EOPNOTSUPP for
 * read watchpoints and software breakpoints, -EINVAL for a bad length,
 * -ENOSPC when not enough registers are free (nothing is changed then). */
int stub_dreg_insert(struct stub_dreg_set *s, enum rsp_point_type type, uint64_t addr, uint64_t len);
/* Removes a point; 0 also when it was not there, -EOPNOTSUPP as above. */
int stub_dreg_remove(struct stub_dreg_set *s, enum rsp_point_type type, uint64_t addr, uint64_t len);
bool stub_dreg_empty(const struct stub_dreg_set *s);
/* The DR7 value and the address of slot @i (0 if unused). */
uint64_t stub_dreg_dr7(const struct stub_dreg_set *s);
uint64_t stub_dreg_addr(const struct stub_dreg_set *s, unsigned i);

/* The client's point hit according to DR6 bits 0-3: its index, or -1 when
 * no used slot's bit is set. */
int stub_dreg_hit(const struct stub_dreg_set *s, uint64_t dr6);
/* The stop reason for a hit on a point of @type (HWBREAK, WATCH, AWATCH). */
enum rsp_stop_reason stub_dreg_reason(enum rsp_point_type type);

#endif
