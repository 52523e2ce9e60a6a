/*
 * stub/recorders/stub_workq.h: an ordered queue of work for one worker thread.
 *
 * A recorder's reading thread hands entries (bytes it copies in) to a
 * worker that runs a function on each, in the order they were put, while
 * the reader goes on. The Valgrind recorder turns superblocks' state words
 * into state-log records this way, on the CPU the tool leaves free
 * (stub/recorders/stub_vgrec.c). Entries live in a ring of fixed size: a
 * reader that gets too far ahead waits. Before touching anything the
 * worker's function touches, the reader calls stub_workq_wait.
 */
#ifndef HINDSIGHT_STUB_RECORDERS_STUB_WORKQ_H
#define HINDSIGHT_STUB_RECORDERS_STUB_WORKQ_H

#include <stddef.h>

struct stub_workq;

/* The function the worker runs on each entry (@len bytes at @p, 8-byte
 * aligned) with @ctx: 0, or a negative errno, after which the worker runs
 * no further entry and the next stub_workq_wait / stub_workq_put returns
 * the error. */
typedef int (*stub_workq_fn)(void *ctx, const void *p, size_t len);

/* A queue of @size bytes (a power of two, at least 4096) and its worker,
 * named @name (what top and perf show, at most 15 characters), which runs
 * with every signal blocked (they go to the other threads). Entries are
 * handed over, and their room given back, every @batch bytes of them (0:
 * 64 KiB; less where each entry stands for much work). 0 or a negative
 * errno. */
int stub_workq_start(struct stub_workq **out, size_t size, size_t batch, const char *name,
		     stub_workq_fn fn, void *ctx);

/* Room for an entry of @len bytes, to be filled and then made visible by
 * stub_workq_put: waits while the ring is full. NULL if @len can never fit
 * (more than a quarter of the ring): the caller then waits and does the
 * work itself. */
void *stub_workq_reserve(struct stub_workq *q, size_t len);
/* The entry reserved last is the worker's (handed over in batches). 0, or
 * the error of an entry that failed. */
int stub_workq_put(struct stub_workq *q);

/* Every entry put so far has run: 0, or the first error. */
int stub_workq_wait(struct stub_workq *q);

/* Waits for the entries put, stops the worker and frees the queue. */
void stub_workq_stop(struct stub_workq *q);

#endif
