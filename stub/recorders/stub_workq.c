/*
 * stub/recorders/stub_workq.c: an ordered queue of work for one worker thread
 * (stub/recorders/stub_workq.h).
 *
 * One reader puts, one worker runs. The ring holds entries back to back,
 * each a 32-bit length, 4 bytes of padding and the payload rounded up to
 * 8 bytes; an entry that would run past the ring's end starts again at its
 * beginning after an end mark. Offsets count every byte ever put (the
 * position in the ring is the offset modulo its size). The reader hands
 * entries over in batches (WORKQ_BATCH bytes unless told, and at every
 * wait), and the worker gives room back as often: one lock and one wake-up
 * per batch, not per entry.
 */
#include "stub/recorders/stub_workq.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORKQ_BATCH (64u << 10)    /* bytes between hand-overs, either way */
#define WORKQ_END 0xFFFFFFFFu      /* a length word: go on at the ring's start */

/* Each side's fields on cache lines of their own: the reader writes its
 * offsets for every entry, and a line shared with what the worker reads
 * for every entry moved between the CPUs each time (measured: the queue
 * then cost as much as the work it moved). */
struct stub_workq {
	/* Set at the start, read by both: */
	uint8_t *ring;
	uint64_t size;
	uint64_t batch;                /* bytes of entries between hand-overs */
	stub_workq_fn fn;
	void *ctx;
	pthread_t th;
	/* The reader's own: */
	_Alignas(64) uint64_t head;    /* the end of the entries put */
	uint64_t need;                 /* the size of the entry reserved */
	uint64_t given;                /* head when it last handed over */
	uint64_t room_at;              /* tail when it last looked */
	/* Shared, under mu: */
	_Alignas(64) pthread_mutex_t mu;
	pthread_cond_t more;           /* the worker waits for entries */
	pthread_cond_t room;           /* the reader waits for them to run */
	uint64_t pub;                  /* the worker may run entries up to here */
	uint64_t tail;                 /* the entries before it have run */
	int err;                       /* the first error */
	bool stop;
};

static uint64_t workq_round(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* Runs the entries in [from, to): the error so far is @e. */
static int workq_run(struct stub_workq *q, uint64_t from, uint64_t to, int e)
{
	const uint8_t *ring = q->ring;
	uint64_t off = from, told = from, size = q->size;

	while (off < to) {
		uint64_t pos = off & (size - 1);
		uint32_t len;

		memcpy(&len, ring + pos, 4);
		if (len == WORKQ_END) {
			off += size - pos;
			continue;
		}
		if (e >= 0)
			e = q->fn(q->ctx, ring + pos + 8, len);
		off += 8 + workq_round(len);
		if (off - told >= q->batch && off < to) {
			/* Room back before the whole batch ran. */
			pthread_mutex_lock(&q->mu);
			q->tail = off;
			pthread_cond_broadcast(&q->room);
			pthread_mutex_unlock(&q->mu);
			told = off;
		}
	}
	return e;
}

static void *workq_main(void *arg)
{
	struct stub_workq *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		uint64_t from, to;
		int e;

		while (q->tail == q->pub && !q->stop)
			pthread_cond_wait(&q->more, &q->mu);
		if (q->tail == q->pub)
			break;
		from = q->tail;
		to = q->pub;
		e = q->err;
		pthread_mutex_unlock(&q->mu);
		e = workq_run(q, from, to, e);
		pthread_mutex_lock(&q->mu);
		q->tail = to;
		if (e < 0 && q->err >= 0)
			q->err = e;
		pthread_cond_broadcast(&q->room);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int stub_workq_start(struct stub_workq **out, size_t size, size_t batch, const char *name,
		     stub_workq_fn fn, void *ctx)
{
	struct stub_workq *q;
	sigset_t all, old;
	int e;

	*out = NULL;
	if (size < 4096 || (size & (size - 1)))
		return -EINVAL;
	q = aligned_alloc(64, sizeof(*q));
	if (q)
		memset(q, 0, sizeof(*q));
	if (!q || !(q->ring = malloc(size))) {
		free(q);
		return -ENOMEM;
	}
	q->size = size;
	q->batch = batch ? batch : WORKQ_BATCH;
	q->fn = fn;
	q->ctx = ctx;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	/* The worker inherits a mask with every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&q->th, NULL, workq_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!e)
		pthread_setname_np(q->th, name);
	if (e) {
		pthread_cond_destroy(&q->room);
		pthread_cond_destroy(&q->more);
		pthread_mutex_destroy(&q->mu);
		free(q->ring);
		free(q);
		return -e;
	}
	*out = q;
	return 0;
}

/* Under q->mu: the worker may run everything put. */
static void workq_give(struct stub_workq *q)
{
	q->pub = q->head;
	q->given = q->head;
	pthread_cond_signal(&q->more);
}

void *stub_workq_reserve(struct stub_workq *q, size_t len)
{
	uint64_t need = 8 + workq_round(len), pos = q->head & (q->size - 1);
	uint64_t skip = pos + need > q->size ? q->size - pos : 0;
	uint32_t len32 = (uint32_t)len;

	if (need > q->size / 4)
		return NULL;
	if (q->head + skip + need - q->room_at > q->size) {
		pthread_mutex_lock(&q->mu);
		workq_give(q);
		while (q->head + skip + need - q->tail > q->size)
			pthread_cond_wait(&q->room, &q->mu);
		q->room_at = q->tail;
		pthread_mutex_unlock(&q->mu);
	}
	if (skip) {
		uint32_t end = WORKQ_END;

		memcpy(q->ring + pos, &end, 4);
		q->head += skip;
		pos = 0;
	}
	memcpy(q->ring + pos, &len32, 4);
	q->need = need;
	return q->ring + pos + 8;
}

int stub_workq_put(struct stub_workq *q)
{
	int e = 0;

	q->head += q->need;
	q->need = 0;
	if (q->head - q->given >= q->batch) {
		pthread_mutex_lock(&q->mu);
		workq_give(q);
		q->room_at = q->tail;
		e = q->err;
		pthread_mutex_unlock(&q->mu);
	}
	return e;
}

int stub_workq_wait(struct stub_workq *q)
{
	int e;

	pthread_mutex_lock(&q->mu);
	workq_give(q);
	while (q->tail != q->pub)
		pthread_cond_wait(&q->room, &q->mu);
	q->room_at = q->tail;
	e = q->err;
	pthread_mutex_unlock(&q->mu);
	return e;
}

void stub_workq_stop(struct stub_workq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	workq_give(q);
	q->stop = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->mu);
	free(q->ring);
	free(q);
}
