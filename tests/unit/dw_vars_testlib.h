/* Helpers shared by the tests of dwarf/dw_vars.h against GDB
 * (test_dw_vars.c: scopes at a pc; test_dw_vars_names.c: globals, types and
 * functions by name): a test program of build/tests/programs beside the
 * test's binary, one `gdb -batch` session over it, and the address in one
 * of GDB's answers. Include after <cmocka.h>. */
#ifndef DW_VARS_TESTLIB_H
#define DW_VARS_TESTLIB_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* build/tests/programs/NAME beside this test's binary. */
static inline const char *prog_path(const char *name)
{
	static char buf[PATH_MAX + 64];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(buf, sizeof(buf), "%s/programs/%s", exe, name);
	assert_int_equal(access(buf, R_OK), 0);
	return buf;
}

/* Runs `gdb -batch -nx -x SCRIPT PROG` with @script written to a file;
 * returns its output (malloc'ed). */
static inline char *gdb_run(const char *prog, const char *script)
{
	char path[] = "/tmp/hindsight-dwvars-XXXXXX";
	char cmd[PATH_MAX + 128];
	int fd = mkstemp(path);
	size_t n = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *p;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	snprintf(cmd, sizeof(cmd), "gdb -batch -nx -x %s %s 2>&1 </dev/null", path, prog);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(out);
	for (;;) {
		size_t k;

		if (cap - n < 4096) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		k = fread(out + n, 1, cap - n - 1, p);
		if (k == 0)
			break;
		n += k;
	}
	out[n] = 0;
	pclose(p);
	unlink(path);
	return out;
}

/* The address in "$1 = (int *) 0x4050 <g_int>" or "$2 = 0x7ffe... "a"". */
static inline const char *gdb_hex(const char *s)
{
	const char *eq = strstr(s, "= ");

	return eq ? strstr(eq, "0x") : NULL;
}

#endif
