/*
 * tests/unit/test_stub_spawn.c: PATH search and /proc text parsing used by
 * spawn and the thread list.
 */
#include <errno.h>
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

#include "stub/live/stub_procfs.h"
#include "stub/live/stub_spawn.h"

static void test_resolve_slash(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(stub_spawn_resolve("./x/y", "/bin", out, sizeof(out)), 0);
	assert_string_equal(out, "./x/y");
	assert_int_equal(stub_spawn_resolve("/nonexistent", "/bin", out, sizeof(out)), 0);
	assert_int_equal(stub_spawn_resolve("/abc", "/bin", out, 4), -ENAMETOOLONG);
}

static void test_resolve_path(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(stub_spawn_resolve("sh", "/nonexistent::/bin", out, sizeof(out)), 0);
	assert_string_equal(out, "/bin/sh");
	assert_int_equal(stub_spawn_resolve("hindsight-none", "/bin:/usr/bin", out, sizeof(out)), -ENOENT);
	assert_int_equal(stub_spawn_resolve("", "/bin", out, sizeof(out)), -ENOENT);
	assert_int_equal(stub_spawn_resolve("sh", NULL, out, sizeof(out)), 0);
}

static void test_resolve_not_executable(void **state)
{
	char dir[] = "/tmp/hindsight-path-XXXXXX", file[300], out[300];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/prog", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	chmod(file, 0644);
	assert_int_equal(stub_spawn_resolve("prog", dir, out, sizeof(out)), -EACCES);
	chmod(file, 0755);
	assert_int_equal(stub_spawn_resolve("prog", dir, out, sizeof(out)), 0);
	assert_string_equal(out, file);
	unlink(file);
	rmdir(dir);
}

static void test_stat_core(void **state)
{
	char line[512] = "1234 (we) ird) S";

	(void)state;
	for (int f = 4; f <= 52; f++) {
		char num[16];

		snprintf(num, sizeof(num), " %d", f == 39 ? 7 : f);
		strcat(line, num);
	}
	assert_int_equal(stub_procfs_stat_core(line), 7);
	assert_int_equal(stub_procfs_stat_core("1 (x) S 1 2 3"), -1);
	assert_int_equal(stub_procfs_stat_core("garbage"), -1);
}

static void test_self_info(void **state)
{
	struct rsp_process_info pi;
	char name[32];
	int core;

	(void)state;
	assert_int_equal(stub_procfs_status(getpid(), &pi), 0);
	assert_int_equal(pi.ppid, getppid());
	assert_int_equal(pi.uid, getuid());
	stub_procfs_thread(getpid(), getpid(), name, sizeof(name), &core);
	assert_string_equal(name, "test_stub_spawn");
	assert_true(core >= 0);
	assert_false(stub_procfs_is_zombie(getpid(), getpid()));
	assert_int_equal(stub_procfs_status(0x7ffffff0, &pi), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_slash),
		cmocka_unit_test(test_resolve_path),
		cmocka_unit_test(test_resolve_not_executable),
		cmocka_unit_test(test_stat_core),
		cmocka_unit_test(test_self_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
