/*
 * tests/unit/test_stub_rec_code.c: code the program made, kept page by page
 * as versions over time (stub/recorders/stub_rec_code.h): the bundle's
 * mappings and the bytes of the file they name.
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

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec_code.h"

#define PAGE 4096u
#define NEW STUB_REC_CODE_NEW
#define LOST STUB_REC_CODE_LOST

struct fixture {
	char dir[64];
	struct replay_bundle *b;
	struct stub_rec_code *c;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/hs-code-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(replay_bundle_new(&f->b), 0);
	f->c = stub_rec_code_new(f->b, f->dir);
	assert_non_null(f->c);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	stub_rec_code_free(f->c);
	replay_bundle_free(f->b);
	replay_bundle_remove_tree(f->dir);
	free(f);
	return 0;
}

/* The @n bytes mapping @i shows at @addr, read from its file. */
static void read_at(const struct fixture *f, size_t i, uint64_t addr, uint8_t *out, size_t n)
{
	const struct replay_mapping *m = &f->b->maps[i];
	char path[256];
	FILE *fp;

	assert_true(addr >= m->start && addr + n <= m->start + m->size);
	snprintf(path, sizeof(path), "%s/%s", f->dir, m->file);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)(m->offset + (addr - m->start)), SEEK_SET), 0);
	assert_int_equal(fread(out, 1, n, fp), n);
	fclose(fp);
}

static void test_versions(void **state)
{
	struct fixture *f = *state;
	static const uint8_t a[] = { 0x31, 0xc0, 0xc3 }, more[] = { 0x90, 0xc3 },
			     b[] = { 0x8d, 0x04, 0x7f, 0xc3 };
	uint8_t got[8];

	/* The first code in a page: a version from then. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x10040, a, sizeof(a), 100, NULL, NULL), NEW);
	assert_int_equal(f->b->nmaps, 1);
	assert_true(replay_mapping_generated(&f->b->maps[0]));
	assert_int_equal(f->b->maps[0].start, 0x10000);
	assert_int_equal(f->b->maps[0].size, PAGE);
	assert_int_equal(f->b->maps[0].time_map, 100);
	assert_int_equal(f->b->maps[0].time_unmap, REPLAY_TIME_NEVER);
	read_at(f, 0, 0x10040, got, sizeof(a));
	assert_memory_equal(got, a, sizeof(a));
	/* The same bytes again, and more of the page: the same version. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x10040, a, sizeof(a), 120, NULL, NULL), 0);
	assert_int_equal(stub_rec_code_seen(f->c, 0x10100, more, sizeof(more), 130, NULL, NULL), 0);
	assert_int_equal(f->b->nmaps, 1);
	read_at(f, 0, 0x10100, got, sizeof(more));
	assert_memory_equal(got, more, sizeof(more));
	/* Other bytes where code ran: the old version ends, a new one holds
	 * the page's other code too. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x10040, b, sizeof(b), 200, NULL, NULL), NEW);
	assert_int_equal(f->b->nmaps, 2);
	assert_int_equal(f->b->maps[0].time_unmap, 200);
	assert_int_equal(f->b->maps[1].time_map, 200);
	read_at(f, 0, 0x10040, got, sizeof(a));
	assert_memory_equal(got, a, sizeof(a));
	read_at(f, 1, 0x10040, got, sizeof(b));
	assert_memory_equal(got, b, sizeof(b));
	read_at(f, 1, 0x10100, got, sizeof(more));
	assert_memory_equal(got, more, sizeof(more));
	assert_int_equal(stub_rec_code_pages(f->c), 1);
	assert_int_equal(stub_rec_code_versions(f->c), 2);
	/* The time the code there is of, for the trace's TSC. */
	assert_int_equal(stub_rec_code_since(f->c, 0x10040, 4), 200);
	assert_int_equal(stub_rec_code_since(f->c, 0x90000, 4), 0);
}

static void test_same_time(void **state)
{
	struct fixture *f = *state;
	static const uint8_t a[] = { 0x90, 0xc3 }, b[] = { 0xc3, 0xc3 };

	/* Other bytes at the very time the version opened (nothing of it
	 * ran yet): the version takes them. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x20000, a, sizeof(a), 5, NULL, NULL), NEW);
	assert_int_equal(stub_rec_code_seen(f->c, 0x20000, b, sizeof(b), 5, NULL, NULL), 0);
	assert_int_equal(f->b->nmaps, 1);
	assert_int_equal(f->b->maps[0].time_unmap, REPLAY_TIME_NEVER);
}

static void test_across_pages(void **state)
{
	struct fixture *f = *state;
	static const uint8_t movabs[] = { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t got[10];

	/* An instruction that crosses into the next page: both pages. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x30000 + PAGE - 3, movabs, sizeof(movabs), 9, NULL, NULL), NEW);
	assert_int_equal(f->b->nmaps, 2);
	assert_int_equal(stub_rec_code_pages(f->c), 2);
	read_at(f, 0, 0x30000 + PAGE - 3, got, 3);
	read_at(f, 1, 0x30000 + PAGE, got + 3, 7);
	assert_memory_equal(got, movabs, sizeof(movabs));
	assert_int_equal(stub_rec_code_since(f->c, 0x30000 + PAGE - 3, sizeof(movabs)), 9);
}

static void test_forget(void **state)
{
	struct fixture *f = *state;
	static const uint8_t a[] = { 0xc3 };

	assert_int_equal(stub_rec_code_seen(f->c, 0x40000, a, 1, 10, NULL, NULL), NEW);
	assert_int_equal(stub_rec_code_seen(f->c, 0x41000, a, 1, 11, NULL, NULL), NEW);
	/* The first page unmapped: its version ends; the other stays. */
	stub_rec_code_forget(f->c, 0x40000, 0x41000, 50);
	assert_int_equal(f->b->maps[0].time_unmap, 50);
	assert_int_equal(f->b->maps[1].time_unmap, REPLAY_TIME_NEVER);
	assert_int_equal(stub_rec_code_pages(f->c), 1);
	/* Code there again: a new version from then, not the old one. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x40000, a, 1, 60, NULL, NULL), NEW);
	assert_int_equal(f->b->nmaps, 3);
	assert_int_equal(f->b->maps[2].time_map, 60);
	/* An exec forgets it all. */
	stub_rec_code_forget(f->c, 0, UINT64_MAX, 70);
	assert_int_equal(f->b->maps[1].time_unmap, 70);
	assert_int_equal(f->b->maps[2].time_unmap, 70);
	assert_int_equal(stub_rec_code_pages(f->c), 0);
}

static void test_unwritable(void **state)
{
	struct fixture *f = *state;
	struct stub_rec_code *c = stub_rec_code_new(f->b, "/proc/no/such/dir");
	static const uint8_t a[] = { 0xc3 };

	/* A file that cannot be made: said, and no mapping names it. */
	assert_non_null(c);
	assert_true(stub_rec_code_seen(c, 0x50000, a, 1, 1, NULL, NULL) < 0);
	assert_int_equal(f->b->nmaps, 0);
	stub_rec_code_free(c);
}

/* A page the recording has from a file (an instruction that crosses into
 * it): not kept, so that its file's bytes stay the ones read there. */
static bool file_at_0x61000(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x61000 && addr < 0x62000;
}

static void test_into_a_file(void **state)
{
	struct fixture *f = *state;
	static const uint8_t movabs[] = { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 };

	assert_int_equal(stub_rec_code_seen(f->c, 0x61000 - 3, movabs, sizeof(movabs), 4,
					    file_at_0x61000, NULL), NEW);
	assert_int_equal(f->b->nmaps, 1);
	assert_int_equal(f->b->maps[0].start, 0x60000);
	assert_int_equal(stub_rec_code_pages(f->c), 1);
	/* Wholly in the file's page: nothing. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x61010, movabs, sizeof(movabs), 5,
					    file_at_0x61000, NULL), 0);
	assert_int_equal(f->b->nmaps, 1);
}

static void test_no_room(void **state)
{
	struct fixture *f = *state;
	static const uint8_t a[] = { 0x90, 0xc3 }, b[] = { 0xcc, 0xc3 };

	stub_rec_code_limit(f->c, 2);
	assert_int_equal(stub_rec_code_seen(f->c, 0x70000, a, sizeof(a), 10, NULL, NULL), NEW);
	assert_int_equal(stub_rec_code_seen(f->c, 0x71000, a, sizeof(a), 11, NULL, NULL), NEW);
	/* A third page: not kept, said. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x72000, a, sizeof(a), 12, NULL, NULL), LOST);
	assert_int_equal(f->b->nmaps, 2);
	/* Other code over a kept page with no room for its version: the old
	 * one ends there (its time said: NEW), never to be read for the new
	 * code, and the page is kept no more. */
	assert_int_equal(stub_rec_code_seen(f->c, 0x70000, b, sizeof(b), 20, NULL, NULL),
			 NEW | LOST);
	assert_int_equal(f->b->maps[0].time_unmap, 20);
	assert_int_equal(stub_rec_code_pages(f->c), 1);
	assert_int_equal(stub_rec_code_since(f->c, 0x70000, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_versions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_across_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_into_a_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_room, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
