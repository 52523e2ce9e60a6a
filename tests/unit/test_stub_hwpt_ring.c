/*
 * tests/unit/test_stub_hwpt_ring.c: perf's ring arithmetic on constructed
 * buffers: wrap, partial reads, tail updates, empty and full rings,
 * records split by the end of the buffer, snapshots before and after the
 * buffer wrapped.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stub/recorders/stub_hwpt_ring.h"

static uint8_t buf[16];
static uint64_t head, tail;

/* A 16-byte ring whose position p holds byte 'a' + p % 26. */
static struct stub_hwpt_ring ring(uint64_t h, uint64_t t)
{
	struct stub_hwpt_ring r;

	head = h;
	tail = t;
	for (uint64_t p = t; p < h; p++)
		buf[p % 16] = (uint8_t)('a' + p % 26);
	assert_int_equal(stub_hwpt_ring_init(&r, buf, 16, &head, &tail), 0);
	return r;
}

static void test_init_rejects_odd_size(void **state)
{
	struct stub_hwpt_ring r;

	(void)state;
	assert_int_equal(stub_hwpt_ring_init(&r, buf, 12, &head, &tail), -EINVAL);
	assert_int_equal(stub_hwpt_ring_init(&r, buf, 0, &head, &tail), -EINVAL);
}

static void test_empty(void **state)
{
	struct stub_hwpt_ring r = ring(40, 40);
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_avail(&r), 0);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), 0);
	assert_int_equal(tail, 40);
}

static void test_drain_no_wrap(void **state)
{
	struct stub_hwpt_ring r = ring(5, 1);
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), 4);
	assert_memory_equal(out, "bcde", 4);
	assert_int_equal(tail, 5);
}

static void test_drain_wraps(void **state)
{
	struct stub_hwpt_ring r = ring(20, 12);   /* positions 12..19: 12-15, then 0-3 */
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), 8);
	assert_memory_equal(out, "mnopqrst", 8);
	assert_int_equal(tail, 20);
}

static void test_partial_reads(void **state)
{
	struct stub_hwpt_ring r = ring(30, 18);
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_drain(&r, out, 5), 5);
	assert_memory_equal(out, "stuvw", 5);
	assert_int_equal(tail, 23);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, 5), 5);
	assert_memory_equal(out, "xyzab", 5);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, 5), 2);
	assert_memory_equal(out, "cd", 2);
	assert_int_equal(tail, 30);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, 5), 0);
}

static void test_full(void **state)
{
	struct stub_hwpt_ring r = ring(16 + 7, 7);
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_avail(&r), 16);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), 16);
	assert_memory_equal(out, "hijklmnopqrstuvw", 16);
	assert_int_equal(tail, 23);
}

static void test_overrun_is_error(void **state)
{
	struct stub_hwpt_ring r = ring(40, 20);
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_avail(&r), -EOVERFLOW);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), -EOVERFLOW);
	assert_int_equal(tail, 20);
}

static void test_counters_wrap_64bit(void **state)
{
	struct stub_hwpt_ring r;
	uint8_t out[16];

	(void)state;
	head = 3;
	tail = UINT64_MAX - 4;          /* 8 bytes across the counters' wrap */
	memcpy(buf, "0123456789abcdef", 16);
	assert_int_equal(stub_hwpt_ring_init(&r, buf, 16, &head, &tail), 0);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), 8);
	assert_memory_equal(out, "bcdef012", 8);
	assert_int_equal(tail, 3);
}

static void test_read_only_ring_cannot_drain(void **state)
{
	struct stub_hwpt_ring r;
	uint8_t out[16];

	(void)state;
	assert_int_equal(stub_hwpt_ring_init(&r, buf, 16, &head, NULL), 0);
	assert_int_equal(stub_hwpt_ring_drain(&r, out, sizeof(out)), -EINVAL);
}

/* ---- DATA records ---- */

static void put_record(uint8_t *ring_buf, uint64_t size, uint64_t pos, uint32_t type,
		       uint16_t rsize, uint8_t fill)
{
	uint8_t rec[64];
	struct perf_event_header h = { type, 0, rsize };
	uint16_t n = rsize < sizeof(h) ? sizeof(h) : rsize;   /* a bad size: header only */

	memcpy(rec, &h, sizeof(h));
	memset(rec + sizeof(h), fill, n - sizeof(h));
	for (uint16_t i = 0; i < n; i++)
		ring_buf[(pos + i) % size] = rec[i];
}

static void test_records_across_the_end(void **state)
{
	uint8_t data[64] = { 0 }, out[64];
	struct stub_hwpt_ring r;
	struct perf_event_header h;

	(void)state;
	tail = 48;
	head = 48 + 24 + 16;
	put_record(data, 64, 48, PERF_RECORD_LOST, 24, 0x11);      /* 48..71: wraps */
	put_record(data, 64, 72, PERF_RECORD_ITRACE_START, 16, 0x22);
	assert_int_equal(stub_hwpt_ring_init(&r, data, 64, &head, &tail), 0);

	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), 24);
	memcpy(&h, out, sizeof(h));
	assert_int_equal(h.type, PERF_RECORD_LOST);
	assert_int_equal(out[23], 0x11);
	assert_int_equal(tail, 48);                 /* peek does not release */
	stub_hwpt_ring_release(&r, 24);
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), 16);
	memcpy(&h, out, sizeof(h));
	assert_int_equal(h.type, PERF_RECORD_ITRACE_START);
	stub_hwpt_ring_release(&r, 16);
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), 0);
}

static void test_record_errors(void **state)
{
	uint8_t data[64] = { 0 }, out[64];
	struct stub_hwpt_ring r;

	(void)state;
	tail = 0;
	head = 4;                                   /* less than a header */
	assert_int_equal(stub_hwpt_ring_init(&r, data, 64, &head, &tail), 0);
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), 0);
	head = 16;
	put_record(data, 64, 0, PERF_RECORD_LOST, 4, 0);           /* size below a header */
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), -EBADMSG);
	put_record(data, 64, 0, PERF_RECORD_LOST, 24, 0);          /* past the head */
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), -EBADMSG);
	put_record(data, 64, 0, PERF_RECORD_LOST, 16, 0);
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, 8), -ENOSPC);
	assert_int_equal(stub_hwpt_ring_peek_record(&r, out, sizeof(out)), 16);
}

/* ---- snapshots ---- */

static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

static void test_snapshot_not_wrapped(void **state)
{
	uint8_t aux[64] = { 0 }, out[64];
	struct stub_hwpt_ring r;

	(void)state;
	memcpy(aux, psb, 16);
	memset(aux + 16, 0x99, 8);
	head = 24;
	assert_int_equal(stub_hwpt_ring_init(&r, aux, 64, &head, NULL), 0);
	assert_int_equal(stub_hwpt_ring_snapshot(&r, out, sizeof(out)), 24);
	assert_memory_equal(out, aux, 24);
}

static void test_snapshot_empty(void **state)
{
	uint8_t aux[64] = { 0 }, out[64];
	struct stub_hwpt_ring r;

	(void)state;
	head = 0;
	assert_int_equal(stub_hwpt_ring_init(&r, aux, 64, &head, NULL), 0);
	assert_int_equal(stub_hwpt_ring_snapshot(&r, out, sizeof(out)), 0);
	assert_int_equal(stub_hwpt_ring_snapshot(&r, out, 32), -ENOSPC);
}

/* A real-sized ring whose end was never written has not wrapped. */
static void test_not_wrapped(void **state)
{
	static uint8_t aux[8192];
	struct stub_hwpt_ring r;

	(void)state;
	memset(aux, 0x42, 8192 - 64);
	head = 8192 - 64;
	assert_int_equal(stub_hwpt_ring_init(&r, aux, 8192, &head, NULL), 0);
	assert_false(stub_hwpt_ring_wrapped(&r));
	aux[8191] = 1;
	assert_true(stub_hwpt_ring_wrapped(&r));
}

/* Wrapped (the end of the buffer is written): the oldest data starts at
 * the head's offset; the bytes before the first PSB are dropped. */
static void test_snapshot_wrapped_starts_at_psb(void **state)
{
	uint8_t aux[64], out[64];
	struct stub_hwpt_ring r;

	(void)state;
	memset(aux, 0x55, sizeof(aux));           /* old packets everywhere */
	memcpy(aux + 40, psb, 16);                /* a PSB at offset 40 */
	memset(aux + 56, 0x77, 8);
	memset(aux, 0x66, 8);                     /* newest bytes, just before head */
	head = 8;                                 /* an offset: snapshot-mode aux_head */
	assert_int_equal(stub_hwpt_ring_init(&r, aux, 64, &head, NULL), 0);
	/* from 8: 32 old bytes, then the PSB at 40, 56..63, 0..7 */
	assert_int_equal(stub_hwpt_ring_snapshot(&r, out, sizeof(out)), 16 + 8 + 8);
	assert_memory_equal(out, psb, 16);
	assert_int_equal(out[16], 0x77);
	assert_int_equal(out[31], 0x66);
	assert_true(stub_hwpt_ring_wrapped(&r));
}

static void test_snapshot_wrapped_by_counter(void **state)
{
	uint8_t aux[64] = { 0 }, out[64];
	struct stub_hwpt_ring r;

	(void)state;
	memcpy(aux + 4, psb, 16);
	head = 64 * 3 + 2;                        /* a counter past the size */
	assert_int_equal(stub_hwpt_ring_init(&r, aux, 64, &head, NULL), 0);
	assert_true(stub_hwpt_ring_wrapped(&r));
	assert_int_equal(stub_hwpt_ring_snapshot(&r, out, sizeof(out)), 64 - 2);
	assert_memory_equal(out, psb, 16);
}

static void test_find_psb(void **state)
{
	uint8_t b[40] = { 0 };

	(void)state;
	assert_int_equal(stub_hwpt_find_psb(b, sizeof(b)), sizeof(b));
	memcpy(b + 7, psb, 16);
	assert_int_equal(stub_hwpt_find_psb(b, sizeof(b)), 7);
	assert_int_equal(stub_hwpt_find_psb(b, 10), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_odd_size),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_drain_no_wrap),
		cmocka_unit_test(test_drain_wraps),
		cmocka_unit_test(test_partial_reads),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_overrun_is_error),
		cmocka_unit_test(test_counters_wrap_64bit),
		cmocka_unit_test(test_read_only_ring_cannot_drain),
		cmocka_unit_test(test_records_across_the_end),
		cmocka_unit_test(test_record_errors),
		cmocka_unit_test(test_snapshot_not_wrapped),
		cmocka_unit_test(test_not_wrapped),
		cmocka_unit_test(test_snapshot_empty),
		cmocka_unit_test(test_snapshot_wrapped_starts_at_psb),
		cmocka_unit_test(test_snapshot_wrapped_by_counter),
		cmocka_unit_test(test_find_psb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
