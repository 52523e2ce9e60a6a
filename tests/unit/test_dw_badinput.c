/* dwarf/ on bad input: missing and non-ELF files, ELF files cut at many
 * offsets, garbage written over .debug_info / .debug_abbrev / .debug_line /
 * .debug_str / .debug_rnglists (plain and compressed), a debug link whose
 * file is gone, stripped binaries. Each must give an error code or answers
 * from what is left (symbols, addresses) with a note; never a crash. Run it
 * under `make SANITIZE=1` too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/unit/dw_testlib.h"

static int build_programs(void **state)
{
	(void)state;
	if (!dwt_tmpdir())
		return -1;
	return dwt_sh("set -e; cd '%s'; S='%s/%s';"
		      "gcc -O2 -g $S/dwprog.c -o c_O2;"
		      "gcc -O2 -g -gz $S/dwprog.c -o c_gz;"
		      "gcc -O2 -gdwarf-4 $S/dwprog.c -o c_dw4;"
		      "objcopy --only-keep-debug c_O2 c_sep.debug;"
		      "objcopy --strip-debug --add-gnu-debuglink=c_sep.debug c_O2 c_sep;"
		      "mkdir -p lonely; cp c_sep lonely/c_sep;"
		      "strip c_O2 -o c_stripped; printf 'not an elf file\\n' > text.txt; : > empty",
		      dwt_tmpdir(), getenv("PWD") ? getenv("PWD") : ".", DWT_SRC) == 0
		       ? 0
		       : -1;
}

static int remove_programs(void **state)
{
	(void)state;
	dwt_cleanup();
	return 0;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(*len ? *len : 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void write_all(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Asks everything of @img; only checks that answers are well-formed. */
static void exercise(struct dw_image *img, uint64_t lo, uint64_t hi, uint64_t step)
{
	struct dw_location loc;
	uint64_t a[8];

	(void)dw_image_note(img);
	(void)dw_image_debug_path(img);
	(void)dw_image_build_id(img, NULL, 0);
	for (uint64_t x = lo; x < hi; x += step) {
		int rc = dw_image_lookup(img, x, &loc);

		assert_true(rc == 0 || rc == -ENOENT);
		assert_true(rc != 0 || (loc.nframes >= 1 && loc.nframes <= DW_MAX_FRAMES));
		for (size_t i = 0; rc == 0 && i < loc.nframes; i++)
			if (loc.frames[i].function)
				assert_true(strlen(loc.frames[i].function) < 100000);
	}
	assert_true(dw_image_line_addrs(img, "dwprog.c", 38, a, 8) >= 0);
	assert_true(dw_image_function_addrs(img, "main", a, 8) >= 0);
}

static void test_not_elf(void **state)
{
	struct dw_image *img = (void *)1;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("no-such-file"), &img), -ENOENT);
	assert_null(img);
	assert_int_equal(dw_image_open(dwt_path("text.txt"), &img), -ENOEXEC);
	assert_int_equal(dw_image_open(dwt_path("empty"), &img), -ENOEXEC);
	assert_int_equal(dw_image_open(dwt_tmpdir(), &img), -ENOEXEC);
	assert_int_equal(dw_image_open_memory("\x7f" "ELF", 4, "x", &img), -ENOEXEC);
	assert_int_equal(dw_image_open(NULL, &img), -EINVAL);
	dw_image_free(NULL);
}

static void test_truncated(void **state)
{
	size_t len;
	unsigned char *buf = read_all(dwt_path("c_O2"), &len);
	const size_t cuts[] = { 1, 16, 52, 63, 64, 100, 500, 1000, 4096, 8192, 12000, 13000, 14000,
				15000, 16000, 17000, 18000, 19000, 20000, 21000, len / 3, len / 2,
				len - 2000, len - 700, len - 100, len - 1 };
	uint64_t lo = 0, hi = 0;

	(void)state;
	assert_true(dwt_section(dwt_path("c_O2"), ".text", &lo, &hi));
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct dw_image *img;
		const char *p = dwt_path("cut");

		if (cuts[i] >= len)
			continue;
		write_all(p, buf, cuts[i]);
		int rc = dw_image_open(p, &img);
		assert_true(rc == 0 || rc == -ENOEXEC);
		if (rc == 0) {
			exercise(img, lo, hi, 3);
			dw_image_free(img);
		}
		rc = dw_image_open_memory(buf, cuts[i], "cut", &img);
		if (rc == 0) {
			exercise(img, lo, hi, 5);
			dw_image_free(img);
		}
	}
	free(buf);
}

static uint32_t rng = 12345;

static uint8_t next_byte(void)
{
	rng = rng * 1103515245u + 12345u;
	return (uint8_t)(rng >> 16);
}

/* Overwrites part of section @sec of @src with pattern @kind, then looks up
 * every .text address. */
static void garble(const char *src, const char *sec, int kind)
{
	size_t len, idx;
	unsigned char *buf = read_all(dwt_path(src), &len);
	struct dw_elf *e;
	uint64_t off, size, lo = 0, hi = 0;
	struct dw_image *img;

	assert_int_equal(dw_elf_open(dwt_path(src), &e), 0);
	idx = dw_elf_find(e, sec);
	if (!idx) {
		dw_elf_free(e);
		free(buf);
		return;
	}
	off = e->sections[idx].offset;
	size = e->sections[idx].compressed ? 0 : e->sections[idx].size;
	dw_elf_free(e);
	if (size == 0) { /* compressed: its on-disk size */
		struct dw_elf *e2;
		assert_int_equal(dw_elf_open(dwt_path(src), &e2), 0);
		GElf_Shdr sh;
		assert_non_null(gelf_getshdr(e2->sections[idx].scn, &sh));
		size = sh.sh_size;
		dw_elf_free(e2);
	}
	for (uint64_t i = 0; i < size && off + i < len; i++) {
		size_t k = (size_t)(off + i);

		switch (kind) {
		case 0: buf[k] = next_byte(); break;                       /* all random */
		case 1: if (i >= 12) buf[k] = next_byte(); break;           /* keep headers */
		case 2: if (i % 7 == 3) buf[k] = next_byte(); break;       /* sparse flips */
		case 3: buf[k] = 0xff; break;
		default: if (i >= size / 2) buf[k] = 0; break;
		}
	}
	const char *p = dwt_path("garbled");
	write_all(p, buf, len);
	free(buf);
	assert_int_equal(dw_image_open(p, &img), 0);
	assert_true(dwt_section(p, ".text", &lo, &hi));
	exercise(img, lo, hi, 1);
	dw_image_free(img);
}

static void test_garbage_sections(void **state)
{
	static const char *const secs[] = { ".debug_info", ".debug_abbrev", ".debug_line",
					    ".debug_str", ".debug_line_str", ".debug_rnglists",
					    ".debug_aranges", ".debug_ranges", ".symtab", ".strtab" };
	static const char *const progs[] = { "c_O2", "c_gz", "c_dw4" };

	(void)state;
	for (size_t p = 0; p < 3; p++)
		for (size_t s = 0; s < sizeof(secs) / sizeof(secs[0]); s++)
			for (int kind = 0; kind < 5; kind++)
				garble(progs[p], secs[s], kind);
}

static void test_missing_debug_link(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[2];

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("lonely/c_sep"), &img), 0);
	assert_string_equal(dw_image_note(img), "debug file 'c_sep.debug' not found: symbols only");
	assert_null(dw_image_debug_path(img));
	assert_int_equal(dw_image_function_addrs(img, "fib", a, 2), 1);
	assert_int_equal(dw_image_lookup(img, a[0] + 2, &loc), 0);
	assert_string_equal(loc.frames[0].function, "fib");
	assert_false(loc.has_line);
	assert_int_equal(loc.function_start, a[0]);
	dw_image_free(img);
}

static void test_stripped(void **state)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t lo = 0, hi = 0;

	(void)state;
	assert_int_equal(dw_image_open(dwt_path("c_stripped"), &img), 0);
	assert_string_equal(dw_image_note(img), "no debug info: symbols only");
	assert_true(dwt_section(dwt_path("c_stripped"), ".text", &lo, &hi));
	/* Only dynamic symbols are left, none in .text: addresses only. */
	assert_int_equal(dw_image_lookup(img, lo + 4, &loc), -ENOENT);
	assert_int_equal(loc.nframes, 0);
	dw_image_free(img);
}

static void test_memory_image(void **state)
{
	size_t len;
	unsigned char *buf = read_all(dwt_path("c_O2"), &len);
	struct dw_image *img;
	struct dw_location loc;
	uint64_t a[2];

	(void)state;
	assert_int_equal(dw_image_open_memory(buf, len, "[vdso]", &img), 0);
	free(buf); /* the image keeps its own copy */
	assert_string_equal(dw_image_path(img), "[vdso]");
	assert_int_equal(dw_image_function_addrs(img, "nearest", a, 2), 1);
	assert_int_equal(dw_image_lookup(img, a[0], &loc), 0);
	assert_string_equal(loc.frames[0].function, "nearest");
	assert_true(loc.has_line);
	dw_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage_sections),
		cmocka_unit_test(test_missing_debug_link),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_memory_image),
	};

	return cmocka_run_group_tests(tests, build_programs, remove_programs);
}
