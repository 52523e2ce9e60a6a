/*
 * tests/unit/test_stub_rec_ring.c: --snapshot's ring on real files: no
 * trim until the two files hold twice the size past their start; a trim
 * punches everything before the oldest cut that leaves at most the size
 * (those bytes read as zeros, the state log's header stays, the bytes
 * from the cut on are untouched, disk blocks are freed); the end rewrites
 * both files to start at the chosen cut, or at the newest one when even
 * that leaves more than the size; a recording that fits is left whole;
 * cuts wanted by state-log growth.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "stub/recorders/stub_rec_ring.h"

#define HDR 16

static char dir[64], pt_path[128], st_path[128];
static uint8_t pt_data[1 << 17], st_data[1 << 19];

/* The files: @pt and @st bytes of a recognisable pattern. */
static void files(size_t pt, size_t st)
{
	FILE *f;

	for (size_t i = 0; i < sizeof(pt_data); i++)
		pt_data[i] = (uint8_t)(1 + i % 251);
	for (size_t i = 0; i < sizeof(st_data); i++)
		st_data[i] = (uint8_t)(1 + i % 241);
	f = fopen(pt_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(pt_data, 1, pt, f), pt);
	fclose(f);
	f = fopen(st_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(st_data, 1, st, f), st);
	fclose(f);
}

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void test_trim_and_finish(void **state)
{
	static uint8_t got[1 << 19];
	struct stub_rec_ring r = { 0 };
	struct stat sb0, sb1;
	int pt_fd, st_fd;
	(void)state;

	/* 100 KiB of trace, 400 KiB of state log, a cut every 10 KiB of
	 * trace / 40 KiB of state; size 64 KiB. */
	files(100 * 1024, 400 * 1024);
	stub_rec_ring_init(&r, 64 * 1024, HDR);
	for (uint64_t k = 1; k <= 9; k++) {
		struct stub_rec_cut c = { k * 10240, k * 40960, k * 1000, k * 1000 + 7 };

		assert_int_equal(stub_rec_ring_add(&r, &c), 0);
	}
	assert_false(stub_rec_ring_due(&r, 20 * 1024, 80 * 1024));  /* 100 KiB: < 2 x 64 */
	assert_true(stub_rec_ring_due(&r, 100 * 1024, 400 * 1024));
	pt_fd = open(pt_path, O_RDWR);
	st_fd = open(st_path, O_RDWR);
	assert_true(pt_fd >= 0 && st_fd >= 0);
	assert_int_equal(fstat(st_fd, &sb0), 0);
	/* Kept from cut 9: 10 + 40 KiB <= 64; from cut 8: 100 > 64. */
	assert_int_equal(stub_rec_ring_trim(&r, pt_fd, 100 * 1024, st_fd, 400 * 1024), 1);
	assert_true(r.moved);
	assert_int_equal(r.at.index, 9000);
	assert_int_equal(r.at.time, 9007);
	assert_int_equal(fstat(st_fd, &sb1), 0);
	assert_true(sb1.st_blocks < sb0.st_blocks / 2);       /* freed on disk */
	assert_int_equal(sb1.st_size, 400 * 1024);            /* the offsets stay */
	close(pt_fd);
	close(st_fd);
	assert_int_equal(slurp(st_path, got, sizeof(got)), 400 * 1024);
	assert_memory_equal(got, st_data, HDR);               /* the header stays */
	for (size_t i = HDR; i < 9 * 40960; i++)
		if (got[i])
			fail_msg("state byte %zu is %u after the trim, not padding", i, got[i]);
	assert_memory_equal(got + 9 * 40960, st_data + 9 * 40960, 400 * 1024 - 9 * 40960);
	assert_int_equal(slurp(pt_path, got, sizeof(got)), 100 * 1024);
	for (size_t i = 0; i < 9 * 10240; i++)
		assert_int_equal(got[i], 0);
	assert_false(stub_rec_ring_due(&r, 100 * 1024, 400 * 1024));

	/* The end: the files start at the cut. */
	assert_int_equal(stub_rec_ring_finish(&r, pt_path, 100 * 1024, st_path, 400 * 1024), 1);
	assert_int_equal(r.at.index, 9000);
	assert_int_equal(slurp(pt_path, got, sizeof(got)), 10240);
	assert_memory_equal(got, pt_data + 9 * 10240, 10240);
	assert_int_equal(slurp(st_path, got, sizeof(got)), HDR + 400 * 1024 - 9 * 40960);
	assert_memory_equal(got, st_data, HDR);
	assert_memory_equal(got + HDR, st_data + 9 * 40960, 400 * 1024 - 9 * 40960);
	stub_rec_ring_release(&r);
}

static void test_finish_only(void **state)
{
	static uint8_t got[1 << 19];
	struct stub_rec_ring r = { 0 };
	struct stub_rec_cut c1 = { 1000, 50000, 100, 100 }, c2 = { 2000, 90000, 200, 200 };
	(void)state;

	/* Everything fits: kept whole. */
	files(3000, 100000);
	stub_rec_ring_init(&r, 200000, HDR);
	assert_int_equal(stub_rec_ring_add(&r, &c1), 0);
	assert_int_equal(stub_rec_ring_finish(&r, pt_path, 3000, st_path, 100000), 0);
	assert_int_equal(slurp(st_path, got, sizeof(got)), 100000);
	stub_rec_ring_release(&r);

	/* Even the newest cut leaves more than the size: cut there. */
	stub_rec_ring_init(&r, 4096, HDR);
	assert_int_equal(stub_rec_ring_add(&r, &c1), 0);
	assert_int_equal(stub_rec_ring_add(&r, &c2), 0);
	assert_int_equal(stub_rec_ring_finish(&r, pt_path, 3000, st_path, 100000), 1);
	assert_int_equal(r.at.index, 200);
	assert_int_equal(slurp(pt_path, got, sizeof(got)), 1000);
	assert_memory_equal(got, pt_data + 2000, 1000);
	assert_int_equal(slurp(st_path, got, sizeof(got)), HDR + 10000);
	assert_memory_equal(got + HDR, st_data + 90000, 10000);
	stub_rec_ring_release(&r);

	/* No cut at all: nothing to start at, kept whole. */
	files(3000, 100000);
	stub_rec_ring_init(&r, 4096, HDR);
	assert_int_equal(stub_rec_ring_finish(&r, pt_path, 3000, st_path, 100000), 0);
	assert_int_equal(slurp(pt_path, got, sizeof(got)), 3000);
	stub_rec_ring_release(&r);
}

static void test_want(void **state)
{
	struct stub_rec_ring r = { 0 };
	struct stub_rec_cut c = { 100, 50000, 10, 10 };
	(void)state;

	/* A cut every sixteenth of the size of state log, 4 KiB at least. */
	assert_false(stub_rec_ring_want(&r, 1 << 20, 65535));
	assert_true(stub_rec_ring_want(&r, 1 << 20, 65536));
	stub_rec_ring_init(&r, 1 << 20, HDR);
	assert_int_equal(stub_rec_ring_add(&r, &c), 0);
	assert_false(stub_rec_ring_want(&r, 1 << 20, 50000 + 65535));
	assert_true(stub_rec_ring_want(&r, 1 << 20, 50000 + 65536));
	assert_false(stub_rec_ring_want(&r, 8192, 50000 + 4095));
	assert_true(stub_rec_ring_want(&r, 8192, 50000 + 4096));
	assert_false(stub_rec_ring_want(&r, 0, 1 << 30));     /* no ring */
	stub_rec_ring_release(&r);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hindsight-ring.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(pt_path, sizeof(pt_path), "%s/t.pt", dir);
	snprintf(st_path, sizeof(st_path), "%s/t.state", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(pt_path);
	unlink(st_path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_and_finish),
		cmocka_unit_test(test_finish_only),
		cmocka_unit_test(test_want),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
