/*
 * tests/unit/test_stub_break.c: the int3 table and its shadowing, on this
 * process's own memory through /proc/self/mem.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stub/live/stub_break.h"
#include "stub/live/stub_mem.h"

static uint8_t code[16];
static struct stub_mem mem = { -1 };
static struct stub_break_table table;

static uint64_t at(size_t i)
{
	return (uint64_t)(uintptr_t)&code[i];
}

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 16; i++)
		code[i] = (uint8_t)(0x10 + i);
	stub_break_table_init(&table);
	return stub_mem_open(&mem, getpid());
}

static int teardown(void **state)
{
	(void)state;
	stub_break_table_release(&table);
	stub_mem_close(&mem);
	return 0;
}

static void test_insert_remove(void **state)
{
	(void)state;
	assert_int_equal(stub_break_insert(&table, &mem, at(3)), 0);
	assert_int_equal(code[3], 0xcc);
	assert_true(stub_break_has(&table, at(3)));
	assert_false(stub_break_has(&table, at(4)));
	assert_int_equal(stub_break_insert(&table, &mem, at(3)), 0); /* idempotent */
	assert_int_equal(stub_break_remove(&table, &mem, at(3)), 0);
	assert_int_equal(code[3], 0x13);
	assert_false(stub_break_has(&table, at(3)));
	assert_int_equal(stub_break_remove(&table, &mem, at(3)), 0);
	assert_int_equal(code[3], 0x13);
}

static void test_read_hides_int3(void **state)
{
	uint8_t buf[16];

	(void)state;
	assert_int_equal(stub_break_insert(&table, &mem, at(0)), 0);
	assert_int_equal(stub_break_insert(&table, &mem, at(15)), 0);
	assert_int_equal(stub_mem_read(&mem, at(0), buf, 16), 16);
	assert_int_equal(buf[0], 0xcc);
	stub_break_hide(&table, at(0), buf, 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(buf[i], 0x10 + i);
	/* a read that only overlaps part of the table */
	assert_int_equal(stub_mem_read(&mem, at(14), buf, 2), 2);
	stub_break_hide(&table, at(14), buf, 2);
	assert_int_equal(buf[1], 0x1f);
}

static void test_write_updates_shadow(void **state)
{
	uint8_t data[4] = { 0xa0, 0xa1, 0xa2, 0xa3 };

	(void)state;
	assert_int_equal(stub_break_insert(&table, &mem, at(5)), 0);
	assert_int_equal(stub_break_write(&table, &mem, at(4), data, 4), 0);
	assert_int_equal(code[4], 0xa0);
	assert_int_equal(code[5], 0xcc);
	assert_int_equal(code[6], 0xa2);
	assert_int_equal(stub_break_remove(&table, &mem, at(5)), 0);
	assert_int_equal(code[5], 0xa1);
}

static void test_restore_and_reinsert(void **state)
{
	(void)state;
	assert_int_equal(stub_break_insert(&table, &mem, at(1)), 0);
	assert_int_equal(stub_break_insert(&table, &mem, at(2)), 0);
	assert_int_equal(stub_break_restore(&table, &mem), 0);
	assert_int_equal(code[1], 0x11);
	assert_int_equal(code[2], 0x12);
	assert_true(stub_break_has(&table, at(1)));
	assert_int_equal(stub_break_reinsert(&table, &mem), 0);
	assert_int_equal(code[1], 0xcc);
	stub_break_forget(&table);
	assert_false(stub_break_has(&table, at(1)));
}

static void test_unreadable(void **state)
{
	(void)state;
	assert_int_equal(stub_break_insert(&table, &mem, 8), -EIO);
	assert_false(stub_break_has(&table, 8));
}

static void test_closed_mem(void **state)
{
	struct stub_mem closed = { -1 };
	uint8_t b;

	(void)state;
	assert_int_equal(stub_mem_read(&closed, at(0), &b, 1), -EBADF);
	assert_int_equal(stub_mem_write(&closed, at(0), &b, 1), -EBADF);
	assert_int_equal(stub_mem_read(&mem, UINT64_MAX - 1, &b, 1), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_insert_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_hides_int3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_updates_shadow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_and_reinsert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_mem, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
