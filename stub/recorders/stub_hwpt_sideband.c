/*
 * stub/recorders/stub_hwpt_sideband.c: DATA ring records into mappings and gaps
 * (stub/recorders/stub_hwpt_sideband.h).
 */
#include "stub/recorders/stub_hwpt_sideband.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest record the kernel writes: header.size is 16 bits. */
#define MAX_RECORD 65536

void stub_hwpt_sideband_init(struct stub_hwpt_sideband *s, struct replay_bundle *b,
			     int64_t pid, const struct replay_perf_sid_layout *l,
			     const struct replay_perf_tconv *tc)
{
	memset(s, 0, sizeof(*s));
	replay_perf_sideband_init(&s->sb, b, tc, pid);
	if (l)
		s->layout = *l;
}

void stub_hwpt_tconv_from_page(const volatile struct perf_event_mmap_page *pg,
			       struct replay_perf_tconv *tc)
{
	uint32_t seq;

	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		memset(tc, 0, sizeof(*tc));
		tc->valid = pg->cap_user_time_zero;
		tc->time_shift = pg->time_shift;
		tc->time_mult = pg->time_mult;
		tc->time_zero = pg->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq);
}

int stub_hwpt_sideband_feed(struct stub_hwpt_sideband *s, const void *rec, size_t len)
{
	struct replay_perf_record r;
	int rc = replay_perf_record_parse(rec, len, &s->layout, &r, NULL);

	if (rc < 0) {
		s->malformed++;
		return -EBADMSG;
	}
	rc = replay_perf_sideband_add(&s->sb, &r);
	if (!rc)
		s->records++;
	return rc;
}

void stub_hwpt_batch_init(struct stub_hwpt_batch *bt)
{
	memset(bt, 0, sizeof(*bt));
}

void stub_hwpt_batch_release(struct stub_hwpt_batch *bt)
{
	free(bt->buf);
	free(bt->recs);
	stub_hwpt_batch_init(bt);
}

/* Room for one more record of @len bytes. */
static int batch_grow(struct stub_hwpt_batch *bt, size_t len)
{
	if (bt->len + len > bt->cap) {
		size_t cap = bt->cap ? bt->cap : 4096;
		uint8_t *nb;

		while (cap < bt->len + len)
			cap *= 2;
		nb = realloc(bt->buf, cap);
		if (!nb)
			return -ENOMEM;
		bt->buf = nb;
		bt->cap = cap;
	}
	if (bt->n == bt->nalloc) {
		size_t n = bt->nalloc ? 2 * bt->nalloc : 64;
		struct stub_hwpt_batch_rec *nr = realloc(bt->recs, n * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		bt->recs = nr;
		bt->nalloc = n;
	}
	return 0;
}

/* An unreadable ring: drop what is there, and say so. */
static int drop_all(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data)
{
	ssize_t n = stub_hwpt_ring_avail(data);
	int rc;

	if (n > 0)
		stub_hwpt_ring_release(data, (uint64_t)n);
	rc = replay_bundle_add_gap(s->sb.b, -1, s->sb.last_time, "lost",
				   "the sideband ring held an impossible record: its rest was "
				   "dropped, image changes may be missing");
	return rc < 0 ? rc : 0;
}

/* The sample time of @rec, or @prev if it has none. */
static uint64_t record_time(const struct stub_hwpt_sideband *s, const uint8_t *rec, size_t len,
			    uint64_t prev)
{
	struct replay_perf_record r;

	if (replay_perf_record_parse(rec, len, &s->layout, &r, NULL) < 0 || !r.sid.has_time)
		return prev;
	return r.sid.time;
}

int stub_hwpt_sideband_take(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data,
			    struct stub_hwpt_batch *bt)
{
	uint64_t prev = 0;
	int taken = 0, rc;

	for (;;) {
		struct stub_hwpt_batch_rec *r;
		ssize_t n;

		if ((rc = batch_grow(bt, MAX_RECORD)))
			return rc;
		n = stub_hwpt_ring_peek_record(data, bt->buf + bt->len, MAX_RECORD);
		if (n == -EBADMSG)
			return (rc = drop_all(s, data)) ? rc : taken;
		if (n <= 0)
			return n < 0 ? (int)n : taken;
		stub_hwpt_ring_release(data, (uint64_t)n);
		r = &bt->recs[bt->n];
		r->off = bt->len;
		r->len = (uint16_t)n;
		r->time = prev = record_time(s, bt->buf + bt->len, (size_t)n, prev);
		r->seq = bt->n++;
		bt->len += (size_t)n;
		taken++;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct stub_hwpt_batch_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int stub_hwpt_sideband_apply(struct stub_hwpt_sideband *s, struct stub_hwpt_batch *bt)
{
	int applied = 0, rc = 0;

	qsort(bt->recs, bt->n, sizeof(*bt->recs), by_time);
	for (size_t i = 0; i < bt->n && rc != -ENOMEM; i++) {
		rc = stub_hwpt_sideband_feed(s, bt->buf + bt->recs[i].off, bt->recs[i].len);
		applied += rc == 0;
	}
	bt->n = 0;
	bt->len = 0;
	return rc == -ENOMEM ? rc : applied;
}

int stub_hwpt_sideband_drain(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data)
{
	struct stub_hwpt_batch bt;
	int rc;

	stub_hwpt_batch_init(&bt);
	rc = stub_hwpt_sideband_take(s, data, &bt);
	if (rc >= 0)
		rc = stub_hwpt_sideband_apply(s, &bt);
	stub_hwpt_batch_release(&bt);
	return rc;
}
