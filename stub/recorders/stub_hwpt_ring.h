/*
 * stub/recorders/stub_hwpt_ring.h: the arithmetic of perf's DATA and AUX rings.
 *
 * A perf event's mmap is a control page (struct perf_event_mmap_page), the
 * DATA ring of sideband records and, for Intel PT, the AUX ring of trace.
 * Each ring is a power-of-two sized buffer with a head the kernel advances
 * and a tail the reader advances; both are 64-bit byte counters that only
 * grow, and a position's byte is at (position & (size - 1)).
 *
 * Full mode (writable mapping): the kernel never overwrites what the
 * reader has not released: read [tail, head), then store the new tail.
 * The head is loaded with acquire ordering (the data it covers is visible
 * after it), the tail stored with release ordering (the reads of the data
 * are done before the kernel may reuse it), as the kernel's comment in
 * <linux/perf_event.h> asks.
 *
 * Snapshot mode (AUX mapped read-only): the kernel overwrites the oldest
 * data; aux_head is then an offset within the buffer (perf's own reading
 * of it), the buffer has wrapped once any of its last bytes are non-zero
 * (it starts zeroed) or the head went past its size, and the valid part is
 * the newest bytes before the head, starting at the first PSB when the
 * buffer wrapped (the bytes before it are the end of an overwritten
 * packet).
 *
 * Pure: tests drive it with constructed buffers and counters.
 */
#ifndef HINDSIGHT_STUB_HWPT_RING_H
#define HINDSIGHT_STUB_HWPT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stub_hwpt_ring {
	const uint8_t *base;       /* the ring's bytes */
	uint64_t size;             /* a power of two */
	uint64_t *head;            /* written by the kernel */
	uint64_t *tail;            /* written by us; NULL for a read-only ring */
};

/* A ring over @base / @size with the counters at @head / @tail. 0, or
 * -EINVAL if @size is not a power of two. */
int stub_hwpt_ring_init(struct stub_hwpt_ring *r, const void *base, uint64_t size,
			uint64_t *head, uint64_t *tail);

/* Copies @len bytes from ring position @pos into @out, across the end of
 * the buffer if need be (@len <= size). */
void stub_hwpt_ring_copy(const struct stub_hwpt_ring *r, uint64_t pos, size_t len,
			 uint8_t *out);

/* Bytes between tail and head, read with acquire ordering; -EOVERFLOW if
 * more than the ring holds (the counters are not a writable ring's). */
ssize_t stub_hwpt_ring_avail(const struct stub_hwpt_ring *r);

/* Full mode: copies up to @max new bytes from the tail into @out and
 * releases them (tail += n, release ordering). Returns n (0: nothing new),
 * -EOVERFLOW as above, -EINVAL for a read-only ring. */
ssize_t stub_hwpt_ring_drain(struct stub_hwpt_ring *r, uint8_t *out, size_t max);

/* DATA ring: copies the next whole record (perf_event_header.size bytes,
 * joined across the end of the buffer) into @out without releasing it.
 * Returns its size; 0 if no whole record is there yet; -EBADMSG if its
 * size is below 8 or above what is available; -ENOSPC if @outsize is too
 * small (the record can be skipped with stub_hwpt_ring_release). */
ssize_t stub_hwpt_ring_peek_record(const struct stub_hwpt_ring *r, uint8_t *out,
				   size_t outsize);

/* Releases @n bytes at the tail (release ordering). */
void stub_hwpt_ring_release(struct stub_hwpt_ring *r, uint64_t n);

/* Snapshot mode: copies the valid part of a read-only AUX ring (see above)
 * into @out (@outsize >= size). Returns its length (0: empty). */
ssize_t stub_hwpt_ring_snapshot(const struct stub_hwpt_ring *r, uint8_t *out, size_t outsize);

/* Snapshot mode: whether the kernel has overwritten older trace (the test
 * stub_hwpt_ring_snapshot makes): the window does not reach back to the
 * start of tracing. */
bool stub_hwpt_ring_wrapped(const struct stub_hwpt_ring *r);

/* Offset of the first PSB packet in @buf, or @len if there is none. */
size_t stub_hwpt_find_psb(const uint8_t *buf, size_t len);

#endif
