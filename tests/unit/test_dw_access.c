/*
 * tests/unit/test_dw_access.c: dw_open_regular on another user's behalf.
 * Under a temporary directory: a file readable by all, one only its owner
 * may read, a link to that one, a file readable by all inside a private
 * directory. With reader 4242 (no file is its), only the first opens; with
 * no reader, all do; as root, a 0600 file of 4242's opens for 4242.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dwarf/dw_access.h"
#include "dwarf/dw_elf.h"

static char g_root[64];

static void path(const char *name, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", g_root, name);

	assert_true(n > 0 && n < PATH_MAX);
}

static void put(const char *name, mode_t mode)
{
	char p[PATH_MAX];
	FILE *f;

	path(name, p);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("bytes\n", f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
}

static int open_name(const char *name)
{
	char p[PATH_MAX];
	int fd;

	path(name, p);
	fd = dw_open_regular(p);
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

static int setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	snprintf(g_root, sizeof(g_root), "/tmp/test_dw_access.XXXXXX");
	if (!mkdtemp(g_root) || chmod(g_root, 0755) < 0)
		return -1;
	put("public", 0644);
	put("private", 0600);
	path("private", p);
	{
		char link[PATH_MAX];

		path("link", link);
		if (symlink(p, link) < 0)
			return -1;
	}
	path("closed", p);
	if (mkdir(p, 0700) < 0)
		return -1;
	put("closed/public", 0644);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	dw_access_set_reader(-1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_reader(void **state)
{
	(void)state;
	dw_access_set_reader(4242);
	assert_int_equal(dw_access_reader(), 4242);
	assert_int_equal(open_name("public"), 0);
	assert_int_equal(open_name("private"), -EACCES);
	assert_int_equal(open_name("link"), -EACCES);
	assert_int_equal(open_name("closed/public"), -EACCES);
	assert_int_equal(open_name("missing"), -ENOENT);
	if (geteuid() == 0) {
		char p[PATH_MAX];

		path("private", p);
		assert_int_equal(chown(p, 4242, 0), 0);
		assert_int_equal(open_name("private"), 0);
		assert_int_equal(open_name("link"), 0);
		assert_int_equal(chmod(p, 0040), 0);   /* its own, not readable by it */
		assert_int_equal(open_name("private"), -EACCES);
		assert_int_equal(chmod(p, 0600), 0);
		assert_int_equal(chown(p, geteuid(), 0), 0);
	}
}

static void test_no_reader(void **state)
{
	(void)state;
	dw_access_set_reader(-1);
	assert_int_equal(open_name("public"), 0);
	assert_int_equal(open_name("private"), 0);
	assert_int_equal(open_name("link"), 0);
	assert_int_equal(open_name("closed/public"), 0);
	dw_access_set_reader(0);
	assert_int_equal(open_name("private"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_no_reader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
