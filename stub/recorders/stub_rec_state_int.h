/*
 * stub/recorders/stub_rec_state_int.h: what the files of the state log
 * writer share (stub/recorders/stub_rec_state.h is its door). Not for
 * other modules.
 *
 * The files, each calling only those below it:
 *   stub_rec_state.c        the log of a thread read through ptrace and
 *                           /proc/PID/mem: steps, syscalls, signals, pokes
 *   stub_rec_state_known.c  the log written from values a recorder already
 *                           has (the Valgrind recorder's)
 *   stub_rec_state_check.c  the hidden --state-check dump
 *   stub_rec_state_enc.c    the records, built in memory and written out
 *                           one fwrite at a time; the log's life
 * The ranges an instruction or a syscall writes are apart, with doors of
 * their own (stub_rec_state_ops.h, stub_rec_state_sys.h).
 *
 * The encoding of a record's pieces is inline here: most of them run for
 * every instruction recorded.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_STATE_INT_H
#define HINDSIGHT_STUB_STUB_REC_STATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/user.h>

#include "replay/model/state_format.h"
#include "stub/recorders/stub_rec_state.h"

#define STUB_REC_PAGE 4096ull

/* --- stub_rec_state_enc.c (each described where it is defined) --------- */

int stub_rec_rec_grow(struct stub_rec_state *s, size_t more);
void stub_rec_time_rec(struct stub_rec_state *s, uint64_t index, uint64_t time);
int stub_rec_known_flush(struct stub_rec_state *s);
int stub_rec_kw_flush(struct stub_rec_state *s);
int stub_rec_begin(struct stub_rec_state *s, unsigned kind, uint64_t index, uint64_t time,
		   size_t more);
int stub_rec_emit(struct stub_rec_state *s);
int stub_rec_xread(pid_t tid, uint8_t *buf, size_t *len);
void stub_rec_seen_note(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			const uint8_t *now);
void stub_rec_put_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
		      const uint8_t *old);
int stub_rec_checkpoint(struct stub_rec_state *s, const struct user_regs_struct *regs,
			uint64_t index, uint64_t time);
int stub_rec_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
		  uint64_t index, uint64_t time);
int stub_rec_xstate(struct stub_rec_state *s, uint64_t index, uint64_t time);
int stub_rec_map(struct stub_rec_state *s, uint64_t addr, uint64_t len, unsigned kind,
		 uint64_t index, uint64_t time);
int stub_rec_head(struct stub_rec_state *s, const struct user_regs_struct *regs,
		  uint64_t index, uint64_t time);
/* The REGS mask position of each user_regs_struct slot (rip: none), set
 * at stub_rec_state_init. */
extern int8_t stub_rec_pos[REPLAY_STATE_NGP];

/* --- stub_rec_state_check.c --------------------------------------------- */

void stub_rec_check_again(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			  const struct user_regs_struct *regs, uint64_t index);

/* --- encoding ------------------------------------------------------------ */

/* Room for @more bytes of records (once per record: inline). */
static inline int stub_rec_rec_room(struct stub_rec_state *s, size_t more)
{
	return s->nrec + more <= s->caprec ? 0 : stub_rec_rec_grow(s, more);
}

/* Callers reserve room first (stub_rec_rec_room). */
static inline void stub_rec_put(struct stub_rec_state *s, uint64_t v)
{
	s->nrec += replay_state_put_varint(s->rec + s->nrec, v);
}

static inline void stub_rec_put_s(struct stub_rec_state *s, int64_t v)
{
	stub_rec_put(s, replay_state_zigzag(v));
}

/* memcpy, with the 8 bytes of most writes (a register's worth) copied
 * inline: these run once per write the program makes. */
static inline void stub_rec_copy(void *d, const void *p, size_t n)
{
	if (n == 8)
		memcpy(d, p, 8);
	else
		memcpy(d, p, n);
}

static inline void stub_rec_put_bytes(struct stub_rec_state *s, const void *p, size_t n)
{
	stub_rec_copy(s->rec + s->nrec, p, n);
	s->nrec += n;
}

static inline void stub_rec_tag(struct stub_rec_state *s, unsigned kind, uint64_t index)
{
	s->nrec += replay_state_put_tag(s->rec + s->nrec, kind, index - s->last_index);
	s->last_index = index;
	s->ended = false;              /* a record after an end: not the end */
}

/* A record of @kind at @index, @time (a TIME record first if time minus
 * index changed), with room for @more bytes; what known-value calls held
 * back is not written first. Always inline: a Valgrind recording starts a
 * record here for nearly every instruction. */
static inline __attribute__((always_inline)) int stub_rec_begin_raw(struct stub_rec_state *s,
		unsigned kind, uint64_t index, uint64_t time, size_t more)
{
	int e = stub_rec_rec_room(s, more + 32);

	if (e < 0)
		return e;
	if (time - index != s->base)
		stub_rec_time_rec(s, index, time);
	if (kind != REPLAY_STATE_REC_TIME)
		stub_rec_tag(s, kind, index);
	return 0;
}

static inline uint64_t stub_rec_slot(const struct user_regs_struct *r, unsigned slot)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)r + 8 * slot, 8);
	return v;
}

/* A REGS record's body: @mask (positions in replay_state_slots) and the
 * differences of those slots of @regs from the log's; they become the
 * log's. */
static inline void stub_rec_put_regs(struct stub_rec_state *s,
				     const struct user_regs_struct *regs, uint64_t mask)
{
	stub_rec_put(s, mask);
	for (uint64_t m = mask; m; m &= m - 1) {
		unsigned slot = replay_state_slots[__builtin_ctzll(m)];
		uint64_t now = stub_rec_slot(regs, slot);

		stub_rec_put_s(s, (int64_t)(now - stub_rec_slot(&s->regs, slot)));
		memcpy((uint8_t *)&s->regs + 8 * slot, &now, 8);
	}
}

#endif
