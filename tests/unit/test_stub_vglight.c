/*
 * tests/unit/test_stub_vglight.c: what a rebuild reads of a light
 * recording besides its log (stub/recorders/stub_vglight.c): inputs.env,
 * how the run ended, its argv, working directory and environment, and
 * whether the history is still to be rebuilt.
 *
 * A well-formed file gives back every field (an empty argument and an
 * empty environment too); a file cut anywhere, of another format, with an
 * argument count that the file does not hold, or missing, is refused with
 * its name, never half read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stub/recorders/stub_vglight.h"

static char dir[64];

static void put(const char *name, const char *bytes, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_stub_vglight.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char good[] = "hsenv1\0" "139\0" "3\0" "/bin/prog\0" "\0" "-x\0" "/tmp\0"
			   "HOME=/root\0" "A=b=c\0";

static void test_good(void **state)
{
	struct stub_vglight_env env;
	char err[256];

	(void)state;
	put(STUB_VGLIGHT_ENV, good, sizeof(good) - 1);
	assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), 0);
	assert_int_equal(env.wstatus, 139);
	assert_string_equal(env.argv[0], "/bin/prog");
	assert_string_equal(env.argv[1], "");
	assert_string_equal(env.argv[2], "-x");
	assert_null(env.argv[3]);
	assert_string_equal(env.cwd, "/tmp");
	assert_int_equal(env.envlen, strlen("HOME=/root") + 1 + strlen("A=b=c") + 1);
	assert_string_equal(env.envp, "HOME=/root");
	assert_string_equal(env.envp + strlen("HOME=/root") + 1, "A=b=c");
	stub_vglight_env_release(&env);

	/* No environment at all. */
	put(STUB_VGLIGHT_ENV, "hsenv1\0" "0\0" "1\0" "p\0" "/\0",
	    sizeof("hsenv1\0" "0\0" "1\0" "p\0" "/\0") - 1);
	assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), 0);
	assert_string_equal(env.cwd, "/");
	assert_int_equal(env.envlen, 0);
	stub_vglight_env_release(&env);
}

static void test_bad(void **state)
{
#define BAD(lit) { lit, sizeof(lit) - 1 }
	static const struct {
		const char *bytes;
		size_t n;
	} bad[] = {
		BAD("hsenv2\0" "0\0" "1\0" "p\0" "/\0"),      /* another format */
		BAD("hsenv1\0" "x\0" "1\0" "p\0" "/\0"),      /* a status that is no number */
		BAD("hsenv1\0" "0\0" "5\0" "p\0" "/\0"),      /* 5 arguments, 1 there */
		BAD("hsenv1\0" "0\0" "0\0" "/\0"),             /* no program */
		BAD("hsenv1\0" "0\0" "1\0" "p"),                /* cut inside argv */
		BAD("hsenv1\0" "0\0" "1\0" "p\0"),             /* no working directory */
		BAD("hsenv1"),
		BAD(""),
	};
#undef BAD
	struct stub_vglight_env env;
	char err[256];

	(void)state;
	/* Every cut of the good file but the whole. */
	for (size_t n = 0; n < sizeof(good) - 1; n++) {
		put(STUB_VGLIGHT_ENV, good, n);
		if (stub_vglight_load_env(dir, &env, err, sizeof(err)) == 0) {
			/* Cut after a whole variable: a shorter environment, which
			 * the file cannot tell from a whole one. */
			assert_true(n > 0 && good[n - 1] == 0);
			assert_true(n >= sizeof("hsenv1\0139\0" "3\0/bin/prog\0\0-x\0/tmp"));
			stub_vglight_env_release(&env);
			continue;
		}
		assert_non_null(strstr(err, STUB_VGLIGHT_ENV));
		assert_null(env.argv);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(STUB_VGLIGHT_ENV, bad[i].bytes, bad[i].n);
		assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "malformed"));
	}
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_ENV);
	unlink(path);
	assert_true(stub_vglight_load_env(dir, &env, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot read"));
}

static void test_pending(void **state)
{
	char path[128];

	(void)state;
	assert_false(stub_vglight_pending(dir));          /* no inputs */
	put(STUB_VGLIGHT_LOG, "x", 1);
	assert_true(stub_vglight_pending(dir));           /* inputs, no history */
	put("trace.json", "{}", 2);
	assert_false(stub_vglight_pending(dir));          /* rebuilt */
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_LOG);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_pending),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
