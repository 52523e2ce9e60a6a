/*
 * stub/live/stub_dreg.c: DR7 encoding, region splitting and DR6 decoding.
 */
#include "stub/live/stub_dreg.h"

#include <errno.h>
#include <string.h>

/* The largest of 8, 4, 2, 1 that @addr is aligned to and that fits @len. */
static unsigned stub_dreg_chunk_len(uint64_t addr, uint64_t len)
{
	unsigned size = 8;

	while (size > 1 && (addr % size != 0 || size > len))
		size /= 2;
	return size;
}

int stub_dreg_split(uint64_t addr, uint64_t len, struct stub_dreg_chunk *out, size_t max)
{
	size_t n = 0;

	if (len == 0 || addr + len - 1 < addr)
		return -EINVAL;
	while (len > 0) {
		unsigned size = stub_dreg_chunk_len(addr, len);

		if (n == max)
			return -ENOSPC;
		out[n].addr = addr;
		out[n].len = size;
		n++;
		addr += size;
		len -= size;
	}
	return (int)n;
}

unsigned stub_dreg_len_bits(unsigned len)
{
	switch (len) {
	case 2: return 1;
	case 8: return 2;
	case 4: return 3;
	default: return 0;
	}
}

uint64_t stub_dreg_dr7_slot(unsigned i, enum stub_dreg_rw rw, unsigned len)
{
	uint64_t v = 1ull << (2 * i);

	v |= (uint64_t)rw << (16 + 4 * i);
	v |= (uint64_t)stub_dreg_len_bits(len) << (18 + 4 * i);
	return v;
}

void stub_dreg_set_init(struct stub_dreg_set *s)
{
	memset(s, 0, sizeof(*s));
}

static int stub_dreg_rw_of(enum rsp_point_type type, enum stub_dreg_rw *rw)
{
	switch (type) {
	case RSP_POINT_HW_BREAK: *rw = STUB_DREG_EXEC; return 0;
	case RSP_POINT_WRITE_WATCH: *rw = STUB_DREG_WRITE; return 0;
	case RSP_POINT_ACCESS_WATCH: *rw = STUB_DREG_ACCESS; return 0;
	default: return -EOPNOTSUPP;
	}
}

static int stub_dreg_find(const struct stub_dreg_set *s, enum rsp_point_type type,
			  uint64_t addr, uint64_t len)
{
	for (int i = 0; i < STUB_DREG_COUNT; i++) {
		const struct stub_dreg_point *p = &s->point[i];

		if (p->used && p->type == type && p->addr == addr && p->len == len)
			return i;
	}
	return -1;
}

static int stub_dreg_free_point(const struct stub_dreg_set *s)
{
	for (int i = 0; i < STUB_DREG_COUNT; i++)
		if (!s->point[i].used)
			return i;
	return -1;
}

static unsigned stub_dreg_free_slots(const struct stub_dreg_set *s)
{
	unsigned n = 0;

	for (int i = 0; i < STUB_DREG_COUNT; i++)
		n += !s->slot[i].used;
	return n;
}

/* Puts @chunk into the first free slot, owned by point @pi. */
static void stub_dreg_take_slot(struct stub_dreg_set *s, const struct stub_dreg_chunk *c,
				enum stub_dreg_rw rw, int pi)
{
	for (int i = 0; i < STUB_DREG_COUNT; i++) {
		struct stub_dreg_slot *sl = &s->slot[i];

		if (sl->used)
			continue;
		sl->used = true;
		sl->addr = c->addr;
		sl->len = c->len;
		sl->rw = rw;
		sl->point = pi;
		return;
	}
}

/* Chunks for a point: an execute breakpoint is one 1-byte slot. */
static int stub_dreg_chunks(enum stub_dreg_rw rw, uint64_t addr, uint64_t len,
			    struct stub_dreg_chunk *c)
{
	if (rw != STUB_DREG_EXEC)
		return stub_dreg_split(addr, len, c, STUB_DREG_COUNT);
	c[0].addr = addr;
	c[0].len = 1;
	return 1;
}

int stub_dreg_insert(struct stub_dreg_set *s, enum rsp_point_type type, uint64_t addr, uint64_t len)
{
	struct stub_dreg_chunk c[STUB_DREG_COUNT];
	enum stub_dreg_rw rw;
	int n, pi, r = stub_dreg_rw_of(type, &rw);

	if (r < 0)
		return r;
	if (stub_dreg_find(s, type, addr, len) >= 0)
		return 0;
	n = stub_dreg_chunks(rw, addr, len, c);
	if (n < 0)
		return n;
	pi = stub_dreg_free_point(s);
	if (pi < 0 || (unsigned)n > stub_dreg_free_slots(s))
		return -ENOSPC;
	s->point[pi] = (struct stub_dreg_point){ true, type, addr, len };
	for (int i = 0; i < n; i++)
		stub_dreg_take_slot(s, &c[i], rw, pi);
	return 0;
}

int stub_dreg_remove(struct stub_dreg_set *s, enum rsp_point_type type, uint64_t addr, uint64_t len)
{
	enum stub_dreg_rw rw;
	int pi, r = stub_dreg_rw_of(type, &rw);

	if (r < 0)
		return r;
	pi = stub_dreg_find(s, type, addr, len);
	if (pi < 0)
		return 0;
	s->point[pi].used = false;
	for (int i = 0; i < STUB_DREG_COUNT; i++)
		if (s->slot[i].used && s->slot[i].point == pi)
			memset(&s->slot[i], 0, sizeof(s->slot[i]));
	return 0;
}

bool stub_dreg_empty(const struct stub_dreg_set *s)
{
	return stub_dreg_free_slots(s) == STUB_DREG_COUNT;
}

uint64_t stub_dreg_dr7(const struct stub_dreg_set *s)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < STUB_DREG_COUNT; i++)
		if (s->slot[i].used)
			v |= stub_dreg_dr7_slot(i, s->slot[i].rw, s->slot[i].len);
	return v;
}

uint64_t stub_dreg_addr(const struct stub_dreg_set *s, unsigned i)
{
	return i < STUB_DREG_COUNT && s->slot[i].used ? s->slot[i].addr : 0;
}

int stub_dreg_hit(const struct stub_dreg_set *s, uint64_t dr6)
{
	for (int i = 0; i < STUB_DREG_COUNT; i++)
		if ((dr6 & (1u << i)) && s->slot[i].used)
			return s->slot[i].point;
	return -1;
}

enum rsp_stop_reason stub_dreg_reason(enum rsp_point_type type)
{
	switch (type) {
	case RSP_POINT_HW_BREAK: return RSP_REASON_HWBREAK;
	case RSP_POINT_WRITE_WATCH: return RSP_REASON_WATCH;
	case RSP_POINT_READ_WATCH: return RSP_REASON_RWATCH;
	case RSP_POINT_ACCESS_WATCH: return RSP_REASON_AWATCH;
	default: return RSP_REASON_NONE;
	}
}
