/* test_dw_msymbol: dw_image_msymbol names addresses as GDB's minimal
 * symbols do (`<g_points+16>`, `<main+4>`), checked against `nm -S` of
 * tests/programs/cvars.c compiled here: inside every sized function or data
 * object, its name and the offset; past a sized symbol's end in a gap, no
 * name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>

#include "dw_testlib.h"

struct nm_sym {
	uint64_t addr, size;
	char type;
	char name[128];
};

static struct nm_sym syms[4096];
static size_t nsyms;
static char prog[512];

static int setup(void **state)
{
	char cmd[1024], line[512];
	FILE *f;

	(void)state;
	if (!dwt_tmpdir())
		return -1;
	snprintf(prog, sizeof(prog), "%s/cvars", dwt_dir);
	if (dwt_sh("cc -g -O0 -o '%s' tests/programs/cvars.c", prog))
		return -1;
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", prog);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && nsyms < 4096) {
		struct nm_sym *s = &syms[nsyms];

		s->size = 0;
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %127s", &s->addr, &s->size, &s->type,
			   s->name) == 4 ||
		    sscanf(line, "%" SCNx64 " %c %127s", &s->addr, &s->type, s->name) == 3)
			nsyms++;
	}
	pclose(f);
	return nsyms > 20 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dwt_cleanup();
	return 0;
}

/* Does another sized symbol cover @addr (overlapping symbols: GDB may pick
 * either)? */
static bool covered_twice(uint64_t addr)
{
	int n = 0;

	for (size_t i = 0; i < nsyms; i++)
		n += addr >= syms[i].addr && addr < syms[i].addr + syms[i].size;
	return n > 1;
}

static void test_inside_every_symbol(void **state)
{
	struct dw_image *img;
	size_t checked = 0, data = 0;

	(void)state;
	assert_int_equal(dw_image_open(prog, &img), 0);
	for (size_t i = 0; i < nsyms; i++) {
		if (!syms[i].size || !strchr("TtDdBbRr", syms[i].type))
			continue;
		uint64_t offs[3] = { 0, syms[i].size / 2, syms[i].size - 1 };

		for (int k = 0; k < 3; k++) {
			uint64_t addr = syms[i].addr + offs[k], off = ~0ull;
			const char *name = NULL;

			if (covered_twice(addr))
				continue;
			assert_int_equal(dw_image_msymbol(img, addr, &name, &off), 0);
			assert_string_equal(name, syms[i].name);
			assert_int_equal(off, offs[k]);
			checked++;
			data += strchr("DdBbRr", syms[i].type) != NULL;
		}
	}
	assert_true(checked > 60);
	assert_true(data > 30); /* g_points, g_cheap, ... */
	dw_image_free(img);
}

/* After a sized symbol, up to the next one: nothing (GDB prints no <>). */
static void test_past_the_end(void **state)
{
	struct dw_image *img;
	size_t checked = 0;

	(void)state;
	assert_int_equal(dw_image_open(prog, &img), 0);
	for (size_t i = 0; i < nsyms; i++) {
		uint64_t end = syms[i].addr + syms[i].size, off;
		const char *name;
		bool taken = !syms[i].size || !strchr("TtDdBbRr", syms[i].type);

		/* Only gaps nm shows nothing in: no symbol starts after this
		 * one up to @end, none covers @end. */
		for (size_t j = 0; j < nsyms && !taken; j++)
			taken = (syms[j].addr > syms[i].addr && syms[j].addr <= end) ||
				(end >= syms[j].addr && end < syms[j].addr + syms[j].size);
		if (taken)
			continue;
		if (dw_image_msymbol(img, end, &name, &off) == 0)
			fail_msg("0x%" PRIx64 " (after %s) is named %s+%" PRIu64, end, syms[i].name,
				 name, off);
		checked++;
	}
	assert_true(checked > 0);
	dw_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside_every_symbol),
		cmocka_unit_test(test_past_the_end),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
