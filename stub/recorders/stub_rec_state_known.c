/*
 * stub/recorders/stub_rec_state_known.c: the state log written from values
 * a recorder already has (the Valgrind recorder, stub/recorders/stub_vgrec.c),
 * with no process to read: its registers after an instruction, its
 * writes with their old and new bytes, its mapping changes.
 *
 * These calls come once per instruction or more: records are written out
 * in batches, and the writes of one instruction that continue each other
 * (a rep string instruction's iterations, which VEX unrolls) are grown
 * into one MEM record, held back until another record comes
 * (stub_rec_kw_flush). Calls only stub_rec_state_enc.c.
 */
#include "stub/recorders/stub_rec_state_int.h"

#include <errno.h>
#include <stdlib.h>

int stub_rec_state_known_start(struct stub_rec_state *s, const struct user_regs_struct *regs,
			       uint64_t index, uint64_t time)
{
	s->xs_len = 0;             /* no XSAVE area: x87 / SSE / AVX unknown */
	return stub_rec_head(s, regs, index, time);
}

/* Records are written out in batches of this many bytes (and at
 * stub_rec_state_flush): these calls come once per instruction or more. */
#define STUB_REC_KNOWN_BATCH (1u << 16)

static int stub_rec_known_emit(struct stub_rec_state *s)
{
	return s->nrec >= STUB_REC_KNOWN_BATCH ? stub_rec_emit(s) : 0;
}

int stub_rec_state_known_time(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	int e = 0;

	if (time - index != s->base)
		e = stub_rec_begin(s, REPLAY_STATE_REC_TIME, index, time, 0);
	return e < 0 ? e : stub_rec_known_emit(s);
}

/* Registers are written at once, one REGS record per call: the recorder
 * reports an instruction's registers once, after its writes (a rep string
 * instruction's iterations, which VEX unrolls, together). */
int stub_rec_state_known_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
			      uint32_t slots, uint64_t index, uint64_t time)
{
	const uint64_t *now = (const uint64_t *)regs, *was = (const uint64_t *)&s->regs;
	uint64_t mask = 0;
	int e = s->kw_len ? stub_rec_kw_flush(s) : 0;

	if (e < 0)
		return e;
	slots &= (1u << REPLAY_STATE_NGP) - 1;    /* stub_rec_pos: set at init */
	for (uint32_t m = slots; m; m &= m - 1) {
		unsigned slot = (unsigned)__builtin_ctz(m);

		if (stub_rec_pos[slot] >= 0 && now[slot] != was[slot])
			mask |= 1ull << stub_rec_pos[slot];
	}
	if (mask) {
		e = stub_rec_begin_raw(s, REPLAY_STATE_REC_REGS, index, time,
				       8 + 10 * REPLAY_STATE_NSLOTS);
		if (e < 0)
			return e;
		stub_rec_put_regs(s, regs, mask);
	} else if (time - index != s->base) {
		e = stub_rec_begin_raw(s, REPLAY_STATE_REC_TIME, index, time, 0);
	}
	/* Slots never named keep the log's values. */
	if (e >= 0 && index - s->last_ckpt >= STUB_REC_STATE_CKPT)
		e = stub_rec_checkpoint(s, &s->regs, index, time);
	return e < 0 ? e : stub_rec_known_emit(s);
}

int stub_rec_state_known_ckpt(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	int e = stub_rec_checkpoint(s, &s->regs, index, time);

	return e < 0 ? e : stub_rec_known_emit(s);
}

#define STUB_REC_KW_MAX (1u << 20)  /* bytes of one joined write, at most */

int stub_rec_state_known_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     const void *old, const void *now, uint64_t index, uint64_t time)
{
	int e = 0;

	/* What is held back is of one instruction; another's first. */
	if (s->kw_len && !(index == s->kw_index && time == s->kw_time &&
			   addr == s->kw_addr + s->kw_len && s->kw_len + len <= STUB_REC_KW_MAX))
		e = stub_rec_known_flush(s);
	if (e < 0)
		return e;
	if (!s->kw_len) {
		s->kw_addr = addr;
		s->kw_index = index;
		s->kw_time = time;
	}
	if (s->kw_len + len > s->kw_cap) {
		size_t cap = s->kw_cap ? s->kw_cap : 256;
		uint8_t *o, *n;

		while (cap < s->kw_len + len)
			cap *= 2;
		o = realloc(s->kw_old, cap);
		if (o)
			s->kw_old = o;
		n = o ? realloc(s->kw_new, cap) : NULL;
		if (n)
			s->kw_new = n;
		if (!o || !n)
			return -ENOMEM;
		s->kw_cap = cap;
	}
	stub_rec_copy(s->kw_old + s->kw_len, old, len);
	stub_rec_copy(s->kw_new + s->kw_len, now, len);
	s->kw_len += len;
	return stub_rec_known_emit(s);
}

int stub_rec_state_known_map(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     enum stub_rec_state_map kind, uint64_t index, uint64_t time)
{
	int e = stub_rec_map(s, addr, len, kind, index, time);

	return e < 0 ? e : stub_rec_known_emit(s);
}
