/*
 * stub/recorders/stub_rec_ring.c: --snapshot's ring of a thread's trace and state
 * log (stub/recorders/stub_rec_ring.h).
 */
#include "stub/recorders/stub_rec_ring.h"

#include "stub/recorders/stub_sum.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_COPY (1u << 20)        /* bytes copied at once by the rewrite */
#define RING_GRAIN 16               /* cuts wanted per size of state log */
#define RING_GRAIN_MIN 4096         /* bytes of state log between cuts, at least */

void stub_rec_ring_init(struct stub_rec_ring *r, uint64_t size, uint64_t st_header)
{
	*r = (struct stub_rec_ring){ .size = size, .st_header = st_header,
				     .at = { .st_off = st_header } };
}

void stub_rec_ring_release(struct stub_rec_ring *r)
{
	free(r->cuts);
	r->cuts = NULL;
	r->head = r->n = r->cap = 0;
}

int stub_rec_ring_add(struct stub_rec_ring *r, const struct stub_rec_cut *c)
{
	if (r->head && r->head >= r->n / 2) {      /* passed cuts: reuse their room */
		memmove(r->cuts, r->cuts + r->head, (r->n - r->head) * sizeof(*r->cuts));
		r->n -= r->head;
		r->head = 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct stub_rec_cut *nv = realloc(r->cuts, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		r->cuts = nv;
		r->cap = cap;
	}
	r->cuts[r->n++] = *c;
	return 0;
}

/* Bytes of the two files from cut @c on. */
static uint64_t ring_kept(const struct stub_rec_cut *c, uint64_t pt_size, uint64_t st_size)
{
	return (pt_size - c->pt_off) + (st_size - c->st_off);
}

/* The oldest cut not passed that leaves at most the size, else the newest
 * one; r->n if there is none. */
static size_t ring_choose(const struct stub_rec_ring *r, uint64_t pt_size, uint64_t st_size)
{
	for (size_t i = r->head; i < r->n; i++)
		if (ring_kept(&r->cuts[i], pt_size, st_size) <= r->size)
			return i;
	return r->n > r->head ? r->n - 1 : r->n;
}

uint64_t stub_rec_ring_kept(const struct stub_rec_ring *r, uint64_t pt_size, uint64_t st_size)
{
	return r->size ? ring_kept(&r->at, pt_size, st_size) : pt_size + st_size;
}

bool stub_rec_ring_want(const struct stub_rec_ring *r, uint64_t size, uint64_t st_size)
{
	uint64_t last = r->n > r->head ? r->cuts[r->n - 1].st_off : r->at.st_off;

	uint64_t grain = size / RING_GRAIN > RING_GRAIN_MIN ? size / RING_GRAIN : RING_GRAIN_MIN;

	return size && st_size - last >= grain;
}

bool stub_rec_ring_due(const struct stub_rec_ring *r, uint64_t pt_size, uint64_t st_size)
{
	return r->size && !r->no_punch && r->n > r->head &&
	       ring_kept(&r->at, pt_size, st_size) > 2 * r->size;
}

/* [from, to) of @fd made a hole. */
static int ring_punch(int fd, uint64_t from, uint64_t to)
{
	if (to <= from)
		return 0;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
		      (off_t)(to - from)) < 0)
		return -errno;
	return 0;
}

/* The cut stub_rec_ring_trim moves to, or NULL. */
static const struct stub_rec_cut *ring_next(const struct stub_rec_ring *r, uint64_t pt_size,
					    uint64_t st_size)
{
	size_t i = ring_choose(r, pt_size, st_size);

	return !r->size || r->no_punch || i == r->n ? NULL : &r->cuts[i];
}

int stub_rec_ring_trim(struct stub_rec_ring *r, int pt_fd, uint64_t pt_size, int st_fd,
		       uint64_t st_size)
{
	const struct stub_rec_cut *c = ring_next(r, pt_size, st_size);
	size_t i;
	int e;

	if (!c)
		return 0;
	i = (size_t)(c - r->cuts);
	/* From the start each time: a file system frees only whole blocks of
	 * a hole, and the trace moves less than a block between two trims;
	 * punching a hole again costs nothing. */
	e = ring_punch(pt_fd, 0, c->pt_off);
	if (e >= 0)
		e = ring_punch(st_fd, r->st_header, c->st_off);
	if (e == -EOPNOTSUPP || e == -ENOSYS) {
		r->no_punch = true;        /* kept whole until the end, cut then */
		return 0;
	}
	if (e < 0)
		return e;
	r->at = *c;
	r->moved = true;
	r->head = i + 1;
	return 1;
}

/* @path rewritten to hold its bytes [0, keep) and [from, end). */
static int ring_drop_front(const char *path, uint64_t keep, uint64_t from)
{
	char tmp[4200];
	uint8_t *buf = malloc(RING_COPY);
	int in = open(path, O_RDONLY | O_CLOEXEC), out = -1, e = 0;
	uint64_t at = 0;

	snprintf(tmp, sizeof(tmp), "%s.cut", path);
	if (!buf || in < 0) {
		e = !buf ? -ENOMEM : -errno;
		goto done;
	}
	out = replay_bundle_create(tmp);
	if (out < 0) {
		e = out;
		goto done;
	}
	while (e == 0) {
		uint64_t want;
		ssize_t n;

		if (at >= keep && at < from)
			at = from;         /* skip what is dropped, holes and all */
		want = at < keep ? keep - at : RING_COPY;
		n = pread(in, buf, want < RING_COPY ? want : RING_COPY, (off_t)at);
		if (n < 0)
			e = -errno;
		else if (n == 0)
			break;
		else if (write(out, buf, (size_t)n) != n)
			e = errno ? -errno : -EIO;
		else
			at += (uint64_t)n;
	}
	if (e == 0 && close(out) < 0)
		e = -errno;
	out = -1;
	if (e == 0 && rename(tmp, path) < 0)
		e = -errno;
done:
	if (out >= 0)
		close(out);
	if (e < 0)
		unlink(tmp);
	if (in >= 0)
		close(in);
	free(buf);
	return e;
}

int stub_rec_ring_finish(struct stub_rec_ring *r, const char *pt_path, uint64_t pt_size,
			 const char *st_path, uint64_t st_size)
{
	size_t i;
	struct stub_rec_cut c;
	int e;

	if (!r->size)
		return 0;
	if (ring_kept(&r->at, pt_size, st_size) <= r->size) {
		if (!r->moved)
			return 0;          /* it all fits: nothing dropped */
		c = r->at;                 /* fits from where it starts: close the holes */
	} else {
		i = ring_choose(r, pt_size, st_size);
		if (i == r->n && !r->moved)
			return 0;          /* no cut to start at: kept whole */
		c = i == r->n ? r->at : r->cuts[i];
	}
	e = ring_drop_front(pt_path, 0, c.pt_off);
	if (e >= 0)
		e = ring_drop_front(st_path, r->st_header, c.st_off);
	/* Their checksums: the blocks kept (cuts are where blocks end). */
	if (e >= 0)
		e = stub_sum_drop_front(pt_path, 0, c.pt_off);
	if (e >= 0)
		e = stub_sum_drop_front(st_path, r->st_header, c.st_off);
	if (e < 0)
		return e;
	r->at = c;
	r->moved = true;
	r->head = r->n;
	return 1;
}

/* --- The recorders' side ------------------------------------------------ */

uint64_t stub_rec_ring_dropped(const struct stub_rec_ring *r)
{
	return r->moved ? r->at.index : 0;
}

/* @b says where thread @tid's recording starts now: a `snapshot` gap. */
static int ring_note(struct stub_rec_ring *r, struct replay_bundle *b, int64_t tid)
{
	int g;

	if (r->has_gap) {
		b->gaps[r->gap].time = r->at.time;
		return 0;
	}
	g = replay_bundle_add_gap(b, tid, r->at.time, "snapshot",
				  "the recording before this was dropped (--snapshot)");
	if (g < 0)
		return g;
	r->has_gap = true;
	r->gap = (size_t)g;
	return 0;
}

int stub_rec_ring_cut_here(struct stub_rec_ring *r, uint64_t size, const struct stub_rec_cut *c,
			   struct stub_rec_thread *th, struct stub_rec_state *st,
			   struct replay_bundle *b)
{
	const struct stub_rec_cut *next;
	uint64_t pt_size, st_size;
	int e;

	if (!r->size)
		stub_rec_ring_init(r, size, st->header_len);
	e = stub_rec_ring_add(r, c);
	if (e < 0)
		return e;
	pt_size = stub_swpt_offset(&th->pt);
	st_size = st->bytes + st->nrec;
	if (!stub_rec_ring_due(r, pt_size, st_size))
		return 0;
	/* Everything before the cut in the files themselves, then holes. */
	e = stub_swpt_flush(&th->pt);
	if (e >= 0 && fflush(th->pt.out) != 0)
		e = -EIO;
	if (e >= 0)
		e = stub_rec_state_flush(st);
	/* Their checksums say first where the files will start, and lose
	 * the records of what goes; where they cannot, nothing goes. */
	next = e >= 0 ? ring_next(r, pt_size, st_size) : NULL;
	if (next && (stub_sum_holes(th->pt.sum, 0, next->pt_off) < 0 ||
		     stub_sum_holes(st->sum, r->st_header, next->st_off) < 0))
		return 0;
	if (e >= 0)
		e = stub_rec_ring_trim(r, fileno(th->pt.out), pt_size, fileno(st->out), st_size);
	return e == 1 ? ring_note(r, b, th->tid) : e;
}

int stub_rec_ring_end(struct stub_rec_ring *r, struct replay_bundle *b, const char *dir,
		      size_t index, struct stub_rec_thread *th, struct stub_rec_state *st)
{
	const struct replay_thread *bt = &b->threads[index];
	char pt_path[4096], st_path[4096];
	uint64_t pt_size = stub_swpt_offset(&th->pt), st_size = st->bytes + st->nrec;
	int e;

	if (!r->size || !bt->state_file)
		return 0;
	snprintf(pt_path, sizeof(pt_path), "%s/%s", dir, bt->pt_file);
	snprintf(st_path, sizeof(st_path), "%s/%s", dir, bt->state_file);
	e = stub_rec_ring_finish(r, pt_path, pt_size, st_path, st_size);
	return e == 1 ? ring_note(r, b, bt->tid) : e;
}
