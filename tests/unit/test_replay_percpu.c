/*
 * tests/unit/test_replay_percpu.c: LLDB's per-cpu bundle
 * (intelpt-multi-core-trace) split into threads by its context-switch
 * records, against the per-thread results in
 * /work/shared/ptdata/lldb/SOURCES.md §3; the context-switch record reader
 * on a software-made table; trace_missing_threads.json (threads found in
 * the records are added, in LLDB's order).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/model/percpu.h"

#define MC HINDSIGHT_SHARED "/ptdata/lldb/intelpt-multi-core-trace"

struct summary {
	uint64_t ninsn, ngaps;
	uint64_t first_ip, last_ip;
	const char *last_gap;
};

static void decode_thread(const struct replay_bundle *b, size_t t, struct summary *s)
{
	struct replay_decoder *d;
	struct replay_item it;

	memset(s, 0, sizeof(*s));
	assert_int_equal(replay_decoder_new(b, t, &d), 0);
	while (replay_decoder_next(d, &it) == 1) {
		if (it.kind == REPLAY_ITEM_GAP) {
			s->ngaps++;
			s->last_gap = it.text;
			continue;
		}
		if (!s->ninsn)
			s->first_ip = it.insn.ip;
		s->last_ip = it.insn.ip;
		s->ninsn++;
	}
	replay_decoder_free(d);
}

static size_t thread_of(const struct replay_bundle *b, int64_t tid)
{
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == tid)
			return i;
	fail_msg("no thread %lld", (long long)tid);
	return 0;
}

/* Segments: 5 PSB blocks, 3 owned (LLDB: "5 PSB blocks"). */
static void test_segments(void **state)
{
	struct replay_bundle *b;
	char err[256];
	const struct replay_thread *t;

	(void)state;
	assert_int_equal(replay_bundle_load(MC, &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 3);
	assert_int_equal(b->threads[thread_of(b, 3497234)].nsegs, 0);
	t = &b->threads[thread_of(b, 3497496)];
	assert_int_equal(t->nsegs, 1);
	assert_int_equal(t->segs[0].cpu, 51);
	assert_int_equal(t->segs[0].offset, 0x1331);
	assert_int_equal(t->segs[0].size, 825);
	/* SOURCES.md: "maximum TSC value 40450075477704372" */
	assert_true(t->segs[0].tsc_end == 40450075477704372ULL);
	t = &b->threads[thread_of(b, 3497497)];
	assert_int_equal(t->nsegs, 2);
	assert_int_equal(t->segs[0].cpu, 45);
	assert_int_equal(t->segs[0].offset, 0x2b0);
	assert_int_equal(t->segs[1].offset, 0xa28);
	replay_bundle_free(b);
}

/* foo(): starts at the sync point 0x1331 at m.out`foo()+65 (0x400ba7),
 * 19521 instructions (LLDB's items 4..19524), the last 0x400ba7 `jg`, then
 * "decoding truncated" (the thread's execution on cpu 51 ended). */
static void test_thread_foo(void **state)
{
	struct replay_bundle *b;
	struct summary s;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(MC, &b, err, sizeof(err)), 0);
	decode_thread(b, thread_of(b, 3497496), &s);
	assert_int_equal(s.ninsn, 19521);
	assert_int_equal(s.first_ip, 0x400ba7);
	assert_int_equal(s.last_ip, 0x400ba7);
	assert_int_equal(s.ngaps, 1);
	assert_non_null(strstr(s.last_gap, "decoding truncated"));
	replay_bundle_free(b);
}

/* bar(): cpu 45's blocks 0x2b0 and 0xa28; ends at 0x400bd7 `addl` (LLDB's
 * last instruction), then "decoding truncated". The count is ours: LLDB's
 * item ids count events too (see docs/bundle.md). */
static void test_thread_bar(void **state)
{
	struct replay_bundle *b;
	struct summary s;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(MC, &b, err, sizeof(err)), 0);
	decode_thread(b, thread_of(b, 3497497), &s);
	assert_int_equal(s.first_ip, 0x400bdb);
	assert_int_equal(s.last_ip, 0x400bd7);
	assert_int_equal(s.ninsn, 61829);
	assert_int_equal(s.ngaps, 1);
	assert_non_null(strstr(s.last_gap, "decoding truncated"));
	replay_bundle_free(b);
}

/* The main thread never ran while traced: 0 items. */
static void test_thread_main_empty(void **state)
{
	struct replay_bundle *b;
	struct summary s;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(MC, &b, err, sizeof(err)), 0);
	decode_thread(b, thread_of(b, 3497234), &s);
	assert_int_equal(s.ninsn + s.ngaps, 0);
	replay_bundle_free(b);
}

/* Only the main thread listed: the others come from the switch records,
 * bar's thread first (cpu 45 is read first), as LLDB numbers them (#2
 * 3497497, #3 3497496), with the same histories. */
static void test_missing_threads(void **state)
{
	struct replay_bundle *b;
	struct summary s;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(MC "/trace_missing_threads.json", &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 3);
	assert_int_equal(b->threads[0].tid, 3497234);
	assert_int_equal(b->threads[1].tid, 3497497);
	assert_int_equal(b->threads[2].tid, 3497496);
	decode_thread(b, 2, &s);
	assert_int_equal(s.ninsn, 19521);
	decode_thread(b, 1, &s);
	assert_int_equal(s.ninsn, 61829);
	replay_bundle_free(b);
}

/* Software-made records: in A, out A (complete); in B, in C (B hinted
 * end); out D after in C (C hinted end, D hinted start); a last in E. */
static void put_switch(uint8_t *p, int out, uint32_t tid, uint64_t time)
{
	uint32_t type = 15, pid = 7;
	uint16_t misc = out ? 1u << 13 : 0, size = 32;

	memset(p, 0, 32);
	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size, 2);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &tid, 4);
	memcpy(p + 24, &time, 8);
}

static void test_switch_records(void **state)
{
	static const struct { int out; uint32_t tid; uint64_t t; } rec[] = {
		{ 0, 1, 10 }, { 1, 1, 20 }, { 0, 2, 30 }, { 0, 3, 40 }, { 1, 4, 50 }, { 0, 5, 60 },
	};
	static const struct { enum replay_percpu_kind k; int64_t tid; uint64_t s, e; } want[] = {
		{ REPLAY_EXEC_COMPLETE, 1, 10, 20 },
		{ REPLAY_EXEC_HINTED_END, 2, 30, 39 },
		{ REPLAY_EXEC_HINTED_END, 3, 40, 49 },
		{ REPLAY_EXEC_HINTED_START, 4, 41, 50 },
		{ REPLAY_EXEC_ONLY_START, 5, 60, UINT64_MAX },
	};
	uint8_t buf[6 * 32];
	struct replay_percpu_exec *ex;
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < 6; i++)
		put_switch(buf + 32 * i, rec[i].out, rec[i].tid, rec[i].t);
	assert_int_equal(replay_percpu_switches(buf, sizeof(buf), NULL, &ex, &bad), 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(ex[i].kind, want[i].k);
		assert_int_equal(ex[i].tid, want[i].tid);
		assert_true(ex[i].start == want[i].s && ex[i].end == want[i].e);
	}
	free(ex);
	/* Time going backwards, and a truncated record: malformed. */
	put_switch(buf + 32, 1, 1, 5);
	assert_int_equal(replay_percpu_switches(buf, sizeof(buf), NULL, &ex, &bad), -EINVAL);
	assert_int_equal(bad, 32);
	assert_int_equal(replay_percpu_switches(buf, 40, NULL, &ex, &bad), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_thread_foo),
		cmocka_unit_test(test_thread_bar),
		cmocka_unit_test(test_thread_main_empty),
		cmocka_unit_test(test_missing_threads),
		cmocka_unit_test(test_switch_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
