/*
 * tests/unit/test_stub_workq.c: the ordered work queue (stub/recorders/stub_workq.c).
 *
 * Entries of random sizes (from a fixed seed), many more bytes than the
 * ring holds so that it wraps and the reader waits for room, must each
 * reach the worker once, whole and in order; after stub_workq_wait every
 * entry put has run; an entry too large is refused; an error stops the
 * worker's function and comes back to the reader, which loses no room.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stub/recorders/stub_workq.h"

#define RING 4096

struct seen {
	uint64_t next;                 /* the sequence number expected */
	uint64_t bad;                  /* entries that were not as put */
	uint64_t fail_at;              /* return -EIO at this entry (0: never) */
	uint64_t ran;                  /* entries the function ran */
};

/* Entry @k: its 8-byte number, then bytes derived from it. */
static size_t entry_len(uint64_t k)
{
	return 8 + (k * 2654435761u >> 7) % 700;
}

static void fill(uint8_t *p, uint64_t k, size_t len)
{
	memcpy(p, &k, 8);
	for (size_t i = 8; i < len; i++)
		p[i] = (uint8_t)(k * 31 + i);
}

static int check(void *ctx, const void *p, size_t len)
{
	struct seen *s = ctx;
	const uint8_t *b = p;
	uint64_t k;

	memcpy(&k, b, 8);
	s->ran++;
	if (k != s->next || len != entry_len(k) || ((uintptr_t)p & 7))
		s->bad++;
	for (size_t i = 8; i < len; i++)
		s->bad += b[i] != (uint8_t)(k * 31 + i);
	s->next = k + 1;
	return s->fail_at && k == s->fail_at ? -5 : 0;
}

static void put_range(struct stub_workq *q, uint64_t from, uint64_t to)
{
	for (uint64_t k = from; k < to; k++) {
		size_t len = entry_len(k);
		uint8_t *p = stub_workq_reserve(q, len);

		assert_non_null(p);
		fill(p, k, len);
		assert_int_equal(stub_workq_put(q), 0);
	}
}

static void test_order(void **state)
{
	struct seen s = { 0 };
	struct stub_workq *q;

	(void)state;
	assert_int_equal(stub_workq_start(&q, RING, 0, "test", check, &s), 0);
	put_range(q, 0, 20000);        /* ~7 MB through a 4 KiB ring */
	assert_int_equal(stub_workq_wait(q), 0);
	assert_int_equal(s.ran, 20000);
	assert_int_equal(s.next, 20000);
	put_range(q, 20000, 20003);
	assert_int_equal(stub_workq_wait(q), 0);
	assert_int_equal(s.ran, 20003);
	assert_int_equal(s.bad, 0);
	stub_workq_stop(q);
}

static void test_too_big(void **state)
{
	struct seen s = { 0 };
	struct stub_workq *q;

	(void)state;
	assert_int_equal(stub_workq_start(&q, RING, 0, "test", check, &s), 0);
	assert_null(stub_workq_reserve(q, RING / 4));
	assert_non_null(stub_workq_reserve(q, RING / 4 - 8));
	stub_workq_stop(q);            /* the entry reserved, never put: not run */
	assert_int_equal(s.ran, 0);
	assert_int_equal(stub_workq_start(&q, 3000, 0, "test", check, &s), -22);
	assert_null(q);
}

static void test_error(void **state)
{
	struct seen s = { .fail_at = 100 };
	struct stub_workq *q;

	(void)state;
	assert_int_equal(stub_workq_start(&q, RING, 0, "test", check, &s), 0);
	for (uint64_t k = 0; k < 5000; k++) {
		uint8_t *p = stub_workq_reserve(q, entry_len(k));

		assert_non_null(p);    /* room comes back after the error too */
		fill(p, k, entry_len(k));
		(void)stub_workq_put(q);
	}
	assert_int_equal(stub_workq_wait(q), -5);
	assert_int_equal(s.ran, 101);  /* none after the one that failed */
	assert_int_equal(s.bad, 0);
	assert_int_equal(stub_workq_wait(q), -5);
	stub_workq_stop(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
