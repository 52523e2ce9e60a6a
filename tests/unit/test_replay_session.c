/*
 * tests/unit/test_replay_session.c: the one door into a recording
 * (replay/decode/session.h). An LLDB bundle and a real perf.data (HASE's loopy,
 * ../shared/ptdata, read where it is) open with what each want bit asks
 * for and decode as their origins say (SOURCES.md's 21 instructions; the
 * branches perf's own tools listed for loopy, and the PT payload extracted
 * from the perf.data by its origin); a missing path, a damaged bundle, a
 * cut perf.data, a recording without threads and an unreadable state log
 * give the errors a user reads.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "replay/decode/decode.h"
#include "replay/decode/session.h"
#include "replay/decode/timeline.h"

#define LLDB HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace"
#define LOOPY HINDSIGHT_SHARED "/ptdata/hase/skl-20180404-loopy/"
#define LOOPY_PERF LOOPY "loopy-20180404T162955.perf"
#define LOOPY_BIN LOOPY "loopy-20180404T162955.perf.aux-idx2-cpu2-tid19233.bin"
#define LOOPY_BRANCHES LOOPY "loopy-20180404T162955.trace.expected-branches"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_replay_session.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void write_file(const char *name, const void *data, size_t size)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	p = malloc(n ? (size_t)n : 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* The instruction addresses of thread 0 of @b. */
static size_t decode_ips(const struct replay_bundle *b, uint64_t *ips, size_t cap)
{
	struct replay_decoder *d;
	struct replay_item it;
	size_t n = 0;

	assert_int_equal(replay_decoder_new(b, 0, &d), 0);
	while (replay_decoder_next(d, &it) == 1)
		if (it.kind == REPLAY_ITEM_INSN && n < cap)
			ips[n++] = it.insn.ip;
	replay_decoder_free(d);
	return n;
}

static struct replay_session *open_ok(const char *path, unsigned want)
{
	struct replay_session *s = NULL;
	char err[512] = "";

	if (replay_session_open(path, want, &s, err, sizeof(err)) < 0)
		fail_msg("%s: %s", path, err);
	assert_non_null(s);
	return s;
}

/* Want nothing: the bundle only; then each piece when asked for. */
static void test_bundle_wants(void **state)
{
	static const uint64_t want[] = { 0x400511, 0x400518, 0x40051f, 0x400529, 0x40052d };
	struct replay_session *s = open_ok(LLDB, 0);
	uint64_t ips[64];
	char err[256];

	(void)state;
	assert_int_equal(s->have, 0);
	assert_int_equal(s->b->nthreads, 1);
	assert_null(s->img);
	assert_null(s->rodata);
	assert_null(s->st);
	assert_null(s->tl);
	assert_null(s->ds);
	assert_null(s->sym.lookup);
	assert_int_equal(replay_session_want(s, REPLAY_SESSION_IMAGES | REPLAY_SESSION_SYMBOLS,
					     err, sizeof(err)), 0);
	assert_non_null(s->img);
	assert_non_null(s->ds);
	assert_non_null(s->sym.lookup);
	assert_null(s->rodata);
	assert_null(s->tl);
	/* The timeline over no state log (an LLDB bundle has none). */
	assert_int_equal(replay_session_want(s, REPLAY_SESSION_TIMELINE, err, sizeof(err)), 0);
	assert_non_null(s->tl);
	assert_null(s->st);
	assert_true(s->have & REPLAY_SESSION_STATE);
	assert_non_null(replay_timeline_cursor(s->tl, 0));
	/* SOURCES.md: 21 instructions from 0x400511 */
	assert_int_equal(decode_ips(s->b, ips, 64), 21);
	assert_memory_equal(ips, want, sizeof(want));
	replay_session_free(s);
}

/* What the debugger targets ask for, at once. */
static void test_bundle_all(void **state)
{
	struct replay_session *s = open_ok(LLDB "/trace.json", REPLAY_SESSION_THREADS |
					   REPLAY_SESSION_ALL);

	(void)state;
	assert_int_equal(s->have, REPLAY_SESSION_THREADS | REPLAY_SESSION_ALL);
	assert_non_null(s->img);
	assert_non_null(s->rodata);
	assert_non_null(s->tl);
	assert_non_null(s->ds);
	replay_session_free(s);
	replay_session_free(NULL);
}

/* The branch targets perf's tools listed for loopy appear, in order,
 * among the instructions decoded from the perf.data opened directly. */
static void check_loopy_branches(const struct replay_bundle *b)
{
	static uint64_t ips[200000];
	size_t n = decode_ips(b, ips, sizeof(ips) / sizeof(ips[0])), at = 0, nbr = 0;
	FILE *f = fopen(LOOPY_BRANCHES, "r");
	uint64_t from, to;

	assert_non_null(f);
	assert_true(n > 0);
	while (fscanf(f, "%" SCNx64 " %" SCNx64, &from, &to) == 2) {
		nbr++;
		if (!to)
			continue;
		while (at < n && ips[at] != to)
			at++;
		if (at == n)
			fail_msg("branch %zu's target %#" PRIx64 " is not decoded", nbr, to);
	}
	fclose(f);
	assert_int_equal(nbr, 20);
}

/* A perf.data: a bundle in memory, its stream the payload the origin
 * extracted, its image found next to it; no state log. */
static void test_perf_data(void **state)
{
	struct replay_session *s;
	const struct replay_bundle_mem *m;
	size_t len;
	uint8_t *want;

	(void)state;
	if (access(LOOPY_PERF, R_OK) != 0)
		skip();
	s = open_ok(LOOPY_PERF, REPLAY_SESSION_THREADS | REPLAY_SESSION_IMAGES |
		    REPLAY_SESSION_TIMELINE);
	assert_string_equal(s->b->recorder, "perf");
	assert_string_equal(s->b->perf_file, LOOPY_PERF);
	assert_int_equal(s->b->nthreads, 1);
	assert_int_equal(s->b->threads[0].tid, 19233);
	assert_null(s->st);
	assert_non_null(s->tl);
	assert_null(s->ds);
	m = replay_bundle_mem_find(s->b, s->b->threads[0].pt_file);
	assert_non_null(m);
	want = slurp(LOOPY_BIN, &len);
	assert_int_equal(m->size, len);
	assert_memory_equal(m->data, want, len);
	free(want);
	check_loopy_branches(s->b);
	replay_session_free(s);
}

static void expect_error(const char *path, unsigned want, int code, const char *msg)
{
	struct replay_session *s = (struct replay_session *)1;
	char err[512] = "";

	assert_int_equal(replay_session_open(path, want, &s, err, sizeof(err)), code);
	assert_null(s);
	if (!strstr(err, msg))
		fail_msg("%s: \"%s\" does not say \"%s\"", path, err, msg);
}

static void test_missing(void **state)
{
	(void)state;
	expect_error("/nonexistent/recording", REPLAY_SESSION_ALL, -ENOENT,
		     "/nonexistent/recording/trace.json: No such file or directory");
}

static void test_corrupt_bundle(void **state)
{
	static const char text[] = "{\"type\": \"intel-pt\",\n \"processes\": [ oops ]}\n";

	(void)state;
	write_file("trace.json", text, strlen(text));
	expect_error(tmpdir, 0, -EINVAL, "trace.json:2: ");
}

/* A perf.data cut short: the reader's error, naming what is missing. */
static void test_cut_perf_data(void **state)
{
	char path[128];
	size_t len;
	uint8_t *f;

	(void)state;
	if (access(LOOPY_PERF, R_OK) != 0)
		skip();
	f = slurp(LOOPY_PERF, &len);
	assert_true(len > 200);
	write_file("cut.perf", f, 200);   /* the header and a little more */
	free(f);
	snprintf(path, sizeof(path), "%s/cut.perf", tmpdir);
	expect_error(path, REPLAY_SESSION_ALL, -EBADMSG, "cut.perf: data section at offset 0x28: ");
}

static void test_no_thread(void **state)
{
	static const char text[] = "{\"type\":\"intel-pt\",\"cpuInfo\":{"
		"\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,\"stepping\":1},"
		"\"processes\":[{\"pid\":1,"
		"\"threads\":[],\"modules\":[]}]}";
	struct replay_session *s;

	(void)state;
	write_file("trace.json", text, strlen(text));
	expect_error(tmpdir, REPLAY_SESSION_THREADS, -ENOENT, "the recording has no thread");
	s = open_ok(tmpdir, REPLAY_SESSION_IMAGES);   /* without THREADS: opens */
	assert_int_equal(s->b->nthreads, 0);
	replay_session_free(s);
}

/* A state log that is not one: STATE refuses it, STATE_LAX goes on
 * without it. */
static void test_bad_state_log(void **state)
{
	static const char text[] = "{\"type\":\"intel-pt\",\"cpuInfo\":{"
		"\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,\"stepping\":1},"
		"\"processes\":[{\"pid\":1,"
		"\"threads\":[{\"tid\":7,\"iptTrace\":\"" LLDB "/3842849.trace\"}]}],"
		"\"hindsight\":{\"version\":1,\"threads\":[{\"tid\":7,\"stateLog\":\"7.state\"}]}}";
	struct replay_session *s;

	(void)state;
	write_file("trace.json", text, strlen(text));
	write_file("7.state", "not a state log, not at all", 27);
	expect_error(tmpdir, REPLAY_SESSION_STATE, -EINVAL, "7.state: not a state log");
	expect_error(tmpdir, REPLAY_SESSION_TIMELINE, -EINVAL, "7.state: not a state log");
	s = open_ok(tmpdir, REPLAY_SESSION_STATE_LAX | REPLAY_SESSION_TIMELINE);
	assert_null(s->st);
	assert_non_null(s->tl);
	replay_session_free(s);
}

/* The state log and the timeline are made at once (on two threads): when
 * both fail the state log's error is the one said, as when one came after
 * the other; when only the timeline fails the state log stays set up. The
 * trace goes after the bundle is loaded (which refuses a missing one). */
static void test_state_and_trace_bad(void **state)
{
	static const char text[] = "{\"type\":\"intel-pt\",\"cpuInfo\":{"
		"\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,\"stepping\":1},"
		"\"processes\":[{\"pid\":1,"
		"\"threads\":[{\"tid\":7,\"iptTrace\":\"7.trace\"}]}],"
		"\"hindsight\":{\"version\":1,\"threads\":[{\"tid\":7,\"stateLog\":\"7.state\"}]}}";
	struct replay_session *s;
	char err[512] = "", trace[128];

	(void)state;
	write_file("trace.json", text, strlen(text));
	write_file("7.state", "not a state log, not at all", 27);
	write_file("7.trace", "not a trace", 11);
	s = open_ok(tmpdir, 0);
	snprintf(trace, sizeof(trace), "%s/7.trace", tmpdir);
	assert_int_equal(unlink(trace), 0);
	assert_int_equal(replay_session_want(s, REPLAY_SESSION_TIMELINE, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "7.state: not a state log"));
	assert_int_equal(s->have, 0);
	assert_int_equal(replay_session_want(s, REPLAY_SESSION_STATE_LAX | REPLAY_SESSION_TIMELINE,
					     err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, ": thread 7: No such file or directory"));
	assert_int_equal(s->have, REPLAY_SESSION_STATE_LAX);
	assert_null(s->st);
	assert_null(s->tl);
	replay_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_wants),
		cmocka_unit_test(test_bundle_all),
		cmocka_unit_test(test_perf_data),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_corrupt_bundle),
		cmocka_unit_test(test_cut_perf_data),
		cmocka_unit_test(test_no_thread),
		cmocka_unit_test(test_bad_state_log),
		cmocka_unit_test(test_state_and_trace_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
