/*
 * tests/unit/test_rsp_ftag.c: x87 tag word, abridged <-> full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/rsp_ftag.h"

/* An 80-bit value from its mantissa and sign+exponent. */
static void f80(uint8_t *out, uint64_t mant, uint16_t se)
{
	memcpy(out, &mant, 8);
	out[8] = (uint8_t)se;
	out[9] = (uint8_t)(se >> 8);
}

struct classify_case {
	uint64_t mant;
	uint16_t se;
	unsigned tag;
};

static const struct classify_case classify_cases[] = {
	{ 0x8000000000000000ull, 0x3fff, 0 },  /* 1.0: valid */
	{ 0xc000000000000000ull, 0xbfff, 0 },  /* -1.5: valid */
	{ 0, 0x0000, 1 },                      /* +0: zero */
	{ 0, 0x8000, 1 },                      /* -0: zero */
	{ 1, 0x0000, 2 },                      /* denormal: special */
	{ 0x8000000000000000ull, 0x7fff, 2 },  /* infinity: special */
	{ 0xc000000000000000ull, 0xffff, 2 },  /* NaN: special */
	{ 0x4000000000000000ull, 0x3fff, 2 },  /* unnormal: special */
};

static void test_classify_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(classify_cases) / sizeof(classify_cases[0]); i++) {
		uint8_t reg[10];

		f80(reg, classify_cases[i].mant, classify_cases[i].se);
		assert_int_equal(rsp_ftag_classify(reg), classify_cases[i].tag);
	}
}

static void test_full_all_empty(void **state)
{
	uint8_t st[128] = { 0 };

	(void)state;
	assert_int_equal(rsp_ftag_full(0, 0, st), 0xffff);
}

static void test_full_uses_top(void **state)
{
	uint8_t st[128] = { 0 };

	(void)state;
	/* TOP = 7 after one push: ST(0) is physical register 7 */
	f80(st, 0x8000000000000000ull, 0x3fff);
	assert_int_equal(rsp_ftag_full(0x80, 7u << 11, st), 0x3fff);
	/* TOP = 6 after two pushes: ST(0) = +0 (phys 6), ST(1) = 1.0 (phys 7) */
	memset(st, 0, sizeof(st));
	f80(st, 0, 0);
	f80(st + 16, 0x8000000000000000ull, 0x3fff);
	assert_int_equal(rsp_ftag_full(0xc0, 6u << 11, st), 0x1fff);
	/* TOP = 0: ST(0) is physical 0, an infinity */
	memset(st, 0, sizeof(st));
	f80(st, 0x8000000000000000ull, 0x7fff);
	assert_int_equal(rsp_ftag_full(0x01, 0, st), 0xfffe);
}

static void test_abridged(void **state)
{
	(void)state;
	assert_int_equal(rsp_ftag_abridged(0xffff), 0x00);
	assert_int_equal(rsp_ftag_abridged(0x0000), 0xff);
	assert_int_equal(rsp_ftag_abridged(0x3fff), 0x80);
	assert_int_equal(rsp_ftag_abridged(0x1fff), 0xc0);
	assert_int_equal(rsp_ftag_abridged(0xfffe), 0x01);
	assert_int_equal(rsp_ftag_abridged(0xaaaa), 0xff); /* all special */
}

static void test_round_trip(void **state)
{
	uint8_t st[128] = { 0 };

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		f80(st + 16 * i, 0x8000000000000000ull, 0x3fff);
	for (unsigned ab = 0; ab < 256; ab++)
		assert_int_equal(rsp_ftag_abridged(rsp_ftag_full((uint8_t)ab, 3u << 11, st)), ab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_full_all_empty),
		cmocka_unit_test(test_full_uses_top),
		cmocka_unit_test(test_abridged),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
