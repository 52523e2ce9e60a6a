/*
 * tests/unit/test_replay_perf_data.c: perf.data files of Intel PT read into
 * a recording.
 *
 * The proof uses HASE's Skylake recordings (../shared/ptdata/hase, read in
 * place): the PT stream taken from perf.data must equal the pre-extracted
 * payload byte for byte, the libipt configuration must be the one
 * SOURCES.md states, and decoding the stream with libipt's instruction
 * decoder over the static binary must give exactly HASE's branch list.
 * Then every way a file can be cut short or broken must give an error
 * naming an offset, never a crash; and loopy saved as a bundle reads back.
 * The cases no real recording has (snapshot segments, lost trace, the end
 * of a recording, build-ids, per-cpu trace) are files built byte by byte in
 * test_replay_perf_data_built.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
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

#include "replay/model/bundle.h"
#include "replay/model/perf_data.h"
#include "replay/model/perf_ptinfo.h"

#ifndef HINDSIGHT_SHARED
#define HINDSIGHT_SHARED "/work/shared"
#endif
#define HASE HINDSIGHT_SHARED "/ptdata/hase"
#define LOOPY HASE "/skl-20180404-loopy/"
#define CFLOW HASE "/skl-20180404-control_flow/"

struct sample {
	const char *perf, *bin, *elf, *branches;
	int64_t tid;
	size_t nbranches;
	uint64_t insns;
};

static const struct sample loopy = {
	LOOPY "loopy-20180404T162955.perf",
	LOOPY "loopy-20180404T162955.perf.aux-idx2-cpu2-tid19233.bin",
	LOOPY "loopy", LOOPY "loopy-20180404T162955.trace.expected-branches", 19233, 20, 57,
};

static const struct sample cflow = {
	CFLOW "control_flow-20180404T163033.perf",
	CFLOW "control_flow-20180404T163033.perf.aux-idx1-cpu1-tid19731.bin",
	CFLOW "control_flow", CFLOW "control_flow-20180404T163033.trace.expected-branches",
	19731, 245, 1092,
};

/* The whole of @path, malloc'd. */
static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static struct replay_perf_data *read_ok(const char *path)
{
	struct replay_perf_data *pd = NULL;
	char err[256] = "";
	int rc = replay_perf_data_read(path, &pd, err, sizeof(err));

	if (rc)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(pd);
	return pd;
}

/* ---- the payload ---- */

static void check_payload(const struct sample *s)
{
	struct replay_perf_data *pd = read_ok(s->perf);
	const struct replay_perf_stream *st = replay_perf_data_stream(pd, s->tid);
	size_t len;
	uint8_t *want = slurp(s->bin, &len);

	assert_non_null(st);
	assert_int_equal(st->size, len);
	assert_memory_equal(st->data, want, len);
	free(want);
	replay_perf_data_free(pd);
}

static void test_loopy_payload(void **state) { (void)state; check_payload(&loopy); }
static void test_cflow_payload(void **state) { (void)state; check_payload(&cflow); }

/* ---- the configuration (SOURCES.md) ---- */

static void check_config(const struct sample *s)
{
	struct replay_perf_data *pd = read_ok(s->perf);
	const struct replay_bundle *b = pd->bundle;

	assert_string_equal(pd->file.cpuid, "GenuineIntel,6,94,3");
	assert_string_equal(b->recorder, "perf");
	assert_string_equal(b->cpu.vendor, "GenuineIntel");
	assert_int_equal(b->cpu.family, 6);
	assert_int_equal(b->cpu.model, 94);
	assert_int_equal(b->cpu.stepping, 3);
	assert_int_equal(b->mtc_freq, 3);
	assert_int_equal(b->nom_freq, 32);
	assert_int_equal(b->cpuid_0x15_eax, 2);
	assert_int_equal(b->cpuid_0x15_ebx, 266);
	assert_true(b->ret_compression);
	assert_int_equal(b->psb_period, 16384);
	assert_non_null(pd->pt_attr);
	assert_int_equal(pd->pt_attr->attr.config, 0x300e601);
	assert_true(pd->info.per_cpu_mmaps);
	assert_false(pd->info.snapshot_mode);
	assert_int_equal(pd->info.tconv.time_shift, 31);
	assert_int_equal(pd->info.tconv.time_mult, 672770566);
	assert_int_equal(pd->info.tconv.time_zero, 18446744061102431664ULL);
	replay_perf_data_free(pd);
}

static void test_loopy_config(void **state) { (void)state; check_config(&loopy); }
static void test_cflow_config(void **state) { (void)state; check_config(&cflow); }

/* The program's executable mapping came from MMAP2 sideband. */
static void check_mapping(const struct sample *s)
{
	struct replay_perf_data *pd = read_ok(s->perf);
	const struct replay_bundle *b = pd->bundle;
	const char *base = strrchr(s->elf, '/') + 1;
	bool found = false;

	for (size_t i = 0; i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];
		const char *mb = strrchr(m->system_path, '/');

		if (mb && !strcmp(mb + 1, base) && m->start == 0x400000) {
			found = true;
			assert_int_equal(m->time_unmap, REPLAY_TIME_NEVER);
			assert_int_equal(m->offset, 0);
		}
	}
	assert_true(found);
	assert_int_equal(b->pid, s->tid);
	replay_perf_data_free(pd);
}

static void test_loopy_mapping(void **state) { (void)state; check_mapping(&loopy); }
static void test_cflow_mapping(void **state) { (void)state; check_mapping(&cflow); }

/* ---- decoding: the branch list ---- */

/* Adds the executable PT_LOAD segments of static ELF @path at their own
 * addresses. */
static void add_elf(struct pt_image *img, const char *path)
{
	size_t len;
	uint8_t *f = slurp(path, &len);
	Elf64_Ehdr eh;

	memcpy(&eh, f, sizeof(eh));
	assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, f + eh.e_phoff + i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		assert_int_equal(pt_image_add_file(img, path, ph.p_offset, ph.p_filesz, NULL,
						   ph.p_vaddr), 0);
	}
	free(f);
}

struct branches {
	uint64_t (*v)[2];
	size_t n;
};

static void push(struct branches *br, uint64_t from, uint64_t to)
{
	br->v = realloc(br->v, (br->n + 1) * sizeof(*br->v));
	assert_non_null(br->v);
	br->v[br->n][0] = from;
	br->v[br->n][1] = to;
	br->n++;
}

struct walker {
	struct branches br;
	struct pt_insn last;
	bool have_last;             /* a branch instruction waits for its target */
	uint64_t insns;
};

/* Events: trace start / resume gives (0, ip), disable gives (ip, 0). */
static void on_event(struct walker *w, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		push(&w->br, 0, ev->variant.enabled.ip);
		w->have_last = false;
		break;
	case ptev_disabled:
		push(&w->br, ev->ip_suppressed ? w->last.ip : ev->variant.disabled.ip, 0);
		w->have_last = false;
		break;
	case ptev_async_disabled:
		push(&w->br, ev->variant.async_disabled.at, 0);
		w->have_last = false;
		break;
	case ptev_async_branch:
		push(&w->br, ev->variant.async_branch.from, ev->variant.async_branch.to);
		w->have_last = false;
		break;
	default:
		break;
	}
}

static void on_insn(struct walker *w, const struct pt_insn *in)
{
	if (w->have_last && (w->last.iclass != ptic_cond_jump ||
			     in->ip != w->last.ip + w->last.size))
		push(&w->br, w->last.ip, in->ip);
	w->last = *in;
	w->have_last = in->iclass != ptic_other && in->iclass != ptic_ptwrite;
	w->insns++;
}

/* Decodes @pt with @b's configuration and @elf as the image. */
static struct walker decode(const struct replay_bundle *b, const uint8_t *pt, size_t len,
			    const char *elf)
{
	struct walker w = { 0 };
	struct pt_config cfg;
	struct pt_image *img = pt_image_alloc("test");
	struct pt_insn_decoder *dec;
	int st;

	assert_int_equal(replay_perf_pt_config(b, &cfg), 0);
	cfg.begin = (uint8_t *)pt;
	cfg.end = (uint8_t *)pt + len;
	dec = pt_insn_alloc_decoder(&cfg);
	assert_non_null(dec);
	add_elf(img, elf);
	assert_int_equal(pt_insn_set_image(dec, img), 0);
	for (;;) {
		st = pt_insn_sync_forward(dec);
		if (st == -pte_eos)
			break;
		assert_true(st >= 0);
		for (;;) {
			struct pt_insn in;
			struct pt_event ev;

			while (st & pts_event_pending) {
				st = pt_insn_event(dec, &ev, sizeof(ev));
				assert_true(st >= 0);
				on_event(&w, &ev);
			}
			if (st & pts_eos)
				break;
			st = pt_insn_next(dec, &in, sizeof(in));
			if (st == -pte_eos)
				break;
			assert_true(st >= 0);
			on_insn(&w, &in);
		}
		break;
	}
	pt_insn_free_decoder(dec);
	pt_image_free(img);
	return w;
}

static struct branches expected(const char *path)
{
	FILE *f = fopen(path, "r");
	struct branches br = { 0 };
	char line[128];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long from, to;

		if (sscanf(line, "%llx\t%llx", &from, &to) == 2)
			push(&br, from, to);
	}
	fclose(f);
	return br;
}

static void check_branches(const struct sample *s)
{
	struct replay_perf_data *pd = read_ok(s->perf);
	const struct replay_perf_stream *st = replay_perf_data_stream(pd, s->tid);
	struct branches want = expected(s->branches);
	struct walker got;

	assert_non_null(st);
	got = decode(pd->bundle, st->data, st->size, s->elf);
	assert_int_equal(want.n, s->nbranches);
	for (size_t i = 0; i < want.n && i < got.br.n; i++)
		if (want.v[i][0] != got.br.v[i][0] || want.v[i][1] != got.br.v[i][1])
			fail_msg("branch %zu: got %llx -> %llx, want %llx -> %llx", i,
				 (unsigned long long)got.br.v[i][0],
				 (unsigned long long)got.br.v[i][1],
				 (unsigned long long)want.v[i][0], (unsigned long long)want.v[i][1]);
	assert_int_equal(got.br.n, want.n);
	assert_int_equal(got.insns, s->insns);
	free(want.v);
	free(got.br.v);
	replay_perf_data_free(pd);
}

static void test_loopy_branches(void **state) { (void)state; check_branches(&loopy); }
static void test_cflow_branches(void **state) { (void)state; check_branches(&cflow); }

/* ---- corrupt and truncated files ---- */

static void expect_error(const uint8_t *buf, size_t len, const char *what)
{
	struct replay_perf_data *pd = NULL;
	char err[256] = "";
	int rc = replay_perf_data_parse(buf, len, "perf.data", &pd, err, sizeof(err));

	if (rc == 0)
		fail_msg("%s: parsed", what);
	assert_null(pd);
	assert_true(strncmp(err, "perf.data: ", 11) == 0);
}

/* Where the table entry of feature @bit is in the perf.data @f, or 0 if
 * the bit is not set (read here from the header's bitmap: the entries
 * follow the data section in bit order). */
static uint64_t feature_entry(const uint8_t *f, unsigned bit)
{
	uint64_t off, size, bits[4], at;

	memcpy(&off, f + 40, 8);
	memcpy(&size, f + 48, 8);
	memcpy(bits, f + 72, 32);
	if (!(bits[bit / 64] & (1ULL << (bit % 64))))
		return 0;
	at = off + size;
	for (unsigned b = 0; b < bit; b++)
		at += (bits[b / 64] & (1ULL << (b % 64))) ? 16 : 0;
	return at;
}

/* How many feature sections of the perf.data @f end past @n. */
static size_t sections_past(const uint8_t *f, uint64_t n)
{
	size_t count = 0;

	for (unsigned bit = 0; bit < 256; bit++) {
		uint64_t e = feature_entry(f, bit), sec[2];

		if (!e)
			continue;
		memcpy(sec, f + e, 16);
		count += sec[0] + sec[1] > n;
	}
	return count;
}

/* Parses @len bytes of @f: the loopy stream, and as many notes as @notes. */
static void expect_loopy(const uint8_t *f, size_t len, size_t notes, const char *what)
{
	struct replay_perf_data *pd = NULL;
	char err[256] = "";
	size_t plen;
	uint8_t *want = slurp(loopy.bin, &plen);
	const struct replay_perf_stream *st;

	if (replay_perf_data_parse(f, len, "perf.data", &pd, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	st = replay_perf_data_stream(pd, loopy.tid);
	assert_non_null(st);
	assert_int_equal(st->size, plen);
	assert_memory_equal(st->data, want, plen);
	assert_int_equal(pd->bundle->cpu.model, 94);
	if (pd->bundle->nnotes != notes)
		fail_msg("%s: %zu notes, want %zu", what, pd->bundle->nnotes, notes);
	for (size_t i = 0; i < notes; i++)
		assert_true(strncmp(pd->bundle->notes[i], "perf.data: HEADER_", 18) == 0);
	free(want);
	replay_perf_data_free(pd);
}

/* Every length short of the whole file: an error naming the file while
 * what decoding needs is cut (the header, attributes, data section, the
 * feature table up to HEADER_CPUID and its section), else the recording
 * itself, with a note for each feature lost. Never a crash. */
static void test_every_truncation(void **state)
{
	size_t len;
	uint8_t *f = slurp(loopy.perf, &len);
	uint64_t cpuid = feature_entry(f, REPLAY_PERF_FEAT_CPUID), s[2], needed;
	char what[64];

	(void)state;
	assert_true(cpuid != 0);
	memcpy(s, f + cpuid, 16);
	needed = s[0] + s[1] > cpuid + 16 ? s[0] + s[1] : cpuid + 16;
	assert_true(needed < len);
	for (size_t n = 0; n < len; n++) {
		uint8_t *cut = malloc(n ? n : 1);    /* exact size: ASan sees overreads */

		memcpy(cut, f, n);
		snprintf(what, sizeof(what), "cut at %zu", n);
		if (n < needed)
			expect_error(cut, n, what);
		else
			expect_loopy(cut, n, sections_past(f, n), what);
		free(cut);
	}
	free(f);
}

/* A feature section damaged in place: HEADER_CMDLINE's count, a
 * HEADER_BUILD_ID entry's size, HEADER_CACHE pointing past the end are
 * skipped with a note each (no build-id kept); HEADER_CPUID pointing past
 * the end, or its string running past its section, is an error. */
static void test_damaged_features(void **state)
{
	size_t len;
	uint8_t *f = slurp(loopy.perf, &len), *g = malloc(len);
	uint64_t e, sec[2], huge = UINT64_MAX / 2;
	struct replay_perf_data *pd = NULL;
	char err[256] = "";

	(void)state;
	memcpy(g, f, len);
	e = feature_entry(g, REPLAY_PERF_FEAT_CMDLINE);
	memcpy(sec, g + e, 16);
	memcpy(g + sec[0], &(uint32_t){ 0xffff }, 4);
	e = feature_entry(g, REPLAY_PERF_FEAT_BUILD_ID);
	memcpy(sec, g + e, 16);
	memset(g + sec[0] + 6, 0xff, 2);                  /* the first entry's size */
	e = feature_entry(g, 20);                         /* HEADER_CACHE */
	memcpy(g + e, &(uint64_t){ len }, 8);
	expect_loopy(g, len, 3, "damaged");
	assert_int_equal(replay_perf_data_parse(g, len, "perf.data", &pd, err, sizeof(err)), 0);
	assert_int_equal(pd->file.nbuild_ids, 0);
	assert_null(pd->file.cmdline);
	assert_non_null(strstr(pd->bundle->notes[0], "HEADER_BUILD_ID (the images' build-ids) "
				"skipped: HEADER_BUILD_ID entry at offset 0x"));
	assert_non_null(strstr(pd->bundle->notes[1], "HEADER_CMDLINE (perf's command line) "
				"skipped: HEADER_CMDLINE at offset 0x"));
	assert_non_null(strstr(pd->bundle->notes[2], "; decoding does not use it"));
	replay_perf_data_free(pd);

	memcpy(g, f, len);
	e = feature_entry(g, REPLAY_PERF_FEAT_CPUID);
	memcpy(g + e + 8, &huge, 8);
	assert_int_equal(replay_perf_data_parse(g, len, "perf.data", &pd, err, sizeof(err)),
			 -EBADMSG);
	assert_null(pd);
	assert_non_null(strstr(err, "perf.data: HEADER_CPUID (the CPU's family, model and "
			       "stepping): its 0x"));
	assert_non_null(strstr(err, "run past the end of the file"));
	assert_non_null(strstr(err, ", and decoding needs it"));
	memcpy(g + e, f + e, 16);
	memcpy(sec, g + e, 16);
	memcpy(g + sec[0], &(uint32_t){ 0x1000 }, 4);     /* the string's length */
	assert_int_equal(replay_perf_data_parse(g, len, "perf.data", &pd, err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "feature string at offset 0x"));
	free(g);
	free(f);
}

/* The data section cut at every length (features dropped so the file stays
 * consistent): a record cut short names its offset. */
static void test_every_data_cut(void **state)
{
	size_t len;
	uint8_t *f = slurp(loopy.perf, &len);
	uint64_t off, size;

	(void)state;
	memcpy(&off, f + 40, 8);
	memcpy(&size, f + 48, 8);
	memset(f + 72, 0, 32);
	for (uint64_t n = 0; n < size; n++) {
		struct replay_perf_data *pd = NULL;
		char err[256] = "";
		int rc;

		memcpy(f + 48, &n, 8);
		rc = replay_perf_data_parse(f, len, "perf.data", &pd, err, sizeof(err));
		if (rc == 0) {
			replay_perf_data_free(pd);
			continue;
		}
		if (!strstr(err, "offset 0x"))
			fail_msg("cut at %llu: %s", (unsigned long long)n, err);
	}
	free(f);
	(void)off;
}

/* Bytes of the data section overwritten at random: errors or a result,
 * never a crash (the sanitizer build checks the reads). */
static void test_random_corruption(void **state)
{
	size_t len;
	uint8_t *f = slurp(loopy.perf, &len), *g = malloc(len);
	uint64_t off, size;

	(void)state;
	memcpy(&off, f + 40, 8);
	memcpy(&size, f + 48, 8);
	srand(1);
	for (int i = 0; i < 3000; i++) {
		struct replay_perf_data *pd = NULL;
		char err[256] = "";

		memcpy(g, f, len);
		for (int k = 0; k < 1 + i % 4; k++)
			g[off + (uint64_t)rand() % size] = (uint8_t)rand();
		if (replay_perf_data_parse(g, len, "perf.data", &pd, err, sizeof(err)) == 0)
			replay_perf_data_free(pd);
		else
			assert_true(err[0] != 0);
	}
	free(g);
	free(f);
}

static void test_size_zero_record(void **state)
{
	size_t len;
	uint8_t *f = slurp(loopy.perf, &len);
	struct replay_perf_data *pd = NULL;
	char err[256] = "", want[128];
	uint64_t off;

	(void)state;
	memcpy(&off, f + 40, 8);
	memset(f + off + 6, 0, 2);                 /* the first record's size */
	assert_int_equal(replay_perf_data_parse(f, len, "perf.data", &pd, err, sizeof(err)),
			 -EBADMSG);
	snprintf(want, sizeof(want), "perf.data: record at offset 0x%llx: size 0 is invalid",
		 (unsigned long long)off);
	assert_string_equal(err, want);
	free(f);
}

static void test_not_perf(void **state)
{
	struct replay_perf_data *pd = NULL;
	char err[256] = "";
	uint8_t junk[200] = "PERFILE1";

	(void)state;
	assert_int_equal(replay_perf_data_parse(junk, sizeof(junk), "x.data", &pd, err,
						sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.data: not a perf.data file (bad magic)");
	assert_int_equal(replay_perf_data_read("/nonexistent/perf.data", &pd, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/perf.data: No such file or directory");
}

/* ---- saved as a bundle and read back ---- */

static void test_write_bundle(void **state)
{
	struct replay_perf_data *pd = read_ok(loopy.perf);
	struct replay_bundle *b = NULL;
	char dir[] = "/tmp/test_replay_perf_data.XXXXXX", err[256] = "", path[256], cmd[300];
	size_t len;
	uint8_t *pt;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(replay_perf_data_write(pd, dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/threads/19233.pt", dir);
	pt = slurp(path, &len);
	assert_int_equal(len, 1392);
	free(pt);
	/* the image's path is HASE's machine's: the load refuses it by name */
	if (replay_bundle_load(dir, &b, err, sizeof(err)) == 0) {
		assert_string_equal(b->recorder, "perf");
		assert_int_equal(b->nthreads, 1);
		assert_int_equal(b->mtc_freq, 3);
		replay_bundle_free(b);
	} else {
		assert_non_null(strstr(err, "loopy"));
	}
	replay_perf_data_free(pd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopy_payload),
		cmocka_unit_test(test_cflow_payload),
		cmocka_unit_test(test_loopy_config),
		cmocka_unit_test(test_cflow_config),
		cmocka_unit_test(test_loopy_mapping),
		cmocka_unit_test(test_cflow_mapping),
		cmocka_unit_test(test_loopy_branches),
		cmocka_unit_test(test_cflow_branches),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_damaged_features),
		cmocka_unit_test(test_every_data_cut),
		cmocka_unit_test(test_random_corruption),
		cmocka_unit_test(test_size_zero_record),
		cmocka_unit_test(test_not_perf),
		cmocka_unit_test(test_write_bundle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
