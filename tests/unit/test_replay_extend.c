/*
 * tests/unit/test_replay_extend.c: extending a recording that grew
 * (replay_index_extend, replay_state_extend, replay_timeline_extend,
 * replay_session_extend) gives what opening it once at the end gives.
 *
 * A software recording of tests/programs/rec/threads.c (three workers
 * adding to one counter under a mutex, short slices, a PSB every 256
 * bytes of trace so that extending resumes in the middle) is made here.
 * A copy of it starts with every thread's trace and state log cut to a
 * fraction of its length, then grows by appending the rest in pieces, as
 * a live recorder's saves do; after each piece the extended objects are
 * compared with ones opened afresh over the copy:
 * - index: every entry (offset, item, time) and the counts;
 * - state: times and registers at sampled positions, memory (the counter,
 *   a stack page) at sampled times, what is cut short;
 * - timeline: the clock and every thread's end, then the same twenty
 *   reverse-continues to a breakpoint on the counter's store, and ten
 *   continues forward, stop by stop (thread, kind, every position, time);
 * - session: the same through the one door, its points kept;
 * - a log cut shorter, or an exec in what came since (tests/programs/
 *   execself.c recorded too): refused with -ESTALE;
 * - a trace cut right after a PSB+ whose next timing packet is another
 *   time (a thread that waited in a syscall while others ran): the index
 *   extended over it times that PSB as one built afresh does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include <intel-pt.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/decode/index.h"
#include "replay/decode/session.h"
#include "replay/model/state.h"
#include "replay/decode/timeline.h"
#include "stub/recorders/stub_rec.h"
#include "tests/unit/testlib_nm.h"

#define PROGS "tests/programs"
#define PIECES 4                   /* appends after the first cut */

static char work[256], full_dir[512], grow_dir[512], exec_dir[512];
static uint64_t counter_addr, store_ip;

/* ---- the recording ------------------------------------------------------ */

/* Records @src (under tests/programs) built as @name into @dir. */
static int record_one(const char *src, const char *name, const char *dir)
{
	char exe[512], cmd[1024];
	char *argv[] = { exe, NULL };
	struct stub_rec_options o = { 0 };
	struct stub_rec *rec = NULL;
	pid_t pid;

	snprintf(exe, sizeof(exe), "%s/%s", work, name);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -no-pie -pthread -o %s %s/%s", exe, PROGS, src);
	if (system(cmd) != 0)
		return -1;
	if (!strcmp(name, "threads"))
		counter_addr = nm_symbol(exe, "counter");
	o.dir = dir;
	o.slice = 97;
	o.psb_period = 256;
	if (stub_rec_spawn(argv, &pid) || stub_rec_new(&rec, &o, pid, argv, false) ||
	    stub_rec_run(rec))
		return -1;
	stub_rec_free(rec);
	return 0;
}

static int record(void)
{
	snprintf(full_dir, sizeof(full_dir), "%s/full.bundle", work);
	snprintf(exec_dir, sizeof(exec_dir), "%s/exec.bundle", work);
	if (record_one("rec/threads.c", "threads", full_dir) < 0)
		return -1;
	return record_one("execself.c", "execself", exec_dir);
}

/* The instruction that stores the counter: the pc of the newest write. */
static int find_store(void)
{
	struct replay_session *s;
	struct replay_state_write w;
	char err[256];
	size_t i;
	int r = -1;

	if (replay_session_open(full_dir, REPLAY_SESSION_TIMELINE, &s, err, sizeof(err)))
		return -1;
	if (replay_state_write_before(s->st, counter_addr, 8, UINT64_MAX, &w) == 0) {
		for (i = 0; i < s->b->nthreads && s->b->threads[i].tid != w.tid; i++)
			;
		if (i < s->b->nthreads)
			r = replay_cursor_item_ip(replay_timeline_cursor(s->tl, i), w.index,
						  &store_ip);
	}
	replay_session_free(s);
	return r;
}

static int setup(void **state)
{
	(void)state;
	snprintf(work, sizeof(work), "/tmp/hindsight-extend.XXXXXX");
	if (!mkdtemp(work) || record() < 0 || find_store() < 0)
		return -1;
	snprintf(grow_dir, sizeof(grow_dir), "%s/grow.bundle", work);
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return getenv("KEEP_WORK") || system(cmd) == 0 ? 0 : -1;
}

/* ---- growing a copy ---------------------------------------------------- */

/* Makes @file of the copy @num / @den of the full one's bytes, by
 * appending (never rewriting what a reader may have mapped). */
static const char *source_dir;     /* what the copy grows towards */

static void grow_file(const char *file, int num, int den)
{
	char from[1024], to[1024];
	struct stat sb, cur;
	size_t want;
	char *buf;
	int in, out;

	snprintf(from, sizeof(from), "%s/%s", source_dir, file);
	snprintf(to, sizeof(to), "%s/%s", grow_dir, file);
	assert_int_equal(stat(from, &sb), 0);
	want = (size_t)sb.st_size * (size_t)num / (size_t)den;
	if (want < 64 && sb.st_size >= 64)
		want = 64;                  /* at least the header and a record */
	out = open(to, O_WRONLY | O_CREAT | O_APPEND, 0644);
	assert_true(out >= 0);
	assert_int_equal(fstat(out, &cur), 0);
	if ((size_t)cur.st_size < want) {
		in = open(from, O_RDONLY);
		assert_true(in >= 0);
		buf = malloc(want - (size_t)cur.st_size);
		assert_non_null(buf);
		assert_int_equal(pread(in, buf, want - (size_t)cur.st_size, cur.st_size),
				 (ssize_t)(want - (size_t)cur.st_size));
		assert_int_equal(write(out, buf, want - (size_t)cur.st_size),
				 (ssize_t)(want - (size_t)cur.st_size));
		free(buf);
		close(in);
	}
	close(out);
}

/* The copy at @num / @den of every trace and log (the rest as it is). */
static void grow(const struct replay_bundle *full, int num, int den)
{
	for (size_t i = 0; i < full->nthreads; i++) {
		grow_file(full->threads[i].pt_file, num, den);
		if (full->threads[i].state_file)
			grow_file(full->threads[i].state_file, num, den);
	}
}

/* A fresh copy: trace.json and images as they are, traces and logs cut. */
static struct replay_bundle *start_copy_of(const char *src, int num, int den)
{
	struct replay_bundle *full;
	char cmd[4096], err[256];

	source_dir = src;
	/* Without the checksums: a copy cut anywhere would be damaged where
	 * trace.json says complete (test_replay_sums checks a recording that
	 * grew against its checksums). */
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s/threads && "
		 "grep -v '\"ptSums\"\\|\"stateSums\"' %s/trace.json >%s/trace.json && "
		 "cp -r %s/images %s/", grow_dir, grow_dir, src, grow_dir, src, grow_dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(replay_bundle_load(src, &full, err, sizeof(err)), 0);
	grow(full, num, den);
	return full;
}

static struct replay_bundle *start_copy(int num, int den)
{
	return start_copy_of(full_dir, num, den);
}

/* ---- comparing ----------------------------------------------------------- */

static void same_index(const struct replay_index *a, const struct replay_index *b)
{
	assert_int_equal(a->nitems, b->nitems);
	assert_int_equal(a->ninsns, b->ninsns);
	assert_int_equal(a->ngaps, b->ngaps);
	assert_int_equal(a->nentries, b->nentries);
	for (size_t i = 0; i < a->nentries; i++) {
		assert_int_equal(a->entries[i].offset, b->entries[i].offset);
		assert_int_equal(a->entries[i].index, b->entries[i].index);
		assert_int_equal(a->entries[i].time, b->entries[i].time);
	}
}

static void same_regs_at(struct replay_state *a, struct replay_state *b, int64_t tid, uint64_t p)
{
	uint64_t ga[REPLAY_STATE_NGP], gb[REPLAY_STATE_NGP], ta = 0, tb = 0;
	int ra = replay_state_raw_at(a, tid, p, ga, NULL, NULL);
	int rb = replay_state_raw_at(b, tid, p, gb, NULL, NULL);

	assert_int_equal(ra, rb);
	if (ra == 0)
		assert_memory_equal(ga, gb, sizeof(ga));
	assert_int_equal(replay_state_time_at(a, tid, p, &ta),
			 replay_state_time_at(b, tid, p, &tb));
	assert_int_equal(ta, tb);
}

static void same_mem_at(struct replay_state *a, struct replay_state *b, uint64_t time,
			uint64_t addr, size_t len)
{
	uint8_t ba[256], bb[256], sa[256], sb[256];

	assert_int_equal(replay_state_read_mem_status(a, time, addr, ba, len, sa),
			 replay_state_read_mem_status(b, time, addr, bb, len, sb));
	assert_memory_equal(sa, sb, len);
	assert_memory_equal(ba, bb, len);
}

/* Registers, times and memory of @a and @b at sampled places. */
static void same_state(struct replay_state *a, struct replay_state *b,
		       const struct replay_bundle *bd, uint64_t stack)
{
	uint64_t end = 0;

	for (size_t i = 0; i < bd->nthreads; i++) {
		int64_t tid = bd->threads[i].tid;
		uint64_t last = replay_state_last_index(b, tid);
		uint64_t pa = 0, pb = 0, ta = 0, tb = 0;

		assert_int_equal(replay_state_last_index(a, tid), last);
		assert_int_equal(replay_state_cut(a, tid, &pa, &ta),
				 replay_state_cut(b, tid, &pb, &tb));
		assert_int_equal(pa, pb);
		assert_int_equal(ta, tb);
		for (uint64_t p = 1; p <= last + 2; p += 1 + last / 97)
			same_regs_at(a, b, tid, p);
		same_regs_at(a, b, tid, last);
		replay_state_time_at(b, tid, last + 1, &tb);
		end = tb > end ? tb : end;
	}
	for (uint64_t t = 0; t <= end + 1; t += 1 + end / 61) {
		same_mem_at(a, b, t, counter_addr, 8);
		same_mem_at(a, b, t, stack, 256);
	}
}

struct opened {
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_timeline *tl;
};

static void open_fresh(struct opened *o)
{
	char err[256];
	size_t failed;

	assert_int_equal(replay_bundle_load(grow_dir, &o->b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(o->b, &o->st, err, sizeof(err)), 0);
	assert_int_equal(replay_timeline_new(o->b, o->st, &o->tl, &failed), 0);
}

static void close_opened(struct opened *o)
{
	replay_timeline_free(o->tl);
	replay_state_free(o->st);
	replay_bundle_free(o->b);
}

/* Where every thread stands, and the time. */
static void same_places(struct replay_timeline *a, struct replay_timeline *b)
{
	uint64_t ta = 0, tb = 0;

	assert_int_equal(replay_timeline_nthreads(a), replay_timeline_nthreads(b));
	for (size_t i = 0; i < replay_timeline_nthreads(a); i++) {
		assert_int_equal(replay_cursor_position(replay_timeline_cursor(a, i)),
				 replay_cursor_position(replay_timeline_cursor(b, i)));
		assert_int_equal(replay_cursor_size(replay_timeline_cursor(a, i)),
				 replay_cursor_size(replay_timeline_cursor(b, i)));
	}
	assert_int_equal(replay_timeline_time(a, &ta), replay_timeline_time(b, &tb));
	assert_int_equal(ta, tb);
}

/* Returns the stop's kind. */
static int same_resume(struct replay_timeline *a, struct replay_timeline *b,
		       enum replay_timeline_move move)
{
	struct replay_timeline_resume rq = { .thread = 0, .move = move };
	struct replay_timeline_stop sa, sb;

	assert_int_equal(replay_timeline_resume(a, &rq, &sa), replay_timeline_resume(b, &rq, &sb));
	assert_int_equal(sa.thread, sb.thread);
	assert_int_equal(sa.kind, sb.kind);
	same_places(a, b);
	return sa.kind;
}

/* The same answers from @a (extended) and @b (fresh): the timelines are
 * moved, and put back to their ends by extending both again. */
static void same_timeline(struct replay_timeline *a, struct replay_timeline *b)
{
	int hits = 0;

	same_places(a, b);
	assert_int_equal(replay_timeline_point_insert(b, REPLAY_TIMELINE_BREAK, store_ip, 0, 1), 0);
	assert_true(replay_timeline_break_at(a, store_ip, 1));
	for (int n = 0; n < 20; n++)
		hits += same_resume(a, b, REPLAY_TIMELINE_REVERSE_CONTINUE) == REPLAY_CURSOR_BREAK;
	for (int n = 0; n < 10; n++)
		hits += same_resume(a, b, REPLAY_TIMELINE_CONTINUE) == REPLAY_CURSOR_BREAK;
	assert_true(hits >= 20);
	same_resume(a, b, REPLAY_TIMELINE_REVERSE_STEP);
	same_resume(a, b, REPLAY_TIMELINE_STEP);
}

/* ---- the tests ------------------------------------------------------------ */

static uint64_t some_stack(const struct replay_bundle *b)
{
	struct replay_state *st;
	uint64_t gp[REPLAY_STATE_NGP] = { 0 };
	char err[256];

	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	assert_int_equal(replay_state_raw_at(st, b->threads[0].tid, 2, gp, NULL, NULL), 0);
	replay_state_free(st);
	return (gp[RSP_USER_RSP] - 128) & ~7ull;
}

static void test_index(void **state)
{
	struct replay_bundle *full = start_copy(1, 5), *b;
	struct replay_index ext[16] = { 0 }, fresh;
	char err[256];
	(void)state;

	assert_true(full->nthreads <= 16);
	assert_int_equal(replay_bundle_load(grow_dir, &b, err, sizeof(err)), 0);
	for (size_t i = 0; i < b->nthreads; i++)
		assert_int_equal(replay_index_build(&ext[i], b, i, NULL, NULL), 0);
	for (int k = 1; k <= PIECES; k++) {
		grow(full, 1 + k, 1 + PIECES);
		for (size_t i = 0; i < b->nthreads; i++) {
			fresh = (struct replay_index){ 0 };
			assert_int_equal(replay_index_extend(&ext[i], b, i, NULL, NULL), 0);
			assert_int_equal(replay_index_build(&fresh, b, i, NULL, NULL), 0);
			same_index(&ext[i], &fresh);
			if (k == PIECES)
				assert_true(fresh.nentries > 3);   /* resumed mid-trace */
			replay_index_release(&fresh);
		}
	}
	for (size_t i = 0; i < b->nthreads; i++)
		replay_index_release(&ext[i]);
	replay_bundle_free(b);
	replay_bundle_free(full);
}

/* Where thread @i's trace has a PSB+ with no FUP (after a syscall) whose
 * PSBEND is followed by a TSC then a TIP.PGE: up to @max offsets just
 * past the PSBEND, into @out; how many. */
static size_t psb_then_time(const struct replay_bundle *full, size_t i, uint64_t *out, size_t max)
{
	char path[1024];
	uint8_t *buf;
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet pk[3];
	uint64_t off[3] = { 0 };
	size_t n = 0, len;
	struct stat sb;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", full_dir, full->threads[i].pt_file);
	assert_int_equal(stat(path, &sb), 0);
	len = (size_t)sb.st_size;
	buf = malloc(len ? len : 1);
	f = fopen(path, "rb");
	assert_true(buf && f && fread(buf, 1, len, f) == len);
	fclose(f);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(dec);
	memset(pk, 0, sizeof(pk));
	while (n < max && pt_pkt_sync_forward(dec) >= 0) {
		for (;;) {
			uint64_t o;

			if (pt_pkt_get_offset(dec, &o) < 0)
				break;
			memmove(pk, pk + 1, 2 * sizeof(pk[0]));
			memmove(off, off + 1, 2 * sizeof(off[0]));
			if (pt_pkt_next(dec, &pk[2], sizeof(pk[2])) < 0)
				break;
			off[2] = o;
			if (pk[0].type == ppt_psbend && pk[1].type == ppt_tsc &&
			    pk[2].type == ppt_tip_pge && n < max)
				out[n++] = off[1];   /* the end of the PSBEND */
		}
	}
	pt_pkt_free_decoder(dec);
	free(buf);
	return n;
}

static void test_index_psb_time(void **state)
{
	struct replay_bundle *full, *b;
	struct replay_index ext, fresh;
	uint64_t cuts[4];
	size_t tried = 0;
	char err[256], path[1024];
	(void)state;

	full = start_copy(1, 1);
	for (size_t i = 0; i < full->nthreads; i++) {
		size_t n = psb_then_time(full, i, cuts, 4);

		for (size_t k = 0; k < n; k++, tried++) {
			replay_bundle_free(start_copy(1, 1));
			snprintf(path, sizeof(path), "%s/%s", grow_dir, full->threads[i].pt_file);
			assert_int_equal(truncate(path, (off_t)cuts[k]), 0);
			assert_int_equal(replay_bundle_load(grow_dir, &b, err, sizeof(err)), 0);
			ext = (struct replay_index){ 0 };
			fresh = (struct replay_index){ 0 };
			assert_int_equal(replay_index_build(&ext, b, i, NULL, NULL), 0);
			grow(full, 1, 1);
			assert_int_equal(replay_index_extend(&ext, b, i, NULL, NULL), 0);
			assert_int_equal(replay_index_build(&fresh, b, i, NULL, NULL), 0);
			same_index(&ext, &fresh);
			replay_index_release(&ext);
			replay_index_release(&fresh);
			replay_bundle_free(b);
		}
	}
	/* The recording waits on its mutex: such PSBs are there. */
	assert_true(tried > 0);
	replay_bundle_free(full);
}

static void test_state(void **state)
{
	struct replay_bundle *full = start_copy(1, 7), *b;
	struct replay_state *ext, *fresh;
	uint64_t stack = some_stack(full);
	char err[256];
	(void)state;

	assert_int_equal(replay_bundle_load(grow_dir, &b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(b, &ext, err, sizeof(err)), 0);
	for (int k = 1; k <= PIECES; k++) {
		grow(full, 1 + k, 1 + PIECES);
		assert_int_equal(replay_state_extend(ext, b), 0);
		assert_int_equal(replay_state_open(b, &fresh, err, sizeof(err)), 0);
		same_state(ext, fresh, b, stack);
		replay_state_free(fresh);
	}
	replay_state_free(ext);
	replay_bundle_free(b);
	replay_bundle_free(full);
}

static void test_timeline(void **state)
{
	struct replay_bundle *full = start_copy(1, 3), *b2;
	struct opened ext, fresh;
	size_t failed;
	char err[256];
	(void)state;

	open_fresh(&ext);
	assert_int_equal(
		replay_timeline_point_insert(ext.tl, REPLAY_TIMELINE_BREAK, store_ip, 0, 1), 0);
	for (int k = 1; k <= 2; k++) {
		grow(full, 1 + k, 3);
		assert_int_equal(replay_bundle_load(grow_dir, &b2, err, sizeof(err)), 0);
		assert_int_equal(replay_state_extend(ext.st, b2), 0);
		assert_int_equal(replay_timeline_extend(ext.tl, b2, ext.st, &failed), 0);
		replay_bundle_free(ext.b);
		ext.b = b2;
		open_fresh(&fresh);
		same_timeline(ext.tl, fresh.tl);
		close_opened(&fresh);
	}
	close_opened(&ext);
	replay_bundle_free(full);
}

static void test_session(void **state)
{
	struct replay_bundle *full = start_copy(1, 4);
	struct replay_session *ext, *fresh;
	char err[256];
	(void)state;

	assert_int_equal(
		replay_session_open(grow_dir, REPLAY_SESSION_ALL, &ext, err, sizeof(err)), 0);
	assert_int_equal(
		replay_timeline_point_insert(ext->tl, REPLAY_TIMELINE_BREAK, store_ip, 0, 1), 0);
	for (int k = 1; k <= PIECES; k++) {
		grow(full, 1 + k, 1 + PIECES);
		assert_int_equal(replay_session_extend(ext, err, sizeof(err)), 0);
		assert_int_equal(replay_session_open(grow_dir, REPLAY_SESSION_ALL, &fresh, err,
						     sizeof(err)), 0);
		assert_non_null(ext->img);
		assert_non_null(ext->rodata);
		same_timeline(ext->tl, fresh->tl);
		replay_session_free(fresh);
	}
	replay_session_free(ext);
	replay_bundle_free(full);
}

/* A recording that is not the old one grown is refused, not half read. */
static void test_not_grown(void **state)
{
	struct replay_bundle *full = start_copy(1, 2);
	struct replay_session *s;
	char err[256], path[1024];
	(void)state;

	assert_int_equal(
		replay_session_open(grow_dir, REPLAY_SESSION_ALL, &s, err, sizeof(err)), 0);
	/* A state log cut shorter than it was. */
	snprintf(path, sizeof(path), "%s/%s", grow_dir, full->threads[0].state_file);
	assert_int_equal(truncate(path, 32), 0);
	assert_int_equal(replay_session_extend(s, err, sizeof(err)), -ESTALE);
	replay_session_free(s);
	replay_bundle_free(full);
}

/* An exec in what was recorded since: the state refuses to extend (the
 * caller opens the recording whole). Cut before the exec (the first
 * tenth of the log: ld.so and main run first), grown to the end. */
static void test_exec(void **state)
{
	struct replay_bundle *full = start_copy_of(exec_dir, 1, 10), *b;
	struct replay_state *st;
	char err[256];
	(void)state;

	assert_int_equal(replay_bundle_load(grow_dir, &b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	grow(full, 1, 1);
	assert_int_equal(replay_state_extend(st, b), -ESTALE);
	replay_state_free(st);
	replay_bundle_free(b);
	replay_bundle_free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_index_psb_time),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_not_grown),
		cmocka_unit_test(test_exec),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
