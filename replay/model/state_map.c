/*
 * replay/model/state_map.c: the mapping record that last made a range of
 * memory what it is (see state.h, replay_state_map_before): where memory
 * no instruction wrote got its contents (brk's or mmap's zeros); and the
 * exec epoch around a time, which memory reads (state_mem.c) and write
 * searches (state_write.c) do not look past. Calls nothing of the
 * reader's.
 */
#include <errno.h>

#include "replay/model/state_format.h"
#include "replay/model/state_int.h"

int replay_state_map_before(const struct replay_state *st, uint64_t addr, uint64_t len,
			    uint64_t time, struct replay_state_mapping *out)
{
	/* the records are in time order, few (a system call each): latest first */
	for (size_t i = st->nw; i-- > 0;) {
		const struct mwrite *w = &st->w[i];

		if (w->time > time)
			continue;
		if (w->kind == 16 + REPLAY_STATE_MAP_ALL)
			return -ENOENT;    /* an exec: nothing before it counts */
		if (!w->len || w->addr >= addr + len || addr >= w->addr + w->len)
			continue;
		out->tid = st->t[w->thread].tid;
		out->index = w->index;
		out->time = w->time;
		out->addr = w->addr;
		out->len = w->len;
		out->how = w->kind - 16;
		return 0;
	}
	return -ENOENT;
}

/* The exec epoch around @time: writes in (from, to) count. */
void state_exec_epoch(const struct replay_state *st, uint64_t time, uint64_t *from,
		      uint64_t *to)
{
	*from = 0;
	*to = UINT64_MAX;
	for (size_t i = 0; i < st->nexec; i++) {
		if (st->execs[i] <= time)
			*from = st->execs[i];
		else if (*to == UINT64_MAX)
			*to = st->execs[i];
	}
}
