/*
 * tests/unit/test_replay_perf_data_built.c: perf.data files built here, byte
 * by byte, read into a recording: what the real recordings do not show.
 *
 * test_replay_perf_data.c reads HASE's Skylake files; this one builds the
 * cases none of them has: snapshot segments and trace lost between AUXTRACE
 * records, where a recording ends (no EXIT, EXIT, a sample, an AUXTRACE
 * reference), a HEADER_BUILD_ID whose image is then found in perf's
 * build-id cache, and per-cpu trace of two threads on one cpu split by
 * switch records (PT from libipt's encoder over LLDB's a.out, read in place
 * from ../shared/ptdata/lldb).
 */
#include <errno.h>
#include <intel-pt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/model/image_find.h"
#include "replay/model/perf_data.h"
#include "replay/model/perf_ptinfo.h"

#ifndef HINDSIGHT_SHARED
#define HINDSIGHT_SHARED "/work/shared"
#endif

/* ---- constructed files: snapshot segments and lost trace ---- */

struct fbuf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct fbuf *f, const void *p, size_t n)
{
	assert_true(f->n + n <= sizeof(f->b));
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void put64(struct fbuf *f, uint64_t v) { put(f, &v, 8); }
static void put32(struct fbuf *f, uint32_t v) { put(f, &v, 4); }

static void put_hdr(struct fbuf *f, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(f, type);
	put(f, &misc, 2);
	put(f, &size, 2);
}

static void put_auxtrace(struct fbuf *f, uint64_t aux_offset, const char *payload, size_t n)
{
	put_hdr(f, 71, 0, 48);
	put64(f, n);
	put64(f, aux_offset);
	put64(f, 0);            /* reference */
	put32(f, 0);            /* idx */
	put32(f, 42);           /* tid */
	put32(f, UINT32_MAX);   /* cpu */
	put32(f, 0);
	put(f, payload, n);
}

/* A perf.data: one intel_pt attr (type 8, sample_id_all, TID|TIME), an
 * AUXTRACE_INFO with @snapshot, an MMAP2, then two AUXTRACE records whose
 * AUX offsets are 0 and @second_offset. */
static size_t build(struct fbuf *f, bool snapshot, uint64_t second_offset)
{
	struct perf_event_attr a = { .type = 8, .size = sizeof(a), .config = 0x2401,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
				     .sample_id_all = 1 };
	size_t data_start, name_len = 16;
	uint64_t z = 0;

	memset(f, 0, sizeof(*f));
	put(f, "PERFILE2", 8);
	put64(f, 104);
	put64(f, sizeof(a) + 16);
	put64(f, 104);                 /* attrs */
	put64(f, sizeof(a) + 16);
	put64(f, 0);                   /* data, patched below */
	put64(f, 0);
	put64(f, 0);                   /* event types */
	put64(f, 0);
	for (int i = 0; i < 4; i++)
		put64(f, 0);           /* no features */
	put(f, &a, sizeof(a));
	put64(f, 0);                   /* ids: none */
	put64(f, 0);
	data_start = f->n;
	put_hdr(f, 70, 0, 16 + 17 * 8);
	put32(f, 1);
	put32(f, 0);
	for (int i = 0; i < 17; i++)
		put64(f, i == 0 ? 8 : i == 8 ? snapshot : i == 5 ? 0x400 : 0);
	put_hdr(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
		(uint16_t)(8 + 8 + 24 + 24 + 8 + name_len + 16));
	put32(f, 42);
	put32(f, 42);
	put64(f, 0x400000);
	put64(f, 0x1000);
	put64(f, 0);
	put(f, &z, 8);
	put(f, &z, 8);
	put(f, &z, 8);
	put32(f, PROT_READ | PROT_EXEC);
	put32(f, MAP_PRIVATE);
	put(f, "/tmp/prog\0\0\0\0\0\0\0", name_len);
	put32(f, 42);
	put32(f, 42);
	put64(f, 1000);                /* time */
	put_auxtrace(f, 0, "AAAAAAAA", 8);
	put_auxtrace(f, second_offset, "BBBBBBBBBBBBBBBB", 16);
	memcpy(f->b + 40, &(uint64_t){ data_start }, 8);
	memcpy(f->b + 48, &(uint64_t){ f->n - data_start }, 8);
	return f->n;
}

static struct replay_perf_data *parse_built(struct fbuf *f, size_t n)
{
	struct replay_perf_data *pd = NULL;
	char err[256] = "";
	int rc = replay_perf_data_parse(f->b, n, "built", &pd, err, sizeof(err));

	if (rc)
		fail_msg("%s", err);
	return pd;
}

static void test_snapshot_segments(void **state)
{
	struct fbuf f;
	struct replay_perf_data *pd;
	const struct replay_perf_stream *s;

	(void)state;
	pd = parse_built(&f, build(&f, true, 0x100));
	s = replay_perf_data_stream(pd, 42);
	assert_non_null(s);
	assert_int_equal(s->nsegs, 2);
	assert_int_equal(s->size, 24);
	assert_int_equal(s->segs[1].stream_offset, 8);
	assert_memory_equal(s->data, "AAAAAAAABBBBBBBBBBBBBBBB", 24);
	assert_int_equal(pd->bundle->ngaps, 1);
	assert_string_equal(pd->bundle->gaps[0].kind, "lost");
	assert_non_null(strstr(pd->bundle->gaps[0].text, "snapshot"));
	assert_int_equal(pd->bundle->nmaps, 1);
	assert_int_equal(pd->bundle->maps[0].time_map, 1000);
	assert_string_equal(pd->bundle->maps[0].file, "/tmp/prog");
	assert_true(pd->bundle->ret_compression);   /* no noretcomp bit known: on */
	replay_perf_data_free(pd);
}

static void test_full_contiguous(void **state)
{
	struct fbuf f;
	struct replay_perf_data *pd;

	(void)state;
	pd = parse_built(&f, build(&f, false, 8));
	assert_int_equal(pd->bundle->ngaps, 0);
	replay_perf_data_free(pd);
}

static void test_full_hole_is_gap(void **state)
{
	struct fbuf f;
	struct replay_perf_data *pd;

	(void)state;
	pd = parse_built(&f, build(&f, false, 0x48));
	assert_int_equal(pd->bundle->ngaps, 1);
	assert_string_equal(pd->bundle->gaps[0].text,
			    "64 bytes of trace lost before byte 0x8 of the stream");
	assert_int_equal(pd->bundle->gaps[0].tid, 42);
	replay_perf_data_free(pd);
}

static void test_payload_past_end(void **state)
{
	struct fbuf f;
	size_t n = build(&f, false, 8);
	struct replay_perf_data *pd = NULL;
	char err[256] = "";

	(void)state;
	memcpy(f.b + n - 16 - 48 + 8, &(uint64_t){ 1u << 20 }, 8);  /* last payload's size */
	assert_int_equal(replay_perf_data_parse(f.b, n, "built", &pd, err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "AUXTRACE payload of 1048576 bytes runs past"));
}


/* ---- the end of a recording ---- */

/* Appends @n bytes of records to the data section of the file built in
 * @f (its last part). */
static size_t append_data(struct fbuf *f, const void *rec, size_t n)
{
	uint64_t size;

	put(f, rec, n);
	memcpy(&size, f->b + 48, 8);
	size += n;
	memcpy(f->b + 48, &size, 8);
	return f->n;
}

/* Whether mapping @m of @b is valid at the recording's end. */
static bool live_at_end(const struct replay_bundle *b, size_t m)
{
	return b->maps[m].time_map <= b->end_time && b->end_time < b->maps[m].time_unmap;
}

/* A snapshot with no EXIT (perf --snapshot ended by a signal): the end is
 * the last time a record knows, where the MMAP2's image is mapped. */
static void test_end_without_exit(void **state)
{
	struct fbuf f;
	struct replay_perf_data *pd;

	(void)state;
	pd = parse_built(&f, build(&f, true, 0x100));
	assert_int_equal(pd->bundle->end_time, 1000);
	assert_true(live_at_end(pd->bundle, 0));
	replay_perf_data_free(pd);
}

static void test_end_at_exit(void **state)
{
	struct fbuf f, r = { .n = 0 };
	struct replay_perf_data *pd;

	(void)state;
	build(&f, false, 8);
	put_hdr(&r, PERF_RECORD_EXIT, 0, 8 + 24 + 16);
	put32(&r, 42);
	put32(&r, 1);
	put32(&r, 42);
	put32(&r, 1);
	put64(&r, 3000);
	put32(&r, 42);          /* sample_id: pid, tid, time */
	put32(&r, 42);
	put64(&r, 3000);
	pd = parse_built(&f, append_data(&f, r.b, r.n));
	assert_int_equal(pd->bundle->end_time, 3000);
	assert_true(live_at_end(pd->bundle, 0));
	replay_perf_data_free(pd);
}

/* A sample's time counts (the event samples TID | TIME: {pid, tid}, time). */
static void test_end_at_sample(void **state)
{
	struct fbuf f, r = { .n = 0 };
	struct replay_perf_data *pd;

	(void)state;
	build(&f, true, 0x100);
	put_hdr(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 16);
	put32(&r, 42);
	put32(&r, 42);
	put64(&r, 7000);
	pd = parse_built(&f, append_data(&f, r.b, r.n));
	assert_int_equal(pd->bundle->end_time, 7000);
	replay_perf_data_free(pd);
	/* cut short of its time: the end is the MMAP2's, and no error */
	build(&f, true, 0x100);
	r.n = 0;
	put_hdr(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8);
	put32(&r, 42);
	put32(&r, 42);
	pd = parse_built(&f, append_data(&f, r.b, r.n));
	assert_int_equal(pd->bundle->end_time, 1000);
	replay_perf_data_free(pd);
}

/* An AUXTRACE record's reference is the TSC perf read its data at
 * (intel_pt): it counts when perf time converts to TSC, never else. */
static void test_end_at_aux_reference(void **state)
{
	const size_t info = 104 + sizeof(struct perf_event_attr) + 16;
	struct fbuf f;
	struct replay_perf_data *pd;
	size_t n;

	(void)state;
	n = build(&f, true, 0x100);
	memcpy(f.b + n - 16 - 48 + 24, &(uint64_t){ 9000 }, 8);   /* the 2nd's reference */
	pd = parse_built(&f, n);
	assert_int_equal(pd->bundle->end_time, 1000);
	replay_perf_data_free(pd);
	/* cap_user_time_zero (time_mult 0: perf time is TSC) */
	memcpy(f.b + info + 16 + REPLAY_PERF_PT_CAP_USER_TIME_ZERO * 8, &(uint64_t){ 1 }, 8);
	pd = parse_built(&f, n);
	assert_true(pd->info.tconv.valid);
	assert_int_equal(pd->bundle->end_time, 9000);
	replay_perf_data_free(pd);
}

/* ---- build-ids: HEADER_BUILD_ID, and the image found by it ---- */

/* Appends a HEADER_BUILD_ID feature (bit 2) naming @file with the 20-byte
 * build-id @hex (perf's layout: header, pid, build_id[24] with the size in
 * byte 20, the name padded to 64) to the file built in @f. */
static size_t add_build_id(struct fbuf *f, const char *hex, const char *file)
{
	uint8_t id[24] = { 0 };
	char name[64] = { 0 };
	uint16_t size = 8 + 4 + 24 + 64;

	for (int i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
	id[20] = 20;
	snprintf(name, sizeof(name), "%s", file);
	f->b[72] |= 1 << REPLAY_PERF_FEAT_BUILD_ID;     /* the features bitmap */
	put64(f, f->n + 16);                             /* the section table */
	put64(f, size);
	put_hdr(f, 67, PERF_RECORD_MISC_USER | (1 << 15), size);
	put32(f, UINT32_MAX);                            /* pid -1: user space */
	put(f, id, sizeof(id));
	put(f, name, sizeof(name));
	return f->n;
}

static void test_build_id_feature(void **state)
{
	static const char aout[] = HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace/a.out";
	static const char id[] = "6aa9a4e26f282f33377d59fece874c715b41261a";
	char home[] = "/tmp/test_replay_perf_data.XXXXXX", cmd[1024], found[4096];
	const char *how = NULL, *old_home = getenv("HOME");
	struct replay_perf_data *pd;
	struct fbuf f;

	(void)state;
	build(&f, false, 8);
	pd = parse_built(&f, add_build_id(&f, id, "/tmp/prog"));
	assert_int_equal(pd->file.nbuild_ids, 1);
	assert_int_equal(pd->bundle->nmaps, 1);
	assert_string_equal(pd->bundle->maps[0].system_path, "/tmp/prog");
	assert_string_equal(pd->bundle->maps[0].uuid, id);
	/* perf record left a copy in ~/.debug: it is the image */
	if (access(aout, R_OK) == 0) {
		assert_non_null(mkdtemp(home));
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/.debug/tmp/prog/%s && cp '%s' "
			 "%s/.debug/tmp/prog/%s/elf", home, id, aout, home, id);
		assert_int_equal(system(cmd), 0);
		setenv("HOME", home, 1);
		assert_int_equal(replay_image_find("/tmp/prog-is-not-here", "/tmp/prog",
						   pd->bundle->maps[0].uuid, NULL, found,
						   sizeof(found), &how), 0);
		assert_string_equal(how, "perf's build-id cache");
		assert_non_null(strstr(found, "/.debug/tmp/prog/6aa9a4e2"));
		if (old_home)
			setenv("HOME", old_home, 1);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
		assert_int_equal(system(cmd), 0);
	}
	replay_perf_data_free(pd);
}

/* ---- per-cpu mmaps: two threads on one cpu, split by switch records ---- */

#define AOUT HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace/a.out"

/* The sample_id trailer of TID|TIME|CPU. */
static void put_sid(struct fbuf *f, uint32_t tid, uint64_t time)
{
	put32(f, 42);
	put32(f, tid);
	put64(f, time);
	put32(f, 0);            /* cpu */
	put32(f, 0);
}

static void put_switch_rec(struct fbuf *f, bool out, uint32_t tid, uint64_t time)
{
	put_hdr(f, PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, 8 + 24);
	put_sid(f, tid, time);
}

static void put_itrace_start(struct fbuf *f, uint32_t tid, uint64_t time)
{
	put_hdr(f, PERF_RECORD_ITRACE_START, 0, 8 + 8 + 24);
	put32(f, 42);
	put32(f, tid);
	put_sid(f, tid, time);
}

/* PT of cpu 0 (libipt's encoder): a PSB block at TSC 100 (thread 42,
 * from 0x400511 to the jle at 0x40052d), one at TSC 300 (thread 43, from
 * 0x400521 to the same jle). Returns its size. */
static size_t encode_cpu0(uint8_t *pt, size_t cap, size_t *second)
{
	struct pt_packet pkts[12] = { 0 };
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t len = 0;

	for (int b = 0; b < 2; b++) {
		struct pt_packet *k = &pkts[6 * b];

		k[0].type = ppt_psb;
		k[1].type = ppt_tsc;
		k[1].payload.tsc.tsc = b ? 300 : 100;
		k[2].type = ppt_psbend;
		k[3].type = ppt_mode;
		k[3].payload.mode.leaf = pt_mol_exec;
		k[3].payload.mode.bits.exec.csl = 1;
		k[4].type = ppt_tip_pge;
		k[4].payload.ip.ipc = pt_ipc_sext_48;
		k[4].payload.ip.ip = b ? 0x400521 : 0x400511;
		k[5].type = ppt_tip_pgd;
		k[5].payload.ip.ipc = pt_ipc_sext_48;
		k[5].payload.ip.ip = 0x40052d;
	}
	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + cap;
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
	for (size_t i = 0; i < 12; i++) {
		if (i == 6)
			pt_enc_get_offset(enc, &len);
		assert_true(pt_enc_next(enc, &pkts[i]) > 0);
	}
	*second = (size_t)len;
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	return (size_t)len;
}

/* A perf.data of `perf record -e intel_pt//u` with per-cpu mmaps: thread
 * 42 runs on cpu 0 over perf time (50, 200), thread 43 over (250, 400);
 * no TSC conversion, so perf time is TSC. @switches: with the SWITCH
 * records (--switch-events), else without. */
static size_t build_percpu(struct fbuf *f, bool switches)
{
	struct perf_event_attr a = { .type = 8, .size = sizeof(a), .config = 0x2401,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_CPU, .sample_id_all = 1 };
	char name[128] = { 0 };
	uint8_t pt[256];
	size_t data_start, second, npt = encode_cpu0(pt, sizeof(pt), &second);

	memset(f, 0, sizeof(*f));
	put(f, "PERFILE2", 8);
	put64(f, 104);
	put64(f, sizeof(a) + 16);
	put64(f, 104);
	put64(f, sizeof(a) + 16);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	for (int i = 0; i < 4; i++)
		put64(f, 0);
	put(f, &a, sizeof(a));
	put64(f, 0);
	put64(f, 0);
	data_start = f->n;
	put_hdr(f, 70, 0, 16 + 17 * 8);
	put32(f, 1);
	put32(f, 0);
	for (int i = 0; i < 17; i++)      /* pmu type, tsc bit, per_cpu_mmaps */
		put64(f, i == 0 ? 8 : i == 5 ? 0x400 : i == 9 ? 1 : 0);
	put_itrace_start(f, 42, 10);
	snprintf(name, sizeof(name), "%s", AOUT);
	put_hdr(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)(8 + 64 + 128 + 24));
	put32(f, 42);
	put32(f, 42);
	put64(f, 0x400000);
	put64(f, 0x1000);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	put32(f, PROT_READ | PROT_EXEC);
	put32(f, MAP_PRIVATE);
	put(f, name, sizeof(name));
	put_sid(f, 42, 20);
	if (switches) {
		put_switch_rec(f, false, 42, 50);
		put_switch_rec(f, true, 42, 200);
	}
	put_itrace_start(f, 43, 210);
	if (switches) {
		put_switch_rec(f, false, 43, 250);
		put_switch_rec(f, true, 43, 400);
	}
	put_hdr(f, 71, 0, 48);             /* AUXTRACE of cpu 0, no tid */
	put64(f, npt);
	put64(f, 0);
	put64(f, 0);
	put32(f, 0);
	put32(f, UINT32_MAX);
	put32(f, 0);
	put32(f, 0);
	put(f, pt, npt);
	memcpy(f->b + 40, &(uint64_t){ data_start }, 8);
	memcpy(f->b + 48, &(uint64_t){ f->n - data_start }, 8);
	assert_true(second > 0 && second < npt);
	return f->n;
}

static size_t decode_addrs(const struct replay_bundle *b, int64_t tid, uint64_t *ips, size_t cap)
{
	struct replay_decoder *d;
	struct replay_item it;
	size_t n = 0, t = 0;

	while (t < b->nthreads && b->threads[t].tid != tid)
		t++;
	assert_true(t < b->nthreads);
	assert_int_equal(replay_decoder_new(b, t, &d), 0);
	while (replay_decoder_next(d, &it) == 1)
		if (it.kind == REPLAY_ITEM_INSN && n < cap)
			ips[n++] = it.insn.ip;
	replay_decoder_free(d);
	return n;
}

static void test_percpu_two_threads(void **state)
{
	static const uint64_t want42[] = { 0x400511, 0x400518, 0x40051f, 0x400529 };
	static const uint64_t want43[] = { 0x400521, 0x400525, 0x400529 };
	struct fbuf f;
	struct replay_perf_data *pd;
	struct replay_bundle *b = NULL;
	char dir[] = "/tmp/test_replay_perf_data.XXXXXX", err[256] = "", cmd[300];
	uint64_t ips[16];

	(void)state;
	if (access(AOUT, R_OK) != 0)
		skip();
	pd = parse_built(&f, build_percpu(&f, true));
	assert_int_equal(pd->bundle->nthreads, 2);
	assert_int_equal(pd->bundle->threads[0].tid, 42);
	assert_int_equal(pd->bundle->threads[0].nsegs, 1);
	assert_int_equal(pd->bundle->threads[0].segs[0].offset, 0);
	assert_int_equal(pd->bundle->threads[0].segs[0].tsc_start, 50);
	assert_int_equal(pd->bundle->threads[0].segs[0].tsc_end, 200);
	assert_int_equal(pd->bundle->threads[1].tid, 43);
	assert_int_equal(pd->bundle->threads[1].nsegs, 1);
	assert_int_equal(pd->bundle->threads[1].segs[0].tsc_end, 400);
	/* saved: threads/TID.pt with the segments in trace.json, read back */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(replay_perf_data_write(pd, dir, err, sizeof(err)), 0);
	if (replay_bundle_load(dir, &b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(b->nthreads, 2);
	assert_null(b->threads[0].pt_file);
	assert_string_equal(b->threads[0].segs[0].file, "threads/42.pt");
	assert_int_equal(b->threads[1].segs[0].tsc_start, 250);
	assert_int_equal(decode_addrs(b, 42, ips, 16), 4);
	assert_memory_equal(ips, want42, sizeof(want42));
	assert_int_equal(decode_addrs(b, 43, ips, 16), 3);
	assert_memory_equal(ips, want43, sizeof(want43));
	replay_bundle_free(b);
	replay_perf_data_free(pd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The same in memory (a perf.data opened directly): the segments name
 * cpu 0's stream, an in-memory file; nothing is written. */
static void test_percpu_in_memory(void **state)
{
	static const uint64_t want42[] = { 0x400511, 0x400518, 0x40051f, 0x400529 };
	static const uint64_t want43[] = { 0x400521, 0x400525, 0x400529 };
	struct fbuf f;
	struct replay_perf_data *pd;
	struct replay_bundle *b = NULL;
	char err[256] = "";
	uint64_t ips[16];

	(void)state;
	if (access(AOUT, R_OK) != 0)
		skip();
	pd = parse_built(&f, build_percpu(&f, true));
	if (replay_perf_data_to_bundle(pd, &b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_null(pd->bundle);
	assert_int_equal(b->nthreads, 2);
	assert_null(b->threads[0].pt_file);
	assert_string_equal(b->threads[0].segs[0].file, "cpus/0.pt");
	assert_int_equal(b->nmem, 1);
	assert_string_equal(b->mem[0].file, "cpus/0.pt");
	assert_non_null(replay_bundle_mem_find(b, "cpus/0.pt"));
	assert_null(replay_bundle_mem_find(b, "threads/42.pt"));
	assert_int_equal(decode_addrs(b, 42, ips, 16), 4);
	assert_memory_equal(ips, want42, sizeof(want42));
	assert_int_equal(decode_addrs(b, 43, ips, 16), 3);
	assert_memory_equal(ips, want43, sizeof(want43));
	replay_bundle_free(b);
	replay_perf_data_free(pd);
}

/* Without switch records nothing says which thread ran when: refused. */
static void test_percpu_no_switches(void **state)
{
	struct fbuf f;
	size_t n = build_percpu(&f, false);
	struct replay_perf_data *pd = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(replay_perf_data_parse(f.b, n, "built", &pd, err, sizeof(err)),
			 -ENOTSUP);
	assert_null(pd);
	assert_non_null(strstr(err, "per-cpu trace (perf record's default) of 2 threads on "
			       "1 cpu, and no context-switch records"));
	assert_non_null(strstr(err, "--switch-events"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_segments),
		cmocka_unit_test(test_full_contiguous),
		cmocka_unit_test(test_full_hole_is_gap),
		cmocka_unit_test(test_payload_past_end),
		cmocka_unit_test(test_end_without_exit),
		cmocka_unit_test(test_end_at_exit),
		cmocka_unit_test(test_end_at_sample),
		cmocka_unit_test(test_end_at_aux_reference),
		cmocka_unit_test(test_build_id_feature),
		cmocka_unit_test(test_percpu_two_threads),
		cmocka_unit_test(test_percpu_in_memory),
		cmocka_unit_test(test_percpu_no_switches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
