/*
 * tests/unit/test_replay_sums.c: a recorder's checksums (stub/recorders/
 * stub_sum.c) checked by the reader (replay/model/sums.c) on real files:
 * blocks end at marks, every 64 KiB and at flushes, and the reader finds
 * them whole; one flipped bit anywhere in the file (every bit of a small
 * one) cuts it at the start of its block with a note naming the file and
 * the offset; a file cut short or with bytes no record covers is damaged
 * when the recording is complete, its unchecked end when it is not; a
 * missing sums file cuts at 0; zeros punched over the front blocks are
 * taken only when the header says holes may be there, and only at the
 * front; --snapshot's rewrite keeps the blocks kept; a recording that grew
 * is checked from where the last check stopped.
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
#include "replay/model/sums.h"
#include "stub/recorders/stub_sum.h"

static char dir[64], path[128];
static uint8_t data[300000];

static void pattern(void)
{
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (uint8_t)(x >> 16);
	}
}

/* @n bytes of data written to @path in pieces, with sums: marks at each
 * offset of @marks (ascending, 0-terminated), a flush at @flush_at. */
static void write_file(size_t n, const uint64_t *marks, size_t flush_at)
{
	FILE *f = fopen(path, "wb");
	struct stub_sum *s = stub_sum_create(path, false);
	size_t at = 0, piece = 1;

	assert_non_null(f);
	assert_non_null(s);
	for (const uint64_t *m = marks; m && *m; m++)
		stub_sum_mark(s, *m);
	while (at < n) {
		size_t k = piece < n - at ? piece : n - at;

		if (at < flush_at && at + k > flush_at)
			k = flush_at - at;
		assert_int_equal(fwrite(data + at, 1, k, f), k);
		stub_sum_feed(s, data + at, k);
		at += k;
		if (at == flush_at) {
			fflush(f);
			assert_int_equal(stub_sum_flush(s), 0);
		}
		piece = piece * 3 % 7919 + 1;
	}
	fclose(f);
	assert_int_equal(stub_sum_close(s), 0);
}

static struct replay_bundle *bundle(bool complete)
{
	struct replay_bundle *b;

	assert_int_equal(replay_bundle_new(&b), 0);
	b->dir = strdup(dir);
	b->complete = complete;
	return b;
}

/* The check of "f" (sums "f.sum") in a fresh bundle; the note, if any, in
 * @note. */
static struct replay_sums_check check(bool complete, char *note, size_t size)
{
	struct replay_bundle *b = bundle(complete);
	struct replay_sums_check c = { 0 };

	assert_int_equal(replay_sums_check_file(b, "f", "f.sum", "trace", &c), 0);
	snprintf(note, size, "%s", b->nnotes ? b->notes[0] : "");
	assert_true(b->nnotes == (c.cut ? 1u : 0u));
	replay_bundle_free(b);
	return c;
}

/* The blocks "f.sum" lists: their lengths into @len, their count. */
static size_t blocks(uint32_t *len, size_t cap)
{
	char sp[160];
	FILE *f;
	uint8_t rec[REPLAY_SUMS_RECORD], head[REPLAY_SUMS_HEADER];
	size_t n = 0;

	snprintf(sp, sizeof(sp), "%s.sum", path);
	f = fopen(sp, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, sizeof(head), f), sizeof(head));
	assert_memory_equal(head, REPLAY_SUMS_MAGIC, REPLAY_SUMS_MAGIC_LEN);
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		uint32_t crc;

		assert_true(n < cap);
		replay_sums_get(rec, &len[n++], &crc);
	}
	fclose(f);
	return n;
}

static void flip_in(const char *file, uint64_t off, int bit)
{
	FILE *f = fopen(file, "r+b");
	int c;

	assert_non_null(f);
	fseek(f, (long)off, SEEK_SET);
	c = fgetc(f);
	fseek(f, (long)off, SEEK_SET);
	fputc(c ^ (1 << bit), f);
	fclose(f);
}

static void flip(uint64_t off, int bit)
{
	flip_in(path, off, bit);
}

static void test_blocks(void **state)
{
	static const uint64_t marks[] = { 10, 4096, 70000, 70001, 0 };
	uint32_t len[64];
	uint64_t off = 0;
	size_t n;
	char note[512];
	(void)state;

	write_file(200000, marks, 150000);
	n = blocks(len, 64);
	/* 0-10, 10-4096, 4096-69632 (64 KiB), 69632-70000, 70000-70001,
	 * 70001-135537, 135537-150000 (flush), 150000-200000 */
	assert_int_equal(n, 8);
	assert_int_equal(len[0], 10);
	assert_int_equal(len[1], 4086);
	assert_int_equal(len[2], 65536);
	assert_int_equal(len[3], 368);
	assert_int_equal(len[4], 1);
	assert_int_equal(len[5], 65536);
	assert_int_equal(len[6], 150000 - 135537);
	assert_int_equal(len[7], 50000);
	for (size_t i = 0; i < n; i++)
		off += len[i];
	assert_int_equal(off, 200000);
	assert_false(check(true, note, sizeof(note)).cut);
}

/* Every bit of a small file, and bits of a large one: each cuts the file
 * at the start of its block. */
static void test_flips(void **state)
{
	static const uint64_t marks[] = { 100, 700, 0 };
	uint64_t starts[] = { 0, 100, 700 };
	char note[512], want[200];
	(void)state;

	for (uint64_t off = 0; off < 1000; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct replay_sums_check c;
			uint64_t start = off >= 700 ? 700 : off >= 100 ? 100 : 0;

			write_file(1000, marks, 0);
			flip(off, bit);
			c = check(true, note, sizeof(note));
			assert_true(c.cut);
			assert_int_equal(c.trust, start);
			snprintf(want, sizeof(want), "trace f is damaged at byte %llu (a block's "
				 "checksum differs)", (unsigned long long)start);
			assert_non_null(strstr(note, want));
			assert_true(start == starts[0] || start == starts[1] || start == starts[2]);
		}
	}
	for (uint64_t off = 0; off < 200000; off += 9973) {
		struct replay_sums_check c;

		write_file(200000, NULL, 0);
		flip(off, (int)(off % 8));
		c = check(true, note, sizeof(note));
		assert_true(c.cut);
		assert_int_equal(c.trust, off / 65536 * 65536);
	}
}

/* Every bit of the checksums file (its header and records) of a
 * recording with no holes: each is seen as damage, none read as a hole
 * or as other blocks. */
static void test_sum_flips(void **state)
{
	static const uint64_t marks[] = { 100, 700, 0 };
	char note[512], sp[160];
	(void)state;

	snprintf(sp, sizeof(sp), "%s.sum", path);
	for (uint64_t off = 0; off < REPLAY_SUMS_HEADER + 3 * REPLAY_SUMS_RECORD; off++) {
		for (int bit = 0; bit < 8; bit++) {
			write_file(1000, marks, 0);
			flip_in(sp, off, bit);
			assert_true(check(true, note, sizeof(note)).cut);
			assert_non_null(strstr(note, "trace f is damaged at byte "));
		}
	}
}

static void test_short_and_tail(void **state)
{
	struct replay_sums_check c;
	char note[512], sp[160];
	FILE *f;
	(void)state;

	write_file(200000, NULL, 0);
	assert_int_equal(truncate(path, 150000), 0);
	c = check(true, note, sizeof(note));
	assert_true(c.cut);
	assert_int_equal(c.trust, 131072);
	assert_non_null(strstr(note, "it was cut short"));
	c = check(false, note, sizeof(note));   /* a recording still going */
	assert_false(c.cut);
	assert_int_equal(c.off, 131072);

	write_file(200000, NULL, 0);
	f = fopen(path, "ab");
	fputs("more", f);
	fclose(f);
	c = check(true, note, sizeof(note));
	assert_true(c.cut);
	assert_int_equal(c.trust, 200000);
	assert_non_null(strstr(note, "not covered by its checksums"));
	assert_false(check(false, note, sizeof(note)).cut);

	write_file(1000, NULL, 0);
	snprintf(sp, sizeof(sp), "%s.sum", path);
	unlink(sp);
	c = check(false, note, sizeof(note));
	assert_true(c.cut);
	assert_int_equal(c.trust, 0);
	assert_non_null(strstr(note, "its checksums cannot be read"));
}

/* --snapshot's ring: stub_sum_holes says where the file starts and
 * punches the records of the blocks before it out; zeros over those
 * blocks are then read as the hole they are, and nowhere else. */
static void test_holes(void **state)
{
	static const uint8_t zero[8192];
	struct replay_sums_check c;
	struct stub_sum *s;
	char note[512];
	FILE *f = fopen(path, "wb");
	(void)state;

	s = stub_sum_create(path, true);
	assert_non_null(s);
	stub_sum_mark(s, 16);
	for (uint64_t m = 4096; m < 20000; m += 4096)
		stub_sum_mark(s, m);
	fwrite(data, 1, 20000, f);
	fflush(f);
	stub_sum_feed(s, data, 20000);
	assert_int_equal(stub_sum_flush(s), 0);
	assert_int_equal(stub_sum_holes(s, 16, 5000), -EINVAL);   /* no block starts there */
	/* The data punched without the sums knowing: damage. */
	fseek(f, 16, SEEK_SET);
	fwrite(zero, 1, 8192 - 16, f);
	fflush(f);
	c = check(true, note, sizeof(note));
	assert_true(c.cut);
	assert_int_equal(c.trust, 16);
	/* Said first: the hole is read as one. */
	assert_int_equal(stub_sum_holes(s, 16, 8192), 0);
	assert_false(check(true, note, sizeof(note)).cut);
	/* The ring moves on: more of the front goes. */
	assert_int_equal(stub_sum_holes(s, 16, 12288), 0);
	fseek(f, 8192, SEEK_SET);
	fwrite(zero, 1, 4096, f);
	fflush(f);
	assert_false(check(true, note, sizeof(note)).cut);
	/* The header block and what follows the hole are checked still. */
	flip(3, 0);
	c = check(true, note, sizeof(note));
	assert_true(c.cut && c.trust == 0);
	flip(3, 0);
	flip(15000, 2);
	c = check(true, note, sizeof(note));
	assert_true(c.cut && c.trust == 12288);
	flip(15000, 2);
	/* The end's rewrite: the kept blocks' records. */
	fclose(f);
	assert_int_equal(stub_sum_close(s), 0);
	f = fopen(path, "wb");
	fwrite(data, 1, 16, f);
	fwrite(data + 12288, 1, 20000 - 12288, f);
	fclose(f);
	assert_int_equal(stub_sum_drop_front(path, 16, 12288), 0);
	assert_false(check(true, note, sizeof(note)).cut);
}

/* The file as --snapshot's end leaves it: [0, keep) and [from, end). */
static void drop_front(uint64_t keep, uint64_t from, size_t n)
{
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, keep, f);
	fwrite(data + from, 1, n - from, f);
	fclose(f);
	assert_int_equal(stub_sum_drop_front(path, keep, from), 0);
}

static void test_drop_front(void **state)
{
	static const uint64_t marks[] = { 16, 30000, 90000, 0 };
	uint32_t len[64];
	char note[512];
	(void)state;

	write_file(200000, marks, 0);
	drop_front(16, 90000, 200000);
	assert_false(check(true, note, sizeof(note)).cut);
	assert_int_equal(blocks(len, 64), 3);   /* 16, 65536, the rest */
	assert_int_equal(len[0], 16);
	/* A cut where no block ends: the sums are made again. */
	write_file(200000, marks, 0);
	drop_front(16, 50000, 200000);
	assert_false(check(true, note, sizeof(note)).cut);
}

/* A recording that grew: checked from where the last check stopped, and
 * what it checked is not read again (damage there is not seen again). */
static void test_grown(void **state)
{
	struct replay_bundle *b = bundle(false);
	struct replay_sums_check c = { 0 };
	FILE *f = fopen(path, "wb");
	struct stub_sum *s = stub_sum_create(path, false);
	(void)state;

	fwrite(data, 1, 100000, f);
	fflush(f);
	stub_sum_feed(s, data, 100000);
	assert_int_equal(stub_sum_flush(s), 0);
	fwrite(data + 100000, 1, 5000, f);   /* not summed yet */
	fflush(f);
	assert_int_equal(replay_sums_check_file(b, "f", "f.sum", "trace", &c), 0);
	assert_false(c.cut);
	assert_int_equal(c.off, 100000);
	assert_int_equal(c.recs, 2);
	stub_sum_feed(s, data + 100000, 5000);
	fwrite(data + 105000, 1, 95000, f);
	stub_sum_feed(s, data + 105000, 95000);
	fclose(f);
	assert_int_equal(stub_sum_close(s), 0);
	flip(50, 1);                          /* in what was checked */
	b->complete = true;
	assert_int_equal(replay_sums_check_file(b, "f", "f.sum", "trace", &c), 0);
	assert_false(c.cut);
	assert_int_equal(c.off, 200000);
	flip(150000, 1);
	c.off = 100000;
	c.recs = 2;
	assert_int_equal(replay_sums_check_file(b, "f", "f.sum", "trace", &c), 0);
	assert_true(c.cut);
	assert_int_equal(c.trust, 100000);
	replay_bundle_free(b);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hindsight-sums-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f", dir);
	pattern();
	return 0;
}

static int teardown(void **state)
{
	char sp[160];

	(void)state;
	snprintf(sp, sizeof(sp), "%s.sum", path);
	unlink(path);
	unlink(sp);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_flips),
		cmocka_unit_test(test_sum_flips),
		cmocka_unit_test(test_short_and_tail),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_drop_front),
		cmocka_unit_test(test_grown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
