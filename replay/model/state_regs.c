/*
 * replay/model/state_regs.c: the registers at a position (thread,
 * instruction), redone from the last checkpoint at or before it by
 * parsing forward (replay/model/state_parse.c), each thread's parser kept
 * as a cursor so that stepping forward goes on from the last answer; and
 * the same in GDB's form (protocol/rsp_regs.h). Of the reader it uses
 * the checkpoints replay/model/state.c found and calls only the parser.
 */
#include <errno.h>
#include <string.h>

#include "protocol/rsp_ftag.h"
#include "replay/model/state_int.h"


/* --- registers ------------------------------------------------------- */

/* The parser of @t after every record of index <= @target. */
static int redo(struct sthread *t, uint64_t target)
{
	struct parser *ps = &t->cur;
	size_t lo = 0, hi = t->nck;

	while (hi - lo > 1) {              /* the last checkpoint <= target */
		size_t mid = (lo + hi) / 2;

		if (t->ck[mid].index <= target)
			lo = mid;
		else
			hi = mid;
	}
	if (!t->cur_valid || ps->index > target || ps->index < t->ck[lo].index) {
		unsigned kind;

		/* The checkpoint itself whatever its tag's delta says: that is
		 * from the record before it (instructions that changed nothing
		 * the log records leave a delta > 0), and the checkpoint holds
		 * its own index, which is <= target. */
		*ps = (struct parser){ .p = t->data + t->ck[lo].off, .end = t->data + t->len,
				       .origin = t->origin, .xs = t->xs_cur, .xs_len = t->xs_len,
				       .v1 = t->v1 };
		t->cur_valid = false;
		if (state_parse_head(ps, &kind) <= 0 || kind != REPLAY_STATE_REC_CKPT ||
		    state_parse_body(ps, kind, NULL) < 0)
			return -EINVAL;
		t->cur_valid = true;
	}
	while (ps->p < ps->end) {
		struct parser save = *ps;
		unsigned kind;
		int r = state_parse_head(ps, &kind);

		if (r < 0 || (r > 0 && ps->index > target)) {
			*ps = save;
			return r < 0 ? -EINVAL : 0;
		}
		if (r == 0 || state_parse_body(ps, kind, NULL) < 0) {
			t->cur_valid = false;
			return -EINVAL;
		}
	}
	return 0;
}

int replay_state_raw_at(struct replay_state *st, int64_t tid, uint64_t index,
			uint64_t gp[REPLAY_STATE_NGP], uint8_t *xs, size_t *xs_len)
{
	struct sthread *t = state_thread_find(st, tid);
	int e;

	if (!t || !index)
		return -ENOENT;
	if (index > t->known)
		return -ENODATA;
	e = redo(t, index - 1);
	if (e < 0)
		return e;
	if (gp)
		memcpy(gp, t->cur.gp, sizeof(t->cur.gp));
	if (xs)
		memcpy(xs, t->xs_cur, t->xs_len);
	if (xs_len)
		*xs_len = t->xs_len;
	return 0;
}

/* --- registers in GDB's form ------------------------------------------- */

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

int replay_state_regs_at(struct replay_state *st, int64_t tid, uint64_t index,
			 struct rsp_regs *out)
{
	uint64_t gp[REPLAY_STATE_NGP];
	struct sthread *t = state_thread_find(st, tid);
	const uint8_t *xs;
	size_t xl;
	int e = replay_state_raw_at(st, tid, index, gp, NULL, &xl);

	if (e < 0)
		return e;
	xs = t->xs_cur;                    /* current after raw_at */
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (rsp_reg_descs[r].user != RSP_USER_NONE && r != RSP_REG_RIP)
			rsp_regs_set(out, (enum rsp_reg)r, gp[rsp_reg_descs[r].user]);
	if (xl < 576 + 256)
		return 0;
	for (int i = 0; i < 8; i++)
		rsp_regs_set_bytes(out, RSP_REG_ST0 + i, xs + 32 + 16 * i);
	rsp_regs_set(out, RSP_REG_FCTRL, le(xs, 2));
	rsp_regs_set(out, RSP_REG_FSTAT, le(xs + 2, 2));
	rsp_regs_set(out, RSP_REG_FTAG, rsp_ftag_full(xs[4], (uint16_t)le(xs + 2, 2), xs + 32));
	rsp_regs_set(out, RSP_REG_FISEG, (le(xs + 8, 8) >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FIOFF, le(xs + 8, 8) & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOSEG, (le(xs + 16, 8) >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FOOFF, le(xs + 16, 8) & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOP, le(xs + 6, 2) & 0x7ff);
	for (int i = 0; i < 16; i++)
		rsp_regs_set_bytes(out, RSP_REG_XMM0 + i, xs + 160 + 16 * i);
	rsp_regs_set(out, RSP_REG_MXCSR, le(xs + 24, 4));
	for (int i = 0; i < 16; i++) {
		static const uint8_t zero[16];

		/* XSTATE_BV bit 2 clear: ymm in its initial state (zero). */
		rsp_regs_set_bytes(out, RSP_REG_YMM0H + i, (xs[512] & 4) ? xs + 576 + 16 * i : zero);
	}
	return 0;
}
