/*
 * tests/unit/test_replay_decode.c: decoding LLDB's real Intel PT traces
 * (the expected sequences are in /work/shared/ptdata/lldb/SOURCES.md and
 * the ref-libipt-2.0.5 ptxed outputs), the index's random access, and bad
 * traces that must give gaps, not crashes.
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
#include <intel-pt.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/decode/index.h"

#define LLDB HINDSIGHT_SHARED "/ptdata/lldb"
#define MF LLDB "/intelpt-trace-multi-file"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_replay_decode.XXXXXX");
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

static void write_manifest(const char *pt, const char *cpu)
{
	char json[2048];

	snprintf(json, sizeof(json),
		 "{\"type\":\"intel-pt\",\"cpuInfo\":{%s},\"processes\":[{\"pid\":1,\"threads\":"
		 "[{\"tid\":1,\"iptTrace\":\"%s\"}],\"modules\":["
		 "{\"file\":\"" MF "/a.out\",\"systemPath\":\"a.out\",\"loadAddress\":4194304},"
		 "{\"file\":\"" MF "/libfoo.so\",\"systemPath\":\"libfoo.so\",\"loadAddress\":140737349783552},"
		 "{\"file\":\"" MF "/libbar.so\",\"systemPath\":\"libbar.so\",\"loadAddress\":140737347678208}]}]}",
		 cpu, pt);
	write_file("trace.json", json, strlen(json));
}

#define CPU_BDW "\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":79,\"stepping\":1"

static struct replay_bundle *load(const char *dir)
{
	struct replay_bundle *b;
	char err[256];

	if (replay_bundle_load(dir, &b, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return b;
}

/* All items of thread 0: addresses of instructions, 0 for gaps. */
static size_t decode_all(struct replay_bundle *b, uint64_t *addrs, size_t max,
			 struct replay_item *gaps, size_t *ngaps)
{
	struct replay_decoder *d;
	struct replay_item it;
	size_t n = 0;

	assert_int_equal(replay_decoder_new(b, 0, &d), 0);
	*ngaps = 0;
	while (replay_decoder_next(d, &it) == 1) {
		assert_true(n < max);
		assert_int_equal(it.index, n + 1);
		if (it.kind == REPLAY_ITEM_GAP) {
			gaps[(*ngaps)++] = it;
			addrs[n++] = 0;
		} else {
			assert_true(it.insn.size > 0);
			addrs[n++] = it.insn.ip;
		}
	}
	replay_decoder_free(d);
	return n;
}

static const uint64_t single[] = {
	0x400511, 0x400518, 0x40051f,
	0x400529, 0x40052d, 0x400521, 0x400525, 0x400529, 0x40052d, 0x400521, 0x400525,
	0x400529, 0x40052d, 0x400521, 0x400525, 0x400529, 0x40052d, 0x400521, 0x400525,
	0x400529, 0x40052d,
};

static void test_single_thread(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");
	struct replay_item gaps[4];
	uint64_t addrs[64];
	size_t ngaps, n;

	(void)state;
	n = decode_all(b, addrs, 64, gaps, &ngaps);
	assert_int_equal(n, 21);
	assert_int_equal(ngaps, 0);
	assert_memory_equal(addrs, single, sizeof(single));
	replay_bundle_free(b);
}

static const uint64_t multi[] = {
	0x40066f, 0x400540, 0x400546, 0x40054b, 0x400510, 0x400516,
	0, /* no memory mapped at 0x7ffff7df1950 (ld.so's resolver) */
	0x400674, 0x400677, 0x40067a, 0x40067f, 0x400682, 0x400689, 0x40068c, 0x400691, 0x400694,
	0x400697, 0x40069a, 0x40069c, 0x40069f, 0x400540,
	0x7ffff7bd96e0, 0x7ffff7bd96e1, 0x7ffff7bd96e4, 0x7ffff7bd96e8, 0x7ffff7bd95d0,
	0x7ffff79d7690, 0x7ffff79d7691, 0x7ffff79d7694, 0x7ffff79d769b, 0x7ffff79d769e,
	0x7ffff79d76a3, 0x7ffff79d76a6, 0x7ffff79d76a9, 0x7ffff79d76aa,
	0x7ffff7bd96ed, 0x7ffff7bd96f0, 0x7ffff7bd96f3, 0x7ffff7bd96f8, 0x7ffff7bd96fb,
	0x7ffff7bd96fe, 0x7ffff7bd9702, 0x7ffff7bd9703,
	0x4006a4, 0x4006a7, 0x4006a9,
};

static void test_multi_file(void **state)
{
	struct replay_bundle *b;
	struct replay_item gaps[4];
	uint64_t addrs[64];
	size_t ngaps, n;

	(void)state;
	write_manifest(MF "/multi-file.trace", CPU_BDW);
	b = load(tmpdir);
	n = decode_all(b, addrs, 64, gaps, &ngaps);
	assert_int_equal(n, 46);
	assert_int_equal(ngaps, 1);
	assert_memory_equal(addrs, multi, sizeof(multi));
	assert_string_equal(gaps[0].text, "no memory mapped at this address");
	assert_true(gaps[0].has_addr);
	assert_int_equal(gaps[0].addr, 0x7ffff7df1950);
	assert_int_equal(gaps[0].index, 7);
	replay_bundle_free(b);
}

/* Every item reached through the index is the one sequential decoding
 * gives, in any order. */
static void check_random_access(struct replay_bundle *b)
{
	struct replay_index idx = { 0 };
	struct replay_decoder *d;
	struct replay_item gaps[8], it;
	uint64_t addrs[128];
	size_t ngaps, n;

	n = decode_all(b, addrs, 128, gaps, &ngaps);
	assert_int_equal(replay_index_build(&idx, b, 0, NULL, NULL), 0);
	assert_int_equal(idx.nitems, n);
	assert_int_equal(idx.ngaps, ngaps);
	assert_true(idx.nentries >= 1);
	assert_int_equal(replay_decoder_new(b, 0, &d), 0);
	for (size_t k = 0; k < 2 * n; k++) {
		uint64_t i = k < n ? n - k : (k * 7) % n + 1;

		assert_int_equal(replay_index_seek(&idx, d, i), 0);
		assert_int_equal(replay_decoder_next(d, &it), 1);
		assert_int_equal(it.index, i);
		if (addrs[i - 1])
			assert_int_equal(it.insn.ip, addrs[i - 1]);
		else
			assert_int_equal(it.kind, REPLAY_ITEM_GAP);
	}
	assert_int_equal(replay_index_seek(&idx, d, n + 1), -ENOENT);
	assert_int_equal(replay_index_seek(&idx, d, 0), -ENOENT);
	replay_decoder_free(d);
	replay_index_release(&idx);
}

static void test_index_single(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");

	(void)state;
	check_random_access(b);
	replay_bundle_free(b);
}

static void test_index_multi(void **state)
{
	struct replay_bundle *b;

	(void)state;
	write_manifest(MF "/multi-file.trace", CPU_BDW);
	b = load(tmpdir);
	check_random_access(b);
	replay_bundle_free(b);
}

static void read_all(const char *path, uint8_t *buf, size_t *size)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	*size = fread(buf, 1, *size, f);
	fclose(f);
}

/* Every truncation of a real trace decodes to a prefix of it and gaps,
 * without crashing. */
static void test_truncated(void **state)
{
	static uint8_t pt[4096];
	struct replay_bundle *b;
	struct replay_item gaps[16];
	uint64_t addrs[128];
	size_t size = sizeof(pt), ngaps, n;

	(void)state;
	read_all(MF "/multi-file.trace", pt, &size);
	for (size_t cut = 0xe00; cut < size; cut += 3) {
		write_file("cut.pt", pt, cut);
		write_manifest("cut.pt", CPU_BDW);
		b = load(tmpdir);
		n = decode_all(b, addrs, 128, gaps, &ngaps);
		assert_true(n <= 60);
		replay_bundle_free(b);
	}
	/* Cut inside the last PSB+: what came before is still there. */
	write_file("cut.pt", pt, 0xfe0);
	write_manifest("cut.pt", CPU_BDW);
	b = load(tmpdir);
	n = decode_all(b, addrs, 128, gaps, &ngaps);
	assert_true(n >= 7);
	assert_memory_equal(addrs, multi, 6 * sizeof(uint64_t));
	replay_bundle_free(b);
}

static void test_garbage(void **state)
{
	uint8_t junk[4096];
	struct replay_bundle *b;
	struct replay_item gaps[16];
	uint64_t addrs[1024];
	size_t ngaps;
	unsigned seed = 1;

	(void)state;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(rand_r(&seed) >> 7);
	/* A PSB in the middle of junk, so the decoder syncs and then fails. */
	memcpy(junk + 1000, "\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82", 16);
	write_file("junk.pt", junk, sizeof(junk));
	write_manifest("junk.pt", CPU_BDW);
	b = load(tmpdir);
	decode_all(b, addrs, 1024, gaps, &ngaps);
	replay_bundle_free(b);
	write_file("empty.pt", "", 0);
	write_manifest("empty.pt", CPU_BDW);
	b = load(tmpdir);
	assert_int_equal(decode_all(b, addrs, 1024, gaps, &ngaps), 0);
	replay_bundle_free(b);
}

static void test_no_image(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");
	struct replay_item gaps[16];
	uint64_t addrs[64];
	size_t ngaps, n;

	(void)state;
	/* Hide the one mapping (and put it back so it is freed). */
	b->nmaps = 0;
	n = decode_all(b, addrs, 64, gaps, &ngaps);
	b->nmaps = 1;
	assert_true(ngaps >= 1);
	assert_string_equal(gaps[0].text, "no memory mapped at this address");
	assert_int_equal(gaps[0].addr, 0x400511);
	assert_true(n >= 1);
	replay_bundle_free(b);
}

static void test_unknown_cpu(void **state)
{
	struct replay_bundle *b;
	struct replay_decoder *d;
	struct replay_item it;

	(void)state;
	write_manifest(MF "/multi-file.trace", "\"vendor\":\"unknown\",\"family\":0,\"model\":0,\"stepping\":0");
	b = load(tmpdir);
	/* No cpu: libipt decodes without errata; the trace still decodes. */
	assert_int_equal(replay_decoder_new(b, 0, &d), 0);
	assert_int_equal(replay_decoder_next(d, &it), 1);
	replay_decoder_free(d);
	replay_bundle_free(b);
}


/* A stream that ends (no PGD, no more packets) at the entry of a loop made
 * of a direct jump: the decoder stops after a bounded number of
 * instructions with a gap saying why, instead of decoding for ever. */
/* @src compiled as tmpdir/NAME (no PIE: loaded at 0x400000); the address
 * of its function @fn. */
static uint64_t build_program(const char *name, const char *src, const char *fn)
{
	char cmd[512], line[256], want[64];
	unsigned long long addr = 0;
	FILE *p;

	snprintf(line, sizeof(line), "%s.c", name);
	write_file(line, src, strlen(src));
	snprintf(cmd, sizeof(cmd), "cc -O0 -no-pie -o %s/%s %s/%s.c && nm %s/%s", tmpdir, name,
		 tmpdir, name, tmpdir, name);
	snprintf(want, sizeof(want), " T %s\n", fn);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, want))
			addr = strtoull(line, NULL, 16);
	pclose(p);
	assert_true(addr != 0);
	return addr;
}

/* A manifest of one thread, its trace NAME.pt, over program tmpdir/NAME. */
static void write_program_manifest(const char *name)
{
	char json[1024];

	snprintf(json, sizeof(json),
		 "{\"type\":\"intel-pt\",\"cpuInfo\":{" CPU_BDW "},\"processes\":[{\"pid\":1,"
		 "\"threads\":[{\"tid\":1,\"iptTrace\":\"%s.pt\"}],\"modules\":["
		 "{\"file\":\"%s/%s\",\"systemPath\":\"%s\",\"loadAddress\":4194304}]}]}",
		 name, tmpdir, name, name);
	write_file("trace.json", json, strlen(json));
}

static void test_endless_loop(void **state)
{
	static const char src[] = "void spin(void) { for (;;); }\nint main(void) { spin(); }\n";
	struct pt_packet pkts[] = {
		{ .type = ppt_psb }, { .type = ppt_mode },
		{ .type = ppt_psbend }, { .type = ppt_tip_pge },
	};
	uint8_t pt[256];
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct replay_bundle *b;
	struct replay_item gaps[4];
	static uint64_t addrs[1u << 18];
	uint64_t spin;
	size_t ngaps, n;

	(void)state;
	spin = build_program("spin", src, "spin");

	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + sizeof(pt);
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
	pkts[1].payload.mode.leaf = pt_mol_exec;
	pkts[1].payload.mode.bits.exec.csl = 1;
	pkts[3].payload.ip.ipc = pt_ipc_full;
	pkts[3].payload.ip.ip = spin;
	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++)
		assert_true(pt_enc_next(enc, &pkts[i]) > 0);
	assert_true(pt_enc_get_offset(enc, &(uint64_t){ 0 }) == 0);
	{
		uint64_t len;

		pt_enc_get_offset(enc, &len);
		write_file("spin.pt", pt, len);
	}
	pt_free_encoder(enc);
	write_program_manifest("spin");
	b = load(tmpdir);
	n = decode_all(b, addrs, sizeof(addrs) / sizeof(addrs[0]), gaps, &ngaps);
	replay_bundle_free(b);
	/* push %rbp; mov %rsp,%rbp; then the jump to itself, over and over. */
	assert_true(n > 1000 && n < (1u << 17) + 16);
	assert_int_equal(ngaps, 1);
	assert_int_equal(addrs[n - 1], 0);
	assert_non_null(strstr(gaps[0].text, "loop that needs no packets"));
	assert_int_equal(addrs[0], spin);
}

/* Tracing enabled, one instruction, and a PSB at once (a recording
 * started at a stop, then saved: the next instruction begins at a PSB),
 * three times over: libipt hands out a PSB+'s status update having read
 * past the next PSB, which must not be taken for the PSB before the item
 * that follows the update. Every item, the first too, is reached through
 * the index, built whole or extended from any cut of the trace. */
static void test_index_psb_after_enable(void **state)
{
	static const char src[] = "__attribute__((naked)) void f(void) "
				  "{ __asm__(\"nop\\n nop\\n nop\\n nop\\n ret\"); }\n"
				  "int main(void) { f(); }\n";
	enum { NPSB = 4 };
	struct pt_packet pkts[5 * NPSB + 2];
	uint64_t cuts[5 * NPSB + 2], len;
	size_t npkts = 0, ncuts = 0;
	uint8_t pt[1024];
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct replay_bundle *b;
	struct replay_index whole = { 0 };
	uint64_t f;

	(void)state;
	f = build_program("nops", src, "f");

	/* PSB+ (TIP.PGE f), then PSB+ (FUP f+k) for k = 1..NPSB-1: one nop
	 * each between them; then TIP.PGD at the ret. TSCs differ. */
	memset(pkts, 0, sizeof(pkts));
	for (int k = 0; k < NPSB; k++) {
		pkts[npkts++] = (struct pt_packet){ .type = ppt_psb };
		pkts[npkts] = (struct pt_packet){ .type = ppt_mode };
		pkts[npkts].payload.mode.leaf = pt_mol_exec;
		pkts[npkts++].payload.mode.bits.exec.csl = 1;
		pkts[npkts] = (struct pt_packet){ .type = ppt_tsc };
		pkts[npkts++].payload.tsc.tsc = 100 + (uint64_t)k;
		if (k) {
			pkts[npkts] = (struct pt_packet){ .type = ppt_fup };
			pkts[npkts].payload.ip.ipc = pt_ipc_full;
			pkts[npkts++].payload.ip.ip = f + (uint64_t)k;
		}
		pkts[npkts++] = (struct pt_packet){ .type = ppt_psbend };
		if (!k) {
			pkts[npkts] = (struct pt_packet){ .type = ppt_tip_pge };
			pkts[npkts].payload.ip.ipc = pt_ipc_full;
			pkts[npkts++].payload.ip.ip = f;
		}
	}
	pkts[npkts] = (struct pt_packet){ .type = ppt_tip_pgd };
	pkts[npkts++].payload.ip.ipc = pt_ipc_suppressed;

	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + sizeof(pt);
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
	for (size_t i = 0; i < npkts; i++) {
		pt_enc_get_offset(enc, &cuts[ncuts++]);
		assert_true(pt_enc_next(enc, &pkts[i]) > 0);
	}
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	write_program_manifest("nops");
	write_file("nops.pt", pt, len);
	b = load(tmpdir);
	{
		struct replay_item gaps[4];
		uint64_t addrs[16];
		size_t ngaps, n = decode_all(b, addrs, 16, gaps, &ngaps);

		/* f, then a nop after each PSB+, then the ret. */
		assert_int_equal(ngaps, 0);
		assert_int_equal(n, NPSB + 1);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(addrs[i], f + i);
	}
	check_random_access(b);
	assert_int_equal(replay_index_build(&whole, b, 0, NULL, NULL), 0);
	replay_bundle_free(b);

	/* Built over the trace cut before each packet, then extended to the
	 * whole: the index a build over the whole gives. */
	for (size_t c = 1; c < ncuts; c++) {
		struct replay_index idx = { 0 };

		write_file("nops.pt", pt, cuts[c]);
		b = load(tmpdir);
		replay_index_build(&idx, b, 0, NULL, NULL);
		replay_bundle_free(b);
		write_file("nops.pt", pt, len);
		b = load(tmpdir);
		assert_int_equal(replay_index_extend(&idx, b, 0, NULL, NULL), 0);
		assert_int_equal(idx.nitems, whole.nitems);
		assert_int_equal(idx.nentries, whole.nentries);
		for (size_t i = 0; i < idx.nentries; i++) {
			assert_int_equal(idx.entries[i].offset, whole.entries[i].offset);
			assert_int_equal(idx.entries[i].index, whole.entries[i].index);
		}
		replay_index_release(&idx);
		replay_bundle_free(b);
	}
	replay_index_release(&whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_thread),
		cmocka_unit_test(test_multi_file),
		cmocka_unit_test(test_index_single),
		cmocka_unit_test(test_index_multi),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_no_image),
		cmocka_unit_test(test_unknown_cpu),
		cmocka_unit_test(test_endless_loop),
		cmocka_unit_test(test_index_psb_after_enable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
