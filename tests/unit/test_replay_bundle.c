/*
 * tests/unit/test_replay_bundle.c: trace.json written and read back, LLDB's
 * bundles read as they are, and every way a manifest can be refused.
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

#define LLDB HINDSIGHT_SHARED "/ptdata/lldb"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_replay_bundle.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Loads @json as tmpdir/trace.json; returns the error and the text. */
static int load_text(const char *json, char *err, size_t size)
{
	struct replay_bundle *b = NULL;
	int rc;

	write_file("trace.json", json);
	rc = replay_bundle_load(tmpdir, &b, err, size);
	if (rc == 0)
		replay_bundle_free(b);
	else
		assert_null(b);
	return rc;
}

static void test_round_trip(void **state)
{
	struct replay_bundle *b, *c;
	struct replay_mapping m = { 0 };
	char *argv[] = { "/bin/true", "x y", NULL };
	char err[256];

	(void)state;
	write_file("1.pt", "");
	write_file("2.pt", "");
	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(replay_bundle_set_str(&b->recorder, "software"), 0);
	snprintf(b->cpu.vendor, sizeof(b->cpu.vendor), "GenuineIntel");
	b->cpu.family = 6;
	b->cpu.model = 142;
	b->cpu.stepping = 10;
	b->pid = 42;
	b->psb_period = 4096;
	b->ret_compression = true;
	b->complete = true;
	b->end_time = 123456;
	b->mtc_freq = 3;
	b->nom_freq = 4;
	b->cpuid_0x15_eax = 2;
	b->cpuid_0x15_ebx = 200;
	assert_int_equal(replay_bundle_set_str(&b->exit_kind, "signaled"), 0);
	b->exit_status = 11;
	assert_int_equal(replay_bundle_set_argv(b, argv), 0);
	assert_int_equal(replay_bundle_add_thread(b, 42, "1.pt"), 0);
	assert_int_equal(replay_bundle_add_thread(b, 43, "2.pt"), 1);
	b->threads[1].state_file = strdup("43.state");
	b->threads[1].instructions = 99;
	m.time_map = 0;
	m.time_unmap = REPLAY_TIME_NEVER;
	m.start = 0x400000;
	m.size = 0x1000;
	m.file = LLDB "/intelpt-trace/a.out";
	m.system_path = "/tmp/a.out";
	m.uuid = "abcdef";
	assert_int_equal(replay_bundle_add_mapping(b, &m), 0);
	m.time_map = 10;
	m.time_unmap = 20;
	m.start = 0xffffffffff600000ull;
	m.offset = 0x2000;
	m.file = "vdso.so";
	m.system_path = "[vdso]";
	m.uuid = NULL;
	assert_int_equal(replay_bundle_add_mapping(b, &m), 1);
	assert_int_equal(replay_bundle_add_gap(b, 43, 77, "lost", "3 packets lost"), 0);
	assert_int_equal(replay_bundle_save(b, tmpdir), 0);

	assert_int_equal(replay_bundle_load(tmpdir, &c, err, sizeof(err)), 0);
	assert_int_equal(c->version, REPLAY_BUNDLE_VERSION);
	assert_string_equal(c->recorder, "software");
	assert_string_equal(c->cpu.vendor, "GenuineIntel");
	assert_int_equal(c->cpu.model, 142);
	assert_int_equal(c->pid, 42);
	assert_int_equal(c->psb_period, 4096);
	assert_true(c->ret_compression);
	assert_true(c->complete);
	assert_int_equal(c->end_time, 123456);
	assert_int_equal(c->mtc_freq, 3);
	assert_int_equal(c->nom_freq, 4);
	assert_int_equal(c->cpuid_0x15_ebx, 200);
	assert_string_equal(c->exit_kind, "signaled");
	assert_int_equal(c->exit_status, 11);
	assert_string_equal(c->argv[1], "x y");
	assert_null(c->argv[2]);
	assert_int_equal(c->nthreads, 2);
	assert_string_equal(c->threads[1].pt_file, "2.pt");
	assert_string_equal(c->threads[1].state_file, "43.state");
	assert_int_equal(c->threads[1].instructions, 99);
	assert_null(c->threads[0].state_file);
	assert_int_equal(c->nmaps, 2);
	assert_int_equal(c->maps[0].time_unmap, REPLAY_TIME_NEVER);
	assert_string_equal(c->maps[0].uuid, "abcdef");
	assert_int_equal(c->maps[1].start, 0xffffffffff600000ull);
	assert_int_equal(c->maps[1].offset, 0x2000);
	assert_int_equal(c->maps[1].time_map, 10);
	assert_int_equal(c->maps[1].time_unmap, 20);
	assert_null(c->maps[1].uuid);
	assert_string_equal(c->maps[1].system_path, "[vdso]");
	assert_int_equal(c->ngaps, 1);
	assert_string_equal(c->gaps[0].text, "3 packets lost");
	assert_int_equal(c->gaps[0].time, 77);
	replay_bundle_free(c);
	replay_bundle_free(b);
}

/* LLDB's part of a saved bundle: modules with LLDB's loadAddress. */
static void test_save_lldb_modules(void **state)
{
	struct replay_bundle *b;
	struct replay_mapping m = { .time_unmap = REPLAY_TIME_NEVER };
	char path[256], text[4096];
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(replay_bundle_new(&b), 0);
	m.start = 0x7ffff7bd9000;
	m.size = 0x794;
	m.file = LLDB "/intelpt-trace-multi-file/libfoo.so";
	assert_int_equal(replay_bundle_add_mapping(b, &m), 0);
	assert_int_equal(replay_bundle_save(b, tmpdir), 0);
	snprintf(path, sizeof(path), "%s/trace.json", tmpdir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	assert_non_null(strstr(text, "\"loadAddress\": 140737349783552"));
	assert_non_null(strstr(text, "\"type\": \"intel-pt\""));
	snprintf(path, sizeof(path), "%s/trace.json.tmp", tmpdir);
	assert_int_equal(access(path, F_OK), -1);
	replay_bundle_free(b);
}

static void test_lldb_single(void **state)
{
	struct replay_bundle *b;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(LLDB "/intelpt-trace", &b, err, sizeof(err)), 0);
	assert_int_equal(b->version, 0);
	assert_string_equal(b->recorder, "lldb");
	assert_string_equal(b->cpu.vendor, "GenuineIntel");
	assert_int_equal(b->cpu.family, 6);
	assert_int_equal(b->cpu.model, 79);
	assert_int_equal(b->cpu.stepping, 1);
	assert_int_equal(b->pid, 1234);
	assert_int_equal(b->nthreads, 1);
	assert_int_equal(b->threads[0].tid, 3842849);
	assert_string_equal(b->threads[0].pt_file, "3842849.trace");
	assert_int_equal(b->nmaps, 1);
	assert_int_equal(b->maps[0].start, 0x400000);
	assert_int_equal(b->maps[0].offset, 0);
	assert_int_equal(b->maps[0].time_map, 0);
	assert_int_equal(b->maps[0].time_unmap, REPLAY_TIME_NEVER);
	assert_string_equal(b->maps[0].file, "a.out");
	replay_bundle_free(b);
}

static void test_lldb_multi_file(void **state)
{
	const char *dir = LLDB "/intelpt-trace-multi-file";
	struct replay_bundle *b;
	char err[256];

	(void)state;
	/* This bundle's manifest has another name; read it through a copy
	 * of the JSON in tmpdir that points back at the files. */
	assert_int_equal(replay_bundle_load(dir, &b, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "trace.json: No such file or directory"));
	write_file("trace.json",
		   "{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"GenuineIntel\",\"family\":6,"
		   "\"model\":79,\"stepping\":1},\"processes\":[{\"pid\":815455,\"threads\":"
		   "[{\"tid\":815455,\"iptTrace\":\"" LLDB "/intelpt-trace-multi-file/multi-file.trace\"}],"
		   "\"modules\":[{\"file\":\"" LLDB "/intelpt-trace-multi-file/a.out\",\"systemPath\":\"a.out\","
		   "\"loadAddress\":4194304},{\"file\":\"" LLDB "/intelpt-trace-multi-file/libfoo.so\","
		   "\"systemPath\":\"libfoo.so\",\"loadAddress\":140737349783552},{\"file\":\""
		   LLDB "/intelpt-trace-multi-file/libbar.so\",\"systemPath\":\"libbar.so\","
		   "\"loadAddress\":\"0x7ffff79d7000\"}]}]}");
	assert_int_equal(replay_bundle_load(tmpdir, &b, err, sizeof(err)), 0);
	assert_int_equal(b->nmaps, 3);
	assert_int_equal(b->maps[0].start, 0x400000);
	assert_int_equal(b->maps[1].start, 0x7ffff7bd9000);
	assert_int_equal(b->maps[1].size, 0x1000);    /* 0x794 bytes: whole pages */
	assert_int_equal(b->maps[2].start, 0x7ffff79d7000);
	replay_bundle_free(b);
}

static void test_lldb_two_threads(void **state)
{
	struct replay_bundle *b;
	char err[256];

	(void)state;
	write_file("trace.json",
		   "{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"GenuineIntel\",\"family\":6,"
		   "\"model\":79,\"stepping\":1},\"processes\":[{\"pid\":1,\"threads\":"
		   "[{\"tid\":1,\"iptTrace\":\"" LLDB "/intelpt-trace/3842849.trace\"},{\"tid\":2}],"
		   "\"modules\":[]}]}");
	assert_int_equal(replay_bundle_load(tmpdir, &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 2);
	assert_null(b->threads[1].pt_file);
	replay_bundle_free(b);
}

/* Per-cpu bundles load; the split itself is tested in test_replay_percpu.c. */
static void test_lldb_per_cpu_loads(void **state)
{
	struct replay_bundle *b;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load(LLDB "/intelpt-multi-core-trace", &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 3);
	replay_bundle_free(b);
}

struct bad_case {
	const char *json;
	int rc;
	const char *text;
};

#define CPU "\"cpuInfo\":{\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,\"stepping\":1}"
#define PROC(threads) "\"processes\":[{\"pid\":1,\"threads\":[" threads "]}]"
#define OKTHREAD "{\"tid\":1,\"iptTrace\":\"t.pt\"}"

static const struct bad_case bad[] = {
	{ "{\"type\": \"intel-pt\",\n  \"cpuInfo\": {,}", -EINVAL, "trace.json:2: " },
	{ "", -EINVAL, "trace.json:" },
	{ "[1]", -EINVAL, "the top level must be an object" },
	{ "{" CPU "," PROC(OKTHREAD) "}", -EINVAL, "top level: missing \"type\"" },
	{ "{\"type\":1," CPU "," PROC(OKTHREAD) "}", -EINVAL, "\"type\" must be a string, not an integer" },
	{ "{\"type\":\"perf\"," CPU "," PROC(OKTHREAD) "}", -EINVAL, "trace type \"perf\" is not supported" },
	{ "{\"type\":\"intel-pt\"," PROC(OKTHREAD) "}", -EINVAL, "missing \"cpuInfo\"" },
	{ "{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"GenuineIntel\",\"family\":\"six\",\"model\":1,"
	  "\"stepping\":1}," PROC(OKTHREAD) "}", -EINVAL, "cpuInfo: \"family\" must be a non-negative integer" },
	{ "{\"type\":\"intel-pt\"," CPU "}", -EINVAL, "missing \"processes\"" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC("{\"iptTrace\":\"t.pt\"}") "}", -EINVAL,
	  "processes[0].threads[0]: missing \"tid\"" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC("{\"tid\":1,\"iptTrace\":7}") "}", -EINVAL,
	  "\"iptTrace\" must be a string" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC("{\"tid\":1,\"iptTrace\":\"missing.pt\"}") "}", -ENOENT,
	  "missing.pt: No such file or directory" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":3}}", -EPROTONOSUPPORT,
	  "bundle format 3 is newer than this hindsight reads (1)" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{}}", -EINVAL,
	  "hindsight: missing \"version\"" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":1,\"mappings\":"
	  "[{\"start\":\"0x1000\",\"file\":\"x\"}]}}", -EINVAL, "mappings[0]: missing \"size\"" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":1,\"threads\":"
	  "[{\"tid\":5}]}}", -EINVAL, "thread 5 is not in processes[].threads" },
	{ "{\"type\":\"intel-pt\"," CPU ",\"processes\":[{\"pid\":1,\"threads\":[" OKTHREAD "],\"modules\":"
	  "[{\"file\":\"nothere\",\"systemPath\":\"nothere\",\"loadAddress\":0}]}]}", -ENOENT,
	  "nothere: No such file or directory" },
	{ "{\"type\":\"intel-pt\"," CPU ",\"processes\":[{\"pid\":1,\"threads\":[" OKTHREAD "],\"modules\":"
	  "[{\"file\":\"t.pt\",\"systemPath\":\"t\",\"loadAddress\":0}]}]}", -ENOEXEC,
	  "t.pt: not an ELF file" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"type\":\"intel-pt\"}", -EINVAL,
	  "duplicate object key" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":1,\"threads\":"
	  "[{\"tid\":1,\"segments\":[{\"file\":\"t.pt\",\"offset\":4,\"size\":4}]}]}}", -EINVAL,
	  "threads[0].segments[0]: bytes 0x4+0x4 are not inside t.pt (7 bytes)" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":1,\"threads\":"
	  "[{\"tid\":1,\"segments\":[{\"file\":\"t.pt\",\"offset\":0}]}]}}", -EINVAL,
	  "segments[0]: missing \"size\"" },
	/* Impossible thread lists: one thread listed twice (the same trace, or
	 * no trace), a trace that is two threads', more extra data than
	 * threads, a state log that is two threads'. */
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD "," OKTHREAD) "}", -EINVAL,
	  "processes[0].threads[1]: t.pt is the trace of thread 1 already" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC("{\"tid\":2,\"iptTrace\":\"t.pt\"}," OKTHREAD) "}",
	  -EINVAL, "processes[0].threads[1]: t.pt is the trace of thread 2 already" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC("{\"tid\":1},{\"tid\":1}") "}", -EINVAL,
	  "processes[0].threads[1]: thread 1 is listed twice" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD ",{\"tid\":1}") "}", -EINVAL,
	  "processes[0].threads[1]: thread 1 is listed twice" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) ",\"hindsight\":{\"version\":1,\"threads\":"
	  "[{\"tid\":1},{\"tid\":1}]}}", -EINVAL,
	  "hindsight.threads[1]: thread 1 is listed more times than in processes[].threads" },
	{ "{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD ",{\"tid\":2,\"iptTrace\":\"u.pt\"}")
	  ",\"hindsight\":{\"version\":1,\"threads\":[{\"tid\":1,\"stateLog\":\"s\"},"
	  "{\"tid\":2,\"stateLog\":\"s\"}]}}", -EINVAL,
	  "hindsight.threads[1]: s is the state log of thread 1 already" },
};

static void test_bad_manifests(void **state)
{
	char err[256];

	(void)state;
	write_file("t.pt", "not ELF");
	write_file("u.pt", "not ELF");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = load_text(bad[i].json, err, sizeof(err));

		if (rc != bad[i].rc || !strstr(err, bad[i].text))
			fail_msg("case %zu: got %d '%s', want %d '%s'", i, rc, err, bad[i].rc, bad[i].text);
		assert_null(strchr(err, '\n'));
	}
}

/* Per-cpu segments (an imported per-cpu thread) are saved in trace.json,
 * with the file LLDB reads as iptTrace, and read back as they were. */
static void test_segments_round_trip(void **state)
{
	struct replay_bundle *b, *c;
	struct replay_pt_segment g[2] = {
		{ .offset = 0, .size = 3, .cpu = 45, .tsc_start = 10, .tsc_end = 20 },
		{ .offset = 3, .size = 4, .cpu = 51, .tsc_start = 30, .tsc_end = UINT64_MAX },
	};
	char err[256] = "";

	(void)state;
	write_file("t.pt", "PSB PSB");
	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(replay_bundle_add_thread(b, 7, NULL), 0);
	b->threads[0].segs = calloc(2, sizeof(g[0]));
	assert_non_null(b->threads[0].segs);
	for (size_t i = 0; i < 2; i++) {
		b->threads[0].segs[i] = g[i];
		b->threads[0].segs[i].file = strdup("t.pt");
	}
	b->threads[0].nsegs = 2;
	assert_int_equal(replay_bundle_save(b, tmpdir), 0);
	replay_bundle_free(b);
	if (replay_bundle_load(tmpdir, &c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c->nthreads, 1);
	assert_null(c->threads[0].pt_file);
	assert_int_equal(c->threads[0].nsegs, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct replay_pt_segment *h = &c->threads[0].segs[i];

		assert_string_equal(h->file, "t.pt");
		assert_true(h->offset == g[i].offset && h->size == g[i].size && h->cpu == g[i].cpu &&
			    h->tsc_start == g[i].tsc_start && h->tsc_end == g[i].tsc_end);
	}
	/* saved again: the same (iptTrace from the segments' one file) */
	assert_int_equal(replay_bundle_save(c, tmpdir), 0);
	replay_bundle_free(c);
	if (replay_bundle_load(tmpdir, &c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c->threads[0].nsegs, 2);
	replay_bundle_free(c);
}

static void test_missing_manifest(void **state)
{
	struct replay_bundle *b;
	char err[256];

	(void)state;
	assert_int_equal(replay_bundle_load("/nonexistent/dir", &b, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/dir/trace.json: No such file or directory");
}

/* A tid used again (a thread gone, another given its number) is listed
 * twice, each time with its own trace; hindsight.threads gives each its
 * data in the same order. */
static void test_tid_used_again(void **state)
{
	struct replay_bundle *b = NULL;
	char err[256];

	(void)state;
	write_file("t.pt", "");
	write_file("u.pt", "");
	write_file("trace.json", "{\"type\":\"intel-pt\"," CPU ","
		   PROC(OKTHREAD ",{\"tid\":1,\"iptTrace\":\"u.pt\"}")
		   ",\"hindsight\":{\"version\":1,\"threads\":["
		   "{\"tid\":1,\"stateLog\":\"t.state\",\"instructions\":5},"
		   "{\"tid\":1,\"stateLog\":\"u.state\",\"instructions\":7}]}}");
	assert_int_equal(replay_bundle_load(tmpdir, &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 2);
	assert_string_equal(b->threads[0].pt_file, "t.pt");
	assert_string_equal(b->threads[0].state_file, "t.state");
	assert_int_equal(b->threads[0].instructions, 5);
	assert_string_equal(b->threads[1].pt_file, "u.pt");
	assert_string_equal(b->threads[1].state_file, "u.state");
	assert_int_equal(b->threads[1].instructions, 7);
	replay_bundle_free(b);
}

/* The recorders' file names: a tid used again gets files of its own. */
static void test_thread_file(void **state)
{
	struct replay_bundle *b = NULL;
	char name[64];

	(void)state;
	assert_int_equal(replay_bundle_new(&b), 0);
	replay_bundle_thread_file(b, 42, "pt", name, sizeof(name));
	assert_string_equal(name, "threads/42.pt");
	assert_int_equal(replay_bundle_add_thread(b, 42, name), 0);
	replay_bundle_thread_file(b, 43, "pt", name, sizeof(name));
	assert_string_equal(name, "threads/43.pt");
	assert_int_equal(replay_bundle_add_thread(b, 43, name), 1);
	replay_bundle_thread_file(b, 42, "pt", name, sizeof(name));
	assert_string_equal(name, "threads/42.2.pt");
	replay_bundle_free(b);
}

static void test_ok_minimal(void **state)
{
	char err[256];

	(void)state;
	write_file("t.pt", "");
	assert_int_equal(load_text("{\"type\":\"intel-pt\"," CPU "," PROC(OKTHREAD) "}", err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_save_lldb_modules),
		cmocka_unit_test(test_lldb_single),
		cmocka_unit_test(test_lldb_multi_file),
		cmocka_unit_test(test_lldb_two_threads),
		cmocka_unit_test(test_lldb_per_cpu_loads),
		cmocka_unit_test(test_bad_manifests),
		cmocka_unit_test(test_segments_round_trip),
		cmocka_unit_test(test_missing_manifest),
		cmocka_unit_test(test_tid_used_again),
		cmocka_unit_test(test_thread_file),
		cmocka_unit_test(test_ok_minimal),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
