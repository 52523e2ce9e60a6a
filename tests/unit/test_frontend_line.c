/*
 * tests/unit/test_frontend_line.c: GDB's reading of a line table
 * (replay/frontend/frontend_line.h, replay_frontend_unit_line) over units
 * made here row by row. The rows are those gcc 12 -g -O0 wrote for small
 * programs (readelf --debug-dump=rawline), the answers those GDB 13 gave
 * for them (`info line *ADDR`, `disassemble /s`): a loop's rows of one
 * line split by discriminators are one entry, a function of a header
 * next to one of the unit's own file; and Debian's libc's printf.c (gcc
 * -O2, a relative compilation directory, non-statement rows), with GDB's
 * answers over serve --replay.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dwarf/dw_unit.h"
#include "replay/frontend/frontend_line.h"

struct row {
	uint64_t addr;
	uint32_t file, line, disc;
	bool nonstmt;
};

/* A unit "prog.c" in /src with files 1 (itself) and 2 (/src/inc.h) and
 * one sequence of @n rows, the last its end. */
static void unit_make(struct dw_unit *u, const struct row *rows, size_t n)
{
	static const char *files[] = { "/src/prog.c", "/src/prog.c", "/src/inc.h" };
	struct dw_row *r = calloc(n, sizeof(*r));
	struct dw_seq *q = calloc(1, sizeof(*q));

	assert_non_null(r);
	assert_non_null(q);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct dw_row){ .addr = rows[i].addr, .file = rows[i].file,
					.line = rows[i].line, .discriminator = rows[i].disc,
					.is_stmt = !rows[i].nonstmt, .end_sequence = i == n - 1 };
	*q = (struct dw_seq){ rows[0].addr, rows[n - 1].addr, 0, (uint32_t)n };
	memset(u, 0, sizeof(*u));
	u->line_version = 5;
	u->name = "prog.c";
	u->comp_dir = "/src";
	u->lines_state = 1;
	u->rows = r;
	u->nrows = n;
	u->seqs = q;
	u->nseqs = 1;
	u->files = files;
	u->nfiles = 3;
}

static void unit_free(struct dw_unit *u)
{
	free(u->rows);
	free(u->seqs);
}

struct want {
	uint64_t addr;
	int rc;
	const char *file;
	unsigned line;
	uint64_t pc, end;
};

static void check(const struct dw_unit *u, uint64_t bias, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct replay_frontend_sal sal;
		int rc = replay_frontend_unit_line(u, bias, w[i].addr, &sal);

		if (rc != w[i].rc)
			fail_msg("%#lx: rc %d, want %d", (unsigned long)w[i].addr, rc, w[i].rc);
		if (rc < 0)
			continue;
		if (strcmp(sal.file, w[i].file) || sal.line != w[i].line || sal.pc != w[i].pc ||
		    sal.end != w[i].end)
			fail_msg("%#lx: %s:%u [%#lx, %#lx), want %s:%u [%#lx, %#lx)",
				 (unsigned long)w[i].addr, sal.file, sal.line, (unsigned long)sal.pc,
				 (unsigned long)sal.end, w[i].file, w[i].line,
				 (unsigned long)w[i].pc, (unsigned long)w[i].end);
	}
}

/* A for loop: line 13's second run and line 14's second row came with
 * nonzero discriminators, so GDB keeps neither. */
static void test_discriminators(void **state)
{
	static const struct row rows[] = {
		{ 0x401126, 1, 4, 0, false }, { 0x40112d, 1, 5, 0, false }, { 0x401136, 1, 6, 0, false },
		{ 0x401139, 1, 7, 0, false }, { 0x40113b, 1, 10, 0, false }, { 0x40114a, 1, 11, 0, false },
		{ 0x401151, 1, 13, 0, false }, { 0x401158, 1, 13, 0, false }, { 0x40115a, 1, 14, 3, false },
		{ 0x401169, 1, 14, 3, false }, { 0x40116c, 1, 13, 3, false }, { 0x401170, 1, 13, 1, false },
		{ 0x401176, 1, 15, 0, false }, { 0x40118f, 1, 16, 0, false }, { 0x401194, 1, 17, 0, false },
		{ 0x401196, 1, 17, 0, false },
	};
	static const struct want w[] = {
		{ 0x401126, 0, "prog.c", 4, 0x401126, 0x40112d },
		{ 0x401150, 0, "prog.c", 11, 0x40114a, 0x401151 },
		{ 0x401151, 0, "prog.c", 13, 0x401151, 0x401158 },
		{ 0x401158, 0, "prog.c", 13, 0x401158, 0x40115a },
		{ 0x401169, 0, "prog.c", 14, 0x40115a, 0x40116c },
		{ 0x401170, 0, "prog.c", 13, 0x40116c, 0x401176 },
		{ 0x401195, 0, "prog.c", 17, 0x401194, 0x401196 },
		{ 0x401196, -ENOENT, NULL, 0, 0, 0 },
		{ 0x401000, -ENOENT, NULL, 0, 0, 0 },
	};
	struct dw_unit u;

	(void)state;
	unit_make(&u, rows, sizeof(rows) / sizeof(rows[0]));
	check(&u, 0, w, sizeof(w) / sizeof(w[0]));
	unit_free(&u);
}

/* A header's function, then the unit's own: at the address where the
 * file changes, the unit's own file answers; the header is shown by its
 * path. A load bias moves every address. */
static void test_two_files(void **state)
{
	static const struct row rows[] = {
		{ 0x1126, 2, 3, 0, false }, { 0x1133, 2, 4, 0, false }, { 0x114d, 2, 8, 0, false },
		{ 0x1150, 2, 9, 0, false },
		{ 0x1152, 1, 15, 0, false }, { 0x115d, 1, 16, 0, false }, { 0x1164, 1, 18, 0, false },
		{ 0x1178, 1, 18, 0, false }, { 0x1183, 1, 20, 0, false }, { 0x1190, 1, 20, 0, false },
	};
	static const struct want w[] = {
		{ 0x7000001126, 0, "/src/inc.h", 3, 0x7000001126, 0x7000001133 },
		{ 0x7000001151, 0, "/src/inc.h", 9, 0x7000001150, 0x7000001152 },
		{ 0x7000001152, 0, "prog.c", 15, 0x7000001152, 0x700000115d },
		{ 0x7000001170, 0, "prog.c", 18, 0x7000001164, 0x7000001178 },
		{ 0x7000001178, 0, "prog.c", 18, 0x7000001178, 0x7000001183 },
		{ 0x1152, -ENOENT, NULL, 0, 0, 0 },
	};
	struct dw_unit u;

	(void)state;
	unit_make(&u, rows, sizeof(rows) / sizeof(rows[0]));
	check(&u, 0x7000000000, w, sizeof(w) / sizeof(w[0]));
	unit_free(&u);
}

/* libc's printf: compilation directory "./stdio-common", DW_AT_name
 * "printf.c", DWARF 5 directory 0 the compilation directory: GDB names
 * the file "./stdio-common/printf.c" (the unit's own name has no rows and
 * takes that of the one file of its base name); a line's range ends at
 * the next entry, a non-statement of the same line too. */
static void test_relative_dir(void **state)
{
	static const char *bfd[] = { "./stdio-common/./stdio-common/printf.c",
				     "./stdio-common/./stdio-common/printf.c" };
	static const char *gdb[] = { "./stdio-common/printf.c", "./stdio-common/printf.c" };
	static const struct row rows[] = {
		{ 0x525b0, 1, 28, 0, false }, { 0x525b0, 1, 28, 0, true },
		{ 0x5260b, 1, 28, 0, true }, { 0x5261b, 1, 29, 0, false },
		{ 0x5261b, 1, 30, 0, false }, { 0x5261b, 1, 32, 0, false },
		{ 0x52623, 1, 33, 0, true }, { 0x52678, 1, 37, 0, false },
	};
	static const struct want w[] = {
		{ 0x525c0, 0, "./stdio-common/printf.c", 28, 0x525b0, 0x5260b },
		{ 0x5260b, 0, "./stdio-common/printf.c", 28, 0x5260b, 0x5261b },
		{ 0x5261b, 0, "./stdio-common/printf.c", 32, 0x5261b, 0x52623 },
	};
	struct dw_unit u;

	(void)state;
	unit_make(&u, rows, sizeof(rows) / sizeof(rows[0]));
	u.comp_dir = "./stdio-common";
	u.name = "printf.c";
	u.files = bfd;
	u.gdb_files = gdb;
	u.nfiles = 2;
	check(&u, 0, w, sizeof(w) / sizeof(w[0]));
	unit_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discriminators),
		cmocka_unit_test(test_two_files),
		cmocka_unit_test(test_relative_dir),
	};

	return cmocka_run_group_tests_name("frontend_line", tests, NULL, NULL);
}
