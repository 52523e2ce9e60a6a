/*
 * stub/recorders/stub_hwpt_ring.c: perf's DATA and AUX ring arithmetic
 * (stub/recorders/stub_hwpt_ring.h).
 */
#include "stub/recorders/stub_hwpt_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

/* A PSB packet: 02 82 repeated eight times. */
#define PSB_LEN 16
/* Bytes at the end of the buffer looked at to tell whether it wrapped. */
#define WRAP_PROBE 64

int stub_hwpt_ring_init(struct stub_hwpt_ring *r, const void *base, uint64_t size,
			uint64_t *head, uint64_t *tail)
{
	if (!size || (size & (size - 1)) || !head)
		return -EINVAL;
	r->base = base;
	r->size = size;
	r->head = head;
	r->tail = tail;
	return 0;
}

void stub_hwpt_ring_copy(const struct stub_hwpt_ring *r, uint64_t pos, size_t len,
			 uint8_t *out)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = len < r->size - off ? len : (size_t)(r->size - off);

	memcpy(out, r->base + off, first);
	memcpy(out + first, r->base, len - first);
}

static uint64_t load_head(const struct stub_hwpt_ring *r)
{
	return __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
}

static uint64_t load_tail(const struct stub_hwpt_ring *r)
{
	return __atomic_load_n(r->tail, __ATOMIC_RELAXED);   /* only we write it */
}

ssize_t stub_hwpt_ring_avail(const struct stub_hwpt_ring *r)
{
	uint64_t n;

	if (!r->tail)
		return -EINVAL;
	n = load_head(r) - load_tail(r);
	if (n > r->size)
		return -EOVERFLOW;
	return (ssize_t)n;
}

void stub_hwpt_ring_release(struct stub_hwpt_ring *r, uint64_t n)
{
	__atomic_store_n(r->tail, load_tail(r) + n, __ATOMIC_RELEASE);
}

ssize_t stub_hwpt_ring_drain(struct stub_hwpt_ring *r, uint8_t *out, size_t max)
{
	ssize_t avail = stub_hwpt_ring_avail(r);
	size_t n;

	if (avail <= 0)
		return avail;
	n = (size_t)avail < max ? (size_t)avail : max;
	stub_hwpt_ring_copy(r, load_tail(r), n, out);
	stub_hwpt_ring_release(r, n);
	return (ssize_t)n;
}

ssize_t stub_hwpt_ring_peek_record(const struct stub_hwpt_ring *r, uint8_t *out,
				   size_t outsize)
{
	ssize_t avail = stub_hwpt_ring_avail(r);
	struct perf_event_header h;

	if (avail < (ssize_t)sizeof(h))
		return avail < 0 ? avail : 0;
	stub_hwpt_ring_copy(r, load_tail(r), sizeof(h), (uint8_t *)&h);
	if (h.size < sizeof(h) || h.size > (size_t)avail)
		return -EBADMSG;    /* the kernel writes whole records before the head */
	if (h.size > outsize)
		return -ENOSPC;
	stub_hwpt_ring_copy(r, load_tail(r), h.size, out);
	return h.size;
}

size_t stub_hwpt_find_psb(const uint8_t *buf, size_t len)
{
	static const uint8_t psb[PSB_LEN] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					      2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	const uint8_t *p;

	if (len < PSB_LEN)
		return len;
	p = memmem(buf, len, psb, PSB_LEN);
	return p ? (size_t)(p - buf) : len;
}

/* Whether the kernel has written the end of the (initially zeroed) buffer. */
static bool end_written(const struct stub_hwpt_ring *r)
{
	uint64_t probe = r->size < WRAP_PROBE ? r->size : WRAP_PROBE;

	for (uint64_t i = r->size - probe; i < r->size; i++)
		if (r->base[i])
			return true;
	return false;
}

bool stub_hwpt_ring_wrapped(const struct stub_hwpt_ring *r)
{
	return load_head(r) >= r->size || end_written(r);
}

ssize_t stub_hwpt_ring_snapshot(const struct stub_hwpt_ring *r, uint8_t *out, size_t outsize)
{
	uint64_t head = load_head(r);
	uint64_t off = head & (r->size - 1);
	bool wrapped = head >= r->size || end_written(r);
	size_t n, psb;

	if (outsize < r->size)
		return -ENOSPC;
	if (!wrapped) {
		memcpy(out, r->base, off);
		return (ssize_t)off;
	}
	stub_hwpt_ring_copy(r, off, r->size, out);
	n = (size_t)r->size;
	psb = stub_hwpt_find_psb(out, n);
	memmove(out, out + psb, n - psb);
	return (ssize_t)(n - psb);
}
