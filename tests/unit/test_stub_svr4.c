/*
 * tests/unit/test_stub_svr4.c: DT_DEBUG lookup and the svr4 library list,
 * over a fake memory image (program headers, dynamic section, r_debug and
 * a link_map chain), including corrupt and cyclic chains.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "stub/live/stub_svr4.h"

#define BASE 0x555555554000ull
#define PHDR (BASE + 0x40)
#define DYN (BASE + 0x1000)
#define RDEBUG (BASE + 0x2000)
#define LM(i) (BASE + 0x2100 + 0x100 * (i))
#define NAME(i) (BASE + 0x3000 + 0x100 * (i))
#define IMAGE 0x4000

struct fake {
	uint8_t mem[IMAGE];
};

static struct fake img;

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;
	size_t n;

	if (addr < BASE || addr >= BASE + IMAGE)
		return -EIO;
	n = BASE + IMAGE - addr < len ? (size_t)(BASE + IMAGE - addr) : len;
	memcpy(buf, f->mem + (addr - BASE), n);
	return (int)n;
}

static const struct stub_svr4_reader reader = { fake_read, &img };

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(img.mem + (addr - BASE), &v, 8);
}

static void put_phdr(int i, uint32_t type, uint64_t vaddr, uint64_t memsz)
{
	Elf64_Phdr ph = { .p_type = type, .p_vaddr = vaddr, .p_memsz = memsz };

	memcpy(img.mem + 0x40 + i * sizeof(ph), &ph, sizeof(ph));
}

static void put_dyn(int i, int64_t tag, uint64_t val)
{
	put64(DYN + 16 * i, (uint64_t)tag);
	put64(DYN + 16 * i + 8, val);
}

static void put_lm(int i, const char *name, uint64_t l_addr, uint64_t next, uint64_t prev)
{
	put64(LM(i), l_addr);
	put64(LM(i) + 8, NAME(i));
	put64(LM(i) + 16, 0x1000 * (i + 1));
	put64(LM(i) + 24, next);
	put64(LM(i) + 32, prev);
	strcpy((char *)img.mem + (NAME(i) - BASE), name);
}

static uint64_t auxv[8];

/* An executable with PT_PHDR, PT_DYNAMIC and DT_DEBUG as 3rd entry; r_debug
 * with a chain main, "/lib/a&b<c>.so", "" (skipped), "/lib/libc.so.6". */
static int setup(void **state)
{
	(void)state;
	memset(&img, 0, sizeof(img));
	put_phdr(0, PT_PHDR, 0x40, 4 * sizeof(Elf64_Phdr));
	put_phdr(1, PT_LOAD, 0, 0x4000);
	put_phdr(2, PT_DYNAMIC, 0x1000, 5 * 16);
	put_phdr(3, PT_NOTE, 0x300, 0x20);
	put_dyn(0, DT_NEEDED, 1);
	put_dyn(1, DT_STRTAB, 0x400);
	put_dyn(2, DT_DEBUG, RDEBUG);
	put_dyn(3, DT_NULL, 0);
	put64(RDEBUG, 1);
	put64(RDEBUG + 8, LM(0));
	put_lm(0, "", 0, LM(1), 0);
	put_lm(1, "/lib/a&b<c>.so", 0x7000, LM(2), LM(0));
	put_lm(2, "", 0x8000, LM(3), LM(1));
	put_lm(3, "/lib/libc.so.6", 0x9000, 0, LM(2));
	uint64_t av[8] = { AT_PHDR, PHDR, AT_PHNUM, 4, AT_ENTRY, BASE + 0x500, AT_NULL, 0 };
	memcpy(auxv, av, sizeof(av));
	return 0;
}

static void test_debug_slot(void **state)
{
	uint64_t slot = 0;

	(void)state;
	assert_int_equal(stub_svr4_debug_slot(&reader, auxv, sizeof(auxv), &slot), 0);
	assert_int_equal(slot, DYN + 2 * 16 + 8);
}

static void test_debug_slot_static(void **state)
{
	uint64_t slot;

	(void)state;
	put_dyn(2, DT_NULL, 0);
	assert_int_equal(stub_svr4_debug_slot(&reader, auxv, sizeof(auxv), &slot), -ENOENT);
}

static void test_debug_slot_no_phdr(void **state)
{
	uint64_t slot;

	(void)state;
	put_phdr(0, PT_NULL, 0, 0);
	assert_int_equal(stub_svr4_debug_slot(&reader, auxv, sizeof(auxv), &slot), -ENOENT);
}

static void test_debug_slot_bad_auxv(void **state)
{
	uint64_t slot, av[4] = { AT_PHNUM, 4, AT_NULL, 0 };

	(void)state;
	assert_int_equal(stub_svr4_debug_slot(&reader, av, sizeof(av), &slot), -ENOENT);
	assert_int_equal(stub_svr4_debug_slot(&reader, auxv, 7, &slot), -ENOENT);
	auxv[1] = 0x1000; /* AT_PHDR pointing nowhere */
	assert_int_equal(stub_svr4_debug_slot(&reader, auxv, sizeof(auxv), &slot), -EIO);
}

static void expect_xml(uint64_t r_debug, const char *want)
{
	struct rsp_buf b;

	rsp_buf_init(&b);
	assert_int_equal(stub_svr4_xml(&reader, r_debug, &b), 0);
	assert_string_equal(rsp_buf_str(&b), want);
	rsp_buf_release(&b);
}

static void test_xml_list(void **state)
{
	(void)state;
	expect_xml(RDEBUG,
		"<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\">"
		"<library name=\"/lib/a&amp;b&lt;c&gt;.so\" lm=\"0x555555556200\" l_addr=\"0x7000\""
		" l_ld=\"0x2000\" lmid=\"0x555555556000\"/>"
		"<library name=\"/lib/libc.so.6\" lm=\"0x555555556400\" l_addr=\"0x9000\""
		" l_ld=\"0x4000\" lmid=\"0x555555556000\"/>"
		"</library-list-svr4>");
}

static void test_xml_not_set_up(void **state)
{
	(void)state;
	expect_xml(0, "<library-list-svr4 version=\"1.0\"/>");
	put64(RDEBUG + 8, 0);
	expect_xml(RDEBUG, "<library-list-svr4 version=\"1.0\"/>");
	expect_xml(0x1000, "<library-list-svr4 version=\"1.0\"/>"); /* unreadable */
}

static void test_xml_main_only(void **state)
{
	(void)state;
	put64(LM(0) + 24, 0);
	expect_xml(RDEBUG, "<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\"/>");
}

static void test_xml_cycle_stops(void **state)
{
	(void)state;
	put64(LM(1) + 24, LM(0)); /* lm1 -> lm0: lm0's l_prev (0) does not match */
	expect_xml(RDEBUG,
		"<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\">"
		"<library name=\"/lib/a&amp;b&lt;c&gt;.so\" lm=\"0x555555556200\" l_addr=\"0x7000\""
		" l_ld=\"0x2000\" lmid=\"0x555555556000\"/>"
		"</library-list-svr4>");
	put64(LM(1) + 24, LM(1)); /* self loop */
	put64(LM(0) + 24, LM(1));
	expect_xml(RDEBUG,
		"<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\">"
		"<library name=\"/lib/a&amp;b&lt;c&gt;.so\" lm=\"0x555555556200\" l_addr=\"0x7000\""
		" l_ld=\"0x2000\" lmid=\"0x555555556000\"/>"
		"</library-list-svr4>");
}

static void test_xml_unreadable_entry(void **state)
{
	(void)state;
	put64(LM(0) + 24, 0x10); /* next points outside the image */
	expect_xml(RDEBUG, "<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\"/>");
}

static void test_xml_bad_name_pointer(void **state)
{
	(void)state;
	put64(LM(1) + 8, 0x20); /* unreadable name: skipped like an empty one */
	expect_xml(RDEBUG,
		"<library-list-svr4 version=\"1.0\" main-lm=\"0x555555556100\">"
		"<library name=\"/lib/libc.so.6\" lm=\"0x555555556400\" l_addr=\"0x9000\""
		" l_ld=\"0x4000\" lmid=\"0x555555556000\"/>"
		"</library-list-svr4>");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_debug_slot, setup),
		cmocka_unit_test_setup(test_debug_slot_static, setup),
		cmocka_unit_test_setup(test_debug_slot_no_phdr, setup),
		cmocka_unit_test_setup(test_debug_slot_bad_auxv, setup),
		cmocka_unit_test_setup(test_xml_list, setup),
		cmocka_unit_test_setup(test_xml_not_set_up, setup),
		cmocka_unit_test_setup(test_xml_main_only, setup),
		cmocka_unit_test_setup(test_xml_cycle_stops, setup),
		cmocka_unit_test_setup(test_xml_unreadable_entry, setup),
		cmocka_unit_test_setup(test_xml_bad_name_pointer, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
