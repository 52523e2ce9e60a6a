/*
 * replay/model/state_time.c: a thread's positions and logical times, each
 * mapped to the other through the time bases the scan kept
 * (replay/model/state.c: from an index on, time = index + base), and how
 * far each log is whole (its last record, where a log cut short stops
 * being known). Reads the index only; calls nothing of the reader's.
 */
#include <errno.h>

#include "replay/model/state_int.h"


/* --- how far the logs go ------------------------------------------------- */

uint64_t replay_state_last_index(const struct replay_state *st, int64_t tid)
{
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].tid == tid)
			return st->t[i].last_index;
	return 0;
}

void replay_state_set_whole(struct replay_state *st)
{
	for (size_t i = 0; i < st->nt; i++) {
		st->t[i].whole = true;
		st->t[i].known = st->t[i].until = UINT64_MAX;
	}
	st->until = UINT64_MAX;
}

bool replay_state_cut(const struct replay_state *st, int64_t tid, uint64_t *position,
		      uint64_t *time)
{
	for (size_t i = 0; i < st->nt; i++) {
		const struct sthread *t = &st->t[i];

		if (t->tid != tid || t->whole)
			continue;
		*position = t->known;
		*time = t->until;
		return true;
	}
	return false;
}

/* --- time ---------------------------------------------------------------- */

/* The time base after every record of index <= @index. */
static uint64_t base_of(const struct sthread *t, uint64_t index)
{
	size_t lo = 0, hi = t->ntb;

	while (hi - lo > 1) {              /* the last entry <= index */
		size_t mid = (lo + hi) / 2;

		if (t->tb[mid].index <= index)
			lo = mid;
		else
			hi = mid;
	}
	return t->ntb ? t->tb[lo].base : 0;
}

/* Position @p's time: after instruction p - 1 ran. */
static uint64_t time_of(const struct sthread *t, uint64_t p)
{
	return p - 1 + base_of(t, p - 1);
}

int replay_state_time_at(struct replay_state *st, int64_t tid, uint64_t index, uint64_t *time)
{
	struct sthread *t = state_thread_find(st, tid);

	if (!t || !index)
		return -ENOENT;
	*time = time_of(t, index);
	return 0;
}

int replay_state_position_at(struct replay_state *st, int64_t tid, uint64_t time,
			     uint64_t *position)
{
	struct sthread *t = state_thread_find(st, tid);
	uint64_t lo = 1, hi;

	*position = 1;
	if (!t || !t->ntb || time < time_of(t, 1))
		return -ENOENT;
	/* Times grow with positions by at least one each: the answer is at
	 * most time - (the first base) + 1. Largest p with time_of(p) <= time. */
	hi = time - t->tb[0].base + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (time_of(t, mid) <= time)
			lo = mid;
		else
			hi = mid - 1;
	}
	*position = lo;
	return 0;
}
