/* dwarf/ lookups against addr2line: every .text address of test programs
 * built now from tests/programs/dwarf (C -O0 / -O2 with inlining, PIE and
 * not, DWARF 4, compressed sections, a separate debug file by debuglink, a
 * shared library, C++ with templates, a static binary, stripped copies) and
 * a sample of libc with its libc6-dbg debug file found by build-id, compared
 * with `addr2line -a -f -i -C` exactly (function, file:line, discriminator,
 * every inlined frame). The comparison runs with dw_image_set_addr2line_quirks
 * on; test_default_mode_is_correct checks what the quirks change. Then
 * line -> addresses, name -> addresses, build-id, load biases, and the time
 * to the first answer for libc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "dwarf/dw_space.h"
#include "dwarf/dw_symtab.h"
#include "tests/unit/dw_testlib.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static bool built;

static int build_programs(void **state)
{
	const char *d = dwt_tmpdir(), *s = DWT_SRC;

	(void)state;
	if (!d)
		return -1;
	built = dwt_sh("set -e; cd '%s'; S='%s/%s';"
		       "gcc -O0 -g $S/dwprog.c -o c_O0;"
		       "gcc -O2 -g $S/dwprog.c -o c_O2;"
		       "gcc -O2 -g -no-pie -fno-pie $S/dwprog.c -o c_nopie;"
		       "gcc -O2 -gdwarf-4 $S/dwprog.c -o c_dw4;"
		       "gcc -O2 -g -gz $S/dwprog.c -o c_gz;"
		       "gcc -O2 -g -static $S/dwprog.c -o c_static;"
		       "gcc -O2 -g -shared -fPIC $S/dwlib.c -o libdw.so;"
		       "g++ -O2 -g $S/dwcxx.cpp -o cxx_O2;"
		       "g++ -O0 -g $S/dwcxx.cpp -o cxx_O0;"
		       "objcopy --only-keep-debug c_O2 c_sep.debug;"
		       "objcopy --strip-debug --add-gnu-debuglink=c_sep.debug c_O2 c_sep;"
		       "strip -g c_O2 -o c_nodebug; strip c_O2 -o c_stripped",
		       d, getenv("PWD") ? getenv("PWD") : ".", s) == 0;
	return built ? 0 : -1;
}

static int remove_programs(void **state)
{
	(void)state;
	dwt_cleanup();
	return 0;
}

static void expect_all_text(const char *name)
{
	struct dwt_result r = dwt_compare_section(dwt_path(name), ".text", 5);

	assert_true(r.total > 0);
	assert_int_equal(r.same, r.total);
}

static void test_c_O0(void **state) { (void)state; expect_all_text("c_O0"); }
static void test_c_O2_inlined(void **state) { (void)state; expect_all_text("c_O2"); }
static void test_c_no_pie(void **state) { (void)state; expect_all_text("c_nopie"); }
static void test_c_dwarf4(void **state) { (void)state; expect_all_text("c_dw4"); }
static void test_c_compressed(void **state) { (void)state; expect_all_text("c_gz"); }
static void test_c_debuglink(void **state) { (void)state; expect_all_text("c_sep"); }
static void test_c_symbols_only(void **state) { (void)state; expect_all_text("c_nodebug"); }
static void test_c_stripped(void **state) { (void)state; expect_all_text("c_stripped"); }
static void test_shared_library(void **state) { (void)state; expect_all_text("libdw.so"); }
static void test_cxx_O2_templates(void **state) { (void)state; expect_all_text("cxx_O2"); }
static void test_cxx_O0(void **state) { (void)state; expect_all_text("cxx_O0"); }

/* A static binary's .text is mostly libc without debug info: every address
 * of the program's own part, then every 7th address of the rest. */
static void test_static(void **state)
{
	const char *p = dwt_path("c_static");
	uint64_t lo = 0, hi = 0;
	size_t n = 0;

	(void)state;
	assert_true(dwt_section(p, ".text", &lo, &hi));
	uint64_t *a = malloc((hi - lo) * sizeof(*a));
	for (uint64_t x = lo; x < hi; x++)
		if (x < lo + 4096 || (x - lo) % 7 == 0)
			a[n++] = x;
	struct dwt_result r = dwt_compare(p, a, n, 5);
	fprintf(stderr, "%s: %zu/%zu sampled .text addresses agree with addr2line\n", p, r.same, r.total);
	free(a);
	assert_int_equal(r.same, r.total);
}

/* libc with its debug file (by build-id): every 97th .text address plus the
 * start and the second byte of every function of the debug file's .symtab. */
static void test_libc(void **state)
{
	struct dw_image *img;
	uint64_t lo = 0, hi = 0;
	size_t n = 0;

	(void)state;
	if (access(LIBC, R_OK) != 0 || dw_image_open(LIBC, &img) != 0)
		skip();
	const char *dbg = dw_image_debug_path(img);
	if (!dbg || strcmp(dbg, LIBC) == 0) {
		dw_image_free(img);
		skip(); /* libc6-dbg not installed */
	}
	assert_true(dwt_section(LIBC, ".text", &lo, &hi));
	struct dw_elf *de;
	struct dw_pool pool;
	struct dw_symtab t;
	dw_pool_init(&pool);
	assert_int_equal(dw_elf_open(dbg, &de), 0);
	assert_true(dw_symtab_load(&t, de, SHT_SYMTAB, &pool) > 0);
	uint64_t *a = malloc(((hi - lo) / 97 + 2 * t.n + 1) * sizeof(*a));
	for (uint64_t x = lo; x < hi; x += 97)
		a[n++] = x;
	for (size_t i = 0; i < t.n; i++)
		if (t.syms[i].addr >= lo && t.syms[i].addr + 1 < hi) {
			a[n++] = t.syms[i].addr;
			a[n++] = t.syms[i].addr + 1;
		}
	dw_symtab_fini(&t);
	dw_elf_free(de);
	dw_pool_fini(&pool);
	dw_image_free(img);
	/* addr2line answers in address order; so do we (bfd keeps state). */
	qsort(a, n, sizeof(*a), dw_u64_cmp_test);
	struct dwt_result r = dwt_compare(LIBC, a, n, 5);
	fprintf(stderr, "%s: %zu/%zu sampled .text addresses agree with addr2line\n", LIBC, r.same, r.total);
	free(a);
	assert_int_equal(r.same, r.total);
}

/* Without the quirks: the first function of c_O0 comes from dwprog_util.h
 * and its rows use the line program's default file 1 (addr2line 2.40 says
 * dwprog.c, file 0). */
static void test_default_mode_is_correct(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[4];

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("c_O0"), &img), 0);
	assert_int_equal(dw_image_function_addrs(img, "util_mix", a, 4), 1);
	assert_int_equal(dw_image_lookup(img, a[0] + 8, &loc), 0);
	assert_string_equal(loc.frames[0].function, "util_mix");
	assert_non_null(strstr(loc.frames[0].file, "/dwprog_util.h"));
	assert_int_equal(loc.function_start, a[0]);
	dw_image_set_addr2line_quirks(img, true);
	assert_int_equal(dw_image_lookup(img, a[0] + 8, &loc), 0);
	assert_non_null(strstr(loc.frames[0].file, "/dwprog.c"));
	assert_null(dw_image_note(img));
	dw_image_free(img);
}

static unsigned source_line_of(const char *file, const char *text)
{
	char path[512], buf[512];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", DWT_SRC, file);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("%s not in %s", text, file);
	return 0;
}

static void test_line_to_addresses(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[32];
	unsigned line = source_line_of("dwprog.c", "return a / b;");
	int n;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("c_O0"), &img), 0);
	n = dw_image_line_addrs(img, "dwprog.c", line, a, 32);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++) {
		assert_int_equal(dw_image_lookup(img, a[i], &loc), 0);
		assert_int_equal(loc.frames[0].line, line);
		assert_string_equal(loc.frames[loc.nframes - 1].function, "checked_div");
	}
	assert_int_equal(dw_image_line_addrs(img, "tests/programs/dwarf/dwprog.c", line, NULL, 0), n);
	assert_int_equal(dw_image_line_addrs(img, "nosuch.c", line, a, 32), 0);
	assert_int_equal(dw_image_line_addrs(img, "og.c", line, a, 32), 0); /* not a path suffix */
	dw_image_free(img);

	/* An inlined header function: one address per inlined copy at -O2. */
	assert_int_equal(dw_image_open(dwt_path("c_O2"), &img), 0);
	line = source_line_of("dwprog_util.h", "x *= 0x5bd1e995u;");
	n = dw_image_line_addrs(img, "dwprog_util.h", line, a, 32);
	assert_true(n >= 1);
	/* util_mix is only ever inlined (into main, through util_sum). An
	 * address may carry several rows and lookups answer with the last one,
	 * so only the containing function is checked. */
	uint64_t m[4];
	assert_int_equal(dw_image_function_addrs(img, "main", m, 4), 1);
	for (int i = 0; i < n; i++) {
		assert_int_equal(dw_image_lookup(img, a[i], &loc), 0);
		assert_int_equal(loc.function_start, m[0]);
		assert_string_equal(loc.frames[loc.nframes - 1].function, "main");
	}
	dw_image_free(img);
}

static void test_name_to_addresses(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[32];
	int n;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("c_O2"), &img), 0);
	assert_int_equal(dw_image_function_addrs(img, "fib", a, 32), 1);
	assert_int_equal(dw_image_lookup(img, a[0], &loc), 0);
	assert_string_equal(loc.frames[0].function, "fib");
	assert_int_equal(loc.function_start, a[0]);
	n = dw_image_function_addrs(img, "square", a, 32); /* inlined only */
	assert_true(n >= 1);
	assert_int_equal(dw_image_function_addrs(img, "no_such_function", a, 32), 0);
	dw_image_free(img);

	assert_int_equal(dw_image_open(dwt_path("cxx_O2"), &img), 0);
	/* Both overloads out of line, and the inlined copies of one. */
	assert_true(dw_image_function_addrs(img, "util::count", a, 32) >= 2);
	assert_true(dw_image_function_addrs(img, "util::count(char const*, char)", a, 32) >= 1);
	assert_true(dw_image_function_addrs(img, "_ZN4util5countEPKcc", a, 32) >= 1);
	assert_int_equal(dw_image_lookup(img, a[0], &loc), 0);
	assert_string_equal(loc.frames[0].function, "util::count(char const*, char)");
	dw_image_free(img);
}

static void test_plt_names(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t lo = 0, hi = 0;
	bool printf_seen = false;

	(void)state;
	const char *p = dwt_path("c_O2");
	assert_true(dwt_section(p, ".plt", &lo, &hi) || dwt_section(p, ".plt.sec", &lo, &hi));
	assert_int_equal(dw_image_open(p, &img), 0);
	for (uint64_t x = lo; x < hi; x += 4)
		if (dw_image_lookup(img, x, &loc) == 0 && strcmp(loc.frames[0].function, "printf@plt") == 0)
			printf_seen = true;
	assert_true(printf_seen);
	dw_image_free(img);
}

/* Every entry of libc's .plt named as objdump names it: by the dynamic
 * symbol of its slot's relocation, or "*ABS*+0xADDEND@plt" for an
 * IRELATIVE slot (strlen and the other ifuncs libc calls inside itself),
 * which used to take its neighbour's name ("realloc@plt+32"). */
static void test_plt_names_objdump(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct dw_image *img;
	struct dw_location loc;
	char cmd[256], line[512], name[256];
	unsigned long long addr;
	size_t n = 0, irelative = 0;
	FILE *f;

	(void)state;
	if (access(libc, R_OK) != 0)
		skip();
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt %s 2>/dev/null", libc);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(dw_image_open(libc, &img), 0);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 || strstr(name, "@plt-"))
			continue;
		assert_int_equal(dw_image_lookup(img, addr, &loc), 0);
		if (strcmp(loc.frames[0].function, name))
			fail_msg("%#llx: %s, objdump: %s", addr, loc.frames[0].function, name);
		n++;
		irelative += !strncmp(name, "*ABS*+0x", 8);
	}
	pclose(f);
	dw_image_free(img);
	printf("libc .plt: %zu entries named as objdump names them, %zu IRELATIVE\n", n,
	       irelative);
	assert_true(n > 0);
	assert_true(irelative > 0);
}

static void test_build_id_and_notes(void **state)
{
	struct dw_image *img;
	uint8_t id[64];
	char hex[129] = "", cmd[600];
	FILE *f;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("c_O2"), &img), 0);
	int n = dw_image_build_id(img, id, sizeof(id));
	assert_int_equal(n, 20);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID/{print $3}'", dwt_path("c_O2"));
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(hex, sizeof(hex), f));
	pclose(f);
	for (int i = 0; i < n; i++) {
		char b[3];
		snprintf(b, sizeof(b), "%02x", id[i]);
		assert_memory_equal(b, hex + 2 * i, 2);
	}
	assert_null(dw_image_note(img));
	dw_image_free(img);

	assert_int_equal(dw_image_open(dwt_path("c_sep"), &img), 0);
	assert_null(dw_image_note(img));
	assert_non_null(strstr(dw_image_debug_path(img), "c_sep.debug"));
	dw_image_free(img);

	assert_int_equal(dw_image_open(dwt_path("c_nodebug"), &img), 0);
	assert_string_equal(dw_image_note(img), "no debug info: symbols only");
	assert_null(dw_image_debug_path(img));
	dw_image_free(img);
}

static void test_space_biases(void **state)
{
	struct dw_space *s;
	struct dw_image *img, *which;
	struct dw_location loc, file_loc;
	uint64_t a[4], lib_bias = 0x7f1234560000ull, exe_bias = 0x555555554000ull;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("libdw.so"), &img), 0);
	assert_int_equal(dw_image_function_addrs(img, "lib_public", a, 4), 1);
	assert_int_equal(dw_image_lookup(img, a[0] + 4, &file_loc), 0);
	char *fname = strdup(file_loc.frames[0].function); /* strings die with the image */
	dw_image_free(img);

	assert_int_equal(dw_space_new(&s), 0);
	assert_int_equal(dw_space_add(s, dwt_path("c_O2"), exe_bias, exe_bias, exe_bias + 0x5000), 0);
	assert_int_equal(dw_space_add(s, dwt_path("libdw.so"), lib_bias, lib_bias, lib_bias + 0x5000), 0);
	assert_int_equal(dw_space_add(s, dwt_path("c_O2"), 0, lib_bias + 0x1000, lib_bias + 0x2000), -EINVAL);
	assert_int_equal(dw_space_lookup(s, lib_bias + a[0] + 4, &loc, &which), 0);
	assert_string_equal(dw_image_path(which), dwt_path("libdw.so"));
	assert_string_equal(loc.frames[0].function, fname);
	free(fname);
	assert_int_equal(loc.frames[0].line, file_loc.frames[0].line);
	assert_int_equal(loc.function_start, lib_bias + a[0]);
	assert_int_equal(dw_space_lookup(s, 0x1000, &loc, &which), -ENOENT);
	assert_null(which);
	assert_int_equal(dw_space_remove(s, lib_bias), 0);
	assert_int_equal(dw_space_lookup(s, lib_bias + a[0] + 4, &loc, NULL), -ENOENT);
	dw_space_free(s);
}

/* Open libc and answer one address with file:line in under 300 ms. */
/* libc's first answer: opening the image and one lookup find the debug file
 * (libc6-dbg) and a line. How fast is `make bench`'s (bench/dw_bench.c:
 * target 300 ms), not a unit test's: a loaded machine made it fail here. */
static void test_libc_first_answer(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[4];

	(void)state;
	if (access(LIBC, R_OK) != 0)
		skip();
	assert_int_equal(dw_image_open(LIBC, &img), 0);
	int n = dw_image_function_addrs(img, "fputc", a, 4);
	dw_image_free(img);
	assert_true(n >= 1);
	assert_int_equal(dw_image_open(LIBC, &img), 0);
	assert_int_equal(dw_image_lookup(img, a[0] + 8, &loc), 0);
	if (!loc.has_line) {
		dw_image_free(img);
		skip(); /* no libc6-dbg */
	}
	assert_true(loc.nframes >= 1);
	assert_non_null(loc.frames[0].file);
	assert_true(loc.frames[0].line > 0);
	dw_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_O0),
		cmocka_unit_test(test_c_O2_inlined),
		cmocka_unit_test(test_c_no_pie),
		cmocka_unit_test(test_c_dwarf4),
		cmocka_unit_test(test_c_compressed),
		cmocka_unit_test(test_c_debuglink),
		cmocka_unit_test(test_c_symbols_only),
		cmocka_unit_test(test_c_stripped),
		cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_cxx_O2_templates),
		cmocka_unit_test(test_cxx_O0),
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_default_mode_is_correct),
		cmocka_unit_test(test_line_to_addresses),
		cmocka_unit_test(test_name_to_addresses),
		cmocka_unit_test(test_plt_names),
		cmocka_unit_test(test_plt_names_objdump),
		cmocka_unit_test(test_build_id_and_notes),
		cmocka_unit_test(test_space_biases),
		cmocka_unit_test(test_libc_first_answer),
	};

	return cmocka_run_group_tests(tests, build_programs, remove_programs);
}
