/*
 * tests/unit/test_stub_hwpt_sideband.c: DATA-area sideband records, built
 * byte by byte as the kernel writes them (with a TID|TIME|CPU|IDENTIFIER
 * sample_id trailer), into mappings and gaps; the record parser's trailer
 * and error cases; the time conversion; a ring drained end to end.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_record.h"
#include "stub/recorders/stub_hwpt_sideband.h"

static const struct replay_perf_sid_layout layout = {
	true, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER
};

struct rec {
	uint8_t b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put32(struct rec *r, uint32_t v) { put(r, &v, 4); }
static void put64(struct rec *r, uint64_t v) { put(r, &v, 8); }

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	r->n = 0;
	put32(r, type);
	put(r, &misc, 2);
	put(r, &(uint16_t){ 0 }, 2);   /* size: end() */
}

/* Appends the trailer (pid, tid, time, cpu, id) and sets the size. */
static void end(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	uint16_t size;

	put32(r, pid);
	put32(r, tid);
	put64(r, time);
	put32(r, 3);
	put32(r, 0);
	put64(r, 77);
	size = (uint16_t)r->n;
	memcpy(r->b + 6, &size, 2);
}

static void mmap2(struct rec *r, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		  uint32_t prot, const char *name, uint64_t time)
{
	size_t nlen = (strlen(name) + 8) & ~(size_t)7;   /* NUL, padded to 8 */
	char pad[64] = { 0 };

	begin(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(r, pid);
	put32(r, pid);
	put64(r, addr);
	put64(r, len);
	put64(r, pgoff);
	put32(r, 8);             /* maj */
	put32(r, 1);             /* min */
	put64(r, 1234);          /* ino */
	put64(r, 0);
	put32(r, prot);
	put32(r, MAP_PRIVATE);
	memcpy(pad, name, strlen(name));
	put(r, pad, nlen);
	end(r, pid, pid, time);
}

static void aux(struct rec *r, uint64_t off, uint64_t size, uint64_t flags, uint64_t time)
{
	begin(r, PERF_RECORD_AUX, 0);
	put64(r, off);
	put64(r, size);
	put64(r, flags);
	end(r, 10, 11, time);
}

static struct replay_bundle *bundle(void)
{
	struct replay_bundle *b;

	assert_int_equal(replay_bundle_new(&b), 0);
	return b;
}

static void feed(struct stub_hwpt_sideband *s, struct rec *r)
{
	assert_int_equal(stub_hwpt_sideband_feed(s, r->b, r->n), 0);
}

/* ---- the parser ---- */

static void test_parse_mmap2_and_trailer(void **state)
{
	struct rec r;
	struct replay_perf_record pr;

	(void)state;
	mmap2(&r, 10, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC, "/bin/true", 500);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, NULL), (int)r.n);
	assert_int_equal(pr.type, PERF_RECORD_MMAP2);
	assert_int_equal(pr.u.mmap.addr, 0x400000);
	assert_int_equal(pr.u.mmap.prot, PROT_READ | PROT_EXEC);
	assert_string_equal(pr.u.mmap.filename, "/bin/true");
	assert_true(pr.sid.has_tid && pr.sid.has_time && pr.sid.has_cpu && pr.sid.has_id);
	assert_int_equal(pr.sid.tid, 10);
	assert_int_equal(pr.sid.time, 500);
	assert_int_equal(pr.sid.cpu, 3);
	assert_int_equal(pr.sid.id, 77);
	assert_int_equal(replay_perf_sid_size(&layout), 32);
}

static void test_parse_errors(void **state)
{
	struct rec r;
	struct replay_perf_record pr;
	const char *why;

	(void)state;
	mmap2(&r, 10, 0x400000, 0x1000, 0, PROT_EXEC, "/bin/true", 500);
	assert_int_equal(replay_perf_record_parse(r.b, 4, &layout, &pr, &why), -EAGAIN);
	assert_int_equal(replay_perf_record_parse(r.b, r.n - 1, &layout, &pr, &why), -EAGAIN);
	/* the filename's NUL cut off: shrink the record into its name */
	memcpy(r.b + 6, &(uint16_t){ 8 + 64 + 4 + 32 }, 2);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, &why), -EBADMSG);
	assert_string_equal(why, "record is too short for its fields");
	memcpy(r.b + 6, &(uint16_t){ 16 }, 2);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, &why), -EBADMSG);
	assert_string_equal(why, "record is too short for its sample_id trailer");
	memcpy(r.b + 6, &(uint16_t){ 0 }, 2);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, &why), -EBADMSG);
	assert_string_equal(why, "size is smaller than the record header");
}

static void test_parse_switch_and_task(void **state)
{
	struct rec r;
	struct replay_perf_record pr;

	(void)state;
	begin(&r, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	put32(&r, 20);
	put32(&r, 21);
	end(&r, 10, 11, 9);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, NULL), (int)r.n);
	assert_true(pr.u.sw.out);
	assert_int_equal(pr.u.sw.tid, 21);
	begin(&r, PERF_RECORD_FORK, 0);
	put32(&r, 10);
	put32(&r, 1);
	put32(&r, 12);
	put32(&r, 10);
	put64(&r, 99);
	end(&r, 10, 10, 99);
	assert_int_equal(replay_perf_record_parse(r.b, r.n, &layout, &pr, NULL), (int)r.n);
	assert_int_equal(pr.u.task.tid, 12);
	assert_string_equal(replay_perf_record_name(PERF_RECORD_ITRACE_START), "ITRACE_START");
	assert_string_equal(replay_perf_record_name(999), "unknown");
}

/* ---- into the bundle ---- */

static void test_exec_mappings_only(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	mmap2(&r, 10, 0x400000, 0x2000, 0, PROT_READ | PROT_EXEC, "/bin/prog", 100);
	feed(&s, &r);
	mmap2(&r, 10, 0x600000, 0x1000, 0x2000, PROT_READ | PROT_WRITE, "/bin/prog", 101);
	feed(&s, &r);
	mmap2(&r, 99, 0x700000, 0x1000, 0, PROT_EXEC, "/bin/other", 102);   /* not ours */
	feed(&s, &r);
	assert_int_equal(b->nmaps, 1);
	assert_int_equal(b->maps[0].start, 0x400000);
	assert_int_equal(b->maps[0].size, 0x2000);
	assert_int_equal(b->maps[0].time_map, 100);
	assert_int_equal(b->maps[0].time_unmap, REPLAY_TIME_NEVER);
	assert_string_equal(b->maps[0].file, "/bin/prog");
	assert_int_equal(s.records, 3);
	replay_bundle_free(b);
}

/* A mapping over the middle of another ends it; its two ends carry on. */
static void test_overlap_splits(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	mmap2(&r, 10, 0x10000, 0x4000, 0, PROT_EXEC, "/lib/a.so", 100);
	feed(&s, &r);
	mmap2(&r, 10, 0x11000, 0x1000, 0, PROT_EXEC, "/lib/b.so", 200);
	feed(&s, &r);
	assert_int_equal(b->nmaps, 4);
	assert_int_equal(b->maps[0].time_unmap, 200);
	assert_int_equal(b->maps[1].start, 0x10000);           /* a.so, before b.so */
	assert_int_equal(b->maps[1].size, 0x1000);
	assert_int_equal(b->maps[1].time_map, 200);
	assert_int_equal(b->maps[2].start, 0x12000);           /* a.so, after b.so */
	assert_int_equal(b->maps[2].size, 0x2000);
	assert_int_equal(b->maps[2].offset, 0x2000);
	assert_string_equal(b->maps[3].file, "/lib/b.so");
	replay_bundle_free(b);
}

static void test_exec_ends_mappings(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	mmap2(&r, 10, 0x400000, 0x1000, 0, PROT_EXEC, "/bin/sh", 100);
	feed(&s, &r);
	begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(&r, 10);
	put32(&r, 10);
	put(&r, "prog\0\0\0\0", 8);
	end(&r, 10, 10, 300);
	feed(&s, &r);
	assert_int_equal(b->maps[0].time_unmap, 300);
	replay_bundle_free(b);
}

static void test_vdso_is_image_missing(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	mmap2(&r, 10, 0x7fff0000, 0x2000, 0, PROT_EXEC, "[vdso]", 100);
	feed(&s, &r);
	mmap2(&r, 10, 0x7ffe0000, 0x1000, 0, PROT_EXEC, "//anon", 100);
	feed(&s, &r);
	assert_int_equal(b->nmaps, 0);
	assert_int_equal(b->ngaps, 2);
	assert_string_equal(b->gaps[0].kind, "image-missing");
	assert_string_equal(b->gaps[0].text, "[vdso] at 0x7fff0000 (8192 bytes) has no file");
	replay_bundle_free(b);
}

static void test_aux_flags_and_lost(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	aux(&r, 0, 0x1000, 0, 100);                            /* normal */
	feed(&s, &r);
	aux(&r, 0x1000, 0x1000, PERF_AUX_FLAG_OVERWRITE, 110); /* snapshot: no gap */
	feed(&s, &r);
	aux(&r, 0x2000, 0x800, PERF_AUX_FLAG_TRUNCATED, 120);
	feed(&s, &r);
	aux(&r, 0x2800, 0x800, PERF_AUX_FLAG_PARTIAL, 130);
	feed(&s, &r);
	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, 77);
	put64(&r, 5);
	end(&r, 10, 11, 140);
	feed(&s, &r);
	assert_int_equal(b->ngaps, 3);
	assert_string_equal(b->gaps[0].kind, "truncated");
	assert_int_equal(b->gaps[0].tid, 11);
	assert_int_equal(b->gaps[0].time, 120);
	assert_string_equal(b->gaps[0].text, "the AUX buffer was full: trace stopped after AUX "
			    "offset 0x2800 until it was drained");
	assert_string_equal(b->gaps[1].kind, "lost");
	assert_string_equal(b->gaps[2].text,
			    "5 sideband records lost: image changes may be missing");
	assert_int_equal(s.sb.truncated, 1);
	assert_int_equal(s.sb.lost_records, 5);
	replay_bundle_free(b);
}

static void test_exit_sets_end_time(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	begin(&r, PERF_RECORD_EXIT, 0);
	put32(&r, 10);
	put32(&r, 1);
	put32(&r, 10);
	put32(&r, 1);
	put64(&r, 900);
	end(&r, 10, 10, 900);
	feed(&s, &r);
	assert_int_equal(b->end_time, 900);
	replay_bundle_free(b);
}

/* The control page's conversion: perf time -> TSC is the inverse of the
 * kernel's TSC -> perf time. */
static void test_time_conversion(void **state)
{
	struct perf_event_mmap_page pg = { 0 };
	struct replay_perf_tconv tc;
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;
	uint64_t tsc = 0x123456789abcULL, t;

	(void)state;
	pg.cap_user_time_zero = 1;
	pg.time_shift = 31;
	pg.time_mult = 672770566;
	pg.time_zero = 18446744061102431664ULL;
	stub_hwpt_tconv_from_page(&pg, &tc);
	assert_true(tc.valid);
	t = replay_perf_tsc_to_time(&tc, tsc);
	assert_true(replay_perf_time_to_tsc(&tc, t) - tsc <= 1 ||
		    tsc - replay_perf_time_to_tsc(&tc, t) <= 1);
	stub_hwpt_sideband_init(&s, b, 10, &layout, &tc);
	mmap2(&r, 10, 0x400000, 0x1000, 0, PROT_EXEC, "/bin/prog", t);
	feed(&s, &r);
	assert_true(b->maps[0].time_map - tsc <= 1 || tsc - b->maps[0].time_map <= 1);
	mmap2(&r, 10, 0x500000, 0x1000, 0, PROT_EXEC, "/bin/lib", 0);   /* synthesized */
	feed(&s, &r);
	assert_int_equal(b->maps[1].time_map, 0);
	tc.valid = false;
	assert_int_equal(replay_perf_time_to_tsc(&tc, 1234), 1234);
	replay_bundle_free(b);
}

/* Records across the end of a DATA ring, drained and released. */
static void test_drain_ring(void **state)
{
	uint8_t data[256] = { 0 };
	uint64_t head, tail = 200;
	struct stub_hwpt_ring ring;
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;
	uint64_t pos = tail;

	(void)state;
	mmap2(&r, 10, 0x400000, 0x1000, 0, PROT_EXEC, "/bin/prog", 100);
	for (size_t i = 0; i < r.n; i++)
		data[(pos + i) % 256] = r.b[i];
	pos += r.n;
	aux(&r, 0, 0x10, PERF_AUX_FLAG_TRUNCATED, 150);
	for (size_t i = 0; i < r.n; i++)
		data[(pos + i) % 256] = r.b[i];
	pos += r.n;
	head = pos;
	assert_int_equal(stub_hwpt_ring_init(&ring, data, 256, &head, &tail), 0);
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	assert_int_equal(stub_hwpt_sideband_drain(&s, &ring), 2);
	assert_int_equal(tail, head);
	assert_int_equal(b->nmaps, 1);
	assert_int_equal(b->ngaps, 1);
	assert_int_equal(stub_hwpt_sideband_drain(&s, &ring), 0);
	/* an impossible header: the rest is dropped, as a gap */
	memset(data + (head % 256), 0, 8);
	head += 16;
	assert_int_equal(stub_hwpt_sideband_drain(&s, &ring), 0);
	assert_int_equal(tail, head);
	assert_int_equal(b->ngaps, 2);
	assert_string_equal(b->gaps[1].kind, "lost");
	replay_bundle_free(b);
}

/* The live recorder's vDSO copy stands for "[vdso]" mappings. */
static void test_vdso_file(void **state)
{
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct rec r;

	(void)state;
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	s.sb.vdso_file = "images/vdso-10.so";
	mmap2(&r, 10, 0x7fff0000, 0x2000, 0, PROT_EXEC, "[vdso]", 100);
	feed(&s, &r);
	assert_int_equal(b->nmaps, 1);
	assert_int_equal(b->ngaps, 0);
	assert_string_equal(b->maps[0].file, "images/vdso-10.so");
	assert_string_equal(b->maps[0].system_path, "[vdso]");
	assert_int_equal(b->maps[0].start, 0x7fff0000);
	assert_int_equal(b->maps[0].size, 0x2000);
	assert_int_equal(b->maps[0].offset, 0);
	replay_bundle_free(b);
}

/* Records of two rings applied by time; equal times keep ring order. */
static void test_batch_time_order(void **state)
{
	uint8_t d1[256] = { 0 }, d2[256] = { 0 };
	uint64_t h1 = 0, t1 = 0, h2 = 0, t2 = 0;
	struct stub_hwpt_ring r1, r2;
	struct replay_bundle *b = bundle();
	struct stub_hwpt_sideband s;
	struct stub_hwpt_batch bt;
	struct rec r;

	(void)state;
	mmap2(&r, 10, 0x1000, 0x1000, 0, PROT_EXEC, "/late", 300);
	memcpy(d1, r.b, r.n);
	h1 = r.n;
	mmap2(&r, 10, 0x1000, 0x1000, 0, PROT_EXEC, "/early", 100);
	memcpy(d2, r.b, r.n);
	h2 = r.n;
	mmap2(&r, 10, 0x1000, 0x1000, 0, PROT_EXEC, "/middle", 300);
	memcpy(d2 + h2, r.b, r.n);
	h2 += r.n;
	assert_int_equal(stub_hwpt_ring_init(&r1, d1, 256, &h1, &t1), 0);
	assert_int_equal(stub_hwpt_ring_init(&r2, d2, 256, &h2, &t2), 0);
	stub_hwpt_sideband_init(&s, b, 10, &layout, NULL);
	stub_hwpt_batch_init(&bt);
	assert_int_equal(stub_hwpt_sideband_take(&s, &r1, &bt), 1);
	assert_int_equal(stub_hwpt_sideband_take(&s, &r2, &bt), 2);
	assert_int_equal(t1, h1);
	assert_int_equal(t2, h2);
	assert_int_equal(b->nmaps, 0);
	assert_int_equal(stub_hwpt_sideband_apply(&s, &bt), 3);
	assert_int_equal(bt.n, 0);
	assert_int_equal(b->nmaps, 3);
	assert_string_equal(b->maps[0].file, "/early");
	assert_int_equal(b->maps[0].time_unmap, 300);
	assert_string_equal(b->maps[1].file, "/late");
	assert_int_equal(b->maps[1].time_unmap, 300);
	assert_string_equal(b->maps[2].file, "/middle");
	assert_int_equal(b->maps[2].time_unmap, REPLAY_TIME_NEVER);
	stub_hwpt_batch_release(&bt);
	replay_bundle_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_mmap2_and_trailer),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_switch_and_task),
		cmocka_unit_test(test_exec_mappings_only),
		cmocka_unit_test(test_overlap_splits),
		cmocka_unit_test(test_exec_ends_mappings),
		cmocka_unit_test(test_vdso_is_image_missing),
		cmocka_unit_test(test_aux_flags_and_lost),
		cmocka_unit_test(test_exit_sets_end_time),
		cmocka_unit_test(test_time_conversion),
		cmocka_unit_test(test_drain_ring),
		cmocka_unit_test(test_vdso_file),
		cmocka_unit_test(test_batch_time_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
