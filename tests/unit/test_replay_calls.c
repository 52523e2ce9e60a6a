/*
 * tests/unit/test_replay_calls.c: ELF symbols and function segments on
 * LLDB's multi-file trace (main -> foo@plt -> foo -> bar@plt -> bar, with
 * a gap where the PLT enters ld.so's resolver, which the bundle lacks).
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
	struct replay_symbolizer sz;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_segments),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
