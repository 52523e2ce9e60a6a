/*
 * tests/unit/test_replay_calls.c: ELF symbols and function segments on
 * LLDB's multi-file trace (main -> foo@plt -> foo -> bar@plt -> bar, with
 * a gap where the PLT enters ld.so's resolver, which the bundle lacks);
 * and any range of segments listed from marks (replay_calls_range) equal
 * to the same segments of the whole walk, on the real traces of
 * ../shared/ptdata with their DWARF symbols.
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
#include "replay/decode/calls.h"
#include "replay/decode/decode.h"
#include "replay/decode/session.h"
#include "replay/decode/symbols.h"

#define MF HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace-multi-file"

static char tmpdir[64];
static struct replay_bundle *bundle;

static int setup(void **state)
{
	char path[128], err[256];
	FILE *f;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_replay_calls.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/trace.json", tmpdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,"
	      "\"stepping\":1},\"processes\":[{\"pid\":1,\"threads\":[{\"tid\":1,\"iptTrace\":\""
	      MF "/multi-file.trace\"}],\"modules\":["
	      "{\"file\":\"" MF "/a.out\",\"systemPath\":\"a.out\",\"loadAddress\":4194304},"
	      "{\"file\":\"" MF "/libfoo.so\",\"systemPath\":\"libfoo.so\",\"loadAddress\":140737349783552},"
	      "{\"file\":\"" MF "/libbar.so\",\"systemPath\":\"libbar.so\",\"loadAddress\":140737347678208}]}]}",
	      f);
	fclose(f);
	return replay_bundle_load(tmpdir, &bundle, err, sizeof(err));
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	replay_bundle_free(bundle);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void test_symbols(void **state)
{
	struct replay_symbols *s;
	struct replay_symbol sym;

	(void)state;
	assert_int_equal(replay_symbols_new(bundle, &s), 0);
	assert_int_equal(replay_symbols_lookup(s, 0x40066f, &sym), 0);
	assert_string_equal(sym.function, "main");
	assert_int_equal(sym.start, 0x400660);
	/* libfoo.so at its load address, C++ name demangled. */
	assert_int_equal(replay_symbols_lookup(s, 0x7ffff7bd96e4, &sym), 0);
	assert_string_equal(sym.function, "foo()");
	assert_int_equal(sym.start, 0x7ffff7bd96e0);
	assert_int_equal(replay_symbols_lookup(s, 0x7ffff79d7694, &sym), 0);
	assert_string_equal(sym.function, "bar()");
	/* The PLT has no symbol; ld.so is not in the bundle. */
	assert_int_equal(replay_symbols_lookup(s, 0x400540, &sym), -ENOENT);
	assert_int_equal(replay_symbols_lookup(s, 0x7ffff7df1950, &sym), -ENOENT);
	replay_symbols_free(s);
}

static void test_segments(void **state)
{
	static const struct {
		const char *function;
		int level;
		uint64_t first, last;
		bool gap;
	} want[] = {
		{ "main", 0, 1, 1, false },
		{ NULL, 1, 2, 6, false },        /* foo@plt, then the resolver stub */
		{ NULL, 1, 7, 7, true },         /* no memory mapped at 0x7ffff7df1950 */
		{ "main", 1, 8, 20, false },
		{ NULL, 2, 21, 21, false },      /* foo@plt */
		{ "foo()", 2, 22, 25, false },
		{ NULL, 3, 26, 26, false },      /* bar@plt */
		{ "bar()", 3, 27, 35, false },
		{ "foo()", 2, 36, 43, false },
		{ "main", 1, 44, 46, false },
	};
	struct replay_calls calls = { 0 };
	struct replay_symbolizer sz = { 0 };
	struct replay_symbols *s;
	struct replay_decoder *d;

	(void)state;
	assert_int_equal(replay_symbols_new(bundle, &s), 0);
	sz.lookup = replay_symbols_lookup;
	sz.ctx = s;
	assert_int_equal(replay_decoder_new(bundle, 0, &d), 0);
	assert_int_equal(replay_calls_build(&calls, d, &sz, NULL, NULL), 0);
	assert_int_equal(calls.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < calls.n; i++) {
		const struct replay_segment *g = &calls.segs[i];

		if (want[i].function)
			assert_string_equal(g->function, want[i].function);
		else
			assert_null(g->function);
		assert_int_equal(g->level, want[i].level);
		assert_int_equal(g->first, want[i].first);
		assert_int_equal(g->last, want[i].last);
		assert_int_equal(g->gap, want[i].gap);
	}
	assert_string_equal(calls.segs[2].text, "no memory mapped at this address");
	replay_calls_release(&calls);
	replay_decoder_free(d);
	replay_symbols_free(s);
}

static void same_segment(const struct replay_segment *a, const struct replay_segment *b)
{
	assert_int_equal(a->level, b->level);
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->last, b->last);
	assert_ptr_equal(a->function, b->function);
	assert_int_equal(a->start, b->start);
	assert_ptr_equal(a->file, b->file);
	assert_int_equal(a->line_min, b->line_min);
	assert_int_equal(a->line_max, b->line_max);
	assert_int_equal(a->gap, b->gap);
	assert_int_equal(a->error, b->error);
	assert_ptr_equal(a->text, b->text);
}

/* Segments @begin..@end from @mk against @all's. */
static void check_range(const struct replay_calls *all, const struct replay_calls_marks *mk,
			struct replay_decoder *d, const struct replay_symbolizer *sym,
			uint64_t begin, uint64_t end)
{
	struct replay_calls part = { 0 };

	assert_int_equal(replay_calls_range(&part, mk, d, sym, begin, end), 0);
	assert_int_equal(part.n, end - begin + 1);
	for (uint64_t i = begin; i <= end; i++)
		same_segment(&part.segs[i - begin], &all->segs[i - 1]);
	replay_calls_release(&part);
}

/* Every thread of @path (at most 4): the marks count what the whole walk
 * finds, and ranges from them (all of them on a short history; the
 * marks' edges and random ones on a long one) are its segments. */
static void ranges_of(const char *path)
{
	static const uint64_t everies[] = { 1, 3, 64, REPLAY_CALLS_MARK_EVERY };
	struct replay_session *s = NULL;
	char err[512] = "";
	unsigned seed = 1;
	size_t longest = 0;

	if (replay_session_open(path, REPLAY_SESSION_SYMBOLS, &s, err, sizeof(err)) < 0)
		fail_msg("%s: %s", path, err);
	for (size_t t = 0; t < s->b->nthreads && t < 4; t++) {
		struct replay_calls all = { 0 };
		struct replay_decoder *d;

		assert_int_equal(replay_decoder_new(s->b, t, &d), 0);
		assert_int_equal(replay_calls_build(&all, d, &s->sym, NULL, NULL), 0);
		if (all.n > longest)
			longest = all.n;
		for (size_t e = 0; e < sizeof(everies) / sizeof(everies[0]); e++) {
			struct replay_calls_marks mk = { .every = everies[e] };
			int64_t min = 0;

			assert_int_equal(replay_decoder_rewind(d), 0);
			assert_int_equal(replay_calls_marks_build(&mk, d, &s->sym, NULL, NULL), 0);
			assert_int_equal(mk.nsegs, all.n);
			for (size_t i = 0; i < all.n; i++)
				if (all.segs[i].level == 0)
					min = 1;
			assert_int_equal(min, all.n ? 1 : 0);   /* the least level is 0 */
			if (all.n <= 40) {
				for (uint64_t b = 1; b <= all.n; b++)
					for (uint64_t x = b; x <= all.n; x++)
						check_range(&all, &mk, d, &s->sym, b, x);
			} else {
				check_range(&all, &mk, d, &s->sym, 1, all.n);
				for (size_t k = 0; k < mk.n; k++) {
					uint64_t at = mk.m[k].number;

					check_range(&all, &mk, d, &s->sym, at, at);
					if (at > 1)
						check_range(&all, &mk, d, &s->sym, at - 1, at);
				}
				for (int k = 0; k < 200; k++) {
					uint64_t b = 1 + (uint64_t)rand_r(&seed) % all.n;
					uint64_t x = b + (uint64_t)rand_r(&seed) % 50;

					check_range(&all, &mk, d, &s->sym, b, x < all.n ? x : all.n);
				}
			}
			/* Out of the history. */
			struct replay_calls none = { 0 };
			assert_int_equal(replay_calls_range(&none, &mk, d, &s->sym, 0, 1), -ENOENT);
			assert_int_equal(replay_calls_range(&none, &mk, d, &s->sym, 1, all.n + 1),
					 -ENOENT);
			replay_calls_release(&none);
			replay_calls_marks_release(&mk);
		}
		replay_calls_release(&all);
		replay_decoder_free(d);
	}
	printf("  %s: %zu threads, up to %zu segments\n", path, s->b->nthreads, longest);
	replay_session_free(s);
}

static void test_ranges(void **state)
{
	(void)state;
	ranges_of(tmpdir);          /* the multi-file trace (setup) */
	ranges_of(HINDSIGHT_SHARED "/ptdata/lldb/intelpt-multi-core-trace");
	ranges_of(HINDSIGHT_SHARED "/ptdata/hase/skl-20180404-loopy/loopy-20180404T162955.perf");
	ranges_of(HINDSIGHT_SHARED "/ptdata/hase/skl-20180404-control_flow/"
		  "control_flow-20180404T163033.perf");
}

/* Marks kept in a file come back as they were, for their key only; a
 * file with any bit flipped, or cut anywhere, is never taken. */
static void test_marks_file(void **state)
{
	struct replay_calls_marks mk = { .every = 1 }, back = { 0 };
	struct replay_session *s = NULL;
	struct replay_decoder *d;
	char path[128], err[256];
	unsigned char *bytes;
	long size;
	FILE *f;

	(void)state;
	assert_int_equal(replay_session_open(tmpdir, REPLAY_SESSION_SYMBOLS, &s, err, sizeof(err)), 0);
	assert_int_equal(replay_decoder_new(s->b, 0, &d), 0);
	assert_int_equal(replay_calls_marks_build(&mk, d, &s->sym, NULL, NULL), 0);
	assert_true(mk.n > 5);
	snprintf(path, sizeof(path), "%s/marks", tmpdir);
	assert_int_equal(replay_calls_marks_load(&back, 42, path), -ENOENT);   /* none yet */
	assert_int_equal(replay_calls_marks_save(&mk, 42, path), 0);
	assert_int_equal(replay_calls_marks_load(&back, 41, path), -ENOENT);   /* another key */
	assert_int_equal(replay_calls_marks_load(&back, 42, path), 0);
	assert_int_equal(back.n, mk.n);
	assert_int_equal(back.nsegs, mk.nsegs);
	assert_int_equal(back.every, mk.every);
	assert_int_equal(back.min_level, mk.min_level);
	assert_memory_equal(back.m, mk.m, mk.n * sizeof(*mk.m));
	replay_calls_marks_release(&back);

	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	bytes = malloc((size_t)size);
	assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	for (long at = 0; at < size; at++) {
		for (int flip = 0; flip < 2; flip++) {
			f = fopen(path, "wb");
			if (flip)
				bytes[at] ^= 1u << (at % 8);
			/* Flipped at @at, or cut there. */
			fwrite(bytes, 1, (size_t)(flip ? size : at), f);
			fclose(f);
			if (flip)
				bytes[at] ^= 1u << (at % 8);
			assert_true(replay_calls_marks_load(&back, 42, path) < 0);
			assert_null(back.m);
		}
	}
	free(bytes);
	replay_calls_marks_release(&mk);
	replay_decoder_free(d);
	replay_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_marks_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
