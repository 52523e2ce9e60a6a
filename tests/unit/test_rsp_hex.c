/*
 * tests/unit/test_rsp_hex.c: hex numbers and hex strings (protocol/rsp_hex.h).
 *
 * Tables of {text -> value, how far the parser got, error}.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/rsp_hex.h"

static void test_hex_digit(void **state)
{
	static const struct {
		int c;
		int value;
	} cases[] = {
		{ '0', 0 }, { '9', 9 }, { 'a', 10 }, { 'f', 15 }, { 'A', 10 }, { 'F', 15 },
		{ 'g', -1 }, { 'G', -1 }, { 'x', -1 }, { '/', -1 }, { ':', -1 }, { '@', -1 },
		{ '`', -1 }, { ' ', -1 }, { 0, -1 }, { -1, -1 }, { 0xff, -1 }, { 0x130, -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (rsp_hex_digit(cases[i].c) != cases[i].value)
			fail_msg("rsp_hex_digit(%#x) = %d, want %d", cases[i].c,
				 rsp_hex_digit(cases[i].c), cases[i].value);
}

struct u64_case {
	const char *text;
	size_t limit;     /* bytes the parser may look at; 0: strlen */
	int ret;
	uint64_t value;   /* when ret is 0 */
	size_t consumed;  /* when ret is 0; nothing is consumed on error */
};

static void test_hex_u64(void **state)
{
	static const struct u64_case cases[] = {
		{ "0", 0, 0, 0, 1 },
		{ "1f", 0, 0, 0x1f, 2 },
		{ "DEADbeef", 0, 0, 0xdeadbeef, 8 },
		{ "7fffffffe580,40", 0, 0, 0x7fffffffe580, 12 },
		{ "ffffffffffffffff", 0, 0, UINT64_MAX, 16 },
		{ "0000000000000000000000ff", 0, 0, 0xff, 24 },      /* leading zeros are not overflow */
		{ "12;thread:1", 0, 0, 0x12, 2 },                       /* stops at a non-digit */
		{ "123456", 3, 0, 0x123, 3 },                           /* stops at @end */
		{ "", 0, -EINVAL, 0, 0 },
		{ ",40", 0, -EINVAL, 0, 0 },
		{ "-1", 0, -EINVAL, 0, 0 },
		{ "x", 0, -EINVAL, 0, 0 },
		{ "abc", 1, 0, 0xa, 1 },
		{ "10000000000000000", 0, -ERANGE, 0, 0 },              /* 2^64 */
		{ "fffffffffffffffff", 0, -ERANGE, 0, 0 },
		{ "123456789abcdef0123456789", 0, -ERANGE, 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct u64_case *c = &cases[i];
		size_t n = c->limit ? c->limit : strlen(c->text);
		const char *p = c->text;
		uint64_t value = 0xbad;
		int ret = rsp_hex_u64(&p, c->text + n, &value);

		if (ret != c->ret)
			fail_msg("\"%s\": returned %d, want %d", c->text, ret, c->ret);
		if (ret == 0 && value != c->value)
			fail_msg("\"%s\": value %#llx, want %#llx", c->text,
				 (unsigned long long)value, (unsigned long long)c->value);
		if (ret == 0 && (size_t)(p - c->text) != c->consumed)
			fail_msg("\"%s\": consumed %td, want %zu", c->text, p - c->text, c->consumed);
		if (ret == -EINVAL && p != c->text)
			fail_msg("\"%s\": advanced without a digit", c->text);
	}
}

/* An empty range (p == end) has no digit, whatever follows in memory. */
static void test_hex_u64_empty_range(void **state)
{
	const char *text = "ff";
	const char *p = text;
	uint64_t value;

	(void)state;
	assert_int_equal(rsp_hex_u64(&p, text, &value), -EINVAL);
	assert_ptr_equal(p, text);
}

struct decode_case {
	const char *hex;
	int ret;
	const char *bytes;  /* ret bytes */
};

static void test_hex_decode(void **state)
{
	static const struct decode_case cases[] = {
		{ "", 0, "" },
		{ "00", 1, "\0" },
		{ "abcd", 2, "\xab\xcd" },
		{ "ABCD", 2, "\xab\xcd" },
		{ "68656c70", 4, "help" },
		{ "ff7f0a", 3, "\xff\x7f\x0a" },
		{ "abc", -EINVAL, NULL },      /* odd length */
		{ "6", -EINVAL, NULL },
		{ "zz", -EINVAL, NULL },
		{ "a g", -EINVAL, NULL },
		{ "0x12", -EINVAL, NULL },
		{ "12-4", -EINVAL, NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct decode_case *c = &cases[i];
		uint8_t out[16];
		int ret = rsp_hex_decode(c->hex, strlen(c->hex), out);

		if (ret != c->ret)
			fail_msg("\"%s\": returned %d, want %d", c->hex, ret, c->ret);
		if (ret > 0 && memcmp(out, c->bytes, (size_t)ret))
			fail_msg("\"%s\": wrong bytes", c->hex);
	}
}

/* @out may equal @in: the decoded bytes overwrite the text they came from. */
static void test_hex_decode_in_place(void **state)
{
	char buf[] = "0001027e7f80fffe";

	(void)state;
	assert_int_equal(rsp_hex_decode(buf, strlen(buf), (uint8_t *)buf), 8);
	assert_memory_equal(buf, "\x00\x01\x02\x7e\x7f\x80\xff\xfe", 8);
}

/* Only @len digits are read, so a shorter slice of a longer text works. */
static void test_hex_decode_reads_only_len(void **state)
{
	uint8_t out[2] = { 0, 0 };

	(void)state;
	assert_int_equal(rsp_hex_decode("abcdzz", 4, out), 2);
	assert_memory_equal(out, "\xab\xcd", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_digit),
		cmocka_unit_test(test_hex_u64),
		cmocka_unit_test(test_hex_u64_empty_range),
		cmocka_unit_test(test_hex_decode),
		cmocka_unit_test(test_hex_decode_in_place),
		cmocka_unit_test(test_hex_decode_reads_only_len),
	};

	return cmocka_run_group_tests_name("rsp_hex", tests, NULL, NULL);
}
