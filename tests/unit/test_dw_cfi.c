/* dwarf/dw_cfi.c against readelf: every row of every FDE `readelf -wF`
 * (binutils' own interpretation of the CFA programs) prints for libc's
 * .eh_frame, for a program built with .eh_frame and for one built with
 * -fno-asynchronous-unwind-tables (.debug_frame only), read back through
 * dw_image_cfi_row at the row's address and at the last address before the
 * next row, column by column (CFA and every register readelf shows among
 * DWARF 0..16). Then the expression evaluator: GCC's PLT CFA expression and
 * a table of small expressions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_elf.h"
#include "tests/unit/dw_testlib.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static const char *const reg_names[DW_CFI_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "ra",
};

static int reg_of(const char *name)
{
	for (int i = 0; i < DW_CFI_NREGS; i++)
		if (!strcmp(reg_names[i], name))
			return i;
	return -1;
}

static int build_programs(void **state)
{
	const char *d = dwt_tmpdir();

	(void)state;
	if (!d)
		return -1;
	return dwt_sh("set -e; cd '%s'; S='%s/%s';"
		      "gcc -O2 -g $S/dwprog.c -o eh_O2;"
		      "gcc -O0 -g -fno-asynchronous-unwind-tables $S/dwprog.c -o dbgframe_O0",
		      d, getenv("PWD") ? getenv("PWD") : ".", DWT_SRC) == 0 ? 0 : -1;
}

static int remove_programs(void **state)
{
	(void)state;
	dwt_cleanup();
	return 0;
}

/* A rule as readelf -wF writes it ("u" also stands for a rule never set). */
static void format_rule(const struct dw_cfi_rule *r, char *buf, size_t max)
{
	switch (r->kind) {
	case DW_CFI_SAME: snprintf(buf, max, "u"); break;
	case DW_CFI_UNDEFINED: snprintf(buf, max, "u"); break;
	case DW_CFI_OFFSET: snprintf(buf, max, "c%+d", (int)r->offset); break;
	case DW_CFI_VAL_OFFSET: snprintf(buf, max, "v%+d", (int)r->offset); break;
	case DW_CFI_REGISTER: /* "r5 (rdi)", read as one token */
		snprintf(buf, max, "r%u(%s)", r->reg, r->reg < DW_CFI_NREGS ? reg_names[r->reg] : "?");
		break;
	case DW_CFI_EXPR: snprintf(buf, max, "exp"); break;
	case DW_CFI_VAL_EXPR: snprintf(buf, max, "vexp"); break;
	}
}

struct cols {
	int reg[64];               /* DWARF number of each column, -1: not ours */
	size_t n;
};

/* Compares our row at @addr with readelf's @want (CFA then the columns). */
static bool same_row(struct dw_image *img, uint64_t addr, const struct cols *c, char **want,
		     size_t nwant, char *why, size_t max)
{
	struct dw_cfi_row row;
	char got[32];
	int rc = dw_image_cfi_row(img, addr, &row);

	if (rc < 0) {
		snprintf(why, max, "%#llx: %s", (unsigned long long)addr, strerror(-rc));
		return false;
	}
	if (row.cfa_expr)
		snprintf(got, sizeof(got), "exp");
	else
		snprintf(got, sizeof(got), "%s%+d",
			 row.cfa_reg < DW_CFI_NREGS ? reg_names[row.cfa_reg] : "?", (int)row.cfa_offset);
	if (!strcmp(got, "ra+0") || strcmp(got, want[0])) {
		snprintf(why, max, "%#llx: CFA %s, readelf %s", (unsigned long long)addr, got, want[0]);
		return false;
	}
	for (size_t i = 0; i < c->n && i + 1 < nwant; i++) {
		const char *w = want[i + 1];

		if (c->reg[i] < 0)
			continue;
		format_rule(&row.regs[c->reg[i]], got, sizeof(got));
		if (strcmp(got, w) && !(row.regs[c->reg[i]].kind == DW_CFI_SAME && !strcmp(w, "s"))) {
			snprintf(why, max, "%#llx: %s %s, readelf %s", (unsigned long long)addr,
				 reg_names[c->reg[i]], got, w);
			return false;
		}
	}
	return true;
}

/* Whitespace-separated tokens; readelf's "r5 (rdi)" is one ("r5(rdi)"). */
static size_t split(char *line, char **out, size_t max)
{
	size_t n = 0;

	for (char *p = strstr(line, " ("); p; p = strstr(p, " ("))
		memmove(p, p + 1, strlen(p));

	for (char *t = strtok(line, " \t\n"); t && n < max; t = strtok(NULL, " \t\n"))
		out[n++] = t;
	return n;
}

/* Every row readelf prints for @path; returns the number of rows checked. */
static size_t compare_with_readelf(const char *path)
{
	char cmd[600], line[1024], prev[1024] = "", why[200];
	unsigned long long lo = 0, hi = 0, loc;
	struct dw_image *img;
	struct cols c = { .n = 0 };
	size_t rows = 0, bad = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -wF '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(dw_image_open(path, &img), 0);
	while (fgets(line, sizeof(line), f)) {
		char *tok[64], copy[1024];
		size_t n;

		if (strstr(line, " FDE ") && sscanf(strstr(line, "pc="), "pc=%llx..%llx", &lo, &hi) == 2) {
			prev[0] = 0;
			continue;
		}
		if (strstr(line, " CIE ")) {
			lo = hi = 0;
			continue;
		}
		snprintf(copy, sizeof(copy), "%s", line);
		n = split(copy, tok, 64);
		if (n >= 2 && !strcmp(tok[0], "LOC") && !strcmp(tok[1], "CFA")) {
			c.n = 0;
			for (size_t i = 2; i < n; i++)
				c.reg[c.n++] = reg_of(tok[i]);
			continue;
		}
		if (!hi || n < 2 || sscanf(tok[0], "%llx", &loc) != 1 || strlen(tok[0]) < 16) {
			if (n == 0 && prev[0] && hi) { /* the FDE's last row, to its end */
				char *pt[64];
				size_t pn = split(prev, pt, 64);

				rows++;
				if (!same_row(img, hi - 1, &c, pt + 1, pn - 1, why, sizeof(why)) && bad++ < 5)
					print_message("%s: %s\n", path, why);
				prev[0] = 0;
			}
			continue;
		}
		/* The previous row holds up to this one's address. */
		if (prev[0]) {
			char *pt[64];
			size_t pn = split(prev, pt, 64);

			rows++;
			if (!same_row(img, loc - 1, &c, pt + 1, pn - 1, why, sizeof(why)) && bad++ < 5)
				print_message("%s: %s\n", path, why);
		}
		rows++;
		if (!same_row(img, loc, &c, tok + 1, n - 1, why, sizeof(why)) && bad++ < 5)
			print_message("%s: %s\n", path, why);
		snprintf(prev, sizeof(prev), "%s", line);
	}
	pclose(f);
	dw_image_free(img);
	printf("%s: %zu rows as readelf -wF reads them, %zu differ\n", path, rows, bad);
	assert_int_equal(bad, 0);
	return rows;
}

static void test_libc_eh_frame(void **state)
{
	(void)state;
	if (access(LIBC, R_OK) != 0)
		skip();
	assert_true(compare_with_readelf(LIBC) > 10000);
}

static void test_program_eh_frame(void **state)
{
	(void)state;
	assert_true(compare_with_readelf(dwt_path("eh_O2")) > 10);
}

static void test_program_debug_frame(void **state)
{
	struct dw_elf *e;

	(void)state;
	assert_int_equal(dw_elf_open(dwt_path("dbgframe_O0"), &e), 0);
	assert_true(dw_elf_has_data(e, ".debug_frame"));
	dw_elf_free(e);
	assert_true(compare_with_readelf(dwt_path("dbgframe_O0")) > 10);
}

/* No FDE: -ENOENT, never a guess. */
static void test_no_fde(void **state)
{
	struct dw_image *img;
	struct dw_cfi_row row;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("eh_O2"), &img), 0);
	assert_int_equal(dw_image_cfi_row(img, 0x10, &row), -ENOENT);
	dw_image_free(img);
}

/* ---- expressions ------------------------------------------------------- */

static const uint64_t mem_base = 0x7000;
static const uint64_t mem_words[4] = { 0x1111, 0xffffffffffff2222ull, 0x3333, 0x4444 };

static int read_word(void *ctx, uint64_t addr, uint64_t *out)
{
	(void)ctx;
	if (addr < mem_base || addr >= mem_base + sizeof(mem_words) || (addr - mem_base) % 8)
		return -EIO;
	*out = mem_words[(addr - mem_base) / 8];
	return 0;
}

static uint64_t eval_ok(const uint8_t *e, size_t n, uint64_t rsp, uint64_t rip)
{
	uint64_t regs[DW_CFI_NREGS] = { 0 }, v = 0;
	bool known[DW_CFI_NREGS] = { false };
	struct dw_cfi_env env = { regs, known, read_word, NULL };

	regs[DW_CFI_RSP] = rsp;
	known[DW_CFI_RSP] = true;
	regs[DW_CFI_RA] = rip;
	known[DW_CFI_RA] = true;
	assert_int_equal(dw_cfi_expr_eval(e, n, &env, false, 0, &v), 0);
	return v;
}

/* GCC's .plt CFA: rsp + 8, plus 8 more once past the push of the entry
 * (rip & 15 >= 11). */
static void test_expr_plt(void **state)
{
	static const uint8_t plt[] = { 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };

	(void)state;
	assert_int_equal(eval_ok(plt, sizeof(plt), 0x1000, 0x4020), 0x1008);
	assert_int_equal(eval_ok(plt, sizeof(plt), 0x1000, 0x402a), 0x1008);
	assert_int_equal(eval_ok(plt, sizeof(plt), 0x1000, 0x402b), 0x1010);
}

static void test_expr_table(void **state)
{
	static const struct {
		uint8_t e[16];
		size_t n;
		uint64_t want;
	} t[] = {
		{ { 0x77, 0x10, 0x06 }, 3, 0x3333 },                 /* *(rsp + 16) */
		{ { 0x77, 0x08, 0x94, 2 }, 4, 0x2222 },              /* deref_size 2 */
		{ { 0x08, 5, 0x08, 7, 0x1c }, 5, (uint64_t)-2 },     /* 5 - 7 */
		{ { 0x0b, 0xfe, 0xff, 0x1f }, 4, 2 },                /* -(-2) */
		{ { 0x31, 0x32, 0x16, 0x1c }, 4, 1 },                /* swap: 2 - 1 */
		{ { 0x30, 0x28, 2, 0, 0x35, 0x96, 0x37 }, 7, 7 },    /* bra not taken */
		{ { 0x31, 0x28, 1, 0, 0x35, 0x37 }, 6, 7 },          /* bra taken over lit5 */
		{ { 0x2f, 1, 0, 0x35, 0x39 }, 5, 9 },                /* skip */
		{ { 0x92, 7, 0x18, 0x06 }, 4, 0x4444 },              /* bregx rsp+24, deref */
		{ { 0x10, 0xe5, 0x8e, 0x26 }, 4, 624485 },           /* uleb */
		{ { 0x11, 0x7f }, 2, (uint64_t)-1 },                 /* sleb */
		{ { 0x09, 0xf9, 0x09, 2, 0x1b }, 5, (uint64_t)-3 },  /* -7 / 2 */
		/* INT64_MIN / -1 wraps (it raised SIGFPE) */
		{ { 0x0f, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09, 0xff, 0x1b }, 12, 0x8000000000000000u },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(eval_ok(t[i].e, t[i].n, mem_base, 0), t[i].want);
}

static void test_expr_errors(void **state)
{
	static const uint8_t unknown_reg[] = { 0x70, 0 };   /* breg0: rax not known */
	static const uint8_t bad_mem[] = { 0x30, 0x06 };    /* *(0) */
	static const uint8_t empty_pop[] = { 0x22 };        /* plus on an empty stack */
	static const uint8_t loop[] = { 0x2f, 0xfd, 0xff }; /* skip -3 forever */
	static const uint8_t cut[] = { 0x0c, 1, 2 };        /* const4u cut short */
	uint64_t regs[DW_CFI_NREGS] = { 0 }, v;
	bool known[DW_CFI_NREGS] = { false };
	struct dw_cfi_env env = { regs, known, read_word, NULL };

	(void)state;
	assert_int_equal(dw_cfi_expr_eval(unknown_reg, 2, &env, false, 0, &v), -EINVAL);
	assert_int_equal(dw_cfi_expr_eval(bad_mem, 2, &env, false, 0, &v), -EIO);
	assert_int_equal(dw_cfi_expr_eval(empty_pop, 1, &env, false, 0, &v), -EINVAL);
	assert_int_equal(dw_cfi_expr_eval(loop, 3, &env, false, 0, &v), -EINVAL);
	assert_int_equal(dw_cfi_expr_eval(cut, 3, &env, false, 0, &v), -EINVAL);
	/* DW_CFA_expression pushes the CFA first. */
	assert_int_equal(dw_cfi_expr_eval((const uint8_t[]){ 0x23, 8 }, 2, &env, true, 0x7000, &v), 0);
	assert_int_equal(v, 0x7008);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_eh_frame),
		cmocka_unit_test(test_program_eh_frame),
		cmocka_unit_test(test_program_debug_frame),
		cmocka_unit_test(test_no_fde),
		cmocka_unit_test(test_expr_plt),
		cmocka_unit_test(test_expr_table),
		cmocka_unit_test(test_expr_errors),
	};

	return cmocka_run_group_tests(tests, build_programs, remove_programs);
}
