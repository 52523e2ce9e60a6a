/*
 * tests/unit/test_rsp_svr4.c: the library-list-svr4 document from a typed
 * list, as gdbserver spells it (the live and replay targets' lists are
 * tested with them: test_stub_svr4.c, the e2e shared-library tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_svr4.h"

static void expect_xml(const struct rsp_svr4_list *l, const char *want)
{
	struct rsp_buf b;

	rsp_buf_init(&b);
	assert_int_equal(rsp_svr4_xml(l, &b), 0);
	assert_string_equal(rsp_buf_str(&b), want);
	rsp_buf_release(&b);
}

static void test_empty(void **state)
{
	struct rsp_svr4_list l;

	(void)state;
	rsp_svr4_list_init(&l);
	expect_xml(&l, "<library-list-svr4 version=\"1.0\"/>");
	l.main_lm = 0x1;
	expect_xml(&l, "<library-list-svr4 version=\"1.0\" main-lm=\"0x1\"/>");
	rsp_svr4_list_release(&l);
}

static void test_libraries(void **state)
{
	struct rsp_svr4_list l;

	(void)state;
	rsp_svr4_list_init(&l);
	l.main_lm = 0x555555556100;
	assert_int_equal(rsp_svr4_list_add(&l, "/lib/libc.so.6", 0x7000, 0x7f00, 0x7f80, 0x5000), 0);
	assert_int_equal(rsp_svr4_list_add(&l, "/tmp/a<b>&\"c'd\x01.so", 2, 0, 0x4000, 0), 0);
	expect_xml(&l, "<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\">"
		   "<library name=\"/lib/libc.so.6\" lm=\"0x7000\" l_addr=\"0x7f00\""
		   " l_ld=\"0x7f80\" lmid=\"0x5000\"/>"
		   "<library name=\"/tmp/a&lt;b&gt;&amp;&quot;c&apos;d?.so\" lm=\"0x2\" l_addr=\"0x0\""
		   " l_ld=\"0x4000\" lmid=\"0x0\"/>"
		   "</library-list-svr4>");
	rsp_svr4_list_release(&l);
	assert_int_equal(l.n, 0);
	rsp_svr4_list_release(NULL);
}

static void test_many(void **state)
{
	struct rsp_svr4_list l;

	(void)state;
	rsp_svr4_list_init(&l);
	for (uint64_t i = 0; i < 100; i++)
		assert_int_equal(rsp_svr4_list_add(&l, "x", i, 0, 0, 0), 0);
	assert_int_equal(l.n, 100);
	assert_int_equal(l.libs[99].lm, 99);
	rsp_svr4_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_libraries),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
