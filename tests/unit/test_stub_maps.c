/*
 * tests/unit/test_stub_maps.c: /proc/PID/maps text to regions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stub/live/stub_maps.h"

static const char maps[] =
	"00400000-00401000 r--p 00000000 08:01 1234                               /tmp/my prog (deleted)\n"
	"00401000-00402000 r-xp 00001000 08:01 1234                               /tmp/my prog (deleted)\n"
	"00404000-00405000 rw-p 00000000 00:00 0 \n"
	"7ffff7fc3000-7ffff7fc5000 r-xp 00000000 00:00 0                          [vdso]\n";

struct region_case {
	uint64_t addr;
	uint64_t start, size;
	bool mapped, r, w, x;
	const char *name;
};

static const struct region_case cases[] = {
	{ 0x400000, 0x400000, 0x1000, true, true, false, false, "/tmp/my prog (deleted)" },
	{ 0x401fff, 0x401000, 0x1000, true, true, false, true, "/tmp/my prog (deleted)" },
	{ 0x404800, 0x404000, 0x1000, true, true, true, false, "" },
	{ 0x7ffff7fc4000, 0x7ffff7fc3000, 0x2000, true, true, false, true, "[vdso]" },
	{ 0x402000, 0x402000, 0x2000, false, false, false, false, "" },
	{ 0x1000, 0, 0x400000, false, false, false, false, "" },
	{ 0x7ffff7fc5000, 0x7ffff7fc5000, UINT64_MAX - 0x7ffff7fc5000, false, false, false, false, "" },
};

static void test_region_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct region_case *k = &cases[i];
		struct rsp_region r;

		assert_int_equal(stub_maps_region(maps, k->addr, &r), 0);
		assert_int_equal(r.start, k->start);
		assert_int_equal(r.size, k->size);
		assert_int_equal(r.mapped, k->mapped);
		assert_int_equal(r.read, k->r);
		assert_int_equal(r.write, k->w);
		assert_int_equal(r.exec, k->x);
		assert_string_equal(r.name, k->name);
	}
}

static void test_empty_text(void **state)
{
	struct rsp_region r;

	(void)state;
	assert_int_equal(stub_maps_region("", 0x1234, &r), 0);
	assert_false(r.mapped);
	assert_int_equal(r.start, 0);
}

static void test_malformed(void **state)
{
	struct rsp_region r;

	(void)state;
	assert_int_equal(stub_maps_region("garbage\n", 0x1234, &r), -EINVAL);
	assert_int_equal(stub_maps_region("1000-2000 r", 0x1234, &r), -EINVAL);
	assert_int_equal(stub_maps_region("2000-1000 r-xp 0 0:0 0\n", 0x1234, &r), -EINVAL);
	assert_int_equal(stub_maps_region("1000-2000 r-xp 0\n", 0x1234, &r), -EINVAL);
}

/* Each file mapping as stub_maps_files reports it, one line per call. */
static int collect(void *ctx, const struct stub_maps_file *f)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 1024 - n, "%s %llx %llu\n", f->path, (unsigned long long)f->dev,
		 (unsigned long long)f->ino);
	return 0;
}

static int stop_at_first(void *ctx, const struct stub_maps_file *f)
{
	(void)f;
	++*(int *)ctx;
	return 7;
}

static void test_files(void **state)
{
	static const char text[] =
		"55d0c000-55d0d000 r--p 00000000 fe:01 332835                     /usr/bin/prog\n"
		"55d0d000-55d0e000 r-xp 00001000 fe:01 332835                     /usr/bin/prog\n"
		"55d0f000-55d10000 rw-p 00000000 00:00 0                          [heap]\n"
		"7f00000000-7f00001000 r--p 00000000 103:02 99                    /lib/my lib.so\n"
		"7f00001000-7f00002000 r--p 00000000 00:05 7                      /dev/zero (deleted)\n"
		"7f00002000-7f00003000 rw-p 00000000 00:00 0 \n"
		"7ffff7fc3000-7ffff7fc5000 r-xp 00000000 00:00 0                  [vdso]\n";
	char out[1024] = "";
	int calls = 0;

	(void)state;
	assert_int_equal(stub_maps_files(text, collect, out), 0);
	/* dev as makedev(major, minor) encodes it: fe:01 is 0xfe01, 103:02
	 * (major 0x103) is 0x10302. */
	assert_string_equal(out, "/usr/bin/prog fe01 332835\n"
				 "/usr/bin/prog fe01 332835\n"
				 "/lib/my lib.so 10302 99\n");
	assert_int_equal(stub_maps_files(text, stop_at_first, &calls), 7);
	assert_int_equal(calls, 1);
	assert_int_equal(stub_maps_files("1000-2000 r-xp 0 zz 5 /x\n", collect, out), -EINVAL);
}

static void test_named(void **state)
{
	uint64_t start = 0, end = 0;

	(void)state;
	assert_int_equal(stub_maps_named(maps, "[vdso]", &start, &end), 0);
	assert_int_equal(start, 0x7ffff7fc3000);
	assert_int_equal(end, 0x7ffff7fc5000);
	assert_int_equal(stub_maps_named(maps, "[vvar]", &start, &end), -ENOENT);
	assert_int_equal(stub_maps_named(maps, "/tmp/my prog", &start, &end), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_region_table),
		cmocka_unit_test(test_empty_text),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
