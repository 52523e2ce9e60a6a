/*
 * tests/unit/test_stub_dreg.c: DR7 encoding, region splitting, DR6 decoding.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stub/live/stub_dreg.h"

struct split_case {
	uint64_t addr, len;
	int n;                          /* chunks or negative errno */
	struct stub_dreg_chunk c[4];
};

static const struct split_case split_cases[] = {
	{ 0x1000, 8, 1, { { 0x1000, 8 } } },
	{ 0x1000, 4, 1, { { 0x1000, 4 } } },
	{ 0x1004, 8, 2, { { 0x1004, 4 }, { 0x1008, 4 } } },
	{ 0x1001, 7, 3, { { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 } } },
	{ 0x1003, 2, 2, { { 0x1003, 1 }, { 0x1004, 1 } } },
	{ 0x1006, 4, 2, { { 0x1006, 2 }, { 0x1008, 2 } } },
	{ 0x1000, 16, 2, { { 0x1000, 8 }, { 0x1008, 8 } } },
	{ 0x1000, 32, 4, { { 0x1000, 8 }, { 0x1008, 8 }, { 0x1010, 8 }, { 0x1018, 8 } } },
	{ 0x1000, 33, -ENOSPC, { { 0, 0 } } },
	{ 0x1001, 15, 4, { { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 }, { 0x1008, 8 } } },
	{ 0x1001, 16, -ENOSPC, { { 0, 0 } } },
	{ 0x1000, 0, -EINVAL, { { 0, 0 } } },
	{ UINT64_MAX, 2, -EINVAL, { { 0, 0 } } },
};

static void test_split_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		const struct split_case *k = &split_cases[i];
		struct stub_dreg_chunk c[4];
		int n = stub_dreg_split(k->addr, k->len, c, 4);

		assert_int_equal(n, k->n);
		for (int j = 0; j < n; j++) {
			assert_int_equal(c[j].addr, k->c[j].addr);
			assert_int_equal(c[j].len, k->c[j].len);
		}
	}
}

static void test_len_bits(void **state)
{
	(void)state;
	assert_int_equal(stub_dreg_len_bits(1), 0);
	assert_int_equal(stub_dreg_len_bits(2), 1);
	assert_int_equal(stub_dreg_len_bits(8), 2);
	assert_int_equal(stub_dreg_len_bits(4), 3);
}

static void test_dr7_slot(void **state)
{
	(void)state;
	assert_int_equal(stub_dreg_dr7_slot(0, STUB_DREG_WRITE, 4), 0xd0001);
	assert_int_equal(stub_dreg_dr7_slot(1, STUB_DREG_EXEC, 1), 0x4);
	assert_int_equal(stub_dreg_dr7_slot(2, STUB_DREG_WRITE, 1), 0x1000010);
	assert_int_equal(stub_dreg_dr7_slot(3, STUB_DREG_ACCESS, 8), 0xb0000040);
}

static void test_insert_write_watch(void **state)
{
	struct stub_dreg_set s;

	(void)state;
	stub_dreg_set_init(&s);
	assert_true(stub_dreg_empty(&s));
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x1000, 8), 0);
	assert_int_equal(stub_dreg_dr7(&s), 0x90001);
	assert_int_equal(stub_dreg_addr(&s, 0), 0x1000);
	assert_int_equal(stub_dreg_addr(&s, 1), 0);
	assert_false(stub_dreg_empty(&s));
}

static void test_insert_idempotent(void **state)
{
	struct stub_dreg_set s;

	(void)state;
	stub_dreg_set_init(&s);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_ACCESS_WATCH, 0x2000, 4), 0);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_ACCESS_WATCH, 0x2000, 4), 0);
	assert_int_equal(stub_dreg_dr7(&s), 0xf0001);
	assert_int_equal(stub_dreg_remove(&s, RSP_POINT_ACCESS_WATCH, 0x2000, 4), 0);
	assert_true(stub_dreg_empty(&s));
	assert_int_equal(stub_dreg_remove(&s, RSP_POINT_ACCESS_WATCH, 0x2000, 4), 0);
}

static void test_insert_unsupported(void **state)
{
	struct stub_dreg_set s;

	(void)state;
	stub_dreg_set_init(&s);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_READ_WATCH, 0x1000, 4), -EOPNOTSUPP);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_SW_BREAK, 0x1000, 1), -EOPNOTSUPP);
	assert_int_equal(stub_dreg_remove(&s, RSP_POINT_READ_WATCH, 0x1000, 4), -EOPNOTSUPP);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x1000, 0), -EINVAL);
	assert_true(stub_dreg_empty(&s));
}

static void test_hw_break_is_one_slot(void **state)
{
	struct stub_dreg_set s;

	(void)state;
	stub_dreg_set_init(&s);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_HW_BREAK, 0x401003, 1), 0);
	assert_int_equal(stub_dreg_addr(&s, 0), 0x401003);
	assert_int_equal(stub_dreg_dr7(&s), 0x1);
}

static void test_out_of_registers(void **state)
{
	struct stub_dreg_set s;

	(void)state;
	stub_dreg_set_init(&s);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x1001, 7), 0);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x3003, 2), -ENOSPC);
	assert_int_equal(stub_dreg_addr(&s, 3), 0); /* unchanged */
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_HW_BREAK, 0x5000, 1), 0);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_HW_BREAK, 0x6000, 1), -ENOSPC);
	/* removing the split watch frees its three registers */
	assert_int_equal(stub_dreg_remove(&s, RSP_POINT_WRITE_WATCH, 0x1001, 7), 0);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x3003, 2), 0);
	assert_int_equal(stub_dreg_addr(&s, 0), 0x3003);
	assert_int_equal(stub_dreg_addr(&s, 1), 0x3004);
	assert_int_equal(stub_dreg_addr(&s, 3), 0x5000);
}

static void test_dr6_hit_maps_to_client_point(void **state)
{
	struct stub_dreg_set s;
	int a, b;

	(void)state;
	stub_dreg_set_init(&s);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_WRITE_WATCH, 0x1001, 7), 0);
	assert_int_equal(stub_dreg_insert(&s, RSP_POINT_ACCESS_WATCH, 0x2000, 8), 0);
	a = stub_dreg_hit(&s, 1u << 2);
	b = stub_dreg_hit(&s, 1u << 3);
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(s.point[a].addr, 0x1001);
	assert_int_equal(s.point[a].type, RSP_POINT_WRITE_WATCH);
	assert_int_equal(s.point[b].addr, 0x2000);
	assert_int_equal(stub_dreg_hit(&s, 1u << 14), -1); /* BS: single step */
	assert_int_equal(stub_dreg_hit(&s, 0), -1);
	assert_int_equal(stub_dreg_hit(&s, 0x4000 | 1u), a);
}

static void test_reason(void **state)
{
	(void)state;
	assert_int_equal(stub_dreg_reason(RSP_POINT_HW_BREAK), RSP_REASON_HWBREAK);
	assert_int_equal(stub_dreg_reason(RSP_POINT_WRITE_WATCH), RSP_REASON_WATCH);
	assert_int_equal(stub_dreg_reason(RSP_POINT_ACCESS_WATCH), RSP_REASON_AWATCH);
	assert_int_equal(stub_dreg_reason(RSP_POINT_READ_WATCH), RSP_REASON_RWATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_table),
		cmocka_unit_test(test_len_bits),
		cmocka_unit_test(test_dr7_slot),
		cmocka_unit_test(test_insert_write_watch),
		cmocka_unit_test(test_insert_idempotent),
		cmocka_unit_test(test_insert_unsupported),
		cmocka_unit_test(test_hw_break_is_one_slot),
		cmocka_unit_test(test_out_of_registers),
		cmocka_unit_test(test_dr6_hit_maps_to_client_point),
		cmocka_unit_test(test_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
