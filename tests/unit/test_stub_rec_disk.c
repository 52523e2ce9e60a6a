/*
 * tests/unit/test_stub_rec_disk.c: what a recording says of its disk as it
 * grows (stub/recorders/stub_rec_disk.c).
 *
 * The size is said at 1 GiB and at each fourfold after, once each, with
 * the bytes per instruction of trace and state as the counts give them;
 * free space is warned of under 1 GiB, then again only below a quarter of
 * what the last warning saw, and before the size when both are due; an
 * unknown free space and an uncounted recorder say only what they can.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stub/recorders/stub_rec_disk.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

static char line[1024];

static const char *note(struct stub_rec_disk *d, uint64_t trace, uint64_t state, uint64_t insns,
			uint64_t avail)
{
	stub_rec_disk_note(d, "rec", trace, state, insns, 2.0, avail, line, sizeof(line));
	return line;
}

static void test_sizes(void **state)
{
	struct stub_rec_disk d;

	(void)state;
	stub_rec_disk_init(&d);
	assert_string_equal(note(&d, MiB, 100 * MiB, 1000, UINT64_MAX), "");
	/* 1 GiB of 200M instructions: 5.37 bytes each. */
	note(&d, 50 * MiB, GiB - 50 * MiB, 200000000, UINT64_MAX);
	assert_string_equal(line, "the recording in rec is 1.0 GiB so far (5.37 bytes per "
			    "instruction: 0.262 of trace, 5.11 of state); --snapshot SIZE keeps "
			    "only the newest SIZE per thread");
	assert_string_equal(note(&d, 0, 3 * GiB, 1, UINT64_MAX), "");
	assert_true(strstr(note(&d, 0, 4 * GiB, 1, UINT64_MAX), " is 4.0 GiB so far ("));
	/* Past two steps at once: said once, at the size it has. */
	assert_true(strstr(note(&d, 0, 70 * GiB, 1, UINT64_MAX), " is 70 GiB so far ("));
	assert_string_equal(note(&d, 0, 70 * GiB, 1, UINT64_MAX), "");
	assert_true(strstr(note(&d, 0, 256 * GiB, 1, UINT64_MAX), " is 256 GiB so far"));
}

static void test_uncounted(void **state)
{
	struct stub_rec_disk d;

	(void)state;
	stub_rec_disk_init(&d);
	assert_string_equal(note(&d, 2 * GiB, 0, 0, UINT64_MAX),
			    "the recording in rec is 2.0 GiB so far; --snapshot SIZE keeps only the "
			    "newest SIZE per thread");
}

static void test_low_disk(void **state)
{
	struct stub_rec_disk d;

	(void)state;
	stub_rec_disk_init(&d);
	assert_string_equal(note(&d, MiB, MiB, 1000, 2 * GiB), "");
	/* 8 MiB written in 2 s: 4 MiB a second. */
	note(&d, 4 * MiB, 4 * MiB, 1000000, 900 * MiB);
	assert_string_equal(line, "warning: rec has 900 MiB left on its file system, and the "
			    "recording grows by 4.0 MiB a second (8.39 bytes per instruction: 4.194 "
			    "of trace, 4.19 of state): the recording stops when the disk is full, "
			    "keeping what it wrote (--snapshot SIZE keeps only the newest SIZE per "
			    "thread)");
	assert_string_equal(note(&d, MiB, MiB, 1000, 800 * MiB), "");
	assert_string_equal(note(&d, MiB, MiB, 1000, 256 * MiB), "");
	assert_true(strstr(note(&d, MiB, MiB, 1000, 200 * MiB), "has 200 MiB left"));
	/* Far below: one warning, not one per quarter passed. */
	assert_true(strstr(note(&d, MiB, MiB, 1000, 3000), "has 2.9 KiB left"));
	assert_string_equal(note(&d, MiB, MiB, 1000, 2000), "");
	assert_true(strstr(note(&d, MiB, MiB, 1000, 10), "has 10 bytes left"));
}

static void test_low_disk_first(void **state)
{
	struct stub_rec_disk d;

	(void)state;
	/* Nothing written yet: no rate to give. */
	stub_rec_disk_init(&d);
	assert_string_equal(note(&d, 0, 0, 0, 5000), "warning: rec has 4.9 KiB left on its file "
			    "system: the recording stops when the disk is full, keeping what it "
			    "wrote (--snapshot SIZE keeps only the newest SIZE per thread)");
	stub_rec_disk_init(&d);
	assert_true(strstr(note(&d, 0, 2 * GiB, 1, 100 * MiB), "warning: rec has 100 MiB left"));
	assert_true(strstr(note(&d, 0, 2 * GiB, 1, 100 * MiB), " is 2.0 GiB so far"));
	assert_string_equal(note(&d, 0, 2 * GiB, 1, 100 * MiB), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_uncounted),
		cmocka_unit_test(test_low_disk),
		cmocka_unit_test(test_low_disk_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
